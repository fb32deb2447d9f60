#!/bin/sh
# alloc-sweep.sh SHIM OUT PROGRAM ARGS... - fails the allocations of one
# command in turn, with the LD_PRELOAD shim SHIM (tests/shim/failalloc.c,
# built as failalloc.so), and checks every run (docs/testing.md,
# "Allocation failures"):
#
#   - exit 0: stdout, stderr and the output file OUT ("-": none) are
#     byte-identical to the clean run's;
#   - otherwise exit 1 with "out of memory" on stderr, no temporary file
#     left behind, and OUT either not written or whole (identical to the
#     clean run's: parallelize writes it before its summary fails);
#   - anything else (exit 2 or 3, a signal, another message) is a failure.
#
# The clean run counts its allocations A (BAECHI_TEST_FAIL_COUNT=1) and
# hashes the call stack of each (BAECHI_TEST_FAIL_SITES); then the runs
# fail the N-th allocation (BAECHI_TEST_FAIL_ALLOC=N) for every N that is
# the first or the last allocation of its call stack: every call site of
# malloc, calloc or realloc, in the program (its forked workers too) and
# in the libraries, in every distinct calling context, fails at least
# once, and a loop's allocation at its first and its last turn (t780's `parallelize --dp 2`: 2,611
# allocations, 266 points; a tenth of the runs, the same paths).
# $SWEEP_EVERY=1 tries every N instead (N = 1, 1 + S, 1 + 2S, ... <= A,
# S = $SWEEP_STRIDE, default 1), as the sweeps did before.
# $SWEEP_SED, a sed script, is applied to stdout and stderr before they
# are compared (wall-clock times: 's/ in [0-9.]* [mµ]*s;/ in T;/').
# $SWEEP_LAST=L tries only the points among the last L allocations (a
# command whose end is what is to be checked).  $SWEEP_SETSID=1 runs each failing run in a session of
# its own (setsid -w), so that one that kills its process group
# (kill(0, ...)) is reported as a signal instead of ending the sweep.
# $SWEEP_RM names files removed before every run, not compared (a results
# database that each run is to create afresh).
# Runs in the current directory (OUT is relative to it).  Prints each
# failure as "N: why: last line of stderr" and then one line
# "A points, R runs, F failures"; exits 1 when F > 0.  One process per
# run and no other fork but a cmp on an exit 0 and an rm of files that
# are there, so that thousands of points take seconds (an rm of every
# run's files, there or not, was half of t780's and t781's CPU).
set -u
shim=${1:?usage: alloc-sweep.sh SHIM OUT PROGRAM ARGS...}
out=${2:?usage: alloc-sweep.sh SHIM OUT PROGRAM ARGS...}
shift 2
stride=${SWEEP_STRIDE:-1}

# rm_there FILE...: removes those of FILE that exist, forking only then
rm_there() {
    for f in "$@"; do
        if [ -e "$f" ] || [ -L "$f" ]; then
            rm -f "$f"
        fi
    done
}

rm -f "$out" sweep.ref.out sweep.ref.err sweep.ref.file
# shellcheck disable=SC2086 # a word list
[ -z "${SWEEP_RM:-}" ] || rm -f $SWEEP_RM
rm -f sweep.sites
if [ "${SWEEP_EVERY:-0}" = 1 ] || [ "$stride" != 1 ]; then
    BAECHI_TEST_FAIL_COUNT=1 LD_PRELOAD=$shim "$@" > sweep.ref.out 2> sweep.ref.err < /dev/null
else
    BAECHI_TEST_FAIL_SITES=$PWD/sweep.sites BAECHI_TEST_FAIL_COUNT=1 LD_PRELOAD=$shim "$@" \
        > sweep.ref.out 2> sweep.ref.err < /dev/null
fi
rc=$?
if [ "$rc" -ne 0 ]; then
    echo "the clean run exits $rc:"
    cat sweep.ref.err
    exit 1
fi
n=
while IFS= read -r line; do
    case $line in "failalloc: allocations: "*) n=${line#failalloc: allocations: } ;; esac
done < sweep.ref.err
if [ -z "$n" ]; then
    echo "the shim did not count (not preloaded?)"
    exit 1
fi
# the clean run's stderr without the count
grep -v '^failalloc: allocations: ' sweep.ref.err > sweep.ref.e2 || true
mv sweep.ref.e2 sweep.ref.err
# filter FILE: FILE through $SWEEP_SED, in place
filter() {
    if [ -n "${SWEEP_SED:-}" ]; then
        sed -e "$SWEEP_SED" "$1" > sweep.filtered && mv sweep.filtered "$1"
    fi
}
filter sweep.ref.out
filter sweep.ref.err
[ "$out" = - ] || mv "$out" sweep.ref.file
# shellcheck disable=SC2086
[ -z "${SWEEP_RM:-}" ] || rm -f $SWEEP_RM

runs=0
fails=0
from=1
if [ -n "${SWEEP_LAST:-}" ] && [ "$SWEEP_LAST" -lt "$n" ]; then
    from=$((n - SWEEP_LAST + 1))
fi
# the points, one a line: the call stacks' first and last, or every S-th
if [ -f sweep.sites ]; then
    awk -v from="$from" '$1 >= from' sweep.sites > sweep.points
else
    awk -v from="$from" -v n="$n" -v s="$stride" \
        'BEGIN { for (i = from; i <= n; i += s) print i }' > sweep.points
fi
if [ ! -s sweep.points ] && [ "$n" -ge "$from" ]; then
    echo "no points to try out of $n (the shim wrote no call stacks?)"
    exit 1
fi
while read -r i <&3; do
    if [ "${SWEEP_SETSID:-0}" = 1 ]; then
        # setsid and env themselves not preloaded: only the command counts
        BAECHI_TEST_FAIL_ALLOC=$i setsid -w env LD_PRELOAD="$shim" "$@" \
            > sweep.out 2> sweep.err < /dev/null
    else
        BAECHI_TEST_FAIL_ALLOC=$i LD_PRELOAD=$shim "$@" > sweep.out 2> sweep.err < /dev/null
    fi
    rc=$?
    runs=$((runs + 1))
    why=
    last=
    oom=no
    while IFS= read -r line; do
        last=$line
        case $line in *"out of memory"*) oom=yes ;; esac
    done < sweep.err
    if [ "$rc" -eq 0 ]; then
        filter sweep.out
        filter sweep.err
        if ! cmp -s sweep.out sweep.ref.out; then
            why="exit 0 with a different stdout"
        elif ! cmp -s sweep.err sweep.ref.err; then
            why="exit 0 with a different stderr"
        elif [ "$out" != - ] && ! cmp -s "$out" sweep.ref.file; then
            why="exit 0 with a different $out"
        fi
    elif [ "$rc" -ne 1 ]; then
        why="exit $rc"
    elif [ $oom = no ]; then
        why="exit 1 without 'out of memory'"
    elif [ "$out" != - ] && [ -e "$out" ] && ! cmp -s "$out" sweep.ref.file; then
        why="exit 1 leaving a partial or different $out"
    else
        for f in ./*tmp*; do
            [ -e "$f" ] && why="exit 1 leaving a temporary file $f"
        done
    fi
    if [ -n "$why" ]; then
        echo "$i: $why: $last"
        fails=$((fails + 1))
    fi
    [ "$out" = - ] || rm_there "$out"
    # shellcheck disable=SC2086
    [ -z "${SWEEP_RM:-}" ] || rm_there $SWEEP_RM
    rm_there ./*tmp*
done 3< sweep.points
echo "$n points, $runs runs, $fails failures"
[ "$fails" -eq 0 ]
