/*
 * gen_gpt.c - GPT-2 style decoder-only transformer (Radford et al. 2019):
 * token and learned position embeddings, pre-norm blocks (LayerNorm, fused
 * QKV projection, causal attention, output projection, residual Add;
 * LayerNorm, MatMul d -> 4d, Gelu, MatMul 4d -> d, residual Add), a final
 * LayerNorm and the LM head tied to the token embedding.
 *
 * Sizes (layers / d_model / heads): small 12/768/12 (124,439,808 parameters
 * with the 50,257-token vocabulary and 1,024 positions, as GPT-2 small),
 * medium 24/1024/16 (355 M), large 36/1280/20 (774 M), xl 48/1600/25
 * (1.56 B), 2.7b 32/2560/32, 6.7b 32/4096/32.  Sequence 1,024 and
 * micro-batch 8 by default.
 *
 * Dropout (o->dropout, default 0.1 as GPT-2 and Megatron-LM train) after
 * the embeddings, on the attention probabilities, and on the attention
 * projection and the MLP output, fused with their residual Add
 * (DropoutAdd, Megatron's bias_dropout_add): the masks backward keeps
 * (Korthikanti et al. 2022, §4.1); 0 adds no dropout op.
 *
 * deviation: the causal mask is part of the softmax op (5 FLOPs per score,
 * masked ones included, as dense kernels compute them).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/gen.h"

#include "core/err.h"
#include "workloads/gen_build.h"

#include <stdio.h>
#include <string.h>

struct gpt_size {
    int64_t layers, d, heads;
};

/* The sizes' names (gen_gpt_sizes()), and the sizes in the same order. */
static const char *const size_names[] = {"small", "medium", "large", "xl", "2.7b", "6.7b", NULL};

static const struct gpt_size sizes[] = {
    {12, 768, 12}, {24, 1024, 16}, {36, 1280, 20}, {48, 1600, 25}, {32, 2560, 32}, {32, 4096, 32},
};

_Static_assert(sizeof(sizes) / sizeof(sizes[0]) == sizeof(size_names) / sizeof(size_names[0]) - 1,
               "one size per name");

const char *const *gen_gpt_sizes(void)
{
    return size_names;
}

static int block(struct gb *b, int32_t *x, int64_t batch, int64_t seq, int64_t d, int64_t heads,
                 int64_t l)
{
    int64_t rows = batch * seq;
    int32_t ln, a, h, g, y;
    char nm[256];
    int rc;

    gb_group(b, "h%lld/attn", (long long)l);
    snprintf(nm, sizeof(nm), "h%lld/ln_1", (long long)l);
    if ((rc = gb_layernorm(b, &ln, (struct gb_in){*x, 0}, rows, d, nm))) {
        return rc;
    }
    snprintf(nm, sizeof(nm), "h%lld/attn", (long long)l);
    if ((rc = gb_attention(b, &a, (struct gb_in){ln, 0}, (struct gb_in){ln, 0}, batch, seq, seq, d,
                           heads, true, nm))) {
        return rc;
    }
    snprintf(nm, sizeof(nm), "h%lld/attn/add", (long long)l);
    if ((rc = gb_dropout_add(b, x, (struct gb_in){a, 0}, (struct gb_in){*x, 0}, rows * d, nm))) {
        return rc;
    }
    gb_group(b, "h%lld/mlp", (long long)l);
    snprintf(nm, sizeof(nm), "h%lld/ln_2", (long long)l);
    if ((rc = gb_layernorm(b, &ln, (struct gb_in){*x, 0}, rows, d, nm))) {
        return rc;
    }
    snprintf(nm, sizeof(nm), "h%lld/mlp/c_fc", (long long)l);
    if ((rc = gb_linear(b, &h, (struct gb_in){ln, 0}, rows, d, 4 * d, true, -1, nm))) {
        return rc;
    }
    snprintf(nm, sizeof(nm), "h%lld/mlp/gelu", (long long)l);
    if ((rc = gb_eltwise(b, &g, "Gelu", &(struct gb_in){h, 0}, 1, rows * 4 * d, 8, nm))) {
        return rc;
    }
    snprintf(nm, sizeof(nm), "h%lld/mlp/c_proj", (long long)l);
    if ((rc = gb_linear(b, &y, (struct gb_in){g, 0}, rows, 4 * d, d, true, -1, nm))) {
        return rc;
    }
    snprintf(nm, sizeof(nm), "h%lld/mlp/add", (long long)l);
    return gb_dropout_add(b, x, (struct gb_in){y, 0}, (struct gb_in){*x, 0}, rows * d, nm);
}

int gen_gpt(struct workload *w, const struct gen_opts *o, struct gen_info *info)
{
    const struct gpt_size *sz = NULL;
    int64_t layers, d, heads, vocab, batch, seq, n_pos, rows, ids, wte_e, wpe_e, one = 1;
    int32_t tok, labels, wte, wpe, e, x, lnf, logits, loss;
    struct gb b;
    int rc;

    for (size_t i = 0; size_names[i]; i++) {
        if (strcmp(size_names[i], o->size ? o->size : "small") == 0) {
            sz = &sizes[i];
        }
    }
    if (!sz) {
        char known[128];

        return err_set(BAECHI_EINVAL, "gpt: unknown size '%s' (known: %s)", o->size,
                       gb_join_names(size_names, known, sizeof(known)));
    }
    layers = o->layers > 0 ? o->layers : sz->layers;
    d = o->d_model > 0 ? o->d_model : sz->d;
    heads = o->heads > 0 ? o->heads : sz->heads;
    vocab = o->vocab > 0 ? o->vocab : 50257;
    batch = o->batch > 0 ? o->batch : 8;
    seq = o->seq > 0 ? o->seq : 1024;
    if (d % heads != 0) {
        return err_set(BAECHI_EINVAL, "gpt: d_model %lld is not a multiple of %lld heads",
                       (long long)d, (long long)heads);
    }
    n_pos = seq > 1024 ? seq : 1024;
    rows = batch * seq;
    ids = rows;
    wte_e = vocab * d;
    wpe_e = n_pos * d;

    gb_init(&b, w, o->elem_bytes, o->groups);
    b.dropout = o->dropout < 0 ? 0.1 : o->dropout;
    if ((rc = gb_op(&b, &tok, "Placeholder", 0, 0, &ids, 1, NULL, 0, "tokens")) ||
        (rc = gb_op(&b, &labels, "Placeholder", 0, 0, &ids, 1, NULL, 0, "labels"))) {
        return rc;
    }
    gb_group(&b, "embedding");
    if ((rc = gb_op(&b, &wte, "VariableV2", 0, wte_e, &wte_e, 1, NULL, 0, "wte")) ||
        (rc = gb_op(&b, &wpe, "VariableV2", 0, wpe_e, &wpe_e, 1, NULL, 0, "wpe")) ||
        (rc = gb_eltwise(&b, &e, "Gather", (struct gb_in[]){{wte, 0}, {tok, 0}}, 2, rows * d, 0,
                         "embed/tokens")) ||
        (rc = gb_eltwise(&b, &x, "Add", (struct gb_in[]){{e, 0}, {wpe, 0}}, 2, rows * d, 1,
                         "embed/positions")) ||
        (rc = gb_dropout(&b, &x, (struct gb_in){x, 0}, rows * d, "embed/dropout"))) {
        return rc;
    }
    for (int64_t l = 0; l < layers; l++) {
        if ((rc = block(&b, &x, batch, seq, d, heads, l))) {
            return rc;
        }
    }
    gb_group(&b, "head");
    if ((rc = gb_layernorm(&b, &lnf, (struct gb_in){x, 0}, rows, d, "ln_f")) ||
        (rc = gb_linear(&b, &logits, (struct gb_in){lnf, 0}, rows, d, vocab, false, wte,
                        "lm_head")) ||
        (rc = gb_op(&b, &loss, "SoftmaxCrossEntropyWithLogits", 5.0 * (double)(rows * vocab), 0,
                    &one, 1, (struct gb_in[]){{logits, 0}, {labels, 0}}, 2, "loss"))) {
        return rc;
    }
    gb_info(&b, info, batch, seq, b.macs);
    return 0;
}
