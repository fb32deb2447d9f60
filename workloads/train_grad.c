/*
 * train_grad.c - the gradient ops of one forward op: one "<name>/grad" op
 * of type "<type>Grad" per forward op that needs a gradient, its inputs the
 * incoming gradients and what the op's backward saves (read from the
 * recomputed copy where there is one), its costs the forward's times the
 * backward factor (train.h for the rules).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/train.h"
#include "workloads/train_internal.h"

#include "core/array.h"
#include "core/err.h"
#include "core/strbuf.h"
#include "workloads/op_names.h"
#include "workloads/ops.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int train_add_unique(struct workload *out, struct op_names *names, const char *base,
                     const char *suffix, const char *type, int32_t *id)
{
    struct strbuf joined = STRBUF_INIT, name = STRBUF_INIT;
    int rc;

    if ((rc = strbuf_addf(&joined, "%s%s", base, suffix)) == 0 &&
        (rc = op_names_unique(names, out, joined.buf, &name)) == 0) {
        rc = workload_add_op(out, name.buf, type, id);
    }
    strbuf_release(&joined);
    strbuf_release(&name);
    return rc;
}

/* Adds op "<name>/grad" of type "<type>Grad" (train_add_unique); name is copied
 * first: adding an op may move the op array it points into. */
static int add_grad_op(struct workload *out, struct op_names *names, const char *name,
                       const char *type, int32_t *id)
{
    struct strbuf base = STRBUF_INIT, gtype = STRBUF_INIT;
    int rc;

    if ((rc = strbuf_addstr(&base, name)) == 0 && (rc = strbuf_addf(&gtype, "%sGrad", type)) == 0) {
        rc = train_add_unique(out, names, base.buf, "/grad", gtype.buf, id);
    }
    strbuf_release(&base);
    strbuf_release(&gtype);
    return rc;
}

static double scaled(double v, double f)
{
    return isfinite(v) ? v * f : NAN;
}

/*
 * OPS_SAVE_OTHER_INPUTS: each data input of op that another data input's
 * gradient needs (x * y: y for x's gradient, x for y's), read from its
 * (recomputed) producer.
 */
static int add_saved_for_others(struct workload *out, const struct workload *fwd,
                                const struct wl_op *op, int32_t m, const int32_t *f,
                                const struct grad_ctx *x)
{
    for (int32_t k = 0; k < op->n_in; k++) {
        const struct wl_input *in = &fwd->input[op->in_off + k];
        bool other = false;
        int rc;

        for (int32_t j = 0; j < op->n_in && in->port != WL_PORT_CONTROL; j++) {
            const struct wl_input *o = &fwd->input[op->in_off + j];

            other = other || (j != k && o->port != WL_PORT_CONTROL && x->rg[o->producer]);
        }
        if (other && (rc = workload_add_input(out, recompute_source(x->rec, m, in->producer, f),
                                              in->port, 0, 0))) {
            return rc;
        }
    }
    return 0;
}

/*
 * Whether the gradient op of a sink (no consumer with a gradient) reads its
 * output: a loss does (its gradient needs the logits); a sink of a known
 * type that is no loss (an imported block or CNN without its loss: Add,
 * MatMul, Gemm...) is seeded with a given output gradient, as PyTorch's
 * out.sum().backward() or a loss outside the graph, and only orders the
 * backward pass after it (a control input).  Unknown and model-specific
 * types (OPS_CAT_OTHER: synthetic ops) keep reading it, as before.
 */
static bool seed_reads_output(const struct wl_op *op)
{
    const struct ops_row *row = ops_find(op->type);

    return !row || row->cat == OPS_CAT_LOSS || row->cat == OPS_CAT_OTHER;
}

/*
 * The gradient op of forward op v in micro-batch m (train.h): it outputs a
 * gradient per input that needs one and, for an op with parameters, the
 * weight gradient; it reads the gradients its consumers' gradient ops give
 * for its outputs (of every micro-batch when v is shared), the previous
 * micro-batch's weight gradient (gradient accumulation), and the inputs of
 * its forward copy.
 */
int train_add_grad(struct workload *out, const struct workload *fwd, const struct train_opts *o,
                   int32_t v, int32_t m, int32_t n_mb, struct grad_ctx *x, struct train_stats *st)
{
    const struct wl_op *op = &fwd->op[v];
    const int32_t n = x->n, *f = x->fid + (size_t)m * n;
    const bool mbv = x->rep[v] && n_mb > 1;
    int32_t id, cm, n_grad_in = 0;
    struct wl_op *g;
    double t, fl, by;
    int64_t temp;
    int rc;

    if ((rc = add_grad_op(out, x->names, out->op[f[v]].name, op->type, &id))) {
        return rc;
    }
    x->bwd[(size_t)m * n + v] = id;
    for (int32_t k = 0; k < op->n_in; k++) {
        const struct wl_input *in = &fwd->input[op->in_off + k];
        const struct wl_op *src = &out->op[f[in->producer]];

        if (x->gport[op->in_off + k] >= 0 &&
            (rc = workload_add_output(out, out->out_bytes[src->out_off + in->port]))) {
            return rc;
        }
    }
    if (op->persistent > 0 && (rc = workload_add_output(out, op->persistent))) {
        return rc;
    }
    /* gradients of the outputs, from the consumers' gradient ops */
    for (int32_t e = x->cstart[v]; e < x->cstart[v + 1]; e++) {
        int32_t slot = x->cons[e], c = x->slot_op[slot];

        if (!x->rg[c] || x->gport[slot] < 0) {
            continue;
        }
        /* a micro-batched op reads its own micro-batch; a shared op the
         * last micro-batch of a micro-batched consumer, whose gradient op
         * holds the sum over the micro-batches (accumulated on the
         * consumer's side, below) */
        cm = !x->rep[c] ? 0 : x->rep[v] ? m : n_mb - 1;
        if ((rc = workload_add_input(out, x->bwd[(size_t)cm * n + c], x->gport[slot], 0, 0))) {
            return rc;
        }
        n_grad_in++;
    }
    if (n_grad_in == 0) { /* a loss: starts the backward pass */
        rc = workload_add_input(out, f[v],
                                op->n_out > 0 && seed_reads_output(op) ? 0 : WL_PORT_CONTROL, 0, 0);
        if (rc) {
            return rc;
        }
    }
    /* gradient accumulation: one buffer, added to micro-batch after micro-batch */
    if (mbv && op->persistent > 0 && m > 0 &&
        (rc = workload_add_input(out, x->bwd[(size_t)(m - 1) * n + v], x->nports[v], 0, 0))) {
        return rc;
    }
    /* likewise the gradient of a shared input (a variable, a tied weight read
     * by several ops): one buffer per consumer, so that the shared op's
     * gradient reads one sum per consumer, once a step (Megatron's
     * embedding-group all-reduce, DDP's bucket), not every micro-batch's */
    for (int32_t k = 0; mbv && m > 0 && k < op->n_in; k++) {
        const struct wl_input *in = &fwd->input[op->in_off + k];
        int32_t gp = x->gport[op->in_off + k];

        if (gp >= 0 && !x->rep[in->producer] &&
            (rc = workload_add_input(out, x->bwd[(size_t)(m - 1) * n + v], gp, 0, 0))) {
            return rc;
        }
    }
    /* what the backward needs of the forward pass (kept alive until here) */
    switch (train_save_rule_of(o, op->type)) {
    case OPS_SAVE_INPUTS:
    case OPS_SAVE_FIRST_INPUT:
        for (int32_t k = 0; k < op->n_in; k++) {
            const struct wl_input *in = &fwd->input[op->in_off + k];

            if (in->port == WL_PORT_CONTROL) {
                continue;
            }
            if ((rc = workload_add_input(out, recompute_source(x->rec, m, in->producer, f),
                                         in->port, 0, 0))) {
                return rc;
            }
            if (train_save_rule_of(o, op->type) == OPS_SAVE_FIRST_INPUT) {
                break;
            }
        }
        break;
    case OPS_SAVE_RESULT:
        for (int32_t k = 0; k < op->n_out && n_grad_in > 0; k++) {
            if ((rc = workload_add_input(out, recompute_source(x->rec, m, v, f), k, 0, 0))) {
                return rc;
            }
        }
        break;
    case OPS_SAVE_OTHER_INPUTS:
        if ((rc = add_saved_for_others(out, fwd, op, m, f, x))) {
            return rc;
        }
        break;
    case OPS_SAVE_NOTHING:
        break;
    }
    if (out->op[f[v]].n_out > op->n_out) { /* the saved buffer */
        int32_t from = recompute_source(x->rec, m, v, f);

        /* recomputed (its copy made the buffer again, as a checkpointed
         * forward saves no mask): the forward copy keeps none, else it
         * would stay with that copy's outputs, a recomputed layer's input */
        if (from != f[v]) {
            out->out_bytes[out->op[f[v]].out_off + op->n_out] = 0;
        }
        if ((rc = workload_add_input(out, from, op->n_out, 0, 0))) {
            return rc;
        }
    }
    if ((rc = workload_set_group(out, id, workload_group(fwd, v)))) {
        return rc;
    }
    /* the forward copy's costs (1/n_mb of the op's when micro-batched) */
    t = out->op[f[v]].time_us;
    fl = out->op[f[v]].flops;
    by = out->op[f[v]].bytes;
    temp = out->op[f[v]].temp;
    g = &out->op[id];
    g->time_us = scaled(t, o->bwd_factor);
    g->flops = scaled(fl, o->bwd_factor);
    g->bytes = scaled(by, o->bwd_factor);
    if (!o->save_all_inputs && (ops_is_view(op->type) || ops_has_flag(op->type, OPS_POOL_PAD)) &&
        out->op[f[v]].flops == 0 && out->op[f[v]].bytes == 0) {
        g->flops = g->bytes = 0; /* the gradient of a view is a view */
    }
    g->temp = temp;
    g->phase = PHASE_BACKWARD;
    g->has_phase = true;
    g->device = op->device;
    st->n_backward++;
    return mbv ? train_tag_micro_batch(out, m) : 0;
}
