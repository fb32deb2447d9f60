/*
 * symmetry.h - replica symmetry (docs/symmetry.md; beyond the original): a
 * workload that `parallelize --symmetric` wrote holds one data-parallel
 * replica (replica 0, its ranks on their devices of the full cluster) and
 * the top-level key
 *
 *   x-symmetry: {replicas: D, stride: T, devices: N[, tp: T]}
 *
 * Replica k of device v (replica 0) is device v + k x T; device u's
 * representative is u - T x ((u / T) mod D).  Each DP collective's rank op
 * stands for its group's D ranks (core/graph_coll.h: replicas, stride), so
 * the timed model costs it on the full topology; where the cluster treats
 * every replica as it treats replica 0 (sim_symmetry_check), every replica
 * runs the same schedule, and sim_symmetry_expand writes replica 0's
 * device results for all N devices.  With `tp: T` (TP symmetry) only TP
 * rank 0 of replica 0 is written: TP rank t of device v is v + t, device
 * u's representative is also rounded down to a multiple of T, and each TP
 * collective's rank op stands for its group's T ranks (replicas: T,
 * stride: 1).  Without tp (older files) tp is 1.  With `classes: 4` (what
 * `parallelize --symmetric` writes now) the last replica and (with tp) the
 * last TP rank are written as their own representatives: replica k < D-1
 * is represented by replica 0, TP rank t < T-1 by rank 0, and the rank ops
 * of replica 0 and TP rank 0 stand for D-1 and T-1 ranks of their groups,
 * those of replica D-1 and rank T-1 for themselves.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_SIM_SYMMETRY_H
#define BAECHI_SIM_SYMMETRY_H

#include "core/cluster.h"
#include "core/graph.h"
#include "core/workload.h"
#include "sim/sim.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sim_symmetry {
    int32_t replicas; /* D; 1 with tp 1: not a symmetric workload */
    int32_t stride;   /* T: replica k of device v is v + k x T */
    int32_t devices;  /* N = D x T x P */
    int32_t tp;       /* T: TP ranks represented by rank 0 too; 1: each written */
    int32_t classes;  /* 4: replica D-1 and TP rank T-1 (with tp) written as their own
                       * representatives (the exact graph's request order); 1: older files */
};

/* Reads w's x-symmetry into *s (replicas 1, tp 1 without one).
 * BAECHI_EPARSE naming the workload: a malformed value (tp neither 1 nor
 * the stride). */
int sim_symmetry_read(const struct workload *w, struct sim_symmetry *s);

/* Whether s is a symmetric workload's (one device stands for others). */
bool sim_symmetry_on(const struct sim_symmetry *s);

/* The number of representatives of a stage (ranks written). */
int32_t sim_symmetry_stage_reps(const struct sim_symmetry *s);

/* The statement of what was simulated (the `symmetric` line of `sim` and
 * `run`), into buf[n]: its width is bounded (three numbers), so
 * SIM_SYMMETRY_DESCRIBE_MAX bytes hold it whole. */
#define SIM_SYMMETRY_DESCRIBE_MAX 320
void sim_symmetry_describe(const struct sim_symmetry *s, char *buf, size_t n);

/* Device u's representative (its device in replica 0, with TP symmetry its
 * TP rank 0's). */
int32_t sim_symmetry_rep(const struct sim_symmetry *s, int32_t u);

/*
 * Whether simulating replica 0 stands for all replicas: BAECHI_EINVAL with a
 * one-line statement naming what breaks the symmetry (the cluster has fewer
 * than N devices; an op placed outside replica 0 — a placer's own placement
 * of the ops; a device of replica k that differs from its representative in
 * memory, speed or kind; a pair of replica-0 devices whose link, node,
 * leaf group or pod relation differs in replica k).  With TP symmetry
 * also: a device of TP rank t that differs from its rank-0 device, a pair
 * of representatives whose relation differs between their rank-t devices,
 * and a pair of a data-parallel group of TP rank t whose relation differs
 * from the same pair of rank 0's group.  O(D x R^2 + P x T x D^2) for R =
 * T x P devices a replica, plus O(V).
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
