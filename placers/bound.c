/*
 * bound.c - the certified lower bound (bound.h): the simple bound, the
 * memory-aware path bound, and the choice among them and the LP's
 * (bound_lp.c).  Beyond the original.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/bound.h"

#include "core/alloc.h"
#include "core/checked.h"
#include "core/err.h"
#include "core/limits.h"
#include "sim/sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void bound_options_init(struct bound_options *o)
{
    o->lp = true;
    o->lp_max_ops = BOUND_LP_MAX_OPS_DEFAULT;
    o->lp_solver = PLACER_LP_AUTO;
}

const char *bound_kind_name(enum bound_kind k)
{
    switch (k) {
    case BOUND_MEMORY:
        return "memory";
    case BOUND_LP:
        return "lp";
    case BOUND_SIMPLE:
    default:
        return "simple";
    }
}

int64_t bound_comm_min_us(const struct cluster *c, int64_t bytes)
{
    int64_t best = cluster_comm_default_us(c, bytes);

    for (int32_t s = 0; s < c->n_devices; s++) {
        for (int32_t d = 0; d < c->n_devices; d++) {
            if (s != d) {
                int64_t t = cluster_comm_us(c, s, d, bytes);

                best = t < best ? t : best;
            }
        }
    }
    return best;
}

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

static int64_t nonneg(int64_t x)
{
    return x > 0 ? x : 0;
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

/* The paths tried often coincide (the mixes and the thresholds find the
 * same one): their bounds, by the path. */
#define BOUND_MEMO 24

struct path_memo {
    int32_t k, m, cuts;
    int32_t *pop; /* k */
    int64_t lb_us;
};

/* Scratch of the path bound: per op, and the path's edges. */
struct pathwork {
    const struct graph *g;
    const struct cluster *c;
    int32_t *order;             /* a topological order (Kahn), n */
    int32_t *indeg;             /* n */
    int64_t *tmin;              /* fastest compute, n */
    double *score;              /* best path score ending at v, n */
    int32_t *via;               /* the in-edge of that path, -1 at its start, n */
    int64_t *cost;              /* the path's edge transfer times, n */
    int64_t *ecost;             /* every edge's transfer time (edge_comm_us), E */
    int64_t *tcomm;             /* every tensor's transfer time (bound_comm_min_us), T */
    int64_t cheap_edge_us;      /* path_extract skips edges that cost at most this (-1: none) */
    int64_t floor_us;           /* the best bound so far: cut volumes only try to beat it */
    int64_t *limits;            /* device limits, descending, D */
    bool unlimited;             /* some device has no limit: every path fits */
    int32_t *pop;               /* the path, first to last op, n */
    int32_t *mark;              /* path_need_bytes: last path index reaching v, n */
    int32_t *queue;             /* n */
    int64_t *diff;              /* live bytes, difference array, n + 1 */
    int32_t *hiv;               /* per path index j: last path index needing pop[j]'s outputs */
    int64_t *ownv;              /* per path index: own output bytes */
    int64_t *at;                /* per path index l: live own outputs + temp at L_l's start */
    int64_t path_persist_bytes; /* out of path_need_bytes */
    int64_t path_compute_us;    /* out of path_bound: Σ compute of its path */
    int32_t best_m;             /* out of path_bound: devices the path needs */
    int32_t best_cuts;          /* out of path_bound: cut edges charged */
    struct path_memo memo[BOUND_MEMO];
    int32_t n_memo;
};

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
struct segtree {
    int64_t *mx, *add;
    int32_t k;
};

static void seg_build(struct segtree *t, int32_t node, int32_t lo, int32_t hi, const int64_t *v)
{
    t->add[node] = 0;
    if (lo == hi) {
        t->mx[node] = v[lo];
        return;
    }
    seg_build(t, 2 * node, lo, (lo + hi) / 2, v);
    seg_build(t, 2 * node + 1, (lo + hi) / 2 + 1, hi, v);
    t->mx[node] = t->mx[2 * node] > t->mx[2 * node + 1] ? t->mx[2 * node] : t->mx[2 * node + 1];
}

static void seg_add(struct segtree *t, int32_t node, int32_t lo, int32_t hi, int32_t a, int32_t b,
                    int64_t x)
{
    if (b < lo || hi < a) {
        return;
    }
    if (a <= lo && hi <= b) {
        t->mx[node] += x;
        t->add[node] += x;
        return;
    }
    seg_add(t, 2 * node, lo, (lo + hi) / 2, a, b, x);
    seg_add(t, 2 * node + 1, (lo + hi) / 2 + 1, hi, a, b, x);
    t->mx[node] = t->add[node] +
                  (t->mx[2 * node] > t->mx[2 * node + 1] ? t->mx[2 * node] : t->mx[2 * node + 1]);
}

static int64_t seg_max(const struct segtree *t, int32_t node, int32_t lo, int32_t hi, int32_t a,
                       int32_t b)
{
    int64_t l, r;

    if (b < lo || hi < a) {
        return INT64_MIN / 4;
    }
    if (a <= lo && hi <= b) {
        return t->mx[node];
    }
    l = seg_max(t, 2 * node, lo, (lo + hi) / 2, a, b);
    r = seg_max(t, 2 * node + 1, (lo + hi) / 2 + 1, hi, a, b);
    return t->add[node] + (l > r ? l : r);
}

/*
 * win[i] = the first j >= i such that the ops pop[i..j] cannot sit on one
 * device (their persistent bytes plus, at the start of each L_l, the live
 * own outputs of pop[i..l] and temp(L_l): path_need_bytes on the
 * sub-path), k when none.  Both ends move forward only (the need grows with
 * j and shrinks with i), so with a max tree over l: O(k log k).
 */
static int path_windows(struct pathwork *w, int32_t k, int32_t *win)
{
    const struct graph *g = w->g;
    struct segtree t = {mem_alloc_array(4 * (size_t)k, sizeof(int64_t)),
                        mem_alloc_array(4 * (size_t)k, sizeof(int64_t)), k};
    int64_t persist = 0; /* of pop[i..j-1] */
    int32_t j = 0;

    if (!t.mx || !t.add) {
        free(t.mx);
        free(t.add);
        return err_set(BAECHI_ENOMEM, "out of memory for a path of %d ops", k);
    }
    seg_build(&t, 1, 0, k - 1, w->at);
    for (int32_t i = 0; i < k; i++) {
        if (j < i) {
            j = i;
            persist = 0;
        }
        for (; j < k; j++) {
            int64_t p = sat_add_i64(persist, nonneg(g->persist_bytes[w->pop[j]]));

            if (sat_add_i64(p, seg_max(&t, 1, 0, k - 1, i, j)) > w->limits[0]) {
                break;
            }
            persist = p;
        }
        win[i] = j;
        if (j > i) {
            persist -= nonneg(g->persist_bytes[w->pop[i]]);
        }
        if (w->ownv[i] > 0 && w->hiv[i] >= i) { /* pop[i] leaves the sub-paths */
            seg_add(&t, 1, 0, k - 1, i, w->hiv[i], -w->ownv[i]);
        }
    }
    free(t.mx);
    free(t.add);
    return 0;
}

/*
 * vol[t] for every edge t of the path: the least step of a placement that
 * cuts the path at edge t only (docs/bound.md, "One cut and cut volumes"): every tensor of a path
 * op at or before t that a path op after t reads crosses from the first
 * part's device to the second's, once, and those transfers serialise; the
 * first starts after its producer pop[a] ends, the last ends before its
 * consumer pop[b] starts, so vol[t] = compute(pop[0..a]) + Σ their
 * transfer times + compute(pop[b..k-1]), 0 when none crosses.  A tensor
 * crosses at t for t in [its producer's index, its last path consumer's
 * index): a difference array; a (the smallest producer index still
 * crossing) only moves forward, b is a prefix maximum.  O(V + E + T).
 */
static int path_single_cut_us(struct pathwork *w, int32_t k, int64_t *vol, int64_t *pre)
{
    const struct graph *g = w->g;
    int32_t *pos = mem_alloc_array((size_t)g->n_ops, sizeof(*pos));
    int32_t *last = mem_alloc_array((size_t)g->n_tensors + 1, sizeof(*last));
    int32_t *reach = mem_alloc_array((size_t)k, sizeof(*reach));
    int64_t *diff = mem_calloc((size_t)k + 1, sizeof(*diff));
    int64_t sum = 0;
    int32_t a = 0, b = -1;
    int rc = 0;

    if (!pos || !last || !reach || !diff) {
        rc = err_set(BAECHI_ENOMEM, "out of memory for a path of %d ops", k);
        goto done;
    }
    for (int32_t v = 0; v < g->n_ops; v++) {
        pos[v] = -1;
    }
    for (int32_t x = 0; x < g->n_tensors; x++) {
        last[x] = -1;
    }
    pre[0] = 0;
    for (int32_t i = 0; i < k; i++) {
        pos[w->pop[i]] = i;
        pre[i + 1] = sat_add_i64(pre[i], w->tmin[w->pop[i]]);
    }
    /* last[x]: the last path index reading tensor x (its producer is on the path) */
    for (int32_t i = 0; i < k; i++) {
        int32_t u = w->pop[i];

        for (int32_t e = g->out_start[u]; e < g->out_start[u + 1]; e++) {
            int32_t j = pos[g->edge_dst[e]];

            for (int32_t s = g->et_start[e]; j > i && s < g->et_start[e + 1]; s++) {
                last[g->et_tensor[s]] = j > last[g->et_tensor[s]] ? j : last[g->et_tensor[s]];
            }
        }
    }
    for (int32_t i = 0; i < k; i++) {
        int32_t u = w->pop[i];

        reach[i] = -1;
        for (int32_t e = g->out_start[u]; e < g->out_start[u + 1]; e++) {
            for (int32_t s = g->et_start[e]; s < g->et_start[e + 1]; s++) {
                int32_t x = g->et_tensor[s], j = last[x];
                int64_t c;

                if (j <= i) {
                    continue; /* no path reader after it, or counted already */
                }
                c = w->tcomm[x];
                diff[i] = sat_add_i64(diff[i], c);
                diff[j] -= c;
                reach[i] = j > reach[i] ? j : reach[i];
                last[x] = -1;
            }
        }
    }
    for (int32_t t = 0; t + 1 < k; t++) {
        sum += diff[t];
        b = reach[t] > b ? reach[t] : b;
        while (a <= t && reach[a] <= t) {
            a++;
        }
        vol[t] = a <= t ? sat_add_i64(sat_add_i64(pre[a + 1], sum), pre[k] - pre[b]) : 0;
    }
done:
    free(pos);
    free(last);
    free(reach);
    free(diff);
    return rc;
}

/*
 * The cheapest set of cut edges (edge t joins pop[t] and pop[t+1], cost
 * w->cost[t]) that has an edge inside every window pop[i..win[i]] that
 * cannot sit on one device: a window without a cut runs on one device.
 * Hitting intervals on a line: f(t) = cost[t] + min f(t') over the cuts t'
 * before t that leave no window between them, a sliding minimum (the
 * windows' ends move forward with their starts).  The sets of one cut and
 * of two or more are kept apart: a set of one cut t costs at least
 * vol[t] - compute_us too (path_single_cut_us).  O(k).  -1 when one op
 * alone fits no device (no placement fits: the bound is vacuous).
 */
static int path_cut_cost(struct pathwork *w, int32_t k, int64_t compute_us, int64_t *cut_us,
                         int32_t *n_cuts)
{
    int32_t *win = mem_alloc_array((size_t)k + 1, sizeof(*win));
    int32_t *cnt = mem_alloc_array((size_t)k + 1, sizeof(*cnt));
    int64_t *f = mem_alloc_array((size_t)k + 1, sizeof(*f));
    int64_t *vol = mem_alloc_array((size_t)k + 1, sizeof(*vol));
    int64_t *pre = mem_alloc_array((size_t)k + 1, sizeof(*pre));
    int32_t *dq = mem_alloc_array((size_t)k + 1, sizeof(*dq));
    int32_t head = 0, tail = 0, p = 0;
    int64_t best = -1;
    int rc = 0;

    *cut_us = 0;
    *n_cuts = 0;
    if (!win || !f || !dq || !cnt || !vol || !pre) {
        rc = err_set(BAECHI_ENOMEM, "out of memory for a path of %d ops", k);
        goto done;
    }
    if ((rc = path_windows(w, k, win)) != 0 || win[0] == k) {
        goto done; /* no window: the path fits one device */
    }
    for (int32_t i = 0; i < k; i++) {
        if (win[i] == i) {
            *cut_us = -1;
            goto done;
        }
    }
    if ((rc = path_single_cut_us(w, k, vol, pre)) != 0) {
        goto done;
    }
    /* state s = t + 1 for a cut at edge t, s = 0 for "none yet"; R(s): the
     * last edge the next cut may take = the end of the first window after
     * it (win[t+1] - 1), k when none.  The deque holds the states of one
     * cut or more, f[s] the cheapest set of cuts ending there; a cut from
     * state 0 is a set of one */
    f[0] = 0;
    cnt[0] = 0;
    for (int32_t t = 0; t + 1 < k; t++) {
        int64_t two;
        int32_t n_two;

        /* drop the states whose next window ends before t */
        while (p <= t && (p < k ? win[p] : k) - 1 < t) {
            p++;
        }
        while (head < tail && dq[head] < p) {
            head++;
        }
        two = head < tail ? sat_add_i64(f[dq[head]], w->cost[t]) : -1;
        n_two = head < tail ? cnt[dq[head]] + 1 : 0;
        f[t + 1] = p == 0 && (two < 0 || w->cost[t] <= two) ? w->cost[t] : two;
        cnt[t + 1] = p == 0 && f[t + 1] == w->cost[t] ? 1 : n_two;
        if (f[t + 1] < 0) {
            continue;
        }
        while (head < tail && f[dq[tail - 1]] >= f[t + 1]) {
            tail--;
        }
        dq[tail++] = t + 1;
        if ((t + 1 < k ? win[t + 1] : k) != k) {
            continue; /* a window after it: not a last cut */
        }
        if (p == 0) { /* the set of this cut alone */
            int64_t one = vol[t] - compute_us > w->cost[t] ? vol[t] - compute_us : w->cost[t];

            if (best < 0 || one < best) {
                best = one;
                *n_cuts = 1;
            }
        }
        if (two >= 0 && (best < 0 || two < best)) {
            best = two;
            *n_cuts = n_two;
        }
    }
    if (best >= 0) { /* the volumes beside each cut of a set (bound_cuts.c) */
        struct bound_path bp = {w->g, k, w->pop, win, w->cost, vol, pre, w->tcomm};
        int64_t lb = sat_add_i64(compute_us, best);

        if ((rc = bound_path_cuts(&bp, compute_us, w->floor_us, &lb, n_cuts)) != 0) {
            goto done;
        }
        best = lb - compute_us;
    }
    *cut_us = best > 0 ? best : 0;
done:
    free(win);
    free(cnt);
    free(f);
    free(vol);
    free(pre);
    free(dq);
    return rc;
}

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
    if ((rc = path_cut_cost(w, k, lb, &cut, &n_cut)) != 0) {
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
static int memory_bound(const struct graph *g, const struct cluster *c,
                        const struct bound_classes *cls, struct bound_result *r)
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

/*
 * Σ compute / Σ speed (the critical path comes from memory_bound), with the
 * speeds as the rounded compute times make them: device d runs op v for
 * t(v,d) >= r_d * weight(v), r_d = min over the ops of t(v,d) / weight(v),
 * so T >= load(d) gives Σ_d T / r_d >= Σ weight.  deviation (of
 * sim_lower_bound_us, kept as it is): that divides by the nominal speeds,
 * but cluster_compute_us rounds to the nearest µs (5 µs of work takes 2 µs
 * at speed 2), so on mixed speeds it can exceed the optimum (found by
 * tests/unit/test_bound.c).  With every speed 1 both are the same.
 */
static int work_bound(const struct graph *g, const struct cluster *c, const struct bound_classes *k,
                      int64_t *lb_us)
{
    /* r_d depends on d's speed alone: one per distinct speed, each counted
     * for its devices (the same sum, in the order of the speeds) */
    double *r = mem_alloc_array((size_t)k->n_speeds + 1, sizeof(*r));
    double total = 0, speed = 0, x;

    if (!r) {
        return err_set(BAECHI_ENOMEM, "out of memory for %d devices", c->n_devices);
    }
    for (int32_t i = 0; i < k->n_speeds; i++) {
        r[i] = INFINITY;
    }
    for (int32_t v = 0; v < g->n_ops; v++) {
        double w = g->weight_us[v] > 0 ? (double)g->weight_us[v] : 1;

        total += w;
        for (int32_t i = 0; i < k->n_speeds; i++) {
            double q = (double)cluster_compute_us(c, k->speed_dev[i], g->weight_us[v]) / w;

            r[i] = q < r[i] ? q : r[i];
        }
    }
    for (int32_t d = 0; d < c->n_devices && g->n_ops > 0; d++) {
        int32_t i = 0;

        while (k->speed_dev[i] != d && c->dev[k->speed_dev[i]].speed != c->dev[d].speed) {
            i++;
        }
        speed += 1.0 / r[i];
    }
    free(r);
    x = speed > 0 ? total / speed : 0;
    x = ceil(x - 1e-9 * x); /* a quotient that should be an integer may come out above */
    *lb_us = limit_sat_time_us(x);
    return 0;
}

int bound_compute(const struct graph *g, const struct cluster *c, const struct bound_options *opt,
                  struct bound_result *r)
{
    struct bound_options def;
    struct bound_classes k;
    int rc;

    if (!opt) {
        bound_options_init(&def);
        opt = &def;
    }
    memset(r, 0, sizeof(*r));
    r->lp_us = -1;
    r->kind = BOUND_SIMPLE;
    if ((rc = sim_lower_bound_us(g, c, &r->old_simple_us)) != 0) {
        return rc;
    }
    if ((rc = bound_classes_build(c, 0, &k)) != 0) {
        return rc;
    }
    rc = work_bound(g, c, &k, &r->simple_us);
    if (rc == 0) {
        rc = memory_bound(g, c, &k, r); /* the critical path into simple_us too */
    }
    bound_classes_release(&k);
    if (rc != 0) {
        return rc;
    }
    r->lower_bound_us = r->simple_us;
    if (r->memory_us > r->lower_bound_us) {
        r->lower_bound_us = r->memory_us;
        r->kind = BOUND_MEMORY;
    }
    if ((rc = bound_lp(g, c, opt, r)) != 0) {
        return rc;
    }
    if (r->lp_us > r->lower_bound_us) {
        r->lower_bound_us = r->lp_us;
        r->kind = BOUND_LP;
    }
    return 0;
}
