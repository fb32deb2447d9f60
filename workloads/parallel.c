/*
 * parallel.c - data, tensor and pipeline parallelism as a graph transform
 * (see parallel.h for the rules and docs/parallelism.md for the sources).
 *
 * One plan per pipeline stage (the ops of the stage in the input's order,
 * with the collectives inserted where they start), shared by the stage's
 * D x T ranks; every op's id in the output is base[rank] + its index in the
 * plan, so edges between stages resolve before the producer is written.
 *
 * Beyond the original: Baechi places a single-device graph's ops; replicas,
 * split layers and collectives are what this suite adds to compare with it.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/parallel.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/strmap.h"
#include "workloads/gen_cap.h"
#include "workloads/train.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void parallel_opts_init(struct parallel_opts *o)
{
    o->dp = o->tp = o->pp = 1;
    o->zero = 0;
    o->bucket_mb = 25.0;
    o->mixed_precision = false;
    o->pp_by_time = false;
}

bool parallel_opts_active(const struct parallel_opts *o)
{
    return o->dp * o->tp * o->pp > 1;
}

enum tp_role { TP_NONE, TP_ENTRY, TP_INNER, TP_EXIT };

/* A collective of the plan; its inputs are ops of the same rank. */
struct coll {
    const char *type, *kind;
    char id[512];  /* "<group>/<what>"; the rank group is prefixed when written */
    bool over_tp;  /* over the T ranks of (p, d); else over the D replicas of (p, t) */
    int64_t bytes; /* S of the contract */
    int64_t out;   /* the rank's output bytes */
    enum op_phase phase;
    int32_t in_off; /* inputs: cin_op/cin_port[in_off .. in_off + n_in) */
    int32_t n_in;
};

/* One entry of a stage's plan: a copy of input op `src`, or collective `coll`. */
struct item {
    int32_t src, coll;
};

struct ctx {
    const struct workload *w;
    const struct parallel_opts *o;
    int32_t n, n_dev;
    int32_t *stage;     /* per op */
    int32_t *base;      /* per op: the first op of its base (forward op) name */
    int32_t *upd;       /* per base: its update op, -1 none */
    enum tp_role *role; /* per base */
    int32_t *item_of;   /* per op: its index in its stage's plan */
    int32_t *redirect;  /* per output port: plan index of the collective replacing it, -1 */
    int32_t *extra_in;  /* per op: plan index of the all-gather it reads (ZeRO-3), -1 */
    int32_t *tp_last;   /* per output port: the last entry gradient of its TP group, -1 */
    int32_t *first_id;  /* per rank: id of its first op */
    struct item *plan;  /* stage after stage: plan_off[p] .. plan_off[p + 1] */
    int32_t *plan_off;
    size_t n_plan, alloc_plan;
    struct coll *coll;
    size_t n_coll, alloc_coll;
    struct wl_input *cin; /* producer = an op of the input, port */
    size_t n_cin, alloc_cin;
    struct strpool pool;
    struct strmap names;
};

static int grow(void **p, size_t *alloc, size_t need, size_t elem)
{
    size_t n = *alloc ? *alloc : 64;
    void *q;

    if (need <= *alloc) {
        return 0;
    }
    while (n < need) {
        n *= 2;
    }
    if (!(q = mem_realloc_array(*p, n, elem))) {
        return BAECHI_ENOMEM;
    }
    *p = q;
    *alloc = n;
    return 0;
}

/* Length of the forward op's name that op name `s` derives from: without
 * "/update" or "/grad", then without "/mb<m>" (train.h). */
static size_t base_len(const char *s)
{
    size_t n = strlen(s), k;

    if (n > 7 && strcmp(s + n - 7, "/update") == 0) {
        n -= 7;
    } else if (n > 5 && strncmp(s + n - 5, "/grad", 5) == 0) {
        n -= 5;
    }
    for (k = n; k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9'; k--) {
    }
    if (k < n && k >= 3 && strncmp(s + k - 3, "/mb", 3) == 0) {
        n = k - 3;
    }
    return n;
}

/* The Megatron role of forward op s[0..n) by its last two name components. */
static enum tp_role role_of(const char *s, size_t n)
{
    static const char *const attn[] = {"attn", "self_attention", "cross_attention", NULL};
    static const char *const blocks[][5] = {{"qkv", "q", "k", "v", NULL},
                                            {"scores", "softmax", "dropout", "context", NULL},
                                            {"out", NULL}};
    const char *c, *p;
    size_t lc, lp;
    bool in_attn = false;

    for (c = s + n; c > s && c[-1] != '/'; c--) {
    }
    lc = (size_t)(s + n - c);
    if (c == s) {
        return TP_NONE;
    }
    for (p = c - 1; p > s && p[-1] != '/'; p--) {
    }
    lp = (size_t)(c - 1 - p);
    for (int i = 0; attn[i]; i++) {
        in_attn |= lp == strlen(attn[i]) && strncmp(p, attn[i], lp) == 0;
    }
    if (in_attn) {
        for (int r = 0; r < 3; r++) {
            for (int i = 0; blocks[r][i]; i++) {
                if (lc == strlen(blocks[r][i]) && strncmp(c, blocks[r][i], lc) == 0) {
                    return (enum tp_role)(TP_ENTRY + r);
                }
            }
        }
        return TP_NONE;
    }
#define IS(str, lit) (sizeof(lit) - 1 == l##str && strncmp(str, lit, sizeof(lit) - 1) == 0)
    if (IS(p, "mlp") || IS(p, "ffn")) {
        if (IS(c, "c_fc") || IS(c, "fc1")) {
            return TP_ENTRY;
        }
        if (IS(c, "gelu") || IS(c, "relu")) {
            return TP_INNER;
        }
        if (IS(c, "c_proj") || IS(c, "fc2")) {
            return TP_EXIT;
        }
    }
#undef IS
    return TP_NONE;
}

/* Base ops, their roles and updates; the TP checks. */
static int index_bases(struct ctx *x)
{
    const struct workload *w = x->w;
    const struct wl_op *bad = NULL;
    int32_t n_split = 0;
    int rc;

    for (int32_t i = 0; i < x->n; i++) {
        const char *s = w->op[i].name;
        size_t n = base_len(s);
        int32_t b = strmap_get(&x->names, s, n);

        if (b < 0) {
            char *key = strpool_add(&x->pool, s, n);

            if (!key || (rc = strmap_put(&x->names, key, i, NULL))) {
                return BAECHI_ENOMEM;
            }
            b = i;
            x->role[b] = x->o->tp > 1 ? role_of(s, n) : TP_NONE;
            n_split += x->role[b] != TP_NONE;
        }
        x->base[i] = b;
        if (w->op[i].phase == PHASE_UPDATE) {
            x->upd[b] = i;
        }
    }
    for (int32_t i = 0; i < x->n && x->o->tp > 1; i++) {
        const struct wl_op *op = &w->op[i];

        if (!bad && op->phase == PHASE_FORWARD && op->persistent > 0 &&
            x->role[x->base[i]] == TP_NONE &&
            (strstr(op->type, "MatMul") || strstr(op->type, "Gemm") || strstr(op->type, "Conv"))) {
            bad = op;
        }
    }
    if (x->o->tp > 1 && (bad || n_split == 0)) {
        return err_set(BAECHI_EINVAL,
                       "tensor parallelism: %s%s%s is not in an attention or MLP block this "
                       "transform recognises (the GPT generator's h<l>/attn/{qkv,scores,softmax,"
                       "context,out} and h<l>/mlp/{c_fc,gelu,c_proj}, the Transformer's "
                       ".../self_attention, .../cross_attention and .../ffn/{fc1,relu,fc2})",
                       bad ? "op '" : "no op of '", bad ? bad->name : w->name,
                       bad ? "' (a matmul with parameters)" : "'");
    }
    return 0;
}

/* The layer key of a group: up to its "h<l>" or "layer_<l>" component; *layer
 * whether it has one. */
static size_t layer_key(const char *g, bool *layer)
{
    const char *c = g;

    while (*c) {
        const char *e = strchr(c, '/');
        size_t n = e ? (size_t)(e - c) : strlen(c);
        size_t pre = c[0] == 'h' ? 1 : strncmp(c, "layer_", 6) == 0 ? 6 : 0;
        size_t k = pre;

        while (pre && k < n && c[k] >= '0' && c[k] <= '9') {
            k++;
        }
        if (pre && k == n && k > pre) {
            *layer = true;
            return (size_t)(c - g) + n;
        }
        c = e ? e + 1 : c + n;
    }
    *layer = false;
    return strlen(g);
}

/* Stage of every op: layer keys in order of first appearance, layers cut into
 * P equal runs (by forward time when the graph has no numbered layers, or
 * when asked: then every key weighs its forward time). */
static int assign_stages(struct ctx *x)
{
    const struct workload *w = x->w;
    const int32_t P = x->o->pp;
    struct strmap keys;
    struct strpool kp;
    int32_t *key_of = NULL, n_keys = 0, n_layers = 0, *key_stage = NULL;
    double *weight = NULL, total = 0, acc = 0;
    bool *is_layer = NULL;
    int rc = BAECHI_ENOMEM;

    strmap_init(&keys);
    strpool_init(&kp);
    if (!(key_of = mem_calloc((size_t)x->n + 1, sizeof(*key_of))) ||
        !(key_stage = mem_calloc((size_t)x->n + 1, sizeof(*key_stage))) ||
        !(weight = mem_calloc((size_t)x->n + 1, sizeof(*weight))) ||
        !(is_layer = mem_calloc((size_t)x->n + 1, sizeof(*is_layer)))) {
        goto done;
    }
    for (int32_t i = 0; i < x->n; i++) {
        const char *g = workload_group(w, i);
        bool layer;
        size_t n = layer_key(g, &layer);
        int32_t k = strmap_get(&keys, g, n);

        if (k < 0) {
            char *s = strpool_add(&kp, g, n);

            if (!s || strmap_put(&keys, s, n_keys, NULL)) {
                goto done;
            }
            k = n_keys++;
            is_layer[k] = layer;
            n_layers += layer;
        }
        key_of[i] = k;
        if (w->op[i].phase == PHASE_FORWARD) {
            double t = isfinite(w->op[i].time_us) ? w->op[i].time_us : 1.0;

            weight[k] += t;
        }
    }
    for (int32_t k = 0; k < n_keys; k++) {
        weight[k] = n_layers > 0 && !x->o->pp_by_time ? (is_layer[k] ? 1.0 : 0.0) : weight[k];
        total += weight[k];
    }
    if ((n_layers > 0 && !x->o->pp_by_time && n_layers < P) ||
        ((n_layers == 0 || x->o->pp_by_time) && n_keys < P)) {
        rc = err_set(BAECHI_EINVAL, "pipeline parallelism: %d stages but '%s' has only %d %s",
                     (int)P, w->name, (int)(n_layers && !x->o->pp_by_time ? n_layers : n_keys),
                     n_layers && !x->o->pp_by_time ? "layers" : "groups");
        goto done;
    }
    for (int32_t k = 0, s = 0; k < n_keys; k++) {
        /* a layer starts stage s + 1 once the stages before hold their share */
        if (weight[k] > 0 && s + 1 < P && acc >= total * (s + 1) / P - 1e-9 * total) {
            s++;
        }
        key_stage[k] = s;
        acc += weight[k];
    }
    for (int32_t i = 0; i < x->n; i++) {
        x->stage[i] = key_stage[key_of[i]];
    }
    rc = 0;
done:
    strmap_release(&keys);
    strpool_release(&kp);
    free(key_of);
    free(key_stage);
    free(weight);
    free(is_layer);
    return rc;
}

static int push_item(struct ctx *x, int32_t src, int32_t coll)
{
    if (grow((void **)&x->plan, &x->alloc_plan, x->n_plan + 1, sizeof(*x->plan))) {
        return BAECHI_ENOMEM;
    }
    if (src >= 0) {
        x->item_of[src] = (int32_t)x->n_plan - x->plan_off[x->stage[src]];
    }
    x->plan[x->n_plan++] = (struct item){src, coll};
    return 0;
}

/* Adds a collective to the plan of stage p; *at its index in the plan. */
static int push_coll(struct ctx *x, int32_t p, const struct coll *c, int32_t *at)
{
    if (grow((void **)&x->coll, &x->alloc_coll, x->n_coll + 1, sizeof(*x->coll))) {
        return BAECHI_ENOMEM;
    }
    x->coll[x->n_coll] = *c;
    *at = (int32_t)x->n_plan - x->plan_off[p];
    return push_item(x, -1, (int32_t)x->n_coll++);
}

static int add_cin(struct ctx *x, int32_t op, int32_t port)
{
    if (grow((void **)&x->cin, &x->alloc_cin, x->n_cin + 1, sizeof(*x->cin))) {
        return BAECHI_ENOMEM;
    }
    x->cin[x->n_cin++] = (struct wl_input){op, port, 0, 0};
    return 0;
}

/* Divisor of output `port` of op i under TP (parallel.h: split tensors). */
static int64_t out_div(const struct ctx *x, int32_t i, int32_t port)
{
    const struct wl_op *op = &x->w->op[i];
    enum tp_role r = x->role[x->base[i]];

    if (r == TP_NONE) {
        return 1;
    }
    if (op->phase == PHASE_FORWARD) {
        return r == TP_EXIT ? 1 : x->o->tp;
    }
    if (r == TP_ENTRY) { /* the input's gradient is whole (a partial sum), the weight's split */
        return port == op->n_out - 1 && x->upd[x->base[i]] >= 0 ? x->o->tp : 1;
    }
    return x->o->tp;
}

/* Bytes of output `port` of op i on one rank. */
static int64_t out_bytes(const struct ctx *x, int32_t i, int32_t port)
{
    return x->w->out_bytes[x->w->op[i].out_off + port] / out_div(x, i, port);
}

/* The parameter bytes of update op u's parameters on one TP rank (the weight
 * gradient it reads). */
static int64_t update_param_bytes(const struct ctx *x, int32_t u)
{
    const struct wl_input *in = &x->w->input[x->w->op[u].in_off];

    if (x->w->op[u].n_in < 1 || in->port == WL_PORT_CONTROL) {
        return 0; /* not an update of the training synthesis: no gradient read */
    }
    return out_bytes(x, in->producer, in->port);
}

/* Persistent bytes of op i on one rank. */
static int64_t persistent_of(const struct ctx *x, int32_t i)
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
            v = (4 + 4 * states) * (update_param_bytes(x, i) / 2);
        } else if (x->role[x->base[i]] != TP_NONE) {
            v /= o->tp;
        }
        return o->zero >= 1 ? (v + d - 1) / d : v;
    }
    if (x->role[x->base[i]] != TP_NONE) {
        v /= o->tp;
    }
    return o->zero >= 3 && op->phase == PHASE_FORWARD ? (v + d - 1) / d : v;
}

/* TP splits must be exact: every split size a multiple of T. */
static int check_split(const struct ctx *x)
{
    const struct workload *w = x->w;

    for (int32_t i = 0; i < x->n; i++) {
        const struct wl_op *op = &w->op[i];

        if (x->role[x->base[i]] == TP_NONE) {
            continue;
        }
        if (op->persistent % x->o->tp != 0) {
            return err_set(BAECHI_EINVAL,
                           "tensor parallelism: op '%s' holds %lld bytes, not a multiple of "
                           "--tp %d (the heads and widths must divide by T)",
                           op->name, (long long)op->persistent, (int)x->o->tp);
        }
        for (int32_t k = 0; k < op->n_out; k++) {
            if (w->out_bytes[op->out_off + k] % out_div(x, i, k) != 0) {
                return err_set(BAECHI_EINVAL,
                               "tensor parallelism: output %d of op '%s' (%lld bytes) is not a "
                               "multiple of --tp %d (the heads and widths must divide by T)",
                               (int)k, op->name, (long long)w->out_bytes[op->out_off + k],
                               (int)x->o->tp);
            }
        }
    }
    return 0;
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
static int plan_buckets(struct ctx *x, int32_t *ord, int32_t *after_grad, int32_t *after_upd,
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
            int64_t b = update_param_bytes(x, pair[k].update);

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

/* The all-reduce of the gradient of the input of TP group `key` (the
 * column-parallel ops reading one tensor): one collective over every entry
 * gradient of the group, which read it instead. */
static int plan_tp_backward(struct ctx *x, int32_t g, const int32_t *next_member)
{
    struct coll c = {"AllReduce", "all-reduce", "", true, 0, 0, PHASE_BACKWARD, 0, 0};
    int32_t at, rc;

    c.in_off = (int32_t)x->n_cin;
    c.bytes = c.out = out_bytes(x, g, 0);
    snprintf(c.id, sizeof(c.id), "tp/%s/ar", x->w->op[g].name);
    for (int32_t m = g; m >= 0; m = next_member[m]) {
        if ((rc = add_cin(x, m, 0))) {
            return rc;
        }
        c.n_in++;
    }
    if ((rc = push_coll(x, x->stage[g], &c, &at))) {
        return rc;
    }
    for (int32_t m = g; m >= 0; m = next_member[m]) {
        x->redirect[x->w->op[m].out_off] = at;
    }
    return 0;
}

/* The TP group of entry gradient g: the output port its forward copy reads;
 * -1 when g passes no gradient on (its input needs none). */
static int32_t tp_key(const struct ctx *x, int32_t g)
{
    const struct workload *w = x->w;
    const struct wl_op *op = &w->op[g];
    char name[1024];
    size_t n = strlen(op->name);
    int32_t f;

    if (op->phase != PHASE_BACKWARD || x->role[x->base[g]] != TP_ENTRY || n < 5 ||
        op->n_out < (x->upd[x->base[g]] >= 0 ? 2 : 1)) {
        return -1;
    }
    snprintf(name, sizeof(name), "%.*s", (int)(n - 5), op->name);
    if ((f = workload_find(w, name)) < 0 || w->op[f].n_in < 1 ||
        w->input[w->op[f].in_off].port == WL_PORT_CONTROL) {
        return -1;
    }
    return w->op[w->input[w->op[f].in_off].producer].out_off + w->input[w->op[f].in_off].port;
}

/* ZeRO-3: the all-gather of op i's parameters, before i (which reads it). */
static int plan_gather(struct ctx *x, int32_t i)
{
    const struct wl_op *op = &x->w->op[i];
    struct coll c = {"AllGather", "all-gather", "", false, 0, 0, op->phase, 0, 0};
    int32_t at, u = x->upd[x->base[i]], rc;

    c.in_off = (int32_t)x->n_cin;
    c.bytes = c.out = update_param_bytes(x, u);
    snprintf(c.id, sizeof(c.id), "zero3/%s/ag", op->name);
    if (op->n_in > 0) {
        if ((rc = add_cin(x, x->w->input[op->in_off].producer, WL_PORT_CONTROL))) {
            return rc;
        }
        c.n_in = 1;
    }
    if ((rc = push_coll(x, x->stage[i], &c, &at))) {
        return rc;
    }
    x->extra_in[i] = at;
    return 0;
}

/* Bucket b's all-reduce (ZeRO-2/3: reduce-scatter), after its last gradient,
 * or (upd) ZeRO-1/2's all-gather of its updated parameters. */
static int plan_bucket(struct ctx *x, int32_t b, const int32_t *ord, const int32_t *bk_start,
                       bool upd)
{
    const struct workload *w = x->w;
    struct coll c = {"AllReduce", "all-reduce", "", false, 0, 0, PHASE_BACKWARD, 0, 0};
    int32_t at, rc;

    c.in_off = (int32_t)x->n_cin;
    for (int32_t k = bk_start[b]; k < bk_start[b + 1]; k++) {
        const struct wl_input *in = &w->input[w->op[ord[k]].in_off];

        c.bytes += update_param_bytes(x, ord[k]);
        if ((rc = upd ? add_cin(x, ord[k], WL_PORT_CONTROL) : add_cin(x, in->producer, in->port))) {
            return rc;
        }
        c.n_in++;
    }
    c.out = c.bytes;
    if (upd) {
        c.type = "AllGather";
        c.kind = "all-gather";
        c.phase = PHASE_UPDATE;
        snprintf(c.id, sizeof(c.id), "zero/b%d/ag", (int)b);
    } else {
        snprintf(c.id, sizeof(c.id), "ddp/b%d", (int)b);
        if (x->o->zero >= 2) {
            c.type = "ReduceScatter";
            c.kind = "reduce-scatter";
            c.out = (c.bytes + x->o->dp - 1) / x->o->dp;
        }
    }
    if ((rc = push_coll(x, x->stage[ord[bk_start[b]]], &c, &at))) {
        return rc;
    }
    for (int32_t k = bk_start[b]; k < bk_start[b + 1] && !upd; k++) {
        const struct wl_input *in = &w->input[w->op[ord[k]].in_off];

        x->redirect[w->op[in->producer].out_off + in->port] = at;
    }
    return 0;
}

/* The plans of all stages: each stage's ops in input order, collectives
 * where they start. */
static int build_plans(struct ctx *x)
{
    const struct workload *w = x->w;
    const struct parallel_opts *o = x->o;
    int32_t *ord = NULL, *after_grad = NULL, *after_upd = NULL, *bk_start = NULL;
    int32_t *next_member = NULL, *head = NULL, n_bk = 0;
    int rc = BAECHI_ENOMEM;

    if (!(ord = mem_calloc((size_t)x->n + 1, sizeof(*ord))) ||
        !(after_grad = mem_alloc_array((size_t)x->n + 1, sizeof(*after_grad))) ||
        !(after_upd = mem_alloc_array((size_t)x->n + 1, sizeof(*after_upd))) ||
        !(bk_start = mem_calloc((size_t)x->n + 2, sizeof(*bk_start))) ||
        !(next_member = mem_alloc_array((size_t)x->n + 1, sizeof(*next_member))) ||
        !(head = mem_alloc_array(w->n_out_bytes + 1, sizeof(*head)))) {
        goto done;
    }
    for (int32_t i = 0; i <= x->n; i++) {
        after_grad[i] = after_upd[i] = next_member[i] = -1;
    }
    for (size_t k = 0; k <= w->n_out_bytes; k++) {
        head[k] = -1;
    }
    if (o->dp > 1 && (rc = plan_buckets(x, ord, after_grad, after_upd, bk_start, &n_bk))) {
        goto done;
    }
    for (int32_t i = 0; i < x->n; i++) { /* TP groups: the chain of entry gradients per key */
        int32_t key = o->tp > 1 ? tp_key(x, i) : -1;

        if (key >= 0) {
            next_member[i] = head[key];
            head[key] = i;
        }
    }
    for (int32_t p = 0; p < o->pp; p++) {
        x->plan_off[p] = (int32_t)x->n_plan;
        for (int32_t i = 0; i < x->n; i++) {
            const struct wl_op *op = &w->op[i];
            int32_t key = o->tp > 1 ? tp_key(x, i) : -1;

            if (x->stage[i] != p) {
                continue;
            }
            if (o->zero >= 3 && o->dp > 1 && op->phase != PHASE_UPDATE && x->upd[x->base[i]] >= 0 &&
                (rc = plan_gather(x, i))) {
                goto done;
            }
            if ((rc = push_item(x, i, -1))) {
                goto done;
            }
            if (o->tp > 1 && op->phase == PHASE_FORWARD && x->role[x->base[i]] == TP_EXIT) {
                struct coll c = {"AllReduce", "all-reduce", "", true, 0, 0, PHASE_FORWARD, 0, 1};
                int32_t at;

                c.in_off = (int32_t)x->n_cin;
                c.bytes = c.out = out_bytes(x, i, 0);
                snprintf(c.id, sizeof(c.id), "tp/%s/ar", op->name);
                if ((rc = add_cin(x, i, 0)) || (rc = push_coll(x, p, &c, &at))) {
                    goto done;
                }
                x->redirect[op->out_off] = at;
            }
            if (key >= 0 && head[key] == i && (rc = plan_tp_backward(x, i, next_member))) {
                goto done;
            }
            if (after_grad[i] >= 0 && (rc = plan_bucket(x, after_grad[i], ord, bk_start, false))) {
                goto done;
            }
            if (after_upd[i] >= 0 && o->zero >= 1 && o->zero <= 2 &&
                (rc = plan_bucket(x, after_upd[i], ord, bk_start, true))) {
                goto done;
            }
        }
    }
    x->plan_off[o->pp] = (int32_t)x->n_plan;
    rc = 0;
done:
    free(ord);
    free(after_grad);
    free(after_upd);
    free(bk_start);
    free(next_member);
    free(head);
    return rc;
}

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
    char id[640], name[700], bytes[32], k0[] = "id", k1[] = "kind", k2[] = "bytes";
    char *keys[] = {k0, k1, k2};
    struct yval items[3] = {
        {.kind = YVAL_SCALAR, .scalar = id},
        {.kind = YVAL_SCALAR, .scalar = (char *)c->kind},
        {.kind = YVAL_SCALAR, .scalar = bytes},
    };
    struct yval v = {.kind = YVAL_MAP, .n = 3, .keys = keys, .items = items};
    int32_t k;
    int rc;

    if (c->over_tp) {
        snprintf(id, sizeof(id), "p%d.d%d/%s", (int)p, (int)d, c->id);
    } else {
        snprintf(id, sizeof(id), "p%d.t%d/%s", (int)p, (int)t, c->id);
    }
    snprintf(name, sizeof(name), "r%d/%s", (int)r, id);
    snprintf(bytes, sizeof(bytes), "%lld", (long long)c->bytes);
    if ((rc = workload_add_op(out, name, c->type, &k)) || (rc = workload_add_output(out, c->out))) {
        return rc;
    }
    for (int32_t i = 0; i < c->n_in; i++) {
        const struct wl_input *in = &x->cin[c->in_off + i];

        if ((rc = add_input(out, x, in->producer, in->port, d, t, false))) {
            return rc;
        }
    }
    if ((rc = workload_add_ext(out, "x-collective", &v))) {
        return rc;
    }
    /* Collectives follow their replicas: a rank op joins the colocation group
     * of the op whose output it reduces first, so a placer that keeps groups
     * (every placer's default grouper) puts it on that replica's device.  A
     * rank op without inputs (ZeRO-3's parameter gathers) keeps its own. */
    if (out->op[k].n_in > 0) {
        /* a copy: setting the group may move the pool the name lies in */
        char *group = mem_strdup(workload_group(out, out->input[out->op[k].in_off].producer));

        rc = group ? workload_set_group(out, k, group) : BAECHI_ENOMEM;
        free(group);
        if (rc) {
            return rc;
        }
    }
    out->op[k].time_us = 0;
    out->op[k].phase = c->phase;
    out->op[k].has_phase = true;
    out->op[k].device = r;
    return 0;
}

/* Rank r's copy of input op i. */
static int emit_copy(struct workload *out, const struct ctx *x, int32_t i, int32_t r)
{
    const struct wl_op *op = &x->w->op[i];
    const int32_t T = x->o->tp, D = x->o->dp, t = r % T, d = r / T % D;
    double div = x->role[x->base[i]] != TP_NONE ? T : 1;
    char name[1024];
    struct wl_op *o;
    int32_t k;
    int rc;

    if (op->phase == PHASE_UPDATE && x->o->zero >= 1) {
        div *= D; /* each replica updates its shard */
    }
    snprintf(name, sizeof(name), "r%d/%s", (int)r, op->name);
    if ((rc = workload_add_op(out, name, op->type, &k))) {
        return rc;
    }
    for (int32_t p = 0; p < op->n_out; p++) {
        if ((rc = workload_add_output(out, out_bytes(x, i, p)))) {
            return rc;
        }
    }
    for (int32_t j = 0; j < op->n_in; j++) {
        const struct wl_input *in = &x->w->input[op->in_off + j];

        if ((rc = add_input(out, x, in->producer, in->port, d, t, true))) {
            return rc;
        }
    }
    if (x->extra_in[i] >= 0 &&
        (rc = workload_add_input(out, x->first_id[r] + x->extra_in[i], 0, 0, 0))) {
        return rc;
    }
    for (int32_t j = 0; j < op->n_ext; j++) {
        const struct wl_ext *e = &x->w->ext[op->ext_off + j];

        if ((rc = workload_add_ext(out, e->key, &e->val))) {
            return rc;
        }
    }
    if (op->group) {
        snprintf(name, sizeof(name), "r%d/%s", (int)r, op->group);
        if ((rc = workload_set_group(out, k, name))) {
            return rc;
        }
    }
    o = &out->op[k];
    o->time_us = op->time_us / div;
    o->flops = op->flops / div;
    o->bytes = op->bytes / div;
    o->temp = (int64_t)ceil((double)op->temp / div);
    o->persistent = persistent_of(x, i);
    o->phase = op->phase;
    o->has_phase = op->has_phase;
    o->device = r;
    o->line = op->line;
    o->col = op->col;
    return 0;
}

static int emit(struct workload *out, struct ctx *x)
{
    const int32_t T = x->o->tp, D = x->o->dp;
    int32_t id = 0;
    int rc;

    for (int32_t r = 0; r < x->n_dev; r++) {
        int32_t p = r / T / D;

        x->first_id[r] = id;
        id += x->plan_off[p + 1] - x->plan_off[p];
    }
    for (int32_t r = 0; r < x->n_dev; r++) {
        int32_t p = r / T / D;

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

static int copy_header(struct workload *out, const struct workload *in,
                       const struct parallel_opts *o)
{
    char name[512];
    int rc;

    snprintf(name, sizeof(name), "%s_dp%d_tp%d_pp%d%s", in->name ? in->name : "workload",
             (int)o->dp, (int)o->tp, (int)o->pp,
             o->zero == 1   ? "_zero1"
             : o->zero == 2 ? "_zero2"
             : o->zero == 3 ? "_zero3"
                            : "");
    if ((rc = workload_set_name(out, name))) {
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
    return 0;
}

static int check_opts(const struct workload *in, const struct parallel_opts *o)
{
    int32_t op;

    if (o->dp < 1 || o->tp < 1 || o->pp < 1 ||
        (int64_t)o->dp * o->tp * o->pp > PARALLEL_MAX_DEVICES) {
        return err_set(BAECHI_EINVAL, "parallelize: --dp %d x --tp %d x --pp %d must be 1..%d",
                       (int)o->dp, (int)o->tp, (int)o->pp, PARALLEL_MAX_DEVICES);
    }
    if (o->zero < 0 || o->zero > 3 || !(o->bucket_mb > 0)) {
        return err_set(BAECHI_EINVAL, "parallelize: --zero %d must be 0..3 and --bucket-mb > 0",
                       (int)o->zero);
    }
    if (!train_is_training_graph(in, &op)) {
        return err_set(BAECHI_EINVAL,
                       "parallelize: '%s' is a forward graph; parallelise a training graph "
                       "(`baechi workload train` or `workload gen` without --forward-only)",
                       in->name);
    }
    return 0;
}

int parallel_apply(struct workload *out, const struct workload *in, const struct parallel_opts *o)
{
    struct ctx x;
    size_t n = (size_t)in->n_ops + 1;
    int rc;

    workload_init(out);
    if ((rc = gen_cap_parallel(in, o)) != 0) { /* the size before building it (gen_cap.h) */
        return rc;
    }
    memset(&x, 0, sizeof(x));
    x.w = in;
    x.o = o;
    x.n = in->n_ops;
    x.n_dev = o->dp * o->tp * o->pp;
    strpool_init(&x.pool);
    strmap_init(&x.names);
    if ((rc = check_opts(in, o))) {
        goto done;
    }
    rc = BAECHI_ENOMEM;
    if (!(x.stage = mem_calloc(n, sizeof(*x.stage))) ||
        !(x.base = mem_calloc(n, sizeof(*x.base))) ||
        !(x.upd = mem_alloc_array(n, sizeof(*x.upd))) ||
        !(x.role = mem_calloc(n, sizeof(*x.role))) ||
        !(x.item_of = mem_calloc(n, sizeof(*x.item_of))) ||
        !(x.extra_in = mem_alloc_array(n, sizeof(*x.extra_in))) ||
        !(x.redirect = mem_alloc_array(in->n_out_bytes + 1, sizeof(*x.redirect))) ||
        !(x.first_id = mem_calloc((size_t)x.n_dev, sizeof(*x.first_id))) ||
        !(x.plan_off = mem_calloc((size_t)o->pp + 1, sizeof(*x.plan_off)))) {
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        x.upd[i] = x.extra_in[i] = -1;
    }
    for (size_t i = 0; i <= in->n_out_bytes; i++) {
        x.redirect[i] = -1;
    }
    if ((rc = index_bases(&x)) || (rc = check_split(&x)) || (rc = assign_stages(&x)) ||
        (rc = build_plans(&x)) || (rc = copy_header(out, in, o)) || (rc = emit(out, &x))) {
        goto done;
    }
    rc = workload_check(out);
done:
    if (rc) {
        workload_release(out);
        workload_init(out);
    }
    strmap_release(&x.names);
    strpool_release(&x.pool);
    free(x.stage);
    free(x.base);
    free(x.upd);
    free(x.role);
    free(x.item_of);
    free(x.extra_in);
    free(x.redirect);
    free(x.first_id);
    free(x.plan_off);
    free(x.plan);
    free(x.coll);
    free(x.cin);
    return rc;
}
