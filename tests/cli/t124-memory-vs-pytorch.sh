# check: slow once
# The memory model of a training step against PyTorch (issue 11): the bytes
# autograd saves for backward, measured with saved_tensors_hooks on CPU by
# scripts/measure-memory.py into tests/data/pytorch-memory.json (storages
# counted once; parameters, buffers and the input apart), against the
# training graphs the suite builds: generated (Inception-V3, a GPT-2 small
# block) and imported from ONNX (ResNet-50, Inception-V3, MobileNet-V2,
# DenseNet-121, VGG-16, the GPT-2 block, an LSTM seq2seq, a 2-layer GRU,
# two nn.TransformerEncoderLayer and a one-block GPT-2 with its embeddings,
# LM head and cross-entropy loss), each step with the loss a training script
# of the model runs and `workload import --train` adds by default (issue 31
# item 7: cross-entropy for the CNNs and the language model, mse for the
# RNNs, none for the blocks),
# at the fixture's batch, each within
# its own tolerance (below); parameters, gradients and optimizer state of the
# generated models exact.
#
# The tolerance rule: each model's error was measured (MEASURED below, in %
# of PyTorch's bytes; the model and the fixture are deterministic, so it is
# the same on every machine) and may grow to the larger of measured + 0.1
# percentage point and 2 x measured, but never past measured + 1 point:
#     tol = min(max(|m| + 0.1, 2 |m|), |m| + 1)
# A single 5 % for all let real losses through (dropping MaxPool's saved
# indices, 3 MiB of int64 on ResNet-50 and DenseNet-121, still passed).  When
# a change of the memory model moves an error, re-measure and update
# MEASURED in the same commit, saying why.
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"
FIX="$TOP/tests/data/pytorch-memory.json"
ONNX="$TOP/tests/data/onnx"

test_expect_success 'setup: the generated training graphs, each optimizer' - <<'EOF'
"$BAECHI" workload gen inception-v3 -b 2 -o gen-inception_v3.yaml > /dev/null
# the fixture's GPT-2 block has no dropout (p = 0): --dropout 0
"$BAECHI" workload gen gpt --size small --layers 1 -b 1 --dropout 0 -o gen-gpt2_block.yaml \
    > /dev/null
for o in sgd momentum adam; do
    "$BAECHI" workload gen inception-v3 -b 2 --optimizer $o -o gen-inception_v3-$o.yaml > /dev/null
    "$BAECHI" workload gen gpt --size small --layers 1 -b 1 --dropout 0 --optimizer $o \
        -o gen-gpt2_block-$o.yaml > /dev/null
done
EOF

test_expect_success 'setup: the imported training graphs at the fixture batch' - <<'EOF'
# the fixture's batches, "model batch" lines, read by one Python process
python3 -c "import json; [print(x['model'], x['batch']) for x in json.load(open('$FIX'))['models']]" \
    > batches.txt
for m in resnet50 inception_v3 mobilenet_v2 densenet121 vgg16 gpt2_block lstm_seq2seq gru transformer_enc gpt2_lm; do
    b=$(awk -v m="$m" '$1 == m { print $2; exit }' batches.txt)
    [ -n "$b" ] || { echo "no batch for $m in $FIX"; exit 1; }
    "$BAECHI" workload import "$ONNX/$m.onnx" --train -b "$b" -o imp-$m.yaml > /dev/null 2> imp-$m.err ||
        { echo "import of $m failed"; cat imp-$m.err; exit 1; }
done
# without its loss (docs/onnx-import.md quotes it)
"$BAECHI" workload import "$ONNX/gpt2_lm.onnx" --train --loss none -b 1 -o imp-gpt2_lm-none.yaml > /dev/null
EOF

test_expect_success 'saved bytes within each model tolerance of PyTorch; parameters, gradients, optimizer state exact' - <<'EOF'
python3 - "$FIX" <<'PY'
import json, sys, yaml

import os
sys.path.insert(0, os.path.join(os.environ["TOP"], "tests", "cli"))
from wlstorage import load, ref, storage

def saved(path, prefix=""):
    """Bytes of the forward storages a backward op reads, each once,
    without the inputs (placeholders) and the parameters (variables,
    constants); with prefix, only the backward ops of that block and not
    the block's input."""
    w, ops = load(path)
    out = {}
    for o in w["ops"]:
        if o.get("phase") != "backward" or not o["name"].startswith(prefix):
            continue
        for s in o.get("inputs", []):
            if s.startswith("^"):
                continue
            n, p = ref(ops, s)
            src = ops[n]
            if src.get("phase", "forward") != "forward" or \
               src["type"] in ("Placeholder", "VariableV2", "Constant", "Const", "Initializer"):
                continue
            if prefix and not n.startswith(prefix):
                continue  # the block's input: the fixture counts it apart
            r = storage(ops, n, p)
            if ops[r[0]]["type"] in ("VariableV2", "Constant", "Const", "Initializer"):
                continue  # a view of a parameter: held anyway
            out[r] = ops[r[0]]["outputs"][r[1]]
    return sum(out.values())

def state(path, prefix=""):
    w, _ = load(path)
    fwd = [o for o in w["ops"] if o.get("phase", "forward") == "forward" and o["name"].startswith(prefix)]
    upd = [o for o in w["ops"] if o.get("phase") == "update" and o["name"].startswith(prefix)]
    params = sum(o.get("persistent", 0) for o in fwd)
    grads = sum(o["outputs"][-1] for o in w["ops"] if o.get("phase") == "backward"
                and o["name"].startswith(prefix) and
                w["ops"][[x["name"] for x in w["ops"]].index(o["name"][:-len("/grad")])].get("persistent", 0) > 0)
    return params, grads, sum(o.get("persistent", 0) for o in upd)

fix = {m["model"]: m for m in json.load(open(sys.argv[1]))["models"]}
MiB = 2 ** 20
# the errors measured (%, got vs PyTorch), and the rule of the header
# (issue 31 item 7: each step with its loss, the one `workload import
# --train` adds by default: the CNNs keep their logits again, the RNNs'
# mse keeps the prediction, the one-block GPT-2's cross-entropy the
# 206 MB of logits it lost without a loss, -66 % of PyTorch's bytes with
# --loss none; the RNNs keep their per-step gates, 28 bytes per output
# element; nn.MultiheadAttention keeps K, V and the scaled Q, not the
# packed projection: Slice is no view and a Mul / Div by a constant
# saves nothing)
MEASURED = {("inception_v3", "gen"): -0.079, ("gpt2_block", "gen"): -0.017,
            ("resnet50", "import"): -0.124, ("inception_v3", "import"): -0.079,
            ("mobilenet_v2", "import"): -0.094, ("densenet121", "import"): -0.129,
            ("vgg16", "import"): -0.090, ("gpt2_block", "import"): -0.017,
            ("lstm_seq2seq", "import"): -2.556, ("gru", "import"): 0.092,
            ("transformer_enc", "import"): -0.112, ("gpt2_lm", "import"): -0.010,
            ("gpt2_lm", "gen"): -0.010}
def tolerance(m):
    return min(max(abs(m) + 0.1, 2 * abs(m)), abs(m) + 1.0)
rows, bad = [], []
cases = [("inception_v3", "gen", "gen-inception_v3.yaml", ""),
         ("gpt2_block", "gen", "gen-gpt2_block.yaml", "h0/")]
cases += [(m, "import", "imp-%s.yaml" % m, "") for m in
          ("resnet50", "inception_v3", "mobilenet_v2", "densenet121", "vgg16", "gpt2_block",
           "lstm_seq2seq", "gru", "transformer_enc", "gpt2_lm")]
# the whole one-block GPT-2 with its loss: the generated graph, not only its block
cases += [("gpt2_lm", "gen", "gen-gpt2_block.yaml", "")]
for model, how, path, prefix in cases:
    got, want = saved(path, prefix), fix[model]["saved_bytes"]
    err = 100 * (got - want) / want
    tol = tolerance(MEASURED[model, how])
    rows.append("%-13s %-6s saved %8.2f MiB, PyTorch %8.2f MiB, %+6.3f %% (tolerance %.3f %%)" %
                (model, how, got / MiB, want / MiB, err, tol))
    if abs(err) > tol:
        bad.append("%s %s (%+.3f %%, tolerance %.3f %%)" % (model, how, err, tol))
# The imported GPT-2 block (LayerNorm, GELU and the scaled masked softmax
# recognised, shape arithmetic folded, the split a view) as the generated
# one; the LSTM seq2seq -2.6 %: PyTorch copies the transposed input once
# per LSTM (batch_first), the import shares one storage.
# without the loss the language model misses its logits (docs/onnx-import.md)
got, want = saved("imp-gpt2_lm-none.yaml"), fix["gpt2_lm"]["saved_bytes"]
err = 100 * (got - want) / want
rows.append("%-13s import saved %8.2f MiB with --loss none, %+6.1f %%" % ("gpt2_lm", got / MiB, err))
if not -66.0 < err < -65.5:
    bad.append("gpt2_lm --loss none (%+.3f %%, documented -65.8 %%)" % err)
print("\n".join(rows))
assert not bad, "off by more than the tolerance: " + ", ".join(bad)
# parameters, gradients, optimizer state of the generated models: exact
for model, base, prefix in (("inception_v3", "gen-inception_v3", ""), ("gpt2_block", "gen-gpt2_block", "h0/")):
    f = fix[model]
    for opt in ("sgd", "momentum", "adam"):
        p, g, s = state("%s-%s.yaml" % (base, opt), prefix)
        assert p == f["param_bytes"], (model, "params", p, f["param_bytes"])
        assert g == f["grad_bytes"], (model, "grads", g, f["grad_bytes"])
        want = f["optimizer_state_bytes"][opt]
        if opt == "adam":  # without Adam's step counter: 4 B per parameter tensor, not modelled
            want -= f["optimizer_state_bytes"]["adam_step_tensors"]
        assert s == want, (model, opt, s, want)
    print("%-13s gen    parameters, gradients, sgd/momentum/adam state exact" % model)
PY
EOF

test_done
