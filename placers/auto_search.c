/*
 * auto_search.c - the search of the `auto` placer (auto_internal.h): its
 * state, its moves (a colocation group to a device, a coplace group to a
 * device, a swap of two groups) and the local search along the critical
 * path of the timed simulation (the moves each round draws from the path
 * and the queued links: auto_search_moves.c), first improvement, then seeded random moves
 * until a stall or the budget ends.  A move is kept only when it is
 * strictly better, so the result is never worse than the start.
 *
 * Each round of guided moves (beyond the original, issue 22 item 7):
 *   - link moves first: for each transfer on the critical path that waited
 *     for its channel, the transfers of the channel's busy period before it
 *     (the timed model's channels replayed from the best run's op ends),
 *     longest first; each one's consumer to its producer's device and its
 *     producer to its consumer's.  On GNMT a 61 MB weight sent first holds
 *     gpu0's send engine for 10.9 ms while the path's tensors queue behind
 *     it: no op on the path is the cause, so the path moves never move it;
 *   - then the path moves, shuffled;
 *   - the moves that have never failed before go first, then those that
 *     failed longest ago (a hashed memory of failed moves): a move that
 *     failed from a state near the current one most likely fails again.
 * GNMT forward at the default budget, seeds 1-16: mean 97.95 ms before,
 * 91.04 ms with both (docs/auto.md, "The search since issue 22 item 7").
 *
 * Then, once the best fits (issue 22 item 5), the delta screen
 * (auto_screen.c) estimates every other move of the round and the round
 * simulates them in that order, the never-failed first; a random round
 * draws AUTO_SCREEN_RANDOM_MULT times as many moves and orders them the
 * same way.  The simulators judge every move kept.  GNMT forward, seeds
 * 1-16: mean 89.2 ms (docs/auto.md, "The delta screen"). */
#include "placers/auto_internal.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/rng.h"
#include "sim/sim.h"
#include "sim/sim_incr.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Uniform in [0, n) from the search's sequence; draws nothing when n <= 1. */
int32_t auto_rnd(struct auto_ctx *s, int32_t n)
{
    return n <= 1 ? 0 : (int32_t)(rng_next(&s->rng) % (uint64_t)n);
}

/* CSR of members from a group map. */
static int members(int32_t n_ops, const int32_t *of, int32_t n_groups, int32_t **start,
                   int32_t **op)
{
    int32_t *st = mem_calloc((size_t)n_groups + 2, sizeof(int32_t));
    int32_t *ops = mem_alloc_array((size_t)n_ops + 1, sizeof(int32_t));

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

void auto_ctx_release(struct auto_ctx *s)
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
    free(s->trial_ops);
    free(s->order);
    free(s->prev_on_dev);
    free(s->moves);
    free(s->failed);
    free(s->targets);
    free(s->src_group);
    free(s->src_to);
    free(s->sums_best);
    free(s->sums_trial);
    sim_result_release(&s->rt_best);
    sim_result_release(&s->rb_best);
    sim_result_release(&s->rt_trial);
    sim_result_release(&s->rb_trial);
    sim_result_release(&s->rt_check);
    sim_incr_free(s->incr);
    auto_screen_free(s->screen);
    memset(s, 0, sizeof(*s));
}

int auto_ctx_init(struct auto_ctx *s, const struct graph *g, const struct cluster *c,
                  const int32_t *tf_of, int32_t n_tf, int64_t budget_ms, uint64_t seed)
{
    int32_t n = g->n_ops;
    int rc = 0;

    memset(s, 0, sizeof(*s));
    sim_result_init(&s->rt_best);
    sim_result_init(&s->rb_best);
    sim_result_init(&s->rt_trial);
    sim_result_init(&s->rb_trial);
    sim_result_init(&s->rt_check);
    s->g = g;
    s->c = c;
    s->n_ops = n;
    s->n_dev = c->n_devices;
    s->tf_of = tf_of;
    s->n_tf = n_tf;
    s->budget = budget_ms > 0 ? (uint64_t)budget_ms * AUTO_VISITS_PER_MS : 0;
    s->cost = (uint64_t)n + (uint64_t)g->n_edges + 1;
    s->rng = seed ^ AUTO_SEED_MIX;
    s->use_incr = true;
    s->link_moves = true;
    s->remember_failed = true;
    /* not with collectives (their ranks run on the links) nor micro-batches
     * (the pipeline schedule follows the placement, so the best's order of
     * ops is no guide: GPT-2.7B with 8 micro-batches 871.8 -> 878.4 ms) */
    s->use_screen = g->n_coll == 0 && !g->micro_batch;
    s->co_of = mem_alloc_array((size_t)n + 1, sizeof(int32_t));
    s->tf_mem = mem_calloc((size_t)n_tf + 1, sizeof(int64_t));
    s->edge_bytes = mem_calloc((size_t)g->n_edges + 1, sizeof(int64_t));
    s->best = mem_alloc_array((size_t)n + 1, sizeof(int32_t));
    s->trial = mem_alloc_array((size_t)n + 1, sizeof(int32_t));
    s->trial_ops = mem_alloc_array((size_t)n + 1, sizeof(int32_t));
    s->order = mem_alloc_array((size_t)n + 1, sizeof(int32_t));
    s->prev_on_dev = mem_alloc_array((size_t)n + 1, sizeof(int32_t));
    s->cap_moves = AUTO_MAX_MOVES;
    s->moves = mem_alloc_array((size_t)s->cap_moves, sizeof(struct auto_move));
    s->failed = mem_calloc(AUTO_FAILED_SLOTS, sizeof(struct auto_failed));
    s->targets = mem_alloc_array((size_t)s->n_dev + 1, sizeof(int32_t));
    s->sums_best = mem_calloc(2 * (size_t)s->n_dev + 1, sizeof(int64_t));
    s->sums_trial = mem_calloc(2 * (size_t)s->n_dev + 1, sizeof(int64_t));
    if (!s->sums_best || !s->sums_trial || !s->co_of || !s->tf_mem || !s->edge_bytes || !s->best ||
        !s->trial || !s->trial_ops || !s->order || !s->prev_on_dev || !s->moves || !s->failed ||
        !s->targets) {
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
    CHECK(auto_find_sources(s));
    return 0;
cleanup:
    auto_ctx_release(s);
    return rc;
}

void auto_add_move(struct auto_ctx *s, enum auto_move_kind kind, int32_t a, int32_t b)
{
    if (s->n_moves < s->cap_moves) { /* else enough to try before regenerating */
        s->moves[s->n_moves++] = (struct auto_move){(int32_t)kind, a, b};
    }
}

static int cmp_move(const void *x, const void *y)
{
    const struct auto_move *p = x, *q = y;

    if (p->kind != q->kind) {
        return p->kind < q->kind ? -1 : 1;
    }
    if (p->a != q->a) {
        return p->a < q->a ? -1 : 1;
    }
    return p->b < q->b ? -1 : p->b > q->b;
}

/* Drops repeated moves from..n_moves-1 (sorted; shuffled afterwards). */
static void unique_moves(struct auto_ctx *s, int32_t from)
{
    int32_t n = from;

    qsort(s->moves + from, (size_t)(s->n_moves - from), sizeof(struct auto_move), cmp_move);
    for (int32_t i = from; i < s->n_moves; i++) {
        if (n == from || cmp_move(&s->moves[n - 1], &s->moves[i]) != 0) {
            s->moves[n++] = s->moves[i];
        }
    }
    s->n_moves = n;
}

/* Sets trial[v] = d, remembering v. */
static void trial_set(struct auto_ctx *s, int32_t v, int32_t d)
{
    s->trial[v] = d;
    s->trial_ops[s->n_trial_ops++] = v;
}

/* Applies m to the best placement, into trial; false when nothing changes.
 * Only the ops the last move changed are reset from the best (a copy of
 * the whole placement per move was 12 % of GNMT's search). */
static bool apply(struct auto_ctx *s, const struct auto_move *m)
{
    bool changed = false;

    if (s->trial_known) {
        for (int32_t i = 0; i < s->n_trial_ops; i++) {
            s->trial[s->trial_ops[i]] = s->best[s->trial_ops[i]];
        }
    } else {
        memcpy(s->trial, s->best, (size_t)s->n_ops * sizeof(int32_t));
    }
    s->trial_known = true;
    s->n_trial_ops = 0;
    if (m->kind == AUTO_MV_TF || m->kind == AUTO_MV_CO) {
        const int32_t *st = m->kind == AUTO_MV_TF ? s->tf_start : s->co_start;
        const int32_t *op = m->kind == AUTO_MV_TF ? s->tf_op : s->co_op;
        for (int32_t i = st[m->a]; i < st[m->a + 1]; i++) {
            changed |= s->trial[op[i]] != m->b;
            trial_set(s, op[i], m->b);
        }
    } else {
        int32_t da = s->best[s->tf_op[s->tf_start[m->a]]];
        int32_t db = s->best[s->tf_op[s->tf_start[m->b]]];
        if (da == db) {
            return false;
        }
        for (int32_t i = s->tf_start[m->a]; i < s->tf_start[m->a + 1]; i++) {
            trial_set(s, s->tf_op[i], db);
        }
        for (int32_t i = s->tf_start[m->b]; i < s->tf_start[m->b + 1]; i++) {
            trial_set(s, s->tf_op[i], da);
        }
        changed = true;
    }
    return changed;
}

/* ---- the memory of failed moves ---- */

static struct auto_failed *failed_slot(struct auto_ctx *s, const struct auto_move *m)
{
    uint64_t h = ((uint64_t)(uint32_t)m->a * 0x9e3779b97f4a7c15ULL) ^
                 ((uint64_t)(uint32_t)m->b * 0xc2b2ae3d27d4eb4fULL) ^ (uint64_t)m->kind;

    h ^= h >> 29;
    return &s->failed[h & (AUTO_FAILED_SLOTS - 1)];
}

/* The round move m last failed in, 0 when never (or forgotten). */
static int64_t failed_round(struct auto_ctx *s, const struct auto_move *m)
{
    const struct auto_failed *f = failed_slot(s, m);

    return f->round > 0 && cmp_move(&f->m, m) == 0 ? f->round : 0;
}

static void failed_note(struct auto_ctx *s, const struct auto_move *m)
{
    struct auto_failed *f = failed_slot(s, m);

    f->m = *m;
    f->round = s->n_rounds;
}

/* A move with the round it last failed in (0: never) and, when screened,
 * its estimated step: the order of a round (failed_last, screen_moves). */
struct ranked {
    int64_t round, step_us;
    int32_t pos;
    struct auto_move m;
};

static int cmp_ranked(const void *x, const void *y)
{
    const struct ranked *p = x, *q = y;

    if (p->round != q->round) {
        return p->round < q->round ? -1 : 1;
    }
    if (p->step_us != q->step_us) {
        return p->step_us < q->step_us ? -1 : 1;
    }
    return p->pos < q->pos ? -1 : p->pos > q->pos;
}

/* The moves that never failed first, then those that failed longest ago,
 * each in the order they had: a move that failed from a state near the
 * current one most likely fails again (local search's "don't look bits").
 * Adds to *n_link_new how many of the first n_link moves (the link moves)
 * never failed: they stay at the front. */
static int failed_last(struct auto_ctx *s, int32_t n_link, int32_t *n_link_new)
{
    struct ranked *r = mem_alloc_array((size_t)s->n_moves + 1, sizeof(struct ranked));

    if (!r) {
        return BAECHI_ENOMEM;
    }
    for (int32_t i = 0; i < s->n_moves; i++) {
        r[i] = (struct ranked){failed_round(s, &s->moves[i]), 0, i, s->moves[i]};
        *n_link_new += i < n_link && r[i].round == 0;
    }
    qsort(r, (size_t)s->n_moves, sizeof(struct ranked), cmp_ranked);
    for (int32_t i = 0; i < s->n_moves; i++) {
        s->moves[i] = r[i].m;
    }
    free(r);
    return 0;
}

/* Moves from..n_moves-1 without repeats, in a seeded random order. */
static void shuffle_moves(struct auto_ctx *s, int32_t from)
{
    unique_moves(s, from);
    for (int32_t i = s->n_moves - 1; i > from; i--) {
        int32_t j = from + auto_rnd(s, i - from + 1);
        struct auto_move t = s->moves[i];
        s->moves[i] = s->moves[j];
        s->moves[j] = t;
    }
}

/* Debug (s->check_prune): the pruned trial in full, which must not be better. */
static int check_pruned(struct auto_ctx *s, bool *done)
{
    struct auto_score sc;
    uint64_t visits = s->visits;
    int64_t n_eval = s->n_eval;
    struct sim_incr *incr = s->incr;
    int rc;

    s->incr = NULL; /* a full simulation, whatever the search uses */
    rc = auto_eval(s, s->trial, &s->best_score, true, &sc, done);
    s->incr = incr;
    if (rc != 0) {
        return rc;
    }
    s->visits = visits; /* the check is free: the search runs as without it */
    s->n_eval = n_eval;
    s->n_prune_checked++;
    s->n_prune_wrong += auto_score_better(&sc, &s->best_score);
    return 0;
}

/* Move m (applied into s->trial) certainly no better, by auto_prune: noted
 * as failed, and in full too under s->check_prune. */
static int pruned(struct auto_ctx *s, const struct auto_move *m, bool *is_pruned, bool *done)
{
    *is_pruned = auto_prune(s, m);
    if (!*is_pruned) {
        return 0;
    }
    /* one visit, so that the budget still ends a search of pruned moves */
    s->visits++;
    s->n_pruned++;
    failed_note(s, m);
    return s->check_prune ? check_pruned(s, done) : 0;
}

/* Debug (s->check_screen): the screened trial's estimate against the
 * model's step from scratch. */
static int check_screen(struct auto_ctx *s, int64_t est, enum auto_screen_kind kind)
{
    int64_t full;
    int rc;

    if ((rc = auto_screen_full(s, &full)) != 0) {
        return rc;
    }
    s->n_screen_checked++;
    s->n_screen_above += kind != AUTO_SCREEN_GUESS && est > full;
    s->n_screen_exact += kind == AUTO_SCREEN_EXACT;
    s->n_screen_mismatch += kind == AUTO_SCREEN_EXACT && est != full;
    return 0;
}

/*
 * The delta screen (auto_screen.c) over moves from..n_moves-1: the moves
 * that change nothing or are pruned leave the list, the others are
 * ordered by when they last failed (never first, as failed_last), then by
 * their estimated step, then as they were.  Each screened move counts in
 * s->n_screened and its visits (its moved ops' edges, about 5 on GNMT
 * forward, where the whole screening of a move costs about 2,600
 * instructions, 6 simulated visits) in the budget.
 */
static int screen_moves(struct auto_ctx *s, int32_t from, bool *done)
{
    struct ranked *r = mem_alloc_array((size_t)s->n_moves + 1, sizeof(struct ranked));
    uint64_t vis = 0;
    int32_t n = 0;
    int rc = 0;

    if (!r) {
        return BAECHI_ENOMEM;
    }
    if (s->visits >= s->budget) { /* nothing could be simulated */
        *done = true;
        goto cleanup;
    }
    if (s->screen_stale) {
        s->visits += auto_screen_base(s);
        s->screen_stale = false;
    }
    for (int32_t i = from; i < s->n_moves; i++) {
        const struct auto_move *m = &s->moves[i];
        enum auto_screen_kind kind;
        bool is_pruned;

        if (!apply(s, m)) {
            continue;
        }
        if ((rc = pruned(s, m, &is_pruned, done)) != 0) {
            goto cleanup;
        }
        if (is_pruned) {
            continue;
        }
        r[n] = (struct ranked){failed_round(s, m), auto_screen_estimate(s, m, &kind, &vis), i, *m};
        if (s->check_screen && (rc = check_screen(s, r[n].step_us, kind)) != 0) {
            goto cleanup;
        }
        n++;
    }
    s->n_screened += n;
    s->visits += vis;
    qsort(r, (size_t)n, sizeof(struct ranked), cmp_ranked);
    for (int32_t i = 0; i < n; i++) {
        s->moves[from + i] = r[i].m;
    }
    s->n_moves = from + n;
cleanup:
    free(r);
    return rc;
}

/* Tries moves 0..to-1 in order; *improved on the first that is better;
 * *n_sims the moves simulated. */
static int try_moves(struct auto_ctx *s, int32_t to, bool *improved, int32_t *n_sims, bool *done)
{
    int rc;

    *improved = false;
    *n_sims = 0;
    for (int32_t i = 0; i < to && !*done; i++) {
        struct auto_score sc;
        bool is_pruned;

        if (!apply(s, &s->moves[i])) {
            continue;
        }
        if ((rc = pruned(s, &s->moves[i], &is_pruned, done)) != 0) {
            return rc;
        }
        if (is_pruned) {
            continue;
        }
        if ((rc = auto_eval(s, s->trial, &s->best_score, false, &sc, done)) != 0) {
            return rc;
        }
        (*n_sims)++;
        if (!*done && auto_score_better(&sc, &s->best_score)) {
            if ((rc = auto_accept(s, &sc)) != 0) {
                return rc;
            }
            s->improvements++;
            *improved = true;
            return 0;
        }
        if (!*done) {
            failed_note(s, &s->moves[i]);
        }
    }
    return 0;
}

/* Whether this round's moves go through the delta screen. */
static int screen_on(struct auto_ctx *s, bool *on)
{
    int rc;

    *on = s->use_screen && auto_score_feasible(&s->best_score);
    if (*on && !s->screen) {
        if ((rc = auto_screen_new(s, &s->screen)) != 0) {
            return rc;
        }
        s->screen_stale = true;
    }
    return 0;
}

int auto_search_run(struct auto_ctx *s)
{
    bool done = false, improved, screened;
    int32_t stall = 0, stall_limit = AUTO_STALL_MIN_MOVES, n_sims;
    bool exhausted = false; /* the guided moves of the current best all failed */
    int rc;

    if ((rc = auto_incr_start(s)) != 0) {
        return rc;
    }
    if ((int64_t)s->n_tf * AUTO_STALL_MOVES_PER_GROUP > AUTO_STALL_MIN_MOVES) {
        stall_limit = s->n_tf * AUTO_STALL_MOVES_PER_GROUP;
    }
    while (!done) {
        if (!exhausted) {
            int32_t from = 0, n_link = 0;

            s->n_moves = 0;
            if (!auto_score_feasible(&s->best_score)) {
                auto_repair_moves(s);
            } else {
                if (s->link_moves && (rc = auto_link_moves(s)) != 0) {
                    return rc;
                }
                from = s->n_moves; /* the link moves first, in their order */
                auto_path_moves(s);
            }
            shuffle_moves(s, from);
            s->n_rounds++;
            if (s->remember_failed && (rc = failed_last(s, from, &n_link)) != 0) {
                return rc;
            }
            if ((rc = screen_on(s, &screened)) != 0) {
                return rc;
            }
            /* the link moves that never failed stay first, in their order:
             * the screen does not see the queues they relieve */
            if ((screened && (rc = screen_moves(s, n_link, &done)) != 0) ||
                (rc = try_moves(s, s->n_moves, &improved, &n_sims, &done)) != 0) {
                return rc;
            }
            if (improved) {
                stall = 0;
                continue;
            }
            exhausted = true; /* the same state gives the same moves: do not retry them */
        }
        /* a local optimum of the guided moves: seeded random moves */
        if ((rc = screen_on(s, &screened)) != 0) {
            return rc;
        }
        s->n_moves = 0;
        for (int32_t i = 0; i < AUTO_RANDOM_MOVES * (screened ? AUTO_SCREEN_RANDOM_MULT : 1); i++) {
            int32_t k = auto_rnd(s, s->n_tf);
            if (auto_rnd(s, AUTO_RANDOM_SWAP_ONE_IN) == 0) {
                auto_add_move(s, AUTO_MV_SWAP, k, auto_rnd(s, s->n_tf));
            } else {
                auto_add_move(s, AUTO_MV_TF, k, auto_rnd(s, s->n_dev));
            }
        }
        if ((screened && (rc = screen_moves(s, 0, &done)) != 0) ||
            (rc = try_moves(s, s->n_moves, &improved, &n_sims, &done)) != 0) {
            return rc;
        }
        if (improved) {
            stall = 0;
            exhausted = false;
        } else if ((stall += screened ? n_sims : s->n_moves) >= stall_limit) {
            break; /* screened: the moves simulated; else the moves drawn */
        }
    }
    return 0;
}

int auto_search(const struct graph *g, const struct cluster *c, const int32_t *tf_of, int32_t n_tf,
                int64_t budget_ms, uint64_t seed, int32_t *device_of, struct auto_result *res)
{
    struct auto_ctx s;
    int rc;

    memset(res, 0, sizeof(*res));
    if ((rc = auto_ctx_init(&s, g, c, tf_of, n_tf, budget_ms, seed)) != 0) {
        return rc;
    }
    CHECK(auto_start_from(&s, device_of));
    CHECK(auto_search_run(&s));
    memcpy(device_of, s.best, (size_t)g->n_ops * sizeof(int32_t));
    res->score = s.best_score;
    res->evaluations = s.n_eval;
    res->visits = (int64_t)s.visits;
    res->improvements = s.improvements;
cleanup:
    auto_ctx_release(&s);
    return rc;
}
