# lib.sh - helpers for CLI tests; source it: . "$TOP/tests/cli/lib.sh"
set -eu

# expect_exit CODE cmd... : runs cmd, fails unless it exits with CODE.
# Its stdout/stderr are kept in $TMPDIR_TEST/out and $TMPDIR_TEST/err.
expect_exit() {
    want=$1
    shift
    set +e
    "$@" > "$TMPDIR_TEST/out" 2> "$TMPDIR_TEST/err"
    got=$?
    set -e
    if [ "$got" -ne "$want" ]; then
        echo "expected exit $want, got $got: $*"
        echo "--- stdout"; cat "$TMPDIR_TEST/out"
        echo "--- stderr"; cat "$TMPDIR_TEST/err"
        exit 1
    fi
}

# expect_grep PATTERN FILE : fails unless FILE matches the extended regex.
expect_grep() {
    if ! grep -Eq -- "$1" "$2"; then
        echo "expected /$1/ in $2:"
        cat "$2"
        exit 1
    fi
}

GNMT="$TOP/data/workloads/gnmt_v2/gnmt_v2_b128_fwd.yaml"
