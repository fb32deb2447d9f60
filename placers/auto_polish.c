/*
 * auto_polish.c - stage seeds before `auto`'s local search and a final pass
 * over the critical path after it (auto_polish.h; beyond the original).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/auto_polish.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/workload.h"
#include "sim/sim.h"

#include <stdlib.h>
#include <string.h>

/* Scratch of the stage seeds: the groups in stage order, the bytes before
 * each position and the edge bytes crossing a cut there. */
struct seeds {
    int32_t n;      /* groups with a forward op, in `order` */
    int32_t n_rest; /* the others, in `rest` by their first op */
    int32_t *key;   /* group -> first forward op's topological position */
    int32_t *first; /* group -> first op's topological position */
    int32_t *order, *rest, *cuts, *cand;
    int64_t *prefix; /* n + 1: Σ bytes of order[0 .. p) */
    int64_t *cross;  /* n + 2: edge bytes between order[0 .. p) and the rest */
    int64_t *in_bytes;
};

static void seeds_release(struct seeds *w)
{
    free(w->key);
    free(w->first);
    free(w->order);
    free(w->rest);
    free(w->cuts);
    free(w->cand);
    free(w->prefix);
    free(w->cross);
    free(w->in_bytes);
}

static int cmp_key(const void *a, const void *b, void *arg)
{
    const int32_t *key = arg;
    int32_t p = *(const int32_t *)a, q = *(const int32_t *)b;

    if (key[p] != key[q]) {
        return key[p] < key[q] ? -1 : 1;
    }
    return p < q ? -1 : p > q;
}

/* The stage order of the groups, the prefix bytes and the crossing bytes. */
static int seeds_init(struct seeds *w, const struct auto_ctx *s)
{
    const struct graph *g = s->g;
    int32_t n_tf = s->n_tf, *rank = NULL, *lo = NULL, *hi = NULL;
    int rc = 0;

    memset(w, 0, sizeof(*w));
    w->key = mem_alloc_array((size_t)n_tf + 1, sizeof(int32_t));
    w->first = mem_alloc_array((size_t)n_tf + 1, sizeof(int32_t));
    w->order = mem_alloc_array((size_t)n_tf + 1, sizeof(int32_t));
    w->rest = mem_alloc_array((size_t)n_tf + 1, sizeof(int32_t));
    w->cuts = mem_alloc_array((size_t)s->n_dev + 1, sizeof(int32_t));
    w->cand = mem_alloc_array((size_t)n_tf + 1, sizeof(int32_t));
    w->prefix = mem_calloc((size_t)n_tf + 2, sizeof(int64_t));
    w->cross = mem_calloc((size_t)n_tf + 2, sizeof(int64_t));
    w->in_bytes = mem_alloc_array((size_t)s->n_dev + 1, sizeof(int64_t));
    rank = mem_alloc_array((size_t)n_tf + 1, sizeof(int32_t));
    lo = mem_alloc_array((size_t)g->n_tensors + 1, sizeof(int32_t));
    hi = mem_alloc_array((size_t)g->n_tensors + 1, sizeof(int32_t));
    if (!lo || !hi || !w->key || !w->first || !w->order || !w->rest || !w->cuts || !w->cand ||
        !w->prefix || !w->cross || !w->in_bytes || !rank) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    for (int32_t k = 0; k < n_tf; k++) {
        w->key[k] = INT32_MAX;
        w->first[k] = INT32_MAX;
        rank[k] = -1;
    }
    for (int32_t v = 0; v < s->n_ops; v++) {
        int32_t k = s->tf_of[v], t = g->topo[v];
        if (t < w->first[k]) {
            w->first[k] = t;
        }
        if ((!g->phase || g->phase[v] == PHASE_FORWARD) && t < w->key[k]) {
            w->key[k] = t;
        }
    }
    for (int32_t k = 0; k < n_tf; k++) {
        if (w->key[k] != INT32_MAX) {
            w->order[w->n++] = k;
        } else {
            w->rest[w->n_rest++] = k;
        }
    }
    qsort_r(w->order, (size_t)w->n, sizeof(int32_t), cmp_key, w->key);
    qsort_r(w->rest, (size_t)w->n_rest, sizeof(int32_t), cmp_key, w->first);
    for (int32_t i = 0; i < w->n; i++) {
        rank[w->order[i]] = i;
        w->prefix[i + 1] = w->prefix[i] + s->tf_mem[w->order[i]];
    }
    /* A tensor crosses every cut p with lo < p <= hi, lo and hi the first
     * and last position of its producer and consumers: it is sent once. */
    for (int32_t t = 0; t < g->n_tensors; t++) {
        int32_t r = rank[s->tf_of[g->tensor_op[t]]];
        lo[t] = r < 0 ? INT32_MAX : r;
        hi[t] = r;
    }
    for (int32_t e = 0; e < g->n_edges; e++) {
        int32_t r = rank[s->tf_of[g->edge_dst[e]]];
        for (int32_t i = g->et_start[e]; i < g->et_start[e + 1] && r >= 0; i++) {
            int32_t t = g->et_tensor[i];
            if (hi[t] >= 0) {
                lo[t] = r < lo[t] ? r : lo[t];
                hi[t] = r > hi[t] ? r : hi[t];
            }
        }
    }
    for (int32_t t = 0; t < g->n_tensors; t++) {
        if (hi[t] >= 0 && lo[t] < hi[t]) {
            w->cross[lo[t] + 1] += g->tensor_bytes[t];
            w->cross[hi[t] + 1] -= g->tensor_bytes[t];
        }
    }
    for (int32_t p = 1; p <= w->n; p++) {
        w->cross[p] += w->cross[p - 1];
    }
cleanup:
    free(rank);
    free(lo);
    free(hi);
    return rc;
}

/* Balanced cuts for n_st stages into w->cuts (n_st - 1 positions,
 * increasing, in 1 .. n - 1): the first position with at least st / n_st of
 * the groups' bytes before it. */
static void seeds_cut(struct seeds *w, int32_t n_st)
{
    int64_t total = w->prefix[w->n];
    int32_t prev = 0;

    for (int32_t st = 1; st < n_st; st++) {
        int64_t target = (int64_t)((double)total * st / n_st);
        int32_t hi = w->n - (n_st - st), p = prev + 1;

        while (p < hi && w->prefix[p] < target) {
            p++;
        }
        w->cuts[st - 1] = p;
        prev = p;
    }
}

static int cmp_cross(const void *a, const void *b, void *arg)
{
    const int64_t *cross = arg;
    int32_t p = *(const int32_t *)a, q = *(const int32_t *)b;

    if (cross[p] != cross[q]) {
        return cross[p] < cross[q] ? -1 : 1;
    }
    return p < q ? -1 : p > q;
}

/* Into w->cand (returns how many, <= AUTO_POLISH_CUTS): the positions for
 * cut b of n_st strictly between its neighbours, within half a stage's
 * bytes of its balanced place, that the fewest bytes cross. */
static int32_t seeds_candidates(struct seeds *w, int32_t n_st, int32_t b)
{
    int64_t total = w->prefix[w->n], slack = total / (2 * (int64_t)n_st);
    int64_t target = (int64_t)((double)total * (b + 1) / n_st);
    int32_t lo = b > 0 ? w->cuts[b - 1] + 1 : 1;
    int32_t hi = b < n_st - 2 ? w->cuts[b + 1] - 1 : w->n - 1;
    int32_t n = 0;

    for (int32_t q = lo; q <= hi; q++) {
        if (w->prefix[q] >= target - slack && w->prefix[q] <= target + slack) {
            w->cand[n++] = q;
        }
    }
    qsort_r(w->cand, (size_t)n, sizeof(int32_t), cmp_cross, w->cross);
    return n < AUTO_POLISH_CUTS ? n : AUTO_POLISH_CUTS;
}

/* The seed of the cuts into dev: stage s on device s, the groups without a
 * forward op with most of their input bytes. */
static void seeds_place(const struct seeds *w, const struct auto_ctx *s, int32_t n_st, int32_t *dev)
{
    const struct graph *g = s->g;
    int32_t st = 0;

    for (int32_t v = 0; v < s->n_ops; v++) {
        dev[v] = -1;
    }
    for (int32_t i = 0; i < w->n; i++) {
        int32_t k = w->order[i];
        while (st < n_st - 1 && i >= w->cuts[st]) {
            st++;
        }
        for (int32_t j = s->tf_start[k]; j < s->tf_start[k + 1]; j++) {
            dev[s->tf_op[j]] = st;
        }
    }
    for (int32_t i = 0; i < w->n_rest; i++) {
        int32_t k = w->rest[i], to = 0;
        memset(w->in_bytes, 0, (size_t)s->n_dev * sizeof(int64_t));
        for (int32_t j = s->tf_start[k]; j < s->tf_start[k + 1]; j++) {
            int32_t v = s->tf_op[j];
            for (int32_t x = g->in_start[v]; x < g->in_start[v + 1]; x++) {
                int32_t e = g->in_edge[x], u = g->edge_src[e];
                if (dev[u] >= 0 && s->tf_of[u] != k) {
                    w->in_bytes[dev[u]] += s->edge_bytes[e] + 1;
                }
            }
        }
        for (int32_t d = 1; d < s->n_dev; d++) {
            if (w->in_bytes[d] > w->in_bytes[to]) {
                to = d;
            }
        }
        for (int32_t j = s->tf_start[k]; j < s->tf_start[k + 1]; j++) {
            dev[s->tf_op[j]] = to;
        }
    }
}

/* Judges s->trial; keeps it when better.  *kept, *done as auto_eval. */
static int judge(struct auto_ctx *s, bool *kept, bool *done)
{
    struct auto_score sc;
    int rc;

    *kept = false;
    if ((rc = auto_eval(s, s->trial, &s->best_score, false, &sc, done)) != 0) {
        return rc;
    }
    if (!*done && auto_score_better(&sc, &s->best_score)) {
        auto_accept(s, &sc);
        s->improvements++;
        *kept = true;
    }
    return 0;
}

/* Judges the seed of w->cuts against *local (the best of this S), then
 * against the search's best. */
static int seed_try(struct auto_ctx *s, struct seeds *w, int32_t n_st, struct auto_score *local,
                    bool *better, bool *done, struct auto_polish_stats *st)
{
    struct auto_score sc;
    int rc;

    *better = false;
    seeds_place(w, s, n_st, s->trial);
    s->trial_known = false;
    if ((rc = auto_eval(s, s->trial, local, false, &sc, done)) != 0 || *done) {
        return rc;
    }
    if (auto_score_better(&sc, local)) {
        *local = sc;
        *better = true;
    }
    if (auto_score_better(&sc, &s->best_score)) {
        auto_accept(s, &sc);
        s->improvements++;
        st->seed_stages = n_st;
    }
    return 0;
}

static int stage_seeds(struct auto_ctx *s, struct auto_polish_stats *st)
{
    struct seeds w;
    bool better, done = false;
    int rc = 0;

    CHECK(seeds_init(&w, s));
    for (int32_t n_st = 2; n_st <= s->n_dev && n_st <= w.n && !done; n_st++) {
        struct auto_score local = {INT64_MAX, INT64_MAX, INT64_MAX, -1};

        seeds_cut(&w, n_st);
        CHECK(seed_try(s, &w, n_st, &local, &better, &done, st));
        /* each cut in turn to the positions that the fewest bytes cross */
        for (int32_t b = 0; b < 2 * (n_st - 1) && !done; b++) {
            int32_t cb = b % (n_st - 1), n_cand = seeds_candidates(&w, n_st, cb), keep = w.cuts[cb];
            for (int32_t i = 0; i < n_cand && !done; i++) {
                if (w.cand[i] == keep) {
                    continue;
                }
                w.cuts[cb] = w.cand[i];
                CHECK(seed_try(s, &w, n_st, &local, &better, &done, st));
                if (better) {
                    keep = w.cuts[cb];
                }
            }
            w.cuts[cb] = keep;
        }
    }
cleanup:
    seeds_release(&w);
    return rc;
}

/* ---- the final pass over the critical path ---- */

/* pass_moves' visit: for each transfer the path waits for, the consumer's
 * group to the producer's device, then the producer's to the consumer's. */
static void pass_visit(struct auto_ctx *s, int32_t v, int32_t p, int32_t e, void *arg)
{
    int32_t up = e >= 0 ? s->g->edge_src[e] : -1;

    (void)arg;
    if (p < 0 && s->best[up] != s->best[v]) {
        auto_add_move(s, AUTO_MV_TF, s->tf_of[v], s->best[up]);
        auto_add_move(s, AUTO_MV_TF, s->tf_of[up], s->best[v]);
    }
}

/* The moves of the pass, in path order from the end. */
static void pass_moves(struct auto_ctx *s)
{
    s->n_moves = 0;
    auto_path_walk(s, pass_visit, NULL);
}

static int final_pass(struct auto_ctx *s, struct auto_polish_stats *st)
{
    bool kept = true, done = false;
    int rc;

    while (kept && !done) {
        pass_moves(s);
        kept = false;
        for (int32_t i = 0; i < s->n_moves && !kept && !done; i++) {
            const struct auto_move *m = &s->moves[i];
            bool changed = false;

            memcpy(s->trial, s->best, (size_t)s->n_ops * sizeof(int32_t));
            s->trial_known = false;
            for (int32_t j = s->tf_start[m->a]; j < s->tf_start[m->a + 1]; j++) {
                changed |= s->trial[s->tf_op[j]] != m->b;
                s->trial[s->tf_op[j]] = m->b;
            }
            if (!changed) {
                continue;
            }
            if ((rc = judge(s, &kept, &done)) != 0) {
                return rc;
            }
            st->pass_improvements += kept;
        }
    }
    return 0;
}

int auto_polish_run(struct auto_ctx *s, struct auto_polish_stats *st)
{
    uint64_t budget = s->budget, left;
    int rc;

    memset(st, 0, sizeof(*st));
    /* the seeds may spend at most half of the budget (on very large graphs
     * a few evaluations are all there is), the search the rest */
    left = s->budget > s->visits ? s->budget - s->visits : 0;
    s->budget -= left - left / AUTO_POLISH_SEED_SHARE;
    rc = stage_seeds(s, st);
    s->budget = budget;
    if (rc != 0 || (rc = auto_search_run(s)) != 0) {
        return rc;
    }
    if (!auto_score_feasible(&s->best_score)) {
        return 0;
    }
    return final_pass(s, st);
}
