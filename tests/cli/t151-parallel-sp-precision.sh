# check: sanitized-only
# Sequence parallelism (--sp, Korthikanti et al. 2022, as Megatron-LM
# runs it): with --tp, the LayerNorm, dropout and residual regions split
# along the sequence (their tensors 1/T, their parameters whole), the
# row-parallel all-reduces become reduce-scatters and each column-parallel
# layer's input an all-gather (forward, and again in backward for the
# weight gradient), the row-parallel layers' output gradients all-gathers:
# the same bytes as the all-reduces.
#
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

test_expect_success 'sp: reduce-scatters and all-gathers of b x s x h, no all-reduce of them; LN regions 1/T' - <<'EOF'
G2="gpt --layers 2 --d-model 128 --heads 4 --vocab 1024 --batch 2 --seq 64"
"$BAECHI" workload gen $G2 -o s.yaml > /dev/null
expect_exit 0 "$BAECHI" workload parallelize s.yaml --tp 2 --sp -o sp.yaml
r0() { grep "^- {name: r0/" sp.yaml | grep -c "kind: $1, bytes: 65536}" || :; }
# 2 layers: forward 2 + 2 per layer, the embedding's reduce-scatter, the
# head's all-gather; backward per layer 2 reduce-scatters and 4 all-gathers,
# the head's, the embedding's gradient's
test "$(r0 reduce-scatter)" -eq $((2 * 2 + 1 + 2 * 2 + 1))
test "$(r0 all-gather)" -eq $((2 * 2 + 1 + 4 * 2 + 2))
test "$(r0 all-reduce)" -eq 0
out() { grep "^- {name: $1," "$2" | sed 's/.*outputs: \[\([0-9]*\).*/\1/'; }
per() { grep "^- {name: $1," "$2" | sed 's/.*persistent: \([0-9]*\).*/\1/'; }
for op in h0/ln_1 h0/attn/add h1/ln_2 h1/mlp/add ln_f embed/positions; do
    test "$(out r0/$op sp.yaml)" -eq $(( $(out $op s.yaml) / 2 ))
done
test "$(per r0/h0/ln_1 sp.yaml)" -eq "$(per h0/ln_1 s.yaml)"
grep -q "^- {name: r0/h0/ln_1/grad, .*outputs: \[32768, 1024\]" sp.yaml
EOF

test_expect_success 'refusals: --sp without --tp 2 or more' - <<'EOF'
expect_exit 2 "$BAECHI" workload parallelize a.yaml --dp 2 --sp
grep -q -- "--sp .* needs --tp 2 or more" err
EOF

test_done
