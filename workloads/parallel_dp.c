/*
 * parallel_dp.c - data parallelism in the parallel transform: PyTorch DDP's
 * gradient buckets (Li et al. VLDB 2020), ZeRO stages 1-3 (Rajbhandari et
 * al. SC 2020) and the optimizer state per rank (parallel.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/parallel_internal.h"

#include "core/alloc.h"
#include "core/err.h"

#include <stdio.h>
#include <stdlib.h>

/* The parameter bytes of update op u's parameters on one TP rank (the weight
 * gradient it reads). */
int64_t parallel_update_param_bytes(const struct ctx *x, int32_t u)
{
    const struct wl_input *in = &x->w->input[x->w->op[u].in_off];

    if (x->w->op[u].n_in < 1 || in->port == WL_PORT_CONTROL) {
        return 0; /* not an update of the training synthesis: no gradient read */
    }
    return parallel_out_bytes(x, in->producer, in->port);
}

/* Persistent bytes of op i on one rank. */
/* The optimizer state of `param_bytes` of fp16 parameters with `states`
 * states each: an fp32 master copy and fp32 states (4 + 4 x states bytes per
 * parameter), and Megatron's fp32 main gradients (4 more) when asked. */
static int64_t mixed_state_bytes(const struct parallel_opts *o, int64_t states, int64_t param_bytes)
{
    return (4 + 4 * states + (o->fp32_main_grads ? 4 : 0)) * (param_bytes / 2);
}

int parallel_precision_apply(struct workload *w, const struct parallel_opts *o)
{
    if (o->fp32_main_grads && !o->mixed_precision) {
        return err_set(BAECHI_EINVAL, "--fp32-main-grads keeps fp32 gradients of fp16 "
                                      "parameters and needs --mixed-precision");
    }
    for (int32_t i = 0; i < w->n_ops && o->mixed_precision; i++) {
        struct wl_op *op = &w->op[i];
        const struct wl_input *in = &w->input[op->in_off];
        int64_t full;

        if (op->phase != PHASE_UPDATE || op->n_in < 1 || in->port == WL_PORT_CONTROL) {
            continue;
        }
        full = w->out_bytes[w->op[in->producer].out_off + in->port];
        if (full > 0) {
            op->persistent = mixed_state_bytes(o, op->persistent / full, full);
        }
    }
    return 0;
}

int64_t parallel_persistent_of(const struct ctx *x, int32_t i)
{
    const struct wl_op *op = &x->w->op[i];
    const struct parallel_opts *o = x->o;
    int64_t v = op->persistent, d = o->dp;

    if (op->phase == PHASE_UPDATE) {
        const struct wl_input *in = &x->w->input[op->in_off];
        int64_t full = op->n_in > 0 && in->port != WL_PORT_CONTROL
                           ? x->w->out_bytes[x->w->op[in->producer].out_off + in->port]
                           : 0;
        int64_t states = full > 0 ? v / full : 0;

        if (o->mixed_precision && full > 0) { /* fp32 master copy + states of fp16 params */
            v = mixed_state_bytes(o, states, parallel_update_param_bytes(x, i));
        } else if (x->role[x->base[i]] != TP_NONE && x->role[x->base[i]] != TP_SEQ) {
            v = parallel_tp_share(x, i, v, o->tp);
        }
        return o->zero >= 1 ? (v + d - 1) / d : v;
    }
    if (x->role[x->base[i]] != TP_NONE && x->role[x->base[i]] != TP_SEQ) {
        v = parallel_tp_share(x, i, v, o->tp);
    }
    return o->zero >= 3 && op->phase == PHASE_FORWARD ? (v + d - 1) / d : v;
}

/* An update op and the op whose gradient it reads, sorted by the latter. */
struct upd_pair {
    int32_t producer, update;
};

static int cmp_pair(const void *a, const void *b)
{
    const struct upd_pair *x = a, *y = b;

    if (x->producer != y->producer) {
        return (x->producer > y->producer) - (x->producer < y->producer);
    }
    return (x->update > y->update) - (x->update < y->update);
}

/* DDP buckets of every stage: bucket b holds the updates ord[bk_start[b] ..
 * bk_start[b + 1]); after_grad[i] = the bucket ending with op i's gradient,
 * after_upd[i] = the bucket whose last update (in file order) is i. */
int parallel_dp_plan_buckets(struct ctx *x, int32_t *ord, int32_t *after_grad, int32_t *after_upd,
                             int32_t *bk_start, int32_t *n_bk)
{
    const struct workload *w = x->w;
    const int64_t cap = (int64_t)(x->o->bucket_mb * 1048576.0);
    struct upd_pair *pair = mem_alloc_array((size_t)x->n + 1, sizeof(*pair));
    int32_t n = 0, nb = 0;
    int64_t fill = 0;

    if (!pair) {
        return BAECHI_ENOMEM;
    }
    for (int32_t p = 0; p < x->o->pp; p++) {
        int32_t first = n;

        for (int32_t i = 0; i < x->n; i++) {
            const struct wl_op *op = &w->op[i];

            if (x->stage[i] == p && op->phase == PHASE_UPDATE && op->n_in > 0 &&
                w->input[op->in_off].port != WL_PORT_CONTROL) {
                pair[n++] = (struct upd_pair){w->input[op->in_off].producer, i};
            }
        }
        /* the order backward makes the gradients in (the input lists
         * gradient ops in reverse topological order): O(U log U) */
        qsort(pair + first, (size_t)(n - first), sizeof(*pair), cmp_pair);
        for (int32_t k = first; k < n; k++) {
            int64_t b = parallel_update_param_bytes(x, pair[k].update);

            ord[k] = pair[k].update;
            if (k == first || (fill > 0 && fill + b > cap)) {
                bk_start[nb++] = k;
                fill = 0;
            }
            fill += b;
        }
    }
    free(pair);
    bk_start[nb] = n;
    for (int32_t b = 0; b < nb; b++) {
        int32_t last_upd = -1;

        for (int32_t k = bk_start[b]; k < bk_start[b + 1]; k++) {
            last_upd = ord[k] > last_upd ? ord[k] : last_upd;
        }
        after_grad[w->input[w->op[ord[bk_start[b + 1] - 1]].in_off].producer] = b;
        after_upd[last_upd] = b;
    }
    *n_bk = nb;
    return 0;
}

/* ZeRO-3: the all-gather of op i's parameters, before i (which reads it). */
int parallel_dp_plan_gather(struct ctx *x, int32_t i)
{
    const struct wl_op *op = &x->w->op[i];
    struct coll c = {"AllGather", "all-gather", "", false, 0, 0, op->phase, 0, 0, -1, false};
    int32_t at, u = x->upd[x->base[i]], rc;

    c.in_off = (int32_t)x->n_cin;
    c.bytes = c.out = parallel_update_param_bytes(x, u);
    c.group_op = i; /* its reader's: the producer of its control input may be in another stage */
    if ((rc = parallel_coll_id(x, &c, "zero3/%s/ag", op->name))) {
        return rc;
    }
    if (op->n_in > 0) {
        if ((rc = parallel_add_cin(x, x->w->input[op->in_off].producer, WL_PORT_CONTROL))) {
            return rc;
        }
        c.n_in = 1;
    }
    if ((rc = parallel_push_coll(x, x->stage[i], &c, &at))) {
        return rc;
    }
    x->extra_in[i] = at;
    return 0;
}

/* Bucket b's all-reduce (ZeRO-2/3: reduce-scatter), after its last gradient,
 * or (upd) ZeRO-1/2's all-gather of its updated parameters. */
int parallel_dp_plan_bucket(struct ctx *x, int32_t b, const int32_t *ord, const int32_t *bk_start,
                            bool upd)
{
    const struct workload *w = x->w;
    struct coll c = {"AllReduce", "all-reduce", "", false, 0, 0, PHASE_BACKWARD, 0, 0, -1, false};
    int32_t at, rc;

    c.in_off = (int32_t)x->n_cin;
    for (int32_t k = bk_start[b]; k < bk_start[b + 1]; k++) {
        const struct wl_input *in = &w->input[w->op[ord[k]].in_off];

        c.bytes += parallel_update_param_bytes(x, ord[k]);
        if ((rc = upd ? parallel_add_cin(x, ord[k], WL_PORT_CONTROL)
                      : parallel_add_cin(x, in->producer, in->port))) {
            return rc;
        }
        c.n_in++;
    }
    if (!upd && x->o->fp32_main_grads) {
        c.bytes *= 2; /* Megatron reduces the fp32 main gradients */
    }
    c.out = c.bytes;
    if (upd) {
        c.type = "AllGather";
        c.kind = "all-gather";
        c.phase = PHASE_UPDATE;
        if ((rc = parallel_coll_id(x, &c, "zero/b%d/ag", (int)b))) {
            return rc;
        }
    } else {
        if ((rc = parallel_coll_id(x, &c, "ddp/b%d", (int)b))) {
            return rc;
        }
        if (x->o->zero >= 2) {
            c.type = "ReduceScatter";
            c.kind = "reduce-scatter";
            c.out = (c.bytes + x->o->dp - 1) / x->o->dp;
        }
    }
    if ((rc = parallel_push_coll(x, x->stage[ord[bk_start[b]]], &c, &at))) {
        return rc;
    }
    for (int32_t k = bk_start[b]; k < bk_start[b + 1] && !upd; k++) {
        const struct wl_input *in = &w->input[w->op[ord[k]].in_off];

        x->redirect[w->op[in->producer].out_off + in->port] = at;
    }
    return 0;
}
