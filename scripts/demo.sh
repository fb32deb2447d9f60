#!/bin/sh
# demo.sh - `make demo`: the paper's experiments in one command.  Runs the
# sweeps data/sweeps/paper.yaml (GNMT-v2, generated Inception-V3 batch 64
# and Transformer, forward graphs as in the paper, on the paper's 4-GPU
# PCIe machine; m-TOPO, m-ETF and m-SCT each plain and with co-placement
# and fusion, and the baselines; memory fractions from ample down to where
# only memory-aware placers succeed), data/sweeps/paper-train.yaml (the
# generated models as full training graphs) and data/sweeps/gpt-scaling.yaml
# (GPT 6.7B on 2, 4 and 8 H100s) into results.db, draws the figures into
# plots/ (each with its data as CSV) and prints the summary tables.
# Rerunning skips the points already stored.  Well under a minute on 2
# cores.  Every figure is described in docs/results.md.
set -eu
cd "$(dirname "$0")/.."
B=${BAECHI:-./baechi}
DB=${DB:-results.db}
mkdir -p plots
start=$(date +%s)

for s in paper paper-train gpt-scaling; do
    echo "== baechi sweep data/sweeps/$s.yaml --db $DB"
    $B sweep "data/sweeps/$s.yaml" --db "$DB"
done
echo
echo "== baechi report --db $DB --where sweep=paper --where memory_fraction=1"
$B report --db "$DB" --where sweep=paper --where memory_fraction=1
if command -v gnuplot > /dev/null 2>&1; then
    out() { echo "-o plots/$1.png --csv plots/$1.csv"; }
else
    echo "gnuplot not found: writing the plot data as CSV only (apt-get install gnuplot-nox)"
    out() { echo "--csv plots/$1.csv"; }
fi
P="--db $DB --where sweep=paper"
echo "== baechi plot ... (plots/)"
# shellcheck disable=SC2046 # out prints options
{
    $B plot step $P $(out step)
    $B plot step $P --normalise expert $(out step-vs-expert)
    $B plot placement-time $P $(out placement-time)
    $B plot peak $P $(out peak)
    $B plot gantt $P $(out gantt)
    $B plot scaling $P $(out scaling)
    for w in gnmt_v2_b128_fwd inception-v3_b64_fwd transformer-base_b64_fwd; do
        $B plot memory $P --workload "$w" $(out "memory-$w")
    done
    $B plot step --db "$DB" --where sweep=paper-train --normalise none $(out step-train)
    $B plot memory-timeline --db "$DB" --where sweep=paper-train --where placer=m-topo \
        --where workload=inception-v3_b64 $(out memory-timeline)
    $B plot line --db "$DB" --where sweep=gpt-scaling --x devices --y step --by memory_fraction \
        $(out gpt-scaling)
}
echo
echo "demo finished in $(( $(date +%s) - start )) s: results in $DB, figures in plots/"
