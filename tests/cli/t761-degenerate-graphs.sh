# Degenerate but valid inputs (issue 13, item 13): m-TOPO on ops that all need
# zero bytes places them (it said "infeasible, needs 0 bytes"); an ONNX model
# whose graph is all dangling (tests/data/onnx/dangling-constant.onnx, one
# Constant node and no graph input, 83 bytes written by hand) is refused by
# `workload import` with exit 2 and nothing written, since `workload info`
# would reject the result.
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"

test_expect_success 'setup: ops that all need zero bytes' - <<'EOF'
cat > zero.yaml <<'YAML'
format: 1
name: zero
ops:
  - {name: a, type: Op, time_us: 1, outputs: [0]}
  - {name: b, type: Op, time_us: 2, inputs: ["a:0"], outputs: [0]}
  - {name: c, type: Op, time_us: 2, inputs: ["b:0"]}
YAML
EOF

for p in m-topo m-topo-nonuniform m-etf m-sct; do
    test_expect_success "$p places ops of zero bytes" - <<'EOF'
expect_exit 0 "$BAECHI" place -w zero.yaml -c paper-4gpu-pcie -p $p -o pl.yaml
expect_grep '^  c: 0$' pl.yaml
EOF
done

test_expect_success 'an ONNX model all dangling: exit 2, one line, nothing written' - <<'EOF'
expect_exit 2 "$BAECHI" workload import "$TOP/tests/data/onnx/dangling-constant.onnx" -o d.yaml
expect_grep 'dangling-constant.onnx: .*every op is dangling' "$TMPDIR_TEST/err"
[ "$(wc -l < "$TMPDIR_TEST/err")" -eq 1 ] || { echo "expected one line"; exit 1; }
[ ! -e d.yaml ] || { echo "d.yaml was written"; exit 1; }
EOF

test_done
