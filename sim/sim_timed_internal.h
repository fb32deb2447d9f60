/*
 * sim_timed_internal.h - the timed model's state (sim_timed.c) and its
 * phases, shared with the incremental re-simulation (sim_incr*.c), which
 * saves the state at checkpoints of a run and resumes a new placement from
 * one.  Nobody else uses it.  The engine knows nothing of its users: what
 * they do during a run (record checkpoints, stop a trial early) goes
 * through one hook (struct timed_hook).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_SIM_SIM_TIMED_INTERNAL_H
#define BAECHI_SIM_SIM_TIMED_INTERNAL_H

#include "sim/collective.h"
#include "sim/evq.h"
#include "sim/sim_internal.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct timed;

/*
 * What a caller of the phases does during a run, at two points, without
 * the engine knowing it (the incremental re-simulation: its checkpoints,
 * the early stop of a search's trials).  NULL, or a NULL member: nothing.
 *   started     dispatch started op v on its device (s->r's start and end
 *               of v set, the device's memory taken); may set s->stop;
 *   dispatched  every idle device has taken its next op: after timed_
 *               start's first dispatch (first true), and at each event
 *               time after its events and dispatch (first false); may set
 *               s->stop.  0 or an error code, which ends the run.
 */
struct timed_hook {
    void (*started)(void *ctx, struct timed *s, int32_t v);
    int (*dispatched)(void *ctx, struct timed *s, bool first);
};

enum timed_event {
    EV_OP_END = 0,     /* a = op */
    EV_XFER_START = 1, /* a = tensor, b = receiving device */
    EV_OP_READY = 2,   /* a = op */
    EV_COLL_START = 3, /* a = collective (sim/collective.h) */
    /* a = a collective requested after the other events of its time: one
     * whose rank ops stand for replicas (docs/symmetry.md: in the exact
     * graph its last replica's rank requests it, after the other replicas'
     * requests of that time), or one of replica 0 that became ready after
     * it on the same devices (the last replica's waits for it) */
    EV_COLL_REQUEST = 4
};

struct timed {
    const struct graph *g;
    const struct cluster *c;
    const int32_t *device_of;
    struct trace *trace;
    struct sim_kinds *obs;
    struct sim_result *r;
    int32_t nd;

    int32_t *pending_in;  /* per op: in-edges not resolved yet */
    int32_t *pending_out; /* per op: consumers not ended yet */
    int64_t *ready_at;    /* per op: latest input arrival */
    int32_t *slot_xfer;   /* per edge tensor slot: its transfer (cross-device edges) */
    int32_t *cache_stamp; /* (local tensor, device) -> producer + 1 */
    int32_t *cache_xfer;
    size_t cache_n;      /* entries of the cache_* arrays */
    int64_t *cache_end;  /* its arrival */
    int64_t *used;       /* per device */
    int32_t *running;    /* per device: op or -1 */
    int64_t *chan;       /* channel "free after" times, layout per channel model */
    struct sim_rq *rq;   /* per device */
    struct sim_rq *held; /* per device: ready ops the pipeline schedule holds back */
    struct sim_sched sched;
    int32_t *xf_pending;  /* per transfer: consumers on its receiver not ended yet */
    int64_t *alias_bytes; /* per op: output bytes in a same-device input's storage (x-alias) */
    int32_t *root_start;  /* per op, CSR: the ops whose storage its outputs share there */
    int32_t *root_op;
    size_t n_xf, alloc_xf;
    struct evq q;
    /* the running ops' ends are not queued: running[d] and its end_us are
     * the device's next end (timed_end_slots) */
    bool end_slots;
    int64_t end_min_us; /* with end_slots: the earliest of those ends, INT64_MAX none */
    int64_t now;
    struct coll_sim coll;
    /* replica symmetry (docs/symmetry.md), with replicated collectives only:
     * per device the replicated collective whose request waits for the end
     * of sym_at_us (-1 none), per collective the earliest start the other
     * replicas' requests of that time leave it */
    int32_t *sym_pend;    /* per device */
    int64_t *sym_min_us;  /* per collective */
    int64_t *sym_at_us;   /* per collective: when it began to wait, -1 not waiting */
    int64_t sym_defer_us; /* the time whose collective requests wait for its end, -1 */

    /* the work done, counted (the incremental re-simulation's budget) */
    uint64_t visits; /* Σ (1 + out-degree) over the ops ended */
    int32_t n_ended; /* ops ended */
    /* the caller's hook (NULL in a plain run), its context, and its verdict */
    const struct timed_hook *hook;
    void *hook_ctx;
    bool stop; /* a hook stopped the run early: the result is incomplete */
};

/*
 * The phases of sim_timed_run.  timed_setup: the state for s's g, c,
 * device_of, trace, obs and r (set by the caller in *s, the rest zero):
 * arrays, persistent bytes at time 0, aliases, the schedule; timed_start:
 * the sources ready and the first dispatch; timed_loop: the events until
 * none is left (or s->stop); timed_finish: final bytes and the check that
 * every op ran; timed_release frees the state (also after a failed setup).
 * All but timed_release return 0, BAECHI_ENOMEM (or a collective's error).
 */
int timed_setup(struct timed *s, const struct pipeline_opts *pipe);

/* Collective ci's last rank is ready: its channels taken from not_before_us
 * (or now) on, its start queued.  0 or a collective's error. */
int timed_coll_request(struct timed *s, int32_t ci, int64_t not_before_us);

/* sim_timed_sym.c (docs/symmetry.md): the state (only for a graph with
 * replicated collectives), whether collective ci's request waits for the
 * end of its time (*deferred: queued as EV_COLL_REQUEST), and that event. */
int timed_sym_setup(struct timed *s);
int timed_sym_ready(struct timed *s, int32_t ci, bool *deferred);
int timed_sym_request(struct timed *s, int32_t ci);

/* Up to this many devices, and without collectives (whose ranks end
 * through the queue), the ops' ends are kept beside the queue, one slot per
 * device: a push and a pop less per op (about a quarter of the queue's
 * work), the same order of events. */
enum { TIMED_END_SLOTS_MAX = 16 };
static inline bool timed_end_slots(const struct graph *g, const struct cluster *c)
{
    return g->n_coll == 0 && c->n_devices <= TIMED_END_SLOTS_MAX;
}
/* end_min_us from running and the ends (after a restore of the state). */
void timed_end_sync(struct timed *s);
/* timed_setup's arrays alone, for alloc_xf transfers (s->g and s->c set);
 * their contents are not set (ready_at, cache_stamp, used, chan zero).
 * The incremental trials keep one such state and restore into it. */
int timed_alloc(struct timed *s, size_t alloc_xf);
int timed_start(struct timed *s);
int timed_loop(struct timed *s);
int timed_finish(struct timed *s);
void timed_release(struct timed *s);

#endif
