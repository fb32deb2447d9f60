/*
 * auto_internal.h - the pieces of the `auto` placer (auto.c) that its unit
 * tests drive one by one: the search from a given placement (repair of an
 * overflow, then local search over colocation groups) with the simulators
 * as the judge.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_PLACERS_AUTO_INTERNAL_H
#define BAECHI_PLACERS_AUTO_INTERNAL_H

#include "core/cluster.h"
#include "core/graph.h"
#include "placers/placer.h"

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

#endif
