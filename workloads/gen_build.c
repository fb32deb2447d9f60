/*
 * gen_build.c - helpers of the model generators (see gen_build.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/gen_build.h"

#include "core/err.h"
#include "core/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void gb_init(struct gb *b, struct workload *w, int elem_bytes, bool groups)
{
    memset(b, 0, sizeof(*b));
    b->w = w;
    b->elem_bytes = elem_bytes > 0 ? elem_bytes : 4;
    b->groups = groups;
}

void gb_scope(struct gb *b, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(b->scope, sizeof(b->scope), fmt, ap);
    va_end(ap);
}

void gb_group(struct gb *b, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(b->group, sizeof(b->group), fmt, ap);
    va_end(ap);
}

void gb_info(const struct gb *b, struct gen_info *info, int64_t batch, int64_t seq, double macs)
{
    double fwd_flops = 0;

    if (!info) {
        return;
    }
    for (int32_t i = 0; i < b->w->n_ops; i++) {
        fwd_flops += b->w->op[i].flops;
    }
    info->params = b->params;
    info->fwd_flops = fwd_flops;
    info->batch = batch;
    info->seq = seq;
    info->fwd_macs = macs;
}

int gb_unknown_size(const char *model, const char *size, const char *const *names)
{
    struct strbuf known = STRBUF_INIT;
    int rc = 0;

    for (int i = 0; names[i] && rc == 0; i++) {
        rc = strbuf_addf(&known, "%s%s", i ? ", " : "", names[i]);
    }
    if (rc == 0) {
        rc = err_set(BAECHI_EINVAL, "%s: unknown size '%s' (known: %s)", model, size, known.buf);
    }
    strbuf_release(&known);
    return rc;
}

int64_t gb_out_bytes(const struct gb *b, int32_t op, int32_t port)
{
    const struct wl_op *o = &b->w->op[op];

    if (port < 0 || port >= o->n_out) {
        return 0;
    }
    return b->w->out_bytes[o->out_off + port];
}

int gb_op(struct gb *b, int32_t *idx, const char *type, double flops, int64_t params,
          const int64_t *out_elems, int n_out, const struct gb_in *in, int n_in,
          const char *name_fmt, ...)
{
    struct strbuf name = STRBUF_INIT; /* "<scope>/<name>" whole (a char[256]/[512] cut it) */
    double bytes = 0;
    int32_t id;
    va_list ap;
    int rc;

    if (b->scope[0] && (rc = strbuf_addf(&name, "%s/", b->scope))) {
        return rc;
    }
    va_start(ap, name_fmt);
    rc = strbuf_vaddf(&name, name_fmt, ap);
    va_end(ap);
    if (rc == 0) {
        rc = workload_add_op(b->w, name.buf, type, &id);
    }
    strbuf_release(&name);
    if (rc) {
        return rc;
    }
    for (int k = 0; k < n_in; k++) {
        if (in[k].port != WL_PORT_CONTROL) {
            bytes += (double)gb_out_bytes(b, in[k].op, in[k].port);
        }
    }
    for (int k = 0; k < n_out; k++) {
        int64_t nb = out_elems[k] * b->elem_bytes;

        if ((rc = workload_add_output(b->w, nb))) {
            return rc;
        }
        bytes += (double)nb;
    }
    for (int k = 0; k < n_in; k++) {
        if ((rc = workload_add_input(b->w, in[k].op, in[k].port, 0, 0))) {
            return rc;
        }
    }
    bytes += (double)params * b->elem_bytes;
    b->w->op[id].flops = flops;
    b->w->op[id].bytes = bytes;
    b->w->op[id].persistent = params * b->elem_bytes;
    b->params += params;
    if (b->groups && b->group[0] && (rc = workload_set_group(b->w, id, b->group))) {
        return rc;
    }
    if (idx) {
        *idx = id;
    }
    return 0;
}

int gb_linear(struct gb *b, int32_t *out, struct gb_in x, int64_t rows, int64_t din, int64_t dout,
              bool bias, int32_t weights, const char *name)
{
    double macs = (double)rows * (double)din * (double)dout;
    int64_t elems = rows * dout, params = 0;
    struct gb_in in[2] = {x, {weights, 0}};
    int rc;

    if (weights < 0) {
        params = din * dout + (bias ? dout : 0);
    }
    rc = gb_op(b, out, "MatMul", 2 * macs + (bias ? (double)elems : 0), params, &elems, 1, in,
               weights >= 0 ? 2 : 1, "%s", name);
    if (rc == 0) {
        b->macs += macs;
    }
    return rc;
}

int gb_bmm(struct gb *b, int32_t *out, struct gb_in x, struct gb_in y, double macs,
           int64_t out_elems, const char *name)
{
    int rc = gb_op(b, out, "BatchMatMul", 2 * macs, 0, &out_elems, 1, (struct gb_in[]){x, y}, 2,
                   "%s", name);

    if (rc == 0) {
        b->macs += macs;
    }
    return rc;
}

int gb_layernorm(struct gb *b, int32_t *out, struct gb_in x, int64_t rows, int64_t d,
                 const char *name)
{
    int64_t elems = rows * d;

    return gb_op(b, out, "LayerNorm", 5.0 * (double)elems, 2 * d, &elems, 1, &x, 1, "%s", name);
}

int gb_eltwise(struct gb *b, int32_t *out, const char *type, const struct gb_in *in, int n_in,
               int64_t elems, double flops_per_elem, const char *name)
{
    return gb_op(b, out, type, flops_per_elem * (double)elems, 0, &elems, 1, in, n_in, "%s", name);
}

int gb_dropout(struct gb *b, int32_t *out, struct gb_in x, int64_t elems, const char *name)
{
    int rc;

    if (!(b->dropout > 0)) {
        *out = x.op;
        return 0;
    }
    /* one multiply by the scaled mask per element; the mask it writes
     * (1 byte per element) is in its bytes */
    if ((rc = gb_eltwise(b, out, "Dropout", &x, 1, elems, 1, name)) == 0) {
        b->w->op[*out].bytes += (double)elems;
    }
    return rc;
}

int gb_dropout_add(struct gb *b, int32_t *out, struct gb_in y, struct gb_in residual, int64_t elems,
                   const char *name)
{
    const struct gb_in in[2] = {residual, y};
    int rc;

    if (!(b->dropout > 0)) {
        return gb_eltwise(b, out, "Add", in, 2, elems, 1, name);
    }
    /* a multiply by the scaled mask and an add per element; the mask it
     * writes (1 byte per element) is in its bytes */
    if ((rc = gb_eltwise(b, out, "DropoutAdd", in, 2, elems, 2, name)) == 0) {
        b->w->op[*out].bytes += (double)elems;
    }
    return rc;
}

int gb_attention(struct gb *b, int32_t *out, struct gb_in q_in, struct gb_in kv_in, int64_t batch,
                 int64_t seq_q, int64_t seq_kv, int64_t d, int64_t heads, bool fused,
                 const char *name)
{
    int64_t rq = batch * seq_q, rk = batch * seq_kv, score = batch * heads * seq_q * seq_kv;
    struct gb_in q, k, v;
    int32_t id, probs, ctx;
    struct strbuf nm = STRBUF_INIT;
    int rc;

    if (fused) {
        CHECK(strbuf_setf(&nm, "%s/qkv", name));
        if ((rc = gb_linear(b, &id, q_in, rq, d, 3 * d, true, -1, nm.buf))) {
            goto cleanup;
        }
        q = k = v = (struct gb_in){id, 0};
    } else {
        CHECK(strbuf_setf(&nm, "%s/q", name));
        if ((rc = gb_linear(b, &id, q_in, rq, d, d, true, -1, nm.buf))) {
            goto cleanup;
        }
        q = (struct gb_in){id, 0};
        CHECK(strbuf_setf(&nm, "%s/k", name));
        if ((rc = gb_linear(b, &id, kv_in, rk, d, d, true, -1, nm.buf))) {
            goto cleanup;
        }
        k = (struct gb_in){id, 0};
        CHECK(strbuf_setf(&nm, "%s/v", name));
        if ((rc = gb_linear(b, &id, kv_in, rk, d, d, true, -1, nm.buf))) {
            goto cleanup;
        }
        v = (struct gb_in){id, 0};
    }
    CHECK(strbuf_setf(&nm, "%s/scores", name));
    if ((rc = gb_bmm(b, &id, q, k, (double)batch * seq_q * seq_kv * d, score, nm.buf))) {
        goto cleanup;
    }
    CHECK(strbuf_setf(&nm, "%s/softmax", name));
    if ((rc = gb_eltwise(b, &probs, "Softmax", &(struct gb_in){id, 0}, 1, score, 5, nm.buf))) {
        goto cleanup;
    }
    CHECK(strbuf_setf(&nm, "%s/dropout", name));
    if ((rc = gb_dropout(b, &probs, (struct gb_in){probs, 0}, score, nm.buf))) {
        goto cleanup;
    }
    CHECK(strbuf_setf(&nm, "%s/context", name));
    if ((rc = gb_bmm(b, &ctx, (struct gb_in){probs, 0}, v, (double)batch * seq_q * seq_kv * d,
                     rq * d, nm.buf))) {
        goto cleanup;
    }
    CHECK(strbuf_setf(&nm, "%s/out", name));
    rc = gb_linear(b, out, (struct gb_in){ctx, 0}, rq, d, d, true, -1, nm.buf);
cleanup:
    strbuf_release(&nm);
    return rc;
}
