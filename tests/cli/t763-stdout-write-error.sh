# Write errors on standard output are reported (issue 13, item 11): main
# flushes and closes stdout after every command; into /dev/full a command that
# succeeded otherwise says "write error on standard output" and exits 1.
. "$TOP/tests/cli/lib.sh"

[ -w /dev/full ] || { echo "skip: no /dev/full"; exit 0; }
T1="$TOP/tests/data/t1.yaml"
C1="$TOP/tests/data/t1-cluster.yaml"
cd "$TMPDIR_TEST"
expect_exit 0 "$BAECHI" run -w "$T1" -c "$C1" -p m-etf --db r.db

full() {
    set +e
    "$@" > /dev/full 2> err
    rc=$?
    set -e
    [ "$rc" -eq 1 ] || { echo "expected exit 1 into /dev/full, got $rc: $*"; cat err; exit 1; }
    expect_grep '^baechi: write error on standard output: No space left on device$' err
    [ "$(wc -l < err)" -eq 1 ] || { echo "expected one line: $*"; cat err; exit 1; }
}
full "$BAECHI" workload info "$T1"
full "$BAECHI" report --db r.db
full "$BAECHI" sim -w "$T1" -c "$C1" --placement given --json
full "$BAECHI" db query --db r.db "SELECT * FROM runs"
full "$BAECHI" --help

# a reader that stops early is not an error
"$BAECHI" workload info "$T1" | head -1 > head.txt
expect_grep '^workload t1' head.txt
