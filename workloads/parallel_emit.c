/*
 * parallel_emit.c - writing the plans of the parallel transform as ops: each
 * rank's copies of the input ops (split by TP, sharded by ZeRO) and its
 * ops of the collectives, with the x-collective extension (parallel.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/parallel_internal.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Input (producer j, port) of an op of rank (d, t), resolved to its copy. */
static int add_input(struct workload *out, const struct ctx *x, int32_t j, int32_t port, int32_t d,
                     int32_t t, bool follow)
{
    int32_t r = t + x->o->tp * (d + x->o->dp * x->stage[j]);
    int32_t at = port != WL_PORT_CONTROL && follow ? x->redirect[x->w->op[j].out_off + port] : -1;

    if (at >= 0) {
        return workload_add_input(out, x->first_id[r] + at, 0, 0, 0);
    }
    return workload_add_input(out, x->first_id[r] + x->item_of[j], port, 0, 0);
}

/* Rank r's op of collective c (rank r = (p, d, t)). */
static int emit_coll(struct workload *out, const struct ctx *x, const struct coll *c, int32_t r)
{
    const int32_t T = x->o->tp, D = x->o->dp, t = r % T, d = r / T % D, p = r / T / D;
    struct strbuf id = STRBUF_INIT, name = STRBUF_INIT;
    char bytes[32], k0[] = "id", k1[] = "kind", k2[] = "bytes";
    char k3[] = "replicas", k4[] = "stride", reps[16], stride[16];
    char *keys[] = {k0, k1, k2, k3, k4};
    struct yval items[5] = {
        {.kind = YVAL_SCALAR, .scalar = NULL},   {.kind = YVAL_SCALAR, .scalar = (char *)c->kind},
        {.kind = YVAL_SCALAR, .scalar = bytes},  {.kind = YVAL_SCALAR, .scalar = reps},
        {.kind = YVAL_SCALAR, .scalar = stride},
    };
    /* symmetric (docs/symmetry.md): a DP collective's rank op of replica 0
     * stands for replicas 0..D-2, copy k on device r + k x T, replica D-1's
     * for itself; with TP symmetry a TP collective's of TP rank 0 for ranks
     * 0..T-2, copy k on device r + k, rank T-1's for itself */
    const bool tp_rep = parallel_tp_symmetric(x->o) && c->over_tp;
    const bool dp_rep = x->o->symmetric && !c->over_tp;
    const int32_t copies = tp_rep ? (t == 0 ? T - 1 : 1) : dp_rep ? (d == 0 ? D - 1 : 1) : 1;
    struct yval v = {.kind = YVAL_MAP,
                     .n = (tp_rep && T > 2) || (dp_rep && D > 2) ? 5 : 3,
                     .keys = keys,
                     .items = items};
    int32_t k, g = c->group_op >= 0 ? c->group_op : c->n_in > 0 ? x->cin[c->in_off].producer : -1;
    int rc;

    if ((rc = strbuf_addf(&id, c->over_tp ? "p%d.d%d/%s" : "p%d.t%d/%s", (int)p,
                          (int)(c->over_tp ? d : t), c->id)) ||
        (rc = strbuf_addf(&name, "r%d/%s", (int)r, id.buf))) {
        goto cleanup;
    }
    items[0].scalar = id.buf;
    snprintf(bytes, sizeof(bytes), "%lld", (long long)c->bytes);
    snprintf(reps, sizeof(reps), "%d", (int)copies);
    snprintf(stride, sizeof(stride), "%d", (int)(tp_rep ? 1 : T));
    if ((rc = workload_add_op(out, name.buf, c->type, &k)) ||
        (rc = workload_add_output(out, c->out))) {
        goto cleanup;
    }
    for (int32_t i = 0; i < c->n_in; i++) {
        const struct wl_input *in = &x->cin[c->in_off + i];

        if ((rc = add_input(out, x, in->producer, in->port, d, t, c->follow))) {
            goto cleanup;
        }
    }
    if ((rc = workload_add_ext(out, "x-collective", &v))) {
        goto cleanup;
    }
    /* Collectives follow their replicas: a rank op joins the colocation group
     * of the op whose output it reduces first (a ZeRO-3 gather: of the op
     * that reads it), so a placer that keeps groups (every placer's default
     * grouper) puts it on that replica's device.  The group is named from
     * the input graph: the copy may not be written yet. */
    if (g >= 0) {
        if ((rc = strbuf_setf(&name, "r%d/%s", (int)r, workload_group(x->w, g))) ||
            (rc = workload_set_group(out, k, name.buf))) {
            goto cleanup;
        }
    }
    out->op[k].time_us = 0;
    out->op[k].phase = c->phase;
    out->op[k].has_phase = true;
    out->op[k].device = r;
cleanup:
    strbuf_release(&id);
    strbuf_release(&name);
    return rc;
}

/* Rank r's copy of input op i. */
static int emit_copy(struct workload *out, const struct ctx *x, int32_t i, int32_t r)
{
    const struct wl_op *op = &x->w->op[i];
    const int32_t T = x->o->tp, D = x->o->dp, t = r % T, d = r / T % D;
    double div = parallel_tp_compute_div(x, i);
    struct strbuf name = STRBUF_INIT;
    struct wl_op *o;
    int32_t k;
    int rc;

    if (op->phase == PHASE_UPDATE && x->o->zero >= 1) {
        div *= D; /* each replica updates its shard */
    }
    if ((rc = strbuf_addf(&name, "r%d/%s", (int)r, op->name)) ||
        (rc = workload_add_op(out, name.buf, op->type, &k))) {
        goto cleanup;
    }
    for (int32_t p = 0; p < op->n_out; p++) {
        if ((rc = workload_add_output(out, parallel_out_bytes(x, i, p)))) {
            goto cleanup;
        }
    }
    for (int32_t j = 0; j < op->n_in; j++) {
        const struct wl_input *in = &x->w->input[op->in_off + j];
        int32_t ag = x->in_redirect[op->in_off + j];

        rc = ag >= 0 ? workload_add_input(out, x->first_id[r] + ag, 0, 0, 0)
                     : add_input(out, x, in->producer, in->port, d, t, true);
        if (rc) {
            goto cleanup;
        }
    }
    if (x->extra_in[i] >= 0 &&
        (rc = workload_add_input(out, x->first_id[r] + x->extra_in[i], 0, 0, 0))) {
        goto cleanup;
    }
    for (int32_t j = 0; j < op->n_ext; j++) {
        const struct wl_ext *e = &x->w->ext[op->ext_off + j];

        if ((rc = workload_add_ext(out, e->key, &e->val))) {
            goto cleanup;
        }
    }
    if (op->group) {
        if ((rc = strbuf_setf(&name, "r%d/%s", (int)r, op->group)) ||
            (rc = workload_set_group(out, k, name.buf))) {
            goto cleanup;
        }
    }
    o = &out->op[k];
    o->time_us = op->time_us / div;
    o->flops = op->flops / div;
    o->bytes = op->bytes / div;
    o->temp = (int64_t)ceil((double)op->temp / div);
    o->persistent = parallel_persistent_of(x, i);
    o->phase = op->phase;
    o->has_phase = op->has_phase;
    o->device = r;
    o->line = op->line;
    o->col = op->col;
cleanup:
    strbuf_release(&name);
    return rc;
}

int parallel_emit(struct workload *out, struct ctx *x)
{
    const int32_t T = x->o->tp, D = x->o->dp;
    int32_t id = 0;
    int rc;

    /* symmetric: a representative per class (docs/symmetry.md) */
    for (int32_t r = 0; r < x->n_dev; r++) {
        int32_t p = r / T / D;

        if (!parallel_rank_written(x->o, r)) {
            continue;
        }
        x->first_id[r] = id;
        id += x->plan_off[p + 1] - x->plan_off[p];
    }
    for (int32_t r = 0; r < x->n_dev; r++) {
        int32_t p = r / T / D;

        if (!parallel_rank_written(x->o, r)) {
            continue;
        }

        for (int32_t k = x->plan_off[p]; k < x->plan_off[p + 1]; k++) {
            const struct item *it = &x->plan[k];

            rc = it->src >= 0 ? emit_copy(out, x, it->src, r)
                              : emit_coll(out, x, &x->coll[it->coll], r);
            if (rc) {
                return rc;
            }
        }
    }
    return 0;
}

int parallel_copy_header(struct workload *out, const struct workload *in,
                         const struct parallel_opts *o)
{
    struct strbuf name = STRBUF_INIT;
    int rc;

    if ((rc = strbuf_addf(&name, "%s_dp%d_tp%d_pp%d%s%s", in->name ? in->name : "workload",
                          (int)o->dp, (int)o->tp, (int)o->pp, o->sp ? "_sp" : "",
                          o->zero == 1   ? "_zero1"
                          : o->zero == 2 ? "_zero2"
                          : o->zero == 3 ? "_zero3"
                                         : "")) == 0) {
        rc = workload_set_name(out, name.buf);
    }
    strbuf_release(&name);
    if (rc) {
        return rc;
    }
    if ((in->description && !(out->description = mem_strdup(in->description))) ||
        (in->source && !(out->source = mem_strdup(in->source))) ||
        (in->reference_device && !(out->reference_device = mem_strdup(in->reference_device)))) {
        return BAECHI_ENOMEM;
    }
    for (int32_t i = 0; i < in->n_top_ext; i++) {
        if ((rc = workload_set_top_ext(out, in->top_ext[i].key, &in->top_ext[i].val))) {
            return rc;
        }
    }
    if (o->symmetric) { /* docs/symmetry.md: a representative per class (classes: 4) */
        char k0[] = "replicas", k1[] = "stride", k2[] = "devices", k3[] = "tp", k4[] = "classes";
        char a[16], b[16], c[16], t[16], four[] = "4";
        char *keys[] = {k0, k1, k2, k3, k4};
        struct yval items[5] = {{.kind = YVAL_SCALAR, .scalar = a},
                                {.kind = YVAL_SCALAR, .scalar = b},
                                {.kind = YVAL_SCALAR, .scalar = c},
                                {.kind = YVAL_SCALAR, .scalar = t},
                                {.kind = YVAL_SCALAR, .scalar = four}};
        struct yval v = {.kind = YVAL_MAP, .n = 5, .keys = keys, .items = items};

        snprintf(t, sizeof(t), "%d", (int)(parallel_tp_symmetric(o) ? o->tp : 1));
        snprintf(a, sizeof(a), "%d", (int)o->dp);
        snprintf(b, sizeof(b), "%d", (int)o->tp);
        snprintf(c, sizeof(c), "%d", (int)(o->dp * o->tp * o->pp));
        if ((rc = workload_set_top_ext(out, "x-symmetry", &v))) {
            return rc;
        }
    }
    return 0;
}
