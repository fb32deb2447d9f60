# check: fast
# Oversubscribed uplinks divide the NICs' bandwidth (issue 32 item 1;
# sim/collective.c, docs/topology.md): a leaf group of L nodes x G NICs has
# L G / R NICs' worth of uplinks, a pod of P nodes P G / R^2; the flows that
# cross them (one per rail link leaving the group; an all-to-all's NIC the
# share of its peers outside) share them, so a crossing link runs at
# B_x / div, div = max(1, flows x R / (L G)) (pods: R^2 / (P G), the larger
# on a link across pods).  Against the closed forms, on files from `cluster
# gen` (H100: 360 GB/s NVLink achieved, 10 µs; 45 GB/s a NIC, 5 µs), all
# GPUs of m nodes (g = 8):
#   L = 1, R = 2: each node its own leaf group; 8 rails leave it, 4 NICs of
#                 uplinks: div 2
#   L = 2, R = 2: 8 rails leave each pair of nodes, 8 NICs of uplinks: div 1
#                 (a ring crosses a group boundary once: rings barely feel R)
#   L = 2, R = 4: div 2
#   3 tiers, 8 nodes, L = 2, P = 4, R = 4: leaf div 2, pod 8 flows over
#                 4 x 8 / 16 = 2 NICs: div 4 on the links across pods
#   all-to-all, L = 2, R = 2: each group of 16 ranks sends 16 x 16 / 24 =
#                 10.67 NICs' worth out over 8: div 4/3
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"

# check KIND CLUSTER NODES DIV: the collective over every GPU of NODES nodes
# against the hierarchy's closed form with the NICs at 45 GB/s / DIV.
check() {
    coll_wl "$1" 400000000 $(seq 0 $(($3 * 8 - 1))) > w.yaml
    expect_exit 0 "$BAECHI" sim -w w.yaml -c "$2" --placement given --json
    python3 - "$TMPDIR_TEST/out" "$1" "$3" "$4" <<'PY'
import json, sys
got = json.load(open(sys.argv[1]))["step_us"] - 110
kind, m, div = sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
S, g, bi, bx = 4e8, 8, 360e3, 45e3 / div
if kind == "all-reduce":
    want = 2 * 7 * 10 + 2 * (m - 1) * 5 + max(2 * 7 / 8 * S / bi, 2 * (m - 1) / m * S / (g * bx))
elif kind == "all-to-all":
    want = 7 * 10 + (m - 1) * g * 5 + max(7 / (m * g) * S / bi, (m - 1) / m * S / bx)
else:
    want = 7 * 10 + (m - 1) * 5 + max(7 / 8 * S / bi, (m - 1) / m * S / (g * bx))
assert abs(got - want) <= 1, (kind, m, div, got, want)
PY
}

test_expect_success 'gen: the fabrics' - <<'EOF2'
expect_exit 0 "$BAECHI" cluster gen --nodes 4 -o flat.yaml
expect_exit 0 "$BAECHI" cluster gen --nodes 4 --tiers 2 --nodes-per-leaf 1 --oversubscription 2 -o l1r2.yaml
expect_exit 0 "$BAECHI" cluster gen --nodes 4 --tiers 2 --nodes-per-leaf 2 --oversubscription 2 -o l2r2.yaml
expect_exit 0 "$BAECHI" cluster gen --nodes 4 --tiers 2 --nodes-per-leaf 2 --oversubscription 4 -o l2r4.yaml
expect_exit 0 "$BAECHI" cluster gen --nodes 8 --tiers 3 --nodes-per-leaf 2 --nodes-per-pod 4 --oversubscription 4 -o t3.yaml
EOF2

for k in all-reduce reduce-scatter all-gather; do
    test_expect_success "$k: R divides the NICs where the flows exceed the uplinks" - <<EOF2
check $k flat.yaml 4 1
check $k l1r2.yaml 4 2
check $k l2r2.yaml 4 1
check $k l2r4.yaml 4 2
check $k t3.yaml 8 4
EOF2
done

test_expect_success 'all-to-all: its off-group share over the uplinks' - <<'EOF2'
check all-to-all flat.yaml 4 1
check all-to-all l2r2.yaml 4 1.3333333333333333
check all-to-all l1r2.yaml 4 2
EOF2

test_done
