/*
 * gen_gnmt.c - GNMT-v2 as the original's TensorFlow model (tensorflow/nmt,
 * encoder_type gnmt, attention_architecture gnmt_v2): 4 layers of 512 LSTM
 * units (encoder: one bidirectional layer, then 3 unidirectional ones with
 * residual connections from the third layer on; decoder: 4 layers, Bahdanau
 * attention computed from the bottom layer's output and fed to every
 * layer), vocabularies of 30,000, batch 128, sequence 40, unrolled per time
 * step (one LSTMBlockCell op per layer and step, weights read from shared
 * VariableV2 ops), output projection over the stacked decoder outputs and a
 * sparse softmax cross-entropy loss.
 *
 * Parameters: 72,837,632, exactly the VariableV2 sizes of the shipped
 * profile data/workloads/gnmt_v2 (kernels of [input + 512, 2048]).
 *
 * deviation: the original's unidirectional encoder layers all have [1536,
 * 2048] kernels (1,024 inputs); we keep those sizes (parameters and FLOPs)
 * while feeding layers 2 and 3 with the 512-wide residual sum.  Dropout,
 * the attention's initial zero state and TF's bookkeeping ops (shapes,
 * initialisers) are omitted.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/gen.h"

#include "core/err.h"
#include "core/strbuf.h"
#include "workloads/gen_build.h"

#include <stdio.h>
#include <string.h>

#define GNMT_UNITS 512

struct gnmt {
    struct gb b;
    int64_t batch, seq, vocab, h;
};

struct lstm_layer {
    int32_t kernel, bias; /* VariableV2 ops */
    int64_t rows;         /* kernel rows = input + h */
};

static int lstm_vars(struct gnmt *m, struct lstm_layer *l, int64_t in_dim, const char *scope)
{
    int64_t kr = (in_dim + m->h), ke = kr * 4 * m->h, be = 4 * m->h;
    int rc;

    l->rows = kr;
    gb_group(&m->b, "%s/lstm_cell", scope);
    if ((rc = gb_op(&m->b, &l->kernel, "VariableV2", 0, ke, &ke, 1, NULL, 0, "%s/lstm_cell/kernel",
                    scope)) ||
        (rc = gb_op(&m->b, &l->bias, "VariableV2", 0, be, &be, 1, NULL, 0, "%s/lstm_cell/bias",
                    scope))) {
        return rc;
    }
    return 0;
}

/* One LSTMBlockCell step: outputs [h, c]; prev < 0 at the first step. */
static int lstm_step(struct gnmt *m, int32_t *cell, const struct lstm_layer *l, struct gb_in x,
                     int32_t prev, const char *scope, int64_t t)
{
    double macs = (double)m->batch * (double)l->rows * 4.0 * (double)m->h;
    int64_t hc[2] = {m->batch * m->h, m->batch * m->h};
    struct gb_in in[5];
    int n = 0, rc;

    in[n++] = x;
    if (prev >= 0) {
        in[n++] = (struct gb_in){prev, 0};
        in[n++] = (struct gb_in){prev, 1};
    }
    in[n++] = (struct gb_in){l->kernel, 0};
    in[n++] = (struct gb_in){l->bias, 0};
    gb_group(&m->b, "%s/t%lld", scope, (long long)t);
    rc = gb_op(&m->b, cell, "LSTMBlockCell", 2 * macs + 12.0 * (double)(m->batch * m->h), 0, hc, 2,
               in, n, "%s/cell_%lld", scope, (long long)t);
    if (rc == 0) {
        m->b.macs += macs;
    }
    return rc;
}

static int concat2(struct gnmt *m, int32_t *out, struct gb_in a, struct gb_in b, int64_t width,
                   const char *name, int64_t t)
{
    int64_t e = m->batch * width;

    return gb_op(&m->b, out, "ConcatV2", 0, 0, &e, 1, (struct gb_in[]){a, b}, 2, "%s_%lld", name,
                 (long long)t);
}

static int add2(struct gnmt *m, int32_t *out, struct gb_in a, struct gb_in b, const char *name,
                int64_t t)
{
    int64_t e = m->batch * m->h;

    return gb_op(&m->b, out, "Add", (double)e, 0, &e, 1, (struct gb_in[]){a, b}, 2, "%s_%lld", name,
                 (long long)t);
}

/* Embedding table, lookup and unstack into `seq` step inputs (op `*steps`, ports 0..seq-1). */
static int embed(struct gnmt *m, int32_t ids, int32_t *steps, const char *scope)
{
    int64_t te = m->vocab * m->h, le = m->batch * m->seq * m->h;
    int64_t step[1024];
    int32_t table, look;
    int rc;

    for (int64_t t = 0; t < m->seq; t++) {
        step[t] = m->batch * m->h;
    }
    gb_group(&m->b, "%s/embedding", scope);
    if ((rc = gb_op(&m->b, &table, "VariableV2", 0, te, &te, 1, NULL, 0, "%s/embedding", scope)) ||
        (rc = gb_op(&m->b, &look, "GatherV2", (double)le, 0, &le, 1,
                    (struct gb_in[]){{table, 0}, {ids, 0}}, 2, "%s/embedding_lookup", scope)) ||
        (rc = gb_op(&m->b, steps, "Unpack", 0, 0, step, (int)m->seq, &(struct gb_in){look, 0}, 1,
                    "%s/unstack", scope))) {
        return rc;
    }
    return 0;
}

static int pack(struct gnmt *m, int32_t *out, const int32_t *ops, const char *name)
{
    struct gb_in in[1024];
    int64_t e = m->batch * m->seq * m->h;

    for (int64_t t = 0; t < m->seq; t++) {
        in[t] = (struct gb_in){ops[t], 0};
    }
    return gb_op(&m->b, out, "Pack", 0, 0, &e, 1, in, (int)m->seq, "%s", name);
}

/*
 * The encoder: the bidirectional layer 0 over the source embedding, then
 * unidirectional layers 1..3, residual from layer 2 on.  cur[t] gets the
 * output of step t.
 */
static int encoder(struct gnmt *m, int32_t src, int32_t *cur)
{
    struct lstm_layer fw, bw, enc[3];
    int32_t fw_out[1024], bw_out[1024], below[1024];
    int32_t esteps, cell, prev;
    struct strbuf scope = STRBUF_INIT;
    struct strbuf rname = STRBUF_INIT;
    int rc;

    if ((rc = embed(m, src, &esteps, "encoder")) ||
        (rc = lstm_vars(m, &fw, m->h, "encoder/bidirectional_rnn/fw")) ||
        (rc = lstm_vars(m, &bw, m->h, "encoder/bidirectional_rnn/bw"))) {
        goto cleanup;
    }
    prev = -1;
    for (int64_t t = 0; t < m->seq; t++) {
        if ((rc = lstm_step(m, &cell, &fw, (struct gb_in){esteps, (int32_t)t}, prev,
                            "encoder/bidirectional_rnn/fw", t))) {
            goto cleanup;
        }
        fw_out[t] = prev = cell;
    }
    prev = -1;
    for (int64_t t = m->seq - 1; t >= 0; t--) {
        if ((rc = lstm_step(m, &cell, &bw, (struct gb_in){esteps, (int32_t)t}, prev,
                            "encoder/bidirectional_rnn/bw", t))) {
            goto cleanup;
        }
        bw_out[t] = prev = cell;
    }
    for (int64_t t = 0; t < m->seq; t++) {
        gb_group(&m->b, "encoder/bidirectional_rnn/t%lld", (long long)t);
        if ((rc = concat2(m, &cur[t], (struct gb_in){fw_out[t], 0}, (struct gb_in){bw_out[t], 0},
                          2 * m->h, "encoder/bidirectional_rnn/concat", t))) {
            goto cleanup;
        }
    }
    for (int l = 0; l < 3; l++) {
        CHECK(strbuf_setf(&scope, "encoder/rnn/cell_%d", l));
        CHECK(strbuf_setf(&rname, "%s/residual", scope.buf));
        if ((rc = lstm_vars(m, &enc[l], 2 * m->h, scope.buf))) {
            goto cleanup;
        }
        prev = -1;
        for (int64_t t = 0; t < m->seq; t++) {
            if ((rc =
                     lstm_step(m, &cell, &enc[l], (struct gb_in){cur[t], 0}, prev, scope.buf, t))) {
                goto cleanup;
            }
            prev = cell;
            below[t] = cur[t];
            cur[t] = cell;
            if (l >= 1 && (rc = add2(m, &cur[t], (struct gb_in){cell, 0},
                                     (struct gb_in){below[t], 0}, rname.buf, t))) {
                goto cleanup;
            }
        }
    }
    rc = 0;
cleanup:
    strbuf_release(&rname);
    strbuf_release(&scope);
    return rc;
}

/* What every decoder step reads: its layers, the attention's memory and
 * weights, and the previous step's state. */
struct decoder {
    struct lstm_layer layer[4];
    int32_t steps;          /* the target embedding, unstacked */
    int32_t memory, keys;   /* encoder outputs; their projection */
    int32_t query_k, att_v; /* attention weights */
    int32_t prev[4];        /* each layer's previous cell (-1 at t = 0) */
    int32_t ctx[1024];      /* attention context per step */
};

/* Bahdanau attention of step t from the bottom layer's output h. */
static int attend(struct gnmt *m, struct decoder *d, int32_t h, int64_t t)
{
    int64_t bt = m->batch * m->seq, bh = m->batch * m->h;
    int32_t q, score, probs;
    struct strbuf name = STRBUF_INIT;
    int rc;

    CHECK(strbuf_setf(&name, "decoder/attention/context_%lld", (long long)t));
    gb_group(&m->b, "decoder/attention/t%lld", (long long)t);
    if ((rc = gb_op(&m->b, &q, "MatMul", 2.0 * (double)bh * (double)m->h, 0, &bh, 1,
                    (struct gb_in[]){{h, 0}, {d->query_k, 0}}, 2, "decoder/attention/query_%lld",
                    (long long)t)) ||
        (rc = gb_op(&m->b, &score, "BahdanauScore", 3.0 * (double)bt * (double)m->h + (double)bt, 0,
                    &bt, 1, (struct gb_in[]){{q, 0}, {d->keys, 0}, {d->att_v, 0}}, 3,
                    "decoder/attention/score_%lld", (long long)t)) ||
        (rc =
             gb_op(&m->b, &probs, "Softmax", 5.0 * (double)bt, 0, &bt, 1, &(struct gb_in){score, 0},
                   1, "decoder/attention/softmax_%lld", (long long)t)) ||
        (rc = gb_bmm(&m->b, &d->ctx[t], (struct gb_in){probs, 0}, (struct gb_in){d->memory, 0},
                     (double)bt * (double)m->h, bh, name.buf))) {
        goto cleanup;
    }
    rc = 0;
cleanup:
    strbuf_release(&name);
    return rc;
}

/* Decoder step t: layer 0 (reading the previous context), the attention,
 * layers 1..3 (reading the context; residual from layer 2 on); *out gets
 * the top layer's output. */
static int decoder_step(struct gnmt *m, struct decoder *d, int64_t t, int32_t *out)
{
    int32_t in0, h, x, cell;
    struct strbuf scope = STRBUF_INIT;
    struct strbuf cname = STRBUF_INIT;
    struct strbuf rname = STRBUF_INIT;
    int rc;

    CHECK(strbuf_setf(&scope, "decoder/rnn/cell_0"));
    if (t == 0) {
        in0 = d->steps;
    } else {
        gb_group(&m->b, "%s/t%lld", scope.buf, (long long)t);
        if ((rc = concat2(m, &in0, (struct gb_in){d->steps, (int32_t)t},
                          (struct gb_in){d->ctx[t - 1], 0}, 2 * m->h, "decoder/rnn/cell_0/concat",
                          t))) {
            goto cleanup;
        }
    }
    if ((rc =
             lstm_step(m, &cell, &d->layer[0], (struct gb_in){in0, 0}, d->prev[0], scope.buf, t))) {
        goto cleanup;
    }
    d->prev[0] = h = cell;
    if ((rc = attend(m, d, h, t))) {
        goto cleanup;
    }
    for (int l = 1; l < 4; l++) {
        CHECK(strbuf_setf(&scope, "decoder/rnn/cell_%d", l));
        CHECK(strbuf_setf(&cname, "%s/concat", scope.buf));
        gb_group(&m->b, "%s/t%lld", scope.buf, (long long)t);
        if ((rc = concat2(m, &x, (struct gb_in){h, 0}, (struct gb_in){d->ctx[t], 0}, 2 * m->h,
                          cname.buf, t)) ||
            (rc = lstm_step(m, &cell, &d->layer[l], (struct gb_in){x, 0}, d->prev[l], scope.buf,
                            t))) {
            goto cleanup;
        }
        d->prev[l] = cell;
        if (l >= 2) {
            CHECK(strbuf_setf(&rname, "%s/residual", scope.buf));
            if ((rc = add2(m, &x, (struct gb_in){cell, 0}, (struct gb_in){h, 0}, rname.buf, t))) {
                goto cleanup;
            }
            h = x;
        } else {
            h = cell;
        }
    }
    *out = h;
    rc = 0;
cleanup:
    strbuf_release(&rname);
    strbuf_release(&cname);
    strbuf_release(&scope);
    return rc;
}

/* The attention memory over the encoder outputs cur[], the attention
 * weights, then the decoder; cur[t] gets its output of step t. */
static int decoder(struct gnmt *m, int32_t tgt, int32_t *cur)
{
    struct decoder d;
    struct strbuf scope = STRBUF_INIT;
    int64_t e;
    int rc;

    memset(&d, 0, sizeof(d));
    gb_group(&m->b, "decoder/memory_layer");
    if ((rc = pack(m, &d.memory, cur, "encoder/outputs")) ||
        (rc = gb_linear(&m->b, &d.keys, (struct gb_in){d.memory, 0}, m->batch * m->seq, m->h, m->h,
                        false, -1, "decoder/memory_layer"))) {
        goto cleanup;
    }
    gb_group(&m->b, "decoder/attention");
    e = m->h * m->h;
    if ((rc = gb_op(&m->b, &d.query_k, "VariableV2", 0, e, &e, 1, NULL, 0,
                    "decoder/query_layer/kernel")) ||
        (rc = gb_op(&m->b, &d.att_v, "VariableV2", 0, m->h, &m->h, 1, NULL, 0,
                    "decoder/attention_v"))) {
        goto cleanup;
    }
    if ((rc = embed(m, tgt, &d.steps, "decoder"))) {
        goto cleanup;
    }
    for (int l = 0; l < 4; l++) {
        CHECK(strbuf_setf(&scope, "decoder/rnn/cell_%d", l));
        if ((rc = lstm_vars(m, &d.layer[l], 2 * m->h, scope.buf))) {
            goto cleanup;
        }
        d.prev[l] = -1;
    }
    for (int64_t t = 0; t < m->seq; t++) {
        if ((rc = decoder_step(m, &d, t, &cur[t]))) {
            goto cleanup;
        }
    }
    rc = 0;
cleanup:
    strbuf_release(&scope);
    return rc;
}

int gen_gnmt(struct workload *w, const struct gen_opts *o, struct gen_info *info)
{
    struct gnmt m;
    int32_t src, tgt, labels, cur[1024], proj, x, logits, loss;
    int64_t ids, e, one = 1;
    int rc;

    memset(&m, 0, sizeof(m));
    m.batch = o->batch > 0 ? o->batch : 128;
    m.seq = o->seq > 0 ? o->seq : 40;
    m.vocab = o->vocab > 0 ? o->vocab : 30000;
    m.h = GNMT_UNITS;
    if (m.seq > 1024) {
        return err_set(BAECHI_EINVAL, "gnmt: sequence length %lld is above 1024", (long long)m.seq);
    }
    if (o->layers > 0 && o->layers != 4) {
        return err_set(BAECHI_EINVAL, "gnmt: only 4 layers are supported (got %d)", o->layers);
    }
    gb_init(&m.b, w, o->elem_bytes, o->groups);
    ids = m.batch * m.seq;
    if ((rc = gb_op(&m.b, &src, "Placeholder", 0, 0, &ids, 1, NULL, 0, "source_ids")) ||
        (rc = gb_op(&m.b, &tgt, "Placeholder", 0, 0, &ids, 1, NULL, 0, "target_ids")) ||
        (rc = gb_op(&m.b, &labels, "Placeholder", 0, 0, &ids, 1, NULL, 0, "labels")) ||
        (rc = encoder(&m, src, cur)) || (rc = decoder(&m, tgt, cur))) {
        return rc;
    }
    /* output projection and loss */
    gb_group(&m.b, "output_projection");
    e = m.h * m.vocab;
    if ((rc = gb_op(&m.b, &proj, "VariableV2", 0, e, &e, 1, NULL, 0, "output_projection/kernel")) ||
        (rc = pack(&m, &x, cur, "decoder/outputs")) ||
        (rc = gb_linear(&m.b, &logits, (struct gb_in){x, 0}, m.batch * m.seq, m.h, m.vocab, false,
                        proj, "output_projection/logits"))) {
        return rc;
    }
    gb_group(&m.b, "loss");
    if ((rc = gb_op(&m.b, &loss, "SparseSoftmaxCrossEntropyWithLogits",
                    5.0 * (double)(m.batch * m.seq * m.vocab), 0, &one, 1,
                    (struct gb_in[]){{logits, 0}, {labels, 0}}, 2, "loss"))) {
        return rc;
    }
    gb_info(&m.b, info, m.batch, m.seq, m.b.macs);
    return 0;
}
