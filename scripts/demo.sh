#!/bin/sh
# demo.sh - `make demo`: the paper's experiments in one command.  Runs the
# sweep data/sweeps/paper.yaml (GNMT-v2, generated Inception-V3 batch 64
# and Transformer on the paper's 4-GPU PCIe machine, every placer, memory
# fractions from ample down to where only memory-aware placers succeed)
# into results.db, draws the figures into plots/ and prints the summary
# tables.  Rerunning skips the points already stored.  About 10 s on 2 cores.
set -eu
cd "$(dirname "$0")/.."
B=${BAECHI:-./baechi}
DB=${DB:-results.db}
mkdir -p plots
start=$(date +%s)

echo "== baechi sweep data/sweeps/paper.yaml --db $DB"
$B sweep data/sweeps/paper.yaml --db "$DB"
echo
echo "== baechi report --db $DB"
$B report --db "$DB" --sweep paper
if command -v gnuplot > /dev/null 2>&1; then
    echo "== baechi plot ... -o plots/*.png"
    for k in step placement-time peak gantt scaling; do
        $B plot "$k" --db "$DB" -o "plots/$k.png" --csv "plots/$k.csv"
    done
    for w in gnmt_v2_b128_fwd inception-v3_b64 transformer-base_b64; do
        $B plot memory --db "$DB" --workload "$w" -o "plots/memory-$w.png" --csv "plots/memory-$w.csv"
    done
    $B plot step --db "$DB" --normalise expert -o plots/step-vs-expert.png
else
    echo "gnuplot not found: writing the plot data as CSV only (apt-get install gnuplot-nox)"
    for k in step placement-time peak gantt scaling memory; do
        $B plot "$k" --db "$DB" --csv "plots/$k.csv"
    done
fi
echo
echo "demo finished in $(( $(date +%s) - start )) s: results in $DB, figures in plots/"
