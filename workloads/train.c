/*
 * train.c - training-graph synthesis (see train.h for the rules).
 *
 * What TensorFlow's gradients() with colocate_gradients_with_ops=True and
 * an optimizer's apply ops give, reduced to one gradient op per forward op
 * and one update op per parameter-holding op.  O(V + E).
 *
 * deviation: the original profiles its training graphs from TensorFlow; we
 * derive them, so backward costs are a factor of the forward ones (default
 * 2, the usual estimate: gradients for inputs and for weights).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/train.h"

#include "core/array.h"
#include "core/err.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void train_opts_init(struct train_opts *o)
{
    o->bwd_factor = 2.0;
    o->optimizer = TRAIN_MOMENTUM;
    o->param_elem_bytes = 4;
}

static const char *const opt_names[] = {"sgd", "momentum", "adam"};

int train_parse_optimizer(const char *s, enum train_optimizer *opt)
{
    for (int i = 0; i < 3; i++) {
        if (strcmp(s, opt_names[i]) == 0) {
            *opt = (enum train_optimizer)i;
            return 0;
        }
    }
    return err_set(BAECHI_EINVAL, "unknown optimizer '%s' (known: sgd, momentum, adam)", s);
}

const char *train_optimizer_name(enum train_optimizer opt)
{
    return opt_names[opt];
}

/* Types that carry no gradient (TF's NotDifferentiable, ONNX's integer ops). */
static bool differentiable(const char *type)
{
    static const char *const none[] = {
        "Placeholder",
        "Const",
        "Constant",
        "ConstantOfShape",
        "Shape",
        "Size",
        "Rank",
        "NoOp",
        "Assign",
        "ArgMax",
        "ArgMin",
        "Equal",
        "NotEqual",
        "Less",
        "LessEqual",
        "Greater",
        "GreaterEqual",
        "IteratorGetNext",
        "OneShotIterator",
        "IteratorToStringHandle",
        "StopGradient",
        "ZerosLike",
        "OnesLike",
        "Fill",
        "RandomUniform",
        "TruncatedNormal",
        "RandomStandardNormal",
        "Range",
        "NonZero",
        NULL,
    };

    for (int i = 0; none[i]; i++) {
        if (strcmp(none[i], type) == 0) {
            return false;
        }
    }
    return true;
}

static int copy_header(struct workload *out, const struct workload *fwd)
{
    char name[512];
    int rc;

    snprintf(name, sizeof(name), "%s_train", fwd->name ? fwd->name : "workload");
    if ((rc = workload_set_name(out, name))) {
        return rc;
    }
    if ((fwd->description && !(out->description = array_strdup(fwd->description))) ||
        (fwd->source && !(out->source = array_strdup(fwd->source))) ||
        (fwd->reference_device && !(out->reference_device = array_strdup(fwd->reference_device)))) {
        return BAECHI_ENOMEM;
    }
    if (fwd->n_top_ext > 0) {
        out->top_ext = array_calloc((size_t)fwd->n_top_ext, sizeof(*out->top_ext));
        if (!out->top_ext) {
            return BAECHI_ENOMEM;
        }
        for (int32_t i = 0; i < fwd->n_top_ext; i++) {
            if (!(out->top_ext[i].key = array_strdup(fwd->top_ext[i].key)) ||
                yval_copy(&out->top_ext[i].val, &fwd->top_ext[i].val)) {
                out->n_top_ext = i + 1;
                return BAECHI_ENOMEM;
            }
            out->n_top_ext = i + 1;
        }
    }
    return 0;
}

static int copy_op(struct workload *out, const struct workload *fwd, int32_t i)
{
    const struct wl_op *op = &fwd->op[i];
    struct wl_op *dst;
    int32_t id;
    int rc;

    if ((rc = workload_add_op(out, op->name, op->type, &id))) {
        return rc;
    }
    for (int32_t k = 0; k < op->n_out; k++) {
        if ((rc = workload_add_output(out, fwd->out_bytes[op->out_off + k]))) {
            return rc;
        }
    }
    for (int32_t k = 0; k < op->n_in; k++) {
        const struct wl_input *in = &fwd->input[op->in_off + k];

        if ((rc = workload_add_input(out, in->producer, in->port, in->line, in->col))) {
            return rc;
        }
    }
    for (int32_t k = 0; k < op->n_ext; k++) {
        const struct wl_ext *e = &fwd->ext[op->ext_off + k];

        if ((rc = workload_add_ext(out, e->key, &e->val))) {
            return rc;
        }
    }
    if (op->group && (rc = workload_set_group(out, id, op->group))) {
        return rc;
    }
    dst = &out->op[id];
    dst->time_us = op->time_us;
    dst->flops = op->flops;
    dst->bytes = op->bytes;
    dst->temp = op->temp;
    dst->persistent = op->persistent;
    dst->phase = op->phase;
    dst->has_phase = op->has_phase;
    dst->device = op->device;
    dst->line = op->line;
    dst->col = op->col;
    return 0;
}

/* Adds op "<base><suffix>" (or "<base><suffix>_N" when taken). */
static int add_unique(struct workload *out, const char *base, const char *suffix, const char *type,
                      int32_t *id)
{
    char name[1024];

    snprintf(name, sizeof(name), "%s%s", base, suffix);
    for (int n = 1; workload_find(out, name) >= 0; n++) {
        snprintf(name, sizeof(name), "%s%s_%d", base, suffix, n);
    }
    return workload_add_op(out, name, type, id);
}

static double scaled(double v, double f)
{
    return isfinite(v) ? v * f : NAN;
}

static int64_t in_bytes(const struct workload *w, const struct wl_input *in)
{
    return w->out_bytes[w->op[in->producer].out_off + in->port];
}

int train_synthesize(struct workload *out, const struct workload *fwd, const struct train_opts *o,
                     struct train_stats *stats)
{
    int32_t n = fwd->n_op, head = 0, tail = 0;
    int32_t *indeg = NULL, *topo = NULL, *cstart = NULL, *cons = NULL, *gport = NULL;
    int32_t *nports = NULL, *bwd = NULL, *fill = NULL, *slot_op = NULL;
    bool *rg = NULL;
    struct train_stats st = {0, 0, 0, 0};
    double elem = o->param_elem_bytes > 0 ? o->param_elem_bytes : 4;
    char type[256];
    int rc = 0;

    workload_init(out);
    if (!(o->bwd_factor >= 0 && isfinite(o->bwd_factor))) {
        return err_set(BAECHI_EINVAL, "backward factor must be >= 0 (got %g)", o->bwd_factor);
    }
    indeg = array_calloc((size_t)n, sizeof(*indeg));
    topo = array_calloc((size_t)n, sizeof(*topo));
    cstart = array_calloc((size_t)n + 1, sizeof(*cstart));
    cons = array_calloc(fwd->n_input + 1, sizeof(*cons));
    gport = array_calloc(fwd->n_input + 1, sizeof(*gport));
    slot_op = array_calloc(fwd->n_input + 1, sizeof(*slot_op));
    nports = array_calloc((size_t)n, sizeof(*nports));
    bwd = array_calloc((size_t)n, sizeof(*bwd));
    fill = array_calloc((size_t)n + 1, sizeof(*fill));
    rg = array_calloc((size_t)n, sizeof(*rg));
    if (!indeg || !topo || !cstart || !cons || !gport || !slot_op || !nports || !bwd || !fill ||
        !rg) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    /* consumers (input slots) of every op, CSR by producer */
    for (size_t k = 0; k < fwd->n_input; k++) {
        if (fwd->input[k].producer < 0 || fwd->input[k].producer >= n) {
            rc = err_set(BAECHI_EINVAL, "training synthesis: input %zu names no op", k);
            goto cleanup;
        }
        cstart[fwd->input[k].producer + 1]++;
        gport[k] = -1;
    }
    for (int32_t i = 0; i < n; i++) {
        cstart[i + 1] += cstart[i];
        fill[i] = cstart[i];
        indeg[i] = fwd->op[i].n_in;
    }
    for (int32_t v = 0; v < n; v++) {
        for (int32_t k = 0; k < fwd->op[v].n_in; k++) {
            int32_t slot = fwd->op[v].in_off + k;

            slot_op[slot] = v;
            cons[fill[fwd->input[slot].producer]++] = slot;
        }
    }
    /* Kahn's order over data and control inputs */
    for (int32_t i = 0; i < n; i++) {
        if (indeg[i] == 0) {
            topo[tail++] = i;
        }
    }
    while (head < tail) {
        int32_t u = topo[head++];

        for (int32_t e = cstart[u]; e < cstart[u + 1]; e++) {
            int32_t v = slot_op[cons[e]];

            if (--indeg[v] == 0) {
                topo[tail++] = v;
            }
        }
    }
    if (tail < n) {
        for (int32_t i = 0; i < n; i++) {
            if (indeg[i] > 0) {
                rc =
                    err_set(BAECHI_EINVAL, "training synthesis: the graph has a cycle through '%s'",
                            fwd->op[i].name);
                goto cleanup;
            }
        }
    }
    /* which ops require a gradient, in topological order */
    for (int32_t p = 0; p < n; p++) {
        int32_t v = topo[p];
        const struct wl_op *op = &fwd->op[v];

        if (!(isfinite(op->time_us) || isfinite(op->flops)) || !differentiable(op->type)) {
            continue;
        }
        rg[v] = op->persistent > 0;
        for (int32_t k = 0; k < op->n_in; k++) {
            const struct wl_input *in = &fwd->input[op->in_off + k];

            if (in->port != WL_PORT_CONTROL && rg[in->producer]) {
                gport[op->in_off + k] = nports[v]++;
                rg[v] = true;
            }
        }
    }

    /* the forward ops, unchanged */
    if ((rc = copy_header(out, fwd))) {
        goto cleanup;
    }
    for (int32_t i = 0; i < n; i++) {
        if ((rc = copy_op(out, fwd, i))) {
            goto cleanup;
        }
    }
    /* gradient ops, in reverse topological order */
    for (int32_t p = n - 1; p >= 0; p--) {
        int32_t v = topo[p], id, n_grad_in = 0;
        const struct wl_op *op = &fwd->op[v];
        struct wl_op *g;

        if (!rg[v]) {
            continue;
        }
        snprintf(type, sizeof(type), "%sGrad", op->type);
        if ((rc = add_unique(out, op->name, "/grad", type, &id))) {
            goto cleanup;
        }
        bwd[v] = id;
        for (int32_t k = 0; k < op->n_in; k++) {
            if (gport[op->in_off + k] >= 0 &&
                (rc = workload_add_output(out, in_bytes(fwd, &fwd->input[op->in_off + k])))) {
                goto cleanup;
            }
        }
        if (op->persistent > 0 && (rc = workload_add_output(out, op->persistent))) {
            goto cleanup;
        }
        /* gradients of the outputs, from the consumers' gradient ops */
        for (int32_t e = cstart[v]; e < cstart[v + 1]; e++) {
            int32_t slot = cons[e], c = slot_op[slot];

            if (rg[c] && gport[slot] >= 0) {
                if ((rc = workload_add_input(out, bwd[c], gport[slot], 0, 0))) {
                    goto cleanup;
                }
                n_grad_in++;
            }
        }
        if (n_grad_in == 0) { /* a loss: starts the backward pass */
            rc = workload_add_input(out, v, op->n_out > 0 ? 0 : WL_PORT_CONTROL, 0, 0);
            if (rc) {
                goto cleanup;
            }
        }
        /* the forward inputs (activations kept alive until here) */
        for (int32_t k = 0; k < op->n_in; k++) {
            const struct wl_input *in = &fwd->input[op->in_off + k];

            if (in->port != WL_PORT_CONTROL &&
                (rc = workload_add_input(out, in->producer, in->port, 0, 0))) {
                goto cleanup;
            }
        }
        if ((rc = workload_set_group(out, id, workload_group(fwd, v)))) {
            goto cleanup;
        }
        g = &out->op[id];
        g->time_us = scaled(op->time_us, o->bwd_factor);
        g->flops = scaled(op->flops, o->bwd_factor);
        g->bytes = scaled(op->bytes, o->bwd_factor);
        g->temp = op->temp;
        g->phase = PHASE_BACKWARD;
        g->has_phase = true;
        g->device = op->device;
        st.n_backward++;
    }
    /* optimizer updates, in forward order */
    for (int32_t v = 0; v < n; v++) {
        static const char *const types[] = {"ApplyGradientDescent", "ApplyMomentum", "ApplyAdam"};
        static const double state[] = {0, 1, 2}, flops_per[] = {2, 4, 12};
        const struct wl_op *op = &fwd->op[v];
        double pbytes = (double)op->persistent;
        struct wl_op *u;
        int32_t id;

        if (!rg[v] || op->persistent <= 0) {
            continue;
        }
        if ((rc = add_unique(out, op->name, "/update", types[o->optimizer], &id)) ||
            (rc = workload_add_input(out, bwd[v], nports[v], 0, 0)) ||
            (rc = workload_set_group(out, id, workload_group(fwd, v)))) {
            goto cleanup;
        }
        u = &out->op[id];
        u->persistent = (int64_t)(state[o->optimizer] * pbytes);
        u->flops = flops_per[o->optimizer] * pbytes / elem;
        u->bytes = (3.0 + 2.0 * state[o->optimizer]) * pbytes;
        u->phase = PHASE_UPDATE;
        u->has_phase = true;
        u->device = op->device;
        st.n_update++;
        st.param_bytes += op->persistent;
        st.optimizer_bytes += u->persistent;
    }
    if (stats) {
        *stats = st;
    }
cleanup:
    free(indeg);
    free(topo);
    free(cstart);
    free(cons);
    free(gport);
    free(slot_op);
    free(nports);
    free(bwd);
    free(fill);
    free(rg);
    if (rc) {
        workload_release(out);
    }
    return rc;
}
