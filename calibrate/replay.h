/*
 * replay.h - execute a placed graph for real and compare with the simulator.
 *
 * replay_build() turns (graph, cluster, placement) into a bench_program
 * (bench.h): each op a calibrated spin for its modelled time
 * (cluster_compute_us) on its device's compute stream; each tensor that
 * crosses to another device one real copy per receiving device (the first
 * time any op there needs it, as the simulator sends it once), on the
 * receiver's copy stream after the producer's event; dependencies by events;
 * memory allocated and freed per tensor lifetime like the timed simulator
 * (sim.h): persistent bytes for the whole run, an op's outputs from its
 * start until its last consumer ended and its last copy completed (a sink's
 * until the end of the step), temp
 * bytes while it runs, a received tensor from the start of its copy until
 * its last consumer on that device ended.  The order in which commands are
 * issued is the simulator's start order (ties by topological index), so
 * each device runs its ops in the order the simulator predicts.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CALIBRATE_REPLAY_H
#define BAECHI_CALIBRATE_REPLAY_H

#include "calibrate/bench.h"
#include "core/cluster.h"
#include "core/graph.h"
#include "sim/sim.h"

#include <stdio.h>

/*
 * Builds the program.  `sim` (may be NULL: topological order) gives the issue
 * order; device_of[op] in 0..c->n_devices-1.  p is initialised here.
 * Counts of what was built go to the optional `stats`.
 */
struct replay_stats {
    int32_t n_spins;
    int32_t n_copies; /* tensor deliveries to another device */
    int64_t copy_bytes;
};

int replay_build(const struct graph *g, const struct cluster *c, const int32_t *device_of,
                 const struct sim_result *sim, struct bench_program *p, struct replay_stats *stats);

/* Measured against predicted. */
struct replay_compare {
    int32_t n_devices;
    double measured_step_us; /* median of the measured steps */
    double min_step_us, max_step_us;
    int64_t sim_step_us;
    double step_err_pct;    /* 100 * (sim - measured) / measured */
    int64_t *measured_peak; /* per device */
    int64_t *sim_peak;
    double *peak_err_pct; /* per device; 0 when both are 0 */
};

/* Fills cmp from a replay result and a simulation (initialised here). */
int replay_compare(const struct bench_replay_result *r, const struct sim_result *sim,
                   struct replay_compare *cmp);
void replay_compare_release(struct replay_compare *cmp);

#endif
