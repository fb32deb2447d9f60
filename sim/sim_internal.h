/*
 * sim_internal.h - what the simulator's files share (sim.c, sim_baechi.c,
 * sim_timed.c) and nobody else uses: the two model entry points, the ready
 * queue keyed by (ready time, topological index), and memory bookkeeping.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_SIM_SIM_INTERNAL_H
#define BAECHI_SIM_SIM_INTERNAL_H

#include "sim/sim.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * Memory by kind, kept inline by the models (deviation: beyond the
 * original).  Each device's bytes by kind (cur) are updated at every
 * allocation and release; the model's own peak test (sim_mem_note) marks
 * the device `at_peak`, and the kinds are copied to peak
 * (sim_result.peak_kind_bytes) only when cur next changes: one copy of
 * seven counters per new peak, none for the other events (the tracker
 * before called an observer per event).
 * The models report every change before the model's sum includes it, so
 * Σ cur is the model's memory at every sim_mem_note (sim_run checks that
 * the kinds at the peak add up to it).  An observer (sim_options.mem_obs)
 * and the trace's kind series see every event (sim_kinds_note_slow).
 */
struct sim_kinds {
    const uint8_t *phase; /* g->phase, or NULL (all forward) */
    bool forward_only;    /* no backward or update op: the kind follows from `what` */
    const uint8_t *saved; /* sim_saved_ops(), or NULL when no op is backward */
    int64_t *cur;         /* n_devices x MEM_KIND_N */
    int64_t *peak;        /* n_devices x MEM_KIND_N: r->peak_kind_bytes */
    uint8_t *at_peak;     /* per device: cur is the peak's, not copied yet */
    struct trace *trace;  /* samples of memory by kind, when tracing */
    int rc;               /* the first failure recording them */
    const struct sim_mem_obs *next;
    bool slow; /* trace or next: sim_kinds_note_slow() */
};

/* The kind of an event (sim_mem_kind() without the graph). */
static inline enum mem_kind sim_kind_of(const uint8_t *phase, const uint8_t *saved,
                                        enum sim_mem_what what, int32_t op)
{
    uint8_t ph = phase ? phase[op] : PHASE_FORWARD;

    switch (what) {
    case SIM_MEM_PERSISTENT:
        return ph == PHASE_UPDATE ? MEM_KIND_OPTIMIZER : MEM_KIND_PARAMETERS;
    case SIM_MEM_TEMP:
        return MEM_KIND_TEMP;
    case SIM_MEM_RECEIVED:
        return MEM_KIND_RECEIVED;
    case SIM_MEM_OUTPUT:
    default:
        if (ph == PHASE_BACKWARD) {
            return MEM_KIND_GRADIENTS;
        }
        if (ph == PHASE_UPDATE) {
            return MEM_KIND_OPTIMIZER;
        }
        return saved && saved[op] ? MEM_KIND_SAVED : MEM_KIND_ACTIVATIONS;
    }
}

/* Copies device d's kinds to its peak snapshot if they are the peak's. */
static inline void sim_kinds_flush(struct sim_kinds *k, int32_t d)
{
    if (k->at_peak[d]) {
        memcpy(k->peak + (size_t)d * MEM_KIND_N, k->cur + (size_t)d * MEM_KIND_N,
               sizeof(*k->cur) * MEM_KIND_N);
        k->at_peak[d] = 0;
    }
}

/* sim_kinds_note() with a trace or an observer: every event goes to them. */
void sim_kinds_note_slow(struct sim_kinds *k, int32_t d, int64_t time_us, int64_t delta,
                         enum sim_mem_what what, int32_t op, int32_t tensor, bool alloc);

/*
 * One allocation (alloc) or release of delta bytes on device d, reported
 * before the model adds it.  Inlined at every call site, where `what` is a
 * constant: a few instructions per event (an observer call per event cost
 * a fifth of a run on GNMT).
 */
__attribute__((always_inline)) static inline void sim_kinds_note(struct sim_kinds *k, int32_t d,
                                                                 int64_t time_us, int64_t delta,
                                                                 enum sim_mem_what what, int32_t op,
                                                                 int32_t tensor, bool alloc)
{
    if (k->slow) {
        sim_kinds_note_slow(k, d, time_us, delta, what, op, tensor, alloc);
        return;
    }
    sim_kinds_flush(k, d);
    /* with `what` a constant, the first kind is one too */
    k->cur[(size_t)d * MEM_KIND_N + (k->forward_only
                                         ? sim_kind_of(NULL, NULL, what, op)
                                         : sim_kind_of(k->phase, k->saved, what, op))] += delta;
}

/*
 * An op's outputs appear at once on d (the baechi model, no trace and no
 * observer): `persist` bytes of kind parameters/optimizer and `rest` of the
 * output kind, as the split events the observer sees add up to.
 */
__attribute__((always_inline)) static inline void
sim_kinds_outputs(struct sim_kinds *k, int32_t d, int32_t op, int64_t persist, int64_t rest)
{
    int64_t *cur = k->cur + (size_t)d * MEM_KIND_N;

    sim_kinds_flush(k, d);
    if (k->forward_only) {
        cur[MEM_KIND_PARAMETERS] += persist;
        cur[MEM_KIND_ACTIVATIONS] += rest;
        return;
    }
    cur[sim_kind_of(k->phase, k->saved, SIM_MEM_PERSISTENT, op)] += persist;
    cur[sim_kind_of(k->phase, k->saved, SIM_MEM_OUTPUT, op)] += rest;
}

/*
 * The models.  Called by sim_run() after it checked device_of and
 * allocated r (sim_result_alloc); they fill start/end, step_us, dev[] and
 * the link matrices, and report every allocation and release to obs.
 * Return 0 or BAECHI_ENOMEM.
 */
int sim_baechi_run(const struct graph *g, const struct cluster *c, const int32_t *device_of,
                   struct trace *trace, struct sim_kinds *obs, struct sim_result *r);
/* pipe: the pipeline schedule of a micro-batched graph (sim_sched.c); opt:
 * its progress callback when not NULL (the other options are the others) */
int sim_timed_run(const struct graph *g, const struct cluster *c, const int32_t *device_of,
                  const struct pipeline_opts *pipe, struct trace *trace, struct sim_kinds *obs,
                  const struct sim_options *opt, struct sim_result *r);

/*
 * The pipeline schedule of a micro-batched graph in the timed model
 * (sim_sched.c has the rules): which stage, direction and unit each op
 * belongs to, each stage's warm-up, and the units ended so far.  `on` is
 * false for a graph without micro-batches: nothing is held, every priority
 * is 0.  `forced` lifts every gate (the timed model's way out should a
 * placement make the schedule wait for itself).
 */
struct sim_sched {
    bool on, forced;
    enum pipeline_schedule schedule;
    int32_t n_stages, m, v, total; /* K, micro-batches, virtual stages, m * v */
    int32_t n_slots;               /* devices the forward pass visits: one counter set each */
    int32_t *slot_of_dev;          /* per device: its slot, -1 none */
    int32_t *stage_of_slot;        /* per slot: its pipeline stage 0..K-1 */
    int32_t *unit_of;              /* per op: its unit in its direction's sequence, -1 none */
    uint8_t *dir_of;               /* per op: 0 forward, 1 backward, 2 update (held to the flush) */
    int32_t *left;                 /* (slot, dir, unit): ops not ended yet */
    int32_t *done;                 /* (slot, dir): units ended, as a prefix */
    int32_t *warmup;               /* per slot */
    /* the interleaved schedule asked for, but no device holds more than one
     * chunk: run as 1F1B (interleaved with V = 1), reported in sim_result */
    bool interleaved_one_chunk;
};

/* Sets s up for g placed by device_of on nd devices under o.  0 or
 * BAECHI_ENOMEM; release with sim_sched_release in either case. */
int sim_sched_init(struct sim_sched *s, const struct graph *g, const int32_t *device_of, int32_t nd,
                   const struct pipeline_opts *o);
void sim_sched_release(struct sim_sched *s);
/* The ready-queue priority of op v (smaller first). */
int32_t sim_sched_prio(const struct sim_sched *s, const struct graph *g, const int32_t *device_of,
                       int32_t v);
/* Whether op v may start now. */
bool sim_sched_open(const struct sim_sched *s, const int32_t *device_of, int32_t v);
/* Op v ended; true when its stage's ended units moved (held ops may start). */
bool sim_sched_op_end(struct sim_sched *s, const int32_t *device_of, int32_t v);

/* An allocation (sim.h, struct sim_mem_obs). */
static inline void sim_obs_mem(struct sim_kinds *obs, int32_t d, int64_t time_us, int64_t delta,
                               enum sim_mem_what what, int32_t op, int32_t tensor)
{
    if (delta != 0) {
        sim_kinds_note(obs, d, time_us, delta, what, op, tensor, true);
    }
}

/* A release (delta usually negative). */
static inline void sim_obs_free(struct sim_kinds *obs, int32_t d, int64_t time_us, int64_t delta,
                                enum sim_mem_what what, int32_t op, int32_t tensor)
{
    if (delta != 0) {
        sim_kinds_note(obs, d, time_us, delta, what, op, tensor, false);
    }
}

/* cluster_compute_us() without the call at speed 1.0 (the common case). */
static inline int64_t sim_compute_us(const struct cluster *c, int32_t d, int64_t weight_us)
{
    return c->dev[d].speed == 1.0 ? weight_us : cluster_compute_us(c, d, weight_us);
}

/* r's critical_path_us and lower_bound_us (they do not depend on the placement).
 * 0 or BAECHI_ENOMEM. */
int sim_result_bounds(const struct graph *g, const struct cluster *c, struct sim_result *r);

/* Allocates r's arrays for g and c (zeroed; limits from the cluster), the
 * links dense (every pair: sim_incr.c, whose placements change). */
int sim_result_alloc(struct sim_result *r, const struct graph *g, const struct cluster *c);

/* The same for g placed by device_of: the links of sim_links_init_placed
 * (above SIM_LINKS_DENSE_MAX devices only the pairs it uses). */
int sim_result_alloc_placed(struct sim_result *r, const struct graph *g, const struct cluster *c,
                            const int32_t *device_of);

/*
 * A ready queue: a binary heap of (priority, time, topological index, op),
 * smallest first.  Topological indices are unique, so the order is total.
 * The priority is 0 but in the timed model on micro-batched graphs.
 */
struct sim_rq_item {
    int32_t prio;
    int64_t time_us;
    int32_t topo;
    int32_t op;
};

struct sim_rq {
    size_t nr; /* items queued (heap and run) */
    struct sim_rq_item *heap;
    size_t heap_nr, alloc;
    /* Items pushed in ascending order (the sources, all ready at 0, pushed
     * in topological order) queue in a sorted run beside the heap; a pop
     * takes the smaller of the two fronts.  The heap then holds only what
     * arrives out of order, and stays small. */
    struct sim_rq_item *run; /* run[run_head .. run_nr-1] */
    size_t run_head, run_nr, run_alloc;
};

int sim_rq_push(struct sim_rq *q, int64_t time_us, int32_t topo, int32_t op);
int sim_rq_push_prio(struct sim_rq *q, int32_t prio, int64_t time_us, int32_t topo, int32_t op);
/* Removes the smallest item; the queue must not be empty. */
struct sim_rq_item sim_rq_pop(struct sim_rq *q);
void sim_rq_release(struct sim_rq *q);
/* Removes the items whose op is not on device d by device_of (the
 * incremental re-simulation moves ready ops between queues); how many.
 * O(items). */
size_t sim_rq_drop_moved(struct sim_rq *q, int32_t d, const int32_t *device_of);

/*
 * Memory after an allocation of `op` at time_us on device d: updates the
 * peak (and marks k's kinds as the peak's), and records the device's first over-limit allocation (a
 * limit <= 0 means unlimited).
 */
static inline void sim_mem_note(struct sim_result *r, struct sim_kinds *k, int32_t d, int64_t used,
                                int32_t op, int64_t time_us)
{
    struct sim_device_stats *s = &r->dev[d];

    if (used > s->peak_bytes) {
        s->peak_bytes = used;
        k->at_peak[d] = 1;
    }
    if (s->limit_bytes > 0 && used > s->limit_bytes && !s->oom) {
        s->oom = true;
        r->oom[r->n_oom].device = d;
        r->oom[r->n_oom].op = op;
        r->oom[r->n_oom].time_us = time_us;
        r->oom[r->n_oom].over_bytes = used - s->limit_bytes;
        r->n_oom++;
    }
}

#endif
