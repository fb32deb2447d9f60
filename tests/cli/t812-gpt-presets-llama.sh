# check: once
# t812-gpt-presets-llama.sh - the GPT generator's presets and Llama options
# (issue 31 item 6): GPT-3 (Brown et al. 2020, Table 2.1) and Llama 2
# (Touvron et al. 2023) sizes print their published parameter counts; every
# architecture option (--kv-heads, --mlp, --norm, --pos, --embeddings,
# --bias) changes the graph or is refused, never ignored; tensor
# parallelism refuses a --tp that does not divide the K/V heads; GPT-3 175B
# at batch 1 is generated far below the 1,000,000-op cap.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

test_expect_success 'presets print their published sizes' - <<'EOF2'
# the numbers of docs/workloads.md's preset table
for p in "gpt3-small 125.23" "gpt3-medium 355.87" "gpt3-large 760.30" "gpt3-xl 1315.72" \
         "gpt3-2.7b 2651.55" "gpt3-6.7b 6658.40" "gpt3-13b 12853.39" "gpt3-175b 174604.26" \
         "llama2-7b 6738.42" "llama2-13b 13015.86" "llama2-70b 68976.65"; do
    set -- $p
    "$BAECHI" workload gen gpt --size $1 --forward-only --batch 1 --device none -o p.yaml > p.out
    expect_grep ", $2 M parameters" p.out
done
EOF2

test_expect_success 'GPT-3 175B at batch 1: 3,093 ops, generated whole' - <<'EOF2'
"$BAECHI" workload gen gpt --size gpt3-175b --batch 1 -o g.yaml > g.out
expect_grep "gpt-gpt3-175b_b1: 3093 ops \\(1258 forward, 1256 backward, 579 update\\)" g.out
expect_grep "2.206e\\+06 GFLOP" g.out
# about 0.63 MB of YAML
test "$(wc -c < g.yaml)" -gt 600000 && test "$(wc -c < g.yaml)" -lt 660000
EOF2

# has FILE TYPE NAME: FILE has an op NAME of TYPE
has() { grep -q "{name: $3, type: $2," "$1" || { echo "$1: no $2 op $3"; exit 1; }; }

test_expect_success 'each Llama option changes the graph' - <<'EOF2'
G="gpt --layers 1 --seq 32 --batch 1 --device none --forward-only"
"$BAECHI" workload gen $G -o base.yaml > base.out
"$BAECHI" workload gen $G --mlp swiglu --norm rmsnorm --pos rotary --embeddings untied \
    --bias off --kv-heads 4 -o ll.yaml > ll.out
has ll.yaml SwiGLU h0/mlp/swiglu
has ll.yaml RMSNorm h0/ln_1
has ll.yaml Rotary h0/attn/rotary
has ll.yaml VariableV2 lm_head/w
! grep -q "name: wpe," ll.yaml
has base.yaml Gelu h0/mlp/gelu
has base.yaml LayerNorm h0/ln_1
grep -q "^name: gpt-small_b1_s32_l1_kv4_swiglu_rmsnorm_rotary_untied_biasoff_fwd_untimed" ll.yaml
sed -n '/^x-attention:/,/^[a-z]/p' ll.yaml | grep -q "^  kv_heads: 4$"
! grep -q "^x-attention" base.yaml
# qkv: 768 -> 768 + 2 x 4 x 64 columns, no bias (fp32)
grep -q "{name: h0/attn/qkv, .*outputs: \\[$((32 * 1280 * 4))\\]" ll.yaml
# swiglu: ffn 8d/3 rounded up to 256 = 2048, the fused gate and up 4096 wide
grep -q "{name: h0/mlp/c_fc, .*outputs: \\[$((32 * 4096 * 4))\\]" ll.yaml
for o in "--bias off" "--embeddings untied" "--norm rmsnorm" "--pos rotary"; do
    "$BAECHI" workload gen $G $o -o one.yaml > one.out
    # the summary after the name: ops, parameters, bytes, FLOPs
    [ "$(sed 's/^[^(]*//' base.out)" != "$(sed 's/^[^(]*//' one.out)" ] ||
        { echo "$o: the graph of the default"; cat one.out; exit 1; }
done
EOF2

test_expect_success 'bad values and other models are refused: exit 2' - <<'EOF2'
G="gpt --layers 1 --seq 32 --batch 1 --device none -o x.yaml"
expect_exit 2 "$BAECHI" workload gen $G --mlp relu
expect_grep "parameter 'mlp': expected gelu or swiglu, not 'relu'" "$TMPDIR_TEST/err"
expect_exit 2 "$BAECHI" workload gen $G --kv-heads 5
expect_grep "kv-heads 5 does not divide the 12 query heads" "$TMPDIR_TEST/err"
expect_exit 2 "$BAECHI" workload gen $G --heads 16 --d-model 768 --pos rotary --heads 24 --d-model 744
expect_grep "d_head 31 is odd" "$TMPDIR_TEST/err"
expect_exit 2 "$BAECHI" workload gen transformer --layers 1 --kv-heads 2 -o x.yaml
expect_grep "transformer: --kv-heads, --mlp, --norm, --pos, --embeddings and --bias are options of gpt" "$TMPDIR_TEST/err"
expect_exit 2 "$BAECHI" workload gen gnmt --mlp swiglu -o x.yaml
expect_exit 2 "$BAECHI" workload gen gpt --size llama2-700b -o x.yaml
expect_grep "unknown size 'llama2-700b'" "$TMPDIR_TEST/err"
test ! -e x.yaml
EOF2

test_expect_success 'tensor parallelism: K/V heads / T per rank; T must divide them' - <<'EOF2'
G="gpt --size llama2-70b --layers 1 --seq 128 --batch 1 --device none"
"$BAECHI" workload gen $G --tp 8 -o t8.yaml > t8.out
# qkv 8192 x (8192 + 2 x 8 x 128) fp32 parameters, 1/8 per rank
grep -q "{name: r0/h0/attn/qkv, .*persistent: $((8192 * 10240 * 4 / 8))" t8.yaml
grep -q "{name: r0/h0/mlp/c_fc, .*persistent: $((8192 * 2 * 28672 * 4 / 8))" t8.yaml
expect_exit 2 "$BAECHI" workload gen $G --tp 16 -o t16.yaml
expect_grep "tp 16 does not divide the 8 K/V heads of grouped-query attention" "$TMPDIR_TEST/err"
"$BAECHI" workload gen $G -o t1.yaml > t1.out
expect_exit 2 "$BAECHI" workload parallelize t1.yaml --tp 16 -o t16.yaml
expect_grep "does not divide the 8 K/V heads" "$TMPDIR_TEST/err"
EOF2

test_done
