# check: fast
# Collectives follow the topology (issue 32 item 1), against their closed
# forms (sim/collective.h, docs/topology.md) on the dgx-h100-superpod-1k
# preset (NVLink 0.8 x 450 = 360 GB/s achieved, 10 µs; NIC 0.9 x 50 = 45
# GB/s, 5 µs): a ring in one node, the hierarchy over 4 nodes of one leaf
# group, and the same 4 nodes spread over two leaf groups (non-blocking: the
# same time), for all-reduce, reduce-scatter and all-gather.
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"

S=400000000
node0=$(seq 0 7)
nodes0_3=$(seq 0 31)             # nodes 0..3: leaf group 0
nodes30_33=$(seq 240 271)        # nodes 30..33: leaf groups 0 and 1

test_expect_success 'a ring in one node: 2(n-1)/n S/B + 2(n-1) a, half for RS/AG' - <<EOF2
coll_check all-reduce "$node0" $(python3 -c "print(2*7/8*$S/360e3 + 2*7*10)")
coll_check reduce-scatter "$node0" $(python3 -c "print(7/8*$S/360e3 + 7*10)")
coll_check all-gather "$node0" $(python3 -c "print(7/8*$S/360e3 + 7*10)")
EOF2

# m = 4 nodes of g = 8: 2(g-1) a_in + 2(m-1) a_x + max(2(g-1)/g S/B_in,
# 2(m-1)/m S/(g B_x)); the halves for reduce-scatter and all-gather.
test_expect_success 'the hierarchy over 4 nodes of one leaf group' - <<EOF2
coll_check all-reduce "$nodes0_3" $(python3 -c "print(140 + 30 + max(2*7/8*$S/360e3, 2*3/4*$S/(8*45e3)))")
coll_check reduce-scatter "$nodes0_3" $(python3 -c "print(70 + 15 + max(7/8*$S/360e3, 3/4*$S/(8*45e3)))")
coll_check all-gather "$nodes0_3" $(python3 -c "print(70 + 15 + max(7/8*$S/360e3, 3/4*$S/(8*45e3)))")
EOF2

test_expect_success 'across two leaf groups of a non-blocking tree: the same times' - <<EOF2
coll_check all-reduce "$nodes30_33" $(python3 -c "print(140 + 30 + max(2*7/8*$S/360e3, 2*3/4*$S/(8*45e3)))")
coll_check reduce-scatter "$nodes30_33" $(python3 -c "print(70 + 15 + max(7/8*$S/360e3, 3/4*$S/(8*45e3)))")
coll_check all-gather "$nodes30_33" $(python3 -c "print(70 + 15 + max(7/8*$S/360e3, 3/4*$S/(8*45e3)))")
EOF2

test_done
