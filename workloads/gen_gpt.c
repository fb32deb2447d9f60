/*
 * gen_gpt.c - decoder-only transformers: GPT-2 (Radford et al. 2019), the
 * GPT-3 family (Brown et al. 2020) and Llama-2 (Touvron et al. 2023) as
 * size presets of one generator whose architecture options the presets set
 * and the command line overrides (gen.h, struct gen_opts):
 *
 *   token embedding, then learned positions (GPT) or none (rotary: Llama);
 *   per layer: norm, fused QKV projection (grouped-query attention: Q of
 *   d, K and V of kv_heads x d_head each), rotary embedding of Q and K
 *   (rotary), causal attention, output projection, residual Add; norm, MLP
 *   (GELU: d -> ffn -> d; SwiGLU: gate and up fused in one d -> 2 ffn
 *   matmul, as Megatron-LM's --swiglu, then SiLU(gate) x up, then
 *   ffn -> d), residual Add; a final norm and the LM head, tied to the
 *   token embedding (GPT) or its own table (Llama).  Norms are LayerNorm
 *   (GPT) or RMSNorm (Llama: a scale, no mean, no bias); biases in the
 *   linear layers as GPT, none as Llama.
 *
 * Sizes (gen_gpt_preset(); docs/workloads.md has the table and sources):
 * GPT-2 small 12/768/12 (124,439,808 parameters with the 50,257-token
 * vocabulary and 1,024 positions), medium 24/1024/16, large 36/1280/20,
 * xl 48/1600/25, 2.7b 32/2560/32, 6.7b 32/4096/32 at 1,024 positions;
 * GPT-3 (Table 2.1) at 2,048; Llama-2 7B, 13B, 70B at 4,096.  Sequence =
 * the context and micro-batch 8 by default.
 *
 * Dropout (o->dropout; default as the model was trained: 0.1 for GPT-2 and
 * GPT-3 as Megatron-LM trains them, 0 for Llama-2) after the embeddings,
 * on the attention probabilities, and on the attention projection and the
 * MLP output, fused with their residual Add (DropoutAdd, Megatron's
 * bias_dropout_add): the masks backward keeps (Korthikanti et al. 2022,
 * §4.1); 0 adds no dropout op.
 *
 * deviation: the causal mask is part of the softmax op (5 FLOPs per score,
 * masked ones included, as dense kernels compute them).
 * deviation: GPT-3's alternating locally banded sparse attention layers
 * are dense here (the paper gives no band width); its parameters do not
 * depend on it.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/gen.h"

#include "core/err.h"
#include "core/strbuf.h"
#include "workloads/gen_build.h"

#include <stdio.h>
#include <string.h>

/* name, layers, d, heads, kv_heads, ffn, vocab, context, mlp, norm, pos, tied, bias, dropout,
 * nominal parameters, source */
#define GPT2(n, l, d, h, nominal)                                                                  \
    {                                                                                              \
        n, l, d, h, h, 4 * (d), 50257, 1024, GEN_MLP_GELU, GEN_NORM_LAYERNORM, GEN_POS_LEARNED,    \
            true, true, 0.1, nominal, "GPT-2 (Radford et al. 2019; Hugging Face configs)"          \
    }
#define GPT3(n, l, d, h, nominal)                                                                  \
    {                                                                                              \
        n, l, d, h, h, 4 * (d), 50257, 2048, GEN_MLP_GELU, GEN_NORM_LAYERNORM, GEN_POS_LEARNED,    \
            true, true, 0.1, nominal, "GPT-3 (Brown et al. 2020, Table 2.1)"                       \
    }
#define LLAMA2(n, l, d, h, kv, ffn, nominal)                                                       \
    {                                                                                              \
        n, l, d, h, kv, ffn, 32000, 4096, GEN_MLP_SWIGLU, GEN_NORM_RMSNORM, GEN_POS_ROTARY, false, \
            false, 0, nominal, "Llama 2 (Touvron et al. 2023, Table 1; model cards)"               \
    }

static const struct gen_gpt_preset presets[] = {
    GPT2("small", 12, 768, 12, 124439808),
    GPT2("medium", 24, 1024, 16, 354823168),
    GPT2("large", 36, 1280, 20, 774030080),
    GPT2("xl", 48, 1600, 25, 1557611200),
    GPT2("2.7b", 32, 2560, 32, 0),
    GPT2("6.7b", 32, 4096, 32, 0),
    GPT3("gpt3-small", 12, 768, 12, 125e6),
    GPT3("gpt3-medium", 24, 1024, 16, 350e6),
    GPT3("gpt3-large", 24, 1536, 16, 760e6),
    /* deviation: Table 2.1 writes 24 heads of d_head 128 for d_model 2048 (24 x 128 = 3072):
     * 16 heads of 128 here, the d_head it gives (parameters do not depend on heads) */
    GPT3("gpt3-xl", 24, 2048, 16, 1.3e9),
    GPT3("gpt3-2.7b", 32, 2560, 32, 2.7e9),
    GPT3("gpt3-6.7b", 32, 4096, 32, 6.7e9),
    /* deviation: Table 2.1 writes d_model 5140 with 40 heads of 128: 5120 = 40 x 128 here */
    GPT3("gpt3-13b", 40, 5120, 40, 13.0e9),
    GPT3("gpt3-175b", 96, 12288, 96, 175.0e9),
    LLAMA2("llama2-7b", 32, 4096, 32, 32, 11008, 6.74e9),
    LLAMA2("llama2-13b", 40, 5120, 40, 40, 13824, 13.0e9),
    LLAMA2("llama2-70b", 80, 8192, 64, 8, 28672, 69.0e9),
};

#define N_PRESETS (sizeof(presets) / sizeof(presets[0]))

/* The sizes' names (gen_gpt_sizes()), in the order of presets[]. */
static const char *const size_names[] = {
    "small",      "medium",      "large",      "xl",         "2.7b",       "6.7b",
    "gpt3-small", "gpt3-medium", "gpt3-large", "gpt3-xl",    "gpt3-2.7b",  "gpt3-6.7b",
    "gpt3-13b",   "gpt3-175b",   "llama2-7b",  "llama2-13b", "llama2-70b", NULL};

_Static_assert(N_PRESETS == sizeof(size_names) / sizeof(size_names[0]) - 1, "one size per name");

const char *const *gen_gpt_sizes(void)
{
    return size_names;
}

const struct gen_gpt_preset *gen_gpt_preset(const char *name)
{
    for (size_t i = 0; i < N_PRESETS; i++) {
        if (strcmp(presets[i].name, name) == 0) {
            return &presets[i];
        }
    }
    return NULL;
}

/* The architecture of one generated model: the preset with the options. */
struct arch {
    int64_t batch, seq, layers, d, heads, kv_heads, ffn, vocab;
    bool swiglu, rms, rotary, tied, bias;
};

/* A norm of rows x d: LayerNorm (a scale and a bias, or the scale alone
 * without biases; 5 FLOPs per element) or RMSNorm (a scale; 4: square,
 * mean, rsqrt and scale per element). */
static int norm(struct gb *b, int32_t *out, int32_t x, const struct arch *a, const char *name)
{
    int64_t elems = a->batch * a->seq * a->d;

    if (a->rms) {
        return gb_op(b, out, "RMSNorm", 4.0 * (double)elems, a->d, &elems, 1, &(struct gb_in){x, 0},
                     1, "%s", name);
    }
    return gb_op(b, out, "LayerNorm", 5.0 * (double)elems, a->bias ? 2 * a->d : a->d, &elems, 1,
                 &(struct gb_in){x, 0}, 1, "%s", name);
}

/*
 * Causal self-attention with kv_heads K/V heads (= heads: multi-head;
 * fewer: grouped-query, each shared by heads / kv_heads query heads): the
 * fused QKV projection d -> d + 2 kv d_head, rotary on Q and K, scores and
 * context (multiply-adds independent of kv_heads), the output projection.
 */
static int attention(struct gb *b, int32_t *out, int32_t x, const struct arch *a, int64_t l)
{
    int64_t rows = a->batch * a->seq, dh = a->d / a->heads, kv = a->kv_heads * dh;
    int64_t score = a->batch * a->heads * a->seq * a->seq, qk = rows * (a->d + kv);
    double macs = (double)a->batch * (double)a->seq * (double)a->seq * (double)a->d;
    int32_t qkv, rot, sc, probs, ctx;
    struct strbuf nm = STRBUF_INIT;
    int rc;

    CHECK(strbuf_setf(&nm, "h%lld/attn/qkv", (long long)l));
    if ((rc = gb_linear(b, &qkv, (struct gb_in){x, 0}, rows, a->d, a->d + 2 * kv, a->bias, -1,
                        nm.buf))) {
        goto cleanup;
    }
    rot = qkv;
    /* rotary: x cos + rotate(x) sin on Q and K, 3 FLOPs per element; cos and sin are
     * constants (a table of seq x d_head), not parameters */
    if (a->rotary && (rc = gb_op(b, &rot, "Rotary", 3.0 * (double)qk, 0, &qk, 1,
                                 &(struct gb_in){qkv, 0}, 1, "h%lld/attn/rotary", (long long)l))) {
        goto cleanup;
    }
    CHECK(strbuf_setf(&nm, "h%lld/attn/scores", (long long)l));
    if ((rc =
             gb_bmm(b, &sc, (struct gb_in){rot, 0}, (struct gb_in){rot, 0}, macs, score, nm.buf))) {
        goto cleanup;
    }
    CHECK(strbuf_setf(&nm, "h%lld/attn/softmax", (long long)l));
    if ((rc = gb_eltwise(b, &probs, "Softmax", &(struct gb_in){sc, 0}, 1, score, 5, nm.buf))) {
        goto cleanup;
    }
    CHECK(strbuf_setf(&nm, "h%lld/attn/dropout", (long long)l));
    if ((rc = gb_dropout(b, &probs, (struct gb_in){probs, 0}, score, nm.buf))) {
        goto cleanup;
    }
    CHECK(strbuf_setf(&nm, "h%lld/attn/context", (long long)l));
    if ((rc = gb_bmm(b, &ctx, (struct gb_in){probs, 0}, (struct gb_in){qkv, 0}, macs, rows * a->d,
                     nm.buf))) {
        goto cleanup;
    }
    CHECK(strbuf_setf(&nm, "h%lld/attn/out", (long long)l));
    rc = gb_linear(b, out, (struct gb_in){ctx, 0}, rows, a->d, a->d, a->bias, -1, nm.buf);
cleanup:
    strbuf_release(&nm);
    return rc;
}

/* The MLP: GELU (d -> ffn -> d) or SwiGLU (gate and up fused, d -> 2 ffn;
 * SiLU(gate) x up, 5 FLOPs per output element; ffn -> d). */
static int mlp(struct gb *b, int32_t *out, int32_t x, const struct arch *a, int64_t l)
{
    int64_t rows = a->batch * a->seq, up = a->swiglu ? 2 * a->ffn : a->ffn;
    int32_t h, g;
    struct strbuf nm = STRBUF_INIT;
    int rc;

    CHECK(strbuf_setf(&nm, "h%lld/mlp/c_fc", (long long)l));
    if ((rc = gb_linear(b, &h, (struct gb_in){x, 0}, rows, a->d, up, a->bias, -1, nm.buf))) {
        goto cleanup;
    }
    if (a->swiglu) {
        CHECK(strbuf_setf(&nm, "h%lld/mlp/swiglu", (long long)l));
        rc = gb_eltwise(b, &g, "SwiGLU", &(struct gb_in){h, 0}, 1, rows * a->ffn, 5, nm.buf);
    } else {
        CHECK(strbuf_setf(&nm, "h%lld/mlp/gelu", (long long)l));
        rc = gb_eltwise(b, &g, "Gelu", &(struct gb_in){h, 0}, 1, rows * a->ffn, 8, nm.buf);
    }
    if (rc) {
        goto cleanup;
    }
    CHECK(strbuf_setf(&nm, "h%lld/mlp/c_proj", (long long)l));
    rc = gb_linear(b, out, (struct gb_in){g, 0}, rows, a->ffn, a->d, a->bias, -1, nm.buf);
cleanup:
    strbuf_release(&nm);
    return rc;
}

static int block(struct gb *b, int32_t *x, const struct arch *a, int64_t l)
{
    int64_t elems = a->batch * a->seq * a->d;
    int32_t ln, y;
    struct strbuf nm = STRBUF_INIT;
    int rc;

    gb_group(b, "h%lld/attn", (long long)l);
    CHECK(strbuf_setf(&nm, "h%lld/ln_1", (long long)l));
    if ((rc = norm(b, &ln, *x, a, nm.buf)) || (rc = attention(b, &y, ln, a, l))) {
        goto cleanup;
    }
    CHECK(strbuf_setf(&nm, "h%lld/attn/add", (long long)l));
    if ((rc = gb_dropout_add(b, x, (struct gb_in){y, 0}, (struct gb_in){*x, 0}, elems, nm.buf))) {
        goto cleanup;
    }
    gb_group(b, "h%lld/mlp", (long long)l);
    CHECK(strbuf_setf(&nm, "h%lld/ln_2", (long long)l));
    if ((rc = norm(b, &ln, *x, a, nm.buf)) || (rc = mlp(b, &y, ln, a, l))) {
        goto cleanup;
    }
    CHECK(strbuf_setf(&nm, "h%lld/mlp/add", (long long)l));
    rc = gb_dropout_add(b, x, (struct gb_in){y, 0}, (struct gb_in){*x, 0}, elems, nm.buf);
cleanup:
    strbuf_release(&nm);
    return rc;
}

/* The preset with o's options over it, checked: 0 or BAECHI_EINVAL. */
static int gpt_arch(struct arch *a, const struct gen_gpt_preset *p, const struct gen_opts *o)
{
    a->layers = o->layers > 0 ? o->layers : p->layers;
    a->d = o->d_model > 0 ? o->d_model : p->d;
    a->heads = o->heads > 0 ? o->heads : p->heads;
    /* a preset's grouping is kept with other heads only when it is multi-head */
    a->kv_heads = o->kv_heads > 0           ? o->kv_heads
                  : p->kv_heads == p->heads ? a->heads
                  : o->heads > 0            ? a->heads
                                            : p->kv_heads;
    a->swiglu = o->mlp ? o->mlp == GEN_MLP_SWIGLU : p->mlp == GEN_MLP_SWIGLU;
    a->rms = o->norm ? o->norm == GEN_NORM_RMSNORM : p->norm == GEN_NORM_RMSNORM;
    a->rotary = o->pos ? o->pos == GEN_POS_ROTARY : p->pos == GEN_POS_ROTARY;
    a->tied = o->tied ? o->tied == GEN_SWITCH_ON : p->tied;
    a->bias = o->bias ? o->bias == GEN_SWITCH_ON : p->bias;
    /* the ffn width: given, the preset's for its own width and MLP, else the rule of the
     * MLP: 4d (GELU), Llama's 2/3 x 4d rounded up to a multiple of 256 (SwiGLU) */
    if (o->ffn > 0) {
        a->ffn = o->ffn;
    } else if (a->d == p->d && a->swiglu == (p->mlp == GEN_MLP_SWIGLU)) {
        a->ffn = p->ffn;
    } else {
        a->ffn = a->swiglu ? (8 * a->d / 3 + 255) / 256 * 256 : 4 * a->d;
    }
    a->vocab = o->vocab > 0 ? o->vocab : p->vocab;
    a->batch = o->batch > 0 ? o->batch : 8;
    a->seq = o->seq > 0 ? o->seq : p->ctx;
    if (a->d % a->heads != 0) {
        return err_set(BAECHI_EINVAL, "gpt: d_model %lld is not a multiple of %lld heads",
                       (long long)a->d, (long long)a->heads);
    }
    if (a->kv_heads > a->heads || a->heads % a->kv_heads != 0) {
        return err_set(BAECHI_EINVAL,
                       "gpt: --kv-heads %lld does not divide the %lld query heads (grouped-query "
                       "attention shares each K/V head among heads / kv-heads of them)",
                       (long long)a->kv_heads, (long long)a->heads);
    }
    if (a->rotary && (a->d / a->heads) % 2 != 0) {
        return err_set(BAECHI_EINVAL,
                       "gpt: rotary embeddings rotate pairs of dimensions: d_head %lld is odd",
                       (long long)(a->d / a->heads));
    }
    return 0;
}

/* Grouped-query attention's head counts as a top-level extension
 * (`x-attention: {heads: H, kv_heads: K}`): tensor parallelism splits K/V
 * heads and must refuse a T that does not divide K (parallel_tp.c). */
static int note_heads(struct workload *w, const struct arch *a)
{
    char h[24], k[24], kh[] = "heads", kk[] = "kv_heads";
    char *keys[] = {kh, kk};
    struct yval items[] = {{.kind = YVAL_SCALAR, .scalar = h}, {.kind = YVAL_SCALAR, .scalar = k}};
    struct yval v = {.kind = YVAL_MAP, .n = 2, .keys = keys, .items = items};

    snprintf(h, sizeof(h), "%lld", (long long)a->heads);
    snprintf(k, sizeof(k), "%lld", (long long)a->kv_heads);
    return workload_set_top_ext(w, "x-attention", &v);
}

int gen_gpt(struct workload *w, const struct gen_opts *o, struct gen_info *info)
{
    const struct gen_gpt_preset *p = gen_gpt_preset(o->size ? o->size : "small");
    struct arch a;
    int64_t rows, ids, wte_e, wpe_e, one = 1;
    int32_t tok, labels, wte, wpe, head, e, x, lnf, logits, loss;
    struct gb b;
    int rc;

    if (!p) {
        return gb_unknown_size("gpt", o->size, size_names);
    }
    if ((rc = gpt_arch(&a, p, o))) {
        return rc;
    }
    rows = a.batch * a.seq;
    ids = rows;
    wte_e = a.vocab * a.d;
    wpe_e = (a.seq > p->ctx ? a.seq : p->ctx) * a.d;

    gb_init(&b, w, o->elem_bytes, o->groups);
    b.dropout = o->dropout < 0 ? p->dropout : o->dropout;
    if ((rc = gb_op(&b, &tok, "Placeholder", 0, 0, &ids, 1, NULL, 0, "tokens")) ||
        (rc = gb_op(&b, &labels, "Placeholder", 0, 0, &ids, 1, NULL, 0, "labels"))) {
        return rc;
    }
    gb_group(&b, "embedding");
    /* learned positions: the table wpe, added to the token embeddings */
    if ((rc = gb_op(&b, &wte, "VariableV2", 0, wte_e, &wte_e, 1, NULL, 0, "wte")) ||
        (!a.rotary && (rc = gb_op(&b, &wpe, "VariableV2", 0, wpe_e, &wpe_e, 1, NULL, 0, "wpe"))) ||
        (rc = gb_eltwise(&b, &x, "Gather", (struct gb_in[]){{wte, 0}, {tok, 0}}, 2, rows * a.d, 0,
                         "embed/tokens"))) {
        return rc;
    }
    e = x;
    if (!a.rotary && (rc = gb_eltwise(&b, &x, "Add", (struct gb_in[]){{e, 0}, {wpe, 0}}, 2,
                                      rows * a.d, 1, "embed/positions"))) {
        return rc;
    }
    if ((rc = gb_dropout(&b, &x, (struct gb_in){x, 0}, rows * a.d, "embed/dropout"))) {
        return rc;
    }
    for (int64_t l = 0; l < a.layers; l++) {
        if ((rc = block(&b, &x, &a, l))) {
            return rc;
        }
    }
    gb_group(&b, "head");
    head = wte;
    /* untied: the head's own table, an op of its own as the tied one, so that the
     * vocabulary-parallel head is found alike (parallel_tp.c) */
    if (!a.tied &&
        (rc = gb_op(&b, &head, "VariableV2", 0, wte_e, &wte_e, 1, NULL, 0, "lm_head/w"))) {
        return rc;
    }
    if ((rc = norm(&b, &lnf, x, &a, "ln_f")) ||
        (rc = gb_linear(&b, &logits, (struct gb_in){lnf, 0}, rows, a.d, a.vocab, false, head,
                        "lm_head")) ||
        (rc = gb_op(&b, &loss, "SoftmaxCrossEntropyWithLogits", 5.0 * (double)(rows * a.vocab), 0,
                    &one, 1, (struct gb_in[]){{logits, 0}, {labels, 0}}, 2, "loss"))) {
        return rc;
    }
    if (a.kv_heads != a.heads && (rc = note_heads(w, &a))) {
        return rc;
    }
    gb_info(&b, info, a.batch, a.seq, b.macs);
    return 0;
}
