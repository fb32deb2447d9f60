# check: once
# t775-onnx-nesting.sh - ONNX subgraphs nested 3,000 deep (If nodes whose
# then_branch holds another If, scripts/make-nested-onnx.py, 500 KB) made
# protobuf-c's recursive unpacker overflow the stack (issue 30 item 2):
# `workload import` died with SIGSEGV on an 8 MiB stack, 400 levels on a
# 1 MiB one, and `baechi.import_onnx` killed the Python interpreter.  Now
# the nesting is bounded before unpacking (workloads/onnx_depth.h, at most
# 100 graph levels): deeper files are refused with exit 2 naming the file
# and the depth, from the CLI on 8 MiB and 1 MiB stacks and from Python
# (an exception; the interpreter goes on); 100 levels still import, and
# malformed wire data is refused cleanly.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"
GEN="$TOP/scripts/make-nested-onnx.py"

test_expect_success 'setup: models nested 100, 101, 400 and 3,000 deep, and a cut one' - <<'EOF'
for d in 100 101 400 3000; do python3 "$GEN" $d n$d.onnx; done
python3 "$GEN" 3000 cut.onnx --truncate 4000
python3 "$GEN" 1 types.onnx --types 3000
EOF

for s in 8192 1024; do
    test_expect_success "3,000, 400 and 101 deep refused with exit 2 on a $s KiB stack" - <<EOF
for d in 3000 400 101; do
    expect_exit 2 sh -c "ulimit -s $s && exec \"\$BAECHI\" workload import n\$d.onnx -o o.yaml"
    expect_grep "^baechi: n\$d\\.onnx: ONNX subgraphs nested more than 100 deep" "\$TMPDIR_TEST/err"
done
[ ! -e o.yaml ] || { echo "an output was written"; exit 1; }
EOF
done

test_expect_success 'TypeProto nested 3,000 deep refused with exit 2' - <<'EOF'
expect_exit 2 sh -c 'ulimit -s 1024 && exec "$BAECHI" workload import types.onnx -o o.yaml'
expect_grep 'types\.onnx: ONNX types nested more than 100 deep' "$TMPDIR_TEST/err"
EOF

test_expect_success 'a cut-off deep model is refused as malformed, exit 2' - <<'EOF'
expect_exit 2 sh -c 'ulimit -s 1024 && exec "$BAECHI" workload import cut.onnx -o o.yaml'
expect_grep 'cut\.onnx: not a valid ONNX model \(the protobuf does not parse: .* at byte [0-9]+\)' \
    "$TMPDIR_TEST/err"
EOF

test_expect_success '100 levels, the limit, still import on a 1 MiB stack' - <<'EOF'
expect_exit 0 sh -c 'ulimit -s 1024 && exec "$BAECHI" workload import n100.onnx --train -o o.yaml'
expect_grep 'n100_train: [0-9]+ ops from 1 nodes' "$TMPDIR_TEST/out"
EOF

test_expect_success 'Python: baechi.import_onnx raises, the interpreter goes on' - <<'EOF'
expect_exit 0 env PYTHONPATH="$TOP/python" BAECHI_LIB="$(dirname "$BAECHI")/libbaechi.so" \
    python3 -c '
import baechi
for f in ("n3000.onnx", "n400.onnx", "types.onnx", "cut.onnx"):
    try:
        baechi.import_onnx(f, train=True)
    except baechi.Error as e:
        assert e.code == baechi.ERR_PARSE, (f, e.code)
        assert str(e).startswith(f + ": "), str(e)
        print("refused:", e)
    else:
        raise SystemExit(f + " was imported")
print("alive")
'
expect_grep '^alive$' "$TMPDIR_TEST/out"
expect_grep 'refused: n3000\.onnx: ONNX subgraphs nested more than 100 deep' "$TMPDIR_TEST/out"
EOF

test_done
