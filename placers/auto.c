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
 *     the budget ends.  Each round first tries the link moves (the
 *     transfers a queued transfer of the path waited behind, off its
 *     channels) and the moves that have not failed before (auto_search.c);
 *     the other moves are simulated in the order of a cheap estimate of
 *     their step (the delta screen, auto_screen.c).  A move is kept only
 *     when it is strictly better, so the result is never worse than the
 *     best candidate.
 *
 * The parts: auto_candidates.c (1), auto_judge.c (2), auto_repair.c and
 * auto_search.c (3), over auto_internal.h; this file runs them.
 *
 * The budget counts simulations (AUTO_VISITS_PER_MS op-and-edge visits per
 * unit), never wall time, so identical input, budget and seed give an
 * identical placement.
 *
 * Devices (issue 30 item 6; deviation: beyond the original).  The search
 * and its simulations hold arrays of devices x devices (the timed model's
 * link channels and byte counts), so on a large cluster `auto` runs on a
 * prefix of it: where the cluster's device classes are uniform (bound.h:
 * alike nodes of alike GPUs), the first bound_classes_prefix(ops) devices
 * hold an image of every placement of the graph (it uses at most one device
 * per op), so nothing is lost; the placement records `devices` (the
 * cluster's) and `searched_devices`.  Otherwise, and when the prefix is
 * still larger, more than AUTO_MAX_DEVICES devices are refused with a
 * message (exit 2): on 4,096 devices a 79-op graph took 14 GB.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/auto_internal.h"
#include "placers/auto_polish.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/placement.h"
#include "placers/bound.h"
#include "placers/placer_internal.h"
#include "placers/placer_world.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The world of the options (placer_world) and a search state on it. */
struct auto_world {
    struct cluster cw;
    struct graph gw;
    int64_t *weights;
    int32_t *tf_of, n_tf;
    struct auto_ctx s;
    bool have_cw, have_s;
};

static void world_release(struct auto_world *w)
{
    if (w->have_s) {
        auto_ctx_release(&w->s);
    }
    if (w->have_cw) {
        cluster_release(&w->cw);
    }
    free(w->weights);
    free(w->tf_of);
    memset(w, 0, sizeof(*w));
}

/* The world of opt from g0 / c0, its tf groups and a search state; the
 * caller releases w (world_release) on failure too. */
static int world_init(struct auto_world *w, const struct graph *g0, const struct cluster *c0,
                      const struct placer_options *opt)
{
    int rc = 0;

    memset(w, 0, sizeof(*w));
    CHECK(cluster_copy(&w->cw, c0));
    w->have_cw = true;
    CHECK(placer_world(&w->cw, opt));
    CHECK(placer_world_graph(g0, opt, &w->gw, &w->weights));
    if (!(w->tf_of = mem_alloc_array((size_t)g0->n_ops + 1, sizeof(int32_t)))) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    CHECK(placer_group(g0, PLACER_GROUPER_TF, w->tf_of, &w->n_tf, NULL));
    CHECK(auto_ctx_init(&w->s, &w->gw, &w->cw, w->tf_of, w->n_tf, opt->budget_ms, opt->seed));
    w->have_s = true;
cleanup:
    return rc;
}

/*
 * The devices auto searches (auto.c, "Devices"): the world's n devices, or
 * where its classes are uniform the prefix that holds every placement of g0
 * (and `start`'s devices, when given); on a prefix shorter than n, a copy of
 * it into *cp (*have_cp) and o->n_devices = 0 (the copy is the world).
 * More than AUTO_MAX_DEVICES: BAECHI_EINVAL with a message.
 */
static int search_devices(const struct graph *g0, const struct cluster *c0, const int32_t *start,
                          struct placer_options *o, struct cluster *cp, bool *have_cp,
                          int32_t *n_world)
{
    struct bound_classes k;
    int32_t n = o->n_devices > 0 && o->n_devices < c0->n_devices ? o->n_devices : c0->n_devices, p;
    int rc;

    *have_cp = false;
    *n_world = n;
    if ((rc = bound_classes_build(c0, n, &k)) != 0) {
        return rc;
    }
    p = bound_classes_prefix(&k, g0->n_ops);
    for (int32_t v = 0; start && v < g0->n_ops && p < n; v++) {
        p = start[v] >= p ? (start[v] < n ? start[v] + 1 : n) : p;
    }
    bound_classes_release(&k);
    if (p > AUTO_MAX_DEVICES) {
        return err_set(
            BAECHI_EINVAL,
            "auto searches at most %d devices, and cluster '%s' has %d that are not alike "
            "nodes of alike GPUs (%d to search): use --devices K (-k) or a cluster of "
            "identical nodes (docs/limits.md)",
            AUTO_MAX_DEVICES, c0->name ? c0->name : "?", (int)n, (int)p);
    }
    if (p < n) {
        if ((rc = bound_classes_copy_prefix(cp, c0, p)) != 0) {
            return rc;
        }
        *have_cp = true;
        o->n_devices = 0;
    }
    return 0;
}

int auto_refine(const struct graph *g0, const struct cluster *c0, const struct placer_options *opt,
                struct placement *out)
{
    struct auto_world w;
    struct auto_ctx *s = &w.s;
    struct auto_score start;
    struct placer_options o = *opt;
    struct cluster cp;
    bool have_cp = false;
    int32_t n_world;
    int rc = 0;

    memset(&w, 0, sizeof(w));
    CHECK(search_devices(g0, c0, out->device_of, &o, &cp, &have_cp, &n_world));
    c0 = have_cp ? &cp : c0;
    opt = &o;
    CHECK(world_init(&w, g0, c0, opt));
    CHECK(auto_start_from(s, out->device_of));
    start = s->best_score;
    CHECK(auto_search_run(s));
    CHECK(placer_add_kv(out, false, "refine", "true"));
    CHECK(placer_add_kv(out, false, "budget_ms", "%" PRId64, opt->budget_ms));
    CHECK(placer_add_kv(out, false, "seed", "%llu", (unsigned long long)opt->seed));
    CHECK(placer_add_kv(out, true, "refine_start_step_us", "%" PRId64,
                        auto_score_feasible(&start) ? start.step_us : -1));
    CHECK(placer_add_kv(out, true, "refine_step_us", "%" PRId64,
                        auto_score_feasible(&s->best_score) ? s->best_score.step_us : -1));
    CHECK(placer_add_kv(out, true, "refine_evaluations", "%" PRId64, s->n_eval));
    CHECK(placer_add_kv(out, true, "searched_devices", "%d", (int)w.cw.n_devices));
    if (auto_score_feasible(&s->best_score)) {
        memcpy(out->device_of, s->best, (size_t)g0->n_ops * sizeof(int32_t));
    }
cleanup:
    world_release(&w);
    if (have_cp) {
        cluster_release(&cp);
    }
    return rc;
}

int auto_place(const struct graph *g0, const struct cluster *c0, const struct placer_options *opt,
               struct placement *out, struct placer_stats *st)
{
    struct auto_world w;
    struct auto_ctx *s = &w.s;
    struct auto_score start_score = {0, 0, 0, 0};
    char start_name[AUTO_NAME_SIZE] = "";
    struct auto_polish_stats ps = {0, 0};
    struct placer_options o = *opt;
    struct cluster cp;
    bool have_cp = false;
    int32_t n_world;
    int rc = 0;

    memset(&w, 0, sizeof(w));
    CHECK(search_devices(g0, c0, NULL, &o, &cp, &have_cp, &n_world));
    c0 = have_cp ? &cp : c0;
    opt = &o;
    CHECK(world_init(&w, g0, c0, opt));
    st->n_nodes = g0->n_ops;
    st->n_edges = g0->n_edges;
    st->n_groups = w.n_tf;
    CHECK(auto_precheck(s));
    CHECK(auto_best_candidate(s, g0, c0, opt, start_name));
    start_score = s->best_score;
    CHECK(auto_polish_run(s, &ps)); /* stage seeds, the search, a final pass */
    if (!auto_score_feasible(&s->best_score)) {
        rc = auto_infeasible(s);
        goto cleanup;
    }
    memcpy(out->device_of, s->best, (size_t)g0->n_ops * sizeof(int32_t));
    st->estimate_us = s->best_score.step_us;
    CHECK(placer_add_kv(out, false, "memory_fraction", "%g", opt->memory_fraction));
    CHECK(placer_add_kv(out, false, "comm_factor", "%g", opt->comm_factor));
    CHECK(placer_add_kv(out, false, "compute_factor", "%g", opt->compute_factor));
    CHECK(placer_add_kv(out, false, "devices", "%d", (int)n_world));
    CHECK(placer_add_kv(out, true, "searched_devices", "%d", (int)w.cw.n_devices));
    CHECK(placer_add_kv(out, false, "budget_ms", "%" PRId64, opt->budget_ms));
    CHECK(placer_add_kv(out, false, "seed", "%llu", (unsigned long long)opt->seed));
    CHECK(placer_add_kv(out, true, "estimate_us", "%" PRId64, s->best_score.step_us));
    CHECK(placer_add_kv(out, true, "baechi_step_us", "%" PRId64, s->best_score.baechi_step_us));
    CHECK(placer_add_kv(out, true, "start", "%s", start_name));
    CHECK(placer_add_kv(out, true, "start_step_us", "%" PRId64,
                        auto_score_feasible(&start_score) ? start_score.step_us : -1));
    CHECK(placer_add_kv(out, true, "evaluations", "%" PRId64, s->n_eval));
    CHECK(placer_add_kv(out, true, "pruned", "%" PRId64, s->n_pruned));
    CHECK(placer_add_kv(out, true, "screened", "%" PRId64, s->n_screened));
    CHECK(placer_add_kv(out, true, "improvements", "%d", (int)s->improvements));
    CHECK(placer_add_kv(out, true, "seed_stages", "%d", (int)ps.seed_stages));
    CHECK(placer_add_kv(out, true, "final_pass_improvements", "%d", (int)ps.pass_improvements));
    CHECK(placer_add_kv(out, true, "lp_iterations", "%" PRId64, s->lp_iterations));
    CHECK(placer_add_kv(out, true, "skipped_candidates", "%d", (int)s->n_skipped));
    CHECK(placer_add_kv(out, true, "nodes", "%d", (int)g0->n_ops));
    CHECK(placer_add_kv(out, true, "groups", "%d", (int)w.n_tf));
cleanup:
    world_release(&w);
    if (have_cp) {
        cluster_release(&cp);
    }
    return rc;
}
