/*
 * pipeline.h - pipeline schedules of micro-batched training graphs: their
 * names and how many micro-batches each stage holds in flight.
 *
 * A micro-batched training graph (workloads/train.h) runs M micro-batches
 * through K pipeline stages (the devices its placement uses, in the order
 * the forward pass visits them; devices that share a collective, such as a
 * tensor-parallel group or the data-parallel replicas of a stage, are one
 * stage: sim/sim_sched.c).  Every schedule steps the optimizer after the
 * flush (a stage's updates wait for all its backward), as Megatron-LM does.  The schedule decides, on each stage, in
 * which order the micro-batches' forward and backward ops run, and so how
 * many micro-batches' saved activations a stage holds at once:
 *
 *   gpipe        every forward, then every backward (GPipe, Huang et al.
 *                2019): stage s holds all M micro-batches;
 *   1f1b         K - s warm-up forwards on stage s (s = 0 .. K-1), then one
 *                forward one backward, then the cool-down backwards
 *                (PipeDream-Flush, Narayanan et al. 2021; Megatron-LM's
 *                default): stage s holds min(M, K - s);
 *   interleaved  Megatron-LM's interleaved 1F1B: each device holds V
 *                non-adjacent chunks of layers (chunk c of K*V on device
 *                c mod K); the bubble shrinks to (K - 1)(f + b) / V and
 *                stage s holds about min(M*V, (K - s - 1)*2 + (V - 1)*K + 1)
 *                chunk-micro-batches (Megatron's warm-up count).
 *
 * All beyond the original Baechi, which places and simulates one batch.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CORE_PIPELINE_H
#define BAECHI_CORE_PIPELINE_H

#include "core/workload.h"

#include <stdbool.h>
#include <stdint.h>

/*
 * The top-level extension key of a micro-batched workload that names the
 * schedule its pipeline runs, e.g. `x-pipeline: {schedule: 1f1b,
 * virtual_stages: 1}` (written by the training synthesis, workloads/train.h;
 * read by graph_build for the timed simulator, which takes an override).
 */
#define PIPELINE_KEY "x-pipeline"

enum pipeline_schedule {
    PIPELINE_GPIPE = 0,
    PIPELINE_1F1B,
    PIPELINE_INTERLEAVED,
};
#define PIPELINE_N_SCHEDULES (PIPELINE_INTERLEAVED + 1)

/* Most virtual stages (chunks per device) accepted. */
#define PIPELINE_VIRTUAL_STAGES_MAX 64

struct pipeline_opts {
    enum pipeline_schedule schedule;
    int32_t virtual_stages; /* V >= 1; > 1 only with PIPELINE_INTERLEAVED */
};

/* The default: 1f1b, one virtual stage (what pipeline engines run). */
void pipeline_opts_init(struct pipeline_opts *o);

/* "gpipe", "1f1b", "interleaved". */
const char *pipeline_schedule_name(enum pipeline_schedule s);

/* The schedule named `name`; BAECHI_EINVAL (message lists the names) when
 * there is none. */
int pipeline_schedule_parse(const char *name, enum pipeline_schedule *out);

/* BAECHI_EINVAL unless 1 <= virtual_stages <= PIPELINE_VIRTUAL_STAGES_MAX and
 * virtual_stages == 1 for every schedule but interleaved. */
int pipeline_opts_check(const struct pipeline_opts *o);

/*
 * The schedule of workload w (its PIPELINE_KEY) into *o, *found = whether w
 * has the key; the default (pipeline_opts_init) when absent.  A malformed
 * value (not a mapping, an unknown key or schedule, V out of range) is
 * BAECHI_EPARSE naming the file and the value.  found may be NULL.
 */
int pipeline_opts_read(const struct workload *w, struct pipeline_opts *o, bool *found);

/* Sets w's PIPELINE_KEY to o.  0 or BAECHI_ENOMEM. */
int pipeline_opts_write(struct workload *w, const struct pipeline_opts *o);

/* Warm-up forwards stage s (0-based of k stages) runs before its first
 * backward, counted in chunk-micro-batches (v chunks per device, m
 * micro-batches): the number of micro-batches whose saved activations the
 * stage holds at once under the schedule.  gpipe: m*v; 1f1b: min(m, k - s);
 * interleaved: min(m*v, 2*(k - s - 1) + (v - 1)*k + 1). */
int64_t pipeline_in_flight(const struct pipeline_opts *o, int32_t k, int32_t s, int32_t m);

#endif
