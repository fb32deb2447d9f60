# Write errors on standard output are reported (issue 13, item 11): main
# flushes and closes stdout after every command; into /dev/full a command that
# succeeded otherwise says "write error on standard output" and exits 1.
. "$TOP/tests/cli/lib.sh"

[ -w /dev/full ] || test_skip_all "no /dev/full"

T1="$TOP/tests/data/t1.yaml"
C1="$TOP/tests/data/t1-cluster.yaml"
cd "$TMPDIR_TEST"

test_expect_success 'setup: a database with a run' - <<'EOF'
expect_exit 0 "$BAECHI" run -w "$T1" -c "$C1" -p m-etf --db r.db
EOF

full() {
    set +e
    "$@" > /dev/full 2> err
    rc=$?
    set -e
    [ "$rc" -eq 1 ] || { echo "expected exit 1 into /dev/full, got $rc: $*"; cat err; exit 1; }
    expect_grep '^baechi: write error on standard output: No space left on device$' err
    [ "$(wc -l < err)" -eq 1 ] || { echo "expected one line: $*"; cat err; exit 1; }
}

test_expect_success 'baechi workload info T1 into /dev/full: exit 1, said once' '
    full "$BAECHI" workload info "$T1"
'

test_expect_success 'baechi report --db r.db into /dev/full: exit 1, said once' '
    full "$BAECHI" report --db r.db
'

test_expect_success 'baechi sim -w T1 -c C1 --placement given --json into /dev/full: exit 1, said once' - <<'EOF'
full "$BAECHI" sim -w "$T1" -c "$C1" --placement given --json
EOF

test_expect_success 'baechi db query --db r.db SQL into /dev/full: exit 1, said once' '
    full "$BAECHI" db query --db r.db "SELECT * FROM runs"
'

test_expect_success 'baechi --help into /dev/full: exit 1, said once' '
    full "$BAECHI" --help
'

# a reader that stops early is not an error
test_expect_success 'a reader that stops early is not an error' - <<'EOF'
"$BAECHI" workload info "$T1" | head -1 > head.txt
expect_grep '^workload t1' head.txt
EOF

test_done
