/*
 * pipeline_plan.h - the partitioning step of the `pipeline` placer: a chain
 * of n layers (units) cut into S contiguous, non-empty stages so that the
 * slowest stage is as fast as possible and every stage's memory fits its
 * device.  Used by pipeline_placer.c and the unit tests; nothing outside
 * placers/ includes it.
 *
 * This is the dynamic programme of PipeDream's planner (Narayanan et al.,
 * "PipeDream: Generalized Pipeline Parallelism for DNN Training", SOSP 2019,
 * §3.1): A(j, s) = min over i of max(A(i, s - 1), T(i -> j, s)), the best
 * bottleneck of the first j layers in s stages.  deviation from PipeDream:
 * no data-parallel replication of a stage (every stage is one device), the
 * stage time is compute plus the transfers the stage receives (PipeDream
 * takes the max of compute and communication), and a stage whose memory
 * does not fit its device is not a candidate (PipeDream checks memory after
 * planning).  All beyond the original Baechi.
 *
 * Stage s covers units [i, j) and runs on the device the caller names for
 * it; its time is
 *     round(Σ compute_us[i..j) / speed[s]) + recv_us(i, j)
 * and its memory
 *     Σ persist_bytes[i..j) + in_flight[s] * Σ saved_bytes[i..j)
 *       + max work_bytes[i..j)
 * which must be <= limit_bytes[s].
 *
 * Deterministic: ties keep the earliest cut.  Time O(n * (R + n * S)) where
 * R is the cost of one recv row (pipeline_recv_row_fn), memory O(n * S).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_PLACERS_PIPELINE_PLAN_H
#define BAECHI_PLACERS_PIPELINE_PLAN_H

#include <stdint.h>

/*
 * Fills recv_us[j - i - 1] for every j in i+1 .. n: the transfer time stage
 * [i, j) receives (tensors produced outside it and read inside it).  0 or
 * an error code (BAECHI_ENOMEM).
 */
typedef int (*pipeline_recv_row_fn)(void *arg, int32_t i, int64_t *recv_us);

struct pipeline_chain {
    int32_t n;                     /* units, >= 1 */
    const int64_t *compute_us;     /* n, >= 0, at the reference speed */
    const int64_t *persist_bytes;  /* n: parameters, gradients, optimizer state */
    const int64_t *saved_bytes;    /* n: activations saved for backward, per micro-batch */
    const int64_t *work_bytes;     /* n: working set while the unit runs */
    pipeline_recv_row_fn recv_row; /* NULL: no transfers */
    void *recv_arg;
};

struct pipeline_stages {
    int32_t n_stages;           /* S >= 1, <= chain n */
    const double *speed;        /* S: speed of each stage's device (> 0) */
    const int64_t *limit_bytes; /* S */
    const int64_t *in_flight;   /* S: micro-batches whose saved bytes a stage holds */
};

struct pipeline_plan {
    int32_t *start;        /* S + 1: stage s covers units start[s] .. start[s+1]-1 (owned) */
    int64_t *time_us;      /* S: each stage's time (owned) */
    int64_t *mem_bytes;    /* S: each stage's memory (owned) */
    int64_t bottleneck_us; /* max of time_us */
};

void pipeline_plan_release(struct pipeline_plan *p);

/*
 * The optimal split of chain c into st->n_stages stages, into *out
 * (initialised here).  BAECHI_EINFEASIBLE (no message: the caller names the
 * layers) when no split fits the limits, BAECHI_EINVAL when S < 1 or S > n,
 * BAECHI_ENOMEM.
 */
int pipeline_plan_solve(const struct pipeline_chain *c, const struct pipeline_stages *st,
                        struct pipeline_plan *out);

/* Memory of units [i, j) on a stage holding `in_flight` micro-batches (the
 * formula above, saturating). */
int64_t pipeline_plan_mem_bytes(const struct pipeline_chain *c, int32_t i, int32_t j,
                                int64_t in_flight);

#endif
