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

void train_opts_init(struct train_opts *o)
{
    o->bwd_factor = 2.0;
    o->optimizer = TRAIN_MOMENTUM;
    o->param_elem_bytes = 4;
    o->micro_batches = 1;
    o->save_all_inputs = false;
    pipeline_opts_init(&o->pipeline);
    o->recompute = TRAIN_RECOMPUTE_NONE;
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

int train_opts_check(const struct train_opts *o)
{
    struct train_opts d;

    train_opts_init(&d);
    if (o->micro_batches < 2 && o->pipeline.schedule != d.pipeline.schedule) {
        return err_set(BAECHI_EINVAL,
                       "--schedule %s orders micro-batches and needs --micro-batches 2 or more "
                       "(one micro-batch runs the same under every schedule)",
                       pipeline_schedule_name(o->pipeline.schedule));
    }
    return 0;
}

const char *train_optimizer_name(enum train_optimizer opt)
{
    return opt_names[opt];
}

/*
 * What an op's backward reads from its forward pass (workloads/ops.h, the
 * save column); save_all_inputs: every data input, the earlier rule.
 */
enum ops_save train_save_rule_of(const struct train_opts *o, const char *type)
{
    return o->save_all_inputs ? OPS_SAVE_INPUTS : ops_save_of(type);
}

/*
 * Bytes of the extra buffer an op saves for backward beside its tensors,
 * from its first output (ops.h, extra_bytes_per_elem: max pooling's
 * indices, dropout's mask).  0 for the others.
 */
static int64_t saved_extra_bytes(const struct train_opts *o, const struct workload *fwd,
                                 const struct wl_op *op)
{
    int64_t elem = o->param_elem_bytes > 0 ? o->param_elem_bytes : 4;
    int per_elem = ops_extra_bytes_per_elem(op->type);

    if (o->save_all_inputs || op->n_out < 1 || per_elem == 0) {
        return 0;
    }
    return fwd->out_bytes[op->out_off] / elem * per_elem;
}

/*
 * A Pad whose one reader is a pooling op: the pooling's own padding, which
 * the ONNX exporter writes as a separate op (F.avg_pool2d(x, padding=1)
 * becomes Pad + AveragePool).  The framework pads inside the pooling and
 * saves the unpadded input, so the Pad is taken as a view of its input.
 */
static bool pad_of_pool(const struct workload *fwd, int32_t v, const int32_t *cstart,
                        const int32_t *cons, const int32_t *slot_op, const int32_t *port_uses)
{
    const struct wl_op *op = &fwd->op[v];

    if (!ops_has_flag(op->type, OPS_POOL_PAD) || op->n_out != 1 || port_uses[op->out_off] != 1) {
        return false;
    }
    for (int32_t e = cstart[v]; e < cstart[v + 1]; e++) {
        const char *t = fwd->op[slot_op[cons[e]]].type;

        if (fwd->input[cons[e]].port == 0) {
            return ops_is_pool(t);
        }
    }
    return false;
}

/* The index in op's inputs of its first data input, -1 when none. */
static int32_t first_data_input(const struct workload *w, const struct wl_op *op)
{
    for (int32_t k = 0; k < op->n_in; k++) {
        if (w->input[op->in_off + k].port != WL_PORT_CONTROL) {
            return k;
        }
    }
    return -1;
}
/* The forward graph's structure and the plan of the training graph. */
struct synth {
    int32_t n, n_mb;               /* forward ops, micro-batches */
    int32_t *indeg, *topo, *fill;  /* Kahn's order */
    int32_t *cstart, *cons;        /* consumers (input slots) of each op, CSR */
    int32_t *slot_op;              /* per input slot: the op reading it */
    int32_t *gport;                /* per input slot: its gradient's port, -1 none */
    int32_t *nports;               /* per op: gradients of inputs it outputs */
    int32_t *fid, *bwd;            /* n_mb x n: ids of the forward copies, gradient ops */
    int32_t *alias_in, *port_uses; /* per op: input whose storage it shares; readers per port */
    int64_t *extra;                /* per op: bytes of the buffer saved for backward */
    bool *rg, *rep;                /* requires a gradient; runs per micro-batch */
    struct op_names names;         /* the next suffix per name of an added op */
};

static void synth_free(struct synth *s)
{
    free(s->indeg);
    free(s->topo);
    free(s->cstart);
    free(s->cons);
    free(s->gport);
    free(s->slot_op);
    free(s->nports);
    free(s->bwd);
    free(s->fill);
    free(s->rg);
    free(s->fid);
    free(s->rep);
    free(s->alias_in);
    free(s->extra);
    free(s->port_uses);
    op_names_release(&s->names);
}

static int synth_alloc(struct synth *s, const struct workload *fwd, int32_t n_mb)
{
    size_t n = (size_t)fwd->n_ops;

    memset(s, 0, sizeof(*s));
    s->n = fwd->n_ops;
    s->n_mb = n_mb;
    op_names_init(&s->names);
    s->indeg = mem_calloc(n, sizeof(*s->indeg));
    s->topo = mem_calloc(n, sizeof(*s->topo));
    s->cstart = mem_calloc(n + 1, sizeof(*s->cstart));
    s->cons = mem_calloc(fwd->n_input + 1, sizeof(*s->cons));
    s->gport = mem_calloc(fwd->n_input + 1, sizeof(*s->gport));
    s->slot_op = mem_calloc(fwd->n_input + 1, sizeof(*s->slot_op));
    s->nports = mem_calloc(n, sizeof(*s->nports));
    s->bwd = mem_calloc(n * (size_t)n_mb + 1, sizeof(*s->bwd));
    s->fid = mem_calloc(n * (size_t)n_mb + 1, sizeof(*s->fid));
    s->rep = mem_calloc(n + 1, sizeof(*s->rep));
    s->alias_in = mem_calloc(n + 1, sizeof(*s->alias_in));
    s->extra = mem_calloc(n + 1, sizeof(*s->extra));
    s->port_uses = mem_calloc(fwd->n_out_bytes + 1, sizeof(*s->port_uses));
    s->fill = mem_calloc(n + 1, sizeof(*s->fill));
    s->rg = mem_calloc(n, sizeof(*s->rg));
    if (!s->indeg || !s->topo || !s->cstart || !s->cons || !s->gport || !s->slot_op || !s->nports ||
        !s->bwd || !s->fill || !s->rg || !s->fid || !s->rep || !s->alias_in || !s->extra ||
        !s->port_uses) {
        return BAECHI_ENOMEM;
    }
    return 0;
}

/* The consumers (input slots) of every op, CSR by producer, and the
 * in-degrees Kahn's order starts from. */
static int index_consumers(struct synth *s, const struct workload *fwd)
{
    const int32_t n = s->n;

    for (size_t k = 0; k < fwd->n_input; k++) {
        if (fwd->input[k].producer < 0 || fwd->input[k].producer >= n) {
            return err_set(BAECHI_EINVAL, "training synthesis: input %zu names no op", k);
        }
        s->cstart[fwd->input[k].producer + 1]++;
        s->gport[k] = -1;
    }
    for (int32_t i = 0; i < n; i++) {
        s->cstart[i + 1] += s->cstart[i];
        s->fill[i] = s->cstart[i];
        s->indeg[i] = fwd->op[i].n_in;
    }
    for (int32_t v = 0; v < n; v++) {
        for (int32_t k = 0; k < fwd->op[v].n_in; k++) {
            int32_t slot = fwd->op[v].in_off + k;

            s->slot_op[slot] = v;
            s->cons[s->fill[fwd->input[slot].producer]++] = slot;
        }
    }
    return 0;
}

/* Kahn's order over data and control inputs; a cycle is BAECHI_EINVAL. */
static int order_topo(struct synth *s, const struct workload *fwd)
{
    int32_t n = s->n, head = 0, tail = 0;

    for (int32_t i = 0; i < n; i++) {
        if (s->indeg[i] == 0) {
            s->topo[tail++] = i;
        }
    }
    while (head < tail) {
        int32_t u = s->topo[head++];

        for (int32_t e = s->cstart[u]; e < s->cstart[u + 1]; e++) {
            int32_t v = s->slot_op[s->cons[e]];

            if (--s->indeg[v] == 0) {
                s->topo[tail++] = v;
            }
        }
    }
    for (int32_t i = 0; tail < n && i < n; i++) {
        if (s->indeg[i] > 0) {
            return err_set(BAECHI_EINVAL, "training synthesis: the graph has a cycle through '%s'",
                           fwd->op[i].name);
        }
    }
    return 0;
}

/* Which ops require a gradient, in topological order, and the port of
 * each input's gradient on its consumer's gradient op. */
static void mark_gradients(struct synth *s, const struct workload *fwd)
{
    for (int32_t p = 0; p < s->n; p++) {
        int32_t v = s->topo[p];
        const struct wl_op *op = &fwd->op[v];

        if (!(isfinite(op->time_us) || isfinite(op->flops)) || !ops_has_gradient(op->type)) {
            continue;
        }
        s->rg[v] = op->persistent > 0;
        for (int32_t k = 0; k < op->n_in; k++) {
            const struct wl_input *in = &fwd->input[op->in_off + k];

            if (in->port != WL_PORT_CONTROL && s->rg[in->producer]) {
                s->gport[op->in_off + k] = s->nports[v]++;
                s->rg[v] = true;
            }
        }
    }
}

/*
 * Parameter-holding ops without a time or FLOPs get no gradient (a graph
 * without costs has nothing to schedule backward), so their parameters get
 * no update: say so, since the training graph is otherwise "0 backward,
 * 0 update" without a reason.
 */
static void warn_untimed_params(const struct workload *fwd)
{
    int32_t n = 0, first = -1;

    for (int32_t v = 0; v < fwd->n_ops; v++) {
        const struct wl_op *op = &fwd->op[v];

        if (op->persistent > 0 && ops_has_gradient(op->type) &&
            !(isfinite(op->time_us) || isfinite(op->flops))) {
            first = n++ == 0 ? v : first;
        }
    }
    if (n > 0) {
        err_warn("training synthesis: %d op%s holding parameters (first '%s') ha%s neither time_us "
                 "nor flops: no gradient and no update for %s",
                 (int)n, n == 1 ? "" : "s", fwd->op[first].name, n == 1 ? "s" : "ve",
                 n == 1 ? "it" : "them");
    }
}

/* Which ops run once per micro-batch: the data sources (no inputs, no
 * parameters, not a constant) and everything that reads them; the rest
 * (variables, constants, what only reads those) is shared. */
static void mark_micro_batched(struct synth *s, const struct workload *fwd)
{
    for (int32_t p = 0; p < s->n; p++) {
        int32_t v = s->topo[p];
        const struct wl_op *op = &fwd->op[v];
        bool any_data = false;

        s->rep[v] = s->n_mb == 1;
        for (int32_t k = 0; k < op->n_in; k++) {
            const struct wl_input *in = &fwd->input[op->in_off + k];

            if (in->port != WL_PORT_CONTROL) {
                any_data = true;
                s->rep[v] = s->rep[v] || s->rep[in->producer];
            }
        }
        if (ops_is_data(op->type) ||
            (!any_data && op->persistent <= 0 && ops_has_gradient(op->type))) {
            s->rep[v] = true;
        }
    }
}

/* The memory of the step (train.h "Memory"): views and in-place ops train_share
 * their input's storage; some ops save a buffer for backward. */
static void plan_memory(struct synth *s, const struct workload *fwd, const struct train_opts *o)
{
    for (size_t k = 0; k < fwd->n_input; k++) {
        const struct wl_input *in = &fwd->input[k];

        if (in->port != WL_PORT_CONTROL) {
            s->port_uses[fwd->op[in->producer].out_off + in->port]++;
        }
    }
    for (int32_t v = 0; v < s->n; v++) {
        const struct wl_op *op = &fwd->op[v];
        int32_t k = first_data_input(fwd, op);

        s->alias_in[v] = -1;
        s->extra[v] = saved_extra_bytes(o, fwd, op);
        if (o->save_all_inputs || k < 0 || op->n_out != 1) {
            continue;
        }
        if (ops_is_view(op->type) ||
            pad_of_pool(fwd, v, s->cstart, s->cons, s->slot_op, s->port_uses)) {
            s->alias_in[v] = k;
        } else if (ops_runs_in_place(op->type)) {
            const struct wl_input *in = &fwd->input[op->in_off + k];
            const struct wl_op *src = &fwd->op[in->producer];

            /* in place only where nothing else reads the storage: the
             * input's only reader, not a view, not saved as a result */
            if (s->port_uses[src->out_off + in->port] == 1 && !ops_is_view(src->type) &&
                s->alias_in[in->producer] < 0 &&
                train_save_rule_of(o, src->type) != OPS_SAVE_RESULT) {
                s->alias_in[v] = k;
            }
        }
    }
}

/* The forward ops: unchanged (one micro-batch), or one copy per
 * micro-batch, micro-batch by micro-batch. */
static int copy_forward(struct workload *out, const struct workload *fwd, struct synth *s)
{
    const int32_t n = s->n, n_mb = s->n_mb;
    int rc;

    for (int32_t m = 0; m < n_mb; m++) {
        int32_t *f = s->fid + (size_t)m * n;

        for (int32_t i = 0; i < n; i++) {
            if (m > 0 && !s->rep[i]) {
                f[i] = s->fid[i];
                continue;
            }
            f[i] = out->n_ops;
            if ((rc = train_copy_op(out, fwd, i, s->rep[i] ? m : 0, s->rep[i] ? n_mb : 1, f,
                                    s->alias_in[i], s->extra[i]))) {
                return rc;
            }
        }
    }
    return 0;
}

/* Gradient ops, in reverse topological order: those of the micro-batched
 * ops micro-batch by micro-batch, then those of the shared ops (which sum
 * the gradients of every micro-batch). */
static int add_grads(struct workload *out, const struct workload *fwd, const struct train_opts *o,
                     struct synth *s, struct train_stats *st)
{
    const struct recompute_graph rg = {fwd,       s->n,    s->n_mb,    s->topo,
                                       s->cstart, s->cons, s->slot_op, s->gport,
                                       s->rg,     s->rep,  s->extra,   o->save_all_inputs};
    const int32_t first_bwd = out->n_ops;
    struct recompute rec;
    struct grad_ctx cg = {s->n,  s->cstart, s->cons, s->slot_op, s->gport, s->nports,
                          s->rg, s->rep,    s->fid,  s->bwd,     &rec,     &s->names};
    int rc = recompute_plan(&rec, &rg, o->recompute);

    for (int32_t pass = 0; pass < 2 && !rc; pass++) {
        for (int32_t m = 0; m < (pass == 0 ? s->n_mb : 1) && !rc; m++) {
            const int32_t *f = s->fid + (size_t)m * s->n;

            for (int32_t p = s->n - 1; p >= 0 && !rc; p--) {
                int32_t v = s->topo[p];

                if (!s->rg[v] || s->rep[v] != (pass == 0)) {
                    continue;
                }
                if (!(rc = recompute_before_grad(&rec, out, v, m, f, s->bwd, first_bwd))) {
                    rc = train_add_grad(out, fwd, o, v, m, s->n_mb, &cg, st);
                }
            }
        }
    }
    recompute_release(&rec);
    return rc;
}

/* Optimizer updates, in forward order, after the last micro-batch's
 * (accumulated) weight gradient. */
static int add_updates(struct workload *out, const struct workload *fwd, const struct train_opts *o,
                       struct synth *s, struct train_stats *st)
{
    static const char *const types[] = {"ApplyGradientDescent", "ApplyMomentum", "ApplyAdam"};
    static const double state[] = {0, 1, 2}, flops_per[] = {2, 4, 12};
    double elem = o->param_elem_bytes > 0 ? o->param_elem_bytes : 4;
    int rc;

    for (int32_t v = 0; v < s->n; v++) {
        const struct wl_op *op = &fwd->op[v];
        double pbytes = (double)op->persistent;
        int32_t last = s->bwd[(size_t)(s->rep[v] ? s->n_mb - 1 : 0) * s->n + v];
        struct wl_op *u;
        int32_t id;

        if (!s->rg[v] || op->persistent <= 0) {
            continue;
        }
        if ((rc =
                 train_add_unique(out, &s->names, op->name, "/update", types[o->optimizer], &id)) ||
            (rc = workload_add_input(out, last, s->nports[v], 0, 0)) ||
            (rc = workload_set_group(out, id, workload_group(fwd, v)))) {
            return rc;
        }
        u = &out->op[id];
        u->persistent = (int64_t)(state[o->optimizer] * pbytes);
        u->flops = flops_per[o->optimizer] * pbytes / elem;
        u->bytes = (3.0 + 2.0 * state[o->optimizer]) * pbytes;
        u->phase = PHASE_UPDATE;
        u->has_phase = true;
        u->device = op->device;
        st->n_update++;
        st->param_bytes += op->persistent;
        st->optimizer_bytes += u->persistent;
    }
    return 0;
}

bool train_is_training_graph(const struct workload *w, int32_t *op)
{
    for (int32_t i = 0; i < w->n_ops; i++) {
        const char *t = w->op[i].type ? w->op[i].type : "";
        size_t n = strlen(t);

        if (w->op[i].phase != PHASE_FORWARD || (n > 4 && strcmp(t + n - 4, "Grad") == 0) ||
            strncmp(t, "Apply", 5) == 0) {
            *op = i;
            return true;
        }
    }
    *op = -1;
    return false;
}

int train_synthesize(struct workload *out, const struct workload *fwd, const struct train_opts *o,
                     struct train_stats *stats)
{
    const int32_t n_mb = o->micro_batches > 0 ? o->micro_batches : 1;
    struct train_stats st = {0, 0, 0, 0};
    struct synth s;
    int32_t i;
    int rc;

    workload_init(out);
    if (train_is_training_graph(fwd, &i)) {
        const struct wl_op *op = &fwd->op[i];

        return err_set(BAECHI_EINVAL,
                       "already a training graph: op '%s' (type %s) is %s; training it again "
                       "would add gradients of gradients and double the parameters' state "
                       "(train the forward graph)",
                       op->name, op->type ? op->type : "?",
                       op->phase == PHASE_BACKWARD ? "a backward op"
                       : op->phase == PHASE_UPDATE ? "an update op"
                                                   : "a gradient or update op");
    }
    if (n_mb > TRAIN_MAX_MICRO_BATCHES) {
        return err_set(BAECHI_EINVAL, "micro-batches must be in 1..%d (got %d)",
                       TRAIN_MAX_MICRO_BATCHES, (int)n_mb);
    }
    if ((rc = pipeline_opts_check(&o->pipeline)) != 0) {
        return rc;
    }
    if (!(o->bwd_factor >= 0 && isfinite(o->bwd_factor))) {
        return err_set(BAECHI_EINVAL, "backward factor must be >= 0 (got %g)", o->bwd_factor);
    }
    if ((rc = synth_alloc(&s, fwd, n_mb)) || (rc = index_consumers(&s, fwd)) ||
        (rc = order_topo(&s, fwd))) {
        goto cleanup;
    }
    mark_gradients(&s, fwd);
    warn_untimed_params(fwd);
    mark_micro_batched(&s, fwd);
    plan_memory(&s, fwd, o);
    if ((rc = train_copy_header(out, fwd)) ||
        (n_mb > 1 && (rc = pipeline_opts_write(out, &o->pipeline))) ||
        (rc = copy_forward(out, fwd, &s)) || (rc = add_grads(out, fwd, o, &s, &st)) ||
        (rc = add_updates(out, fwd, o, &s, &st))) {
        goto cleanup;
    }
    if (stats) {
        *stats = st;
    }
cleanup:
    synth_free(&s);
    if (rc) {
        workload_release(out);
    }
    return rc;
}
