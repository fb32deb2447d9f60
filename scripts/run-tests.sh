#!/bin/sh
# run-tests.sh - the test run of `make check`: unit tests (Criterion) and CLI
# tests, first on the normal build, then on the ASan+UBSan build, and the
# Python module's tests on the normal build, and a fuzz smoke round (a few
# seconds per harness of tests/fuzz/, then the replay of every saved crash
# input).  Ends with the closing line "N passed, N failed" summed over all
# six runs.
set -u
cd "$(dirname "$0")/.."
total_pass=0
total_fail=0
status=0

count_criterion() { # log -> "pass fail"
    sed -n 's/.*Tested: *\([0-9]*\) *| *Passing: *\([0-9]*\) *| *Failing: *\([0-9]*\) *| *Crashing: *\([0-9]*\).*/\2 \3 \4/p' "$1" | tail -n 1
}

run_unit() { # binary label
    log=$(mktemp)
    echo "== unit tests ($2)"
    "$1" --jobs 2 > "$log" 2>&1
    rc=$?
    tail -n 40 "$log" | grep -v '^\[----\]' | grep -Ev '^\s*$' | tail -n 20
    set -- $(count_criterion "$log")
    p=${1:-0}; f=$(( ${2:-0} + ${3:-0} ))
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    # Criterion counts a test whose process LeakSanitizer flags as passed:
    # every leak report counts as one more failure.
    leaks=$(grep -c 'ERROR: LeakSanitizer' "$log")
    if [ "$leaks" -gt 0 ]; then
        grep -A12 'ERROR: LeakSanitizer' "$log" | head -n 60
        echo "unit tests ($2): $leaks leak report(s)"
        f=$((f + leaks))
    fi
    total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
    [ "$f" -eq 0 ] || status=1
    rm -f "$log"
}

run_cli() { # binary label
    log=$(mktemp)
    echo "== CLI tests ($2)"
    sh tests/cli/run.sh "$1" > "$log" 2>&1
    rc=$?
    grep -v '^ok ' "$log"
    p=$(sed -n 's/^cli: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$log")
    f=$(sed -n 's/^cli: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$log")
    p=${p:-0}; f=${f:-0}
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
    [ "$f" -eq 0 ] || status=1
    rm -f "$log"
}

run_python() { # the Python module over build/libbaechi.so (not sanitized)
    log=$(mktemp)
    echo "== Python tests"
    BAECHI=build/baechi ${PYTHON:-python3} tests/python/run.py > "$log" 2>&1
    rc=$?
    grep -v '^\.*$' "$log" | tail -n 30
    p=$(sed -n 's/^python: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$log")
    f=$(sed -n 's/^python: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$log")
    p=${p:-0}; f=${f:-0}
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
    [ "$f" -eq 0 ] || status=1
    rm -f "$log"
}

run_fuzz() { # tests/fuzz/run.sh smoke: one per harness run and per replayed input
    log=$(mktemp)
    echo "== fuzz smoke (libFuzzer, ASan+UBSan, ${FUZZ_SMOKE_S:-3} s per target)"
    ASAN_OPTIONS= UBSAN_OPTIONS= sh tests/fuzz/run.sh smoke "${FUZZ_SMOKE_S:-3}" > "$log" 2>&1
    rc=$?
    tail -n 40 "$log"
    p=$(sed -n 's/^fuzz: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$log")
    f=$(sed -n 's/^fuzz: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$log")
    p=${p:-0}; f=${f:-0}
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
    [ "$f" -eq 0 ] || status=1
    rm -f "$log"
}

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
run_unit build/unit-tests plain
run_cli build/baechi plain
run_python
run_unit build/san/unit-tests "asan+ubsan"
run_cli build/san/baechi "asan+ubsan"
run_fuzz
echo "$total_pass passed, $total_fail failed"
exit $status
