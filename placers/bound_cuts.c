/*
 * bound_cuts.c - the memory bound's cut sets with the transfers that cross
 * beside each cut (docs/bound.md, "One cut and cut volumes"): a DP over pairs of consecutive
 * cuts of a path, inside a bisection on the step.  Beyond the original.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/bound.h"

#include "core/alloc.h"
#include "core/checked.h"
#include "core/err.h"

#include <stdbool.h>
#include <stdlib.h>

#define INF INT64_MAX

/* The path's tensors that a later path op reads: producer index, transfer
 * time, the readers' indices ascending (CSR), and the DP's scratch. */
struct cuts {
    const struct bound_path *p;
    int32_t nt;     /* such tensors */
    int32_t *at;    /* producer's path index, nt */
    int64_t *comm;  /* transfer time, nt */
    int32_t *rs;    /* readers of i: rd[rs[i] .. rs[i+1]-1], nt + 1 */
    int32_t *rd;    /* reader path indices */
    int32_t *ps;    /* tensors produced at path index a: ps[a] .. ps[a+1]-1 (ids are by producer) */
    int64_t *f;     /* f[(p+1) k + t]: cheapest cuts ending with p, t (p = -1: t is the first) */
    int32_t *fc;    /* their number */
    int64_t *sm;    /* suffix minimum of f[. k + t] over p, k + 1 */
    int32_t *smc;   /* its count */
    int32_t *alive; /* tensors produced at or before t, read after t */
    int32_t *ptr;   /* per tensor: its first reader after t (index into rd) */
    int32_t *nr;    /* bucket lists by first reader after t, nt */
    int32_t *na;    /* bucket lists by producer, nt */
    int32_t *hr;    /* bucket heads by first reader, k + 1 */
    int32_t *ha;    /* bucket heads by producer, k + 1 */
};

static void cuts_release(struct cuts *m)
{
    free(m->at);
    free(m->comm);
    free(m->rs);
    free(m->rd);
    free(m->ps);
    free(m->f);
    free(m->fc);
    free(m->sm);
    free(m->smc);
    free(m->alive);
    free(m->ptr);
    free(m->nr);
    free(m->na);
    free(m->hr);
    free(m->ha);
}

/* The tensors of path ops that later path ops read, with their readers. */
static int cuts_init(struct cuts *m, const struct bound_path *p)
{
    const struct graph *g = p->g;
    int32_t k = p->k, *pos = mem_alloc_array((size_t)g->n_ops, sizeof(*pos));
    int32_t *lid = mem_alloc_array((size_t)g->n_tensors + 1, sizeof(*lid));
    int32_t n_rd = 0;
    int rc = 0;

    *m = (struct cuts){.p = p};
    m->at = mem_alloc_array((size_t)g->n_tensors + 1, sizeof(*m->at));
    m->comm = mem_alloc_array((size_t)g->n_tensors + 1, sizeof(*m->comm));
    m->rs = mem_calloc((size_t)g->n_tensors + 2, sizeof(*m->rs));
    m->ps = mem_calloc((size_t)k + 2, sizeof(*m->ps));
    if (!pos || !lid || !m->at || !m->comm || !m->rs || !m->ps) {
        rc = err_set(BAECHI_ENOMEM, "out of memory for the cuts of a path of %d ops", k);
        goto done;
    }
    for (int32_t v = 0; v < g->n_ops; v++) {
        pos[v] = -1;
    }
    for (int32_t x = 0; x < g->n_tensors; x++) {
        lid[x] = -1;
    }
    for (int32_t i = 0; i < k; i++) {
        pos[p->pop[i]] = i;
    }
    /* ids by producer index; count the readers (an edge per op pair) */
    for (int32_t i = 0; i < k; i++) {
        int32_t u = p->pop[i];

        m->ps[i] = m->nt;
        for (int32_t e = g->out_start[u]; e < g->out_start[u + 1]; e++) {
            if (pos[g->edge_dst[e]] <= i) {
                continue;
            }
            for (int32_t s = g->et_start[e]; s < g->et_start[e + 1]; s++) {
                int32_t x = g->et_tensor[s];

                if (lid[x] < 0) {
                    lid[x] = m->nt;
                    m->at[m->nt] = i;
                    m->comm[m->nt++] = p->tcomm[x];
                }
                m->rs[lid[x] + 1]++;
                n_rd++;
            }
        }
    }
    m->ps[k] = m->nt;
    for (int32_t i = 0; i < m->nt; i++) {
        m->rs[i + 1] += m->rs[i];
    }
    if (!(m->rd = mem_alloc_array((size_t)n_rd + 1, sizeof(*m->rd))) ||
        !(m->ptr = mem_alloc_array((size_t)m->nt + 1, sizeof(*m->ptr)))) {
        rc = err_set(BAECHI_ENOMEM, "out of memory for the cuts of a path of %d ops", k);
        goto done;
    }
    for (int32_t i = 0; i < m->nt; i++) {
        m->ptr[i] = m->rs[i];
    }
    /* readers by increasing index: sorted lists */
    for (int32_t j = 0; j < k; j++) {
        int32_t v = p->pop[j];

        for (int32_t q = g->in_start[v]; q < g->in_start[v + 1]; q++) {
            int32_t e = g->in_edge[q], i = pos[g->edge_src[e]];

            for (int32_t s = g->et_start[e]; i >= 0 && i < j && s < g->et_start[e + 1]; s++) {
                int32_t x = lid[g->et_tensor[s]];

                m->rd[m->ptr[x]++] = j;
            }
        }
    }
    m->f = mem_alloc_array((size_t)k * (size_t)k, sizeof(*m->f));
    m->fc = mem_alloc_array((size_t)k * (size_t)k, sizeof(*m->fc));
    m->sm = mem_alloc_array((size_t)k + 1, sizeof(*m->sm));
    m->smc = mem_alloc_array((size_t)k + 1, sizeof(*m->smc));
    m->alive = mem_alloc_array((size_t)m->nt + 1, sizeof(*m->alive));
    m->nr = mem_alloc_array((size_t)m->nt + 1, sizeof(*m->nr));
    m->na = mem_alloc_array((size_t)m->nt + 1, sizeof(*m->na));
    m->hr = mem_alloc_array((size_t)k + 1, sizeof(*m->hr));
    m->ha = mem_alloc_array((size_t)k + 1, sizeof(*m->ha));
    if (!m->f || !m->fc || !m->sm || !m->smc || !m->alive || !m->nr || !m->na || !m->hr || !m->ha) {
        rc = err_set(BAECHI_ENOMEM, "out of memory for the cuts of a path of %d ops", k);
    }
done:
    free(pos);
    free(lid);
    if (rc) {
        cuts_release(m);
    }
    return rc;
}

/* The tensors produced at or before t that a path op after t reads, each
 * with its first reader after t (m->ptr), bucketed by that reader and by
 * producer.  n_alive carries the list from t - 1.  Returns the new count. */
static int32_t cuts_alive(struct cuts *m, int32_t t, int32_t n_alive)
{
    int32_t n = 0, k = m->p->k;

    for (int32_t i = 0; i < n_alive; i++) {
        int32_t x = m->alive[i];

        if (m->rd[m->rs[x + 1] - 1] > t) {
            m->alive[n++] = x;
        }
    }
    for (int32_t x = m->ps[t]; x < m->ps[t + 1]; x++) {
        m->alive[n++] = x; /* its readers are all after t */
    }
    for (int32_t i = t; i <= k; i++) {
        m->hr[i] = -1;
    }
    for (int32_t i = 0; i <= t; i++) {
        m->ha[i] = -1;
    }
    for (int32_t i = 0; i < n; i++) {
        int32_t x = m->alive[i];

        while (m->rd[m->ptr[x]] <= t) {
            m->ptr[x]++;
        }
        m->nr[x] = m->hr[m->rd[m->ptr[x]]];
        m->hr[m->rd[m->ptr[x]]] = x;
        m->na[x] = m->ha[m->at[x]];
        m->ha[m->at[x]] = x;
    }
    return n;
}

/* The smallest p such that the part pop[p+1..t] before the cut t, when it
 * is the last cut, sends at most x_us to the end part, over every subset
 * (the tensors produced at or after a): the first starts after pop[a]
 * ends, the last ends before its last reader starts; t when none. */
static int32_t cuts_last(const struct cuts *m, int32_t t, int64_t x_us)
{
    const struct bound_path *p = m->p;
    int32_t k = p->k, a, rmax = -1;
    int64_t sent = 0;

    for (a = t; a >= 0; a--) {
        for (int32_t x = m->ha[a]; x >= 0; x = m->na[x]) {
            sent = sat_add_i64(sent, m->comm[x]);
            rmax = m->rd[m->ptr[x]] > rmax ? m->rd[m->ptr[x]] : rmax;
        }
        if (rmax >= 0 &&
            sat_add_i64(sat_add_i64(p->pre[a + 1], sent), p->pre[k] - p->pre[rmax]) > x_us) {
            return a; /* p = a - 1 sends too much, and so does every smaller p */
        }
    }
    return -1;
}

/* f[(t+1) k + q] for every next cut q after the cut t (or the end, q =
 * k - 1), given that the part pop[p+1..t] before t's cut sends at most
 * x_us across it (the first cut, p = -1, and the last over every subset
 * with the compute before and after it); the best set ending at t into
 * *best (with the end). */
static void cuts_from(struct cuts *m, int32_t t, int64_t x_us, int64_t *best, int32_t *best_n)
{
    const struct bound_path *p = m->p;
    int32_t k = p->k, last = p->win[t + 1] == k ? k - 1 : p->win[t + 1] - 1, lo = -1;
    int32_t amin = t, rmax = -1;
    int64_t sent = 0;         /* from pop[lo+1..t] to pop[t+1..q] */
    int64_t all = 0, one = 0; /* from pop[0..t], and its step over the subsets so far */

    for (int32_t q = t + 1; q <= last; q++) {
        for (int32_t x = m->hr[q]; x >= 0; x = m->nr[x]) {
            sent += m->at[x] > lo ? m->comm[x] : 0;
            all = sat_add_i64(all, m->comm[x]);
            amin = m->at[x] < amin ? m->at[x] : amin;
            rmax = q;
        }
        if (rmax == q) {
            int64_t s = sat_add_i64(sat_add_i64(p->pre[amin + 1], all), p->pre[k] - p->pre[q]);

            one = s > one ? s : one;
        }
        while (sent > x_us && lo < t - 1) {
            lo++;
            for (int32_t x = m->ha[lo]; x >= 0; x = m->na[x]) {
                sent -= m->rd[m->ptr[x]] <= q ? m->comm[x] : 0;
            }
        }
        if (sent > x_us) {
            return; /* no part before t is small enough, and it only grows with q */
        }
        if (q == k - 1) {
            int32_t from = cuts_last(m, t, x_us);
            /* t the only cut (from = -1) also pays its single-cut step */
            int64_t v = from < t ? m->sm[from + 1 + (from < 0)] : INF;
            int32_t n = from < t ? m->smc[from + 1 + (from < 0)] : 0;

            if (from < 0 && p->vol[t] <= x_us && m->f[t] < v) {
                v = m->f[t];
                n = 1;
            }
            if (v < *best) {
                *best = v;
                *best_n = n;
            }
        } else {
            /* the first part (p = -1) may send less than its whole step allows */
            int32_t i = lo + 1 + (lo < 0 && one > x_us);

            if (m->sm[i] < INF) {
                m->f[(size_t)(t + 1) * (size_t)k + (size_t)q] = sat_add_i64(m->sm[i], p->cost[q]);
                m->fc[(size_t)(t + 1) * (size_t)k + (size_t)q] = m->smc[i] + 1;
            }
        }
    }
}

/* The cheapest cut set whose every cut sends at most x_us (its part before
 * to its part after), INF when none; its size into *n_cuts. */
static int64_t cuts_min(struct cuts *m, int64_t x_us, int32_t *n_cuts)
{
    const struct bound_path *p = m->p;
    int32_t k = p->k, n_alive = 0;
    int64_t best = INF;

    *n_cuts = 0;
    for (int32_t x = 0; x < m->nt; x++) {
        m->ptr[x] = m->rs[x];
    }
    for (size_t i = 0; i < (size_t)k * (size_t)k; i++) {
        m->f[i] = INF;
    }
    for (int32_t t = 0; t + 1 < k && t < p->win[0]; t++) {
        m->f[t] = p->cost[t]; /* the first cut */
        m->fc[t] = 1;
    }
    for (int32_t t = 0; t + 1 < k; t++) {
        n_alive = cuts_alive(m, t, n_alive);
        m->sm[t + 1] = INF;
        m->smc[t + 1] = 0;
        for (int32_t i = t; i >= 0; i--) {
            int64_t v = m->f[(size_t)i * (size_t)k + (size_t)t];

            m->sm[i] = v < m->sm[i + 1] ? v : m->sm[i + 1];
            m->smc[i] = v < m->sm[i + 1] ? m->fc[(size_t)i * (size_t)k + (size_t)t] : m->smc[i + 1];
        }
        if (m->sm[0] < INF) {
            cuts_from(m, t, x_us, &best, n_cuts);
        }
    }
    return best;
}

int bound_path_cuts(const struct bound_path *p, int64_t compute_us, int64_t floor_us,
                    int64_t *lb_us, int32_t *n_cuts)
{
    struct cuts m;
    int64_t lo = *lb_us, hi = compute_us, step = *lb_us / BOUND_CUTS_PRECISION + 1;
    int32_t n = 0;
    bool bisect = false;
    int rc;

    for (int32_t t = 0; t + 1 < p->k; t++) {
        hi = sat_add_i64(hi, p->cost[t]);
    }
    hi = sat_add_i64(hi, 1); /* every edge cut sends at most its own tensors: fits */
    if (p->k < 2 || p->k > BOUND_CUTS_MAX_OPS || lo >= hi) {
        return 0;
    }
    if ((rc = cuts_init(&m, p)) != 0) {
        return rc;
    }
    /* lo: the bound so far (every set costs that much or sends more);
     * the largest x with min(x, compute + the cheapest set sending <= x)
     * = x, galloping up from lo (the answer is usually near), then
     * bisecting */
    if (floor_us > lo && floor_us < hi) { /* worth trying only if it can beat floor_us */
        int64_t c = cuts_min(&m, floor_us, &n);

        if (c != INF && sat_add_i64(compute_us, c) < floor_us) {
            hi = lo; /* the answer is below floor_us */
        } else {
            lo = floor_us;
            *n_cuts = c == INF ? *n_cuts : n;
            step = lo / BOUND_CUTS_PRECISION + 1;
        }
    }
    while (hi - lo > 1 && hi - lo > lo / BOUND_CUTS_PRECISION) {
        int64_t x = bisect ? lo + (hi - lo) / 2 : sat_add_i64(lo, step), c;

        x = x < hi ? x : lo + (hi - lo) / 2;
        c = cuts_min(&m, x, &n);
        if (c == INF || sat_add_i64(compute_us, c) >= x) {
            lo = x;
            *n_cuts = c == INF ? *n_cuts : n;
            step = sat_add_i64(step, step);
        } else {
            hi = x;
            bisect = true;
        }
    }
    *lb_us = lo;
    cuts_release(&m);
    return 0;
}
