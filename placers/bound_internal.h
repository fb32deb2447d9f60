/*
 * bound_internal.h - the memory-aware path bound's parts (see bound.h;
 * docs/bound.md, "memory") and the scratch they share:
 *
 *   bound.c           options, the simple and work bounds, the choice
 *   bound_path.c      the path bound: paths of the graph chosen by mixes of
 *                     compute, persistent and output bytes, the bytes a
 *                     path needs, the bound of each and the best of them
 *   bound_path_cut.c  the cheapest cut edges of one path: windows that
 *                     cannot sit on one device, hit by a sliding minimum
 *   bound_cuts.c      the cut volumes (the transfers beside each cut)
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_PLACERS_BOUND_INTERNAL_H
#define BAECHI_PLACERS_BOUND_INTERNAL_H

#include "placers/bound.h"

#include <stdbool.h>
#include <stdint.h>

/* The paths tried often coincide (the mixes and the thresholds find the
 * same one): their bounds, by the path. */
#define BOUND_MEMO 24

struct path_memo {
    int32_t k, m, cuts;
    int32_t *pop; /* k */
    int64_t lb_us;
};

/* Scratch of the path bound: per op, and the path's edges. */
struct pathwork {
    const struct graph *g;
    const struct cluster *c;
    int32_t *order;             /* a topological order (Kahn), n */
    int32_t *indeg;             /* n */
    int64_t *tmin;              /* fastest compute, n */
    double *score;              /* best path score ending at v, n */
    int32_t *via;               /* the in-edge of that path, -1 at its start, n */
    int64_t *cost;              /* the path's edge transfer times, n */
    int64_t *ecost;             /* every edge's transfer time (edge_comm_us), E */
    int64_t *tcomm;             /* every tensor's transfer time (bound_comm_min_us), T */
    int64_t cheap_edge_us;      /* path_extract skips edges that cost at most this (-1: none) */
    int64_t floor_us;           /* the best bound so far: cut volumes only try to beat it */
    int64_t *limits;            /* device limits, descending, D */
    bool unlimited;             /* some device has no limit: every path fits */
    int32_t *pop;               /* the path, first to last op, n */
    int32_t *mark;              /* path_need_bytes: last path index reaching v, n */
    int32_t *queue;             /* n */
    int64_t *diff;              /* live bytes, difference array, n + 1 */
    int32_t *hiv;               /* per path index j: last path index needing pop[j]'s outputs */
    int64_t *ownv;              /* per path index: own output bytes */
    int64_t *at;                /* per path index l: live own outputs + temp at L_l's start */
    int64_t path_persist_bytes; /* out of path_need_bytes */
    int64_t path_compute_us;    /* out of path_bound: Σ compute of its path */
    int32_t best_m;             /* out of path_bound: devices the path needs */
    int32_t best_cuts;          /* out of path_bound: cut edges charged */
    struct path_memo memo[BOUND_MEMO];
    int32_t n_memo;
};

static inline int64_t nonneg(int64_t x)
{
    return x > 0 ? x : 0;
}

/*
 * The cheapest set of cut edges of path pop[0..k-1] that has an edge inside
 * every window that cannot sit on one device, into *cut_us and *n_cuts
 * (bound_path_cut.c); -1 when one op alone fits no device.
 */
int bound_path_cut_cost(struct pathwork *w, int32_t k, int64_t compute_us, int64_t *cut_us,
                        int32_t *n_cuts);
/* The memory-aware bound (bound.h) into r->memory_us, min_devices,
 * forced_cuts; r->simple_us raised to the critical path (bound_path.c). */
int bound_memory(const struct graph *g, const struct cluster *c, const struct bound_classes *cls,
                 struct bound_result *r);

#endif
