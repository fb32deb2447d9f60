#!/bin/sh
# demo.sh - `make demo`: the main job on the embedded defaults.  Simulates
# the GNMT-v2 forward graph (profiled by the paper's authors) on the paper's
# 4-GPU machine under the model's own hand-made placement, with both
# simulator models, and writes a Perfetto trace.
set -eu
cd "$(dirname "$0")/.."
B=./baechi
W=data/workloads/gnmt_v2/gnmt_v2_b128_fwd.yaml
C=paper-4gpu-pcie
mkdir -p plots

echo "== baechi workload info $W --devices 4"
$B workload info "$W" --devices 4
echo
echo "== baechi sim -w $W -c $C --placement given --model baechi"
$B sim -w "$W" -c "$C" --placement given --model baechi
echo
echo "== baechi sim -w $W -c $C --placement given (timed model) --trace plots/gnmt-given.trace.json"
$B sim -w "$W" -c "$C" --placement given --trace plots/gnmt-given.trace.json
echo
echo "trace written to plots/gnmt-given.trace.json (open it in https://ui.perfetto.dev or chrome://tracing)"
