# The layout's rules (README.md "Layout"), scripts/check-layers.sh: the
# include rule and silent libraries (no printing, exiting or aborting outside
# BUG() and the documented exceptions).  Zero violations in the tree, and the
# checker does flag planted ones: a part that includes one above it, a
# library that prints to stderr, exits or asks isatty, and not a printf in a
# comment or string, nor the program's own printing.
# check: once
. "$TOP/tests/cli/lib.sh"

# A copy of the tree with violations planted.
mkdir -p "$TMPDIR_TEST/t"
for d in core sim placers workloads calibrate results api cli include; do
    cp -r "$TOP/$d" "$TMPDIR_TEST/t/"
done
printf '#include "sim/sim.h"\n' >> "$TMPDIR_TEST/t/core/err.c"
printf '#include "cli/cmd.h"\n' >> "$TMPDIR_TEST/t/results/db.c"
printf '#include "results/db.h"\n' >> "$TMPDIR_TEST/t/calibrate/fit.c"
cat > "$TMPDIR_TEST/t/sim/planted.c" <<'C'
/* printf("a comment") and exit(1) do not count */
static void planted(int n)
{
    char b[16];

    snprintf(b, sizeof(b), "exit(%d) printf(", n);
    if (n > 1) {
        fprintf(stderr, "planted: %s\n", b);
    }
    if (isatty(2)) {
        exit(3);
    }
}
C
printf 'void planted_too(void)\n{\n    abort();\n}\n' > "$TMPDIR_TEST/t/placers/planted.c"
printf 'void cli_prints(void)\n{\n    fprintf(stderr, "ok\\n");\n    exit(0);\n}\n' \
    > "$TMPDIR_TEST/t/cli/planted.c"
expect_exit 1 sh "$TOP/scripts/check-layers.sh" "$TMPDIR_TEST/t"
expect_grep "^core/err.c:[0-9]+: part 'core' includes 'sim/sim.h'" "$TMPDIR_TEST/out"
expect_grep "^results/db.c:[0-9]+: part 'results' includes 'cli/cmd.h'" "$TMPDIR_TEST/out"
expect_grep "^calibrate/fit.c:[0-9]+: part 'calibrate' includes 'results/db.h'" "$TMPDIR_TEST/out"
expect_grep '^includes: 3 violations$' "$TMPDIR_TEST/out"
expect_grep "^sim/planted.c:8: library part 'sim' calls 'fprintf\(stderr'" "$TMPDIR_TEST/out"
expect_grep "^sim/planted.c:10: library part 'sim' calls 'isatty'" "$TMPDIR_TEST/out"
expect_grep "^sim/planted.c:11: library part 'sim' calls 'exit'" "$TMPDIR_TEST/out"
expect_grep "^placers/planted.c:3: library part 'placers' calls 'abort'" "$TMPDIR_TEST/out"
if grep -Eq '^(sim/planted.c:(1|6):|cli/)' "$TMPDIR_TEST/out"; then
    echo "a comment, a string or cli/ flagged:"
    cat "$TMPDIR_TEST/out"
    exit 1
fi
# the planted ones and whatever the tree has
n=$(sed -n 's/^silent: \([0-9]*\) violations$/\1/p' "$TMPDIR_TEST/out")
test "$n" -ge 4 || { echo "silent: $n"; exit 1; }

# The tree itself.
expect_exit 0 sh "$TOP/scripts/check-layers.sh" "$TOP"
expect_grep '^layers: 0 violations$' "$TMPDIR_TEST/out"
