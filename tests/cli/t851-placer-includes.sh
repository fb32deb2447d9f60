# Inside placers/, includes do not run back up to the interface
# (placers/placer.h: the registry and placer_run): the algorithms, the
# groupers, the LP, the bound and `auto`'s search include the parts they
# use (placer_options.h, grouper.h, placer_world.h, lp_solver.h).  Only the
# registry itself (placer.c) and `auto`'s candidates, which run the other
# placers through it, include placer.h; and the parts include nothing of
# placer.h, placer_internal.h or auto's headers above them.
# check: once
. "$TOP/tests/cli/lib.sh"

test_expect_success 'placer.h is included inside placers/ by placer.c and auto_candidates.c only' - <<'EOF'
cd "$TOP"
bad=$(grep -l '#include "placers/placer.h"' placers/*.c placers/*.h placers/*.cpp 2>/dev/null |
      grep -v -e '^placers/placer\.c$' -e '^placers/auto_candidates\.c$' || true)
if [ -n "$bad" ]; then
    echo "these include placers/placer.h (include the part they use instead):"
    echo "$bad"
    exit 1
fi
EOF

test_expect_success 'the parts of placer.h include none of the headers above them' - <<'EOF'
cd "$TOP"
for h in placers/placer_options.h placers/grouper.h placers/placer_world.h placers/lp_solver.h; do
    [ -f "$h" ] || { echo "missing $h"; exit 1; }
    if grep -n -e '#include "placers/placer\.h"' -e '#include "placers/placer_internal\.h"' \
            -e '#include "placers/auto_' "$h"; then
        echo "$h includes a header above it"
        exit 1
    fi
done
EOF

test_done
