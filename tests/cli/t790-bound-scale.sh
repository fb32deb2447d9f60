# check: once
#!/bin/sh
# t790: the certified bound at cluster scale (issue 30 item 6): `run` on a
# dp=512 graph on 512 GPUs (64 nodes x 8) computes the bound per class pair
# of devices, not per device pair, so it finishes within a CPU-time limit
# (before: more than 120 s; now about as long as `sim`); and the bound by the
# classes equals the per-pair bound (a cluster whose one dearer pair breaks
# the symmetry takes the per-pair path) where memory binds and the LP runs.
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"

test_expect_success 'setup: GPT training graph, dp=512, 512 GPUs' '
    "$BAECHI" workload gen gpt --layers 2 --d-model 64 --heads 4 --vocab 100 -b 4 --seq 8 --dropout 0 -o g.yaml 2>/dev/null &&
    "$BAECHI" workload parallelize g.yaml --dp 512 -o p512.yaml > /dev/null &&
    nodes_cluster 512 > c512.yaml
'

test_expect_success 'run on dp=512 within 20 CPU seconds (before: over 120 s)' '
    expect_exit 0 sh -c "ulimit -t 20; exec \"\$0\" run -w p512.yaml -c c512.yaml -p given --json" "$BAECHI" &&
    expect_grep "\"lower_bound_us\": [1-9]" "$TMPDIR_TEST/out" &&
    expect_grep "\"lp_status\": \"skipped: 40960 ops > 150\"" "$TMPDIR_TEST/out"
'

# 2 nodes of 4, links that cross: small tensors are faster between nodes,
# large ones inside, so both class models give the smallest transfer.
two_nodes() {
    cat <<YAML
format: 1
name: two-nodes
devices:
  - name: gpu
    count: 8
    memory: $1
comm:
  slope_us_per_byte: 0.05
  intercept_us: 100
  channel: duplex
$2
nodes:
  gpus_per_node: 4
  intra_node: {slope_us_per_byte: 0.001, intercept_us: 50}
  inter_node: {slope_us_per_byte: 0.02, intercept_us: 5}
YAML
}

same_bound() {
    two_nodes "$1" "" > sym.yaml
    two_nodes "$1" "  pairs:
    - {src: 0, dst: 5, slope_us_per_byte: 1, intercept_us: 1000}" > pair.yaml
    "$BAECHI" run -w "$2" -c sym.yaml -p "$3" --json 2>/dev/null | grep -o "\"bound\": {[^}]*}" > sym.out
    "$BAECHI" run -w "$2" -c pair.yaml -p "$3" --json 2>/dev/null | grep -o "\"bound\": {[^}]*}" > pair.out
    cat sym.out
    grep -q "\"memory_us\"" sym.out && cmp sym.out pair.out
}

test_expect_success 'the bound by classes = per pair: 79 ops, memory binds, LP solved' '
    same_bound 1MiB g.yaml round-robin > b1 && cat b1 &&
    grep -q "\"memory_us\": 519, \"lp_us\": 459, \"lp_status\": \"optimal\"" b1 &&
    same_bound 600KiB g.yaml round-robin > b2 &&
    grep -q "\"memory_us\": 828" b2
'

test_expect_success 'the bound by classes = per pair: dp=4, memory binds' '
    "$BAECHI" workload parallelize g.yaml --dp 4 -o p4.yaml > /dev/null &&
    same_bound 1MiB p4.yaml given > b3 && grep -q "\"memory_us\": 874" b3 &&
    same_bound 600KiB p4.yaml given > b4 && grep -q "\"memory_us\": 512" b4
'

test_done
