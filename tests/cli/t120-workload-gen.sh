# `baechi workload gen`: the paper's models and GPT, written in the workload
# format, readable by `workload info`, with the published parameter counts.
. "$TOP/tests/cli/lib.sh"
W=$TMPDIR_TEST

test_expect_success 'gen inception-v3: 817 ops, 23.83 M parameters, readable by workload info' - <<'EOF'
expect_exit 0 "$BAECHI" workload gen inception-v3 -o "$W/inc.yaml"
expect_grep 'inception-v3_b32: 817 ops \(315 forward, 313 backward, 189 update\), 23\.83 M parameters' "$TMPDIR_TEST/out"
expect_exit 0 "$BAECHI" workload info "$W/inc.yaml"
expect_grep 'phases +315 forward, 313 backward, 189 update' "$TMPDIR_TEST/out"
EOF

test_expect_success 'gen inception-v3 --aux --device none: 27.16 M parameters, untimed' - <<'EOF'
expect_exit 0 "$BAECHI" workload gen inception-v3 --aux --forward-only --device none -o "$W/aux.yaml"
expect_grep '27\.16 M parameters' "$TMPDIR_TEST/out"
if grep -q 'time_us' "$W/aux.yaml"; then echo "--device none must leave ops untimed"; exit 1; fi
EOF

test_expect_success 'gen gnmt: 72.84 M parameters' - <<'EOF'
expect_exit 0 "$BAECHI" workload gen gnmt -o "$W/gnmt.yaml"
expect_grep '72\.84 M parameters' "$TMPDIR_TEST/out"
EOF

test_expect_success 'gen transformer --size big' - <<'EOF'
expect_exit 0 "$BAECHI" workload gen transformer --size big -o "$W/tb.yaml"
expect_grep 'transformer-big_b8' "$TMPDIR_TEST/out"
EOF

test_expect_success 'gen gpt --optimizer adam: 124.44 M parameters, ApplyAdam' - <<'EOF'
expect_exit 0 "$BAECHI" workload gen gpt --size small --seq 128 -b 2 --optimizer adam -o "$W/gpt.yaml"
expect_grep '124\.44 M parameters' "$TMPDIR_TEST/out"
expect_grep 'ApplyAdam' "$W/gpt.yaml"
EOF

# to standard output: the summary goes to stderr
test_expect_success 'gen to standard output: the summary goes to stderr' - <<'EOF'
expect_exit 0 "$BAECHI" workload gen gpt --layers 1 --seq 16 -b 1
expect_grep '^format: 1' "$TMPDIR_TEST/out"
expect_grep '^-: gpt-small_b1_s16_l1: 53 ops' "$TMPDIR_TEST/err"
EOF

# synthetic DAGs go to the seeded generator
test_expect_success 'gen synthetic' - <<'EOF'
expect_exit 0 "$BAECHI" workload gen synthetic --shape fork-join --ops 500 --seed 7 -o "$W/s.yaml"
expect_grep '500 ops' "$TMPDIR_TEST/out"
EOF

# bad input: named, exit 2
test_expect_success 'an unknown model is named, exit 2' - <<'EOF'
expect_exit 2 "$BAECHI" workload gen resnet-1001
expect_grep "unknown model 'resnet-1001'" "$TMPDIR_TEST/err"
EOF

test_expect_success 'an unknown size is named, exit 2' - <<'EOF'
expect_exit 2 "$BAECHI" workload gen gpt --size huge
expect_grep "unknown size 'huge'" "$TMPDIR_TEST/err"
EOF

test_expect_success 'an unknown device is named, exit 2' '
    expect_exit 2 "$BAECHI" workload gen gpt --device tpu9
    expect_grep "tpu9" "$TMPDIR_TEST/err"
'

test_expect_success 'a batch of 0: exit 2' '
    expect_exit 2 "$BAECHI" workload gen gpt --batch 0
    expect_grep "integer" "$TMPDIR_TEST/err"
'

test_expect_success '--ops is for synthetic only: exit 2' '
    expect_exit 2 "$BAECHI" workload gen gnmt --ops 5
    expect_grep "synthetic" "$TMPDIR_TEST/err"
'

test_done
