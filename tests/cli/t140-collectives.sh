# check: sanitized-only
# Clusters of nodes and collectives in the timed simulator (issue 23, items
# 1 and 2; issue 31, item 4): the node presets in `cluster list`; a bad
# `nodes` key names file:line:column; an all-reduce over two DGX H100 nodes
# (given placement and a placement file) takes its hierarchical time, every
# other kind its own (an all-gather half the all-reduce), and shows in the trace
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

# The hierarchy with rails, phases pipelined (sim/collective.h): reduce-
# scatter and all-gather in the node (2 x 7/8 S at 0.8 x 450 GB/s = 360 GB/s
# achieved) against the all-reduce of S/8 on each of the 8 rails (S/8 at
# 0.9 x 50 GB/s); the slower bounds it, the latencies add (2 x 7 x 10 µs +
# 2 x 5 µs): max(1944.4, 1111.1) + 150 = 2094.4 µs; step = 100 + 2094 + 10.
test_expect_success 'sim --placement given: the hierarchical time, trace and traffic' - <<'EOF'
expect_exit 0 "$BAECHI" sim -w w.yaml -c dgx-h100-2x8 --placement given --json --trace t.json
python3 - "$TMPDIR_TEST/out" t.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
want = max(2 * 7 / 8 * 4e8 / 360e3, 4e8 / 8 / 45e3) + 150
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

# Every kind over the 16 GPUs of dgx-h100-2x8 (before: only the all-reduce
# had the hierarchy; an all-gather ran as one flat ring at a single NIC,
# 2.8x the all-reduce of the same bytes): an all-gather or a reduce-scatter
# of S is half an all-reduce of S; a broadcast an all-reduce here (m = 2);
# an all-to-all sends half of S through each NIC: S/2 at 45 GB/s.
test_expect_success 'every collective over two nodes: all-gather = all-reduce / 2' - <<'EOF'
for kind in all-reduce all-gather reduce-scatter broadcast all-to-all; do
    sed "s/kind: all-reduce/kind: $kind/" w.yaml > k.yaml
    expect_exit 0 "$BAECHI" sim -w k.yaml -c dgx-h100-2x8 --placement given --json
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["step_us"] - 110)' \
        "$TMPDIR_TEST/out" > "t_$kind"
done
python3 - <<'PY'
t = {k: int(open("t_" + k).read()) for k in
     ("all-reduce", "all-gather", "reduce-scatter", "broadcast", "all-to-all")}
print(t)
assert abs(t["all-gather"] - t["all-reduce"] / 2) <= 1, t
assert abs(t["reduce-scatter"] - t["all-reduce"] / 2) <= 1, t
assert abs(t["broadcast"] - t["all-reduce"]) <= 10, t
want = 4e8 / 2 / 45e3 + 7 * 10 + 8 * 5
assert abs(t["all-to-all"] - want) <= 0.02 * want, (t, want)
PY
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
