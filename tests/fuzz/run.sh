#!/bin/sh
# run.sh - runs the fuzz harnesses of tests/fuzz/ (docs/fuzzing.md).
#
#   sh tests/fuzz/run.sh fuzz SECONDS    each target for SECONDS (make fuzz)
#   sh tests/fuzz/run.sh smoke SECONDS   the same from the seeds only, in a
#                                        throw-away corpus, then the replay
#                                        (make check)
#   sh tests/fuzz/run.sh replay          every saved input of
#                                        tests/fuzz/crashes/<target>/ once
#
# Targets: $FUZZ_TARGETS (default: all six).  Needs build/fuzz/fuzz-<target>
# (make fuzz-build).  A run fails on a crash, a sanitizer report, a leak, an
# input taking over 10 s, or a harness finding; libFuzzer then saves the
# input in tests/fuzz/crashes/<target>/.  Ends with
# "fuzz: N passed, N failed" (one per target run and per replayed input).
set -u
cd "$(dirname "$0")/../.."
mode=${1:-smoke}
secs=${2:-5}
targets=${FUZZ_TARGETS:-workload cluster placement sweep onnx profile}
B=build/fuzz
pass=0
fail=0
total_execs=0

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allocator_may_return_null=1}
# (UBSan's defaults, with tests/fuzz/ubsan.supp, are compiled in: tests/fuzz/options.c)

seeds() { # target -> the repository's own fixtures of that format
    case "$1" in
    workload) ls tests/data/*.yaml tests/data/bad/w-* ;;
    cluster) ls data/clusters/*.yaml tests/data/t1-cluster.yaml tests/data/bad/c-* ;;
    placement) ls tests/data/t1-placement.yaml tests/fuzz/seeds/placement/* ;;
    sweep) ls data/sweeps/*.yaml tests/fuzz/seeds/sweep/* ;;
    onnx) ls tests/data/onnx/*.onnx tests/data/bad/o-*.onnx tests/fuzz/seeds/onnx/* ;;
    profile) ls tests/data/cal-trace.json tests/fuzz/seeds/profile/* ;;
    esac 2> /dev/null
}

if ! command -v clang > /dev/null 2>&1; then
    echo "fuzz: clang is not installed: the fuzz targets are not built (make deps installs"
    echo "fuzz: clang and libclang-rt-14-dev, scripts/deps/fuzz.txt)"
    echo "fuzz: 0 passed, 1 failed"
    exit 1
fi

replay() { # target
    dir=tests/fuzz/crashes/$1
    for f in "$dir"/*; do
        [ -f "$f" ] || continue
        case "$f" in *.md | *.txt) continue ;; esac
        if "$B/replay-$1" "$f" > "$B/replay.log" 2>&1; then
            pass=$((pass + 1))
        else
            fail=$((fail + 1))
            echo "FAIL replay $1 $f:"
            tail -n 30 "$B/replay.log"
        fi
    done
}

run_target() { # target seconds corpus
    t=$1
    bin=$B/fuzz-$t
    if [ ! -x "$bin" ]; then
        echo "FAIL $t: $bin is missing (make fuzz-build; is clang's libFuzzer runtime there?)"
        fail=$((fail + 1))
        return
    fi
    sd=$B/seeds/$t
    rm -rf "$sd"
    mkdir -p "$sd" "$3" "tests/fuzz/crashes/$t"
    for f in $(seeds "$t"); do
        cp "$f" "$sd/$(echo "$f" | tr / _)"
    done
    log=$B/$t.log
    dict=
    [ -f "tests/fuzz/$t.dict" ] && dict=-dict=tests/fuzz/$t.dict
    nice "$bin" -max_total_time="$2" -timeout=10 -rss_limit_mb=2048 -max_len=262144 \
        -print_final_stats=1 -artifact_prefix="tests/fuzz/crashes/$t/" $dict "$3" "$sd" \
        > "$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    execs=${execs:-0}
    total_execs=$((total_execs + execs))
    if [ "$rc" -eq 0 ]; then
        pass=$((pass + 1))
        echo "ok $t: $execs executions in $2 s, corpus $(ls "$3" | wc -l) inputs"
    else
        fail=$((fail + 1))
        echo "FAIL $t: exit $rc after $execs executions; the input is in tests/fuzz/crashes/$t/:"
        grep -E 'ERROR|SUMMARY|runtime error|fuzz finding|Test unit written' "$log" | head -n 8
        grep -A12 -E 'ERROR: |runtime error' "$log" | grep -E '^ +#[0-9]' | head -n 8
    fi
}

case "$mode" in
fuzz | smoke)
    for t in $targets; do
        if [ "$mode" = smoke ]; then
            corpus=$(mktemp -d)
        else
            corpus=$B/corpus/$t
        fi
        run_target "$t" "$secs" "$corpus"
        [ "$mode" = smoke ] && rm -rf "$corpus"
    done
    echo "fuzz: $total_execs executions in all"
    for t in $targets; do replay "$t"; done
    ;;
replay)
    for t in $targets; do replay "$t"; done
    ;;
*)
    echo "usage: run.sh fuzz|smoke SECONDS | run.sh replay" >&2
    exit 2
    ;;
esac
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
