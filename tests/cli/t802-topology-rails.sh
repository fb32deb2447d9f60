# check: fast
# Rails (issue 32 item 1): across nodes each local rank j of a node rings
# with the j-th GPU of the other nodes over its own NIC, and each of the g
# rails carries 1/g of the data (sim/collective.h, docs/topology.md).  On
# dgx-h100-superpod-1k (360 GB/s achieved NVLink, 10 µs; 45 GB/s a NIC, 5
# µs): one GPU a node (g = 1: one ring over the NICs) and two GPUs a node
# (g = 2: two rails), all-reduce, reduce-scatter and all-gather against
# their closed forms, and the bytes each rail link carries.
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"

S=400000000
one="0 8 16 24"            # one GPU on each of nodes 0..3
two="0 1 8 9 16 17 24 25"  # two GPUs on each

test_expect_success 'g = 1: one ring over the NICs' - <<EOF2
coll_check all-reduce "$one" $(python3 -c "print(2*3/4*$S/45e3 + 2*3*5)")
coll_check reduce-scatter "$one" $(python3 -c "print(3/4*$S/45e3 + 3*5)")
coll_check all-gather "$one" $(python3 -c "print(3/4*$S/45e3 + 3*5)")
EOF2

test_expect_success 'g = 2: two rails, each 1/2 of the data' - <<EOF2
coll_check all-reduce "$two" $(python3 -c "print(2*1*10 + 2*3*5 + max(2*1/2*$S/360e3, 2*3/4*$S/(2*45e3)))")
coll_check reduce-scatter "$two" $(python3 -c "print(10 + 3*5 + max(1/2*$S/360e3, 3/4*$S/(2*45e3)))")
coll_check all-gather "$two" $(python3 -c "print(10 + 3*5 + max(1/2*$S/360e3, 3/4*$S/(2*45e3)))")
EOF2

# all-reduce, g = 2, m = 4: each in-node link 2(g-1)/g S = 400 MB, each
# rail link 2(m-1)/m S/g = 300 MB; no link joins local ranks 0 and 1 of
# two nodes.
test_expect_success 'the rails carry their share, on their own links' - <<'EOF2'
coll_wl all-reduce 400000000 0 1 8 9 16 17 24 25 > w.yaml
expect_exit 0 "$BAECHI" sim -w w.yaml -c dgx-h100-superpod-1k --placement given --json
python3 - "$TMPDIR_TEST/out" <<'PY'
import json, sys
t = {(x["src"], x["dst"]): x["bytes"] for x in json.load(open(sys.argv[1]))["transfers"]}
assert t[(0, 1)] == 400000000 and t[(1, 0)] == 400000000, t
for a, b in [(0, 8), (8, 16), (16, 24), (24, 0), (1, 9), (9, 17), (17, 25), (25, 1)]:
    assert t[(a, b)] == 300000000, (a, b, t)
assert (0, 9) not in t and (1, 8) not in t, t
assert len(t) == 4 * 2 + 2 * 4, t
PY
EOF2

# broadcast, g = 2, m = 4: scattered in the node, S/g on each rail, then
# all-gathered in the node: 2(g-1)/g S = 400 MB on each in-node link (the
# volume its time counts), S/g = 200 MB on each link of the rails' chains.
test_expect_success 'a broadcast over the hierarchy: the in-node links carry what its time counts' - <<'EOF2'
coll_wl broadcast 400000000 0 1 8 9 16 17 24 25 > w.yaml
expect_exit 0 "$BAECHI" sim -w w.yaml -c dgx-h100-superpod-1k --placement given --json
python3 - "$TMPDIR_TEST/out" <<'PY'
import json, sys
t = {(x["src"], x["dst"]): x["bytes"] for x in json.load(open(sys.argv[1]))["transfers"]}
assert t[(0, 1)] == 400000000 and t[(1, 0)] == 400000000, t
for a, b in [(0, 8), (8, 16), (16, 24), (1, 9), (9, 17), (17, 25)]:
    assert t[(a, b)] == 200000000, (a, b, t)
assert len(t) == 4 * 2 + 2 * 3, t
PY
EOF2

test_done
