/*
 * auto.c - `auto`, a placer beyond the original (deviation: not in the
 * paper): feasible means it fits, and it answers whenever any placer does.
 *
 *  1. Candidates: every other placer (m-TOPO, m-TOPO-nonuniform, m-ETF,
 *     m-SCT and their -reserve variants, each with the `tf` and `coplace`
 *     groupers, with and without fusion; single, round-robin, random, and
 *     the workload's given placement when it has one), each as it is and
 *     with its zero-cost source groups moved next to their first consumer.
 *  2. Judge: both simulators (sim_run) on the world the options describe
 *     (placer_world: memory fraction, comm and compute factors, devices).
 *     A placement is feasible when neither model runs out of memory; the
 *     memory accounting is the simulators' own, not an estimate.
 *  3. Start from the best candidate by (timed overflow, baechi overflow,
 *     timed step).  If it overflows, repair: move the largest colocation
 *     groups off the overflowing device to the devices with the most room.
 *     Then local search over colocation groups guided by the critical path
 *     of the timed simulation (move the consumer to its producer's device,
 *     the producer to its consumer's, a device-bound op to the least busy
 *     device, swap the two ends of a transfer; the same for coplace
 *     groups), first improvement, then seeded random moves until a stall or
 *     the budget ends.  A move is kept only when it is strictly better, so
 *     the result is never worse than the best candidate.
 *
 * The budget counts simulations (AUTO_VISITS_PER_MS op-and-edge visits per
 * unit), never wall time, so identical input, budget and seed give an
 * identical placement.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/auto_internal.h"

#include "core/array.h"
#include "core/err.h"
#include "core/placement.h"
#include "sim/sim.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MV_TF, MV_CO, MV_SWAP };

struct move {
    int32_t kind;
    int32_t a, b; /* MV_TF / MV_CO: group a to device b; MV_SWAP: tf groups a and b */
};

struct search {
    const struct graph *g;
    const struct cluster *c;
    int32_t n_ops, n_dev;
    const int32_t *tf_of;
    int32_t n_tf, n_co;
    int32_t *co_of;
    int32_t *tf_start, *tf_op, *co_start, *co_op; /* members, CSR */
    int64_t *tf_mem;                              /* Σ persistent + output + temp bytes */
    int64_t *edge_bytes;                          /* Σ tensor bytes per edge */
    uint64_t budget, visits, cost;
    int64_t n_eval;
    uint64_t rng;
    int32_t *best, *trial, *order, *prev_on_dev;
    int32_t *src_group, *src_to, n_src; /* cheap source groups and their first consumer op */
    struct auto_score best_score;
    struct sim_result rt_best, rb_best, rt_trial, rb_trial;
    bool rb_best_valid, rb_trial_valid;
    struct move *moves;
    int32_t n_moves, cap_moves;
    int32_t improvements;
};

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int32_t rnd(struct search *s, int32_t n)
{
    return n <= 1 ? 0 : (int32_t)(splitmix64(&s->rng) % (uint64_t)n);
}

static bool score_better(const struct auto_score *a, const struct auto_score *b)
{
    if (a->over_timed != b->over_timed) {
        return a->over_timed < b->over_timed;
    }
    if (a->over_baechi != b->over_baechi) {
        return a->over_baechi < b->over_baechi;
    }
    return a->step_us < b->step_us;
}

static int64_t overflow(const struct sim_result *r)
{
    int64_t over = 0;

    for (int32_t d = 0; d < r->n_devices; d++) {
        const struct sim_device_stats *x = &r->dev[d];
        if (x->limit_bytes > 0 && x->peak_bytes > x->limit_bytes) {
            over += x->peak_bytes - x->limit_bytes;
        }
    }
    return over;
}

/* CSR of members from a group map. */
static int members(int32_t n_ops, const int32_t *of, int32_t n_groups, int32_t **start,
                   int32_t **op)
{
    int32_t *st = array_calloc((size_t)n_groups + 2, sizeof(int32_t));
    int32_t *ops = array_malloc((size_t)n_ops + 1, sizeof(int32_t));

    if (!st || !ops) {
        free(st);
        free(ops);
        return BAECHI_ENOMEM;
    }
    for (int32_t v = 0; v < n_ops; v++) {
        st[of[v] + 2]++;
    }
    for (int32_t k = 0; k < n_groups; k++) {
        st[k + 2] += st[k + 1];
    }
    for (int32_t v = 0; v < n_ops; v++) {
        ops[st[of[v] + 1]++] = v;
    }
    *start = st;
    *op = ops;
    return 0;
}

static void search_release(struct search *s)
{
    free(s->co_of);
    free(s->tf_start);
    free(s->tf_op);
    free(s->co_start);
    free(s->co_op);
    free(s->tf_mem);
    free(s->edge_bytes);
    free(s->best);
    free(s->trial);
    free(s->order);
    free(s->prev_on_dev);
    free(s->moves);
    free(s->src_group);
    free(s->src_to);
    sim_result_release(&s->rt_best);
    sim_result_release(&s->rb_best);
    sim_result_release(&s->rt_trial);
    sim_result_release(&s->rb_trial);
    memset(s, 0, sizeof(*s));
}

/*
 * Cheap source groups: every member has no input and computes in less time
 * than sending its outputs would take (constants, shape arithmetic, BN
 * statistics; an imported Constant costs a 5 µs launch, a transfer 134 µs).
 * They belong next to the first consumer of their first member, so that
 * they do not pay a transfer each: each candidate is also tried that way.
 * (Taking them along on every move of the search was tried: on the
 * benchmark it blocks more improvements than it brings.)
 */
static int find_sources(struct search *s)
{
    const struct graph *g = s->g;

    s->src_group = array_malloc((size_t)s->n_tf + 1, sizeof(int32_t));
    s->src_to = array_malloc((size_t)s->n_tf + 1, sizeof(int32_t));
    if (!s->src_group || !s->src_to) {
        return BAECHI_ENOMEM;
    }
    for (int32_t k = 0; k < s->n_tf; k++) {
        int32_t first = s->tf_op[s->tf_start[k]], to = -1, best_topo = INT32_MAX;
        bool src = true;

        for (int32_t i = s->tf_start[k]; i < s->tf_start[k + 1] && src; i++) {
            int32_t v = s->tf_op[i];
            src = graph_in_degree(g, v) == 0 &&
                  g->weight_us[v] <= cluster_comm_default_us(s->c, g->out_bytes[v]);
        }
        for (int32_t e = g->out_start[first]; src && e < g->out_start[first + 1]; e++) {
            int32_t w = g->edge_dst[e];
            if (s->tf_of[w] != k && g->topo[w] < best_topo) {
                best_topo = g->topo[w];
                to = w;
            }
        }
        if (src && to >= 0) {
            s->src_group[s->n_src] = k;
            s->src_to[s->n_src++] = to;
        }
    }
    return 0;
}

/* The cheap sources next to their consumer in dev; whether anything moved. */
static bool sources_follow(const struct search *s, int32_t *dev)
{
    bool moved = false;

    for (int32_t j = 0; j < s->n_src; j++) {
        int32_t k = s->src_group[j], to = dev[s->src_to[j]];
        for (int32_t i = s->tf_start[k]; i < s->tf_start[k + 1]; i++) {
            moved |= dev[s->tf_op[i]] != to;
            dev[s->tf_op[i]] = to;
        }
    }
    return moved;
}

static int search_init(struct search *s, const struct graph *g, const struct cluster *c,
                       const int32_t *tf_of, int32_t n_tf, int64_t budget_ms, uint64_t seed)
{
    int32_t n = g->n_ops;
    int rc = 0;

    memset(s, 0, sizeof(*s));
    sim_result_init(&s->rt_best);
    sim_result_init(&s->rb_best);
    sim_result_init(&s->rt_trial);
    sim_result_init(&s->rb_trial);
    s->g = g;
    s->c = c;
    s->n_ops = n;
    s->n_dev = c->n_devices;
    s->tf_of = tf_of;
    s->n_tf = n_tf;
    s->budget = budget_ms > 0 ? (uint64_t)budget_ms * AUTO_VISITS_PER_MS : 0;
    s->cost = (uint64_t)n + (uint64_t)g->n_edges + 1;
    s->rng = seed ^ 0x6a09e667f3bcc909ULL;
    s->co_of = array_malloc((size_t)n + 1, sizeof(int32_t));
    s->tf_mem = array_calloc((size_t)n_tf + 1, sizeof(int64_t));
    s->edge_bytes = array_calloc((size_t)g->n_edges + 1, sizeof(int64_t));
    s->best = array_malloc((size_t)n + 1, sizeof(int32_t));
    s->trial = array_malloc((size_t)n + 1, sizeof(int32_t));
    s->order = array_malloc((size_t)n + 1, sizeof(int32_t));
    s->prev_on_dev = array_malloc((size_t)n + 1, sizeof(int32_t));
    s->cap_moves = 2048;
    s->moves = array_malloc((size_t)s->cap_moves, sizeof(struct move));
    if (!s->co_of || !s->tf_mem || !s->edge_bytes || !s->best || !s->trial || !s->order ||
        !s->prev_on_dev || !s->moves) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    /* Coplace groups are unions of the tf groups, so moving one keeps every
     * tf group on one device. */
    CHECK(placer_group(g, PLACER_GROUPER_COPLACE, s->co_of, &s->n_co, NULL));
    CHECK(members(n, tf_of, n_tf, &s->tf_start, &s->tf_op));
    CHECK(members(n, s->co_of, s->n_co, &s->co_start, &s->co_op));
    for (int32_t v = 0; v < n; v++) {
        s->tf_mem[tf_of[v]] += g->persist_bytes[v] + g->out_bytes[v] + g->temp_bytes[v];
    }
    for (int32_t e = 0; e < g->n_edges; e++) {
        for (int32_t i = g->et_start[e]; i < g->et_start[e + 1]; i++) {
            s->edge_bytes[e] += g->tensor_bytes[g->et_tensor[i]];
        }
    }
    CHECK(find_sources(s));
    return 0;
cleanup:
    search_release(s);
    return rc;
}

/*
 * Simulates placement dev: the timed model, then (only when the timed model
 * fits and the placement could beat `best`) the baechi model.  Unless
 * `force`, stops with *done when the budget cannot pay for it.
 */
static int eval(struct search *s, const int32_t *dev, const struct auto_score *best, bool force,
                struct auto_score *out, bool *done)
{
    struct sim_options so = {.model = SIM_MODEL_TIMED, .trace = NULL};
    int rc;

    if (!force && s->visits + s->cost > s->budget) {
        *done = true;
        return 0;
    }
    sim_result_release(&s->rt_trial);
    sim_result_release(&s->rb_trial);
    s->rb_trial_valid = false;
    if ((rc = sim_run(s->g, s->c, dev, &so, &s->rt_trial)) != 0) {
        return rc;
    }
    s->visits += s->cost;
    s->n_eval++;
    out->over_timed = overflow(&s->rt_trial);
    out->step_us = s->rt_trial.step_us;
    out->over_baechi = INT64_MAX;
    out->baechi_step_us = -1;
    if (out->over_timed == 0 &&
        (!best || !auto_score_feasible(best) || out->step_us < best->step_us)) {
        if (!force && s->visits + s->cost > s->budget) {
            *done = true;
            return 0;
        }
        so.model = SIM_MODEL_BAECHI;
        if ((rc = sim_run(s->g, s->c, dev, &so, &s->rb_trial)) != 0) {
            return rc;
        }
        s->visits += s->cost;
        s->n_eval++;
        s->rb_trial_valid = true;
        out->over_baechi = overflow(&s->rb_trial);
        out->baechi_step_us = s->rb_trial.step_us;
    }
    return 0;
}

/* The trial becomes the best (its simulations too). */
static void accept(struct search *s, const struct auto_score *sc)
{
    struct sim_result t;

    memcpy(s->best, s->trial, (size_t)s->n_ops * sizeof(int32_t));
    s->best_score = *sc;
    t = s->rt_best;
    s->rt_best = s->rt_trial;
    s->rt_trial = t;
    t = s->rb_best;
    s->rb_best = s->rb_trial;
    s->rb_trial = t;
    s->rb_best_valid = s->rb_trial_valid;
    s->rb_trial_valid = false;
}

static void add_move(struct search *s, int32_t kind, int32_t a, int32_t b)
{
    if (s->n_moves < s->cap_moves) { /* else enough to try before regenerating */
        s->moves[s->n_moves++] = (struct move){kind, a, b};
    }
}

static int cmp_move(const void *x, const void *y)
{
    const struct move *p = x, *q = y;

    if (p->kind != q->kind) {
        return p->kind < q->kind ? -1 : 1;
    }
    if (p->a != q->a) {
        return p->a < q->a ? -1 : 1;
    }
    return p->b < q->b ? -1 : p->b > q->b;
}

/* Drops repeated moves (sorted; the order is shuffled afterwards anyway). */
static void unique_moves(struct search *s)
{
    int32_t n = 0;

    qsort(s->moves, (size_t)s->n_moves, sizeof(struct move), cmp_move);
    for (int32_t i = 0; i < s->n_moves; i++) {
        if (n == 0 || cmp_move(&s->moves[n - 1], &s->moves[i]) != 0) {
            s->moves[n++] = s->moves[i];
        }
    }
    s->n_moves = n;
}

/* Applies m to the best placement, into trial; false when nothing changes. */
static bool apply(struct search *s, const struct move *m)
{
    bool changed = false;

    memcpy(s->trial, s->best, (size_t)s->n_ops * sizeof(int32_t));
    if (m->kind == MV_TF || m->kind == MV_CO) {
        const int32_t *st = m->kind == MV_TF ? s->tf_start : s->co_start;
        const int32_t *op = m->kind == MV_TF ? s->tf_op : s->co_op;
        for (int32_t i = st[m->a]; i < st[m->a + 1]; i++) {
            changed |= s->trial[op[i]] != m->b;
            s->trial[op[i]] = m->b;
        }
    } else {
        int32_t da = s->best[s->tf_op[s->tf_start[m->a]]];
        int32_t db = s->best[s->tf_op[s->tf_start[m->b]]];
        if (da == db) {
            return false;
        }
        for (int32_t i = s->tf_start[m->a]; i < s->tf_start[m->a + 1]; i++) {
            s->trial[s->tf_op[i]] = db;
        }
        for (int32_t i = s->tf_start[m->b]; i < s->tf_start[m->b + 1]; i++) {
            s->trial[s->tf_op[i]] = da;
        }
        changed = true;
    }
    return changed;
}

/* ---- repair: the largest groups off the device that overflows most ---- */

struct mem_ctx {
    const int64_t *mem;
};

static int cmp_mem_desc(const void *a, const void *b, void *arg)
{
    const struct mem_ctx *x = arg;
    int32_t p = *(const int32_t *)a, q = *(const int32_t *)b;

    if (x->mem[p] != x->mem[q]) {
        return x->mem[p] > x->mem[q] ? -1 : 1;
    }
    return p < q ? -1 : p > q;
}

static void repair_moves(struct search *s)
{
    const struct sim_result *r =
        s->best_score.over_timed > 0 || !s->rb_best_valid ? &s->rt_best : &s->rb_best;
    int32_t worst = -1, n_on = 0, tgt[64], n_tgt = 0;
    int64_t worst_over = 0;
    struct mem_ctx mc = {s->tf_mem};

    for (int32_t d = 0; d < r->n_devices; d++) {
        int64_t o = r->dev[d].limit_bytes > 0 ? r->dev[d].peak_bytes - r->dev[d].limit_bytes : 0;
        if (o > worst_over) {
            worst_over = o;
            worst = d;
        }
    }
    if (worst < 0) {
        return;
    }
    /* targets by room, most first */
    for (int32_t d = 0; d < r->n_devices && n_tgt < 64; d++) {
        if (d != worst) {
            tgt[n_tgt++] = d;
        }
    }
    for (int32_t i = 1; i < n_tgt; i++) {
        for (int32_t j = i; j > 0; j--) {
            const struct sim_device_stats *x = &r->dev[tgt[j - 1]], *y = &r->dev[tgt[j]];
            int64_t rx = x->limit_bytes > 0 ? x->limit_bytes - x->peak_bytes : INT64_MAX;
            int64_t ry = y->limit_bytes > 0 ? y->limit_bytes - y->peak_bytes : INT64_MAX;
            if (ry > rx) {
                int32_t t = tgt[j];
                tgt[j] = tgt[j - 1];
                tgt[j - 1] = t;
            }
        }
    }
    /* the tf groups on the worst device, largest first (order is scratch) */
    for (int32_t k = 0; k < s->n_tf; k++) {
        if (s->best[s->tf_op[s->tf_start[k]]] == worst) {
            s->order[n_on++] = k;
        }
    }
    qsort_r(s->order, (size_t)n_on, sizeof(int32_t), cmp_mem_desc, &mc);
    /* the op that crossed the limit first: its group is the natural one to move */
    for (int32_t i = 0; i < r->n_oom; i++) {
        if (r->oom[i].device == worst) {
            int32_t k = s->tf_of[r->oom[i].op];
            for (int32_t t = 0; t < n_tgt; t++) {
                add_move(s, MV_TF, k, tgt[t]);
            }
        }
    }
    for (int32_t i = 0; i < n_on && i < 8; i++) {
        for (int32_t t = 0; t < n_tgt; t++) {
            add_move(s, MV_TF, s->order[i], tgt[t]);
        }
    }
    /* smaller groups too, to the device with the most room */
    for (int32_t i = 8; i < n_on && i < 64 && n_tgt > 0; i++) {
        add_move(s, MV_TF, s->order[i], tgt[0]);
    }
    /* swaps of a large group with a small one of a device with room (order
     * past n_on is scratch for that device's groups, smallest last) */
    for (int32_t t = 0; t < n_tgt && t < 2; t++) {
        int32_t n_t = 0, *on_t = s->order + n_on;
        for (int32_t k = 0; k < s->n_tf && n_on + n_t < s->n_ops; k++) {
            if (s->best[s->tf_op[s->tf_start[k]]] == tgt[t]) {
                on_t[n_t++] = k;
            }
        }
        qsort_r(on_t, (size_t)n_t, sizeof(int32_t), cmp_mem_desc, &mc);
        for (int32_t i = 0; i < n_on && i < 8; i++) {
            for (int32_t j = n_t - 1; j >= 0 && j >= n_t - 4; j--) {
                if (s->tf_mem[on_t[j]] < s->tf_mem[s->order[i]]) {
                    add_move(s, MV_SWAP, s->order[i], on_t[j]);
                }
            }
        }
    }
}

/* ---- local search: moves along the critical path of the timed run ---- */

struct start_ctx {
    const struct sim_result *r;
    const int32_t *dev;
};

static int cmp_dev_start(const void *a, const void *b, void *arg)
{
    const struct start_ctx *x = arg;
    int32_t p = *(const int32_t *)a, q = *(const int32_t *)b;

    if (x->dev[p] != x->dev[q]) {
        return x->dev[p] < x->dev[q] ? -1 : 1;
    }
    if (x->r->start_us[p] != x->r->start_us[q]) {
        return x->r->start_us[p] < x->r->start_us[q] ? -1 : 1;
    }
    if (x->r->end_us[p] != x->r->end_us[q]) {
        return x->r->end_us[p] < x->r->end_us[q] ? -1 : 1;
    }
    return p < q ? -1 : p > q;
}

static void path_moves(struct search *s)
{
    const struct graph *g = s->g;
    const struct sim_result *r = &s->rt_best;
    const int32_t *dev = s->best;
    struct start_ctx sc = {r, dev};
    int32_t v = -1, least = 0;

    for (int32_t i = 0; i < s->n_ops; i++) {
        s->order[i] = i;
    }
    qsort_r(s->order, (size_t)s->n_ops, sizeof(int32_t), cmp_dev_start, &sc);
    for (int32_t i = 0; i < s->n_ops; i++) {
        int32_t u = s->order[i];
        s->prev_on_dev[u] = i > 0 && dev[s->order[i - 1]] == dev[u] ? s->order[i - 1] : -1;
    }
    for (int32_t d = 1; d < r->n_devices; d++) {
        if (r->dev[d].busy_us < r->dev[least].busy_us) {
            least = d;
        }
    }
    for (int32_t u = 0; u < s->n_ops; u++) {
        if (v < 0 || r->end_us[u] > r->end_us[v]) {
            v = u;
        }
    }
    for (int32_t guard = 0; v >= 0 && guard < s->n_ops; guard++) {
        int32_t up = -1, p = s->prev_on_dev[v];
        int64_t arrive = -1;

        for (int32_t i = g->in_start[v]; i < g->in_start[v + 1]; i++) {
            int32_t e = g->in_edge[i], u = g->edge_src[e];
            int64_t t = r->end_us[u];
            if (dev[u] != dev[v]) {
                t += cluster_comm_us(s->c, dev[u], dev[v], s->edge_bytes[e]);
            }
            if (t > arrive) {
                arrive = t;
                up = u;
            }
        }
        if (p >= 0 && r->end_us[p] >= arrive) {
            /* device-bound: run v (or p) elsewhere */
            for (int32_t d = 0; d < s->n_dev; d++) {
                if (d != dev[v] && (d == least || rnd(s, 4) == 0)) {
                    add_move(s, MV_TF, s->tf_of[v], d);
                }
            }
            add_move(s, MV_TF, s->tf_of[p], least);
            add_move(s, MV_CO, s->co_of[v], least);
            v = p;
        } else if (up >= 0) {
            if (dev[up] != dev[v]) {
                add_move(s, MV_TF, s->tf_of[v], dev[up]);
                add_move(s, MV_TF, s->tf_of[up], dev[v]);
                add_move(s, MV_CO, s->co_of[v], dev[up]);
                add_move(s, MV_CO, s->co_of[up], dev[v]);
                add_move(s, MV_SWAP, s->tf_of[up], s->tf_of[v]);
            }
            v = up;
        } else {
            break;
        }
    }
}

static void shuffle_moves(struct search *s)
{
    unique_moves(s);
    for (int32_t i = s->n_moves - 1; i > 0; i--) {
        int32_t j = rnd(s, i + 1);
        struct move t = s->moves[i];
        s->moves[i] = s->moves[j];
        s->moves[j] = t;
    }
}

/* Tries the moves in order; *improved on the first that is better. */
static int try_moves(struct search *s, bool *improved, bool *done)
{
    int rc;

    *improved = false;
    for (int32_t i = 0; i < s->n_moves && !*done; i++) {
        struct auto_score sc;

        if (!apply(s, &s->moves[i])) {
            continue;
        }
        if ((rc = eval(s, s->trial, &s->best_score, false, &sc, done)) != 0) {
            return rc;
        }
        if (!*done && score_better(&sc, &s->best_score)) {
            accept(s, &sc);
            s->improvements++;
            *improved = true;
            return 0;
        }
    }
    return 0;
}

static int search_run(struct search *s)
{
    bool done = false, improved;
    int32_t stall = 0, stall_limit = s->n_tf > 64 ? 4 * s->n_tf : 256;
    int rc;

    bool exhausted = false; /* the guided moves of the current best all failed */

    while (!done) {
        if (!exhausted) {
            s->n_moves = 0;
            if (!auto_score_feasible(&s->best_score)) {
                repair_moves(s);
            } else {
                path_moves(s);
            }
            shuffle_moves(s);
            if ((rc = try_moves(s, &improved, &done)) != 0) {
                return rc;
            }
            if (improved) {
                stall = 0;
                continue;
            }
            exhausted = true; /* the same state gives the same moves: do not retry them */
        }
        /* a local optimum of the guided moves: seeded random moves */
        s->n_moves = 0;
        for (int32_t i = 0; i < 16; i++) {
            int32_t k = rnd(s, s->n_tf);
            if (rnd(s, 3) == 0) {
                add_move(s, MV_SWAP, k, rnd(s, s->n_tf));
            } else {
                add_move(s, MV_TF, k, rnd(s, s->n_dev));
            }
        }
        if ((rc = try_moves(s, &improved, &done)) != 0) {
            return rc;
        }
        if (improved) {
            stall = 0;
            exhausted = false;
        } else if ((stall += s->n_moves) >= stall_limit) {
            break;
        }
    }
    return 0;
}

int auto_search(const struct graph *g, const struct cluster *c, const int32_t *tf_of, int32_t n_tf,
                int64_t budget_ms, uint64_t seed, int32_t *device_of, struct auto_result *res)
{
    struct search s;
    struct auto_score sc;
    bool done = false;
    int rc;

    memset(res, 0, sizeof(*res));
    if ((rc = search_init(&s, g, c, tf_of, n_tf, budget_ms, seed)) != 0) {
        return rc;
    }
    memcpy(s.trial, device_of, (size_t)g->n_ops * sizeof(int32_t));
    CHECK(eval(&s, s.trial, NULL, true, &sc, &done));
    accept(&s, &sc);
    CHECK(search_run(&s));
    memcpy(device_of, s.best, (size_t)g->n_ops * sizeof(int32_t));
    res->score = s.best_score;
    res->evaluations = s.n_eval;
    res->visits = (int64_t)s.visits;
    res->improvements = s.improvements;
cleanup:
    search_release(&s);
    return rc;
}

/* ---- candidates ---- */

struct cand {
    const char *placer;
    enum placer_grouper grouper;
    bool fusion;
    bool persist; /* persistent_at_place */
};

static const char *const cand_algos[] = {"m-topo", "m-topo-nonuniform", "m-etf", "m-etf-reserve",
                                         "m-sct",  "m-sct-reserve"};

static int32_t candidates(const struct graph *g, struct cand *out)
{
    int32_t n = 0;
    bool given = false;

    for (int i = 0; i < 6; i++) {
        bool sct = strncmp(cand_algos[i], "m-sct", 5) == 0;
        for (int gr = 0; gr < 2; gr++) {
            for (int fu = 0; fu < 2; fu++) {
                /* m-SCT's LP dominates the time of the candidates (0.1-0.2 s each on
                 * GNMT): only its default and its paper-style configuration */
                if (sct && gr != fu) {
                    continue;
                }
                out[n++] = (struct cand){cand_algos[i], (enum placer_grouper)gr, fu != 0, false};
                /* m-ETF with the SoCC'20 memory rule: cheap, and it places training
                 * graphs where the default rule deadlocks */
                if (strncmp(cand_algos[i], "m-etf", 5) == 0 && gr == fu) {
                    out[n++] = (struct cand){cand_algos[i], (enum placer_grouper)gr, fu != 0, true};
                }
            }
        }
    }
    out[n++] = (struct cand){"single", PLACER_GROUPER_TF, false, false};
    out[n++] = (struct cand){"round-robin", PLACER_GROUPER_TF, false, false};
    out[n++] = (struct cand){"round-robin", PLACER_GROUPER_COPLACE, false, false};
    out[n++] = (struct cand){"random", PLACER_GROUPER_TF, false, false};
    out[n++] = (struct cand){"random", PLACER_GROUPER_COPLACE, false, false};
    for (int32_t v = 0; v < g->n_ops && !given; v++) {
        given = g->given_device[v] >= 0;
    }
    if (given) {
        out[n++] = (struct cand){"given", PLACER_GROUPER_TF, false, false};
    }
    return n;
}

static void cand_name(const struct cand *c, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s%s%s", c->placer,
             c->grouper == PLACER_GROUPER_COPLACE ? "+coplace" : "", c->fusion ? "+fusion" : "",
             c->persist ? "+persistent-at-place" : "");
}

/* Certainly infeasible, without searching: a group's persistent bytes
 * (held for the whole step on one device in both models) exceed the largest
 * device, or all persistent bytes exceed all memory. */
static int precheck(const struct search *s)
{
    const struct graph *g = s->g;
    const struct cluster *c = s->c;
    int64_t total_p = 0, total_m = 0, max_m = 0;
    int32_t max_d = 0;

    for (int32_t d = 0; d < c->n_devices; d++) {
        if (c->dev[d].mem_bytes <= 0) {
            return 0; /* unlimited */
        }
        total_m += c->dev[d].mem_bytes;
        if (c->dev[d].mem_bytes > max_m) {
            max_m = c->dev[d].mem_bytes;
            max_d = d;
        }
    }
    for (int32_t k = 0; k < s->n_tf; k++) {
        int64_t p = 0;
        for (int32_t i = s->tf_start[k]; i < s->tf_start[k + 1]; i++) {
            p += g->persist_bytes[s->tf_op[i]];
        }
        total_p += p;
        if (p > max_m) {
            return err_set(BAECHI_EINFEASIBLE,
                           "auto: no placement fits: colocation group '%s' (op '%s', %d ops) "
                           "holds %" PRId64 " persistent bytes, more than the largest device "
                           "'%s' (%" PRId64 " bytes, missing %" PRId64 " bytes)",
                           g->group_name[g->group[s->tf_op[s->tf_start[k]]]],
                           g->op_name[s->tf_op[s->tf_start[k]]],
                           (int)(s->tf_start[k + 1] - s->tf_start[k]), p, c->dev[max_d].name, max_m,
                           p - max_m);
        }
    }
    if (total_p > total_m) {
        int32_t big = 0;
        for (int32_t v = 1; v < g->n_ops; v++) {
            if (g->persist_bytes[v] > g->persist_bytes[big]) {
                big = v;
            }
        }
        return err_set(BAECHI_EINFEASIBLE,
                       "auto: no placement fits: the persistent bytes (%" PRId64
                       ") exceed the memory of all %d devices (%" PRId64 " bytes, missing %" PRId64
                       " bytes); the largest is op '%s' (%" PRId64 " bytes)",
                       total_p, (int)c->n_devices, total_m, total_p - total_m, g->op_name[big],
                       g->persist_bytes[big]);
    }
    return 0;
}

/* The message of a search that found nothing that fits. */
static int infeasible(struct search *s)
{
    const struct sim_result *r =
        s->best_score.over_timed > 0 || !s->rb_best_valid ? &s->rt_best : &s->rb_best;
    const char *model = r == &s->rt_best ? "timed" : "baechi";
    int32_t worst = 0, n_on = 0;
    int64_t worst_over = -1;
    struct mem_ctx mc = {s->tf_mem};
    char ops[512];
    size_t len = 0;

    for (int32_t d = 0; d < r->n_devices; d++) {
        int64_t o = r->dev[d].peak_bytes - r->dev[d].limit_bytes;
        if (r->dev[d].limit_bytes > 0 && o > worst_over) {
            worst_over = o;
            worst = d;
        }
    }
    ops[0] = '\0';
    for (int32_t i = 0; i < r->n_oom; i++) {
        if (r->oom[i].device == worst) {
            len += (size_t)snprintf(ops + len, sizeof(ops) - len, "'%s' (first over the limit)",
                                    s->g->op_name[r->oom[i].op]);
        }
    }
    for (int32_t k = 0; k < s->n_tf; k++) {
        if (s->best[s->tf_op[s->tf_start[k]]] == worst) {
            s->order[n_on++] = k;
        }
    }
    qsort_r(s->order, (size_t)n_on, sizeof(int32_t), cmp_mem_desc, &mc);
    for (int32_t i = 0; i < n_on && i < 5 && len < sizeof(ops) - 1; i++) {
        int32_t k = s->order[i];
        len += (size_t)snprintf(ops + len, sizeof(ops) - len, "%s'%s' (%" PRId64 " bytes)",
                                len ? ", " : "", s->g->op_name[s->tf_op[s->tf_start[k]]],
                                s->tf_mem[k]);
    }
    return err_set(BAECHI_EINFEASIBLE,
                   "auto: no placement fits: device %d '%s' needs %" PRId64
                   " bytes more than its limit of %" PRId64
                   " bytes in the %s simulation (best of %" PRId64
                   " evaluations); ops that could not fit there: %s",
                   (int)worst, s->c->dev[worst].name, worst_over, r->dev[worst].limit_bytes, model,
                   s->n_eval, ops);
}

static int add_kv(struct placement *pl, bool stat, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int add_kv(struct placement *pl, bool stat, const char *key, const char *fmt, ...)
{
    char buf[128];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    return stat ? placement_add_stat(pl, key, buf) : placement_add_option(pl, key, buf);
}

int auto_refine(const struct graph *g0, const struct cluster *c0, const struct placer_options *opt,
                struct placement *out)
{
    struct cluster cw;
    struct graph gw;
    int64_t *weights = NULL;
    int32_t *tf_of = NULL, n_tf = 0;
    struct search s;
    struct auto_score sc, start;
    bool have_s = false, have_cw = false, done = false;
    int rc = 0;

    memset(&s, 0, sizeof(s));
    CHECK(cluster_copy(&cw, c0));
    have_cw = true;
    CHECK(placer_world(&cw, opt));
    CHECK(placer_world_graph(g0, opt, &gw, &weights));
    if (!(tf_of = array_malloc((size_t)g0->n_ops + 1, sizeof(int32_t)))) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    CHECK(placer_group(g0, PLACER_GROUPER_TF, tf_of, &n_tf, NULL));
    CHECK(search_init(&s, &gw, &cw, tf_of, n_tf, opt->budget_ms, opt->seed));
    have_s = true;
    memcpy(s.trial, out->device_of, (size_t)g0->n_ops * sizeof(int32_t));
    CHECK(eval(&s, s.trial, NULL, true, &sc, &done));
    accept(&s, &sc);
    start = sc;
    CHECK(search_run(&s));
    CHECK(add_kv(out, false, "refine", "true"));
    CHECK(add_kv(out, false, "budget_ms", "%" PRId64, opt->budget_ms));
    CHECK(add_kv(out, false, "seed", "%llu", (unsigned long long)opt->seed));
    CHECK(add_kv(out, true, "refine_start_step_us", "%" PRId64,
                 auto_score_feasible(&start) ? start.step_us : -1));
    CHECK(add_kv(out, true, "refine_step_us", "%" PRId64,
                 auto_score_feasible(&s.best_score) ? s.best_score.step_us : -1));
    CHECK(add_kv(out, true, "refine_evaluations", "%" PRId64, s.n_eval));
    if (auto_score_feasible(&s.best_score)) {
        memcpy(out->device_of, s.best, (size_t)g0->n_ops * sizeof(int32_t));
    }
cleanup:
    if (have_s) {
        search_release(&s);
    }
    if (have_cw) {
        cluster_release(&cw);
    }
    free(weights);
    free(tf_of);
    return rc;
}

int auto_place(const struct graph *g0, const struct cluster *c0, const struct placer_options *opt,
               struct placement *out, struct placer_stats *st)
{
    struct cluster cw;
    struct graph gw;
    int64_t *weights = NULL;
    int32_t *tf_of = NULL, *dev = NULL, n_tf = 0, n_cand, best_cand = -1;
    struct cand cands[48];
    struct search s;
    struct auto_score start_score = {0, 0, 0, 0};
    char start_name[64] = "";
    bool have_s = false, have_cw = false, done = false;
    int rc = 0;

    memset(&s, 0, sizeof(s));
    CHECK(cluster_copy(&cw, c0));
    have_cw = true;
    CHECK(placer_world(&cw, opt));
    CHECK(placer_world_graph(g0, opt, &gw, &weights));
    tf_of = array_malloc((size_t)g0->n_ops + 1, sizeof(int32_t));
    dev = array_malloc((size_t)g0->n_ops + 1, sizeof(int32_t));
    if (!tf_of || !dev) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    CHECK(placer_group(g0, PLACER_GROUPER_TF, tf_of, &n_tf, NULL));
    CHECK(search_init(&s, &gw, &cw, tf_of, n_tf, opt->budget_ms, opt->seed));
    have_s = true;
    st->n_nodes = g0->n_ops;
    st->n_edges = g0->n_edges;
    st->n_groups = n_tf;
    CHECK(precheck(&s));

    n_cand = candidates(g0, cands);
    for (int32_t i = 0; i < n_cand; i++) {
        struct placer_options co = *opt;
        struct placement pl;
        struct placer_stats ps;
        int r;

        co.grouper = cands[i].grouper;
        co.fusion = cands[i].fusion;
        co.fusion_check_disjoint = false;
        co.persistent_at_place = cands[i].persist;
        co.refine = false;
        r = placer_run(cands[i].placer, g0, c0, &co, NULL, &pl, &ps);
        placer_stats_release(&ps);
        if (r == BAECHI_ENOMEM) {
            rc = r;
            goto cleanup;
        }
        if (r != 0) {
            continue; /* infeasible for that placer, or not applicable: others may fit */
        }
        memcpy(dev, pl.device_of, (size_t)g0->n_ops * sizeof(int32_t));
        placement_release(&pl);
        for (int variant = 0; variant < 2; variant++) {
            struct auto_score sc;

            if (variant == 1 && !sources_follow(&s, dev)) {
                break;
            }
            memcpy(s.trial, dev, (size_t)g0->n_ops * sizeof(int32_t));
            CHECK(eval(&s, s.trial, best_cand >= 0 ? &s.best_score : NULL, true, &sc, &done));
            if (best_cand < 0 || score_better(&sc, &s.best_score)) {
                accept(&s, &sc);
                best_cand = i;
                cand_name(&cands[i], start_name, sizeof(start_name));
                if (variant == 1) {
                    strncat(start_name, "+sources", sizeof(start_name) - strlen(start_name) - 1);
                }
            }
        }
    }
    if (best_cand < 0) {
        /* cannot happen (single always places), but never leave out empty */
        rc = err_set(BAECHI_EINFEASIBLE, "auto: no placer gave a placement to start from");
        goto cleanup;
    }
    start_score = s.best_score;
    CHECK(search_run(&s));
    if (!auto_score_feasible(&s.best_score)) {
        rc = infeasible(&s);
        goto cleanup;
    }
    memcpy(out->device_of, s.best, (size_t)g0->n_ops * sizeof(int32_t));
    st->estimate_us = s.best_score.step_us;
    CHECK(add_kv(out, false, "memory_fraction", "%g", opt->memory_fraction));
    CHECK(add_kv(out, false, "comm_factor", "%g", opt->comm_factor));
    CHECK(add_kv(out, false, "compute_factor", "%g", opt->compute_factor));
    CHECK(add_kv(out, false, "devices", "%d", (int)cw.n_devices));
    CHECK(add_kv(out, false, "budget_ms", "%" PRId64, opt->budget_ms));
    CHECK(add_kv(out, false, "seed", "%llu", (unsigned long long)opt->seed));
    CHECK(add_kv(out, true, "estimate_us", "%" PRId64, s.best_score.step_us));
    CHECK(add_kv(out, true, "baechi_step_us", "%" PRId64, s.best_score.baechi_step_us));
    CHECK(add_kv(out, true, "start", "%s", start_name));
    CHECK(add_kv(out, true, "start_step_us", "%" PRId64,
                 auto_score_feasible(&start_score) ? start_score.step_us : -1));
    CHECK(add_kv(out, true, "evaluations", "%" PRId64, s.n_eval));
    CHECK(add_kv(out, true, "improvements", "%d", (int)s.improvements));
    CHECK(add_kv(out, true, "nodes", "%d", (int)g0->n_ops));
    CHECK(add_kv(out, true, "groups", "%d", (int)n_tf));
cleanup:
    if (have_s) {
        search_release(&s);
    }
    if (have_cw) {
        cluster_release(&cw);
    }
    free(weights);
    free(tf_of);
    free(dev);
    return rc;
}
