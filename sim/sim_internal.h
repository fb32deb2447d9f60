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

/*
 * The models.  Called by sim_run() after it checked device_of and
 * allocated r (sim_result_alloc); they fill start/end, step_us, dev[] and
 * the link matrices.  Return 0 or BAECHI_ENOMEM.
 */
int sim_baechi_run(const struct graph *g, const struct cluster *c, const int32_t *device_of,
                   struct trace *trace, const struct sim_mem_obs *obs, struct sim_result *r);
/* pipe: the pipeline schedule of a micro-batched graph (sim_sched.c) */
int sim_timed_run(const struct graph *g, const struct cluster *c, const int32_t *device_of,
                  const struct pipeline_opts *pipe, struct trace *trace,
                  const struct sim_mem_obs *obs, struct sim_result *r);

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
    int32_t *stage_of_dev;         /* per device: its stage, -1 none */
    int32_t *unit_of;              /* per op: its unit in its direction's sequence, -1 none */
    uint8_t *dir_of;               /* per op: 0 forward, 1 backward */
    int32_t *left;                 /* (stage, dir, unit): ops not ended yet */
    int32_t *done;                 /* (stage, dir): units ended, as a prefix */
    int32_t *warmup;               /* per stage */
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

/* An allocation to the observer, if any (sim.h, struct sim_mem_obs). */
static inline void sim_obs_mem(const struct sim_mem_obs *obs, int32_t d, int64_t time_us,
                               int64_t delta, enum sim_mem_what what, int32_t op, int32_t tensor)
{
    if (obs && delta != 0) {
        obs->fn(obs->ctx, d, time_us, delta, what, op, tensor, true);
    }
}

/* A release (delta usually negative) to the observer, if any. */
static inline void sim_obs_free(const struct sim_mem_obs *obs, int32_t d, int64_t time_us,
                                int64_t delta, enum sim_mem_what what, int32_t op, int32_t tensor)
{
    if (obs && delta != 0) {
        obs->fn(obs->ctx, d, time_us, delta, what, op, tensor, false);
    }
}

/* Allocates r's arrays for g and c (zeroed; limits from the cluster). */
int sim_result_alloc(struct sim_result *r, const struct graph *g, const struct cluster *c);

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
    struct sim_rq_item *heap;
    size_t nr, alloc;
};

int sim_rq_push(struct sim_rq *q, int64_t time_us, int32_t topo, int32_t op);
int sim_rq_push_prio(struct sim_rq *q, int32_t prio, int64_t time_us, int32_t topo, int32_t op);
/* Removes the smallest item; the queue must not be empty. */
struct sim_rq_item sim_rq_pop(struct sim_rq *q);
void sim_rq_release(struct sim_rq *q);

/*
 * Memory after an allocation of `op` at time_us on device d: updates the
 * peak, and records the device's first over-limit allocation (a limit <= 0
 * means unlimited).
 */
static inline void sim_mem_note(struct sim_result *r, int32_t d, int64_t used, int32_t op,
                                int64_t time_us)
{
    struct sim_device_stats *s = &r->dev[d];

    if (used > s->peak_bytes) {
        s->peak_bytes = used;
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
