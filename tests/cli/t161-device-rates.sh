# check: fast
# The device table (workloads/devices.c, docs/devices.md) is the one source
# of the rates (issue 31 item 1): GEMM-like ops run at the rate of their
# data type (fp16 tensor cores for 2-byte elements, fp32 CUDA cores for
# 4-byte ones, tf32 when named), `--device KIND:DTYPE` chooses the type, a
# bad suffix exits 2 naming it, and a preset and a cluster kind of the same
# GPU give the same step.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

# sum DEVICE [OPTIONS]: the Σ time of GPT-medium b8 in ms
sum() {
    d=$1
    shift
    "$BAECHI" workload gen gpt --size medium -b 8 --device "$d" "$@" -o w.yaml > g.out 2>&1 ||
        { cat g.out; return 1; }
    sed -n 's/.*Σ time \([0-9.]*\) ms$/\1/p' g.out
}

field_of() { # OP FIELD FILE: the value of FIELD of op OP
    awk -v op="- {name: $1," -v k=" $2: " 'index($0, op) == 1 {
        s = substr($0, index($0, k) + length(k)); sub(/,.*/, "", s); print s }' "$3"
}

test_expect_success 'a large fp16 GEMM at 0.8 of the dense tensor-core peak, fp32 at 0.6 of FP32' '
    sum h100 --elem-bytes 2 > /dev/null && t16=$(field_of h0/mlp/c_fc time_us w.yaml) &&
    grep -q "dtype: fp16" w.yaml &&
    f=$(field_of h0/mlp/c_fc flops w.yaml) &&
    awk -v t="$t16" -v f="$f" "BEGIN { want = (f + 989.4e12 * 4e-6) / (989.4e12 * 0.8) * 1e6 + 5
        exit !(t > want - 0.01 && t < want + 0.01) }" &&
    sum h100 > /dev/null && t32=$(field_of h0/mlp/c_fc time_us w.yaml) && grep -q "dtype: fp32" w.yaml &&
    awk -v t="$t32" -v f="$f" "BEGIN { want = (f + 67e12 * 4e-6) / (67e12 * 0.6) * 1e6 + 5
        exit !(t > want - 0.01 && t < want + 0.01) }"
'

test_expect_success 'the suffix chooses the data type: fp16 < tf32 < fp32, fp8 < fp16 on h100' '
    a=$(sum h100:fp16) && b=$(sum h100:tf32) && c=$(sum h100:fp32) && e=$(sum h100:fp8) &&
    echo "fp8 $e fp16 $a tf32 $b fp32 $c" &&
    awk -v a="$a" -v b="$b" -v c="$c" -v e="$e" "BEGIN { exit !(e < a && a < b && b < c) }" &&
    grep -q "dtype: fp8" w.yaml &&
    test "$(sum h100:fp16 --elem-bytes 2)" = "$(sum h100 --elem-bytes 2)" &&
    test "$(sum h100:bf16)" = "$(sum h100:fp16)"
'

test_expect_success 'a bad suffix, or a type the kind lacks: exit 2 naming it' '
    expect_exit 2 "$BAECHI" workload gen gpt --size small --device h100:fp12 -o x.yaml &&
    expect_grep "unknown data type .fp12. \\(known: fp32 tf32 fp16 bf16 fp8\\)" "$TMPDIR_TEST/err" &&
    expect_exit 2 "$BAECHI" workload gen gpt --size small --device v100:bf16 -o x.yaml &&
    expect_grep "v100 has no bf16 units \\(it has: fp32 fp16\\)" "$TMPDIR_TEST/err" &&
    expect_exit 2 "$BAECHI" workload gen gpt --size small --device a100:fp8 -o x.yaml
'

test_expect_success 'one table: --device h100 and the dgx-h100 kind on one GPU give the same step' '
    a=$(sum h100 --elem-bytes 2) && b=$(sum dgx-h100-8 --elem-bytes 2) && echo "$a $b" &&
    test "$a" = "$b" &&
    a=$(sum h200 --elem-bytes 2) && b=$(sum hgx-h200-8:3 --elem-bytes 2) && test "$a" = "$b" &&
    a=$(sum a100-pcie --elem-bytes 2) && b=$(sum pcie-2x4 --elem-bytes 2) && test "$a" = "$b"
'

test_done
