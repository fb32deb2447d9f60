/*
 * sim.h - the simulator: replays one step of a placed graph on a cluster
 * model and reports step time, memory and traffic.  Two models behind one
 * interface (DESIGN.md "Semantics that must hold"):
 *
 * SIM_MODEL_BAECHI  the original virtual scheduler, exactly (baechi-spec §5):
 *   list scheduling popped in (ready time, topological index) order; one
 *   transfer channel per device shared by sends and receives, transfers
 *   committed when the producer is popped, a tensor sent once per receiving
 *   device; memory freed when the last consumer is popped; receivers hold no
 *   copy; persistent bytes are part of the outputs and stay.  Same makespan
 *   and per-device peaks as the original.
 *
 * SIM_MODEL_TIMED (default)  true discrete events in time order:
 *   each device computes one op at a time, picking among its ready ops by
 *   (ready time, topological index); transfers use the cluster's channel
 *   model (shared, duplex send/receive engines, or per link) and start when
 *   the producer ends and the engines are free; a tensor crosses to a device
 *   once and occupies its bytes there from the start of the transfer until
 *   its last consumer on that device ends; persistent bytes are allocated on
 *   the op's device for the whole step; an op's other output bytes are held
 *   from its start until its last consumer ends and its last send completes;
 *   temp bytes only while it runs.  So peak memory is right in time.
 *
 * Both report the same metrics; running out of memory is a result (the
 * first over-limit allocation per device: op, time and excess), never an
 * error.  Compute time of op v on device d is cluster_compute_us(weight_us).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_SIM_SIM_H
#define BAECHI_SIM_SIM_H

#include "core/cluster.h"
#include "core/graph.h"
#include "sim/sim_links.h"
#include "sim/trace.h"

#include <stdbool.h>
#include <stdint.h>

enum sim_model { SIM_MODEL_TIMED = 0, SIM_MODEL_BAECHI = 1 };

/* "timed" / "baechi" -> model; returns 0 or BAECHI_EINVAL. */
int sim_model_parse(const char *s, enum sim_model *m);
const char *sim_model_name(enum sim_model m);

/*
 * Memory events, for those who want to know what is live (sim/explain.h):
 * every change of a device's allocated bytes, split by what it is.  The
 * deltas of one device sum to its memory curve: after each event with
 * `alloc` set the running sum is what the model compares with the peak and
 * the limit (an allocation in parts never sums above its whole); frees
 * (`alloc` false) are never compared, even when their delta is positive
 * (the baechi model's release of outputs smaller than the persistent bytes
 * they hold).  A free names the same (what, op, tensor) as its allocation.
 */
enum sim_mem_what {
    SIM_MEM_PERSISTENT = 0, /* an op's persistent bytes (weights, optimizer state) */
    SIM_MEM_OUTPUT = 1,     /* an op's outputs beyond its persistent bytes */
    SIM_MEM_TEMP = 2,       /* an op's scratch while it runs */
    SIM_MEM_RECEIVED = 3    /* a copy of `tensor` received on the device (timed model) */
};

typedef void (*sim_mem_fn)(void *ctx, int32_t device, int64_t time_us, int64_t delta_bytes,
                           enum sim_mem_what what, int32_t op, int32_t tensor, bool alloc);

struct sim_mem_obs {
    sim_mem_fn fn;
    void *ctx;
};

/*
 * What a device's memory holds, by kind (a tensor's role in a training
 * step, from its producing op's phase and what the model allocated):
 *   parameters   persistent bytes of forward (and backward) ops
 *   optimizer    persistent bytes and outputs of update ops
 *   gradients    outputs of backward ops
 *   saved        forward outputs a backward op reads (kept for backward),
 *                also through a view of them
 *   activations  other forward outputs
 *   received     copies of tensors received from another device (timed)
 *   temp         scratch of a running op
 */
enum mem_kind {
    MEM_KIND_PARAMETERS = 0,
    MEM_KIND_OPTIMIZER,
    MEM_KIND_GRADIENTS,
    MEM_KIND_SAVED,
    MEM_KIND_ACTIVATIONS,
    MEM_KIND_RECEIVED,
    MEM_KIND_TEMP,
    MEM_KIND_N
};

/* "parameters", "optimizer", ... (the names of the JSON and the database). */
const char *mem_kind_name(enum mem_kind k);

/*
 * Where a long run stands (`--progress`): called with the ops ended so far
 * (of n_ops) and the simulated time reached, after every
 * SIM_PROGRESS_EVERY_OPS ops have ended and once more when the run has
 * ended (done).  Counted by work, never by the clock, and it only reads the
 * run: a result is the same with and without it.  The timed model calls it;
 * the baechi model (the original's) runs without.
 */
enum { SIM_PROGRESS_EVERY_OPS = 1 << 16 };
typedef void (*sim_progress_fn)(void *ctx, int32_t ops_ended, int32_t n_ops, int64_t now_us,
                                bool done);

struct sim_options {
    enum sim_model model;
    struct trace *trace; /* record spans here when not NULL (initialised by the caller) */
    const struct sim_mem_obs *mem_obs; /* memory events when not NULL */
    /* the pipeline schedule of a micro-batched graph in the timed model
     * (sim_sched.c); NULL: the graph's (its x-pipeline, default 1f1b).  The
     * baechi model ignores it: the original has no schedule */
    const struct pipeline_opts *pipeline;
    sim_progress_fn progress; /* NULL: none */
    void *progress_ctx;
};

struct sim_oom {
    int32_t device;
    int32_t op;         /* the op whose allocation crossed the limit */
    int64_t time_us;    /* when */
    int64_t over_bytes; /* used - limit right after that allocation */
};

struct sim_device_stats {
    int64_t peak_bytes;
    int64_t limit_bytes;
    int64_t busy_us;     /* Σ compute time run on the device */
    int64_t final_bytes; /* still allocated at the end of the step */
    int32_t n_ops;
    bool oom; /* peak_bytes > limit_bytes */
};

struct sim_result {
    enum sim_model model;
    int64_t step_us; /* makespan: the last op's end */
    int32_t n_devices;
    struct sim_device_stats *dev; /* n_devices */
    /* per link (sim_links.h: every pair, src * n_devices + dst, up to
     * SIM_LINKS_DENSE_MAX devices; above, the pairs the placement uses):
     * bytes and number of tensor transfers; walk i < links.n, with
     * sim_links_pair(&links, i, ...) naming the devices */
    struct sim_links links;
    int64_t *link_bytes;
    int64_t *link_transfers;
    int64_t total_compute_us;
    int64_t critical_path_us;
    int64_t lower_bound_us; /* max(critical path, Σ compute / devices), see sim_lower_bound_us */
    struct sim_oom *oom;    /* the first over-limit allocation per device that had one */
    int32_t n_oom;
    int64_t *start_us; /* per op */
    int64_t *end_us;   /* per op */
    /* n_devices x MEM_KIND_N: what made up each device's peak, the first
     * time it was reached, by kind (sums to dev[d].peak_bytes) */
    int64_t *peak_kind_bytes;
    /* the workload asks for the interleaved schedule with V > 1 but the
     * placement gives each device one chunk: it ran as 1F1B (say so) */
    bool interleaved_one_chunk;
};

/* Per op (*saved, malloc'ed): 1 when a backward op reads its outputs or a
 * view of them (the "saved" kind).  0 or BAECHI_ENOMEM. */
int sim_saved_ops(const struct graph *g, uint8_t **saved);

/* The kind of a memory event (for observers, struct sim_mem_obs). */
enum mem_kind sim_mem_kind(const struct graph *g, const uint8_t *saved, enum sim_mem_what what,
                           int32_t op);

/* One warning (err_warn) for what the run ignored of the graph's pipeline
 * options (interleaved_one_chunk); the commands call it once per run. */
void sim_result_warn(const struct sim_result *r, const struct graph *g);

void sim_result_init(struct sim_result *r);
void sim_result_release(struct sim_result *r);

/*
 * Simulates graph g placed by device_of[op] (every entry in 0..n_devices-1,
 * checked) on cluster c.  Fills r (initialised by this call).  Returns 0,
 * BAECHI_EINVAL for a bad placement, BAECHI_ENOMEM.
 */
int sim_run(const struct graph *g, const struct cluster *c, const int32_t *device_of,
            const struct sim_options *opt, struct sim_result *r);

/*
 * The lower bound on any step time: max(critical path, Σ compute / Σ speed),
 * with the critical path at the fastest device's speed (µs, rounded up).
 * With identical devices of speed 1: max(critical path, Σ compute / k).
 * Into *lb_us; 0 or BAECHI_ENOMEM.
 */
int sim_lower_bound_us(const struct graph *g, const struct cluster *c, int64_t *lb_us);

/*
 * Consistency checker (tests): every op ran once, end = start + compute,
 * no device runs two ops at once, consumers start after producers end,
 * memory never negative.  Returns 0 or BAECHI_EINVAL with what is wrong.
 */
int sim_check(const struct graph *g, const struct cluster *c, const int32_t *device_of,
              const struct sim_result *r);

#endif
