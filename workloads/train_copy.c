/*
 * train_copy.c - the forward part of a training graph: the header, and each
 * forward op copied once per micro-batch with its train_share of the costs and
 * activations, tagged with its micro-batch and the storage it aliases.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/train.h"
#include "workloads/train_internal.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/strbuf.h"
#include "workloads/op_names.h"
#include "workloads/ops.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int train_copy_header(struct workload *out, const struct workload *fwd)
{
    struct strbuf name = STRBUF_INIT;
    int rc;

    if ((rc = strbuf_addf(&name, "%s_train", fwd->name ? fwd->name : "workload")) == 0) {
        rc = workload_set_name(out, name.buf);
    }
    strbuf_release(&name);
    if (rc) {
        return rc;
    }
    if ((fwd->description && !(out->description = mem_strdup(fwd->description))) ||
        (fwd->source && !(out->source = mem_strdup(fwd->source))) ||
        (fwd->reference_device && !(out->reference_device = mem_strdup(fwd->reference_device)))) {
        return BAECHI_ENOMEM;
    }
    if (fwd->n_top_ext > 0) {
        out->top_ext = mem_calloc((size_t)fwd->n_top_ext, sizeof(*out->top_ext));
        if (!out->top_ext) {
            return BAECHI_ENOMEM;
        }
        for (int32_t i = 0; i < fwd->n_top_ext; i++) {
            if (!(out->top_ext[i].key = mem_strdup(fwd->top_ext[i].key)) ||
                yval_copy(&out->top_ext[i].val, &fwd->top_ext[i].val)) {
                out->n_top_ext = i + 1;
                return BAECHI_ENOMEM;
            }
            out->n_top_ext = i + 1;
        }
    }
    return 0;
}

/* Tags the last op of out with its micro-batch (GRAPH_MICRO_BATCH_KEY). */
int train_tag_micro_batch(struct workload *out, int32_t mb)
{
    char text[16];
    struct yval v = {.kind = YVAL_SCALAR, .scalar = text};

    snprintf(text, sizeof(text), "%d", (int)mb);
    return workload_add_ext(out, GRAPH_MICRO_BATCH_KEY, &v);
}

/* Marks the last op of out (one output) as sharing input k's storage. */
static int tag_alias(struct workload *out, int32_t k)
{
    char text[16];
    struct yval item = {.kind = YVAL_SCALAR, .scalar = text};
    struct yval seq = {.kind = YVAL_SEQ, .n = 1, .items = &item};

    snprintf(text, sizeof(text), "%d", (int)k);
    return workload_add_ext(out, GRAPH_ALIAS_KEY, &seq);
}

/* ceil(v / m) for sizes: a micro-batch holds its train_share, rounded up. */
int64_t train_share(int64_t v, int32_t m)
{
    return v > 0 ? (v + m - 1) / m : v;
}

/*
 * Copies forward op i of fwd as copy `mb` of `n_mb` micro-batches (n_mb 1:
 * unchanged), its producers remapped through fid (ids of the copies of
 * micro-batch mb).  A copy of a micro-batched op has 1/n_mb of the costs
 * and activations; only copy 0 holds the persistent bytes (parameters are
 * stored once), and all copies train_share the op's colocation group.
 */
int train_copy_op(struct workload *out, const struct workload *fwd, int32_t i, int32_t mb,
                  int32_t n_mb, const int32_t *fid, int32_t alias_in, int64_t extra)
{
    const struct wl_op *op = &fwd->op[i];
    struct wl_op *dst;
    struct strbuf name = STRBUF_INIT;
    int32_t id;
    int rc;

    if (n_mb > 1 && (rc = strbuf_addf(&name, "%s/mb%d", op->name, (int)mb))) {
        return rc;
    }
    rc = workload_add_op(out, n_mb > 1 ? name.buf : op->name, op->type, &id);
    strbuf_release(&name);
    if (rc) {
        return rc;
    }
    for (int32_t k = 0; k < op->n_out; k++) {
        if ((rc = workload_add_output(out, train_share(fwd->out_bytes[op->out_off + k], n_mb)))) {
            return rc;
        }
    }
    /* a buffer saved for backward (max pooling's indices, a dropout mask) */
    if (extra > 0 && (rc = workload_add_output(out, train_share(extra, n_mb)))) {
        return rc;
    }
    for (int32_t k = 0; k < op->n_in; k++) {
        const struct wl_input *in = &fwd->input[op->in_off + k];

        if ((rc = workload_add_input(out, fid[in->producer], in->port, in->line, in->col))) {
            return rc;
        }
    }
    for (int32_t k = 0; k < op->n_ext; k++) {
        const struct wl_ext *e = &fwd->ext[op->ext_off + k];

        if ((n_mb > 1 && strcmp(e->key, GRAPH_MICRO_BATCH_KEY) == 0) ||
            (alias_in >= 0 && strcmp(e->key, GRAPH_ALIAS_KEY) == 0)) {
            continue; /* replaced by this copy's */
        }
        if ((rc = workload_add_ext(out, e->key, &e->val))) {
            return rc;
        }
    }
    if (n_mb > 1 && (rc = train_tag_micro_batch(out, mb))) {
        return rc;
    }
    if (alias_in >= 0 && (rc = tag_alias(out, alias_in))) {
        return rc;
    }
    if (n_mb > 1) {
        rc = workload_set_group(out, id, workload_group(fwd, i));
    } else if (op->group) {
        rc = workload_set_group(out, id, op->group);
    }
    if (rc) {
        return rc;
    }
    dst = &out->op[id];
    dst->time_us = op->time_us / n_mb;
    dst->flops = op->flops / n_mb;
    dst->bytes = op->bytes / n_mb;
    if (alias_in >= 0 && !ops_runs_in_place(op->type) && isfinite(op->flops + op->bytes)) {
        /* a view moves nothing: no kernel (its time, when measured, stays) */
        dst->flops = dst->bytes = 0;
    }
    dst->temp = train_share(op->temp, n_mb);
    dst->persistent = mb == 0 ? op->persistent : 0;
    dst->phase = op->phase;
    dst->has_phase = op->has_phase;
    dst->device = op->device;
    dst->line = op->line;
    dst->col = op->col;
    return 0;
}

/* Adds op "<base><suffix>" (or "<base><suffix>_N" when taken, op_names.h). */
