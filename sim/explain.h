/*
 * explain.h - what fills a device's memory: the live set at each device's
 * peak (and at its first over-limit allocation), by tensor and by kind, in
 * either simulator model.
 *
 * The live set is the model's own accounting, not a second estimate: the
 * simulation is run again with a memory observer (sim.h, struct
 * sim_mem_obs) and the set of live allocations is copied the first time a
 * device's memory reaches its peak (known from the first run; the models
 * are deterministic).  So the kinds of a snapshot always sum to the peak.
 *
 * Kinds (a tensor's role in a training step, from the producing op's phase
 * and what the model allocated):
 *   parameters      persistent bytes of forward (and backward) ops
 *   optimizer       persistent bytes and outputs of update ops
 *   gradients       outputs of backward ops
 *   saved           forward outputs that a backward op reads (kept for backward)
 *   activations     other forward outputs
 *   received        copies of tensors received from another device (timed model)
 *   temp            scratch of a running op
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_SIM_EXPLAIN_H
#define BAECHI_SIM_EXPLAIN_H

#include "core/cluster.h"
#include "core/graph.h"
#include "sim/sim.h"

#include <stdbool.h>
#include <stdint.h>

/* The kinds (enum mem_kind) are the simulator's: sim/sim.h. */

/* One live allocation. */
struct mem_live {
    int32_t op;       /* the producing op */
    int32_t tensor;   /* the received tensor (graph tensor id), -1 for an op's own bytes */
    int64_t bytes;    /* allocated for it on the device */
    int64_t since_us; /* allocated at (model time) */
    uint8_t kind;     /* enum mem_kind */
};

/* What was live on one device at one moment. */
struct mem_snapshot {
    bool valid;
    int64_t time_us;                /* the moment (model time) */
    int32_t at_op;                  /* the op whose allocation made the moment */
    int64_t total_bytes;            /* = Σ kind_bytes = the device's memory then */
    int64_t kind_bytes[MEM_KIND_N]; /* totals per kind */
    int32_t n_live;                 /* live allocations then */
    struct mem_live *top;           /* the largest, bytes descending (ties: op id) */
    int32_t n_top;
};

struct mem_explain_device {
    int64_t limit_bytes;      /* the device's memory in the simulated world */
    struct mem_snapshot peak; /* the first time the device reached its peak */
    struct mem_snapshot oom;  /* its first over-limit allocation (valid when there was one) */
};

struct mem_explain {
    enum sim_model model;
    int32_t n_devices;
    struct mem_explain_device *dev;
};

void mem_explain_init(struct mem_explain *x);
void mem_explain_release(struct mem_explain *x);

/*
 * Explains r, a simulation of g placed by device_of on c with model `model`
 * (sim_run's inputs, unchanged): re-runs it with a memory observer and fills
 * x (initialised here) with, per device, the live set at the peak and at the
 * first over-limit allocation, keeping the top_n largest allocations of
 * each.  0, BAECHI_ENOMEM, or BAECHI_EINVAL when r does not match (a BUG in
 * the caller).  Time O((V + T) log) plus O(live) per snapshot.
 */
int mem_explain_run(const struct graph *g, const struct cluster *c, const int32_t *device_of,
                    enum sim_model model, const struct sim_result *r, int32_t top_n,
                    struct mem_explain *x);

#endif
