/*
 * sim_incr_log.c - the base run's dispatch log of the incremental
 * re-simulation (sim_incr_internal.h, struct incr_log): a moved source
 * (an op without inputs) changes a trial from the first dispatch at which
 * it would have been chosen, on its old device or its new one.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "sim/sim_incr_internal.h"

#include "core/array.h"

int incr_log_note(struct sim_incr *in, int32_t d, int64_t now_us, int32_t v, int64_t ready_us)
{
    struct incr_log *l = &in->log[d];
    /* the queue key of v was (0, ready time, topological index): priorities
     * are 0 on the graphs supported (no micro-batches) */
    bool zero = v >= 0 && ready_us == 0;
    int32_t topo = zero ? in->g->topo[v] : INT32_MAX;
    int rc;

    if ((v < 0 && l->idle) || (v >= 0 && v == l->last_op) || l->n_zero < l->n) {
        /* the same idle spell, an op started in an earlier dispatch at this
         * time, or past the prefix that matters */
        return 0;
    }
    if ((l->n == l->alloc && (rc = ARRAY_RESERVE(l->at_us, l->alloc, l->n + 1)) != 0) ||
        (l->n == l->alloc_p && (rc = ARRAY_RESERVE(l->pmax, l->alloc_p, l->n + 1)) != 0)) {
        return rc;
    }
    l->at_us[l->n] = now_us;
    l->pmax[l->n] = l->n > 0 && l->pmax[l->n - 1] > topo ? l->pmax[l->n - 1] : topo;
    l->n++;
    l->n_zero += zero;
    l->idle = v < 0;
    l->last_op = v;
    return 0;
}

/*
 * The first dispatch on device d of the base run at which source v (ready
 * at 0, priority 0) would have been chosen over the base's choice: the
 * first entry that is not a time-0 choice of a smaller topological index.
 * INT64_MAX when none (the log always ends with an idle entry, so never).
 */
int64_t incr_log_source_enters(const struct sim_incr *in, int32_t d, int32_t v)
{
    const struct incr_log *l = &in->log[d];
    int32_t tv = in->g->topo[v];
    size_t lo = 0, hi = l->n_zero;

    /* pmax is non-decreasing: the first entry above tv is where pmax passes it */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (l->pmax[mid] > tv) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return lo < l->n ? l->at_us[lo] : INT64_MAX;
}
