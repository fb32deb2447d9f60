/*
 * symmetry.h - replica symmetry (docs/symmetry.md; beyond the original): a
 * workload that `parallelize --symmetric` wrote holds one data-parallel
 * replica (replica 0, its ranks on their devices of the full cluster) and
 * the top-level key
 *
 *   x-symmetry: {replicas: D, stride: T, devices: N}
 *
 * Replica k of device v (replica 0) is device v + k x T; device u's
 * representative is u - T x ((u / T) mod D).  Each DP collective's rank op
 * stands for its group's D ranks (core/graph_coll.h: replicas, stride), so
 * the timed model costs it on the full topology; where the cluster treats
 * every replica as it treats replica 0 (sim_symmetry_check), every replica
 * runs the same schedule, and sim_symmetry_expand writes replica 0's
 * device results for all N devices.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_SIM_SYMMETRY_H
#define BAECHI_SIM_SYMMETRY_H

#include "core/cluster.h"
#include "core/graph.h"
#include "core/workload.h"
#include "sim/sim.h"

#include <stdint.h>

struct sim_symmetry {
    int32_t replicas; /* D; 1: not a symmetric workload */
    int32_t stride;   /* T: replica k of device v is v + k x T */
    int32_t devices;  /* N = D x T x P */
};

/* Reads w's x-symmetry into *s (replicas 1 without one).  BAECHI_EPARSE
 * naming the workload: a malformed value. */
int sim_symmetry_read(const struct workload *w, struct sim_symmetry *s);

/* Device u's representative (its device in replica 0). */
int32_t sim_symmetry_rep(const struct sim_symmetry *s, int32_t u);

/*
 * Whether simulating replica 0 stands for all replicas: BAECHI_EINVAL with a
 * one-line statement naming what breaks the symmetry (the cluster has fewer
 * than N devices; an op placed outside replica 0 — a placer's own placement
 * of the ops; a device of replica k that differs from its representative in
 * memory, speed or kind; a pair of replica-0 devices whose link, node,
 * leaf group or pod relation differs in replica k).  O(D x R^2) for R
 * devices a replica, plus O(V).
 */
int sim_symmetry_check(const struct sim_symmetry *s, const struct graph *g, const struct cluster *c,
                       const int32_t *device_of);

/*
 * After sim_run of the representative: each device of replicas 1..D-1 gets
 * its representative's statistics (peak, busy, ops, final bytes, peak by
 * kind) and out-of-memory entries.  The link counters stay the
 * representative's and its collectives' (docs/symmetry.md).  0 or
 * BAECHI_ENOMEM (r unchanged).
 */
int sim_symmetry_expand(const struct sim_symmetry *s, struct sim_result *r);

#endif
