# `workload annotate` never writes a file its own loader rejects (issue 13,
# item 8): an event of 1e300 µs, or two of 1e308 µs whose median is inf, is
# refused with exit 2 and one line naming the trace and the op; nothing is
# written and an existing output stays as it was.
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"

test_expect_success 'setup: a workload, two traces out of range, an existing output' - <<'EOF'
cat > w.yaml <<'YAML'
format: 1
name: w
ops:
  - {name: a, type: Op, outputs: [4]}
  - {name: b, type: Op, inputs: ["a:0"]}
YAML
cat > one.json <<'JSON'
{"traceEvents": [{"ph": "X", "name": "a", "cat": "cpu_op", "ts": 0, "dur": 1e300, "pid": 1, "tid": 1}]}
JSON
cat > two.json <<'JSON'
{"traceEvents": [
 {"ph": "X", "name": "a", "cat": "cpu_op", "ts": 0, "dur": 1e308, "pid": 1, "tid": 1},
 {"ph": "X", "name": "a", "cat": "cpu_op", "ts": 0, "dur": 1e308, "pid": 1, "tid": 2}]}
JSON
echo keep > out.yaml
EOF

for t in one.json two.json; do
    test_expect_success "$t: refused with one line, nothing written" - <<'EOF'
expect_exit 2 "$BAECHI" workload annotate w.yaml --profile $t -o out.yaml
expect_grep "^baechi: $t: op 'a': measured time (1e\+300|inf) µs is outside" "$TMPDIR_TEST/err"
[ "$(wc -l < "$TMPDIR_TEST/err")" -eq 1 ] || { echo "expected one line"; exit 1; }
[ "$(cat out.yaml)" = keep ] || { echo "out.yaml was changed"; exit 1; }
expect_exit 2 "$BAECHI" workload annotate w.yaml --profile $t
[ ! -s "$TMPDIR_TEST/out" ] || { echo "written to stdout"; exit 1; }
EOF
done

test_done
