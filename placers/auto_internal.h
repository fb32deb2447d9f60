/*
 * auto_internal.h - the `auto` placer's parts and what its unit tests drive
 * one by one: the search from a given placement (repair of an overflow,
 * then local search over colocation groups) with the simulators as the
 * judge.  The parts:
 *
 *   auto.c              entry points: auto_place, auto_refine
 *   auto_candidates.c   every other placer as a starting point; cheap sources
 *   auto_judge.c        both simulators as the score; the infeasibility messages
 *   auto_repair.c       moves that take groups off an overflowing device
 *   auto_search.c       the search state, its moves and the local search
 *   auto_search_moves.c the moves of a round: the critical path, the links
 *   auto_screen.c       the delta screen: a cheap estimate of a move's step
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_PLACERS_AUTO_INTERNAL_H
#define BAECHI_PLACERS_AUTO_INTERNAL_H

#include "core/cluster.h"
#include "core/graph.h"
#include "core/placement.h"
#include "placers/placer_options.h"
#include "sim/sim.h"

#include <stdbool.h>
#include <stdint.h>

/*
 * One unit of --budget-ms is AUTO_VISITS_PER_MS simulated op-and-edge
 * visits: an evaluation of a placement (one simulation with either model)
 * costs n_ops + n_edges visits.  About 1 ms of one core of the development
 * machine (a 2020s x86 server core), so the budget reads as milliseconds,
 * but it counts work, not wall time: results do not depend on machine load.
 */
#define AUTO_VISITS_PER_MS 20000

/* auto searches at most this many devices (auto.c, "Devices"): its
 * simulations hold devices x devices arrays (docs/limits.md). */
#define AUTO_MAX_DEVICES 1024

/*
 * The search's limits.  Each bounds the work of one step (the moves
 * generated before any is tried) or the length of the search; none bounds
 * an input size.  The values are those the benchmark (`baechi bench
 * placement`) was tuned with: changing one changes placements.
 */
enum {
    /* moves generated per round; a round stops at its first improvement, so
     * more would rarely be tried before the moves are regenerated */
    AUTO_MAX_MOVES = 2048,
    /* repair: the largest groups of the overflowing device, each tried on
     * every other device ... */
    AUTO_REPAIR_LARGE_GROUPS = 8,
    /* ... then the next ones (up to this rank) on the device with the most room */
    AUTO_REPAIR_MAX_GROUPS = 64,
    /* ... and swaps of a large group with one of the smallest groups of the
     * devices with the most room: how many devices, how many small groups */
    AUTO_REPAIR_SWAP_DEVICES = 2,
    AUTO_REPAIR_SWAP_SMALL_GROUPS = 4,
    /* random moves per round once the guided moves are exhausted */
    AUTO_RANDOM_MOVES = 16,
    /* one random move in this many is a swap (else a group to a device) */
    AUTO_RANDOM_SWAP_ONE_IN = 3,
    /* a device-bound op on the critical path is tried on each device other
     * than the least busy one with a chance of one in this many */
    AUTO_PATH_SPREAD_ONE_IN = 4,
    /* the search stops after this many moves without improvement (at
     * least), or AUTO_STALL_MOVES_PER_GROUP per colocation group when more */
    AUTO_STALL_MIN_MOVES = 256,
    AUTO_STALL_MOVES_PER_GROUP = 4,
    /* link moves (auto_search_moves.c): per queued transfer of the critical path,
     * the transfers that held it up longest, looked for this far back */
    AUTO_LINK_BLOCKERS = 8,
    AUTO_LINK_SCAN = 512,
    /* moves remembered as failed (a power of two; older entries are
     * overwritten on a collision) */
    AUTO_FAILED_SLOTS = 1 << 14,
    /* the delta screen (auto_screen.c): its heads and tails of a new best
     * are charged (ops + edges) / AUTO_SCREEN_BASE_DIV visits (GNMT
     * forward: 1.4 M instructions, a simulated visit about 400) */
    AUTO_SCREEN_BASE_DIV = 2,
    /* a screened random round draws this many times AUTO_RANDOM_MOVES
     * moves and simulates them best estimate first */
    AUTO_SCREEN_RANDOM_MULT = 8,
    /* groups named in the message of an infeasible search */
    AUTO_MSG_GROUPS = 5,
    /* a candidate's name: placer, grouper, fusion, persistent-at-place and
     * "+sources" (the longest is 60 characters) */
    AUTO_NAME_SIZE = 64,
    /* the m-SCT candidates' LPs together get at most 1/AUTO_LP_BUDGET_DIV
     * of the budget (auto_candidates.c) */
    AUTO_LP_BUDGET_DIV = 2,
};

/* The seed is mixed with the first 64 bits of the fractional part of
 * sqrt(2) (SHA-512's first initial value), so that seed 0 is not the state 0. */
#define AUTO_SEED_MIX 0x6a09e667f3bcc909ULL

/* The score of a placement: overflow first (bytes over the limits, summed
 * over devices; the timed model, then the baechi model), then the timed step. */
struct auto_score {
    int64_t over_timed;  /* Σ max(0, peak - limit) in the timed model */
    int64_t over_baechi; /* same in the baechi model; INT64_MAX when not simulated */
    int64_t step_us;     /* timed step */
    int64_t baechi_step_us;
};

static inline bool auto_score_feasible(const struct auto_score *s)
{
    return s->over_timed == 0 && s->over_baechi == 0;
}

struct auto_result {
    struct auto_score score;
    int64_t evaluations; /* simulations run (both models counted) */
    int64_t visits;      /* op-and-edge visits spent */
    int32_t improvements;
    /* the candidates' LPs: simplex iterations charged to the budget (one
     * costs `cost` visits, as a simulation), m-SCT candidates skipped */
    int64_t lp_iterations;
    int32_t n_skipped;
};

/*
 * Searches from placement device_of (n_ops entries, changed in place to the
 * best placement found) of world graph g on world cluster c (memory limits
 * as the simulators see them), with colocation groups tf_of (n_tf groups;
 * every move keeps each group on one device), a budget in AUTO_VISITS_PER_MS
 * units and a seed.  Returns 0 (the result in *res, feasible or not; see
 * auto_score_feasible) or BAECHI_ENOMEM / BAECHI_EINVAL.
 */
int auto_search(const struct graph *g, const struct cluster *c, const int32_t *tf_of, int32_t n_tf,
                int64_t budget_ms, uint64_t seed, int32_t *device_of, struct auto_result *res);

/*
 * The `auto` placer: runs the other placers (with and without coplace and
 * fusion) on g0 / c0 under opt, starts from the best feasible result (by the
 * simulators, on the world of opt), repairs overflows, improves by local
 * search.  Fills out->device_of (out initialised by the caller), records
 * options and statistics in out, and st->estimate_us (the timed step).
 * BAECHI_EINFEASIBLE when nothing fits (the message names the device, the
 * bytes and the ops).
 */
int auto_place(const struct graph *g0, const struct cluster *c0, const struct placer_options *opt,
               struct placement *out, struct placer_stats *st);

/*
 * --refine for the other placers: the repair and local search of auto_place
 * from the placement in out (made by placer_run under opt), on the world of
 * opt.  out->device_of is replaced only by a placement that fits in both
 * models and is strictly faster (or fits where the original did not);
 * options and statistics `refine`, `refine_start_step_us`,
 * `refine_step_us` and `refine_evaluations` are added to out.
 */
int auto_refine(const struct graph *g0, const struct cluster *c0, const struct placer_options *opt,
                struct placement *out);

/* ---- the parts (not for the tests) ---- */

enum auto_move_kind { AUTO_MV_TF, AUTO_MV_CO, AUTO_MV_SWAP };

struct auto_move {
    int32_t kind; /* enum auto_move_kind */
    int32_t a, b; /* TF / CO: group a to device b; SWAP: tf groups a and b */
};

struct auto_screen; /* auto_screen.c */

struct auto_failed {
    struct auto_move m;
    int64_t round; /* the round it failed in, from 1 */
};

/* The state of one search (auto_search.c): the world, the groups, the best
 * placement and its simulations, the trial and the moves of a round. */
struct auto_ctx {
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
    uint64_t rng; /* splitmix64 state (core/rng.h) */
    int32_t *best, *trial, *order, *prev_on_dev;
    /* with trial_known, trial equals best but for the ops trial_ops[0 ..
     * n_trial_ops-1] (a move's, auto_search.c: apply); whoever writes
     * trial otherwise clears trial_known */
    int32_t *trial_ops, n_trial_ops;
    bool trial_known;
    int32_t *targets;                   /* n_dev: repair's target devices, scratch */
    int32_t *src_group, *src_to, n_src; /* cheap source groups and their first consumer op */
    struct auto_score best_score;
    struct sim_result rt_best, rb_best, rt_trial, rb_trial;
    bool rb_best_valid, rb_trial_valid;
    struct auto_move *moves;
    int32_t n_moves, cap_moves;
    /* when each move last failed (AUTO_FAILED_SLOTS, hashed; 0 = never):
     * a round tries the moves that have not failed first */
    struct auto_failed *failed;
    int64_t n_rounds;
    int32_t improvements;
    /* the candidates' LPs: simplex iterations charged to the budget (one
     * costs `cost` visits, as a simulation), m-SCT candidates skipped */
    int64_t lp_iterations;
    int32_t n_skipped;
    /* the search's trials resume the best's timed run (sim/sim_incr.h);
     * NULL before the search, or for a graph it does not support */
    struct sim_incr *incr;
    struct sim_result rt_check; /* a full run of an accepted move */
    /* debug (the tests): also simulate every trial in full and compare;
     * every accepted move is compared anyway (its full run is the next base) */
    bool check_incr;
    /* the trials resume from the base's checkpoints (on: auto_search.c sets
     * it; the tests turn it off to compare with full runs) */
    bool use_incr;
    /* the link moves (auto_search_moves.c; on by default, off in the test that
     * shows what they find) */
    bool link_moves;
    /* order each round's moves by when they last failed (on by default) */
    bool remember_failed;
    int64_t n_checked, n_mismatch;
    /* pruning (auto_prune): per device, Σ compute of its ops and Σ their
     * persistent bytes in the best placement and in the trial (2 * n_dev:
     * loads, then bytes) */
    int64_t *sums_best, *sums_trial;
    int64_t n_pruned;
    /* debug (the tests): simulate every pruned move too and count those a
     * full evaluation would have kept (never seen: the tests count them) */
    bool check_prune;
    int64_t n_prune_checked, n_prune_wrong;
    /* the delta screen (auto_screen.c): on by default where the best fits
     * (not with collectives or micro-batches: auto_ctx_init);
     * rebuilt from the best before the next screened round when stale */
    struct auto_screen *screen;
    bool use_screen, screen_stale;
    int64_t n_screened;
    /* debug (the tests): each screened move's estimate also computed from
     * scratch (auto_screen_full): how many compared, how many of one op
     * (lower bounds or exact) it exceeds, how many exact, how many of those
     * differ */
    bool check_screen;
    int64_t n_screen_checked, n_screen_above, n_screen_exact, n_screen_mismatch;
};

/* auto_search.c: the state for world g / c (kept by pointer) and tf groups
 * tf_of (n_tf); released on failure.  BAECHI_ENOMEM. */
int auto_ctx_init(struct auto_ctx *s, const struct graph *g, const struct cluster *c,
                  const int32_t *tf_of, int32_t n_tf, int64_t budget_ms, uint64_t seed);
void auto_ctx_release(struct auto_ctx *s);
/* Adds a move to the round (dropped when AUTO_MAX_MOVES are there). */
void auto_add_move(struct auto_ctx *s, enum auto_move_kind kind, int32_t a, int32_t b);
/* Repair, then local search from s->best until a stall or the budget ends. */
int auto_search_run(struct auto_ctx *s);
/* Uniform in [0, n) from the search's sequence; draws nothing when n <= 1. */
int32_t auto_rnd(struct auto_ctx *s, int32_t n);

/* auto_search_moves.c: the round's moves along the critical path of
 * s->rt_best, shuffled; the link moves, each blocker of a queued transfer
 * of that path to the other end's device (BAECHI_ENOMEM). */
void auto_path_moves(struct auto_ctx *s);
int auto_link_moves(struct auto_ctx *s);

/* auto_screen.c */
/* The screen's state for s (sizes of s); BAECHI_ENOMEM. */
int auto_screen_new(const struct auto_ctx *s, struct auto_screen **out);
void auto_screen_free(struct auto_screen *x);
/* The model's heads and tails of the best placement (s->best, its timed
 * run s->rt_best); returns the visits it cost. */
uint64_t auto_screen_base(struct auto_ctx *s);
/* What an estimate is in the screen's model (auto_screen.c). */
enum auto_screen_kind {
    AUTO_SCREEN_GUESS, /* several ops moved */
    AUTO_SCREEN_LOWER, /* one op moved, on a longest path of the best: a lower bound */
    AUTO_SCREEN_EXACT, /* one op moved, on no longest path: the model's step */
};
/*
 * The estimated step of s->trial (move m applied to s->best) and *kind;
 * adds its visits to *visits.
 */
int64_t auto_screen_estimate(struct auto_ctx *s, const struct auto_move *m,
                             enum auto_screen_kind *kind, uint64_t *visits);
/* The best's step in the model. */
int64_t auto_screen_step(const struct auto_ctx *s);
/* Debug (the tests): the model's step of s->trial, from scratch, into
 * *step_us.  BAECHI_ENOMEM. */
int auto_screen_full(const struct auto_ctx *s, int64_t *step_us);

/* auto_judge.c */
bool auto_score_better(const struct auto_score *a, const struct auto_score *b);
/*
 * Simulates placement dev: the timed model, then (only when the timed model
 * fits and the placement could beat `best`, NULL for none) the baechi model.
 * Unless `force`, stops with *done when the budget cannot pay for it.
 */
int auto_eval(struct auto_ctx *s, const int32_t *dev, const struct auto_score *best, bool force,
              struct auto_score *out, bool *done);
/* The trial becomes the best (its simulations too); with s->incr, its full
 * timed run becomes the base of the next trials.  0 or BAECHI_ENOMEM. */
int auto_accept(struct auto_ctx *s, const struct auto_score *sc);
/* Starts the incremental trials from s->best (when the graph allows). */
int auto_incr_start(struct auto_ctx *s);
/*
 * Whether the trial (s->trial: move m applied to s->best) certainly scores
 * no better than the best, by bounds that need no simulation: the trial's
 * persistent bytes on a device (held all step in both models) already over
 * its limit (or, when the best overflows too, Σ over devices of that
 * excess >= the best's overflow), or, when the best fits, a device's Σ
 * compute (it runs its ops one at a time) >= the best's step.  Exact: a
 * pruned move is one a full evaluation would reject.  Fills s->sums_trial.
 */
bool auto_prune(struct auto_ctx *s, const struct auto_move *m);
/* s->sums_best from s->best (after each accept). */
void auto_sums_best(struct auto_ctx *s);
/* Sets s->trial to dev, simulates it (forced) and makes it the best. */
int auto_start_from(struct auto_ctx *s, const int32_t *dev);
/* BAECHI_EINFEASIBLE with a message when no placement can fit (persistent
 * bytes alone), else 0. */
int auto_precheck(const struct auto_ctx *s);
/* BAECHI_EINFEASIBLE with the message of a search that found nothing that fits. */
int auto_infeasible(struct auto_ctx *s);

/* auto_repair.c */
/* qsort_r comparator of tf group ids by arg's (const int64_t *) bytes,
 * largest first, then by id. */
int auto_cmp_mem_desc(const void *a, const void *b, void *arg);
/* Moves that take groups off the device that overflows most in s->best. */
void auto_repair_moves(struct auto_ctx *s);

/* auto_candidates.c */
/* The cheap source groups of s (see the file). */
int auto_find_sources(struct auto_ctx *s);
/* The cheap sources next to their consumer in dev; whether anything moved. */
bool auto_sources_follow(const struct auto_ctx *s, int32_t *dev);
/*
 * Runs every candidate placer on g0 / c0 under opt; the best placement by
 * the judge becomes s->best, its name goes to name (AUTO_NAME_SIZE bytes).
 * BAECHI_EINFEASIBLE when no candidate places; BAECHI_ENOMEM.
 */
int auto_best_candidate(struct auto_ctx *s, const struct graph *g0, const struct cluster *c0,
                        const struct placer_options *opt, char *name);

void auto_order_by_device(struct auto_ctx *s, const struct sim_result *r, const int32_t *dev);
/*
 * The critical path of the best placement's timed run (s->rt_best), walked
 * back from the op that ends last: at each op v, the op before it on its
 * device when that ended no earlier than v's latest input would arrive
 * (visit(s, v, p, -1, arg), then p), else the producer of that input
 * (visit(s, v, -1, e, arg), e the edge, then its source).  Fills s->order
 * and s->prev_on_dev (auto_order_by_device).
 */
typedef void (*auto_path_visit)(struct auto_ctx *s, int32_t v, int32_t p, int32_t e, void *arg);
void auto_path_walk(struct auto_ctx *s, auto_path_visit visit, void *arg);

#endif
