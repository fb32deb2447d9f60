# check: once
# t776-import-loss.sh - `workload import --train --loss cross-entropy|mse|none`
# (issue 31 item 7): an ONNX export holds no loss, so the importer adds the
# one a training script of the model would run after its first output, by
# the rule of docs/onnx-import.md ("The loss"): cross-entropy for class
# logits [N, C] and for token logits of a model reading integer ids, mse
# for another output of a linear layer, none for hidden states.  The loss
# keeps its input for backward (the logits, the prediction); a non-default
# loss is in the name; a bad value or --loss without --train is exit 2
# naming the option; the Python API takes loss=.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"
D="$TOP/tests/data/onnx"

# loss_of FILE: the type of the op named loss (none when there is none)
loss_of() {
    sed -n 's/^- {name: loss, type: \([A-Za-z]*\),.*/\1/p' "$1" | grep . || echo none
}

test_expect_success 'the default rule: classes and tokens cross-entropy, a regression head mse, a block none' - <<'EOF'
for m in resnet50:SoftmaxCrossEntropyWithLogits:cross-entropy tiny_gpt:SoftmaxCrossEntropyWithLogits:cross-entropy \
    lstm_seq2seq:MeanSquaredError:mse gpt2_block:none:none transformer_enc:none:none; do
    f=${m%%:*}; rest=${m#*:}; type=${rest%%:*}; name=${rest#*:}
    expect_exit 0 "$BAECHI" workload import "$D/$f.onnx" --train -b 4 -o $f.yaml
    expect_grep "${f}_train_b4: .*, loss $name \(the default\)\$" "$TMPDIR_TEST/out"
    [ "$(loss_of $f.yaml)" = "$type" ] || { echo "$f: loss $(loss_of $f.yaml), want $type"; exit 1; }
done
EOF

test_expect_success 'cross-entropy: int64 labels per row, the gradient keeps the logits' - <<'EOF'
# resnet50 at batch 4: labels 4 x 8 bytes; logits 4 x 1000 x 4 bytes
expect_grep '^- \{name: labels, type: Placeholder, .*outputs: \[32\]\}' resnet50.yaml
expect_grep '^- \{name: loss, type: SoftmaxCrossEntropyWithLogits, .*flops: 20000, outputs: \[4\], inputs: \["/fc/Gemm:0", "labels:0"\]\}' resnet50.yaml
expect_grep '^- \{name: loss/grad, .*phase: backward, inputs: \["loss:0", "/fc/Gemm:0", "labels:0"\]\}' resnet50.yaml
# tiny_gpt at batch 4: 4 x 16 token rows, vocabulary 512
expect_grep '^- \{name: labels, type: Placeholder, .*outputs: \[512\]\}' tiny_gpt.yaml
EOF

test_expect_success 'mse: targets shaped like the output, both kept' - <<'EOF'
# lstm_seq2seq at batch 4: output 4 x 32 x 64 x 4 bytes
expect_grep '^- \{name: targets, type: Placeholder, .*outputs: \[32768\]\}' lstm_seq2seq.yaml
expect_grep '^- \{name: loss/grad, .*inputs: \["loss:0", "[^"]*", "targets:0"\]\}' lstm_seq2seq.yaml
EOF

test_expect_success '--loss overrides the default, and a non-default loss is in the name' - <<'EOF'
expect_exit 0 "$BAECHI" workload import "$D/resnet50.onnx" --train --loss mse -o r-mse.yaml
expect_grep 'resnet50_train_lossmse: .*, loss mse$' "$TMPDIR_TEST/out"
[ "$(loss_of r-mse.yaml)" = MeanSquaredError ]
expect_exit 0 "$BAECHI" workload import "$D/resnet50.onnx" --train --loss none -o r-none.yaml
expect_grep 'resnet50_train_lossnone: .*, loss none$' "$TMPDIR_TEST/out"
[ "$(loss_of r-none.yaml)" = none ]
expect_exit 0 "$BAECHI" workload import "$D/gpt2_block.onnx" --train --loss cross-entropy -o g-ce.yaml
expect_grep 'gpt2_block_train_lossce: .*, loss cross-entropy$' "$TMPDIR_TEST/out"
expect_exit 0 "$BAECHI" workload import "$D/resnet50.onnx" --train --loss cross-entropy -o r-ce.yaml
expect_grep 'resnet50_train: .*, loss cross-entropy \(the default\)$' "$TMPDIR_TEST/out"
EOF

test_expect_success 'the forward graph has no loss' - <<'EOF'
expect_exit 0 "$BAECHI" workload import "$D/resnet50.onnx" -o fwd.yaml
[ "$(loss_of fwd.yaml)" = none ]
expect_grep 'resnet50: 282 ops from 175 nodes' "$TMPDIR_TEST/out"
EOF

test_expect_success 'a bad --loss, or --loss without --train, is exit 2 naming the option' - <<'EOF'
expect_exit 2 "$BAECHI" workload import "$D/resnet50.onnx" --train --loss hinge -o x.yaml
expect_grep "^baechi workload import: --loss: unknown loss 'hinge' \(known: cross-entropy, mse, none\)" "$TMPDIR_TEST/err"
expect_exit 2 "$BAECHI" workload import "$D/resnet50.onnx" --loss mse -o x.yaml
expect_grep 'import: --loss is about the training graph: add --train' "$TMPDIR_TEST/err"
[ ! -e x.yaml ]
EOF

test_expect_success 'Python: import_onnx(loss=...) as the CLI' - <<'EOF'
expect_exit 0 env PYTHONPATH="$TOP/python" BAECHI_LIB="$(dirname "$BAECHI")/libbaechi.so" \
    python3 -c '
import baechi, sys
d = sys.argv[1]
w = baechi.import_onnx(d + "/resnet50.onnx", train=True, batch=4, device="none")
assert "loss" in w.op_names and "labels" in w.op_names, "default cross-entropy"
w = baechi.import_onnx(d + "/resnet50.onnx", train=True, loss="mse", device="none")
assert "targets" in w.op_names, "mse"
w = baechi.import_onnx(d + "/resnet50.onnx", train=True, loss="none", device="none")
assert "loss" not in w.op_names, "none"
for bad in ({"train": True, "loss": "hinge"}, {"loss": "mse"}):
    try:
        baechi.import_onnx(d + "/resnet50.onnx", **bad)
    except baechi.Error as e:
        assert "loss" in str(e), str(e)
        print("refused:", e)
    else:
        raise SystemExit("accepted %r" % bad)
print("ok")
' "$D"
expect_grep '^ok$' "$TMPDIR_TEST/out"
expect_grep "refused: .*unknown loss 'hinge'" "$TMPDIR_TEST/out"
EOF

test_done
