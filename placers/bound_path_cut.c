/*
 * bound_path_cut.c - the cheapest cut edges of one path for the memory
 * bound (docs/bound.md, "memory"): the windows of the path that cannot sit
 * on one device (a max segment tree over the live bytes), the single cuts
 * with their volumes (bound_cuts.c), and the cheapest set hitting every
 * window.  Beyond the original.
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
int bound_path_cut_cost(struct pathwork *w, int32_t k, int64_t compute_us, int64_t *cut_us,
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
