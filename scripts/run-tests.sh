#!/bin/sh
# run-tests.sh - the test runs of the suite, CHECK_JOBS (default 2) at a time.
#
#   sh scripts/run-tests.sh          make check: the unit tests (Criterion) and
#                                    the CLI tests on the normal build and on
#                                    the ASan+UBSan build (build/san), the
#                                    Python module's tests on the normal build,
#                                    and a fuzz smoke round (a few seconds per
#                                    harness of tests/fuzz/, then the replay of
#                                    every saved crash input)
#   sh scripts/run-tests.sh --quick  make check-quick: the unit tests, the
#                                    Python tests and the CLI tests not marked
#                                    slow, on the normal build only
#   sh scripts/run-tests.sh --cli BAECHI   every CLI test against BAECHI
#                                    (tests/cli/run.sh, make cli)
#   sh scripts/run-tests.sh --time FILE LABEL COMMAND...   runs COMMAND and
#                                    adds its CPU and wall seconds to FILE
#                                    (make check times its builds so)
#
# Every run (a unit-test binary -- the sanitized one in three shards by
# suite name --, the Python tests, the fuzz round, one CLI script on one
# build) is a job; the jobs run in a pool, those that took longest last time
# (build/.check-times; else tests/check-times; else the sanitized and slow
# ones) first.  A job's output is kept and printed whole when it ends: "ok",
# "FAIL" with the failed checks ("not ok N - NAME" lines) and the tail of
# the output, or "skip" with the reason; a job's time when over 5 s; a
# unit-test job also the count of tests it ran (the sanitized shards' sum
# must be the plain run's, else one more failure).  Then the slowest
# five, the CPU time (user + sys: the load of a shared machine blurs it less
# than the wall time) of the builds (as `make check` measured them) and of
# the tests with the three costliest jobs, the reason of every skip, and the
# closing line alone "N passed, N failed, N skipped" (one per CLI script,
# per Criterion test, per Python test, per fuzz target and replayed input);
# exits 1 if any failed.  build/.check-cpu keeps every job's and build's CPU
# and wall seconds, most CPU first.
#
# A CLI script (tests/cli/t*.sh) exits 0 (passed), 77 after printing
# "skipped: REASON" (skipped) or anything else (failed).  A header line
# "# check: TAG..." marks it:
#   slow            not in --quick (over ~5 s on the normal build)
#   sanitized-only  when both builds run (make check), only on the sanitized
#                   one: the reference comparisons, mostly Python, run once
#                   but check the C side under the sanitizers; so do scripts
#                   that drive C paths (parsers, placers, sweeps, figures)
#                   whose second, plain run would add time and no check
#   once            when both builds run, only on the normal one: it checks
#                   the tree or `make install`, not the program under test,
#                   or its time goes to Python, gnuplot or whole studies
#                   (JSON schemas, PyTorch memory, the demo, the tutorial,
#                   the GPU-check rehearsal, auto's contract, run vs sim,
#                   every workload option in a sweep) over C paths that
#                   other scripts run under the sanitizers
#   serial          never at the same time as another serial script (they
#                   run make in the tree)
set -u
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
if [ "${1:-}" = --time ] && [ $# -ge 4 ]; then
    # before the unset below: COMMAND may be a make of the jobserver
    tfile=$2 tlabel=$3
    shift 3
    tstart=$(date +%s.%N)
    "$@"
    trc=$?
    # not `times | ...`: a pipeline's subshell would count nothing
    tcpu=$(mktemp)
    times > "$tcpu"
    tr 'ms' '  ' < "$tcpu" | awk -v s="$tstart" -v e="$(date +%s.%N)" -v l="$tlabel" '
        { for (i = 1; i < NF; i += 2) t += $i * 60 + $(i + 1) }
        END { printf "%7.1f %7.1f  %s (build)\n", t, e - s, l }' >> "$tfile"
    rm -f "$tcpu"
    exit $trc
fi
if [ "${1:-}" = --cli ] && [ -n "${2:-}" ]; then
    cli_bin=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
fi
cd "$(dirname "$self")/.." || exit 2
unset MAKEFLAGS MFLAGS MAKELEVEL
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
TIMES=build/.check-times

# --- one job: run.sh --job DIR ID KIND ARGS...; writes DIR/ID.res -------------

elapsed() { # start -> seconds since, one decimal
    awk -v s="$1" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }'
}

criterion_counts() { # log -> "pass fail crash"
    sed -n 's/.*Tested: *\([0-9]*\) *| *Passing: *\([0-9]*\) *| *Failing: *\([0-9]*\) *| *Crashing: *\([0-9]*\).*/\2 \3 \4/p' "$1" | tail -n 1
}

closing_counts() { # log prefix -> "pass fail" from "PREFIX: N passed, N failed"
    sed -n "s/^$2: \\([0-9]*\\) passed, \\([0-9]*\\) failed.*/\\1 \\2/p" "$1" | tail -n 1
}

job_unit() { # binary label [suites: a Criterion --filter pattern]
    # (the tested count of "Tested: N | Passing: N | Failing: N | ...")
    if [ -n "${3:-}" ]; then
        "$1" --jobs 1 --filter "$3/*" --tap="$out.tap" > "$out" 2>&1
    else
        "$1" --jobs 2 --tap="$out.tap" > "$out" 2>&1
    fi
    rc=$?
    # the tests that skipped themselves on this build (cr_skip_test: the
    # strbuf test that limits the address space, not under ASan); "test
    # was skipped" is one that the filter left out
    own_skips=$(grep '# SKIP ' "$out.tap" 2> /dev/null | grep -vc '# SKIP test was skipped$')
    lbl=$2
    # shellcheck disable=SC2046 # three numbers
    set -- $(criterion_counts "$out")
    p=${1:-0}
    f=$((${2:-0} + ${3:-0}))
    # how many ran or skipped themselves (the shards' sum must be the
    # whole binary's, below)
    echo "$lbl $((p + f + own_skips))" > "$dir/$id.tested"
    # Criterion counts a test whose process LeakSanitizer flags as passed:
    # every leak report counts as one more failure.
    leaks=$(grep -c 'ERROR: LeakSanitizer' "$out")
    f=$((f + leaks))
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    {
        grep -v '^\[----\]' "$out" | grep -Ev '^\s*$' | tail -n 20
        if [ "$leaks" -gt 0 ]; then
            grep -A12 'ERROR: LeakSanitizer' "$out" | head -n 60
            echo "$leaks leak report(s)"
        fi
    } > "$out.show"
}

job_counted() { # prefix command... (the Python tests, the fuzz round)
    prefix=$1
    shift
    "$@" > "$out" 2>&1
    rc=$?
    # shellcheck disable=SC2046 # two numbers
    set -- $(closing_counts "$out" "$prefix")
    p=${1:-0}
    f=${2:-0}
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    grep -v '^\.*$' "$out" | tail -n 30 > "$out.show"
}

job_cli() { # binary label script
    TMPDIR_TEST=$(mktemp -d)
    BAECHI=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
    TOP=$(pwd)
    # the build's label: a script may size its inputs by it (t216)
    CHECK_BUILD=$2
    export TMPDIR_TEST BAECHI TOP CHECK_BUILD
    case " $(tags_of "$3") " in
    *" serial "*) flock "$dir/serial.lock" sh "$3" > "$out" 2>&1 ;;
    *) sh "$3" > "$out" 2>&1 ;;
    esac
    rc=$?
    rm -rf "$TMPDIR_TEST"
    checks=$(grep -Ec '^(not )?ok [0-9]+ ' "$out")
    p=0 f=0 s=0
    case $rc in
    0) p=1 ;;
    77)
        s=1
        reason=$(sed -n 's/^skipped: //p' "$out" | head -n 1)
        echo "${reason:-no reason given}" > "$dir/$id.why"
        ;;
    *)
        f=1
        {
            echo "exit $rc"
            grep -E '^not ok [0-9]+ ' "$out"
            echo "--- last lines"
            tail -n 30 "$out"
        } | sed 's/^/     | /' > "$out.show"
        ;;
    esac
}

cpu_seconds() { # file with the output of `times` -> user + sys, one decimal
    tr 'ms' '  ' < "$1" | awk '{ for (i = 1; i < NF; i += 2) t += $i * 60 + $(i + 1) }
        END { printf "%.1f", t }'
}

run_job() { # dir id kind args...
    dir=$1 id=$2 kind=$3
    shift 3
    out=$dir/$id.out
    start=$(date +%s.%N)
    p=0 f=0 s=0 checks=0
    : > "$out.show"
    case $kind in
    unit)
        name="unit tests" key=unit label=$2
        if [ -n "${3:-}" ]; then
            name="unit tests $3" key=unit-$3
        fi
        job_unit "$1" "$2" "${3:-}"
        ;;
    python)
        name="Python tests" key=python label=plain
        job_counted python env BAECHI=build/baechi "${PYTHON:-python3}" tests/python/run.py
        ;;
    fuzz)
        name="fuzz smoke (libFuzzer, ${FUZZ_SMOKE_S:-2} s per target)" key=fuzz label=asan+ubsan
        job_counted fuzz env ASAN_OPTIONS= UBSAN_OPTIONS= \
            sh tests/fuzz/run.sh smoke "${FUZZ_SMOKE_S:-2}"
        ;;
    cli)
        name=$(basename "$3" .sh) key=$name label=$2
        job_cli "$@"
        ;;
    esac
    secs=$(elapsed "$start")
    # CPU time (user + sys of this shell and every process it waited for):
    # the machine's load blurs it less than the wall time
    times > "$out.cpu"
    cpu=$(cpu_seconds "$out.cpu")
    echo "$p $f $s $secs $cpu $label $key $name" > "$dir/$id.res"
    # the report, whole
    {
        t=
        if awk -v x="$secs" 'BEGIN { exit !(x > 5) }'; then t="  $secs s"; fi
        c=
        if [ "$checks" -gt 0 ]; then c=", $checks checks"; fi
        if [ "$f" -gt 0 ]; then
            echo "FAIL $name ($label$c)$t"
        elif [ "$s" -gt 0 ]; then
            echo "skip $name ($label): $(cat "$dir/$id.why")"
        else
            echo "ok   $name ($label$c)$t"
        fi
        if [ "$kind" != cli ] || [ "$f" -gt 0 ]; then cat "$out.show"; fi
    } > "$out.report"
    if command -v flock > /dev/null 2>&1; then
        flock "$dir/print.lock" cat "$out.report"
    else
        cat "$out.report"
    fi
    rm -f "$out" "$out.show" "$out.report" "$out.cpu" "$out.tap"
}

tags_of() { # script -> its "# check:" tags
    sed -n '1,30s/^# check: *//p' "$1" | head -n 1
}

if [ "${1:-}" = --job ]; then
    shift
    run_job "$@"
    exit 0
fi

# --- the plan ------------------------------------------------------------------

mode=full
case ${1:-} in
--quick) mode=quick ;;
--cli)
    mode=cli
    : "${cli_bin:?usage: run-tests.sh --cli BAECHI}"
    ;;
"") ;;
*)
    echo "usage: run-tests.sh [--quick | --cli BAECHI]" >&2
    exit 2
    ;;
esac
jobs=${CHECK_JOBS:-2}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
trap 'rm -rf "$dir"; exit 130' INT TERM

# estimate LABEL KEY DEFAULT: the seconds it took last time (build/.check-
# times), else in the tracked tests/check-times (a run on a 2-core machine:
# a clean clone starts its longest jobs first too), else DEFAULT
estimate() {
    e=$(awk -v k="$1 $2" '$1 " " $2 == k { v = $3 } END { print v }' "$TIMES" 2> /dev/null)
    [ -n "$e" ] ||
        e=$(awk -v k="$1 $2" '$1 " " $2 == k { v = $3 } END { print v }' tests/check-times 2> /dev/null)
    echo "${e:-$3}"
}

plan_cli() { # binary label both(1 when both builds run)
    for t in tests/cli/t[0-9]*.sh; do
        [ -f "$t" ] || continue
        tags=" $(tags_of "$t") "
        case $tags in *" slow "*) slow=1 ;; *) slow=0 ;; esac
        [ "$mode" = quick ] && [ "$slow" -eq 1 ] && continue
        if [ "$3" -eq 1 ]; then
            case "$2:$tags" in
            plain:*" sanitized-only "*) continue ;;
            asan+ubsan:*" once "*) continue ;;
            esac
        fi
        # the time it takes, when it never ran here: the reference
        # comparisons are the slowest, then those marked slow
        d=2
        [ "$slow" -eq 1 ] && d=30
        case $tags in *" sanitized-only "*) d=100 ;; esac
        [ "$2" = plain ] || d=$((d * 2))
        echo "$(estimate "$2" "$(basename "$t" .sh)" $d) cli $1 $2 $t"
    done
}

{
    case $mode in
    full)
        echo "$(estimate plain unit 40) unit build/unit-tests plain"
        echo "$(estimate plain python 10) python"
        plan_cli build/baechi plain 1
        # the sanitized unit tests, the costliest binary, in shards by
        # suite (Criterion --filter patterns): the exhaustive bound checks
        # alone (the longest job of all), the other heavy suites, the rest;
        # the last is the complement of the others, and the summary checks
        # that the shards ran as many tests as the plain run
        heavy="bound auto|bound_exact|lp|placer_threads"
        rest=$(echo "$heavy" | tr ' ' '|')
        for pat in $heavy "!($rest)"; do
            case $pat in !*) ;; *) pat="@($pat)" ;; esac
            echo "$(estimate asan+ubsan "unit-$pat" 60) unit build/san/unit-tests asan+ubsan $pat"
        done
        plan_cli build/san/baechi asan+ubsan 1
        echo "$(estimate asan+ubsan fuzz 60) fuzz"
        ;;
    quick)
        echo "$(estimate plain unit 40) unit build/unit-tests plain"
        echo "$(estimate plain python 10) python"
        plan_cli build/baechi plain 0
        ;;
    cli)
        plan_cli "$cli_bin" plain 0
        ;;
    esac
} | sort -k1,1nr -s | awk '{ $1 = NR; print }' > "$dir/plan"

echo "== $(wc -l < "$dir/plan" | tr -d ' ') jobs, $jobs at a time"
xargs -P "$jobs" -L 1 sh "$self" --job "$dir" < "$dir/plan"

# --- the summary ---------------------------------------------------------------

cat "$dir"/*.res > "$dir/all" 2> /dev/null
sort -k4,4nr "$dir/all" | head -n 5 |
    awk 'BEGIN { print "slowest:" }
        { n = $8; for (i = 9; i <= NF; i++) n = n " " $i; printf "  %6.1f s  %s (%s)\n", $4, n, $6 }'
# the CPU time of every job, most first: where the time goes, whatever the
# load (build/.check-cpu keeps the whole list; CHECK_BUILD_CPU names the
# file where `make check` wrote its builds' times)
sort -k5,5nr "$dir/all" |
    awk '{ n = $8; for (i = 9; i <= NF; i++) n = n " " $i; printf "%7.1f %7.1f  %s (%s)\n", $5, $4, n, $6 }' \
        > "$dir/cpu"
{
    if [ -s "${CHECK_BUILD_CPU:-/dev/null}" ]; then
        awk '{ t += $1 } END { printf "builds %.0f s, ", t }' "$CHECK_BUILD_CPU"
    fi
    awk '{ t += $1 } END { printf "tests %.0f s (most:", t }' "$dir/cpu"
    head -n 3 "$dir/cpu" | awk '{ n = $3; for (i = 4; i <= NF; i++) n = n " " $i
        printf "%s %s %.0f s", (NR > 1 ? ";" : ""), n, $1 } END { print ")" }'
} | sed 's/^/CPU (user + sys): /'
if [ "$mode" != cli ] && [ -d build ]; then
    {
        echo "# CPU s, wall s, job (build): the last run of scripts/run-tests.sh"
        cat "${CHECK_BUILD_CPU:-/dev/null}" 2> /dev/null
        cat "$dir/cpu"
    } > build/.check-cpu
    # this run's times, over the older ones (the next run's order)
    {
        awk '{ print $6, $7, $4 }' "$dir/all"
        cat "$TIMES" 2> /dev/null
    } | awk '{ k = $1 " " $2; if (!(k in seen)) { seen[k] = 1; print } }' > "$TIMES.tmp" &&
        mv "$TIMES.tmp" "$TIMES"
fi
for w in "$dir"/*.why; do
    [ -f "$w" ] || continue
    awk -v why="$(cat "$w")" '{ n = $8; for (i = 9; i <= NF; i++) n = n " " $i
        printf "skipped: %s (%s): %s\n", n, $6, why }' "${w%.why}.res"
done
missing=$(($(wc -l < "$dir/plan") - $(wc -l < "$dir/all")))
shards=0
# the sanitized shards together ran every unit test: a suite that no
# pattern takes, or two take, would show here
if [ "$mode" = full ]; then
    cat "$dir"/*.tested 2> /dev/null | awk '
        { n[$1] += $2 }
        END { if (n["plain"] != n["asan+ubsan"]) {
                  printf "FAIL unit tests: %d ran on the plain build, %d in the sanitized shards\n",
                      n["plain"], n["asan+ubsan"]
                  exit 1 } }' || shards=1
fi
awk -v missing="$missing" -v shards="$shards" '
{ p += $1; f += $2; s += $3 }
END {
    if (missing > 0) {
        printf "%d jobs gave no result\n", missing
        f += missing
    }
    f += shards
    printf "%d passed, %d failed, %d skipped\n", p, f, s
    exit f > 0
}' "$dir/all"
