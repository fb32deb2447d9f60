/*
 * gen_transformer.c - the Transformer of Vaswani et al. 2017 (post-norm
 * encoder-decoder, sinusoidal positions, one embedding matrix shared by
 * source, target and the output projection).
 *
 *   base: d 512, 6 + 6 layers, 8 heads, FFN 2048, shared vocabulary 37,000,
 *         batch 64, sequence 40 (our defaults); 63.1 M parameters (the paper
 *         reports "65 M", which also counts per-language embeddings);
 *   big:  the original's configuration: d 1024, FFN 4096, 16 heads,
 *         vocabulary 33,708, batch 8, sequence 30; 210.9 M parameters.
 *
 * Ops per layer: Q, K, V projections, scores, softmax, context, output
 * projection, residual Add, LayerNorm, FFN MatMul, Relu, MatMul, Add,
 * LayerNorm (the decoder adds a cross-attention block).
 *
 * Dropout (o->dropout, default 0.1: the base model's P_drop, §5.4) on the
 * sums of the embeddings and positions, on each sub-layer's output fused
 * with the residual Add (DropoutAdd, see gen_build.h), and on the attention probabilities (as
 * tensor2tensor and PyTorch's nn.MultiheadAttention do); 0 adds no dropout op.
 *
 * deviation: label smoothing is omitted (no parameters, small cost); source
 * and target share one sequence length.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/gen.h"

#include "core/err.h"
#include "core/strbuf.h"
#include "workloads/gen_build.h"

#include <stdio.h>
#include <string.h>

/* The sizes (gen_transformer_sizes()), configured in gen_transformer(). */
static const char *const size_names[] = {"base", "big", NULL};

const char *const *gen_transformer_sizes(void)
{
    return size_names;
}

struct tcfg {
    int64_t layers, d, heads, ffn, vocab, batch, seq;
};

static int ffn_block(struct gb *b, int32_t *x, int64_t rows, int64_t d, int64_t ffn,
                     const char *scope)
{
    int32_t h, a, y, s;
    struct strbuf nm = STRBUF_INIT;
    int rc;

    gb_group(b, "%s/ffn", scope);
    CHECK(strbuf_setf(&nm, "%s/ffn/fc1", scope));
    if ((rc = gb_linear(b, &h, (struct gb_in){*x, 0}, rows, d, ffn, true, -1, nm.buf))) {
        goto cleanup;
    }
    CHECK(strbuf_setf(&nm, "%s/ffn/relu", scope));
    if ((rc = gb_eltwise(b, &a, "Relu", &(struct gb_in){h, 0}, 1, rows * ffn, 1, nm.buf))) {
        goto cleanup;
    }
    CHECK(strbuf_setf(&nm, "%s/ffn/fc2", scope));
    if ((rc = gb_linear(b, &y, (struct gb_in){a, 0}, rows, ffn, d, true, -1, nm.buf))) {
        goto cleanup;
    }
    CHECK(strbuf_setf(&nm, "%s/ffn/add", scope));
    if ((rc = gb_dropout_add(b, &s, (struct gb_in){y, 0}, (struct gb_in){*x, 0}, rows * d,
                             nm.buf))) {
        goto cleanup;
    }
    CHECK(strbuf_setf(&nm, "%s/ffn/layernorm", scope));
    rc = gb_layernorm(b, x, (struct gb_in){s, 0}, rows, d, nm.buf);
cleanup:
    strbuf_release(&nm);
    return rc;
}

/* x = LayerNorm(x + Attention(x, kv)); kv < 0 means self-attention. */
static int attn_block(struct gb *b, int32_t *x, int32_t kv, const struct tcfg *c, const char *scope,
                      const char *what)
{
    int64_t rows = c->batch * c->seq;
    int32_t a, s;
    struct strbuf nm = STRBUF_INIT;
    int rc;

    gb_group(b, "%s/%s", scope, what);
    CHECK(strbuf_setf(&nm, "%s/%s", scope, what));
    if ((rc = gb_attention(b, &a, (struct gb_in){*x, 0}, (struct gb_in){kv < 0 ? *x : kv, 0},
                           c->batch, c->seq, c->seq, c->d, c->heads, false, nm.buf))) {
        goto cleanup;
    }
    CHECK(strbuf_setf(&nm, "%s/%s/add", scope, what));
    if ((rc = gb_dropout_add(b, &s, (struct gb_in){a, 0}, (struct gb_in){*x, 0}, rows * c->d,
                             nm.buf))) {
        goto cleanup;
    }
    CHECK(strbuf_setf(&nm, "%s/%s/layernorm", scope, what));
    rc = gb_layernorm(b, x, (struct gb_in){s, 0}, rows, c->d, nm.buf);
cleanup:
    strbuf_release(&nm);
    return rc;
}

static int embed(struct gb *b, int32_t *x, int32_t table, int32_t ids, const struct tcfg *c,
                 const char *scope)
{
    int64_t rows = c->batch * c->seq;
    int32_t e;
    struct strbuf nm = STRBUF_INIT;
    int rc;

    gb_group(b, "%s/embedding", scope);
    CHECK(strbuf_setf(&nm, "%s/embedding", scope));
    if ((rc = gb_eltwise(b, &e, "Gather", (struct gb_in[]){{table, 0}, {ids, 0}}, 2, rows * c->d, 1,
                         nm.buf))) {
        goto cleanup;
    }
    CHECK(strbuf_setf(&nm, "%s/positional", scope));
    if ((rc = gb_eltwise(b, &e, "Add", &(struct gb_in){e, 0}, 1, rows * c->d, 2, nm.buf))) {
        goto cleanup;
    }
    CHECK(strbuf_setf(&nm, "%s/embedding_dropout", scope));
    rc = gb_dropout(b, x, (struct gb_in){e, 0}, rows * c->d, nm.buf);
cleanup:
    strbuf_release(&nm);
    return rc;
}

int gen_transformer(struct workload *w, const struct gen_opts *o, struct gen_info *info)
{
    struct tcfg c;
    struct gb b;
    int64_t rows, ids_elems, table_elems, logit_elems, one = 1;
    int32_t src, tgt, labels, table, x, enc, logits, loss;
    struct strbuf scope = STRBUF_INIT;
    int rc;

    if (!o->size || strcmp(o->size, size_names[0]) == 0) {
        c = (struct tcfg){6, 512, 8, 2048, 37000, 64, 40};
    } else if (strcmp(o->size, size_names[1]) == 0) {
        c = (struct tcfg){6, 1024, 16, 4096, 33708, 8, 30};
    } else {
        return gb_unknown_size("transformer", o->size, size_names);
    }
    c.layers = o->layers > 0 ? o->layers : c.layers;
    c.d = o->d_model > 0 ? o->d_model : c.d;
    c.heads = o->heads > 0 ? o->heads : c.heads;
    c.ffn = o->ffn > 0 ? o->ffn : c.ffn;
    c.vocab = o->vocab > 0 ? o->vocab : c.vocab;
    c.batch = o->batch > 0 ? o->batch : c.batch;
    c.seq = o->seq > 0 ? o->seq : c.seq;
    if (c.d % c.heads != 0) {
        return err_set(BAECHI_EINVAL, "transformer: d_model %lld is not a multiple of %lld heads",
                       (long long)c.d, (long long)c.heads);
    }
    rows = c.batch * c.seq;
    ids_elems = rows;
    table_elems = c.vocab * c.d;
    logit_elems = rows * c.vocab;

    gb_init(&b, w, o->elem_bytes, o->groups);
    b.dropout = o->dropout < 0 ? 0.1 : o->dropout;
    if ((rc = gb_op(&b, &src, "Placeholder", 0, 0, &ids_elems, 1, NULL, 0, "source_ids")) ||
        (rc = gb_op(&b, &tgt, "Placeholder", 0, 0, &ids_elems, 1, NULL, 0, "target_ids")) ||
        (rc = gb_op(&b, &labels, "Placeholder", 0, 0, &ids_elems, 1, NULL, 0, "labels"))) {
        goto cleanup;
    }
    gb_group(&b, "shared_embedding");
    if ((rc = gb_op(&b, &table, "VariableV2", 0, table_elems, &table_elems, 1, NULL, 0,
                    "shared_embedding"))) {
        goto cleanup;
    }
    if ((rc = embed(&b, &x, table, src, &c, "encoder"))) {
        goto cleanup;
    }
    for (int64_t l = 0; l < c.layers; l++) {
        CHECK(strbuf_setf(&scope, "encoder/layer_%lld", (long long)l));
        if ((rc = attn_block(&b, &x, -1, &c, scope.buf, "self_attention")) ||
            (rc = ffn_block(&b, &x, rows, c.d, c.ffn, scope.buf))) {
            goto cleanup;
        }
    }
    enc = x;
    if ((rc = embed(&b, &x, table, tgt, &c, "decoder"))) {
        goto cleanup;
    }
    for (int64_t l = 0; l < c.layers; l++) {
        CHECK(strbuf_setf(&scope, "decoder/layer_%lld", (long long)l));
        if ((rc = attn_block(&b, &x, -1, &c, scope.buf, "self_attention")) ||
            (rc = attn_block(&b, &x, enc, &c, scope.buf, "cross_attention")) ||
            (rc = ffn_block(&b, &x, rows, c.d, c.ffn, scope.buf))) {
            goto cleanup;
        }
    }
    gb_group(&b, "output");
    if ((rc = gb_linear(&b, &logits, (struct gb_in){x, 0}, rows, c.d, c.vocab, false, table,
                        "output/logits")) ||
        (rc = gb_op(&b, &loss, "SoftmaxCrossEntropyWithLogits", 5.0 * (double)logit_elems, 0, &one,
                    1, (struct gb_in[]){{logits, 0}, {labels, 0}}, 2, "loss"))) {
        goto cleanup;
    }
    gb_info(&b, info, c.batch, c.seq, b.macs);
    rc = 0;
cleanup:
    strbuf_release(&scope);
    return rc;
}
