# check: fast
# The topology presets (issue 32 item 1): docs/topology.md's table says what
# each preset file holds (nodes, GPUs, links, tiers, leaf and pod sizes,
# oversubscription, collective efficiencies); `cluster list` shows them with
# their nodes; on the A100 preset an all-reduce over two nodes takes the
# hierarchy's closed form at 0.7 x 300 = 210 GB/s NVLink and 0.9 x 25 =
# 22.5 GB/s a NIC; the doc's uplink example (16 x 16 / 24 = 10.7 NICs over
# 8) is t803's all-to-all; a pod that is not whole leaf groups names
# file:line:column.
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"

test_expect_success 'docs/topology.md: the table is the preset files' - <<'EOF2'
python3 - "$TOP" <<'PY'
import re, sys
top = sys.argv[1]
doc = open(top + "/docs/topology.md").read()
for name in ["dgx-h100-superpod-1k", "dgx-h100-superpod-16k", "dgx-a100-superpod-2k"]:
    y = open("%s/data/clusters/%s.yaml" % (top, name)).read()
    def get(key):
        return re.search(r"^ *%s: *([^ #\n]+)" % key, y, re.M).group(1)
    row = re.search(r"^\| `%s` \|(.*)\|$" % name, doc, re.M).group(1).split("|")
    row = [c.strip() for c in row]
    nodes, gpn = get("count").split()[0], get("gpus_per_node")
    assert int(get("count")) == int(nodes)
    count = re.search(r"^nodes:\n  count: (\d+)", y, re.M).group(1)
    assert row[0] == "%s × %s" % (count, gpn), (name, row[0])
    intra = re.search(r"intra_node: \{bandwidth: (\d+)GB/s", y).group(1)
    inter = re.search(r"inter_node: \{bandwidth: (\d+)Gb/s", y).group(1)
    assert row[2] == intra + " GB/s" and row[3] == inter + " Gb/s", (name, row)
    assert row[4] == get("tiers") and row[5] == get("nodes_per_leaf"), (name, row)
    pod = re.search(r"nodes_per_pod: (\d+)", y)
    assert row[6] == (pod.group(1) if pod else "–"), (name, row)
    assert row[7] == get("oversubscription"), (name, row)
    eff = re.findall(r"coll_efficiency: ([0-9.]+)", y)
    assert row[8] == "%s / %s" % (eff[0], eff[1]), (name, row, eff)
    assert int(count) * int(gpn) == int(re.search(r"count: (\d+)", y).group(1))
print("ok")
PY
EOF2

test_expect_success 'cluster list: the presets with their nodes' - <<'EOF2'
expect_exit 0 "$BAECHI" cluster list
expect_grep '^  dgx-h100-superpod-1k +1024 .* \(128 nodes x 8, 50 GB/s per GPU between nodes\)$' "$TMPDIR_TEST/out"
expect_grep '^  dgx-h100-superpod-16k +16384 .* \(2048 nodes x 8, 50 GB/s per GPU between nodes\)$' "$TMPDIR_TEST/out"
expect_grep '^  dgx-a100-superpod-2k +2048 .* 300 GB/s .* \(256 nodes x 8, 25 GB/s per GPU between nodes\)$' "$TMPDIR_TEST/out"
EOF2

test_expect_success 'cluster list --json: the fat tree of each preset' - <<'EOF2'
expect_exit 0 "$BAECHI" cluster list --json
python3 "$TOP/tests/json_schema.py" "$TOP/docs/schema/cluster-list.json" "$TMPDIR_TEST/out"
python3 - "$TMPDIR_TEST/out" <<'PY'
import json, sys
got = {c["name"]: c for c in json.load(open(sys.argv[1]))["clusters"]}
n = got["dgx-h100-superpod-16k"]["nodes"]
assert (n["count"], n["tiers"], n["oversubscription"], n["nodes_per_leaf"], n["nodes_per_pod"]) == (2048, 3, 1, 32, 256), n
n = got["dgx-h100-superpod-1k"]["nodes"]
assert (n["tiers"], n["nodes_per_leaf"], n["nodes_per_pod"]) == (2, 32, None), n
assert got["dgx-h100-2x8"]["nodes"]["tiers"] == 0 and got["dgx-h100-2x8"]["nodes"]["nodes_per_leaf"] is None
assert got["dgx-h100-superpod-16k"]["comm"]["pair_overrides"] is True
PY
EOF2

# 16 ranks on nodes 0 and 1 (m = 2, g = 8), S = 400 MB.
test_expect_success 'dgx-a100-superpod-2k: the hierarchy at 210 and 22.5 GB/s' - <<'EOF2'
awk 'BEGIN {
    printf "format: 1\nname: ar16\nops:\n"
    for (i = 0; i < 16; i++) {
        printf "  - {name: p%d, type: Grad, time_us: 100, outputs: [400000000], device: %d}\n", i, i
        printf "  - {name: ar@r%d, type: AllReduce, time_us: 0, outputs: [400000000], inputs: [\"p%d:0\"], device: %d, x-collective: {id: b0, kind: all-reduce, bytes: 400000000}}\n", i, i, i
        printf "  - {name: u%d, type: Update, time_us: 10, inputs: [\"ar@r%d:0\"], device: %d}\n", i, i, i
    }
}' > w.yaml
expect_exit 0 "$BAECHI" sim -w w.yaml -c dgx-a100-superpod-2k --placement given --json
python3 - "$TMPDIR_TEST/out" <<'PY'
import json, sys
got = json.load(open(sys.argv[1]))["step_us"] - 110
want = 2 * 7 * 10 + 2 * 1 * 5 + max(2 * 7 / 8 * 4e8 / 210e3, 2 * 1 / 2 * 4e8 / (8 * 22.5e3))
assert abs(got - want) <= 1, (got, want)
PY
EOF2

test_expect_success 'the doc quotes the uplink example t803 checks' - <<'EOF2'
expect_grep '16 × 16 / 24 = 10.7 over 8, div 4/3' "$TOP/docs/topology.md"
expect_grep 'check all-to-all l2r2.yaml 4 1.3333333333333333' "$TOP/tests/cli/t803-topology-oversubscribed.sh"
expect_grep '= 22.94 ms' "$TOP/docs/topology.md"
expect_grep '110 = 2.58 ms \(t804\)' "$TOP/docs/topology.md"
expect_grep '2 \* 11 \* 5' "$TOP/tests/cli/t804-topology-16k-smoke.sh"
expect_grep '22\\.94\[0-9\] ms' "$TOP/tests/cli/t804-topology-16k-smoke.sh"
EOF2

test_expect_success 'a pod of partial leaf groups: file:line:column, exit 2' - <<'EOF2'
expect_exit 0 "$BAECHI" cluster gen --nodes 8 --tiers 3 --nodes-per-leaf 2 --nodes-per-pod 4 -o g.yaml
sed 's/^  nodes_per_pod: 4$/  nodes_per_pod: 3/' g.yaml > bad.yaml
printf 'format: 1\nname: x\nops:\n  - {name: a, type: A, time_us: 1, outputs: [100], device: 0}\n  - {name: b, type: B, time_us: 1, inputs: ["a:0"], device: 8}\n' > w1.yaml
expect_exit 2 "$BAECHI" sim -w w1.yaml -c bad.yaml --placement given
expect_grep 'bad.yaml:[0-9]+:[0-9]+: nodes: nodes_per_pod 3 is not a multiple of nodes_per_leaf 2' "$TMPDIR_TEST/err"
EOF2

# Per-pair overrides live in an n x n table: refused above 4,096 devices
# (4 GiB at 16,384) rather than allocated.
test_expect_success 'pairs on 4,800 devices: refused with file:line:column, exit 2' - <<'EOF2'
expect_exit 0 "$BAECHI" cluster gen --nodes 600 -o big.yaml
awk '{ print } /^  coll_efficiency/ { print "  pairs:"; print "    - {src: 0, dst: 1, slope_us_per_byte: 0.001}" }' big.yaml > bigp.yaml
expect_exit 2 "$BAECHI" sim -w w1.yaml -c bigp.yaml --placement given
expect_grep 'bigp.yaml:[0-9]+:[0-9]+: comm: pairs: per-pair overrides need a cluster of at most 4096 devices, this one has 4800' "$TMPDIR_TEST/err"
EOF2

test_done
