# The size limits (docs/style.md §1), scripts/check-functions.sh: no function over
# 150 lines (signature to closing brace) and no file over 1,000 lines.  In a
# copy of the tree, a planted 151-line function (static, its signature on two
# lines) and a 1,001-line file are flagged and a 150-line function is not;
# then the tree itself passes.
# check: once
. "$TOP/tests/cli/lib.sh"

mkdir -p "$TMPDIR_TEST/t"
for d in core sim placers workloads calibrate results api cli; do
    cp -r "$TOP/$d" "$TMPDIR_TEST/t/"
done
before=$(sh "$TOP/scripts/check-functions.sh" "$TMPDIR_TEST/t" |
    sed -n 's/^functions: \([0-9]*\) violations$/\1/p')

# fn NAME LINES: a function of LINES lines in clang-format's layout
fn() {
    printf 'static int %s(int a,\n' "$1"
    printf '%*sint b)\n{\n' $((${#1} + 12)) ''
    i=4
    while [ "$i" -lt "$2" ]; do
        printf '    a += b * %d;\n' "$i"
        i=$((i + 1))
    done
    printf '}\n\n'
}
{
    printf '/* planted.c - a comment; struct s {\n * } is not a function */\n'
    printf 'struct planted {\n    int a;\n};\n\n'
    fn planted_ok 150
    fn planted_long 151
    printf 'int planted_last(void)\n{\n    return 0;\n}\n'
} > "$TMPDIR_TEST/t/sim/planted.c"
i=0
while [ "$i" -lt 1001 ]; do
    echo "/* line $i */"
    i=$((i + 1))
done > "$TMPDIR_TEST/t/core/planted_big.h"
ok_line=$(grep -n '^static int planted_ok' "$TMPDIR_TEST/t/sim/planted.c" | cut -d: -f1)
long_line=$(grep -n '^static int planted_long' "$TMPDIR_TEST/t/sim/planted.c" | cut -d: -f1)

expect_exit 1 sh "$TOP/scripts/check-functions.sh" "$TMPDIR_TEST/t"
expect_grep "^sim/planted.c:$long_line: function planted_long is 151 lines \(max 150\)$" "$TMPDIR_TEST/out"
expect_grep '^core/planted_big.h:1: file is 1001 lines \(max 1000\)$' "$TMPDIR_TEST/out"
if grep -q 'planted_ok\|planted_last\|function planted \|sim/planted.c: file' "$TMPDIR_TEST/out"; then
    echo "flagged what is within the limits (planted_ok is line $ok_line):"
    cat "$TMPDIR_TEST/out"
    exit 1
fi
expect_grep "^functions: $((before + 2)) violations$" "$TMPDIR_TEST/out"

# The tree itself.
expect_exit 0 sh "$TOP/scripts/check-functions.sh" "$TOP"
expect_grep '^functions: 0 violations$' "$TMPDIR_TEST/out"
