/*
 * gen_synthetic.h - seeded synthetic DAGs for scale tests, benchmarks and
 * sweeps: the same options and seed always give the same workload, on every
 * machine (a splitmix64 generator, no libc rand).
 *
 * Shapes:
 *   layered    layers of `width` ops; each op reads `fan_in` distinct ops of
 *              the previous layer (like a deep network's layer graph);
 *   chain      op i reads op i-1 (no parallelism at all);
 *   fork-join  blocks: a fork op, `width` branches of `depth` ops, a join op
 *              reading every branch's last op;
 *   random     op i reads `fan_in` distinct ops among the `window` before it.
 *
 * Every op has one output of a size drawn in [min_bytes, max_bytes] and a
 * time in [min_time_us, max_time_us]; a fraction `persist_frac` of ops also
 * hold persistent bytes (weights) equal to their output size, a fraction
 * `temp_frac` need temp bytes of that size while running.  Ops are grouped
 * in colocation groups of `group_size` consecutive ops (1 = no grouping).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_WORKLOADS_GEN_SYNTHETIC_H
#define BAECHI_WORKLOADS_GEN_SYNTHETIC_H

#include "core/workload.h"

#include <stdint.h>

enum synth_shape { SYNTH_LAYERED, SYNTH_CHAIN, SYNTH_FORK_JOIN, SYNTH_RANDOM };

struct synth_opts {
    enum synth_shape shape;
    int32_t n_ops; /* total ops, >= 2 */
    uint64_t seed;
    int32_t fan_in; /* layered, random: inputs per op (>= 1) */
    int32_t width;  /* layered: ops per layer; fork-join: branches; 0 = automatic */
    int32_t depth;  /* fork-join: ops per branch; 0 = automatic */
    int32_t window; /* random: how far back inputs reach; 0 = automatic */
    int64_t min_bytes, max_bytes;
    int64_t min_time_us, max_time_us;
    double persist_frac;
    double temp_frac;
    int32_t group_size;
};

/* Defaults: layered, 1000 ops, seed 1, fan-in 3, 1 KiB..4 MiB, 5..500 µs,
 * 10% persistent, 20% temp, no grouping. */
void synth_opts_init(struct synth_opts *o);

/* "layered" | "chain" | "fork-join" | "random"; 0 or BAECHI_EINVAL. */
int synth_shape_parse(const char *s, enum synth_shape *shape);

/* Fills `w` (initialised by the caller, empty) with the DAG; name
 * "synthetic-<shape>-<n>-s<seed>".  Returns 0, BAECHI_EINVAL, BAECHI_ENOMEM. */
int gen_synthetic(struct workload *w, const struct synth_opts *o);

#endif
