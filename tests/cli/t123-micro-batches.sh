# check: slow sanitized-only
# Micro-batched training graphs (workloads/train.h, --micro-batches): on a
# balanced chain of K stages of several ops each, one stage per device,
# negligible communication, the timed simulator's step equals the GPipe
# formula (M + K - 1) x (forward + backward time of one micro-batch on one
# stage) within 2 %; M = 1 is the graph without micro-batches; the
# generators and `workload train` take the option; bad values are refused.
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"
K=4
T=900 # forward µs of a stage (3 ops of 300 µs), backward 2x

test_expect_success 'setup: a balanced chain of 4 stages, a fast cluster, its training graph' - <<'EOF'
python3 - "$K" "$T" <<'PY'
import sys
K, T, J = int(sys.argv[1]), int(sys.argv[2]), 3
ops = ["  - {name: x, type: Placeholder, time_us: 0, outputs: [1024], device: 0}"]
prev = "x"
for k in range(K):
    for j in range(J):
        ops.append("  - {name: s%d/op%d, type: MatMul, time_us: %d, outputs: [1024], "
                   "persistent: 4096, group: s%d, device: %d, inputs: [%s]}"
                   % (k, j, T // J, k, k, prev))
        prev = "s%d/op%d" % (k, j)
ops.append("  - {name: loss, type: Loss, time_us: 0, outputs: [4], device: %d, inputs: [%s]}"
           % (K - 1, prev))
open("chain.yaml", "w").write("format: 1\nname: chain\nops:\n" + "\n".join(ops) + "\n")
open("fast.yaml", "w").write(
    "format: 1\nname: fast\ncomm: {slope_us_per_byte: 0.000001, intercept_us: 0}\ndevices:\n"
    + "".join("  - {name: d%d, memory: 1GB}\n" % i for i in range(K)))
PY
"$BAECHI" workload train chain.yaml -o plain.yaml > /dev/null
EOF

for M in 1 2 4 8 16; do
    test_expect_success "--micro-batches $M: the GPipe step within 2 %" - <<'EOF'
expect_exit 0 "$BAECHI" workload train chain.yaml --micro-batches $M -o t$M.yaml
expect_exit 0 "$BAECHI" sim -w t$M.yaml -c fast.yaml --placement given --json
python3 - "$TMPDIR_TEST/out" $M $K $T <<'PY'
import json, sys
step = json.load(open(sys.argv[1]))["step_us"]
M, K, T = map(int, sys.argv[2:5])
want = (M + K - 1) * (T + 2 * T) / M
err = (step - want) / want
print("M=%d step %d us, GPipe %.1f us, %+.2f %%" % (M, step, want, 100 * err))
assert abs(err) <= 0.02, "off the GPipe formula by %.2f %%" % (100 * err)
PY
EOF
done

test_expect_success '--micro-batches 1 is the plain training graph' '
    cmp t1.yaml plain.yaml || { echo "--micro-batches 1 differs from the plain training graph"; exit 1; }
'

# The pipeline is the point: without micro-batches the stages run one after another.
test_expect_success 'without micro-batches the stages run one after another' - <<'EOF'
expect_exit 0 "$BAECHI" sim -w plain.yaml -c fast.yaml --placement given --json
python3 -c "
import json; s = json.load(open('$TMPDIR_TEST/out'))['step_us']
assert s >= 3 * $T * $K, s"
EOF

# Copies, tags and groups in the file.
test_expect_success 'copies, tags, groups and updates in the file' - <<'EOF'
expect_grep '^- \{name: s0/op0/mb3, .*group: s0, .*x-micro-batch: 3' t4.yaml
expect_grep '^- \{name: s0/op0/mb3/grad, ' t4.yaml
if grep -q '^- {name: s0/op0/update' t4.yaml; then :; else echo "no update op"; exit 1; fi
[ "$(grep -c '/update,' t4.yaml)" -eq $((K * 3)) ] || { echo "one update per parameter op"; exit 1; }
EOF

# A generator: GPT with 4 micro-batches has 4 copies of a layer's ops and the
# parameters once.
test_expect_success 'gen gpt --micro-batches 4: 4 copies of a layer, the parameters once' - <<'EOF'
expect_exit 0 "$BAECHI" workload gen gpt --size small -b 8 --micro-batches 4 -o g4.yaml
expect_exit 0 "$BAECHI" workload gen gpt --size small -b 8 -o g1.yaml
python3 - g1.yaml g4.yaml <<'PY'
import sys, yaml
one, four = (yaml.safe_load(open(f)) for f in sys.argv[1:3])
p = lambda w: sum(o.get("persistent", 0) for o in w["ops"] if o.get("phase", "forward") == "forward")
assert p(one) == p(four), (p(one), p(four))
h = lambda w: sum(1 for o in w["ops"] if o["name"].startswith("h0/attn/qkv") and o.get("phase", "forward") == "forward")
assert h(one) == 1 and h(four) == 4, (h(one), h(four))
PY
EOF

test_expect_success '--micro-batches 0 is refused' - <<'EOF'
expect_exit 2 "$BAECHI" workload train chain.yaml --micro-batches 0
expect_grep 'micro-batches' "$TMPDIR_TEST/err"
EOF

test_expect_success '--micro-batches 2000 is refused' '
    expect_exit 2 "$BAECHI" workload gen gpt --micro-batches 2000
'

test_done
