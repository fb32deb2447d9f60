# check: once
# One allocator (core/alloc.h, scripts/check-alloc.sh): no raw malloc family
# call in the libraries or the program outside core/alloc.c, and the checker
# does flag planted ones (but not a mention in a comment or a string).
. "$TOP/tests/cli/lib.sh"

test_expect_success 'the tree has no raw allocation call' '
    expect_exit 0 sh "$TOP/scripts/check-alloc.sh" "$TOP"
    expect_grep "^alloc: 0 violations$" "$TMPDIR_TEST/out"
'

test_expect_success 'planted raw allocations are flagged' - <<'EOF'
mkdir -p "$TMPDIR_TEST/t"
for d in core sim placers workloads calibrate results api cli; do
    cp -r "$TOP/$d" "$TMPDIR_TEST/t/"
done
printf 'static void *f(void) { return malloc(8); }\n' >> "$TMPDIR_TEST/t/core/graph.c"
printf 'static char *g(const char *s) { return strdup (s); }\n' >> "$TMPDIR_TEST/t/results/report.c"
printf 'static int h(char **o) { return asprintf(o, "%%d", 1); }\n' >> "$TMPDIR_TEST/t/cli/run.c"
# not calls: a comment, a string, another allocator's name
printf '/* malloc(8) */ static const char *s_ = "strdup(x)";\n' >> "$TMPDIR_TEST/t/sim/sim.c"
printf 'static void *k(void) { return mem_alloc(8); }\n' >> "$TMPDIR_TEST/t/sim/sim.c"
expect_exit 1 sh "$TOP/scripts/check-alloc.sh" "$TMPDIR_TEST/t"
expect_grep "^core/graph.c:[0-9]+: raw 'malloc\(' \(use core/alloc.h\)$" "$TMPDIR_TEST/out"
expect_grep "^results/report.c:[0-9]+: raw 'strdup\('" "$TMPDIR_TEST/out"
expect_grep "^cli/run.c:[0-9]+: raw 'asprintf\('" "$TMPDIR_TEST/out"
expect_grep '^alloc: 3 violations$' "$TMPDIR_TEST/out"
EOF

test_done
