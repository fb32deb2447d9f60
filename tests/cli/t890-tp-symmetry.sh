# check: once
# TP symmetry (issue 32 items 2 and 3, docs/symmetry.md): `--symmetric`
# writes a representative per class of ranks of each stage, TP ranks 0 and
# T-1 of replicas 0 and D-1; the TP collective's rank op of TP rank 0
# stands for ranks 0..T-2 (replicas: T-1, stride: 1), the DP collective's
# of replica 0 for replicas 0..D-2 (replicas: D-1, stride: T), the others'
# for themselves; the top-level x-symmetry carries tp: T and classes: 4.
# sim costs the collectives over all their ranks and expands the results to
# every device.  Checked here: what is written; agreement with the exact
# graph with DP 1 (TP and PP only) and with DP, TP and PP (step, every
# device's peak, busy time and op count equal); a file of one replica
# (x-symmetry without tp and classes, as --symmetric wrote before: a
# fixture) read as before; the refusals of TP ranks that the cluster treats
# differently; the JSON key.
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"

g="workload gen gpt --layers 4 --d-model 64 --heads 8 --vocab 128 --seq 16 --dropout 0 --device h100 --optimizer adam --batch 8 --micro-batches 2"

# exact and symmetric sim --json agree on the step and every device's
# peak, busy time and op count
agree() {
    python3 - "$1" "$2" <<'PY'
import json, sys
e, s = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert "symmetry" not in e and s["symmetry"]["classes"] == 4, s.get("symmetry")
assert e["step_us"] == s["step_us"], (e["step_us"], s["step_us"])
assert len(e["devices"]) == len(s["devices"])
for a, b in zip(e["devices"], s["devices"]):
    for k in ("peak_bytes", "busy_us", "n_ops"):
        assert a[k] == b[k], (a["name"], k, a[k], b[k])
print("step", s["step_us"], "ops", e["n_ops"], "->", s["n_ops"])
PY
}

test_expect_success 'setup' - <<EOF2
"\$BAECHI" $g --tp 4 --pp 2 -o e1.yaml > /dev/null 2>&1
"\$BAECHI" $g --tp 4 --pp 2 --symmetric -o s1.yaml > /dev/null 2>&1
"\$BAECHI" $g --dp 3 --tp 2 --pp 2 --zero 1 -o e3.yaml > /dev/null 2>&1
"\$BAECHI" $g --dp 3 --tp 2 --pp 2 --zero 1 --symmetric -o s3.yaml > /dev/null 2>&1
"\$BAECHI" workload gen gpt --layers 2 --d-model 64 --heads 8 --vocab 128 --seq 16 --dropout 0 --device h100 --optimizer adam --batch 4 --dp 3 --tp 2 -o eo.yaml > /dev/null 2>&1
EOF2

test_expect_success 'written: TP ranks 0 and T-1 of replicas 0 and D-1' - <<'EOF2'
grep -q '^  replicas: 1$' s1.yaml && grep -q '^  tp: 4$' s1.yaml && grep -q '^  devices: 8$' s1.yaml
grep -q '^  classes: 4$' s1.yaml
# DP 1, TP 4 x PP 2: ranks 0 and 3 of each stage
test "$(sed -n 's/^- {name: r\([0-9]*\)\/.*/\1/p' s1.yaml | sort -un | tr '\n' ' ')" = "0 3 4 7 "
grep -q 'name: r0/.*x-collective: {id: p0.d0/tp/[^,]*, kind: all-reduce, bytes: [0-9]*, replicas: 3, stride: 1}' s1.yaml
grep -q 'name: r3/.*x-collective: {id: p0.d0/tp/[^,]*, kind: all-reduce, bytes: [0-9]*, replicas: 1, stride: 1}' s1.yaml
# DP 3 x TP 2 x PP 2: t + 2 (d + 3 p) for t in 0, 1 and d in 0, 2; DP collectives of
# replica 0 stand for replicas 0 and 1; TP 2 needs no copies
test "$(sed -n 's/^- {name: r\([0-9]*\)\/.*/\1/p' s3.yaml | sort -un | tr '\n' ' ')" = "0 1 4 5 6 7 10 11 "
grep -q 'name: r0/.*x-collective: {id: p0.t0/ddp/b0, kind: all-reduce, bytes: [0-9]*, replicas: 2, stride: 2}' s3.yaml
grep -q 'name: r4/.*x-collective: {id: p0.t0/ddp/b0, kind: all-reduce, bytes: [0-9]*, replicas: 1, stride: 2}' s3.yaml
grep -q 'x-collective: {id: p0.d0/tp/[^,]*, kind: all-reduce, bytes: [0-9]*}' s3.yaml
EOF2

test_expect_success 'TP x PP (DP 1): the same step and devices as the exact graph' - <<'EOF2'
for w in e1 s1; do
    expect_exit 0 "$BAECHI" sim -w $w.yaml -c dgx-h100-2x8 --placement given --json
    mv "$TMPDIR_TEST/out" $w.json
done
agree e1.json s1.json
EOF2

test_expect_success 'DP x TP x PP with ZeRO-1 on a fat tree: the same' - <<'EOF2'
"$BAECHI" cluster gen --nodes 3 --gpus-per-node 4 --tiers 2 --oversubscription 2 --nodes-per-leaf 1 -o c3.yaml
for w in e3 s3; do
    expect_exit 0 "$BAECHI" sim -w $w.yaml -c c3.yaml --placement given --json
    mv "$TMPDIR_TEST/out" $w.json
done
agree e3.json s3.json
EOF2

test_expect_success 'a file of one replica (no tp, no classes): read as before, exact' - <<'EOF2'
cp "$TOP/tests/data/symmetric-one-replica.yaml" so.yaml
! grep -q '^  tp:' so.yaml
for w in eo so; do
    expect_exit 0 "$BAECHI" sim -w $w.yaml -c dgx-h100-2x8 --placement given --json
    mv "$TMPDIR_TEST/out" $w.json
done
python3 - eo.json so.json <<'PY'
import json, sys
e, s = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert s["symmetry"] == {"replicas": 3, "stride": 2, "devices": 6, "tp": 1, "classes": 1}, s["symmetry"]
assert e["step_us"] == s["step_us"], (e["step_us"], s["step_us"])
assert [d["peak_bytes"] for d in e["devices"][:6]] == [d["peak_bytes"] for d in s["devices"][:6]]
PY
EOF2

test_expect_success 'text: the statement of what was simulated' - <<'EOF2'
expect_exit 0 "$BAECHI" sim -w s1.yaml -c dgx-h100-2x8 --placement given
expect_grep '^symmetric +2 of 4 ranks a stage simulated \(one replica, TP ranks 0 and T-1; TP collectives over all 4 ranks' "$TMPDIR_TEST/out"
expect_exit 0 "$BAECHI" sim -w "$TOP/tests/data/symmetric-one-replica.yaml" -c dgx-h100-2x8 --placement given
expect_grep '^symmetric +replica 0 of 3 simulated' "$TMPDIR_TEST/out"
EOF2

test_expect_success 'malformed tp: named' - <<'EOF2'
sed 's/^  tp: 4$/  tp: 3/' s1.yaml > bad.yaml
expect_exit 2 "$BAECHI" sim -w bad.yaml -c dgx-h100-2x8 --placement given
expect_grep 'x-symmetry: expected .*\[, tp: 1 or T\]' "$TMPDIR_TEST/err"
EOF2

# TP rank 1 of every pair slower in memory: every replica alike, the TP ranks not
test_expect_success 'TP ranks on different devices: refused' - <<'EOF2'
{
    printf 'format: 1\nname: alt\ndevices:\n'
    for i in 0 1 2 3 4 5 6 7; do
        printf '  - {name: a%d, count: 1, kind: h100, memory: 80GB}\n' $i
        printf '  - {name: b%d, count: 1, kind: h100, memory: 40GB}\n' $i
    done
    printf 'comm: {slope_us_per_byte: 2.2e-6, intercept_us: 10, channel: duplex}\n'
} > alt.yaml
expect_exit 2 "$BAECHI" sim -w s3.yaml -c alt.yaml --placement given
expect_grep '^baechi: not symmetric: device 1 \(TP rank 1\) differs from its TP rank-0 device 0 in memory, speed or kind' "$TMPDIR_TEST/err"
test "$(wc -l < "$TMPDIR_TEST/err")" = 1
expect_exit 0 "$BAECHI" sim -w e3.yaml -c alt.yaml --placement given
EOF2

# a pair override (pair.yaml, 1 -> 5, rewritten per case): one link of TP rank 1 slower
test_expect_success 'a TP rank whose stage link differs: refused' - <<'EOF2'
cat > pair.yaml <<'YAML'
format: 1
name: pair
devices:
  - {name: gpu, count: 8, kind: h100, memory: 80GB}
comm:
  slope_us_per_byte: 2.2e-6
  intercept_us: 10
  channel: duplex
  pairs:
    - {src: 1, dst: 5, slope_us_per_byte: 1e-4}
YAML
# TP 2 x PP 2 uses devices 0..3: stage 1's TP rank 0 is device 2
"$BAECHI" $g --tp 2 --pp 2 --symmetric -o s22.yaml > /dev/null 2>&1
sed 's/src: 1, dst: 5/src: 1, dst: 3/' pair.yaml > pair2.yaml
expect_exit 2 "$BAECHI" sim -w s22.yaml -c pair2.yaml --placement given
expect_grep '^baechi: not symmetric: the link 1 -> 3 differs from its TP rank-0 link 0 -> 2' "$TMPDIR_TEST/err"
EOF2

# DP 2 x TP 2: DP group of TP rank 0 is {0, 2}, of rank 1 {1, 3}; only 1 -> 3 slower
test_expect_success 'a TP rank whose data-parallel group differs: refused' - <<'EOF2'
"$BAECHI" $g --dp 2 --tp 2 --symmetric -o s2.yaml > /dev/null 2>&1
sed 's/src: 1, dst: 5/src: 1, dst: 3/' pair.yaml > pair3.yaml
expect_exit 2 "$BAECHI" sim -w s2.yaml -c pair3.yaml --placement given
expect_grep '^baechi: not symmetric: the data-parallel link 1 -> 3 differs from its TP rank-0 data-parallel link 0 -> 2' "$TMPDIR_TEST/err"
EOF2

test_expect_success 'sim --json: the symmetry key with tp, valid by its schema' - <<'EOF2'
expect_exit 0 "$BAECHI" sim -w s3.yaml -c c3.yaml --placement given --json
python3 "$TOP/tests/json_schema.py" "$TOP/docs/schema/sim.json" "$TMPDIR_TEST/out"
grep -q '"symmetry": {"replicas": 3, "stride": 2, "devices": 12, "tp": 2, "classes": 4}' "$TMPDIR_TEST/out"
expect_exit 0 "$BAECHI" run -w s1.yaml -c dgx-h100-2x8 -p given --json
python3 "$TOP/tests/json_schema.py" "$TOP/docs/schema/run.json" "$TMPDIR_TEST/out"
grep -q '"symmetry": {"replicas": 1, "stride": 4, "devices": 8, "tp": 4, "classes": 4}' "$TMPDIR_TEST/out"
EOF2

test_done
