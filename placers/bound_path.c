/*
 * bound_path.c - the memory-aware path bound (bound.h; docs/bound.md,
 * "memory"): a path of the graph that cannot sit on one device must cross
 * devices, so its compute plus its cheapest cut transfers bound the step.
 * Paths are chosen by mixes of compute, persistent and output bytes (the
 * dear paths), each one's need in bytes measured, its cuts priced by
 * bound_path_cut.c.  Beyond the original.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/bound.h"
#include "placers/bound_internal.h"

#include "core/alloc.h"
#include "core/checked.h"
#include "core/err.h"
#include "core/limits.h"
#include "sim/sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The fastest compute time of op v over c's devices: over one device of
 * each distinct speed (the time depends on the speed alone). */
static int64_t compute_min_us(const struct graph *g, const struct cluster *c,
                              const struct bound_classes *k, int32_t v)
{
    int64_t best = LIMIT_TIME_SAT_US;

    for (int32_t i = 0; i < k->n_speeds; i++) {
        int64_t t = cluster_compute_us(c, k->speed_dev[i], g->weight_us[v]);

        best = t < best ? t : best;
    }
    return best;
}

/* The transfer time of edge e across devices: its tensors serialise (docs/bound.md, R2). */
static int64_t edge_comm_us(const struct graph *g, const int64_t *tcomm, int32_t e)
{
    int64_t t = 0;

    for (int32_t s = g->et_start[e]; s < g->et_start[e + 1]; s++) {
        t = sat_add_i64(t, tcomm[g->et_tensor[s]]);
    }
    return t;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

static int cmp_i64_desc(const void *a, const void *b)
{
    return cmp_i64(b, a);
}

/* A topological order of g into w->order (g->topo of a fused graph may not be one). */
static void path_order(struct pathwork *w)
{
    const struct graph *g = w->g;
    int32_t head = 0, tail = 0;

    for (int32_t v = 0; v < g->n_ops; v++) {
        w->indeg[v] = graph_in_degree(g, v);
        if (w->indeg[v] == 0) {
            w->order[tail++] = v;
        }
    }
    while (head < tail) {
        int32_t u = w->order[head++];

        for (int32_t e = g->out_start[u]; e < g->out_start[u + 1]; e++) {
            if (--w->indeg[g->edge_dst[e]] == 0) {
                w->order[tail++] = g->edge_dst[e];
            }
        }
    }
}

/* The fewest devices whose limits hold `bytes` (limits descending); D + 1 when none can. */
static int32_t devices_needed(const struct pathwork *w, int64_t bytes)
{
    int64_t sum = 0;

    for (int32_t k = 0; k < w->c->n_devices; k++) {
        sum = sat_add_i64(sum, w->limits[k]);
        if (sum >= bytes) {
            return k + 1;
        }
    }
    return w->c->n_devices + 1;
}

/* Bytes op u surely holds for its outputs beyond persistent ones: an output
 * that may share an input's storage (x-alias) counts nothing (the timed
 * model's own_out_bytes subtracts at most these). */
static int64_t own_out_bytes(const struct graph *g, int32_t u)
{
    int64_t b = g->out_bytes[u] - nonneg(g->persist_bytes[u]);

    for (int32_t p = g->port_start[u]; g->port_alias && p < g->port_start[u + 1]; p++) {
        if (g->port_alias[p] >= 0) {
            b -= nonneg(g->port_bytes[p]);
        }
    }
    return nonneg(b);
}

/*
 * The path maximising a·compute + b·persist + o·own outputs (a DP over the
 * order) over the edges that cost more than w->cheap_edge_us into w->pop[0..k-1]
 * (first to last op), its edges' transfer times into w->cost[0..k-2].  Returns k.
 */
static int32_t path_extract(struct pathwork *w, double a, double b, double o)
{
    const struct graph *g = w->g;
    int32_t end = -1, k = 0;

    for (int32_t i = 0; i < g->n_ops; i++) {
        int32_t v = w->order[i];
        double best = 0;

        w->via[v] = -1;
        for (int32_t j = g->in_start[v]; j < g->in_start[v + 1]; j++) {
            int32_t e = g->in_edge[j];

            if (w->ecost[e] <= w->cheap_edge_us) {
                continue;
            }
            if (w->via[v] < 0 || w->score[g->edge_src[e]] > best) {
                best = w->score[g->edge_src[e]];
                w->via[v] = e;
            }
        }
        w->score[v] = best + a * (double)w->tmin[v] + b * (double)nonneg(g->persist_bytes[v]) +
                      o * (double)own_out_bytes(g, v);
        if (end < 0 || w->score[v] > w->score[end]) {
            end = v;
        }
    }
    for (int32_t v = end; v >= 0; v = w->via[v] < 0 ? -1 : g->edge_src[w->via[v]]) {
        w->pop[k++] = v; /* last to first, reversed below */
    }
    for (int32_t i = 0; i < k / 2; i++) {
        int32_t t = w->pop[i];

        w->pop[i] = w->pop[k - 1 - i];
        w->pop[k - 1 - i] = t;
    }
    for (int32_t i = 1; i < k; i++) {
        w->cost[i - 1] = w->ecost[w->via[w->pop[i]]];
    }
    return k;
}

/*
 * The least memory one device holds if it runs every op of the path
 * pop[0..k-1] (docs/bound.md, R3): their persistent bytes, and at the start of the
 * path's op L_i the temp of L_i and the own outputs of every path op u up to
 * L_i that a consumer at or after L_i still needs (a descendant of L_i or
 * L_i itself: it ends after L_i starts), or that is a sink (kept).
 * mark[v] = the last i with v reachable from L_i; the sets are nested along
 * the path, so one backward sweep finds them all.  O(V + E).
 */
static int64_t path_need_bytes(struct pathwork *w, int32_t k)
{
    const struct graph *g = w->g;
    int64_t persist = 0, live = 0, peak = 0;

    for (int32_t v = 0; v < g->n_ops; v++) {
        w->mark[v] = -1;
    }
    for (int32_t i = k - 1; i >= 0; i--) {
        int32_t head = 0, tail = 0;

        w->mark[w->pop[i]] = i;
        w->queue[tail++] = w->pop[i];
        while (head < tail) {
            int32_t u = w->queue[head++];

            for (int32_t e = g->out_start[u]; e < g->out_start[u + 1]; e++) {
                if (w->mark[g->edge_dst[e]] < 0) {
                    w->mark[g->edge_dst[e]] = i;
                    w->queue[tail++] = g->edge_dst[e];
                }
            }
        }
    }
    for (int32_t i = 0; i <= k; i++) {
        w->diff[i] = 0;
    }
    for (int32_t j = 0; j < k; j++) {
        int32_t u = w->pop[j], hi = graph_out_degree(g, u) == 0 ? k - 1 : -1;
        int64_t own = own_out_bytes(g, u);

        persist = sat_add_i64(persist, nonneg(g->persist_bytes[u]));
        for (int32_t e = g->out_start[u]; e < g->out_start[u + 1]; e++) {
            hi = w->mark[g->edge_dst[e]] > hi ? w->mark[g->edge_dst[e]] : hi;
        }
        w->hiv[j] = hi;
        w->ownv[j] = own;
    }
    /* a view on the path keeps its root's storage (a path op too, on the
     * same device) until the view's own consumers end; by decreasing index,
     * so a chain of views carries the hold down to its root */
    for (int32_t j = k - 1; j >= 0 && g->port_alias; j--) {
        int32_t x = w->pop[j];

        for (int32_t p = g->port_start[x]; p < g->port_start[x + 1]; p++) {
            int32_t r = g->port_alias[p], b = r >= 0 ? g->tensor_op[r] : -1, jb;

            if (b < 0 || (jb = w->mark[b]) < 0 || jb >= j || w->pop[jb] != b) {
                continue; /* no view, or its root is not on the path */
            }
            w->hiv[jb] = w->hiv[j] > w->hiv[jb] ? w->hiv[j] : w->hiv[jb];
        }
    }
    for (int32_t j = 0; j < k; j++) {
        if (w->ownv[j] > 0 && w->hiv[j] >= j) {
            w->diff[j] = sat_add_i64(w->diff[j], w->ownv[j]);
            w->diff[w->hiv[j] + 1] -= w->ownv[j];
        }
    }
    for (int32_t i = 0; i < k; i++) {
        live = sat_add_i64(live, w->diff[i]);
        w->at[i] = sat_add_i64(live, nonneg(g->temp_bytes[w->pop[i]]));
        peak = w->at[i] > peak ? w->at[i] : peak;
    }
    w->path_persist_bytes = persist;
    return sat_add_i64(persist, peak);
}

/* A max segment tree with range add over k values (1-based nodes). */
/*
 * The bound of the path chosen by (a, b, o): Σ compute + the m-1 cheapest
 * edge transfers when its ops cannot sit on one device (docs/bound.md, "memory").
 */
static int path_bound(struct pathwork *w, double a, double b, double o, int64_t *lb_us)
{
    int32_t k = path_extract(w, a, b, o), m = 1, n_edges = k - 1;
    int64_t lb = 0, cut = 0, cheapest = 0;
    int32_t n_cut = 0;
    int rc;

    for (int32_t i = 0; i < k; i++) {
        lb = sat_add_i64(lb, w->tmin[w->pop[i]]);
    }
    w->path_compute_us = lb;
    w->best_m = 1;
    w->best_cuts = 0;
    *lb_us = lb;
    if (w->unlimited || path_need_bytes(w, k) <= w->limits[0]) {
        return 0;
    }
    for (int32_t i = 0; i < w->n_memo; i++) {
        const struct path_memo *pm = &w->memo[i];

        if (pm->k == k && memcmp(pm->pop, w->pop, (size_t)k * sizeof(*w->pop)) == 0) {
            w->best_m = pm->m;
            w->best_cuts = pm->cuts;
            *lb_us = pm->lb_us;
            return 0;
        }
    }
    /* the windows that do not fit one device each hold a cut */
    if ((rc = bound_path_cut_cost(w, k, lb, &cut, &n_cut)) != 0) {
        return rc;
    }
    /* the persistent bytes alone need m devices: m - 1 cuts at least */
    m = devices_needed(w, w->path_persist_bytes);
    m = m < 2 ? 2 : m;
    qsort(w->cost, (size_t)n_edges, sizeof(*w->cost), cmp_i64);
    for (int32_t i = 0; i < m - 1 && i < n_edges; i++) {
        cheapest = sat_add_i64(cheapest, w->cost[i]);
    }
    w->best_m = m;
    w->best_cuts = cut > cheapest ? n_cut : m - 1 < n_edges ? m - 1 : n_edges;
    *lb_us = sat_add_i64(lb, cut > cheapest ? cut : cheapest);
    if (w->n_memo < BOUND_MEMO) {
        struct path_memo *pm = &w->memo[w->n_memo];

        if (!(pm->pop = mem_alloc_array((size_t)k, sizeof(*pm->pop)))) {
            return err_set(BAECHI_ENOMEM, "out of memory for a path of %d ops", k);
        }
        memcpy(pm->pop, w->pop, (size_t)k * sizeof(*w->pop));
        pm->k = k;
        pm->m = w->best_m;
        pm->cuts = w->best_cuts;
        pm->lb_us = *lb_us;
        w->n_memo++;
    }
    return 0;
}

/*
 * The compute-critical paths over only the edges that cost more than c, for
 * c among the transfer times of the compute-critical path's edges (up to
 * BOUND_DEAR_PATHS of them, spread over their range): such a path is
 * shorter, but every cut the memory forces on it is dear (a training
 * graph's critical path turns at the loss, whose tensor is tiny; the path
 * through a layer's saved activation to its backward op avoids it).  Any
 * path gives a valid bound, so any choice of c does.
 */
static int dear_paths(struct pathwork *w, struct bound_result *r)
{
    int32_t k = path_extract(w, 1, 0, 0), n = 0;
    int64_t *c = NULL;
    int rc = 0;

    if (w->unlimited || k < 2) {
        return 0;
    }
    if (!(c = mem_alloc_array((size_t)k, sizeof(*c)))) {
        return err_set(BAECHI_ENOMEM, "out of memory for a path of %d ops", k);
    }
    for (int32_t i = 0; i + 1 < k; i++) {
        c[i] = w->cost[i];
    }
    qsort(c, (size_t)k - 1, sizeof(*c), cmp_i64);
    for (int32_t i = 0; i + 1 < k; i++) {
        if (n == 0 || c[i] != c[n - 1]) {
            c[n++] = c[i]; /* distinct, ascending */
        }
    }
    for (int32_t q = 0; q < BOUND_DEAR_PATHS && q < n; q++) {
        int64_t lb;

        w->cheap_edge_us =
            c[n <= BOUND_DEAR_PATHS ? q : (int64_t)q * (n - 1) / (BOUND_DEAR_PATHS - 1)];
        w->floor_us = r->memory_us;
        if ((rc = path_bound(w, 1, 0, 0, &lb)) != 0) {
            break;
        }
        if (lb > r->memory_us) {
            r->memory_us = lb;
            r->forced_cuts = w->best_cuts;
            r->min_devices = w->best_m;
        }
    }
    w->cheap_edge_us = -1;
    free(c);
    return rc;
}

/* The memory-aware bound (bound.h) into r->memory_us, min_devices,
 * forced_cuts; r->simple_us raised to the critical path. */
int bound_memory(const struct graph *g, const struct cluster *c, const struct bound_classes *cls,
                 struct bound_result *r)
{
    struct pathwork w = {.g = g, .c = c, .cheap_edge_us = -1};
    size_t n = (size_t)g->n_ops;
    double total_t = 0, total_p = 0, total_o = 0;
    int rc = 0;

    r->min_devices = 1;
    r->forced_cuts = 0;
    if (g->n_ops == 0) {
        return 0;
    }
    w.order = mem_alloc_array(n, sizeof(*w.order));
    w.indeg = mem_alloc_array(n, sizeof(*w.indeg));
    w.tmin = mem_alloc_array(n, sizeof(*w.tmin));
    w.score = mem_alloc_array(n, sizeof(*w.score));
    w.via = mem_alloc_array(n, sizeof(*w.via));
    w.cost = mem_alloc_array(n, sizeof(*w.cost));
    w.ecost = mem_alloc_array((size_t)g->n_edges + 1, sizeof(*w.ecost));
    w.tcomm = mem_alloc_array((size_t)g->n_tensors + 1, sizeof(*w.tcomm));
    w.limits = mem_alloc_array((size_t)c->n_devices, sizeof(*w.limits));
    w.pop = mem_alloc_array(n, sizeof(*w.pop));
    w.mark = mem_alloc_array(n, sizeof(*w.mark));
    w.queue = mem_alloc_array(n, sizeof(*w.queue));
    w.diff = mem_alloc_array(n + 1, sizeof(*w.diff));
    w.hiv = mem_alloc_array(n, sizeof(*w.hiv));
    w.ownv = mem_alloc_array(n, sizeof(*w.ownv));
    w.at = mem_alloc_array(n, sizeof(*w.at));
    if (!w.order || !w.indeg || !w.tmin || !w.score || !w.via || !w.cost || !w.ecost || !w.tcomm ||
        !w.limits || !w.pop || !w.mark || !w.queue || !w.diff || !w.hiv || !w.ownv || !w.at) {
        rc = err_set(BAECHI_ENOMEM, "out of memory for the memory bound of %d ops", g->n_ops);
        goto done;
    }
    for (int32_t d = 0; d < c->n_devices; d++) {
        w.limits[d] = c->dev[d].mem_bytes;
        w.unlimited |= c->dev[d].mem_bytes <= 0;
    }
    qsort(w.limits, (size_t)c->n_devices, sizeof(*w.limits), cmp_i64_desc);
    for (int32_t x = 0; x < g->n_tensors; x++) {
        w.tcomm[x] = bound_classes_comm_min_us(cls, c, g->tensor_bytes[x]);
    }
    for (int32_t e = 0; e < g->n_edges; e++) {
        w.ecost[e] = edge_comm_us(g, w.tcomm, e);
    }
    for (int32_t v = 0; v < g->n_ops; v++) {
        w.tmin[v] = compute_min_us(g, c, cls, v);
        total_t += (double)w.tmin[v];
        total_p += (double)nonneg(g->persist_bytes[v]);
        total_o += (double)own_out_bytes(g, v);
    }
    path_order(&w);
    {
        /* the compute-critical path, the ones heaviest in persistent and
         * in output bytes, and mixes: any path is valid, these are the
         * likely best */
        double up = total_p > 0 ? total_t / total_p : 0, uo = total_o > 0 ? total_t / total_o : 0;
        const double mix[][3] = {{1, 0, 0},    {1, 0.25, 0}, {1, 1, 0}, {1, 4, 0},
                                 {1e-9, 1, 0}, {1, 0, 1},    {1, 1, 1}, {1e-9, 0, 1}};

        for (size_t k = 0; k < sizeof(mix) / sizeof(mix[0]); k++) {
            int64_t lb;

            w.floor_us = r->memory_us;
            if ((rc = path_bound(&w, mix[k][0], mix[k][1] * up, mix[k][2] * uo, &lb)) != 0) {
                goto done;
            }
            if (k == 0 && w.path_compute_us > r->simple_us) {
                r->simple_us = w.path_compute_us; /* the longest path by compute */
            }
            if (lb > r->memory_us) {
                r->memory_us = lb;
                r->forced_cuts = w.best_cuts;
                r->min_devices = w.best_m;
            }
        }
    }
    if ((rc = dear_paths(&w, r)) != 0) {
        goto done;
    }
done:
    r->memory_us = r->memory_us > r->simple_us ? r->memory_us : r->simple_us;
    free(w.order);
    free(w.indeg);
    free(w.tmin);
    free(w.score);
    free(w.via);
    free(w.cost);
    free(w.ecost);
    free(w.tcomm);
    for (int32_t i = 0; i < w.n_memo; i++) {
        free(w.memo[i].pop);
    }
    free(w.limits);
    free(w.pop);
    free(w.mark);
    free(w.queue);
    free(w.diff);
    free(w.hiv);
    free(w.ownv);
    free(w.at);
    return rc;
}
