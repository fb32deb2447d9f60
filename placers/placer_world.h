/*
 * placer_world.h - the world a placement is made for and simulated in:
 * the cluster and graph under the options' devices, comm and compute
 * factors and memory fraction (placer_world.c).  One route: the placers,
 * `auto`'s search, `run`, `sim` and the library all build it here.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_PLACERS_PLACER_WORLD_H
#define BAECHI_PLACERS_PLACER_WORLD_H

#include "core/cluster.h"
#include "core/graph.h"
#include "core/placement.h"
#include "placers/placer_options.h"

#include <stdint.h>

/*
 * The world a placement is simulated in under the same options: keeps the
 * first n_devices devices of c, scales the comm model by comm_factor and
 * every device's memory by memory_fraction.  The fraction thus emulates
 * smaller GPUs for the simulators too (the original's --memory_fraction,
 * which TF applied to the real GPUs), so that a placement that ignores it
 * (single, round-robin, m-TOPO) shows up as out of memory.  Call it after
 * placer_run, which applies the fraction to the placer's own limits.
 */
int placer_world(struct cluster *c, const struct placer_options *opt);

/* weight_us[v] of g scaled by compute_factor (at least 1), into `out`
 * (g->n_ops entries). */
void placer_world_weights(const struct graph *g, const struct placer_options *opt, int64_t *out);

/*
 * The graph a simulation of `g0` under `opt` uses: *g a shallow copy of g0
 * whose weight_us are scaled by compute_factor when it is not 1, into a new
 * array in *weights (the caller frees it; NULL when unscaled).  0 or ENOMEM.
 */
int placer_world_graph(const struct graph *g0, const struct placer_options *opt, struct graph *g,
                       int64_t **weights);

/*
 * Records in pl the world it was made for under opt on cluster c (as
 * loaded, before placer_world): c's hash (hash_cluster), the devices used
 * (opt->n_devices when it keeps fewer than c has, else all of c's) and the
 * memory fraction, so that `sim` of a written placement sees the world
 * `run` simulated.  placer_run() calls it: every placement the library
 * makes carries it.  0, or BAECHI_ENOMEM.
 */
int placer_world_record(struct placement *pl, const struct cluster *c,
                        const struct placer_options *opt);

#endif
