/*
 * graph.c - building the op graph from a workload (see graph.h), following
 * baechi-spec §1.2-§1.5 and §8.2 exactly.
 *
 * graph_build runs in O(ops + inputs) time: edges are made consumer-major
 * (as the original makes them), dangling ops pruned, then the CSR arrays are
 * filled by two stable counting sorts (by source for out-edges, by target for
 * in-edges), which yields exactly the original's adjacency orders.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/graph.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"
#include "core/strbuf.h"
#include "core/limits.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Compute times beyond this many µs (about 31 years) are surely a mistake. */
#define GRAPH_MAX_TIME_US LIMIT_TIME_US_MAX

/* Edges as the original first creates them: consumer by consumer. */
struct raw_edges {
    int32_t *src, *dst; /* raw (workload) op indices */
    int32_t *t_start;   /* n+1 offsets into t_prod/t_port */
    int32_t *t_prod;    /* tensor: raw producer */
    int32_t *t_port;    /* tensor: port or WL_PORT_CONTROL */
    size_t n, alloc, alloc_dst, alloc_start;
    size_t nt, alloc_t, alloc_t2;
};

static void raw_edges_release(struct raw_edges *r)
{
    free(r->src);
    free(r->dst);
    free(r->t_start);
    free(r->t_prod);
    free(r->t_port);
    memset(r, 0, sizeof(*r));
}

static int raw_add_tensor(struct raw_edges *r, int32_t prod, int32_t port)
{
    if (r->nt >= INT32_MAX) {
        return err_set(BAECHI_EINVAL, "too many tensor references");
    }
    if (ARRAY_RESERVE(r->t_prod, r->alloc_t, r->nt + 1) ||
        ARRAY_RESERVE(r->t_port, r->alloc_t2, r->nt + 1)) {
        return BAECHI_ENOMEM;
    }
    r->t_prod[r->nt] = prod;
    r->t_port[r->nt] = port;
    r->nt++;
    return 0;
}

/*
 * Edges into consumer v: one per distinct producer, data inputs first (in
 * input order), then control inputs (baechi-spec §1.3, §1.4).  `slot` maps
 * a producer to its edge while v is processed (valid when stamp == v).
 */
static int raw_add_consumer(struct raw_edges *r, const struct workload *w, int32_t v,
                            int32_t *stamp, int32_t *slot, int32_t *scratch)
{
    const struct wl_op *op = &w->op[v];
    int32_t n_local = 0;
    int32_t *order = scratch;                  /* local edge -> producer, first-seen order */
    int32_t *cnt = scratch + op->n_in;         /* local edge -> tensor count */
    int32_t *tin = scratch + 2 * op->n_in;     /* kept inputs, in order */
    int32_t *tedge = scratch + 3 * op->n_in;   /* kept input -> local edge */
    int32_t *first = scratch + 4 * op->n_in;   /* local edge -> its first slot in `by_edge` */
    int32_t *by_edge = scratch + 5 * op->n_in; /* kept inputs grouped by edge, in order */
    int32_t n_kept = 0;

    for (int pass = 0; pass < 2; pass++) {
        for (int32_t k = 0; k < op->n_in; k++) {
            const struct wl_input *in = &w->input[op->in_off + k];
            bool control = in->port == WL_PORT_CONTROL;
            int32_t e;

            if (control != (pass == 1)) {
                continue;
            }
            if (stamp[in->producer] == v) {
                e = slot[in->producer];
                if (control) {
                    /* deviation: a control input next to a data input from the
                     * same producer is redundant (TF drops it; the original
                     * asserts); a repeated "^u" counts once. */
                    continue;
                }
                /* A tensor read twice by one op counts once (x*x). */
                {
                    bool dup = false;

                    for (int32_t j = 0; j < n_kept; j++) {
                        const struct wl_input *o = &w->input[op->in_off + tin[j]];

                        if (tedge[j] == e && o->port == in->port) {
                            dup = true;
                            break;
                        }
                    }
                    if (dup) {
                        continue;
                    }
                }
            } else {
                e = n_local++;
                stamp[in->producer] = v;
                slot[in->producer] = e;
                order[e] = in->producer;
                cnt[e] = 0;
            }
            cnt[e]++;
            tin[n_kept] = k;
            tedge[n_kept] = e;
            n_kept++;
        }
    }

    /* Kept inputs grouped by edge, input order kept (a counting sort): one
     * scan of the inputs per edge made an op with 100,000 inputs take 12 s. */
    for (int32_t e = 0, at = 0; e < n_local; e++) {
        first[e] = at;
        at += cnt[e];
    }
    for (int32_t j = 0; j < n_kept; j++) {
        by_edge[first[tedge[j]]++] = tin[j];
    }
    /* Emit the edges in first-seen order, each with its tensors in input order. */
    for (int32_t e = 0, at = 0; e < n_local; e++) {
        if (r->n >= INT32_MAX - 1) {
            return err_set(BAECHI_EINVAL, "too many edges");
        }
        if (ARRAY_RESERVE(r->src, r->alloc, r->n + 1) ||
            ARRAY_RESERVE(r->dst, r->alloc_dst, r->n + 1) ||
            ARRAY_RESERVE(r->t_start, r->alloc_start, r->n + 2)) {
            return BAECHI_ENOMEM;
        }
        r->src[r->n] = order[e];
        r->dst[r->n] = v;
        r->t_start[r->n] = (int32_t)r->nt;
        for (int32_t j = 0; j < cnt[e]; j++, at++) {
            const struct wl_input *in = &w->input[op->in_off + by_edge[at]];
            int rc = raw_add_tensor(r, in->producer, in->port);

            if (rc) {
                return rc;
            }
        }
        r->n++;
        r->t_start[r->n] = (int32_t)r->nt;
    }
    return 0;
}

void graph_release(struct graph *g)
{
    free(g->wl_index);
    free(g->op_name);
    free(g->op_type);
    free(g->weight_us);
    free(g->flops);
    free(g->mem_bytes);
    free(g->temp_bytes);
    free(g->persist_bytes);
    free(g->out_bytes);
    free(g->port_start);
    free(g->port_bytes);
    free(g->group);
    free(g->phase);
    free(g->micro_batch);
    free(g->port_alias);
    free(g->given_device);
    free(g->topo);
    free(g->topo_op);
    free(g->out_start);
    free(g->in_start);
    free(g->in_edge);
    free(g->edge_src);
    free(g->edge_dst);
    free(g->et_start);
    free(g->et_tensor);
    free(g->tensor_op);
    free(g->tensor_bytes);
    free(g->group_name);
    free(g->group_start);
    free(g->group_op);
    free(g->coll);
    free(g->coll_of);
    free(g->coll_start);
    free(g->coll_op);
    free(g->coll_copies);
    strpool_release(&g->pool);
    strmap_release(&g->by_name);
    memset(g, 0, sizeof(*g));
}

/* Reports one cycle among the ops Kahn's algorithm could not order. */
static int graph_report_cycle(const struct graph *g, const struct workload *w,
                              const int32_t *indeg_left)
{
    int32_t *pos = NULL, *path = NULL;
    int32_t n = g->n_ops, len = 0, v = -1, start;
    struct strbuf msg = STRBUF_INIT;
    int rc = BAECHI_EPARSE;

    for (int32_t i = 0; i < n; i++) {
        if (indeg_left[i] > 0) {
            v = i;
            break;
        }
    }
    if (v < 0) {
        BUG("no op left in a cycle");
    }
    pos = mem_alloc_array((size_t)n, sizeof(*pos));
    path = mem_alloc_array((size_t)n + 1, sizeof(*path));
    if (!pos || !path) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    for (int32_t i = 0; i < n; i++) {
        pos[i] = -1;
    }
    /* Walk backwards: every unordered op has an unordered producer. */
    while (pos[v] < 0) {
        pos[v] = len;
        path[len++] = v;
        for (int32_t k = g->in_start[v]; k < g->in_start[v + 1]; k++) {
            int32_t u = g->edge_src[g->in_edge[k]];

            if (indeg_left[u] > 0) {
                v = u;
                break;
            }
        }
    }
    start = pos[v];
    /* The path from `start` on goes backwards; print it forwards. */
    for (int32_t i = len - 1; i >= start - 1; i--) {
        const char *name = g->op_name[i >= start ? path[i] : path[len - 1]];

        if ((rc = strbuf_addf(&msg, "%s%s", msg.len ? " -> " : "", name))) {
            goto cleanup;
        }
        if (msg.len > 1500) {
            break;
        }
    }
    {
        const struct wl_op *op = &w->op[g->wl_index[path[len - 1]]];

        rc = workload_fail(w, op->line, op->col, BAECHI_EPARSE, "the graph has a cycle: %s",
                           msg.buf);
    }
cleanup:
    free(pos);
    free(path);
    strbuf_release(&msg);
    return rc;
}

/* FIFO Kahn's algorithm (baechi-spec §1.5). */
static int graph_topo_order(struct graph *g, const struct workload *w)
{
    int32_t n = g->n_ops;
    int32_t *left = mem_alloc_array((size_t)n, sizeof(*left));
    int32_t head = 0, tail = 0;
    int rc = 0;

    if (!left) {
        return BAECHI_ENOMEM;
    }
    for (int32_t v = 0; v < n; v++) {
        left[v] = graph_in_degree(g, v);
        if (left[v] == 0) {
            g->topo_op[tail++] = v;
        }
    }
    while (head < tail) {
        int32_t u = g->topo_op[head];

        g->topo[u] = head++;
        for (int32_t e = g->out_start[u]; e < g->out_start[u + 1]; e++) {
            int32_t v = g->edge_dst[e];

            if (--left[v] == 0) {
                g->topo_op[tail++] = v;
            }
        }
    }
    if (tail != n) {
        rc = graph_report_cycle(g, w, left);
    }
    free(left);
    return rc;
}

static int add_overflows(int64_t *acc, int64_t x)
{
    return __builtin_add_overflow(*acc, x, acc);
}

/*
 * The op's micro-batch from its "x-micro-batch" key (workloads/train.h): an
 * integer in 0..TRAIN_MAX; g->micro_batch is allocated at the first op that
 * has one (-1 for the others).
 */
static int read_micro_batch(struct graph *g, const struct workload *w, const struct wl_op *op,
                            int32_t u, int32_t n)
{
    for (int32_t k = 0; k < op->n_ext; k++) {
        const struct wl_ext *e = &w->ext[op->ext_off + k];
        char *end;
        long m;

        if (strcmp(e->key, GRAPH_MICRO_BATCH_KEY) != 0) {
            continue;
        }
        m = e->val.kind == YVAL_SCALAR && e->val.scalar ? strtol(e->val.scalar, &end, 10) : -1;
        if (m < 0 || m >= GRAPH_MAX_MICRO_BATCHES || !e->val.scalar || *end) {
            return workload_fail(w, op->line, op->col, BAECHI_EPARSE,
                                 "op '%s': %s must be an integer in 0..%d", op->name,
                                 GRAPH_MICRO_BATCH_KEY, GRAPH_MAX_MICRO_BATCHES - 1);
        }
        if (!g->micro_batch) {
            if (!(g->micro_batch = mem_alloc_array((size_t)n + 1, sizeof(*g->micro_batch)))) {
                return BAECHI_ENOMEM;
            }
            for (int32_t v = 0; v < n; v++) {
                g->micro_batch[v] = -1;
            }
        }
        g->micro_batch[u] = (int32_t)m;
    }
    return 0;
}

/*
 * x-alias (GRAPH_ALIAS_KEY): per output port, the index in the op's
 * `inputs` of the data input whose storage the output shares (an in-place
 * op, a view), or -1.  g->port_alias holds the port each aliased port
 * shares storage with (a view of a view names the first view: the
 * simulator follows the chain as far as it stays on one device).
 */
static int read_aliases(struct graph *g, const struct workload *w, const int32_t *new_id)
{
    for (int32_t u = 0; u < g->n_ops; u++) {
        const struct wl_op *op = &w->op[g->wl_index[u]];

        for (int32_t k = 0; k < op->n_ext; k++) {
            const struct wl_ext *e = &w->ext[op->ext_off + k];
            const struct yval *v = &e->val;

            if (strcmp(e->key, GRAPH_ALIAS_KEY) != 0) {
                continue;
            }
            if (v->kind != YVAL_SEQ || v->n != op->n_out) {
                return workload_fail(w, op->line, op->col, BAECHI_EPARSE,
                                     "op '%s': %s must list one input index (or -1) per output "
                                     "(%d outputs)",
                                     op->name, GRAPH_ALIAS_KEY, (int)op->n_out);
            }
            for (int32_t j = 0; j < v->n; j++) {
                const struct yval *it = &v->items[j];
                char *end = NULL;
                long in = it->kind == YVAL_SCALAR && it->scalar ? strtol(it->scalar, &end, 10) : -2;
                const struct wl_input *src;

                if (in < -1 || in >= op->n_in || !end || *end) {
                    return workload_fail(w, op->line, op->col, BAECHI_EPARSE,
                                         "op '%s': %s[%d] must be -1 or an input index in 0..%d",
                                         op->name, GRAPH_ALIAS_KEY, (int)j, (int)op->n_in - 1);
                }
                if (in < 0) {
                    continue;
                }
                src = &w->input[op->in_off + in];
                if (src->port == WL_PORT_CONTROL || new_id[src->producer] < 0) {
                    return workload_fail(w, op->line, op->col, BAECHI_EPARSE,
                                         "op '%s': %s[%d] names input %ld, a control dependency",
                                         op->name, GRAPH_ALIAS_KEY, (int)j, in);
                }
                if (!g->port_alias) {
                    if (!(g->port_alias =
                              mem_alloc_array((size_t)g->n_ports + 1, sizeof(*g->port_alias)))) {
                        return BAECHI_ENOMEM;
                    }
                    for (int32_t p = 0; p < g->n_ports; p++) {
                        g->port_alias[p] = -1;
                    }
                }
                g->port_alias[g->port_start[u] + j] =
                    g->port_start[new_id[src->producer]] + src->port;
            }
        }
    }
    return 0;
}

/*
 * Phases 1 and 2: the edges, consumer-major, as the original builds them,
 * then the dangling ops pruned and the rest renumbered in file order
 * (new_id[raw] = id or -1).  Sets g->n_pruned, n_ops and n_edges.
 */
static int build_edges(struct graph *g, const struct workload *w, struct raw_edges *r,
                       int32_t *new_id)
{
    int32_t n_raw = w->n_ops, n = 0, max_in = 0;
    int32_t *stamp = NULL, *slot = NULL, *scratch = NULL, *indeg = NULL, *outdeg = NULL;
    int rc = 0;

    /* Freed on return, before the graph's own arrays grow (a 1,000,000-op
     * chain peaked at 406 MB). */
    stamp = mem_alloc_array((size_t)n_raw, sizeof(*stamp));
    slot = mem_alloc_array((size_t)n_raw, sizeof(*slot));
    indeg = mem_calloc((size_t)n_raw, sizeof(*indeg));
    outdeg = mem_calloc((size_t)n_raw, sizeof(*outdeg));
    if (!stamp || !slot || !indeg || !outdeg) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    for (int32_t i = 0; i < n_raw; i++) {
        stamp[i] = -1;
        if (w->op[i].n_in > max_in) {
            max_in = w->op[i].n_in;
        }
    }
    scratch = mem_alloc_array(6 * (size_t)max_in + 6, sizeof(*scratch));
    /* at most one edge and one tensor per input: room for all at once (a
     * 1M-op graph's arrays were regrown by copies, a tenth of its build) */
    if (!scratch || ARRAY_RESERVE(r->t_start, r->alloc_start, w->n_input + 2) ||
        ARRAY_RESERVE(r->src, r->alloc, w->n_input + 1) ||
        ARRAY_RESERVE(r->dst, r->alloc_dst, w->n_input + 1) ||
        ARRAY_RESERVE(r->t_prod, r->alloc_t, w->n_input + 1) ||
        ARRAY_RESERVE(r->t_port, r->alloc_t2, w->n_input + 1)) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    r->t_start[0] = 0;
    for (int32_t v = 0; v < n_raw; v++) {
        CHECK(raw_add_consumer(r, w, v, stamp, slot, scratch));
    }
    for (size_t e = 0; e < r->n; e++) {
        outdeg[r->src[e]]++;
        indeg[r->dst[e]]++;
    }
    for (int32_t i = 0; i < n_raw; i++) {
        new_id[i] = (indeg[i] || outdeg[i]) ? n++ : -1;
    }
    g->n_pruned = n_raw - n;
    if (n == 0) {
        rc = workload_fail(w, 0, 0, BAECHI_EPARSE,
                           "every op is dangling (no op has an input or a consumer)");
        goto cleanup;
    }
    g->n_ops = n;
    g->n_edges = (int32_t)r->n;
cleanup:
    free(stamp);
    free(slot);
    free(scratch);
    free(indeg);
    free(outdeg);
    return rc;
}

/*
 * Group keys without hashing every op: a group named like an op (the
 * default, its own name, included) is keyed by that op's index; other
 * names go through a small map.  Group ids by first appearance.
 */
struct group_keys {
    struct strmap foreign;
    int32_t n_foreign;
    int32_t *gid_of_key;
    size_t alloc_keys, alloc_names;
};

/* Op u (raw index i) joins its group; a new group gets the next id. */
static int op_join_group(struct graph *g, const struct workload *w, struct group_keys *gk,
                         int32_t i, int32_t u)
{
    int32_t n_raw = w->n_ops;
    const char *gname = workload_group(w, i);
    int32_t key = w->op[i].group ? workload_find(w, gname) : i;

    if (key < 0) {
        key = strmap_get(&gk->foreign, gname, strlen(gname));
        if (key < 0) {
            const char *copy = strpool_add(&g->pool, gname, strlen(gname));

            if (!copy || strmap_put(&gk->foreign, copy, gk->n_foreign, NULL) ||
                ARRAY_RESERVE(gk->gid_of_key, gk->alloc_keys, (size_t)n_raw + gk->n_foreign + 1)) {
                return BAECHI_ENOMEM;
            }
            gk->gid_of_key[n_raw + gk->n_foreign] = -1;
            key = gk->n_foreign++;
        }
        key += n_raw;
    }
    if (gk->gid_of_key[key] < 0) {
        const char *copy;

        if (ARRAY_RESERVE(g->group_name, gk->alloc_names, (size_t)g->n_groups + 1)) {
            return BAECHI_ENOMEM;
        }
        /* The name lives in the pool already when it is an op's own
         * name of a surviving op; otherwise copy it. */
        copy = (key == i) ? g->op_name[u] : strpool_add(&g->pool, gname, strlen(gname));
        if (!copy) {
            return BAECHI_ENOMEM;
        }
        g->group_name[g->n_groups] = copy;
        gk->gid_of_key[key] = g->n_groups++;
    }
    g->group[u] = gk->gid_of_key[key];
    return 0;
}

/*
 * The fields of op u (raw index i): name, interned type, weight, memory,
 * ports.  *n_ports counts the output ports so far, *total the memory sizes.
 */
static int op_fields(struct graph *g, const struct workload *w, struct strmap *types, int32_t i,
                     int32_t u, int32_t *n_ports, int64_t *total)
{
    const struct wl_op *op = &w->op[i];
    int64_t out = 0;
    int32_t tid;
    int rc;

    /* the place of an error is formatted only on an error: an snprintf per
     * op was 5 % of loading a 1,000,000-op chain */
    g->wl_index[u] = i;
    g->op_name[u] = strpool_add(&g->pool, op->name, strlen(op->name));
    /* Types repeat: intern them. */
    tid = strmap_get(types, op->type, strlen(op->type));
    if (tid >= 0) {
        g->op_type[u] = g->op_type[tid];
    } else {
        g->op_type[u] = strpool_add(&g->pool, op->type, strlen(op->type));
        if (g->op_type[u] && strmap_put(types, g->op_type[u], u, NULL)) {
            g->op_type[u] = NULL;
        }
    }
    if (!g->op_name[u] || !g->op_type[u]) {
        return BAECHI_ENOMEM;
    }
    /* baechi-spec §1.2: weight = int(time), and 1 when <= 0 or unprofiled. */
    if (isnan(op->time_us)) {
        g->weight_us[u] = 1;
    } else if (op->time_us > GRAPH_MAX_TIME_US) {
        return workload_fail(w, op->line, op->col, BAECHI_EPARSE,
                             "op '%s': time_us %g is too large (> %g µs)", op->name, op->time_us,
                             GRAPH_MAX_TIME_US);
    } else {
        g->weight_us[u] = (int64_t)op->time_us;
        if (g->weight_us[u] <= 0) {
            g->weight_us[u] = 1;
        }
    }
    g->flops[u] = op->flops;
    g->mem_bytes[u] = op->bytes;
    g->temp_bytes[u] = op->temp;
    g->persist_bytes[u] = op->persistent;
    g->phase[u] = (uint8_t)op->phase;
    g->given_device[u] = op->device;
    if ((rc = read_micro_batch(g, w, op, u, g->n_ops)) != 0) {
        return rc;
    }
    g->port_start[u] = *n_ports;
    if (op->n_out > INT32_MAX - *n_ports) {
        return err_set(BAECHI_EPARSE, "too many output ports");
    }
    *n_ports += op->n_out;
    for (int32_t k = 0; k < op->n_out; k++) {
        int64_t b = w->out_bytes[op->out_off + k];

        if (add_overflows(&out, b < 0 ? 0 : b)) {
            return workload_fail(w, op->line, op->col, BAECHI_EPARSE,
                                 "op '%s': output sizes overflow 64 bits", op->name);
        }
    }
    g->out_bytes[u] = out;
    if (add_overflows(total, out) || add_overflows(total, op->temp) ||
        add_overflows(total, op->persistent)) {
        return workload_fail(w, op->line, op->col, BAECHI_EPARSE,
                             "op '%s': the workload's memory sizes add up to more than "
                             "64 bits hold",
                             op->name);
    }
    return 0;
}

/* Phase 3: the per-op fields and the groups, op by op; sets g->n_ports. */
static int build_ops(struct graph *g, const struct workload *w, const int32_t *new_id)
{
    int32_t n = g->n_ops, n_raw = w->n_ops, n_ports = 0;
    struct group_keys gk;
    struct strmap types;
    int64_t total = 0;
    int rc = 0;

    g->wl_index = mem_alloc_array((size_t)n, sizeof(*g->wl_index));
    g->op_name = mem_alloc_array((size_t)n, sizeof(*g->op_name));
    g->op_type = mem_alloc_array((size_t)n, sizeof(*g->op_type));
    g->weight_us = mem_alloc_array((size_t)n, sizeof(*g->weight_us));
    g->flops = mem_alloc_array((size_t)n, sizeof(*g->flops));
    g->mem_bytes = mem_alloc_array((size_t)n, sizeof(*g->mem_bytes));
    g->temp_bytes = mem_alloc_array((size_t)n, sizeof(*g->temp_bytes));
    g->persist_bytes = mem_alloc_array((size_t)n, sizeof(*g->persist_bytes));
    g->out_bytes = mem_alloc_array((size_t)n, sizeof(*g->out_bytes));
    g->port_start = mem_alloc_array((size_t)n + 1, sizeof(*g->port_start));
    g->group = mem_alloc_array((size_t)n, sizeof(*g->group));
    g->phase = mem_alloc_array((size_t)n, sizeof(*g->phase));
    g->given_device = mem_alloc_array((size_t)n, sizeof(*g->given_device));
    g->topo = mem_alloc_array((size_t)n, sizeof(*g->topo));
    g->topo_op = mem_alloc_array((size_t)n, sizeof(*g->topo_op));
    if (!g->wl_index || !g->op_name || !g->op_type || !g->weight_us || !g->flops || !g->mem_bytes ||
        !g->temp_bytes || !g->persist_bytes || !g->out_bytes || !g->port_start || !g->group ||
        !g->phase || !g->given_device || !g->topo || !g->topo_op) {
        return BAECHI_ENOMEM;
    }
    memset(&gk, 0, sizeof(gk));
    strmap_init(&gk.foreign);
    strmap_init(&types);
    if (ARRAY_RESERVE(gk.gid_of_key, gk.alloc_keys, (size_t)n_raw)) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    for (int32_t i = 0; i < n_raw; i++) {
        gk.gid_of_key[i] = -1;
    }
    for (int32_t i = 0; i < n_raw; i++) {
        if (new_id[i] < 0) {
            continue;
        }
        CHECK(op_fields(g, w, &types, i, new_id[i], &n_ports, &total));
        CHECK(op_join_group(g, w, &gk, i, new_id[i]));
    }
    g->port_start[n] = n_ports;
    g->n_ports = n_ports;
cleanup:
    strmap_release(&gk.foreign);
    strmap_release(&types);
    free(gk.gid_of_key);
    return rc;
}

/* Group members in op order (counting sort); `cursor` holds n_groups. */
static int build_group_members(struct graph *g, int32_t *cursor)
{
    int32_t n = g->n_ops;

    g->group_start = mem_calloc((size_t)g->n_groups + 1, sizeof(*g->group_start));
    g->group_op = mem_alloc_array((size_t)n, sizeof(*g->group_op));
    if (!g->group_start || !g->group_op) {
        return BAECHI_ENOMEM;
    }
    for (int32_t u = 0; u < n; u++) {
        g->group_start[g->group[u] + 1]++;
    }
    for (int32_t k = 0; k < g->n_groups; k++) {
        g->group_start[k + 1] += g->group_start[k];
    }
    memcpy(cursor, g->group_start, (size_t)g->n_groups * sizeof(*cursor));
    for (int32_t u = 0; u < n; u++) {
        g->group_op[cursor[g->group[u]]++] = u;
    }
    return 0;
}

/* Ports and tensors: port p is tensor p; "^u" is tensor n_ports + u. */
static int build_tensors(struct graph *g, const struct workload *w)
{
    int32_t n = g->n_ops, n_ports = g->n_ports;

    if (n_ports > INT32_MAX - n) {
        return err_set(BAECHI_EPARSE, "too many tensors");
    }
    g->n_tensors = n_ports + n;
    g->port_bytes = mem_alloc_array((size_t)n_ports, sizeof(*g->port_bytes));
    g->tensor_op = mem_alloc_array((size_t)g->n_tensors, sizeof(*g->tensor_op));
    g->tensor_bytes = mem_alloc_array((size_t)g->n_tensors, sizeof(*g->tensor_bytes));
    if (!g->port_bytes || !g->tensor_op || !g->tensor_bytes) {
        return BAECHI_ENOMEM;
    }
    for (int32_t u = 0; u < n; u++) {
        const struct wl_op *op = &w->op[g->wl_index[u]];

        for (int32_t k = 0; k < op->n_out; k++) {
            int64_t b = w->out_bytes[op->out_off + k];
            int32_t p = g->port_start[u] + k;

            /* baechi-spec §1.2: an entry <= 0 counts as 0. */
            g->port_bytes[p] = b < 0 ? 0 : b;
            g->tensor_op[p] = u;
            g->tensor_bytes[p] = g->port_bytes[p];
        }
        g->tensor_op[n_ports + u] = u;
        g->tensor_bytes[n_ports + u] = GRAPH_CONTROL_BYTES;
    }
    return 0;
}

/*
 * Phase 4. Out-edges: stable counting sort of the consumer-major edges by
 * source, so each source's edges come by increasing consumer id; edge id =
 * position (source-major, baechi-spec §1.5).  In-edges: stable by target
 * over source-major ids -> by producer id.  `cursor` holds n_ops.
 */
static int build_csr(struct graph *g, const struct raw_edges *r, const int32_t *new_id,
                     int32_t *cursor)
{
    int32_t n = g->n_ops, m = g->n_edges, n_ports = g->n_ports;
    int32_t *perm = NULL;

    g->out_start = mem_calloc((size_t)n + 1, sizeof(*g->out_start));
    g->in_start = mem_calloc((size_t)n + 1, sizeof(*g->in_start));
    g->in_edge = mem_alloc_array((size_t)m, sizeof(*g->in_edge));
    g->edge_src = mem_alloc_array((size_t)m, sizeof(*g->edge_src));
    g->edge_dst = mem_alloc_array((size_t)m, sizeof(*g->edge_dst));
    g->et_start = mem_alloc_array((size_t)m + 1, sizeof(*g->et_start));
    g->et_tensor = mem_alloc_array(r->nt, sizeof(*g->et_tensor));
    perm = mem_alloc_array((size_t)m, sizeof(*perm));
    if (!g->out_start || !g->in_start || !g->in_edge || !g->edge_src || !g->edge_dst ||
        !g->et_start || !g->et_tensor || !perm) {
        free(perm);
        return BAECHI_ENOMEM;
    }
    for (int32_t e = 0; e < m; e++) {
        g->out_start[new_id[r->src[e]] + 1]++;
        g->in_start[new_id[r->dst[e]] + 1]++;
    }
    for (int32_t u = 0; u < n; u++) {
        g->out_start[u + 1] += g->out_start[u];
        g->in_start[u + 1] += g->in_start[u];
    }
    memcpy(cursor, g->out_start, (size_t)n * sizeof(*cursor));
    for (int32_t e = 0; e < m; e++) {
        perm[cursor[new_id[r->src[e]]]++] = e;
    }
    g->et_start[0] = 0;
    for (int32_t e = 0; e < m; e++) {
        int32_t re = perm[e];
        int32_t t0 = r->t_start[re], t1 = r->t_start[re + 1];

        g->edge_src[e] = new_id[r->src[re]];
        g->edge_dst[e] = new_id[r->dst[re]];
        g->et_start[e + 1] = g->et_start[e] + (t1 - t0);
        for (int32_t t = t0; t < t1; t++) {
            int32_t prod = new_id[r->t_prod[t]];
            int32_t port = r->t_port[t];

            g->et_tensor[g->et_start[e] + (t - t0)] =
                port == WL_PORT_CONTROL ? n_ports + prod : g->port_start[prod] + port;
        }
    }
    free(perm);
    memcpy(cursor, g->in_start, (size_t)n * sizeof(*cursor));
    for (int32_t e = 0; e < m; e++) {
        g->in_edge[cursor[g->edge_dst[e]]++] = e;
    }
    return 0;
}

int graph_build(struct graph *g, const struct workload *w)
{
    struct raw_edges r;
    int32_t *new_id = NULL, *cursor = NULL;
    int rc = 0;

    memset(g, 0, sizeof(*g));
    memset(&r, 0, sizeof(r));
    strpool_init(&g->pool);
    strmap_init(&g->by_name);
    if (w->n_ops <= 0) {
        return workload_fail(w, 0, 0, BAECHI_EPARSE, "workload has no ops");
    }
    if (!(new_id = mem_alloc_array((size_t)w->n_ops, sizeof(*new_id)))) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    /* the pipeline schedule of a micro-batched graph (default 1f1b) */
    CHECK(pipeline_opts_read(w, &g->pipeline, NULL));
    /* 1, 2. Edges; dangling ops pruned. */
    CHECK(build_edges(g, w, &r, new_id));
    /* 3. Per-op fields, groups, ports and tensors. */
    CHECK(build_ops(g, w, new_id));
    cursor = mem_alloc_array((size_t)(g->n_groups > g->n_ops ? g->n_groups : g->n_ops) + 1,
                             sizeof(*cursor));
    if (!cursor) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    CHECK(build_group_members(g, cursor));
    CHECK(build_tensors(g, w));
    /* 3b. Storage shared with an input (x-alias: in-place ops, views). */
    CHECK(read_aliases(g, w, new_id));
    /* 4. Out-edges and in-edges. */
    CHECK(build_csr(g, &r, new_id, cursor));
    /* 5. Topological order; a cycle is an input error. */
    CHECK(graph_topo_order(g, w));
    /* 6. Collectives (x-collective). */
    CHECK(graph_read_collectives(g, w));
cleanup:
    raw_edges_release(&r);
    free(new_id);
    free(cursor);
    if (rc) {
        graph_release(g);
    }
    return rc;
}
