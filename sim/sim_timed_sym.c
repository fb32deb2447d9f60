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
 * None of this applies to what `parallelize --symmetric` writes now: a
 * representative per class of the exact graph's request order (replica 0
 * and D-1, TP rank 0 and T-1; the rank ops of one collective standing for
 * different counts), whose requests come in that order without a rule.
 * The rule stays for files of one replica (x-symmetry without classes).
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

    for (int32_t c = 0; c < g->n_coll; c++) {
        any = any || g->coll[c].replicas > 1;
        for (int32_t i = g->coll_start[c]; i < g->coll_start[c + 1]; i++) {
            if (g->coll_copies[i] != g->coll[c].replicas) {
                return 0; /* a representative per class (the header) */
            }
        }
    }
    if (!any) {
        return 0;
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

int timed_sym_ready(struct timed *s, int32_t ci, bool *deferred)
{
    const struct graph *g = s->g;
    struct coll_plan p;
    int64_t end;
    bool blocked = false;
    int rc;

    *deferred = false;
    if (g->coll[ci].replicas > 1) {
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
    end = sat_add_i64(coll_sim_free_at(&p, s->c, s->chan, &s->r->links, s->now), p.time_us);
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

    if (g->coll[ci].replicas <= 1) {
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
