/*
 * sim_incr_ckpt.c - checkpoints of the incremental re-simulation
 * (sim_incr_internal.h): the state of a base run saved, and restored into a
 * trial.
 *
 * A checkpoint holds what the timed model's state (sim_timed_internal.h)
 * has that a later event can read and the base run's final arrays do not
 * give back: per op the pending counts and ready times, the transfers'
 * pending consumers, the event queue, the ready queues, the devices'
 * memory, channels and running ops, and the result so far.  Three arrays
 * come from the base run's end instead: an op's start and end, and an edge
 * slot's transfer, are written once (when the op starts, ends, or its
 * producer ends) and read only after that in the same run, so the values
 * of the ops done by the checkpoint are the base's, and the others are
 * written again by the trial before anyone reads them.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "sim/sim_incr_internal.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"

#include <stdlib.h>
#include <string.h>

void incr_ckpt_release(struct incr_ckpt *k)
{
    free(k->pending_in);
    free(k->pending_out);
    free(k->ready_at);
    free(k->xf_pending);
    free(k->ev);
    free(k->used);
    free(k->chan);
    free(k->running);
    free(k->dev);
    free(k->link_bytes);
    free(k->link_transfers);
    free(k->oom);
    free(k->rqi);
    free(k->rq_heap);
    free(k->rq_run);
}

int incr_ckpt_alloc(struct sim_incr *in, struct incr_ckpt *k)
{
    size_t n = (size_t)in->n + 1, nd = (size_t)in->nd;

    k->pending_in = mem_alloc_array(n, sizeof(*k->pending_in));
    k->pending_out = mem_alloc_array(n, sizeof(*k->pending_out));
    k->ready_at = mem_alloc_array(n, sizeof(*k->ready_at));
    k->used = mem_alloc_array(nd, sizeof(*k->used));
    k->chan = mem_alloc_array(in->n_chan, sizeof(*k->chan));
    k->running = mem_alloc_array(nd, sizeof(*k->running));
    k->dev = mem_alloc_array(nd, sizeof(*k->dev));
    k->link_bytes = mem_alloc_array(nd * nd, sizeof(*k->link_bytes));
    k->link_transfers = mem_alloc_array(nd * nd, sizeof(*k->link_transfers));
    k->oom = mem_alloc_array(nd, sizeof(*k->oom));
    k->rq_heap = mem_alloc_array(nd, sizeof(*k->rq_heap));
    k->rq_run = mem_alloc_array(nd, sizeof(*k->rq_run));
    if (!k->pending_in || !k->pending_out || !k->ready_at || !k->used || !k->chan || !k->running ||
        !k->dev || !k->link_bytes || !k->link_transfers || !k->oom || !k->rq_heap || !k->rq_run) {
        return BAECHI_ENOMEM;
    }
    return 0;
}

static int copy_rqs(struct incr_ckpt *k, const struct timed *s)
{
    size_t need = 0, at = 0;
    int rc;

    for (int32_t d = 0; d < s->nd; d++) {
        need += s->rq[d].heap_nr + (s->rq[d].run_nr - s->rq[d].run_head);
    }
    if (need > k->rqi_alloc && (rc = ARRAY_RESERVE(k->rqi, k->rqi_alloc, need)) != 0) {
        return rc;
    }
    for (int32_t d = 0; d < s->nd; d++) {
        const struct sim_rq *q = &s->rq[d];

        k->rq_heap[d] = q->heap_nr;
        k->rq_run[d] = q->run_nr - q->run_head;
        if (q->heap_nr) {
            memcpy(k->rqi + at, q->heap, q->heap_nr * sizeof(*k->rqi));
        }
        at += q->heap_nr;
        if (k->rq_run[d]) {
            memcpy(k->rqi + at, q->run + q->run_head, k->rq_run[d] * sizeof(*k->rqi));
        }
        at += k->rq_run[d];
    }
    k->n_rqi = at;
    return 0;
}

/* A checkpoint of s (between two event times), about every in->every ended ops. */
int incr_ckpt_take(struct sim_incr *in, const struct timed *s)
{
    size_t n = (size_t)in->n, nd = (size_t)in->nd;
    struct incr_ckpt *k;
    int rc;

    if (s->n_ended - in->last_ended < in->every || in->n_ckpt >= in->max_ckpt) {
        return 0;
    }
    k = &in->ck[in->n_ckpt];
    if ((s->n_xf > k->xf_alloc && (rc = ARRAY_RESERVE(k->xf_pending, k->xf_alloc, s->n_xf))) ||
        (s->q.nr > k->ev_alloc && (rc = ARRAY_RESERVE(k->ev, k->ev_alloc, s->q.nr))) ||
        (rc = copy_rqs(k, s)) != 0) {
        return rc;
    }
    in->n_ckpt++;
    in->last_ended = s->n_ended;
    k->time_us = s->now;
    k->visits = s->visits;
    k->n_ended = s->n_ended;
    k->step_us = s->r->step_us;
    k->n_oom = s->r->n_oom;
    k->n_xf = s->n_xf;
    k->n_ev = s->q.nr;
    k->next_seq = s->q.next_seq;
    memcpy(k->pending_in, s->pending_in, n * sizeof(*k->pending_in));
    memcpy(k->pending_out, s->pending_out, n * sizeof(*k->pending_out));
    memcpy(k->ready_at, s->ready_at, n * sizeof(*k->ready_at));
    if (s->n_xf) {
        memcpy(k->xf_pending, s->xf_pending, s->n_xf * sizeof(*k->xf_pending));
    }
    if (s->q.nr) {
        memcpy(k->ev, s->q.heap, s->q.nr * sizeof(*k->ev));
    }
    memcpy(k->used, s->used, nd * sizeof(*k->used));
    memcpy(k->chan, s->chan, in->n_chan * sizeof(*k->chan));
    memcpy(k->running, s->running, nd * sizeof(*k->running));
    memcpy(k->dev, s->r->dev, nd * sizeof(*k->dev));
    memcpy(k->link_bytes, s->r->link_bytes, nd * nd * sizeof(*k->link_bytes));
    memcpy(k->link_transfers, s->r->link_transfers, nd * nd * sizeof(*k->link_transfers));
    memcpy(k->oom, s->r->oom, nd * sizeof(*k->oom));
    return 0;
}

static int restore_rqs(const struct incr_ckpt *k, struct timed *s)
{
    size_t at = 0;
    int rc;

    for (int32_t d = 0; d < s->nd; d++) {
        struct sim_rq *q = &s->rq[d];
        size_t h = k->rq_heap[d], u = k->rq_run[d];

        if ((h > q->alloc && (rc = ARRAY_RESERVE(q->heap, q->alloc, h)) != 0) ||
            (u > q->run_alloc && (rc = ARRAY_RESERVE(q->run, q->run_alloc, u)) != 0)) {
            return rc;
        }
        if (h) {
            memcpy(q->heap, k->rqi + at, h * sizeof(*q->heap));
        }
        at += h;
        if (u) {
            memcpy(q->run, k->rqi + at, u * sizeof(*q->run));
        }
        at += u;
        q->heap_nr = h;
        q->run_head = 0;
        q->run_nr = u;
        q->nr = h + u;
    }
    return 0;
}

/*
 * The moved sources, queued at time 0 on their base devices and not
 * started by the checkpoint (it lies before their base dispatch), go to
 * their new devices' queues, with the key they have there from the start.
 * The only moved ops queued at a checkpoint: a moved op with inputs is not
 * ready before the resume point (it lies before its producers' ends).
 */
static int move_sources(const struct sim_incr *in, const struct incr_ckpt *k, struct timed *s)
{
    const struct graph *g = in->g;
    bool any = false;
    int rc;

    for (int32_t i = 0; i < in->n_moved; i++) {
        int32_t v = in->moved[i];

        if (g->in_start[v] == g->in_start[v + 1]) {
            if (in->base_start[v] <= k->time_us) {
                BUG("moved source '%s' started at %lld, before the resume point %lld",
                    g->op_name[v], (long long)in->base_start[v], (long long)k->time_us);
            }
            if (!any) {
                for (int32_t d = 0; d < in->nd; d++) {
                    sim_rq_drop_moved(&s->rq[d], d, s->device_of);
                }
                any = true;
            }
            if ((rc = sim_rq_push_prio(&s->rq[s->device_of[v]], 0, 0, g->topo[v], v)) != 0) {
                return rc;
            }
        }
    }
    return 0;
}

int incr_ckpt_restore(struct sim_incr *in, const struct incr_ckpt *k, struct timed *s)
{
    struct sim_result *r = s->r;
    size_t n = (size_t)in->n, nd = (size_t)in->nd;
    int rc;

    if (k->n_xf > s->alloc_xf) {
        BUG("checkpoint with %zu transfers, the trial has room for %zu", k->n_xf, s->alloc_xf);
    }
    if ((k->n_ev > s->q.alloc && (rc = ARRAY_RESERVE(s->q.heap, s->q.alloc, k->n_ev)) != 0) ||
        (rc = restore_rqs(k, s)) != 0 || (rc = move_sources(in, k, s)) != 0) {
        return rc;
    }
    memcpy(s->pending_in, k->pending_in, n * sizeof(*k->pending_in));
    memcpy(s->pending_out, k->pending_out, n * sizeof(*k->pending_out));
    memcpy(s->ready_at, k->ready_at, n * sizeof(*k->ready_at));
    if (k->n_xf) {
        memcpy(s->xf_pending, k->xf_pending, k->n_xf * sizeof(*k->xf_pending));
    }
    s->n_xf = k->n_xf;
    if (in->n_slots) {
        memcpy(s->slot_xfer, in->base_slot, in->n_slots * sizeof(*s->slot_xfer));
    }
    if (k->n_ev) {
        memcpy(s->q.heap, k->ev, k->n_ev * sizeof(*k->ev));
    }
    s->q.nr = k->n_ev;
    s->q.next_seq = k->next_seq;
    memcpy(s->chan, k->chan, in->n_chan * sizeof(*k->chan));
    memcpy(s->running, k->running, nd * sizeof(*k->running));
    memcpy(r->start_us, in->base_start, n * sizeof(*r->start_us));
    memcpy(r->end_us, in->base_end, n * sizeof(*r->end_us));
    memcpy(r->link_bytes, k->link_bytes, nd * nd * sizeof(*r->link_bytes));
    memcpy(r->link_transfers, k->link_transfers, nd * nd * sizeof(*r->link_transfers));
    r->step_us = k->step_us;
    /* the moved ops' persistent bytes shift the prefix */
    r->n_oom = 0;
    for (int32_t d = 0; d < in->nd; d++) {
        int64_t delta = in->delta_persist[d];
        struct sim_device_stats *x = &r->dev[d];

        *x = k->dev[d];
        s->used[d] = k->used[d] + delta;
        x->peak_bytes += delta;
        x->oom = x->limit_bytes > 0 && x->peak_bytes > x->limit_bytes;
        if (!x->oom) {
            continue;
        }
        r->oom[r->n_oom] = (struct sim_oom){d, -1, -1, x->peak_bytes - x->limit_bytes};
        for (int32_t i = 0; delta == 0 && i < k->n_oom; i++) {
            if (k->oom[i].device == d) {
                r->oom[r->n_oom] = k->oom[i];
            }
        }
        r->n_oom++;
    }
    s->now = k->time_us;
    s->n_ended = k->n_ended;
    return 0;
}
