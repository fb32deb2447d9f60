# `baechi workload train` on the shipped GNMT forward profile: gradient ops,
# updates, and a graph that `workload info` and the placers accept.
. "$TOP/tests/cli/lib.sh"
W=$TMPDIR_TEST

test_expect_success 'workload train: gradients and updates, readable, placeable' - <<'EOF'
expect_exit 0 "$BAECHI" workload train "$GNMT" --optimizer adam -o "$W/t.yaml"
expect_grep 'gnmt_v2_b128_fwd_train: 4103 ops \(2828 forward, 1251 backward, 24 update\), 72\.84 M parameters' "$TMPDIR_TEST/out"
expect_exit 0 "$BAECHI" workload info "$W/t.yaml"
expect_grep 'phases +[0-9]+ forward, 1251 backward, 24 update' "$TMPDIR_TEST/out"
expect_grep 'encoder/embedding/grad' "$W/t.yaml"
expect_grep 'ApplyAdam' "$W/t.yaml"
expect_exit 0 "$BAECHI" run -w "$W/t.yaml" -c paper-4gpu-pcie -p m-etf
EOF

test_expect_success 'an unknown optimizer is named, exit 2' - <<'EOF'
expect_exit 2 "$BAECHI" workload train "$GNMT" --optimizer lamb
expect_grep "unknown optimizer 'lamb'" "$TMPDIR_TEST/err"
EOF

test_expect_success 'a missing file is named, exit 2' - <<'EOF'
expect_exit 2 "$BAECHI" workload train "$W/nope.yaml"
expect_grep 'nope.yaml' "$TMPDIR_TEST/err"
EOF

test_done
