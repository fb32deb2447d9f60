#!/bin/sh
# gpu-check.sh - one command for a machine with NVIDIA GPUs: calibrate the
# GPUs, place GNMT and Inception-V3 with every placer on the calibrated
# cluster, replay each placement on the GPUs and write a report of simulated
# vs measured step time and peak memory.
# Budget: 8 minutes in all (each step has its own timeout; the report says
# what was skipped).
#
#   scripts/gpu-check.sh [OUTDIR]      (default: $OUT if set, else build/gpu-check)
#
# The program: $BAECHI if set, else build/baechi-cuda when it runs (built
# here by `make cuda` and carried: it needs no -dev library, mk/calibrate.mk),
# else it is built with make (needs the packages of scripts/install-deps.sh).
#
# One GPU (the lent machines have one): the placements' LOGICAL devices
# (default 4) become logical devices on it (--devices 0,0,0,0: own streams
# and memory pools, transfers are device-to-device copies, calibrated as
# such).  That measures the simulator's error on scheduling, dependencies,
# per-op and per-transfer overheads and memory; not an interconnect.
#
# Environment: GPUS (max GPUs to use, default 4), LOGICAL (devices on a
# single GPU, default 4; 1 = plain one-GPU run), STEPS (measured steps per
# replay, default 10), WARMUP (default 3), BUDGET_S (default 470), BUILD (build directory,
# default build), PLACERS (default: every placer but given), WORKLOADS
# (generator names, gnmt or workload files; default "gnmt inception-v3"), BACKEND=cpu (rehearse the whole script
# without a GPU: host threads as GPUS devices, quick calibration).
set -u
cd "$(dirname "$0")/.."
OUTDIR=${1:-${OUT:-build/gpu-check}}
GPUS=${GPUS:-4}
LOGICAL=${LOGICAL:-4}
STEPS=${STEPS:-10}
WARMUP=${WARMUP:-3}
BUDGET_S=${BUDGET_S:-470}
BUILD=${BUILD:-build}
BACKEND=${BACKEND:-cuda}
WORKLOADS=${WORKLOADS:-gnmt inception-v3}
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

say "== gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n)"
if command -v nvidia-smi > /dev/null 2>&1; then
    nvidia-smi -L 2>&1 | tee -a "$LOG"
    nvidia-smi topo -m >> "$LOG" 2>&1 || true
fi

if [ -n "${BAECHI:-}" ]; then
    say "== program: $BAECHI (given)"
elif [ -x "$BUILD/baechi-cuda" ] && "$BUILD/baechi-cuda" --version > /dev/null 2>> "$LOG"; then
    BAECHI=$BUILD/baechi-cuda
    say "== program: $BAECHI (prebuilt: $("$BAECHI" --version))"
else
    say "== build"
    if ! run_to 240 make -j"$(nproc)" BUILD="$BUILD" "$BUILD/baechi" > "$OUTDIR/build.log" 2>&1; then
        say "build failed: see $OUTDIR/build.log"
        tail -n 30 "$OUTDIR/build.log"
        exit 1
    fi
    BAECHI=$BUILD/baechi
    if [ "$BACKEND" = cuda ]; then
        run_to 240 make BUILD="$BUILD" cuda >> "$OUTDIR/build.log" 2>&1
        BAECHI=$BUILD/baechi-cuda
        if [ ! -x "$BAECHI" ]; then
            say "no $BAECHI (nvcc missing? see $OUTDIR/build.log): nothing to measure on GPUs"
            exit 1
        fi
    fi
fi
ldd "$BAECHI" >> "$LOG" 2>&1 || true
if [ "$BACKEND" = cpu ]; then
    n=$GPUS
    QUICK=--quick
else
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
ndev=$n
if [ "$BACKEND" = cuda ] && [ "$n" -eq 1 ] && [ "$LOGICAL" -gt 1 ]; then
    devs=$(for i in $(seq "$LOGICAL"); do printf '0,'; done | sed 's/,$//')
    ndev=$LOGICAL
fi
say "== calibrate devices $devs"
C="$OUTDIR/cluster.yaml"
if ! run_to 150 "$BAECHI" calibrate --backend "$BACKEND" --devices "$devs" --iters 10 --warmup 3 \
        $QUICK -o "$C" --name "calibrated-$ndev-dev" > "$OUTDIR/calibrate.txt"; then
    say "calibration failed or timed out: see $LOG"
    exit 1
fi
tee -a "$LOG" < "$OUTDIR/calibrate.txt"

say "== workloads"
wls=
for w in $WORKLOADS; do
    case $w in
    gnmt) wls="$wls data/workloads/gnmt_v2/gnmt_v2_b128_fwd.yaml" ;;
    *.yaml) wls="$wls $w" ;;
    *)
        # op times from this GPU's measured cost model (calibrated device 0); a host
        # thread's GFLOP/s would make steps of minutes, so a rehearsal keeps v100
        cm="$C:0"
        [ "$BACKEND" = cpu ] && cm=v100
        run_to 60 "$BAECHI" workload gen "$w" --device "$cm" -o "$OUTDIR/$w.yaml" > /dev/null \
            && wls="$wls $OUTDIR/$w.yaml" || say "$w generation failed"
        ;;
    esac
done

placers=${PLACERS:-$("$BAECHI" place --list | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p' | grep -v '^given$')}
{
    echo "# gpu-check report"
    echo
    echo "$(date -u +%Y-%m-%dT%H:%M:%SZ), $BACKEND backend, devices $devs: $(nvidia-smi -L 2> /dev/null | head -n "$n" | sed 's/ (UUID.*//' | tr '\n' ';')"
    echo
    if [ "$BACKEND" = cuda ] && [ "$n" -eq 1 ] && [ "$ndev" -gt 1 ]; then
        echo "One GPU, $ndev logical devices on it (--devices $devs): each has its own streams and"
        echo "memory pool, and a transfer between two of them is a device-to-device copy, calibrated"
        echo "as such. Measured: the simulator's error on scheduling, dependencies, per-op and"
        echo "per-transfer overheads and memory. Not measured: an interconnect (PCIe/NVLink links"
        echo "and their contention), which needs two GPUs."
        echo
    elif [ "$ndev" -eq 1 ]; then
        echo "One device: no transfer was measured (the cluster keeps the default comm model) and"
        echo "every placer puts everything on it; what is measured is the simulator's error on"
        echo "per-op overheads (spin kernels back to back) and memory, not on communication."
        echo
    fi
    echo "Op times are the workloads' modelled times (spin kernels), so the error is the"
    echo "simulator's error on scheduling, transfers, overheads and memory, not on FLOP rates."
    echo
    echo "| workload | placer | simulated step | measured step (median) | error | peak memory sim / measured (per GPU) |"
    echo "|---|---|---|---|---|---|"
} > "$REPORT"

for wl in $wls; do
    [ -f "$wl" ] || continue
    name=$(basename "$wl" .yaml)
    for p in $placers; do
        P="$OUTDIR/place-$name-$p.yaml"
        J="$OUTDIR/replay-$name-$p.json"
        if ! run_to 60 "$BAECHI" place -w "$wl" -c "$C" -p "$p" -o "$P" > /dev/null; then
            echo "| $name | $p | placement failed or timed out | | | |" >> "$REPORT"
            continue
        fi
        if ! run_to 90 "$BAECHI" replay -w "$wl" -c "$C" --placement "$P" --backend "$BACKEND" \
                --devices "$devs" --steps "$STEPS" --warmup "$WARMUP" --json > "$J"; then
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
