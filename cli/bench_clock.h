/*
 * bench_clock.h - what the benchmark commands (bench.c, bench_placement.c,
 * bench_scaling.c, bench_sim.c) share: a monotonic clock, medians and the
 * timed simulation loop.
 * Benchmarks only: no result of the suite is ever timed (limits count work).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CLI_BENCH_CLOCK_H
#define BAECHI_CLI_BENCH_CLOCK_H

#include "core/cluster.h"
#include "core/graph.h"
#include "sim/sim.h"

#include <stdint.h>

/* Milliseconds on CLOCK_MONOTONIC (differences only). */
double bench_now_ms(void);
/* The process's CPU time (ms): what a target in CPU seconds measures. */
double bench_cpu_ms(void);

/* qsort comparator for doubles, ascending. */
int bench_cmp_double(const void *a, const void *b);

/* The median of v[0..n) (n >= 1); sorts v. */
double bench_median(double *v, int n);

/* Times `reps` runs of sim_run under model m into t_ms[0..reps); *events gets
 * one run's events (ops run + transfers).  0 or sim_run's error.  In
 * bench_sim.c. */
int bench_sim_times(const struct graph *g, const struct cluster *c, const int32_t *dev,
                    enum sim_model m, int reps, double *t_ms, double *events);

#endif
