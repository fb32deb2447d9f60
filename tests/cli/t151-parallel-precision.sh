# check: sanitized-only
# The precision options of `workload gen` and `workload parallelize`
# (workloads/parallel.h): --mixed-precision applies on one GPU too (before,
# gen ignored it without a parallel degree: 8 bytes per parameter instead of
# 16 with Adam, 6 + the fp16 gradient's 2), and --fp32-main-grads adds
# Megatron's fp32 main gradients: 2 (fp16 parameters) + 4 (fp32 main
# gradients) + 4 (fp32 master copy) + 8 (Adam) = 18 bytes per parameter,
# and the DDP buckets reduce 4 bytes per parameter; refused without
# --mixed-precision.
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"
GPT="gpt --layers 2 --d-model 128 --heads 4 --vocab 1024 --batch 2 --seq 64 --elem-bytes 2 --optimizer adam"

# per_param FILE: (Σ persistent of parameters + optimizer state) / parameters
per_param() {
    python3 - "$1" <<'PY'
import re, sys
p = u = 0
for line in open(sys.argv[1]):
    m = re.search(r"persistent: (\d+)", line)
    if m and "phase: update" in line:
        u += int(m.group(1))
    elif m and "phase:" not in line:
        p += int(m.group(1))
print(f"{(p + u) / (p / 2):g}")
PY
}

test_expect_success 'one GPU: fp16 Adam 6, mixed precision 14, + fp32 main gradients 18 bytes per parameter' - <<'EOF'
"$BAECHI" workload gen $GPT -o a.yaml > /dev/null
"$BAECHI" workload gen $GPT --mixed-precision -o m.yaml > /dev/null
"$BAECHI" workload gen $GPT --mixed-precision --fp32-main-grads -o f.yaml > /dev/null
test "$(per_param a.yaml)" = 6
test "$(per_param m.yaml)" = 14
test "$(per_param f.yaml)" = 18
EOF

test_expect_success 'dp 2: fp32 main gradients double the bucket bytes' - <<'EOF'
"$BAECHI" workload parallelize a.yaml --dp 2 --mixed-precision -o d.yaml > /dev/null
"$BAECHI" workload parallelize a.yaml --dp 2 --mixed-precision --fp32-main-grads -o e.yaml > /dev/null
sum() { grep "^- {name: r0/.*/ddp/" "$1" | grep -o "kind: all-reduce, bytes: [0-9]*" | awk '{ s += $4 } END { print s }'; }
test "$(sum e.yaml)" = "$(( 2 * $(sum d.yaml) ))"
EOF

test_expect_success 'refusals: --fp32-main-grads without --mixed-precision' - <<'EOF'
expect_exit 2 "$BAECHI" workload gen $GPT --fp32-main-grads
grep -q -- "--fp32-main-grads .* needs --mixed-precision" err
expect_exit 2 "$BAECHI" workload parallelize a.yaml --dp 2 --fp32-main-grads
grep -q -- "needs --mixed-precision" err
EOF

test_done
