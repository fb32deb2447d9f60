#!/bin/sh
# t620: `baechi workload annotate W --profile trace.json` sets per-op times
# from a PyTorch profiler Chrome trace, reports unmatched ops; bad traces
# exit 2 with file:line:col.
. "$TOP/tests/cli/lib.sh"
W="$TOP/tests/data/cal-annotate.yaml"
T="$TOP/tests/data/cal-trace.json"

test_expect_success 'annotate: 4 of 5 ops timed, the unmatched named' - <<'EOF'
expect_exit 0 "$BAECHI" workload annotate "$W" --profile "$T" -o "$TMPDIR_TEST/a.yaml"
expect_grep '4 of 5 ops timed' "$TMPDIR_TEST/out"
expect_grep '1 unmatched ops keep their time_us: D$' "$TMPDIR_TEST/out"
expect_grep 'name: A, type: MatMul, time_us: 17.5' "$TMPDIR_TEST/a.yaml"
expect_grep 'name: B, type: Add, time_us: 33' "$TMPDIR_TEST/a.yaml"
expect_grep 'name: r2, type: Relu, time_us: 5' "$TMPDIR_TEST/a.yaml"
expect_grep 'name: D, type: Softmax, time_us: 7' "$TMPDIR_TEST/a.yaml"
EOF

# the annotated workload is a valid workload
test_expect_success 'the annotated workload is a valid workload' '
    expect_exit 0 "$BAECHI" workload info "$TMPDIR_TEST/a.yaml"
'

# to stdout, options after the operand or before it
test_expect_success 'to stdout, options before the operand' - <<'EOF'
expect_exit 0 "$BAECHI" workload annotate --profile "$T" "$W"
expect_grep '^format: 1' "$TMPDIR_TEST/out"
expect_grep 'ops timed' "$TMPDIR_TEST/err"
EOF

test_expect_success 'a bad trace: exit 2 with file:line:col' - <<'EOF'
printf '{"traceEvents": [\n  {"ph": "X",, }\n]}\n' > "$TMPDIR_TEST/bad.json"
expect_exit 2 "$BAECHI" workload annotate "$W" --profile "$TMPDIR_TEST/bad.json"
expect_grep "bad.json:2:[0-9]+: not a JSON trace" "$TMPDIR_TEST/err"
EOF

test_expect_success 'a missing trace: exit 2' '
    expect_exit 2 "$BAECHI" workload annotate "$W" --profile "$TMPDIR_TEST/missing.json"
'

test_expect_success 'no --profile: exit 2' '
    expect_exit 2 "$BAECHI" workload annotate "$W"
    expect_grep "profile is required" "$TMPDIR_TEST/err"
'

test_expect_success 'no workload: exit 2' '
    expect_exit 2 "$BAECHI" workload annotate --profile "$T"
'

test_expect_success 'two workloads: exit 2' '
    expect_exit 2 "$BAECHI" workload annotate "$W" "$W" --profile "$T"
'

test_done
