# The include rule of the layout (README.md "Layout"): zero violations in the
# tree, and the checker does flag a part that includes one above it.
. "$TOP/tests/cli/lib.sh"

expect_exit 0 sh "$TOP/scripts/check-layers.sh" "$TOP"
expect_grep '^layers: 0 violations$' "$TMPDIR_TEST/out"

# A copy of the tree with three violations planted.
mkdir -p "$TMPDIR_TEST/t"
for d in core sim placers workloads calibrate results cli; do
    cp -r "$TOP/$d" "$TMPDIR_TEST/t/"
done
printf '#include "sim/sim.h"\n' >> "$TMPDIR_TEST/t/core/err.c"
printf '#include "cli/cmd.h"\n' >> "$TMPDIR_TEST/t/results/db.c"
printf '#include "results/db.h"\n' >> "$TMPDIR_TEST/t/calibrate/fit.c"
expect_exit 1 sh "$TOP/scripts/check-layers.sh" "$TMPDIR_TEST/t"
expect_grep "^core/err.c:[0-9]+: part 'core' includes 'sim/sim.h'" "$TMPDIR_TEST/out"
expect_grep "^results/db.c:[0-9]+: part 'results' includes 'cli/cmd.h'" "$TMPDIR_TEST/out"
expect_grep "^calibrate/fit.c:[0-9]+: part 'calibrate' includes 'results/db.h'" "$TMPDIR_TEST/out"
expect_grep '^layers: 3 violations$' "$TMPDIR_TEST/out"
