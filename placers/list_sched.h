/*
 * list_sched.h - the machinery m-ETF and m-SCT share (baechi-spec §3.1-§3.6):
 * per-device compute and channel clocks, the per-device tensor cache, the
 * dry-run input-ready time of an op on a device, the memory counters with
 * group reservations, and commit (place + start an op, send its inputs).
 *
 * Ready times are cached per (op, device) with an exact invalidation rule:
 * an entry depends on the channels of its sending devices and on the channel
 * and cache of its own device when it involves a transfer; every device has
 * the stamp of its last change.  The original's rule (§3.4) is also exact,
 * so both give the values a recomputation from scratch gives.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_PLACERS_LIST_SCHED_H
#define BAECHI_PLACERS_LIST_SCHED_H

#include "placers/placer_internal.h"

#include <stdbool.h>
#include <stdint.h>

#define LS_NONE INT64_MIN
#define LS_INF  INT64_MAX

enum ls_dev_state { LS_FREE = 0, LS_BUSY = 1, LS_AWAKE = 2 };

/* Why a run failed (filled before BAECHI_EINFEASIBLE is returned). */
struct ls_fail {
    const char *what;    /* "memory deadlock", "group member does not fit", ... */
    int32_t node;        /* a node that could not be scheduled / placed */
    int32_t device;      /* the device it was closest to fitting on, or -1 */
    int64_t need_bytes;  /* what it needed */
    int64_t avail_bytes; /* what was available there */
    int32_t n_left;      /* nodes left unscheduled */
};

struct ls_state {
    const struct pgraph *p;
    int32_t D;
    const int64_t *limit;
    bool reserve;
    bool persist_at_place;

    /* devices */
    int64_t *free_at, *chan, *cur, *used, *peak;
    int32_t *last_op;
    uint8_t *state;
    int64_t *dev_changed; /* stamp of the last channel/cache change */
    int64_t stamp;

    /* ops */
    int32_t *dev;
    int32_t *ready_count, *exec_out;
    int64_t *start, *end, *ready_ts;
    uint8_t *done;
    int32_t n_scheduled;

    /* the ready list (unordered; keys are unique so order never matters) */
    int32_t *ready, *ready_pos; /* ready_pos = -1 when not ready */
    int32_t n_ready;
    int32_t *fresh; /* ops made ready by the last ls_advance */
    int32_t n_fresh;

    /* tensor cache: recv_end of tensor x at device d, cache[d * n_tensors + x], -1 = absent */
    int64_t *cache;

    /* ready-time cache per (op, device) */
    int64_t *rt, *rt_stamp; /* rt_stamp -1: not computed */
    uint64_t *rt_mask;      /* devices the value depends on */

    /* groups */
    int32_t *gdev;
    int64_t *resv_avail, *resv_limit;
    uint8_t *resv_active;
    int32_t *refcount;

    struct ls_fail fail;
};

int ls_init(struct ls_state *s, const struct pgraph *p, int32_t n_dev, const int64_t *limit,
            bool reserve, bool persist_at_place);
void ls_release(struct ls_state *s);

/* Dry-run input-ready time of ready op v on device d (cached), no memory check. */
int64_t ls_ready_time(struct ls_state *s, int32_t v, int32_t d);

/* Whether the cached ready time of (v, d) is still exact. */
bool ls_rt_valid(const struct ls_state *s, int32_t v, int32_t d);

/* placeable(v, d) of §3.3. */
bool ls_placeable(const struct ls_state *s, int32_t v, int32_t d);

/* group_fits(g, d) of §3.3. */
bool ls_group_fits(const struct ls_state *s, int32_t g, int32_t d);

/* Bytes needed to admit group g (§3.3 group_need). */
int64_t ls_group_need(const struct ls_state *s, int32_t g);

/*
 * Step (a) of the event loop at time t: every device's clock to t, the
 * successors of ops ending exactly at t become ready (appended to s->fresh;
 * the caller empties it).
 */
void ls_advance(struct ls_state *s, int64_t t);

/*
 * Commits v on d (§3.5 commit): transfers, group placement (+ reservation),
 * memory, start/end, frees, removal from the ready list.  Returns 0 or
 * BAECHI_EINFEASIBLE (s->fail filled) where the original asserts.
 */
int ls_commit(struct ls_state *s, int32_t v, int32_t d);

/* Fills s->fail for a deadlock (ops left) and returns BAECHI_EINFEASIBLE. */
int ls_deadlock(struct ls_state *s);

/* Bytes node v holds on device d in this accounting now (its persistent
 * bytes, and its outputs while a consumer is still to come): what the
 * infeasibility message lists as the largest consumers of a device. */
int64_t ls_held_bytes(const struct ls_state *s, int32_t v, int32_t d);

/*
 * The original's event loop (§3.5) literally: before each decision the
 * schedule times of every ready op on every device.  fav == NULL: m-ETF,
 * else m-SCT with favourite children fav[] (§4.3; deviation of §4.4: an
 * urgent candidate needs a schedule time on the device).  *estimate_us = the
 * time of the last event.
 */
int ls_run_reference(struct ls_state *s, const int32_t *fav, int64_t *estimate_us);

/*
 * After a run: on success copies the device of every node into device_of and
 * the per-device peaks into st; BAECHI_EINFEASIBLE becomes a message naming
 * the op and the bytes missing (algo = "m-etf", ...).  Defined in m_etf.c.
 */
int ls_finish(const struct palgo_ctx *x, struct ls_state *s, int rc, const char *algo,
              int32_t *device_of, struct placer_stats *st);

#endif
