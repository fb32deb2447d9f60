#!/bin/sh
# demo.sh - `make demo`: the paper's experiments and the study beyond them in
# one command, into results.db and plots/ (each figure with its data as CSV,
# its gnuplot script in plots/work/).  Every figure says one thing, and no two
# draw the same data (tests/cli/t562-demo-figures.sh checks it); every figure
# passes the data checks of scripts/check-figures.py (run at the end; t841
# checks each kind); docs/results.md describes them.
#
#   data/sweeps/paper.yaml        GNMT-v2, Inception-V3 and the Transformer,
#                                 forward graphs as in the paper, on the
#                                 paper's 4-GPU PCIe machine
#   data/sweeps/paper-train.yaml  the generated models as training graphs,
#                                 memory fractions down to where single and
#                                 m-TOPO run out of memory, auto beside them
#   GPT study (written here)      GPT training graphs with 1, 2 and 4
#                                 micro-batches, H100 times, on 2, 4 and 8
#                                 GPUs of dgx-h100-8
#   data/sweeps/pipeline.yaml     the pipeline study (docs/pipelines.md):
#                                 GPT-2 medium b8 on 4 stages of dgx-h100-8
#                                 and of paper-4gpu-pcie, M = 1..8, GPipe /
#                                 1F1B / interleaved, with and without
#                                 recomputation, m-TOPO and pipeline
#   data/sweeps/parallel*.yaml    the parallelism study (docs/parallel-
#   (and their -placers files)    study.md): GPT-2 medium and 2.7B, global
#                                 batch 64, on 2-16 GPUs of dgx-h100-2x8:
#                                 DP, ZeRO-1/3, TP, PP 1F1B, the fastest
#                                 hybrid, and the op placers
#   scaling (bench scaling)       placement time vs graph size on seeded
#                                 synthetic layered graphs of 1k to 1M ops,
#                                 medians of 3 repeats
#   scripts/scaling-study.py      the cluster-scale study (docs/scaling.md),
#   --preset demo                 reduced: GPT-3 175B and Llama 2 70B widths
#                                 with 4 layers, global batch 512, TP 8 and
#                                 4 x PP 4 on 256 to 16,384 H100s, the
#                                 symmetric ranks simulated; figures
#                                 scaling-gpt3-175b and scaling-llama2-70b
#
# Environment: BAECHI (the program), DB (results.db), PLOTS (plots),
# DEMO_SCALING_OPS (the synthetic sizes; default 1000 .. 1000000),
# DEMO_SCALING_PLACERS (bench scaling's --placers; default
# m-topo,m-etf,paper,m-sct:3000), DEMO_GPT_SIZE (the GPT preset; default
# medium).  Rerunning skips the points already stored.
set -eu
cd "$(dirname "$0")/.."
B=${BAECHI:-./baechi}
DB=${DB:-results.db}
PLOTS=${PLOTS:-plots}
OPS=${DEMO_SCALING_OPS:-1000 3000 10000 30000 100000 300000 1000000}
SCALING_PLACERS=${DEMO_SCALING_PLACERS:-m-topo,m-etf,paper,m-sct:3000}
GPT=${DEMO_GPT_SIZE:-medium}
W=$PLOTS/work
mkdir -p "$PLOTS" "$W"
start=$(date +%s)

for s in paper paper-train pipeline; do
    echo "== baechi sweep data/sweeps/$s.yaml --db $DB"
    $B sweep "data/sweeps/$s.yaml" --db "$DB"
done

# The GPT study: training graphs (forward, backward, update) whose micro-batch
# count changes both the step (pipelining) and the peak memory (activations of
# one micro-batch live at a time).
for m in 1 2 4; do
    [ -f "$W/gpt-mb$m.yaml" ] || $B workload gen gpt --size "$GPT" -b 8 --device h100 \
        --micro-batches "$m" -o "$W/gpt-mb$m.yaml" 2> /dev/null
done
cat > "$W/gpt-train.yaml" << YAML
name: gpt-train
workloads: [gpt-mb1.yaml, gpt-mb2.yaml, gpt-mb4.yaml]
clusters: [dgx-h100-8]
devices: [2, 4, 8]
placers: [m-topo, m-etf, m-sct, auto]
memory_fractions: [0.1]
models: [timed]
lp_time_limit: 20
YAML
echo "== baechi sweep $W/gpt-train.yaml --db $DB"
$B sweep "$W/gpt-train.yaml" --db "$DB"

# The parallelism study: every parallelisation of GPT-2 medium and GPT-2.7B
# (placer given: the ranks it pins) and the op placers on the unparallelised
# graph; then the fastest hybrid (two or three of DP, TP, PP) that fits at
# each GPU count, rerun under the name <model>-N:best-hybrid so that it is a
# line of its own (the same graph, stored again under that name).
parallel_study() { # sweep-name workload-prefix
    for s in "$1" "${1%%-*}-placers${1#parallel}"; do
        echo "== baechi sweep data/sweeps/$s.yaml --db $DB"
        $B sweep "data/sweeps/$s.yaml" --db "$DB"
    done
    hyb="workload GLOB '$2-*:d[0-9]*' AND placer = 'given' AND status = 'ok' AND sweep = '$1'"
    {
        echo "name: $1"
        echo "workloads:"
        $B db query --db "$DB" --format csv "SELECT r.workload_spec FROM runs r WHERE $hyb
            AND r.step_us = (SELECT min(step_us) FROM runs WHERE $hyb AND n_devices = r.n_devices)
            GROUP BY r.n_devices ORDER BY r.n_devices" |
            sed '1d; s/\(&name=[^&:]*\):[^&]*$/\1:best-hybrid/; s/.*/  - "&"/'
        echo "clusters: [dgx-h100-2x8]"
        echo "placers: [given]"
    } > "$W/$1-best.yaml"
    echo "== baechi sweep $W/$1-best.yaml --db $DB"
    $B sweep "$W/$1-best.yaml" --db "$DB"
}
parallel_study parallel gpt-medium
parallel_study parallel-2.7b gpt-2.7b

# Placement time vs graph size: seeded synthetic layered graphs generated in
# memory (as YAML files, reading a 1M-op graph alone took ~5 s) and placed
# on dgx-h100-8 (memory for every size), 3 repeats each, one after the other
# (bench scaling stores the CPU time of each placement; the figure draws
# medians); m-SCT's LP only on the sizes it places in seconds.
sizes=$(echo "$OPS" | tr -s " " ",")
echo "== baechi bench scaling --db $DB --sizes $sizes --placers $SCALING_PLACERS"
$B bench scaling --db "$DB" --sizes "$sizes" --repeats 3 --placers "$SCALING_PLACERS" \
    --cluster dgx-h100-8 --seed 1 --sweep scaling

# The cluster-scale study, reduced (docs/scaling.md; the full one is
# `scripts/scaling-study.py --preset doc`): tokens/s per GPU against GPUs, a
# line per layout; its figures and their data beside the others, its table in
# $W/scaling-study/scaling.csv
echo "== scripts/scaling-study.py --preset demo --out $W/scaling-study --figures $PLOTS"
python3 scripts/scaling-study.py --baechi "$B" --preset demo --out "$W/scaling-study" \
    --figures "$PLOTS" ${DEMO_CSV_ONLY:+--csv-only}

echo
echo "== baechi report --db $DB --where sweep=paper --where memory_fraction=1"
$B report --db "$DB" --where sweep=paper --where memory_fraction=1
# each figure with its data (CSV) and its gnuplot script (work/): what the
# data checks read
if [ -z "${DEMO_CSV_ONLY:-}" ] && command -v gnuplot > /dev/null 2>&1; then
    out() { echo "-o $PLOTS/$1.png --csv $PLOTS/$1.csv --script $W/$1.gp"; }
else
    [ -n "${DEMO_CSV_ONLY:-}" ] ||
        echo "gnuplot not found: writing the plot data as CSV only (apt-get install gnuplot-nox)"
    out() { echo "--csv $PLOTS/$1.csv --script $W/$1.gp"; }
fi
P="--db $DB --where sweep=paper"
T="--db $DB --where sweep=paper-train"
G="--db $DB --where sweep=gpt-train"
PL="--db $DB --where sweep=pipeline --x micro_batches --lines pipeline --by placer"
PA="--x devices --lines strategy"
PA="$PA --where strategy=DP,DP+ZeRO-1,DP+ZeRO-3,TP,PP-1F1B,best-hybrid,m-topo,m-etf,m-sct,auto"
echo "== baechi plot ... ($PLOTS/)"
# shellcheck disable=SC2046 # out prints options
{
    $B plot step $P $(out step)
    $B plot placement-time $P $(out placement-time)
    $B plot peak $P $(out peak)
    $B plot gantt $P $(out gantt)
    $B plot memory $P --workload gnmt_v2_b128_fwd $(out memory-gnmt_v2_b128_fwd)
    for w in inception-v3_b64 transformer-base_b64; do
        $B plot memory $T --where config=single,m-topo,m-etf,m-sct,auto --workload "$w" \
            $(out "memory-train-$w")
    done
    $B plot step $T --where memory_fraction=1 --normalise none $(out step-train)
    $B plot memory-timeline $T --where memory_fraction=1 --where placer=m-topo \
        --where workload=inception-v3_b64 $(out memory-timeline)
    $B plot line $G --x devices --y step --by workload $(out gpt-train-step)
    $B plot line $G --x devices --y peak --by workload $(out gpt-train-peak)
    for c in dgx-h100-8:dgx paper-4gpu-pcie:pcie; do
        $B plot line $PL --where cluster="${c%%:*}" --y step $(out "pipeline-step-${c#*:}")
        $B plot line $PL --where cluster="${c%%:*}" --y peak0 $(out "pipeline-peak0-${c#*:}")
    done
    for sw in parallel parallel-2.7b; do
        $B plot line --db "$DB" --where sweep=$sw $PA --y step $(out "$sw-step")
        $B plot line --db "$DB" --where sweep=$sw $PA --y peak $(out "$sw-peak")
    done
    $B plot scaling --db "$DB" --where sweep=scaling --stat median $(out scaling)
}
# every figure passes the data checks (scripts/check-figures.py: titled, not
# degenerate, no line hidden on another, the limit where memory is plotted)
echo "== scripts/check-figures.py $PLOTS"
if command -v python3 > /dev/null 2>&1; then
    python3 scripts/check-figures.py "$PLOTS" || {
        echo "demo: a figure fails the data checks (above)"
        exit 1
    }
else
    echo "python3 not found: the figures' data checks skipped"
fi
# one page of the paper sweep: its tables, figures and every run's identity
if [ -z "${DEMO_CSV_ONLY:-}" ]; then
    echo "== baechi report $P --html $PLOTS/report"
    $B report $P --html "$PLOTS/report"
fi
echo
echo "demo finished in $(( $(date +%s) - start )) s: results in $DB, figures in $PLOTS/," \
    "the paper sweep as one page in $PLOTS/report/index.html"
