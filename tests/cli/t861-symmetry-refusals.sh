# check: once
# Replica symmetry refuses, in one line and with exit 2, what it cannot
# stand for (issue 32 item 2, docs/symmetry.md): a layout whose replicas sit
# differently in the nodes (dp 3 x tp 2 x pp 2 in nodes of 8: replica 0's
# stage link stays in a node, replica 1's crosses), a placer's own
# placement, a heterogeneous cluster, too few devices, and malformed keys
# (a TP file of an earlier version without classes); ZeRO-3 with sequence
# parallelism, once refused, is taken; the exact transform writes neither key.
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"

g="workload gen gpt --layers 4 --d-model 64 --heads 8 --vocab 128 --seq 16 --batch 4 --dropout 0 --device h100"

test_expect_success 'setup' - <<EOF2
"\$BAECHI" $g --dp 4 --tp 2 --pp 2 --symmetric -o s.yaml > /dev/null 2>&1
"\$BAECHI" $g --dp 3 --tp 2 --pp 2 --symmetric -o s3.yaml > /dev/null 2>&1
"\$BAECHI" $g --dp 4 --tp 2 --pp 2 -o e.yaml > /dev/null 2>&1
grep -q '^x-symmetry:' s.yaml && grep -q 'replicas: 3, stride: 2' s.yaml
EOF2

test_expect_success 'the exact transform writes no symmetry' - <<'EOF2'
! grep -q 'x-symmetry' e.yaml
! grep -q 'replicas:' e.yaml
EOF2

test_expect_success 'replicas placed differently in the nodes: refused' - <<'EOF2'
for cmd in "sim --placement given" "run -p given"; do
    expect_exit 2 "$BAECHI" $cmd -w s3.yaml -c dgx-h100-2x8
    expect_grep '^baechi: not symmetric: the link 2 -> 8 of replica 1 differs from its replica-0 link 0 -> 6' "$TMPDIR_TEST/err"
    test "$(wc -l < "$TMPDIR_TEST/err")" = 1
done
EOF2

test_expect_success "a placer, or a placement outside replica 0: refused" - <<'EOF2'
for p in m-etf auto; do
    expect_exit 2 "$BAECHI" run -w s.yaml -c dgx-h100-2x8 -p $p
    expect_grep "^baechi: not symmetric: '.*' is replica 0 of 4 \(parallelize --symmetric\) and runs on its given placement; -p $p would place its ops anywhere" "$TMPDIR_TEST/err"
done
expect_exit 2 "$BAECHI" place -w s.yaml -c dgx-h100-2x8 -p m-topo -o p.yaml
expect_exit 0 "$BAECHI" place -w s.yaml -c dgx-h100-2x8 -p given -o p.yaml
sed 's|^  r0/wte: 0$|  r0/wte: 2|' p.yaml > p2.yaml
expect_exit 2 "$BAECHI" sim -w s.yaml -c dgx-h100-2x8 --placement p2.yaml
expect_grep "^baechi: not symmetric: op 'r0/wte' is on device 2, outside replica 0 \(a placer's own placement\)" "$TMPDIR_TEST/err"
EOF2

test_expect_success 'a heterogeneous cluster: refused' - <<'EOF2'
cat > het.yaml <<'YAML'
format: 1
name: het
devices:
  - {name: big, count: 4, kind: h100, memory: 80GB}
  - {name: small, count: 4, kind: h100, memory: 40GB}
  - {name: rest, count: 8, kind: h100, memory: 80GB}
comm: {slope_us_per_byte: 2.2e-6, intercept_us: 10, channel: duplex}
YAML
expect_exit 2 "$BAECHI" sim -w s.yaml -c het.yaml --placement given
expect_grep '^baechi: not symmetric: device 4 \(replica 2\) differs from its replica-0 device 0 in memory, speed or kind' "$TMPDIR_TEST/err"
EOF2

test_expect_success 'too few devices: refused' - <<'EOF2'
sed 's/^  devices: 16$/  devices: 32/' s.yaml > s32.yaml
expect_exit 2 "$BAECHI" sim -w s32.yaml -c dgx-h100-2x8 --placement given
expect_grep "^baechi: not symmetric: the workload's 4 replicas need 32 devices, the cluster 'dgx-h100-2x8' has 16" "$TMPDIR_TEST/err"
EOF2

# ZeRO-3 with --sp was refused while one replica stood for all (its gathers
# tie with the sequence-parallel collectives in orders one replica does not
# stand for); a representative per class runs them in the exact order
test_expect_success 'ZeRO-3 with --sp: taken, the same step as the exact graph' - <<EOF2
expect_exit 0 "\$BAECHI" $g --dp 4 --tp 2 --sp --zero 3 --symmetric -o z.yaml
expect_exit 0 "\$BAECHI" $g --dp 4 --tp 2 --sp --zero 3 -o ze.yaml
"\$BAECHI" sim -w z.yaml -c dgx-h100-2x8 --placement given | grep '^step time' > zs.txt
"\$BAECHI" sim -w ze.yaml -c dgx-h100-2x8 --placement given | grep '^step time' > ze.txt
cmp zs.txt ze.txt
EOF2

test_expect_success 'malformed keys name the place' - <<'EOF2'
sed '0,/replicas: 3, stride: 2/s//replicas: 0, stride: 2/' s.yaml > bad.yaml
expect_exit 2 "$BAECHI" sim -w bad.yaml -c dgx-h100-2x8 --placement given
expect_grep '^baechi: bad.yaml:[0-9]+:[0-9]+: op .*x-collective: replicas: expected an integer >= 1, got 0' "$TMPDIR_TEST/err"
sed '0,/kind: all-reduce, bytes: \([0-9]*\), replicas/s//kind: broadcast, bytes: \1, replicas/' s.yaml > bc.yaml
expect_exit 2 "$BAECHI" sim -w bc.yaml -c dgx-h100-2x8 --placement given
expect_grep 'replicas: a broadcast has one root, not one per replica' "$TMPDIR_TEST/err"
sed 's/^  stride: 2$/  stride: 3/' s.yaml > st.yaml
expect_exit 2 "$BAECHI" sim -w st.yaml -c dgx-h100-2x8 --placement given
expect_grep "x-symmetry: expected \{replicas: D >= 1, stride: T >= 1, devices: N, a multiple of D x T\[, tp: 1 or T\]\[, classes: 1 or 4\]\}" "$TMPDIR_TEST/err"
sed 's/^  classes: 4$/  classes: 1/' s.yaml > c1.yaml
expect_exit 2 "$BAECHI" sim -w c1.yaml -c dgx-h100-2x8 --placement given
expect_grep "x-symmetry: tp: 2 needs classes: 4 \(a file of an earlier version of --symmetric\)" "$TMPDIR_TEST/err"
EOF2

test_done
