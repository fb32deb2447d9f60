# `baechi workload import`: ONNX fixtures (torchvision exports, weights
# stripped) to workloads; malformed files are rejected with exit 2.
. "$TOP/tests/cli/lib.sh"
W=$TMPDIR_TEST
D=$TOP/tests/data/onnx

test_expect_success 'import resnet50: 282 ops, 25.56 M parameters' - <<'EOF'
expect_exit 0 "$BAECHI" workload import "$D/resnet50.onnx" -o "$W/r.yaml"
expect_grep 'resnet50: 282 ops from 175 nodes, 25\.56 M parameters' "$TMPDIR_TEST/out"
EOF

test_expect_success 'import resnet50 --train: the phases, with the cross-entropy loss' - <<'EOF'
expect_exit 0 "$BAECHI" workload import "$D/resnet50.onnx" --train --batch 32 -o "$W/rt.yaml"
expect_grep 'resnet50_train_b32: 567 ops .*, loss cross-entropy \(the default\)$' "$TMPDIR_TEST/out"
expect_exit 0 "$BAECHI" workload info "$W/rt.yaml"
expect_grep 'phases +284 forward, 176 backward, 107 update' "$TMPDIR_TEST/out"
EOF

test_expect_success 'the imported training graph is placed by m-etf, m-topo and m-sct' '
    for p in m-etf m-topo m-sct; do
        expect_exit 0 "$BAECHI" run -w "$W/rt.yaml" -c paper-4gpu-pcie -p $p
    done
'

test_expect_success 'import tiny_gpt' - <<'EOF'
expect_exit 0 "$BAECHI" workload import "$D/tiny_gpt.onnx" -o "$W/g.yaml"
expect_grep '0\.13 M parameters' "$TMPDIR_TEST/out"
EOF

# malformed: not a protobuf, a truncated model, a node reading nothing
test_expect_success 'not a protobuf: exit 2' - <<'EOF'
printf 'not an onnx model\377\377' > "$W/garbage.onnx"
expect_exit 2 "$BAECHI" workload import "$W/garbage.onnx"
expect_grep 'garbage.onnx: not a valid ONNX model' "$TMPDIR_TEST/err"
EOF

test_expect_success 'a truncated model: exit 2' - <<'EOF'
head -c 1000 "$D/resnet50.onnx" > "$W/trunc.onnx"
expect_exit 2 "$BAECHI" workload import "$W/trunc.onnx"
expect_grep 'trunc.onnx' "$TMPDIR_TEST/err"
EOF

test_expect_success 'a node reading nothing: exit 2' - <<'EOF'
expect_exit 2 "$BAECHI" workload import "$D/bad-missing-input.onnx"
expect_grep "node 'add0' \(Add\): input 'missing' is not produced" "$TMPDIR_TEST/err"
EOF

test_expect_success 'a missing file: exit 2' - <<'EOF'
expect_exit 2 "$BAECHI" workload import "$W/none.onnx"
expect_grep 'none.onnx' "$TMPDIR_TEST/err"
EOF

test_done
