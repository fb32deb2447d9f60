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
    o->micro_batches = 1;
    o->save_all_inputs = false;
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

/* The ops that feed a step's data (a micro-batch each). */
static bool is_data(const char *type)
{
    return strcmp(type, "Placeholder") == 0 || strcmp(type, "PlaceholderWithDefault") == 0 ||
           strcmp(type, "IteratorGetNext") == 0;
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

/*
 * What an op's backward reads from its forward pass: what autograd saves
 * for it (PyTorch's derivatives; measured in docs/pytorch-memory.md).
 * Parameters (the op's persistent bytes, constants) are held anyway.
 */
enum save_rule {
    SAVE_INPUTS = 0,  /* every data input (convolution, matmul, mul, losses): the default */
    SAVE_FIRST_INPUT, /* the data input only (batch norm, layer norm, GELU, pooling) */
    SAVE_OUTPUTS,     /* its result (ReLU, sigmoid, tanh, softmax, exp) */
    SAVE_NOTHING      /* only shapes (add, concat, views, reductions to a mean) */
};

struct save_entry {
    const char *type;
    enum save_rule rule;
};

static const struct save_entry save_table[] = {
    {"Relu", SAVE_OUTPUTS},
    {"Relu6", SAVE_OUTPUTS},
    {"Sigmoid", SAVE_OUTPUTS},
    {"Tanh", SAVE_OUTPUTS},
    {"Softmax", SAVE_OUTPUTS},
    {"Exp", SAVE_OUTPUTS},
    {"FusedBatchNorm", SAVE_FIRST_INPUT},
    {"FusedBatchNormV3", SAVE_FIRST_INPUT},
    {"BatchNormalization", SAVE_FIRST_INPUT},
    {"LayerNorm", SAVE_FIRST_INPUT},
    {"LayerNormalization", SAVE_FIRST_INPUT},
    {"Gelu", SAVE_FIRST_INPUT},
    {"MaxPool", SAVE_FIRST_INPUT},
    {"AvgPool", SAVE_FIRST_INPUT},
    {"AveragePool", SAVE_FIRST_INPUT},
    {"GlobalAveragePool", SAVE_FIRST_INPUT},
    {"Add", SAVE_NOTHING},
    {"AddV2", SAVE_NOTHING},
    {"Sub", SAVE_NOTHING},
    {"BiasAdd", SAVE_NOTHING},
    {"Concat", SAVE_NOTHING},
    {"ConcatV2", SAVE_NOTHING},
    {"Dropout", SAVE_NOTHING},
    {"Pad", SAVE_NOTHING},
    {"Reshape", SAVE_NOTHING},
    {"Flatten", SAVE_NOTHING},
    {"Squeeze", SAVE_NOTHING},
    {"Unsqueeze", SAVE_NOTHING},
    {"Transpose", SAVE_NOTHING},
    {"Identity", SAVE_NOTHING},
    {"Slice", SAVE_NOTHING}, /* PyTorch's basic slicing and split: views, sizes saved */
    {"Split", SAVE_NOTHING},
    {"ReduceMean", SAVE_NOTHING},
    {NULL, SAVE_INPUTS},
};

static enum save_rule save_rule_of(const struct train_opts *o, const char *type)
{
    if (o->save_all_inputs) {
        return SAVE_INPUTS;
    }
    for (const struct save_entry *e = save_table; e->type; e++) {
        if (strcmp(e->type, type) == 0) {
            return e->rule;
        }
    }
    return SAVE_INPUTS;
}

/* Ops whose output is a view of their first data input (no bytes of its own). */
static bool is_view(const char *type)
{
    static const char *const views[] = {"Reshape",  "Flatten", "Squeeze", "Unsqueeze", "Transpose",
                                        "Identity", "View",    "Slice",   NULL};

    for (int i = 0; views[i]; i++) {
        if (strcmp(views[i], type) == 0) {
            return true;
        }
    }
    return false;
}

/* Ops that torchvision's models run in place (ReLU(inplace=True)). */
static bool runs_in_place(const char *type)
{
    return strcmp(type, "Relu") == 0 || strcmp(type, "Relu6") == 0;
}

/*
 * Bytes of the extra buffer an op saves for backward beside its tensors,
 * from its first output: max pooling's indices (int64 per output element),
 * dropout's mask (one byte per element).  0 for the others.
 */
static int64_t saved_extra_bytes(const struct train_opts *o, const struct workload *fwd,
                                 const struct wl_op *op)
{
    int64_t elem = o->param_elem_bytes > 0 ? o->param_elem_bytes : 4, out0;

    if (o->save_all_inputs || op->n_out < 1) {
        return 0;
    }
    out0 = fwd->out_bytes[op->out_off];
    if (strncmp(op->type, "MaxPool", 7) == 0) {
        return out0 / elem * 8;
    }
    if (strcmp(op->type, "Dropout") == 0) {
        return out0 / elem;
    }
    return 0;
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

    if (strcmp(op->type, "Pad") != 0 || op->n_out != 1 || port_uses[op->out_off] != 1) {
        return false;
    }
    for (int32_t e = cstart[v]; e < cstart[v + 1]; e++) {
        const char *t = fwd->op[slot_op[cons[e]]].type;

        if (fwd->input[cons[e]].port == 0) {
            return strstr(t, "Pool") != NULL;
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

/* Tags the last op of out with its micro-batch (GRAPH_MICRO_BATCH_KEY). */
static int tag_micro_batch(struct workload *out, int32_t mb)
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

/* ceil(v / m) for sizes: a micro-batch holds its share, rounded up. */
static int64_t share(int64_t v, int32_t m)
{
    return v > 0 ? (v + m - 1) / m : v;
}

/*
 * Copies forward op i of fwd as copy `mb` of `n_mb` micro-batches (n_mb 1:
 * unchanged), its producers remapped through fid (ids of the copies of
 * micro-batch mb).  A copy of a micro-batched op has 1/n_mb of the costs
 * and activations; only copy 0 holds the persistent bytes (parameters are
 * stored once), and all copies share the op's colocation group.
 */
static int copy_op(struct workload *out, const struct workload *fwd, int32_t i, int32_t mb,
                   int32_t n_mb, const int32_t *fid, int32_t alias_in, int64_t extra)
{
    const struct wl_op *op = &fwd->op[i];
    struct wl_op *dst;
    char name[1024];
    int32_t id;
    int rc;

    if (n_mb > 1) {
        snprintf(name, sizeof(name), "%s/mb%d", op->name, (int)mb);
    }
    if ((rc = workload_add_op(out, n_mb > 1 ? name : op->name, op->type, &id))) {
        return rc;
    }
    for (int32_t k = 0; k < op->n_out; k++) {
        if ((rc = workload_add_output(out, share(fwd->out_bytes[op->out_off + k], n_mb)))) {
            return rc;
        }
    }
    /* a buffer saved for backward (max pooling's indices, a dropout mask) */
    if (extra > 0 && (rc = workload_add_output(out, share(extra, n_mb)))) {
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
    if (n_mb > 1 && (rc = tag_micro_batch(out, mb))) {
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
    if (alias_in >= 0 && !runs_in_place(op->type) && isfinite(op->flops + op->bytes)) {
        /* a view moves nothing: no kernel (its time, when measured, stays) */
        dst->flops = dst->bytes = 0;
    }
    dst->temp = share(op->temp, n_mb);
    dst->persistent = mb == 0 ? op->persistent : 0;
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

/* What the gradient ops of one training graph are built from. */
struct grad_ctx {
    int32_t n;                              /* forward ops */
    const int32_t *cstart, *cons, *slot_op; /* consumers (input slots) of each op, CSR */
    const int32_t *gport;                   /* per input slot: its gradient's port, -1 none */
    const int32_t *nports;                  /* per op: gradients of inputs it outputs */
    const bool *rg, *rep;                   /* requires a gradient; runs per micro-batch */
    const int32_t *fid;                     /* n_mb x n: ids of the forward copies */
    int32_t *bwd;                           /* n_mb x n: ids of the gradient ops */
};

/*
 * The gradient op of forward op v in micro-batch m (train.h): it outputs a
 * gradient per input that needs one and, for an op with parameters, the
 * weight gradient; it reads the gradients its consumers' gradient ops give
 * for its outputs (of every micro-batch when v is shared), the previous
 * micro-batch's weight gradient (gradient accumulation), and the inputs of
 * its forward copy.
 */
static int add_grad(struct workload *out, const struct workload *fwd, const struct train_opts *o,
                    int32_t v, int32_t m, int32_t n_mb, struct grad_ctx *x, struct train_stats *st)
{
    const struct wl_op *op = &fwd->op[v];
    const int32_t n = x->n, *f = x->fid + (size_t)m * n;
    const bool mbv = x->rep[v] && n_mb > 1;
    int32_t id, n_grad_in = 0;
    char type[256], base[1024];
    struct wl_op *g;
    double t, fl, by;
    int64_t temp;
    int rc;

    snprintf(type, sizeof(type), "%sGrad", op->type);
    snprintf(base, sizeof(base), "%s", out->op[f[v]].name);
    if ((rc = add_unique(out, base, "/grad", type, &id))) {
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
        for (int32_t mm = 0; mm < n_mb; mm++) {
            /* a micro-batched op reads its own micro-batch; a shared op
             * every micro-batch of a micro-batched consumer */
            int32_t cm = x->rep[v] ? m : mm;

            if (!x->rep[c]) {
                cm = 0;
            }
            if ((rc = workload_add_input(out, x->bwd[(size_t)cm * n + c], x->gport[slot], 0, 0))) {
                return rc;
            }
            n_grad_in++;
            if (x->rep[v] || !x->rep[c]) {
                break;
            }
        }
    }
    if (n_grad_in == 0) { /* a loss: starts the backward pass */
        rc = workload_add_input(out, f[v], op->n_out > 0 ? 0 : WL_PORT_CONTROL, 0, 0);
        if (rc) {
            return rc;
        }
    }
    /* gradient accumulation: one buffer, added to micro-batch after micro-batch */
    if (mbv && op->persistent > 0 && m > 0 &&
        (rc = workload_add_input(out, x->bwd[(size_t)(m - 1) * n + v], x->nports[v], 0, 0))) {
        return rc;
    }
    /* what the backward needs of the forward pass (kept alive until here) */
    switch (save_rule_of(o, op->type)) {
    case SAVE_INPUTS:
    case SAVE_FIRST_INPUT:
        for (int32_t k = 0; k < op->n_in; k++) {
            const struct wl_input *in = &fwd->input[op->in_off + k];

            if (in->port == WL_PORT_CONTROL) {
                continue;
            }
            if ((rc = workload_add_input(out, f[in->producer], in->port, 0, 0))) {
                return rc;
            }
            if (save_rule_of(o, op->type) == SAVE_FIRST_INPUT) {
                break;
            }
        }
        break;
    case SAVE_OUTPUTS:
        for (int32_t k = 0; k < op->n_out && n_grad_in > 0; k++) {
            if ((rc = workload_add_input(out, f[v], k, 0, 0))) {
                return rc;
            }
        }
        break;
    case SAVE_NOTHING:
        break;
    }
    if (out->op[f[v]].n_out > op->n_out && /* the saved buffer */
        (rc = workload_add_input(out, f[v], op->n_out, 0, 0))) {
        return rc;
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
    if (!o->save_all_inputs && (is_view(op->type) || strcmp(op->type, "Pad") == 0) &&
        out->op[f[v]].flops == 0 && out->op[f[v]].bytes == 0) {
        g->flops = g->bytes = 0; /* the gradient of a view is a view */
    }
    g->temp = temp;
    g->phase = PHASE_BACKWARD;
    g->has_phase = true;
    g->device = op->device;
    st->n_backward++;
    return mbv ? tag_micro_batch(out, m) : 0;
}

int train_synthesize(struct workload *out, const struct workload *fwd, const struct train_opts *o,
                     struct train_stats *stats)
{
    int32_t n = fwd->n_ops, head = 0, tail = 0;
    int32_t *indeg = NULL, *topo = NULL, *cstart = NULL, *cons = NULL, *gport = NULL;
    int32_t *nports = NULL, *bwd = NULL, *fill = NULL, *slot_op = NULL, *fid = NULL;
    int32_t *alias_in = NULL, *port_uses = NULL;
    int64_t *extra = NULL;
    bool *rg = NULL, *rep = NULL;
    const int32_t n_mb = o->micro_batches > 0 ? o->micro_batches : 1;
    struct grad_ctx cg;
    struct train_stats st = {0, 0, 0, 0};
    double elem = o->param_elem_bytes > 0 ? o->param_elem_bytes : 4;
    int rc = 0;

    workload_init(out);
    if (n_mb > TRAIN_MAX_MICRO_BATCHES) {
        return err_set(BAECHI_EINVAL, "micro-batches must be in 1..%d (got %d)",
                       TRAIN_MAX_MICRO_BATCHES, (int)n_mb);
    }
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
    bwd = array_calloc((size_t)n * n_mb + 1, sizeof(*bwd));
    fid = array_calloc((size_t)n * n_mb + 1, sizeof(*fid));
    rep = array_calloc((size_t)n + 1, sizeof(*rep));
    alias_in = array_calloc((size_t)n + 1, sizeof(*alias_in));
    extra = array_calloc((size_t)n + 1, sizeof(*extra));
    port_uses = array_calloc(fwd->n_out_bytes + 1, sizeof(*port_uses));
    fill = array_calloc((size_t)n + 1, sizeof(*fill));
    rg = array_calloc((size_t)n, sizeof(*rg));
    if (!indeg || !topo || !cstart || !cons || !gport || !slot_op || !nports || !bwd || !fill ||
        !rg || !fid || !rep || !alias_in || !extra || !port_uses) {
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

    cg = (struct grad_ctx){n, cstart, cons, slot_op, gport, nports, rg, rep, fid, bwd};
    /* Which ops run once per micro-batch: the data sources (no inputs, no
     * parameters, not a constant) and everything that reads them; the rest
     * (variables, constants, what only reads those) is shared. */
    for (int32_t p = 0; p < n; p++) {
        int32_t v = topo[p];
        const struct wl_op *op = &fwd->op[v];
        bool any_data = false;

        rep[v] = n_mb == 1;
        for (int32_t k = 0; k < op->n_in; k++) {
            const struct wl_input *in = &fwd->input[op->in_off + k];

            if (in->port != WL_PORT_CONTROL) {
                any_data = true;
                rep[v] = rep[v] || rep[in->producer];
            }
        }
        if (is_data(op->type) || (!any_data && op->persistent <= 0 && differentiable(op->type))) {
            rep[v] = true;
        }
    }

    /* The memory of the step (train.h "Memory"): views and in-place ops
     * share their input's storage; some ops save a buffer for backward. */
    for (size_t k = 0; k < fwd->n_input; k++) {
        const struct wl_input *in = &fwd->input[k];

        if (in->port != WL_PORT_CONTROL) {
            port_uses[fwd->op[in->producer].out_off + in->port]++;
        }
    }
    for (int32_t v = 0; v < n; v++) {
        const struct wl_op *op = &fwd->op[v];
        int32_t k = first_data_input(fwd, op);

        alias_in[v] = -1;
        extra[v] = saved_extra_bytes(o, fwd, op);
        if (o->save_all_inputs || k < 0 || op->n_out != 1) {
            continue;
        }
        if (is_view(op->type) || pad_of_pool(fwd, v, cstart, cons, slot_op, port_uses)) {
            alias_in[v] = k;
        } else if (runs_in_place(op->type)) {
            const struct wl_input *in = &fwd->input[op->in_off + k];
            const struct wl_op *src = &fwd->op[in->producer];

            /* in place only where nothing else reads the storage: the
             * input's only reader, not a view, not saved as a result */
            if (port_uses[src->out_off + in->port] == 1 && !is_view(src->type) &&
                alias_in[in->producer] < 0 && save_rule_of(o, src->type) != SAVE_OUTPUTS) {
                alias_in[v] = k;
            }
        }
    }

    /* the forward ops: unchanged (one micro-batch), or one copy per
     * micro-batch, micro-batch by micro-batch */
    if ((rc = copy_header(out, fwd))) {
        goto cleanup;
    }
    for (int32_t m = 0; m < n_mb; m++) {
        int32_t *f = fid + (size_t)m * n;

        for (int32_t i = 0; i < n; i++) {
            if (m > 0 && !rep[i]) {
                f[i] = fid[i];
                continue;
            }
            f[i] = out->n_ops;
            if ((rc = copy_op(out, fwd, i, rep[i] ? m : 0, rep[i] ? n_mb : 1, f, alias_in[i],
                              extra[i]))) {
                goto cleanup;
            }
        }
    }
    /* gradient ops, in reverse topological order: those of the micro-batched
     * ops micro-batch by micro-batch, then those of the shared ops (which
     * sum the gradients of every micro-batch) */
    for (int32_t pass = 0; pass < 2; pass++) {
        for (int32_t m = 0; m < (pass == 0 ? n_mb : 1); m++) {
            for (int32_t p = n - 1; p >= 0; p--) {
                int32_t v = topo[p];

                if (!rg[v] || rep[v] != (pass == 0)) {
                    continue;
                }
                if ((rc = add_grad(out, fwd, o, v, m, n_mb, &cg, &st))) {
                    goto cleanup;
                }
            }
        }
    }
    /* optimizer updates, in forward order, after the last micro-batch's
     * (accumulated) weight gradient */
    for (int32_t v = 0; v < n; v++) {
        static const char *const types[] = {"ApplyGradientDescent", "ApplyMomentum", "ApplyAdam"};
        static const double state[] = {0, 1, 2}, flops_per[] = {2, 4, 12};
        const struct wl_op *op = &fwd->op[v];
        double pbytes = (double)op->persistent;
        int32_t last = bwd[(size_t)(rep[v] ? n_mb - 1 : 0) * n + v];
        struct wl_op *u;
        int32_t id;

        if (!rg[v] || op->persistent <= 0) {
            continue;
        }
        if ((rc = add_unique(out, op->name, "/update", types[o->optimizer], &id)) ||
            (rc = workload_add_input(out, last, nports[v], 0, 0)) ||
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
    free(fid);
    free(rep);
    free(alias_in);
    free(extra);
    free(port_uses);
    if (rc) {
        workload_release(out);
    }
    return rc;
}
