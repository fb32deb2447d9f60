# check: once
# No mutable file-level or global state in the libraries (issue 20): zero
# writable statics in libbaechi.a outside the allowlist of
# scripts/check-statics.sh, and the checker does flag planted ones while it
# lets thread-locals and const pointer tables pass.
. "$TOP/tests/cli/lib.sh"

LIBA=$(dirname "$BAECHI")/libbaechi.a
CC=${CC:-cc}

test_expect_success 'libbaechi.a has no writable statics' '
    expect_exit 0 sh "$TOP/scripts/check-statics.sh" "$LIBA"
    expect_grep "^statics: 0 writable$" "$TMPDIR_TEST/out"
'

test_expect_success 'setup: an archive with planted statics' - <<'EOF'
cat > "$TMPDIR_TEST/planted.c" <<'C'
static int counter;
int global_total = 1;
static const char *last;
static _Thread_local int per_thread;
static const char *const names[] = {"a", "b", 0};
int planted_bump(void);
int planted_bump(void)
{
    last = names[counter & 1];
    per_thread++;
    return ++counter + global_total + per_thread + (last != 0);
}
C
$CC -std=c11 -O0 -fPIC -c -o "$TMPDIR_TEST/planted.o" "$TMPDIR_TEST/planted.c"
cp "$LIBA" "$TMPDIR_TEST/lib.a"
ar rcs "$TMPDIR_TEST/lib.a" "$TMPDIR_TEST/planted.o"
EOF

test_expect_success 'the planted statics are flagged, thread-locals and const tables are not' '
    expect_exit 1 sh "$TOP/scripts/check-statics.sh" "$TMPDIR_TEST/lib.a"
    expect_grep "^planted\.o: counter " "$TMPDIR_TEST/out"
    expect_grep "^planted\.o: global_total " "$TMPDIR_TEST/out"
    expect_grep "^planted\.o: last " "$TMPDIR_TEST/out"
    expect_grep "^statics: 3 writable$" "$TMPDIR_TEST/out"
    ! grep -q "per_thread\|names" "$TMPDIR_TEST/out"
'

test_expect_success 'an object file alone is checked too' '
    expect_exit 1 sh "$TOP/scripts/check-statics.sh" "$TMPDIR_TEST/planted.o"
    expect_grep "^statics: 3 writable$" "$TMPDIR_TEST/out"
'

test_expect_success 'a missing archive is a usage error' '
    expect_exit 2 sh "$TOP/scripts/check-statics.sh" "$TMPDIR_TEST/none.a"
'

test_done
