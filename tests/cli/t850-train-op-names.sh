# `baechi workload train`: gradient and update names made unique by the one
# helper (workloads/op_names.h) that the ONNX importer uses too, so that two
# ops whose names share their first ~1,023 characters end (the copy in
# train.c cut "<name>/grad_N" back to the taken name and looped forever);
# parameter ops without a time or FLOPs get no gradient, with a warning.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

test_expect_success 'setup: two matmuls named alike over 1,030 characters, a graph without times' - <<'EOF'
python3 - <<'PY'
p = "a" * 1030
ops = ["  - {name: x, type: Placeholder, time_us: 0, outputs: [1024]}",
       "  - {name: %s1, type: MatMul, time_us: 10, outputs: [1024], persistent: 4096, inputs: [x]}" % p,
       "  - {name: %s2, type: MatMul, time_us: 10, outputs: [1024], persistent: 4096, inputs: [%s1]}" % (p, p),
       "  - {name: loss, type: Loss, time_us: 0, outputs: [4], inputs: [%s2]}" % p]
open("long.yaml", "w").write("format: 1\nname: long\nops:\n" + "\n".join(ops) + "\n")
PY
cat > untimed.yaml <<'YAML'
format: 1
name: untimed
ops:
  - {name: x, type: Placeholder, outputs: [1024]}
  - {name: w1, type: MatMul, outputs: [1024], persistent: 4096, inputs: [x]}
  - {name: w2, type: MatMul, outputs: [1024], persistent: 4096, inputs: [w1]}
  - {name: loss, type: Loss, outputs: [4], inputs: [w2]}
YAML
EOF

test_expect_success 'names sharing 1,030 characters: the training graph ends, names unique and cut' - <<'EOF'
# 124: the old loop (timeout ends it)
expect_exit 0 timeout 20 "$BAECHI" workload train long.yaml -o t.yaml
expect_grep '4 forward, 3 backward, 2 update' "$TMPDIR_TEST/out"
# timed parameter ops: no warning
if grep -q warning "$TMPDIR_TEST/err"; then cat "$TMPDIR_TEST/err"; exit 1; fi
expect_exit 0 "$BAECHI" workload info t.yaml
python3 - <<'PY'
import re
names = re.findall(r"name: (a+[^,}]*)", open("t.yaml").read())
# the 2 forward ops, their gradients and their updates
assert len(names) == len(set(names)) == 6, ["%d chars, ends %s" % (len(n), n[-6:]) for n in names]
cut = [n for n in names if len(n) < 1024]
# cut to 1024 - 16 bytes, then "_N"
assert len(cut) == 4 and all(len(n) <= 1024 - 16 + 3 for n in cut), [len(n) for n in cut]
PY
EOF

test_expect_success 'parameter ops without time_us or flops: a warning naming them, still exit 0' - <<'EOF'
expect_exit 0 "$BAECHI" workload train untimed.yaml -o u.yaml
expect_grep '0 backward, 0 update' "$TMPDIR_TEST/out"
expect_grep "warning: training synthesis: 2 ops holding parameters \(first 'w1'\) have neither time_us nor flops" "$TMPDIR_TEST/err"
EOF

test_done
