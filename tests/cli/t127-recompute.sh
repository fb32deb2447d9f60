# check: sanitized-only
# Activation recomputation (workloads/recompute.h, --recompute, issue 21):
# with full recomputation four GPT-2 small layers save for backward what
# PyTorch saves with torch.utils.checkpoint over four GPT2Blocks (the
# fixture's gpt2_ckpt4, tests/data/pytorch-memory.json) within 5 %; the
# recomputed forward ops are in the graph (named L/recompute/..., phase
# backward, the layer's group, after the gradient that enters the layer);
# on one device the timed step grows by their time (within 2 %: op times
# are rounded to whole µs, and the simulator overlaps a few of them: 25 µs
# of 1.8 ms with the GEMM size term of the cost model, docs/devices.md); selective recomputation drops exactly the
# attention probabilities (b h s s per layer) from what is saved;
# --explain-memory's saved kind shrinks; import --train and micro-batches
# take the option; bad values are refused.
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"
FIX="$TOP/tests/data/pytorch-memory.json"

test_expect_success 'setup: 4 GPT-2 small layers, batch 1, each recompute mode' - <<'EOF'
for r in none full selective; do
    # --dropout 0: the fixture's blocks have none (t165 checks dropout's masks)
    "$BAECHI" workload gen gpt --size small --layers 4 -b 1 --device h100 --dropout 0 --recompute $r \
        -o gpt-$r.yaml > /dev/null || exit 1
done
EOF

cat > saved.py <<'PY'
import json, re, sys, yaml

import os
sys.path.insert(0, os.path.join(os.environ["TOP"], "tests", "cli"))
from wlstorage import load, ref, storage

def saved(path, layer=re.compile(r"h\d+/")):
    """Bytes of the forward storages of the layers h0.. that backward ops of
    those layers read (the blocks' input, PyTorch's input, apart)."""
    w, ops = load(path)
    out = {}
    for o in w["ops"]:
        if o.get("phase") != "backward" or not layer.match(o["name"]):
            continue
        for s in o.get("inputs", []):
            if s.startswith("^"):
                continue
            n, p = ref(ops, s)
            if ops[n].get("phase", "forward") != "forward" or not layer.match(n):
                continue
            r = storage(ops, n, p)
            out[r] = ops[r[0]]["outputs"][r[1]]
    return sum(out.values())
PY

test_expect_success 'full: saved bytes within 5 % of torch.utils.checkpoint over 4 GPT-2 blocks' - <<'EOF'
python3 - "$FIX" <<'PY'
import json, sys
sys.path.insert(0, ".")
from saved import saved
fix = {m["model"]: m for m in json.load(open(sys.argv[1]))["models"]}
want, got, none = fix["gpt2_ckpt4"]["saved_bytes"], saved("gpt-full.yaml"), saved("gpt-none.yaml")
err = 100.0 * (got - want) / want
print("full: saved %d B, PyTorch checkpoint %d B, %+.3f %%; none: %d B" % (got, want, err, none))
assert abs(err) <= 5, err
assert none > 20 * got, (none, got)  # without recomputation: every layer's activations
PY
EOF

test_expect_success 'full: recomputed ops are backward ops of the layer, after the gradient entering it' - <<'EOF'
python3 - <<'PY'
import yaml
w = yaml.safe_load(open("gpt-full.yaml"))
ops = {o["name"]: o for o in w["ops"]}
rec = [o for o in w["ops"] if "/recompute/" in o["name"]]
names = [o["name"] for o in w["ops"]]
assert rec, "no recomputed op"
for o in rec:
    layer, _, rest = o["name"].partition("/recompute/")
    fwd = ops[layer + "/" + rest]
    assert o["phase"] == "backward" and o["group"] == fwd["group"], o
    assert o["time_us"] == fwd["time_us"] and o["outputs"] == fwd["outputs"], o
    assert o.get("persistent", 0) == 0, o
# h1's recomputation starts after the gradients that h2 sends back
first = ops["h1/recompute/ln_1"]
deps = [s[1:] for s in first["inputs"] if s.startswith("^")]
assert deps and all(d.startswith("h2/") and d.endswith("/grad") for d in deps), deps
# h1's gradient ops read the recomputed copies, not h1's forward outputs
for o in w["ops"]:
    if o["name"].startswith("h1/") and o["name"].endswith("/grad"):
        for s in o["inputs"]:
            n = s.lstrip("^").rpartition(":")[0] or s
            assert not (n.startswith("h1/") and ops[n].get("phase", "forward") == "forward"), (o["name"], s)
# the loss's layer (head) is not recomputed: nothing enters it from outside
assert not any(n.startswith("head/recompute") for n in names)
print(len(rec), "recomputed ops")
PY
EOF

test_expect_success 'selective: only the attention probabilities leave the saved set' - <<'EOF'
python3 - <<'PY'
import sys, yaml
sys.path.insert(0, ".")
from saved import saved
none, sel = saved("gpt-none.yaml"), saved("gpt-selective.yaml")
probs = 4 * 1 * 12 * 1024 * 1024  # fp32, b h s s, per layer
print("none %d B, selective %d B, drop %d B = 4 x %d" % (none, sel, none - sel, probs))
assert none - sel == 4 * probs, (none, sel)
w = yaml.safe_load(open("gpt-selective.yaml"))
rec = sorted(o["name"] for o in w["ops"] if "/recompute/" in o["name"])
assert rec == sorted("h%d/recompute/attn/%s" % (l, x) for l in range(4)
                     for x in ("scores", "softmax")), rec
PY
EOF

test_expect_success 'one device: the step grows by the recomputed forward time; saved kind shrinks' - <<'EOF'
for r in none full selective; do
    "$BAECHI" run -w gpt-$r.yaml -c dgx-h100-8 -k 1 -p m-topo --json --explain-memory \
        > run-$r.json || exit 1
done
python3 - <<'PY'
import json, yaml
step, saved = {}, {}
for r in ("none", "full", "selective"):
    d = json.load(open("run-%s.json" % r))
    step[r] = d["sim"]["timed"]["step_us"]
    saved[r] = d["memory_explain"]["timed"][0]["peak"]["by_kind"]["saved"]
for r in ("full", "selective"):
    w = yaml.safe_load(open("gpt-%s.yaml" % r))
    t = sum(o["time_us"] for o in w["ops"] if "/recompute/" in o["name"])
    grew = step[r] - step["none"]
    print("%-9s step %d us (+%d), recomputed forward %.1f us; saved at the peak %d B (none %d B)"
          % (r, step[r], grew, t, saved[r], saved["none"]))
    assert t > 0 and abs(grew - t) <= 0.02 * t, (r, grew, t)
    assert saved[r] < saved["none"], (r, saved)
PY
EOF

test_expect_success 'import --train and train take --recompute; with micro-batches: one copy per micro-batch' - <<'EOF'
"$BAECHI" workload import "$TOP/tests/data/onnx/two_input.onnx" --train --recompute full \
    -o imp.yaml > /dev/null 2>&1 &&
grep -q "name: /t/encoder/layers.0/recompute/self_attn/MatMul," imp.yaml &&
"$BAECHI" workload gen gpt --size small --layers 2 -b 4 --seq 64 --micro-batches 2 \
    --recompute full -o mb.yaml > /dev/null &&
grep -q "name: h0/recompute/ln_1/mb0," mb.yaml &&
grep -q "name: h0/recompute/ln_1/mb1," mb.yaml &&
"$BAECHI" workload gen gpt --size small --layers 2 -b 1 --seq 64 --forward-only -o fwd.yaml \
    > /dev/null &&
"$BAECHI" workload train fwd.yaml --recompute selective -o tr.yaml > /dev/null &&
# selective, per layer: the scores, the softmax and the dropout on the probabilities
test "$(grep -c "{name: [^,]*/recompute/" tr.yaml)" -eq 6
EOF

test_expect_success 'bad values are refused, naming the value' - <<'EOF'
expect_exit 2 "$BAECHI" workload gen gpt --size small --layers 1 --recompute some -o x.yaml &&
grep -q "unknown recompute mode 'some'" "$TMPDIR_TEST/err" &&
expect_exit 2 "$BAECHI" workload import "$TOP/tests/data/onnx/lstm.onnx" --train --recompute 1 \
    -o y.yaml &&
grep -q "unknown recompute mode '1'" "$TMPDIR_TEST/err" &&
expect_exit 2 "$BAECHI" workload gen gpt --size small --layers 1 --forward-only --recompute full \
    -o z.yaml &&
grep -q -- "--recompute" "$TMPDIR_TEST/err"
EOF

test_done
