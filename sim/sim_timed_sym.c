/*
 * sim_timed_sym.c - the order of a replicated collective's request in the
 * timed model (docs/symmetry.md; beyond the original).  In the exact graph
 * a DP collective is requested by the rank of its last replica, after the
 * other replicas' requests of the same microsecond (their ops come first in
 * topological order), and that last replica's own later requests of the
 * same time (a TP collective its op also feeds) wait for it; the slowest,
 * last replica sets the step.  Replica 0 of a symmetric workload stands for
 * that replica: a replicated collective waits for the end of its time
 * (EV_COLL_REQUEST), starts no earlier than the ends the collectives of
 * replica 0 that become ready after it on its devices would have (the other
 * replicas' copies of them), and those collectives then wait for it.
 * Point-to-point transfers are not reordered.
 *
 * With TP symmetry a TP collective's rank op stands for its group's T ranks
 * too (replicas: T, stride: 1), and the representative stands for the last
 * TP rank of the last replica.  In the exact graph, in one microsecond,
 * the TP collectives of the other replicas are requested first (A1), then
 * the DP collectives of the other TP ranks of the last replica (A2, after
 * A1 on the devices they share), then the last rank's own, in its order:
 * its DP collectives no earlier than the end of A1, its TP collectives no
 * earlier than the end of A2.  Every replicated collective of the time is
 * requested at its end with those earliest starts.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "sim/sim_timed_internal.h"

#include "core/alloc.h"
#include "core/checked.h"
#include "core/err.h"
#include "sim/collective.h"

#include <stdlib.h>

int timed_sym_setup(struct timed *s)
{
    const struct graph *g = s->g;
    bool any = false;

    bool unit = false;

    s->sym_stride = 0;
    for (int32_t c = 0; c < g->n_coll; c++) {
        if (g->coll[c].replicas > 1) {
            any = true;
            unit = unit || g->coll[c].replica_stride == 1;
            s->sym_stride = g->coll[c].replica_stride > s->sym_stride ? g->coll[c].replica_stride
                                                                      : s->sym_stride;
        }
    }
    if (!any) {
        return 0;
    }
    /* TP and DP collectives both replicated; stride 1 alone is DP without
     * TP or TP without DP, where every one is requested at the end of its
     * time, in order, as below */
    s->sym_tp = unit && s->sym_stride > 1;
    s->sym_batch_us = -1;
    s->sym_batch_n = 0;
    if (s->sym_tp && !(s->sym_batch = mem_alloc_array((size_t)g->n_coll, sizeof(*s->sym_batch)))) {
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    s->sym_pend = mem_alloc_array((size_t)s->nd, sizeof(*s->sym_pend));
    s->sym_min_us = mem_alloc_array((size_t)g->n_coll, sizeof(*s->sym_min_us));
    s->sym_at_us = mem_alloc_array((size_t)g->n_coll, sizeof(*s->sym_at_us));
    if (!s->sym_pend || !s->sym_min_us || !s->sym_at_us) {
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    for (int32_t d = 0; d < s->nd; d++) {
        s->sym_pend[d] = -1;
    }
    for (int32_t c = 0; c < g->n_coll; c++) {
        s->sym_at_us[c] = -1;
    }
    s->sym_defer_us = -1;
    return 0;
}

/* Whether ci stands for the ranks of other data-parallel replicas (requested
 * at the end of its time); a TP collective's copies are its own replica's. */
static bool cross_replica(const struct timed *s, int32_t ci)
{
    const struct graph_coll *gc = &s->g->coll[ci];

    return gc->replicas > 1 && gc->replica_stride == s->sym_stride;
}

/* The replicated collective waiting on device d now, -1 none. */
static int32_t waiting_on(const struct timed *s, int32_t d)
{
    int32_t pc = s->sym_pend[d];

    return pc >= 0 && s->sym_at_us[pc] == s->now ? pc : -1;
}

/* Requested at the end of this time, in the order of the calls (the queue
 * keeps pushes of equal keys in order). */
static int defer(struct timed *s, int32_t ci)
{
    struct evq_event ev = {.time_us = s->now,
                           .key1 = EV_COLL_REQUEST,
                           .key2 = 0,
                           .kind = EV_COLL_REQUEST,
                           .a = ci,
                           .b = 0};

    return evq_push(&s->q, &ev);
}

/* The device of collective ci's (one) rank op: the stage's representative. */
static int32_t batch_device(const struct timed *s, int32_t ci)
{
    return s->device_of[s->g->coll_op[s->g->coll_start[ci]]];
}

/* The end of the chain of the batch's collectives of stride 1 (tp) or of
 * the larger one on device d, each requested after the previous one from
 * not_before_us on the engines as they are now. */
static int batch_chain(struct timed *s, bool tp, int32_t d, int64_t not_before_us, int64_t *end_us)
{
    struct coll_plan p;
    int rc;

    *end_us = not_before_us;
    for (int32_t k = 0; k < s->sym_batch_n; k++) {
        int32_t ci = s->sym_batch[k];

        if ((s->g->coll[ci].replica_stride == 1) != tp || batch_device(s, ci) != d) {
            continue;
        }
        if ((rc = coll_plan_make(&p, s->g, s->c, s->device_of, ci)) != 0) {
            return rc;
        }
        *end_us = sat_add_i64(coll_sim_free_at(&p, s->c->channel, s->chan, &s->r->links, *end_us),
                              p.time_us);
        coll_plan_release(&p);
    }
    return 0;
}

/* The earliest starts of this time's batch (A1, A2 in the header), one
 * stage (its representative device) at a time. */
static int batch_starts(struct timed *s)
{
    for (int32_t k = 0; k < s->sym_batch_n; k++) {
        int32_t ci = s->sym_batch[k], d = batch_device(s, ci);
        int64_t e1, e2;
        bool first = true, dp_too = false;
        int rc;

        for (int32_t j = 0; j < k && first; j++) {
            first = batch_device(s, s->sym_batch[j]) != d;
        }
        if (!first) {
            continue; /* its stage's starts are set */
        }
        if ((rc = batch_chain(s, true, d, s->now, &e1)) != 0 ||
            (rc = batch_chain(s, false, d, e1, &e2)) != 0) {
            return rc;
        }
        for (int32_t j = k; j < s->sym_batch_n; j++) {
            int32_t cj = s->sym_batch[j];

            dp_too = dp_too || (batch_device(s, cj) == d && s->g->coll[cj].replica_stride != 1);
        }
        for (int32_t j = k; j < s->sym_batch_n; j++) {
            int32_t cj = s->sym_batch[j];

            if (batch_device(s, cj) == d) {
                s->sym_min_us[cj] =
                    s->g->coll[cj].replica_stride == 1 ? (dp_too ? e2 : s->now) : e1;
            }
        }
    }
    s->sym_batch_done = true;
    return 0;
}

static int tp_ready(struct timed *s, int32_t ci, bool *deferred)
{
    if (s->g->coll[ci].replicas <= 1) {
        return 0; /* not written by parallelize --symmetric: requested now */
    }
    if (s->sym_batch_us != s->now) {
        s->sym_batch_us = s->now;
        s->sym_batch_n = 0;
        s->sym_batch_done = false;
    }
    s->sym_batch[s->sym_batch_n++] = ci;
    s->sym_min_us[ci] = s->now;
    *deferred = true;
    return defer(s, ci);
}

int timed_sym_ready(struct timed *s, int32_t ci, bool *deferred)
{
    const struct graph *g = s->g;
    struct coll_plan p;
    int64_t end;
    bool blocked = false;
    int rc;

    *deferred = false;
    if (s->sym_tp) {
        return tp_ready(s, ci, deferred);
    }
    if (cross_replica(s, ci)) {
        for (int32_t i = g->coll_start[ci]; i < g->coll_start[ci + 1]; i++) {
            s->sym_pend[s->device_of[g->coll_op[i]]] = ci;
        }
        s->sym_at_us[ci] = s->sym_min_us[ci] = s->sym_defer_us = s->now;
        *deferred = true;
        return defer(s, ci);
    }
    for (int32_t i = g->coll_start[ci]; i < g->coll_start[ci + 1] && !blocked; i++) {
        blocked = waiting_on(s, s->device_of[g->coll_op[i]]) >= 0;
    }
    if (!blocked) {
        *deferred = s->sym_defer_us == s->now; /* keep the order of this time's requests */
        return *deferred ? defer(s, ci) : 0;
    }
    /* the other replicas' copy of ci runs first: the waiting ones start after it */
    if ((rc = coll_plan_make(&p, g, s->c, s->device_of, ci)) != 0) {
        return rc;
    }
    end =
        sat_add_i64(coll_sim_free_at(&p, s->c->channel, s->chan, &s->r->links, s->now), p.time_us);
    coll_plan_release(&p);
    for (int32_t i = g->coll_start[ci]; i < g->coll_start[ci + 1]; i++) {
        int32_t pc = waiting_on(s, s->device_of[g->coll_op[i]]);

        if (pc >= 0 && end > s->sym_min_us[pc]) {
            s->sym_min_us[pc] = end;
        }
    }
    *deferred = true;
    return defer(s, ci);
}

int timed_sym_request(struct timed *s, int32_t ci)
{
    const struct graph *g = s->g;

    int rc;

    if (s->sym_tp) {
        if (s->sym_batch_us == s->now && !s->sym_batch_done && (rc = batch_starts(s)) != 0) {
            return rc;
        }
        return timed_coll_request(s, ci, s->sym_min_us[ci]);
    }
    if (!cross_replica(s, ci)) {
        return timed_coll_request(s, ci, s->now);
    }
    s->sym_at_us[ci] = -1;
    for (int32_t i = g->coll_start[ci]; i < g->coll_start[ci + 1]; i++) {
        int32_t d = s->device_of[g->coll_op[i]];

        if (s->sym_pend[d] == ci) {
            s->sym_pend[d] = -1;
        }
    }
    return timed_coll_request(s, ci, s->sym_min_us[ci]);
}
