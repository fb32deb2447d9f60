#!/bin/sh
# ref-record.sh [BAECHI] - rewrites tests/ref/verified/: runs the reference
# comparisons t320-t350 with REF_RECORD=1 (every Python reference runs; each
# check that passes is recorded; tests/cli/lib.sh, "Recorded verdicts"), so
# that `make check` need not run the references again while baechi's
# outputs, the inputs and the references stay the same.  Run it when a
# change of the placers or the simulator changes an output those scripts
# compare (the reference then runs, and the script takes minutes: the
# closing report's time shows it).  BAECHI: default build/san/baechi, else
# build/baechi.  Fails, recording nothing for that script, if a check fails.
set -u
cd "$(dirname "$0")/.." || exit 2
b=${1:-}
if [ -z "$b" ]; then
    b=build/baechi
    [ -x build/san/baechi ] && b=build/san/baechi
fi
BAECHI=$(cd "$(dirname "$b")" && pwd)/$(basename "$b")
TOP=$(pwd)
export BAECHI TOP REF_RECORD=1
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
mkdir -p tests/ref/verified
rc=0
for t in tests/cli/t32*-reference.sh tests/cli/t33*-reference.sh tests/cli/t34*-reference.sh \
    tests/cli/t35*-reference.sh; do
    [ -f "$t" ] || continue
    name=$(basename "$t" .sh)
    rec=tests/ref/verified/$name.txt
    rm -f "$rec"
    TMPDIR_TEST=$(mktemp -d)
    export TMPDIR_TEST
    if sh "$t" > "$TMPDIR_TEST.log" 2>&1; then
        echo "ok   $name: $(wc -l < "$rec" 2> /dev/null || echo 0) checks recorded"
    else
        rc=1
        rm -f "$rec"
        echo "FAIL $name: nothing recorded"
        grep -A20 '^not ok' "$TMPDIR_TEST.log" | head -n 40
    fi
    rm -rf "$TMPDIR_TEST" "$TMPDIR_TEST.log"
done
exit $rc
