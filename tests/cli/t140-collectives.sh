# check: sanitized-only
# Clusters of nodes and collectives in the timed simulator (issue 23, items
# 1 and 2): the node presets in `cluster list`; a bad `nodes` key names
# file:line:column; an all-reduce over two DGX H100 nodes (given placement
# and a placement file) takes its hierarchical time and shows in the trace
# (kind, bytes, ranks) and the traffic counters; every placer places a graph
# with collectives without failing (auto aborted on small graphs once, a
# fusion bug); the baechi model runs ranks as ordinary ops.
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"

test_expect_success 'cluster list: the node presets with their nodes' - <<'EOF'
expect_exit 0 "$BAECHI" cluster list
expect_grep '^  dgx-h100-2x8 +16 .* datasheet \(2 nodes x 8, 50 GB/s per GPU between nodes\)$' \
    "$TMPDIR_TEST/out"
expect_grep '^  dgx-h100-4x8 +32 .* \(4 nodes x 8, 50 GB/s per GPU between nodes\)$' "$TMPDIR_TEST/out"
expect_grep '^  pcie-2x4 +8 .* \(2 nodes x 4, 3.12 GB/s per GPU between nodes\)$' "$TMPDIR_TEST/out"
EOF

# 16 ranks on dgx-h100-2x8: p<i> (100 µs) -> ar@r<i> -> u<i>, S = 400 MB.
test_expect_success 'setup: an all-reduce over two nodes' - <<'EOF'
{
    printf 'format: 1\nname: ar16\nops:\n'
    i=0
    while [ $i -lt 16 ]; do
        printf '  - {name: p%d, type: Grad, time_us: 100, outputs: [400000000], device: %d}\n' $i $i
        printf '  - {name: ar@r%d, type: AllReduce, time_us: 0, outputs: [400000000], inputs: ["p%d:0"], device: %d, x-collective: {id: ddp/b0, kind: all-reduce, bytes: 400000000}}\n' $i $i $i
        printf '  - {name: u%d, type: Update, time_us: 10, inputs: ["ar@r%d:0"], device: %d}\n' $i $i $i
        i=$((i + 1))
    done
} > w.yaml
EOF

test_expect_success 'a bad nodes section: file:line:column, exit 2' - <<'EOF'
cat > bad.yaml <<'YAML'
format: 1
name: bad
devices:
  - {name: g, count: 4, memory: 1GiB}
nodes:
  gpus_per_node: 2
  inter_node: {bandwidth: 100 Gbit, latency_us: 5}
YAML
expect_exit 2 "$BAECHI" sim -w w.yaml -c bad.yaml --placement given
expect_grep 'bad.yaml:7:27: nodes: inter_node: bandwidth: expected bytes/s' "$TMPDIR_TEST/err"
EOF

# reduce-scatter in the node (7/8 S at 450 GB/s + 7 x 10 µs), all-reduce of
# S/8 across 2 nodes (S/8 at 50 GB/s + 2 x 5 µs), all-gather as the first:
# 2 x (777.78 + 70) + (1000 + 10) = 2705.6 µs; step = 100 + 2706 + 10.
test_expect_success 'sim --placement given: the hierarchical time, trace and traffic' - <<'EOF'
expect_exit 0 "$BAECHI" sim -w w.yaml -c dgx-h100-2x8 --placement given --json --trace t.json
python3 - "$TMPDIR_TEST/out" t.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
want = 2 * (7 / 8 * 4e8 / 450e3 + 70) + (4e8 / 8 / 50e3 + 10)
got = r["step_us"] - 110
assert abs(got - want) <= 0.02 * want, (got, want)
t = json.load(open(sys.argv[2]))["traceEvents"]
coll = [e for e in t if e.get("cat") == "collective"]
assert len(coll) == 16, len(coll)
a = coll[0]["args"]
assert a["kind"] == "all-reduce" and a["bytes"] == 400000000 and a["ranks"] == 16, a
assert a["collective"] == "ddp/b0", a
assert all(e["ts"] == 100 for e in coll), [e["ts"] for e in coll]
names = [e["args"]["name"] for e in t if e.get("name") == "thread_name"]
assert "collective" in names, names
PY
expect_exit 0 "$BAECHI" sim -w w.yaml -c dgx-h100-2x8 --placement given
expect_grep '^  gpu7 +-> gpu15 ' "$TMPDIR_TEST/out"
expect_grep '^  gpu0 +-> gpu1 ' "$TMPDIR_TEST/out"
EOF

test_expect_success 'a placement file gives the same step' - <<'EOF'
expect_exit 0 "$BAECHI" place -w w.yaml -c dgx-h100-2x8 -p given -o pl.yaml
expect_exit 0 "$BAECHI" sim -w w.yaml -c dgx-h100-2x8 --placement given
grep '^step time' "$TMPDIR_TEST/out" > given.txt
expect_exit 0 "$BAECHI" sim -w w.yaml -c dgx-h100-2x8 --placement pl.yaml
grep '^step time' "$TMPDIR_TEST/out" > file.txt
cmp given.txt file.txt
EOF

for p in m-topo m-etf m-sct paper single round-robin random expert auto; do
    test_expect_success "run -p $p on a graph with collectives" - <<EOF
expect_exit 0 "\$BAECHI" run -w w.yaml -c dgx-h100-2x8 -p $p
expect_grep '^step \(timed\)' "\$TMPDIR_TEST/out"
EOF
done

test_expect_success 'the baechi model runs ranks as ordinary ops (1 µs each)' - <<'EOF'
expect_exit 0 "$BAECHI" sim -w w.yaml -c dgx-h100-2x8 --placement given --model baechi --json
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["step_us"] == 111, r["step_us"]' \
    "$TMPDIR_TEST/out"
EOF

test_done
