#!/bin/sh
# run.sh BAECHI - runs every tests/cli/t*.sh against the program BAECHI.
# Each test is a POSIX shell script run with $BAECHI (the program), $TOP (the
# repository root) and $TMPDIR_TEST (a fresh directory); exit 0 = pass.
# Prints one line per test and the closing line "N passed, N failed".
set -u
BAECHI=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
TOP=$(cd "$(dirname "$0")/../.." && pwd)
export BAECHI TOP
pass=0
fail=0
for t in "$TOP"/tests/cli/t[0-9]*.sh; do
    [ -f "$t" ] || continue
    name=$(basename "$t" .sh)
    TMPDIR_TEST=$(mktemp -d)
    export TMPDIR_TEST
    if sh "$t" > "$TMPDIR_TEST/.out" 2>&1; then
        pass=$((pass + 1))
        echo "ok   $name"
    else
        fail=$((fail + 1))
        echo "FAIL $name"
        sed 's/^/     | /' "$TMPDIR_TEST/.out" | tail -n 30
    fi
    rm -rf "$TMPDIR_TEST"
done
echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
