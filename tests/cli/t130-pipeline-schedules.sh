# check: sanitized-only
# Pipeline schedules and tied weights (core/pipeline.h, sim/sim_sched.c,
# docs/micro-batches.md): the training synthesis writes x-pipeline (default
# 1f1b), run and sim override it, bad values are refused; GPT-small on 4
# PCIe GPUs, whose tied wte/lm_head gradient is exchanged once a step: the
# step falls with M from 1 to 8 and each is within 10 % of the pipeline
# prediction from the placement's per-stage times:
#   Σ_s t_s / M + (M - 1) max_s t_s / M          (t_s: stage s's busy time)
#   + max(0, X_fwd - t_0 / (3 M))                (the tied weight's read holds
#                                                 stage 0's send engine, FCFS,
#                                                 before its first forward ends)
#   + X_grad                                     (the gradient exchange, once)
# X_* are those two transfers' times in the trace.
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"

test_expect_success 'gen --micro-batches writes x-pipeline, 1f1b by default' - <<'EOF'
expect_exit 0 "$BAECHI" workload gen gpt --size small -b 8 --seq 512 --micro-batches 2 -o g2.yaml
expect_grep '^  schedule: 1f1b$' g2.yaml
expect_exit 0 "$BAECHI" workload gen gpt --size small -b 8 --seq 512 --micro-batches 2 --schedule gpipe -o g2g.yaml
expect_grep '^  schedule: gpipe$' g2g.yaml
expect_exit 0 "$BAECHI" workload gen gpt --size small -b 8 --seq 512 -o g1.yaml
if grep -q x-pipeline g1.yaml; then echo "no micro-batches, no x-pipeline"; exit 1; fi
EOF

test_expect_success 'the tied weight: wte/grad reads one sum per consumer' - <<'EOF'
expect_grep 'name: wte/grad, .*inputs: \["embed/tokens/mb1/grad:0", "lm_head/mb1/grad:1"\]' g2.yaml
expect_grep 'name: lm_head/mb1/grad, .*"lm_head/mb0/grad:1"' g2.yaml
EOF

test_expect_success 'bad schedules are refused' - <<'EOF'
expect_exit 2 "$BAECHI" workload gen gpt --micro-batches 2 --schedule zigzag
expect_grep 'zigzag' "$TMPDIR_TEST/err"
expect_exit 2 "$BAECHI" run -w g2.yaml -c paper-4gpu-pcie -p m-topo --virtual-stages 0
expect_exit 2 "$BAECHI" run -w g2.yaml -c paper-4gpu-pcie -p m-topo --virtual-stages 2
expect_grep 'interleaved' "$TMPDIR_TEST/err"
EOF

test_expect_success 'run --schedule overrides the file: gpipe holds more than 1f1b' - <<'EOF'
expect_exit 0 "$BAECHI" run -w g2.yaml -c paper-4gpu-pcie -p m-topo --json --schedule gpipe
cp "$TMPDIR_TEST/out" gp.json
expect_exit 0 "$BAECHI" run -w g2g.yaml -c paper-4gpu-pcie -p m-topo --json --schedule 1f1b
cp "$TMPDIR_TEST/out" f1.json
expect_exit 0 "$BAECHI" run -w g2g.yaml -c paper-4gpu-pcie -p m-topo --json
cp "$TMPDIR_TEST/out" gp2.json
python3 - <<'PY'
import json
gp, f1, gp2 = (json.load(open(f))["sim"]["timed"] for f in ("gp.json", "f1.json", "gp2.json"))
assert gp == gp2, "--schedule gpipe is the file's gpipe"
# every device holds no more under 1f1b, one less (with 2 micro-batches
# the first stage holds both in either schedule: its warm-up is min(p-1, m))
pk = lambda r: [d["peak_bytes"] for d in r["devices"]]
assert all(a <= b for a, b in zip(pk(f1), pk(gp))) and pk(f1) != pk(gp), (pk(f1), pk(gp))
PY
EOF

test_expect_success 'GPT-small, 4 PCIe GPUs: the step falls with M, within 10 % of the prediction' - <<'EOF'
for M in 1 2 4 8; do
    expect_exit 0 "$BAECHI" workload gen gpt --size small -b 8 --seq 512 --micro-batches $M -o s$M.yaml
    expect_exit 0 "$BAECHI" run -w s$M.yaml -c paper-4gpu-pcie -p m-topo --json --trace tr$M.json
    cp "$TMPDIR_TEST/out" r$M.json
done
python3 - <<'PY'
import json
last = None
for M in (1, 2, 4, 8):
    t = json.load(open("r%d.json" % M))["sim"]["timed"]
    busy = [d["busy_us"] for d in t["devices"] if d["busy_us"] > 0]
    ev = json.load(open("tr%d.json" % M))
    ev = ev["traceEvents"] if isinstance(ev, dict) else ev
    dur = lambda name: max([e["dur"] for e in ev if e.get("cat") == "send" and e["name"] == name] or [0])
    x_fwd, x_grad = dur("wte:0"), dur("lm_head/mb%d/grad:1" % (M - 1) if M > 1 else "lm_head/grad:1")
    pred = sum(busy) / M + (M - 1) * max(busy) / M + max(0, x_fwd - busy[0] / (3 * M)) + x_grad
    err = (t["step_us"] - pred) / pred
    print("M=%d step %.1f ms, prediction %.1f ms (stages %s ms, tied weight %.1f + %.1f ms), %+.1f %%"
          % (M, t["step_us"] / 1e3, pred / 1e3, " ".join("%.1f" % (b / 1e3) for b in busy),
             x_fwd / 1e3, x_grad / 1e3, 100 * err))
    assert abs(err) <= 0.10, "M=%d off the prediction by %+.1f %%" % (M, 100 * err)
    assert last is None or t["step_us"] < last, "M=%d is not faster than M/2" % M
    last = t["step_us"]
PY
EOF

test_done
