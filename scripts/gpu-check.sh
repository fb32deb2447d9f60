#!/bin/sh
# gpu-check.sh - one command for a machine with NVIDIA GPUs: build (with the
# CUDA backend), calibrate the GPUs, place GNMT and Inception-V3 with every
# placer on the calibrated cluster, replay each placement on the GPUs and
# write a report of simulated vs measured step time and peak memory.
# Budget: 8 minutes in all (each step has its own timeout; the report says
# what was skipped).
#
#   scripts/gpu-check.sh [OUTDIR]      (default: $OUT if set, else build/gpu-check)
#
# Environment: GPUS (max GPUs to use, default 4), STEPS (measured steps per
# replay, default 10), BUDGET_S (default 470), BUILD (build directory,
# default build), BACKEND=cpu (rehearse the whole script without a GPU: host
# threads as GPUS devices, quick calibration).
set -u
cd "$(dirname "$0")/.."
OUTDIR=${1:-${OUT:-build/gpu-check}}
GPUS=${GPUS:-4}
STEPS=${STEPS:-10}
BUDGET_S=${BUDGET_S:-470}
BUILD=${BUILD:-build}
BACKEND=${BACKEND:-cuda}
mkdir -p "$OUTDIR"
LOG="$OUTDIR/gpu-check.log"
REPORT="$OUTDIR/report.md"
START=$(date +%s)
: > "$LOG"

say() { echo "$*" | tee -a "$LOG"; }
left() { echo $((BUDGET_S - ($(date +%s) - START))); }
# run_to SECONDS cmd... : runs with a timeout capped by the time left; logs output.
run_to() {
    t=$1
    shift
    l=$(left)
    [ "$l" -lt "$t" ] && t=$l
    if [ "$t" -le 5 ]; then
        echo "skipped (time budget spent): $*" >> "$LOG"
        return 124
    fi
    timeout "$t" "$@" 2>> "$LOG"
}

say "== gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
if command -v nvidia-smi > /dev/null 2>&1; then
    nvidia-smi -L 2>&1 | tee -a "$LOG"
    nvidia-smi topo -m >> "$LOG" 2>&1 || true
fi

say "== build"
if ! run_to 240 make -j"$(nproc)" BUILD="$BUILD" "$BUILD/baechi" > "$OUTDIR/build.log" 2>&1; then
    say "build failed: see $OUTDIR/build.log"
    tail -n 30 "$OUTDIR/build.log"
    exit 1
fi
if [ "$BACKEND" = cpu ]; then
    BAECHI=$BUILD/baechi
    n=$GPUS
    QUICK=--quick
else
    run_to 240 make BUILD="$BUILD" cuda >> "$OUTDIR/build.log" 2>&1
    BAECHI=$BUILD/baechi-cuda
    if [ ! -x "$BAECHI" ]; then
        say "no $BAECHI (nvcc missing? see $OUTDIR/build.log): nothing to measure on GPUs"
        exit 1
    fi
    n=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU ')
    QUICK=
fi
[ "$n" -gt "$GPUS" ] && n=$GPUS
if [ "$n" -lt 1 ]; then
    say "no GPU found; $BAECHI calibrate --backend cuda says:"
    "$BAECHI" calibrate --backend cuda --quick 2>&1 | tee -a "$LOG"
    exit 2
fi
devs=$(seq -s, 0 $((n - 1)))
say "== calibrate GPUs $devs"
C="$OUTDIR/cluster.yaml"
if ! run_to 150 "$BAECHI" calibrate --backend "$BACKEND" --devices "$devs" --iters 10 --warmup 3 \
        $QUICK -o "$C" --name "calibrated-$n-gpu" > "$OUTDIR/calibrate.txt"; then
    say "calibration failed or timed out: see $LOG"
    exit 1
fi
tee -a "$LOG" < "$OUTDIR/calibrate.txt"

say "== workloads"
GNMT=data/workloads/gnmt_v2/gnmt_v2_b128_fwd.yaml
INC="$OUTDIR/inception-v3.yaml"
run_to 60 "$BAECHI" workload gen inception-v3 -o "$INC" > /dev/null || say "inception-v3 generation failed"

placers=$("$BAECHI" place --list | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p' | grep -v '^given$')
{
    echo "# gpu-check report"
    echo
    echo "$(date -u +%Y-%m-%dT%H:%M:%SZ), $BACKEND backend, $n device(s): $(nvidia-smi -L 2> /dev/null | head -n "$n" | sed 's/ (UUID.*//' | tr '\n' ';')"
    echo
    if [ "$n" -eq 1 ]; then
        echo "One GPU: no transfer was measured (the cluster keeps the default comm model) and"
        echo "every placer puts everything on GPU 0; what is measured is the simulator's error on"
        echo "per-op overheads (spin kernels back to back) and memory, not on communication."
        echo
    fi
    echo "Op times are the workloads' modelled times (spin kernels), so the error is the"
    echo "simulator's error on scheduling, transfers, overheads and memory, not on FLOP rates."
    echo
    echo "| workload | placer | simulated step | measured step (median) | error | peak memory sim / measured (per GPU) |"
    echo "|---|---|---|---|---|---|"
} > "$REPORT"

for wl in "$GNMT" "$INC"; do
    [ -f "$wl" ] || continue
    name=$(basename "$wl" .yaml)
    for p in $placers; do
        P="$OUTDIR/place-$name-$p.yaml"
        J="$OUTDIR/replay-$name-$p.json"
        if ! run_to 60 "$BAECHI" place -w "$wl" -c "$C" -p "$p" -o "$P" > /dev/null; then
            echo "| $name | $p | placement failed or timed out | | | |" >> "$REPORT"
            continue
        fi
        if ! run_to 90 "$BAECHI" replay -w "$wl" -c "$C" -p "$P" --backend "$BACKEND" \
                --steps "$STEPS" --warmup 3 --json > "$J"; then
            echo "| $name | $p | replay failed or timed out | | | |" >> "$REPORT"
            continue
        fi
        python3 - "$J" "$name" "$p" >> "$REPORT" << 'PY' || echo "| $name | $p | unreadable result | | | |" >> "$REPORT"
import json, sys
r = json.load(open(sys.argv[1]))
def ms(us): return "%.3f ms" % (us / 1e3)
def mib(b): return "%.1f" % (b / 1048576.0)
mem = ", ".join("%s / %s MiB" % (mib(d["sim_peak_bytes"]), mib(d["measured_peak_bytes"])) for d in r["devices"])
print("| %s | %s | %s | %s | %+.2f %% | %s |" % (sys.argv[2], sys.argv[3], ms(r["sim_step_us"]),
      ms(r["measured_step_us"]), r["step_error_pct"], mem))
PY
        say "$name $p done ($(left) s left)"
    done
done
{
    echo
    echo "Target: |error| <= 5 % for every placer. Calibration: $C; log: $LOG."
    echo "Total time: $(( $(date +%s) - START )) s."
} >> "$REPORT"
say "== report: $REPORT"
cat "$REPORT"
