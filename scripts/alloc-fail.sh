#!/bin/sh
# alloc-fail.sh BAECHI [CASE...] - allocation-failure testing as SQLite does
# it (docs/fuzzing.md "Allocation failures"): BAECHI is the test build
# (make allocfail: build/allocfail/baechi, -DBAECHI_ALLOC_FAIL under ASan +
# UBSan).  For each case (a command on small inputs) it runs the command
# once unfailed, learning the number of allocations A (BAECHI_ALLOC_COUNT=1
# makes the program print "baechi: allocations: A" at exit), then once for
# every N from 1 to A with BAECHI_ALLOC_FAIL_AT=N, and checks each run:
#
#   - no crash: no signal, no sanitizer report (leak, invalid access, UB);
#   - an exit 0 prints what the unfailed run printed (stdout, and the output
#     file where the case writes one);
#   - any other exit is 1 with a message that contains "out of memory"
#     (never 2, never another message).
#
# Environment:
#   ALLOC_FAIL_STRIDE=S     try every S-th N only (default 1: every N)
#   ALLOC_FAIL_EVERY=1      persistent mode: the N-th and every later
#                           allocation fail (BAECHI_ALLOC_FAIL_EVERY=1)
#   ALLOC_FAIL_LIMIT=M      at most M values of N per case (spread evenly)
#   ALLOC_FAIL_JOBS=J       J runs at a time (default 1)
#   ALLOC_FAIL_LOG=FILE     the failures in detail (default: stderr)
# CASE names a subset (default: all; `alloc-fail.sh BAECHI --list`).
# Prints one line per case ("case: A allocations, R runs, F failures") and
# "alloc-fail: R runs, F failures"; exits 1 when there is any failure.
set -eu
bin=${1:?usage: alloc-fail.sh BAECHI [CASE...]}
shift
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
top=$(cd "$(dirname "$0")/.." && pwd)
stride=${ALLOC_FAIL_STRIDE:-1}
every=${ALLOC_FAIL_EVERY:-0}
limit=${ALLOC_FAIL_LIMIT:-0}
jobs=${ALLOC_FAIL_JOBS:-1}
log=${ALLOC_FAIL_LOG:-/dev/stderr}

W=$top/tests/data/t1.yaml
C=$top/tests/data/t1-cluster.yaml
P=$top/tests/data/t1-placement.yaml
ONNX=$top/tests/data/onnx/two_input.onnx

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

# Sanitizer reports exit with their own statuses, apart from the 1 of an
# out-of-memory failure; leaks are reported (LeakSanitizer).
export ASAN_OPTIONS=detect_leaks=1:exitcode=99:abort_on_error=0:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:exitcode=98:halt_on_error=1
export LSAN_OPTIONS=exitcode=99

# The fixtures every case reads (made unfailed, with the test build itself).
fixtures() {
    "$bin" workload gen synthetic --shape random --ops 30 --seed 7 -o syn.yaml > /dev/null 2>&1
    "$bin" workload gen gpt --layers 2 --d-model 64 --heads 4 --vocab 100 -b 2 --seq 8 \
        --micro-batches 2 -o gpt.yaml > /dev/null 2>&1
    # a training graph large enough to grow the reader's arrays mid-op
    # (issue 30 item 3: "line not taken" was 1 = BAECHI_ENOMEM)
    "$bin" workload gen gpt --layers 2 --d-model 64 --heads 4 --vocab 100 -b 4 --seq 8 \
        -o gptt.yaml > /dev/null 2>&1
    "$bin" workload gen gpt --layers 2 --d-model 64 --heads 4 --vocab 100 -b 4 --seq 8 \
        --forward-only -o gptf.yaml > /dev/null 2>&1
    cat > sweep.yaml <<YAML
name: tiny
workloads: ["$W"]
clusters: ["$C"]
placers: [single, m-etf]
memory_fractions: [1]
models: [timed, baechi]
YAML
    "$bin" sweep sweep.yaml --db fixture.db -j 1 > /dev/null 2>&1
    # collectives across the two nodes of pcie-2x4 (sim/collective.h)
    {
        echo 'format: 1'
        echo 'name: coll'
        echo 'ops:'
        for d in 0 1 4 5; do
            echo "  - {name: p$d, type: G, time_us: 5, outputs: [4096], device: $d}"
            echo "  - {name: ar$d, type: AllReduce, outputs: [4096], inputs: [p$d], device: $d, x-collective: {id: ar, kind: all-reduce, bytes: 4096}}"
            echo "  - {name: bc$d, type: Broadcast, outputs: [64], inputs: [ar$d], device: $d, x-collective: {id: bc, kind: broadcast, bytes: 64, root: 1}}"
            echo "  - {name: u$d, type: U, time_us: 1, inputs: [bc$d], device: $d}"
        done
    } > coll.yaml
}

# case NAME OUTFILE ARGS...: OUTFILE ("-" for none) is compared on exit 0.
cases() {
    echo "info - workload info $W"
    echo "info-json - workload info $W --json"
    echo "info-gpt-train - workload info $tmp/gptt.yaml"
    echo "train-gpt out.yaml workload train $tmp/gptf.yaml -o out.yaml"
    echo "parallelize-gpt-dp2 out.yaml workload parallelize $tmp/gptt.yaml --dp 2 -o out.yaml"
    echo "parallelize-gpt-tp2 out.yaml workload parallelize $tmp/gptt.yaml --tp 2 -o out.yaml"
    echo "import out.yaml workload import $ONNX -o out.yaml"
    echo "import-train out.yaml workload import $ONNX --train -o out.yaml"
    echo "gen out.yaml workload gen synthetic --shape random --ops 30 --seed 7 -o out.yaml"
    echo "train out.yaml workload train $tmp/syn.yaml -o out.yaml"
    echo "parallelize out.yaml workload parallelize $tmp/gpt.yaml --dp 2 --tp 2 --pp 2 --zero 3 -o out.yaml"
    echo "parallelize-zero1 out.yaml workload parallelize $tmp/gpt.yaml --dp 2 --zero 1 -o out.yaml"
    echo "parallelize-sp out.yaml workload parallelize $tmp/gpt.yaml --dp 2 --tp 2 --sp --mixed-precision --fp32-main-grads -o out.yaml"
    for p in $("$bin" place --list | sed -n 's/^  \([a-z][a-z0-9-]*\) .*/\1/p'); do
        echo "place-$p out.yaml place -p $p -w $W -c $C -o out.yaml"
    done
    echo "place-syn-m-sct out.yaml place -p m-sct -w $tmp/syn.yaml -c paper-4gpu-pcie -o out.yaml"
    echo "run - run -p m-etf -w $W -c $C"
    echo "run-syn - run -p m-topo -w $tmp/syn.yaml -c paper-4gpu-pcie"
    echo "sim-explain - sim -w $W -c $C --placement $P --explain-memory"
    echo "sim-coll t.json sim -w $tmp/coll.yaml -c pcie-2x4 --placement given --trace t.json"
    echo "cluster-list - cluster list"
    echo "sweep - sweep $tmp/sweep.yaml --db run.db -j 1"
    echo "report - report --db $tmp/fixture.db"
    echo "report-json - report --db $tmp/fixture.db --format json"
    echo "plot-csv out.csv plot step --db $tmp/fixture.db --csv out.csv"
}

# run1 VAR=VALUE VAR=VALUE ARGS...: one run; sets rc, leaves stdout in o,
# stderr in e
run1() {
    rm -f out.yaml out.csv t.json run.db run.db-wal run.db-shm
    set +e
    a1=$1
    a2=$2
    shift 2
    env "$a1" "$a2" "$bin" "$@" > o.raw 2> e < /dev/null
    rc=$?
    set -e
    # wall-clock times differ from run to run
    sed -E -e '/^placement /s/[0-9.]+ (ms|µs|s)/T/g' \
        -e "/^sweep '/s/ in [0-9.]+ s \\([^)]*\\)/ in T/" o.raw > o
}

# try_slice A FIRST STEP: the runs N = FIRST, FIRST + STEP, ... <= A in the
# current directory; one line "N ok" or "N why" each, details on stderr
try_slice() {
    i=$2
    while [ "$i" -le "$1" ]; do
        # shellcheck disable=SC2086 # args is a word list
        run1 BAECHI_ALLOC_FAIL_AT=$i BAECHI_ALLOC_FAIL_EVERY=$every $args
        why=
        if grep -q 'Sanitizer\|runtime error:' e; then
            why="sanitizer report (exit $rc)"
        elif [ "$rc" -gt 128 ] || [ "$rc" -ge 97 ]; then
            why="crash (exit $rc)"
        elif [ "$rc" -eq 0 ]; then
            if ! cmp -s o ../ref.out; then
                why="exit 0 with different output"
            elif [ "$outf" != - ] && ! cmp -s "$outf" ../ref.file; then
                why="exit 0 with a different $outf"
            fi
        elif [ "$rc" -ne 1 ]; then
            why="exit $rc"
        elif ! grep -q 'out of memory' e; then
            why="exit 1 without 'out of memory'"
        else
            for f in ./*tmp*; do
                if [ -e "$f" ]; then
                    why="exit 1 leaving a temporary file: $f"
                fi
            done
        fi
        rm -f ./*tmp*
        if [ -n "$why" ]; then
            echo "$i $why"
            echo "$name: BAECHI_ALLOC_FAIL_AT=$i: $why: baechi $args" >&2
            head -20 e | sed 's/^/    /' >&2
        else
            echo "$i ok"
        fi
        i=$((i + $3))
    done
}

fixtures
total_runs=0
total_fail=0
cases > cases.txt
if [ "${1:-}" = --list ]; then
    cut -d' ' -f1 cases.txt
    exit 0
fi
while read -r name outf args; do
    if [ $# -gt 0 ]; then
        case " $* " in *" $name "*) ;; *) continue ;; esac
    fi
    # shellcheck disable=SC2086 # args is a word list
    run1 BAECHI_ALLOC_COUNT=1 BAECHI_ALLOC_FAIL_AT=0 $args
    if [ "$rc" -ne 0 ]; then
        echo "$name: the unfailed run exits $rc" >> "$log"
        sed 's/^/    /' e >> "$log"
        total_fail=$((total_fail + 1))
        echo "$name: unfailed run failed"
        continue
    fi
    n=$(sed -n 's/^baechi: allocations: \([0-9]*\)$/\1/p' e)
    mv o ref.out
    [ "$outf" = - ] || cp "$outf" ref.file
    s=$stride
    if [ "$limit" -gt 0 ] && [ $((n / s)) -gt "$limit" ]; then
        s=$(((n + limit - 1) / limit))
    fi
    k=0
    while [ "$k" -lt "$jobs" ]; do
        mkdir -p "w$k"
        (cd "w$k" && try_slice "$n" $((1 + k * s)) $((s * jobs)) > res 2> log) &
        k=$((k + 1))
    done
    wait
    runs=$(cat w*/res | wc -l | tr -d ' ')
    fail=$(grep -c -v ' ok$' w*/res /dev/null | awk -F: '{ t += $2 } END { print t + 0 }')
    cat w*/log >> "$log"
    rm -rf w*
    echo "$name: $n allocations, $runs runs, $fail failures"
    total_runs=$((total_runs + runs))
    total_fail=$((total_fail + fail))
done < cases.txt
echo "alloc-fail: $total_runs runs, $total_fail failures"
[ "$total_fail" -eq 0 ]
