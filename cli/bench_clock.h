/*
 * bench_clock.h - what the benchmark commands (bench.c, bench_placement.c,
 * bench_scaling.c, bench_sim.c) share: a monotonic clock and medians.
 * Benchmarks only: no result of the suite is ever timed (limits count work).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CLI_BENCH_CLOCK_H
#define BAECHI_CLI_BENCH_CLOCK_H

/* Milliseconds on CLOCK_MONOTONIC (differences only). */
double bench_now_ms(void);

/* qsort comparator for doubles, ascending. */
int bench_cmp_double(const void *a, const void *b);

/* The median of v[0..n) (n >= 1); sorts v. */
double bench_median(double *v, int n);

#endif
