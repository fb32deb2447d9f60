/*
 * sim_incr_internal.h - the incremental re-simulation's state (sim_incr.h),
 * private to its files:
 *   sim_incr.c         the entry points: the base run, the trials (resumed
 *                      from a checkpoint, restarted, or run afresh);
 *   sim_incr_ckpt.c    checkpoints of the base run, and restoring one;
 *   sim_incr_log.c     the base run's dispatch log (where a moved source
 *                      would first have been chosen);
 *   sim_incr_cutoff.c  lower bounds on the step after each op, and the hook
 *                      that stops a trial once its step is certainly over
 *                      the cutoff.
 * The timed engine's state and phases are sim_timed_internal.h's.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_SIM_SIM_INCR_INTERNAL_H
#define BAECHI_SIM_SIM_INCR_INTERNAL_H

#include "sim/sim_incr.h"
#include "sim/sim_timed_internal.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    INCR_CHECKPOINTS = 32,         /* per base run, at most */
    INCR_BYTES = 64 * 1024 * 1024, /* ... and at most this much held by them */
    INCR_RESTORE_DIV = 16,         /* restoring costs n_ops / this visits */
};

struct incr_ckpt {
    int64_t time_us;     /* every event up to this time handled, devices dispatched */
    int64_t tail_max_us; /* max of end + tail over the ops started by then */
    uint64_t visits;     /* work done before it */
    int32_t n_ended;
    int64_t step_us;
    int32_t n_oom;
    size_t n_xf, xf_alloc, n_ev, ev_alloc, n_rqi, rqi_alloc;
    uint64_t next_seq;
    int32_t *pending_in, *pending_out; /* n */
    int64_t *ready_at;                 /* n */
    int32_t *xf_pending;
    struct evq_event *ev;
    int64_t *used, *chan; /* nd; the channel layout's size */
    int32_t *running;     /* nd */
    struct sim_device_stats *dev;
    int64_t *link_bytes, *link_transfers; /* nd * nd */
    struct sim_oom *oom;                  /* nd */
    struct sim_rq_item *rqi;              /* per device: its heap, then its run */
    size_t *rq_heap, *rq_run;             /* nd: their lengths */
};

/*
 * A device's dispatches in the base run, in time order: when it chose an
 * op, and whether that op was ready at time 0 (then its topological index
 * decides against a source moved there); an idle device with an empty
 * queue is an entry too (a source moved there would start at once), once
 * per idle spell.  Only the first entries matter: from the first that is
 * not a time-0 choice, any source wins.
 */
struct incr_log {
    int64_t *at_us; /* when */
    int32_t *pmax;  /* max topological index of the time-0 choices up to here */
    size_t n, alloc, alloc_p;
    size_t n_zero;   /* entries before the first that is not a time-0 choice */
    bool idle;       /* the last entry is an idle, empty queue */
    int32_t last_op; /* the op of the last entry, -1 none */
};

struct sim_incr {
    const struct graph *g;
    const struct cluster *c;
    int32_t n, nd, every, max_ckpt, n_ckpt, last_ended;
    size_t n_chan, n_slots;
    struct incr_ckpt *ck;
    bool valid; /* a base is recorded */
    int32_t *base_dev, *base_slot;
    int64_t *base_start, *base_end, *base_persist; /* base_persist: per device */
    int64_t *tail_us;                              /* NULL: no cutoff (a fused graph) */
    int64_t *tail_base_us; /* with tail_us: the chains after each op on the base's placement */
    int64_t critical_path_us, lower_bound_us;
    int64_t *load_us;  /* per device: the trial's Σ compute (scratch) */
    int64_t *kind_cur; /* scratch of the kinds the model keeps (not reported) */
    uint8_t *kind_at_peak;
    struct incr_log *log; /* per device, of the base run */
    /* a resumed trial's state, allocated once and restored into (docs/
     * auto.md, "A trial keeps its state") */
    struct timed tr;
    bool tr_ready;
    int32_t *moved; /* the ops the trial places off their base device */
    int32_t n_moved;
    int64_t *base_load;            /* per device: the base's Σ compute */
    bool load_sat;                 /* a base_load saturated: the trial's is summed in full */
    int64_t *delta_persist;        /* per device: the trial's persistent bytes - the base's */
    int32_t *pend_in0, *pend_out0; /* per op: in- and out-degree (a run's start) */
    /* a trial with a cutoff (sim_incr_cutoff.c) */
    int64_t cutoff_us;  /* stop once the step is certainly >= this */
    int32_t moved_left; /* moved ops not started yet (tail_base_us holds once none is) */
};

/* sim_incr_ckpt.c */

/* A checkpoint's arrays for in's graph and cluster (their contents unset);
 * 0 or BAECHI_ENOMEM.  incr_ckpt_release frees them (also half-made). */
int incr_ckpt_alloc(struct sim_incr *in, struct incr_ckpt *k);
void incr_ckpt_release(struct incr_ckpt *k);
/* A checkpoint of s (between two event times), about every in->every
 * ended ops, at most in->max_ckpt.  0 or BAECHI_ENOMEM. */
int incr_ckpt_take(struct sim_incr *in, const struct timed *s);
/* s (set up for the trial) takes the state of checkpoint k, the moved
 * ops' persistent bytes (in->delta_persist) added.  0 or BAECHI_ENOMEM. */
int incr_ckpt_restore(struct sim_incr *in, const struct incr_ckpt *k, struct timed *s);

/* sim_incr_log.c */

/* After a dispatch of the base run at now_us, device d runs op v, started
 * now (its ready time ready_us), or is idle (v < 0: its queue is empty).
 * 0 or BAECHI_ENOMEM. */
int incr_log_note(struct sim_incr *in, int32_t d, int64_t now_us, int32_t v, int64_t ready_us);
/* The first dispatch on device d of the base run at which source v would
 * have been chosen over the base's choice; INT64_MAX when none. */
int64_t incr_log_source_enters(const struct sim_incr *in, int32_t d, int32_t v);

/* sim_incr_cutoff.c */

/* in->tail_us (none for a fused graph: no cutoff).  0 or BAECHI_ENOMEM. */
int incr_tails(struct sim_incr *in);
/* After a base run: in->tail_base_us, and each checkpoint's tail_max_us. */
void incr_tails_base(struct sim_incr *in);
void incr_prefix_tails(struct sim_incr *in);
/* The hook of a trial with a cutoff (hook_ctx: in; in->cutoff_us and
 * in->moved_left set). */
const struct timed_hook *incr_cutoff_hook(void);

#endif
