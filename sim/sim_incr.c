/*
 * sim_incr.c - incremental re-simulation of the timed model (sim_incr.h):
 * checkpoints of a base run, and trials resumed from them.
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
#include "sim/sim_incr.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/checked.h"
#include "core/err.h"
#include "sim/sim_timed_internal.h"

#include <stdlib.h>
#include <string.h>

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
    /* a resumed trial's state, allocated once and restored into (a
     * fresh timed_setup per trial cost about 8 % of a trial on GNMT) */
    struct timed tr;
    bool tr_ready;
    int32_t *moved; /* the ops the trial places off their base device */
    int32_t n_moved;
    int64_t *base_load;            /* per device: the base's Σ compute */
    bool load_sat;                 /* a base_load saturated: the trial's is summed in full */
    int64_t *delta_persist;        /* per device: the trial's persistent bytes - the base's */
    int32_t *pend_in0, *pend_out0; /* per op: in- and out-degree (a run's start) */
};

bool sim_incr_supported(const struct graph *g)
{
    return g->n_coll == 0 && !g->port_alias && !g->micro_batch;
}

static void ckpt_release(struct incr_ckpt *k)
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

void sim_incr_free(struct sim_incr *in)
{
    if (!in) {
        return;
    }
    for (int32_t i = 0; in->ck && i < in->max_ckpt; i++) {
        ckpt_release(&in->ck[i]);
    }
    free(in->ck);
    free(in->base_dev);
    free(in->base_slot);
    free(in->base_start);
    free(in->base_end);
    free(in->base_persist);
    free(in->tail_us);
    free(in->tail_base_us);
    free(in->kind_cur);
    free(in->load_us);
    free(in->kind_at_peak);
    for (int32_t d = 0; in->log && d < in->nd; d++) {
        free(in->log[d].at_us);
        free(in->log[d].pmax);
    }
    free(in->log);
    if (in->tr_ready) {
        timed_release(&in->tr);
    }
    free(in->moved);
    free(in->base_load);
    free(in->delta_persist);
    free(in->pend_in0);
    free(in->pend_out0);
    free(in);
}

static int ckpt_alloc(struct sim_incr *in, struct incr_ckpt *k)
{
    size_t n = (size_t)in->n + 1, nd = (size_t)in->nd;

    k->pending_in = array_malloc(n, sizeof(*k->pending_in));
    k->pending_out = array_malloc(n, sizeof(*k->pending_out));
    k->ready_at = array_malloc(n, sizeof(*k->ready_at));
    k->used = array_malloc(nd, sizeof(*k->used));
    k->chan = array_malloc(in->n_chan, sizeof(*k->chan));
    k->running = array_malloc(nd, sizeof(*k->running));
    k->dev = array_malloc(nd, sizeof(*k->dev));
    k->link_bytes = array_malloc(nd * nd, sizeof(*k->link_bytes));
    k->link_transfers = array_malloc(nd * nd, sizeof(*k->link_transfers));
    k->oom = array_malloc(nd, sizeof(*k->oom));
    k->rq_heap = array_malloc(nd, sizeof(*k->rq_heap));
    k->rq_run = array_malloc(nd, sizeof(*k->rq_run));
    if (!k->pending_in || !k->pending_out || !k->ready_at || !k->used || !k->chan || !k->running ||
        !k->dev || !k->link_bytes || !k->link_transfers || !k->oom || !k->rq_heap || !k->rq_run) {
        return BAECHI_ENOMEM;
    }
    return 0;
}

/* tail_us[v]: the longest chain of v's successors at their fastest (a
 * consumer starts after v ends), in reverse topological order. */
static int tails(struct sim_incr *in)
{
    const struct graph *g = in->g;

    if (g->fused) {
        return 0; /* topo[] of a fused graph may not be an order: no cutoff */
    }
    if (!(in->tail_us = array_calloc((size_t)in->n + 1, sizeof(*in->tail_us))) ||
        !(in->tail_base_us = array_calloc((size_t)in->n + 1, sizeof(*in->tail_base_us)))) {
        return BAECHI_ENOMEM;
    }
    for (int32_t i = in->n - 1; i >= 0; i--) {
        int32_t v = g->topo_op[i];
        int64_t t = 0;

        for (int32_t e = g->out_start[v]; e < g->out_start[v + 1]; e++) {
            int32_t w = g->edge_dst[e];
            int64_t best = INT64_MAX;

            for (int32_t d = 0; d < in->nd; d++) {
                int64_t cw = cluster_compute_us(in->c, d, g->weight_us[w]);
                best = cw < best ? cw : best;
            }
            best = sat_add_i64(best, in->tail_us[w]);
            t = best > t ? best : t;
        }
        in->tail_us[v] = t;
    }
    return 0;
}

/*
 * tail_base_us[v]: the longest chain after v on the base's placement, each
 * consumer starting no earlier than v's end plus the transfer of the
 * edge's largest tensor when it is on another device (a transfer starts
 * when it is requested, at v's end, or later, and takes cluster_comm_us),
 * and running at its device's speed.  A lower bound on the step after v
 * ends in any run of a placement that agrees with the base on v and on
 * every op after it.
 */
static void tails_base(struct sim_incr *in)
{
    const struct graph *g = in->g;

    for (int32_t i = in->n - 1; in->tail_base_us && i >= 0; i--) {
        int32_t v = g->topo_op[i], d = in->base_dev[v];
        int64_t t = 0;

        for (int32_t e = g->out_start[v]; e < g->out_start[v + 1]; e++) {
            int32_t w = g->edge_dst[e], dw = in->base_dev[w];
            int64_t comm = 0, c;

            for (int32_t sl = g->et_start[e]; dw != d && sl < g->et_start[e + 1]; sl++) {
                c = cluster_comm_us(in->c, d, dw, g->tensor_bytes[g->et_tensor[sl]]);
                comm = c > comm ? c : comm;
            }
            c = sat_add_i64(sat_add_i64(comm, cluster_compute_us(in->c, dw, g->weight_us[w])),
                            in->tail_base_us[w]);
            t = c > t ? c : t;
        }
        in->tail_base_us[v] = t;
    }
}

int sim_incr_new(const struct graph *g, const struct cluster *c, struct sim_incr **out)
{
    struct sim_incr *in;
    struct sim_result r;
    size_t per;
    int rc = 0;

    *out = NULL;
    if (!sim_incr_supported(g) || c->n_devices <= 0) {
        return err_set(BAECHI_EINVAL, "incremental simulation: the graph has collectives, shared "
                                      "storage or micro-batches");
    }
    if (!(in = mem_calloc(1, sizeof(*in)))) {
        return BAECHI_ENOMEM;
    }
    in->g = g;
    in->c = c;
    in->n = g->n_ops;
    in->nd = c->n_devices;
    /* as timed_alloc: link engines (every pair) only for CHANNEL_LINK */
    in->n_chan =
        (c->channel == CHANNEL_LINK ? (size_t)in->nd * (size_t)in->nd : 0) + 2 * (size_t)in->nd;
    in->n_slots = g->n_edges ? (size_t)g->et_start[g->n_edges] : 0;
    per = (size_t)in->n * 16 + 4096;
    in->max_ckpt =
        INCR_BYTES / per < INCR_CHECKPOINTS ? (int32_t)(INCR_BYTES / per) : INCR_CHECKPOINTS;
    in->max_ckpt = in->max_ckpt < 1 ? 1 : in->max_ckpt;
    in->every = in->n / (in->max_ckpt + 1) > 1 ? in->n / (in->max_ckpt + 1) : 1;
    in->ck = array_calloc((size_t)in->max_ckpt, sizeof(*in->ck));
    in->base_dev = array_malloc((size_t)in->n + 1, sizeof(*in->base_dev));
    in->base_slot = array_malloc(in->n_slots + 1, sizeof(*in->base_slot));
    in->base_start = array_malloc((size_t)in->n + 1, sizeof(*in->base_start));
    in->base_end = array_malloc((size_t)in->n + 1, sizeof(*in->base_end));
    in->base_persist = array_calloc((size_t)in->nd, sizeof(*in->base_persist));
    in->load_us = array_calloc((size_t)in->nd, sizeof(*in->load_us));
    in->kind_cur = array_calloc((size_t)in->nd * MEM_KIND_N, sizeof(*in->kind_cur));
    in->kind_at_peak = array_calloc((size_t)in->nd, sizeof(*in->kind_at_peak));
    in->log = array_calloc((size_t)in->nd, sizeof(*in->log));
    in->moved = array_malloc((size_t)in->n + 1, sizeof(*in->moved));
    in->base_load = array_calloc((size_t)in->nd, sizeof(*in->base_load));
    in->delta_persist = array_calloc((size_t)in->nd, sizeof(*in->delta_persist));
    in->pend_in0 = array_malloc((size_t)in->n + 1, sizeof(*in->pend_in0));
    in->pend_out0 = array_malloc((size_t)in->n + 1, sizeof(*in->pend_out0));
    if (!in->log || !in->moved || !in->base_load || !in->delta_persist || !in->pend_in0 ||
        !in->pend_out0 || !in->ck || !in->base_dev || !in->base_slot || !in->base_start ||
        !in->base_end || !in->base_persist || !in->load_us || !in->kind_cur || !in->kind_at_peak) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    for (int32_t i = 0; i < in->max_ckpt; i++) {
        CHECK(ckpt_alloc(in, &in->ck[i]));
    }
    for (int32_t v = 0; v < in->n; v++) {
        in->pend_in0[v] = graph_in_degree(g, v);
        in->pend_out0[v] = graph_out_degree(g, v);
    }
    CHECK(tails(in));
    sim_result_init(&r);
    r.n_devices = in->nd;
    CHECK(sim_result_bounds(g, c, &r));
    in->critical_path_us = r.critical_path_us;
    in->lower_bound_us = r.lower_bound_us;
    *out = in;
    return 0;
cleanup:
    sim_incr_free(in);
    return rc;
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

int sim_incr_note_dispatch(struct sim_incr *in, int32_t d, int64_t now_us, int32_t v,
                           int64_t ready_us)
{
    struct incr_log *l = &in->log[d];
    /* the queue key of v was (0, ready time, topological index): priorities
     * are 0 on the graphs supported (no micro-batches) */
    bool zero = v >= 0 && ready_us == 0;
    int32_t topo = zero ? in->g->topo[v] : INT32_MAX;
    int rc;

    if ((v < 0 && l->idle) || (v >= 0 && v == l->last_op) || l->n_zero < l->n) {
        /* the same idle spell, an op started in an earlier dispatch at this
         * time, or past the prefix that matters */
        return 0;
    }
    if ((l->n == l->alloc && (rc = ARRAY_RESERVE(l->at_us, l->alloc, l->n + 1)) != 0) ||
        (l->n == l->alloc_p && (rc = ARRAY_RESERVE(l->pmax, l->alloc_p, l->n + 1)) != 0)) {
        return rc;
    }
    l->at_us[l->n] = now_us;
    l->pmax[l->n] = l->n > 0 && l->pmax[l->n - 1] > topo ? l->pmax[l->n - 1] : topo;
    l->n++;
    l->n_zero += zero;
    l->idle = v < 0;
    l->last_op = v;
    return 0;
}

/*
 * The first dispatch on device d of the base run at which source v (ready
 * at 0, priority 0) would have been chosen over the base's choice: the
 * first entry that is not a time-0 choice of a smaller topological index.
 * INT64_MAX when none (the log always ends with an idle entry, so never).
 */
static int64_t source_enters(const struct sim_incr *in, int32_t d, int32_t v)
{
    const struct incr_log *l = &in->log[d];
    int32_t tv = in->g->topo[v];
    size_t lo = 0, hi = l->n_zero;

    /* pmax is non-decreasing: the first entry above tv is where pmax passes it */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (l->pmax[mid] > tv) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return lo < l->n ? l->at_us[lo] : INT64_MAX;
}

int sim_incr_note(struct sim_incr *in, const struct timed *s)
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

/* device_of checked as sim_run does; in->moved gets the ops it places off
 * their base device (all of them when there is no base). */
static int check_placement(struct sim_incr *in, const int32_t *device_of)
{
    const int32_t *base = in->valid ? in->base_dev : NULL;

    in->n_moved = 0;
    for (int32_t v = 0; v < in->n; v++) {
        if (device_of[v] < 0 || device_of[v] >= in->nd) {
            return err_set(BAECHI_EINVAL,
                           "op '%s' is placed on device %d, but the cluster has %d devices",
                           in->g->op_name[v], device_of[v], in->nd);
        }
        if (!base || device_of[v] != base[v]) {
            in->moved[in->n_moved++] = v;
        }
    }
    return 0;
}

/* Whether r holds the arrays of a result of this graph and cluster (a
 * resumed trial overwrites every one of them, so it keeps them). */
static bool result_reusable(const struct sim_incr *in, const struct sim_result *r)
{
    /* dense links only: a sim_run result above SIM_LINKS_DENSE_MAX devices
     * holds the pairs of its own placement (sim_links.h) */
    return r->n_devices == in->nd && r->dev && r->link_bytes && r->link_transfers &&
           !r->links.src && r->oom && r->start_us && r->end_us && r->peak_kind_bytes;
}

/* r ready for a run (allocated afresh unless reuse and reusable); the
 * kinds the model keeps go to scratch. */
static int run_prepare(struct sim_incr *in, bool reuse, struct sim_result *r,
                       struct sim_kinds *kinds)
{
    int rc;

    if (!reuse || !result_reusable(in, r)) {
        sim_result_release(r);
        if ((rc = sim_result_alloc(r, in->g, in->c)) != 0) {
            sim_result_release(r);
            return rc;
        }
    }
    r->model = SIM_MODEL_TIMED;
    memset(kinds, 0, sizeof(*kinds));
    memset(in->kind_at_peak, 0, (size_t)in->nd);
    memset(in->kind_cur, 0, (size_t)in->nd * MEM_KIND_N * sizeof(*in->kind_cur));
    kinds->forward_only = true;
    kinds->cur = in->kind_cur;
    kinds->peak = r->peak_kind_bytes;
    kinds->at_peak = in->kind_at_peak;
    return 0;
}

/* What sim_run adds after the model; peak_kind_bytes stays zero. */
static void run_result(struct sim_incr *in, struct sim_result *r)
{
    memset(r->peak_kind_bytes, 0, (size_t)in->nd * MEM_KIND_N * sizeof(*r->peak_kind_bytes));
    r->total_compute_us = 0;
    for (int32_t d = 0; d < r->n_devices; d++) {
        r->total_compute_us = sat_add_i64(r->total_compute_us, r->dev[d].busy_us);
        r->dev[d].oom = r->dev[d].limit_bytes > 0 && r->dev[d].peak_bytes > r->dev[d].limit_bytes;
    }
    r->critical_path_us = in->critical_path_us;
    r->lower_bound_us = in->lower_bound_us;
}

/* Each checkpoint's tail_max_us from the base's starts and ends: the ops it
 * has started run the same in every trial that resumes from it. */
static void prefix_tails(struct sim_incr *in)
{
    for (int32_t k = 0; k < in->n_ckpt; k++) {
        in->ck[k].tail_max_us = INT64_MIN;
    }
    for (int32_t v = 0; in->tail_us && v < in->n; v++) {
        int32_t lo = 0, hi = in->n_ckpt;
        int64_t t = sat_add_i64(in->base_end[v], in->tail_us[v]);

        /* the first checkpoint at or after v's start */
        while (lo < hi) {
            int32_t mid = lo + (hi - lo) / 2;

            if (in->ck[mid].time_us >= in->base_start[v]) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        if (lo < in->n_ckpt && t > in->ck[lo].tail_max_us) {
            in->ck[lo].tail_max_us = t;
        }
    }
    for (int32_t k = 1; k < in->n_ckpt; k++) {
        if (in->ck[k - 1].tail_max_us > in->ck[k].tail_max_us) {
            in->ck[k].tail_max_us = in->ck[k - 1].tail_max_us;
        }
    }
}

int sim_incr_base(struct sim_incr *in, const int32_t *device_of, struct sim_result *r,
                  uint64_t *visits)
{
    struct sim_kinds kinds;
    struct timed s = {.g = in->g, .c = in->c, .device_of = device_of, .rec = in};
    int rc;

    *visits = 0;
    in->valid = false;
    in->n_ckpt = 0;
    in->last_ended = 0;
    for (int32_t d = 0; d < in->nd; d++) {
        in->log[d].n = in->log[d].n_zero = 0;
        in->log[d].idle = false;
        in->log[d].last_op = -1;
    }
    if ((rc = check_placement(in, device_of)) != 0 ||
        (rc = run_prepare(in, false, r, &kinds)) != 0) {
        return rc;
    }
    s.obs = &kinds;
    s.r = r;
    if ((rc = timed_setup(&s, &in->g->pipeline)) == 0 && (rc = timed_start(&s)) == 0 &&
        (rc = timed_loop(&s)) == 0) {
        rc = timed_finish(&s);
    }
    if (rc == 0) {
        memcpy(in->base_dev, device_of, (size_t)in->n * sizeof(*device_of));
        memcpy(in->base_start, r->start_us, (size_t)in->n * sizeof(*r->start_us));
        memcpy(in->base_end, r->end_us, (size_t)in->n * sizeof(*r->end_us));
        if (in->n_slots) {
            memcpy(in->base_slot, s.slot_xfer, in->n_slots * sizeof(*s.slot_xfer));
        }
        memset(in->base_persist, 0, (size_t)in->nd * sizeof(*in->base_persist));
        memset(in->base_load, 0, (size_t)in->nd * sizeof(*in->base_load));
        for (int32_t v = 0; v < in->n; v++) {
            int32_t d = device_of[v];

            in->base_persist[d] += in->g->persist_bytes[v];
            in->base_load[d] =
                sat_add_i64(in->base_load[d], sim_compute_us(in->c, d, in->g->weight_us[v]));
        }
        in->load_sat = false;
        for (int32_t d = 0; d < in->nd; d++) {
            in->load_sat = in->load_sat || in->base_load[d] == INT64_MAX;
        }
        prefix_tails(in);
        tails_base(in);
        in->valid = true;
        *visits = s.visits;
        run_result(in, r);
    }
    timed_release(&s);
    return rc;
}

/* The last checkpoint before the first event that sees a moved op, or -1. */
static int32_t resume_point(const struct sim_incr *in, const int32_t *device_of)
{
    const struct graph *g = in->g;
    int64_t first = INT64_MAX;
    int32_t k;

    if (!in->valid) {
        return -1;
    }
    for (int32_t i = 0; i < in->n_moved; i++) {
        int32_t v = in->moved[i];

        if (g->in_start[v] == g->in_start[v + 1]) {
            /* a source: nothing differs before it leaves its old device's
             * queue (its dispatch there) or would enter the new one's */
            int64_t t = source_enters(in, device_of[v], v);

            t = in->base_start[v] < t ? in->base_start[v] : t;
            first = t < first ? t : first;
            continue;
        }
        for (int32_t j = g->in_start[v]; j < g->in_start[v + 1]; j++) {
            int64_t t = in->base_end[g->edge_src[g->in_edge[j]]];
            first = t < first ? t : first;
        }
    }
    for (k = in->n_ckpt - 1; k >= 0 && in->ck[k].time_us >= first; k--) {
    }
    return k;
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

/* s (set up for the trial) takes the state of checkpoint k. */
static int restore(struct sim_incr *in, const struct incr_ckpt *k, struct timed *s)
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

/* The trial's per-device sums from the base's and the moved ops: its Σ
 * compute (into in->load_us, for the cutoff) and its persistent bytes
 * minus the base's (in->delta_persist). */
static void trial_sums(struct sim_incr *in, const int32_t *device_of)
{
    const struct graph *g = in->g;
    size_t nd = (size_t)in->nd;
    bool sat = !in->valid || in->load_sat;

    memset(in->delta_persist, 0, nd * sizeof(*in->delta_persist));
    memcpy(in->load_us, in->base_load, nd * sizeof(*in->load_us));
    /* the removals first, so that a sum that saturates stays saturated */
    for (int32_t i = 0; !sat && i < in->n_moved; i++) {
        int32_t v = in->moved[i], from = in->base_dev[v], to = device_of[v];

        in->delta_persist[from] -= g->persist_bytes[v];
        in->delta_persist[to] += g->persist_bytes[v];
        in->load_us[from] -= sim_compute_us(in->c, from, g->weight_us[v]);
    }
    for (int32_t i = 0; !sat && i < in->n_moved; i++) {
        int32_t v = in->moved[i], to = device_of[v];

        in->load_us[to] = sat_add_i64(in->load_us[to], sim_compute_us(in->c, to, g->weight_us[v]));
    }
    for (size_t d = 0; d < nd; d++) {
        sat = sat || in->load_us[d] == INT64_MAX;
    }
    if (!sat) {
        return;
    }
    /* no base, or a saturated sum (differences cannot correct it): in full */
    memset(in->load_us, 0, nd * sizeof(*in->load_us));
    for (int32_t v = 0; v < in->n; v++) {
        int32_t d = device_of[v];

        in->load_us[d] = sat_add_i64(in->load_us[d], sim_compute_us(in->c, d, g->weight_us[v]));
    }
}

/* The trial state in->tr for device_of, before its run state is set: the
 * arrays are kept from trial to trial (allocated by the first). */
static int tr_prepare(struct sim_incr *in, const int32_t *device_of, struct sim_result *r,
                      struct sim_kinds *kinds)
{
    struct timed *s = &in->tr;
    int rc;

    if (!in->tr_ready) {
        memset(s, 0, sizeof(*s));
        s->g = in->g;
        s->c = in->c;
        /* a resumed run makes at most one transfer per edge tensor slot */
        if ((rc = timed_alloc(s, in->n_slots)) != 0 ||
            (rc = sim_sched_init(&s->sched, in->g, device_of, in->nd, &in->g->pipeline)) != 0 ||
            (rc = coll_sim_init(&s->coll, in->g)) != 0) {
            timed_release(s); /* the next trial allocates again */
            return rc;
        }
        in->tr_ready = true;
    }
    s->device_of = device_of;
    r->interleaved_one_chunk = s->sched.interleaved_one_chunk;
    s->end_slots = timed_end_slots(in->g, in->c); /* as the base's (the checkpoints' queues) */
    s->obs = kinds;
    s->r = r;
    s->visits = 0;
    s->cut = false;
    s->tail_us = NULL;
    s->tail_base_us = NULL;
    s->base_dev = NULL;
    s->load_us = NULL;
    s->cutoff_us = 0;
    s->stop_oom = false;
    memset(s->cache_stamp, 0, s->cache_n * sizeof(*s->cache_stamp));
    return 0;
}

/* Whether a trial without a checkpoint can start in in->tr (restart): a
 * base is recorded and no device's persistent bytes exceed its limit (an
 * OOM at time 0 names its op: that takes timed_setup). */
static bool can_restart(const struct sim_incr *in)
{
    for (int32_t d = 0; in->valid && d < in->nd; d++) {
        int64_t lim = in->c->dev[d].mem_bytes;

        if (lim > 0 && in->base_persist[d] + in->delta_persist[d] > lim) {
            return false;
        }
    }
    return in->valid;
}

/*
 * in->tr (tr_prepare'd) in the state timed_setup gives, from the arrays
 * kept and the trial's sums: the pending counts from the degrees, the
 * persistent bytes (under every limit, see can_restart) as the devices'
 * memory and peaks, everything else empty; r as sim_result_alloc gives it.
 * A fresh timed_setup cost a quarter of a trial on GNMT training, where
 * many trials run from the start and are cut within a few events.
 */
static void restart(struct sim_incr *in, struct timed *s)
{
    struct sim_result *r = s->r;
    size_t n = (size_t)in->n, nd = (size_t)in->nd;

    memcpy(s->pending_in, in->pend_in0, n * sizeof(*s->pending_in));
    memcpy(s->pending_out, in->pend_out0, n * sizeof(*s->pending_out));
    memset(s->ready_at, 0, n * sizeof(*s->ready_at));
    memset(s->chan, 0, in->n_chan * sizeof(*s->chan));
    s->q.nr = 0;
    s->q.next_seq = 0;
    s->n_xf = 0;
    s->now = 0;
    s->n_ended = 0;
    memset(r->dev, 0, nd * sizeof(*r->dev));
    memset(r->link_bytes, 0, nd * nd * sizeof(*r->link_bytes));
    memset(r->link_transfers, 0, nd * nd * sizeof(*r->link_transfers));
    memset(r->oom, 0, nd * sizeof(*r->oom));
    r->n_oom = 0;
    r->step_us = 0;
    for (size_t v = 0; v < n; v++) {
        r->start_us[v] = -1;
        r->end_us[v] = -1;
    }
    for (size_t d = 0; d < nd; d++) {
        s->running[d] = -1;
        s->used[d] = in->base_persist[d] + in->delta_persist[d];
        s->rq[d].nr = s->rq[d].heap_nr = s->rq[d].run_head = s->rq[d].run_nr = 0;
        s->held[d].nr = s->held[d].heap_nr = s->held[d].run_head = s->held[d].run_nr = 0;
        r->dev[d].limit_bytes = in->c->dev[d].mem_bytes;
        r->dev[d].peak_bytes = s->used[d] > 0 ? s->used[d] : 0;
    }
}

int sim_incr_run(struct sim_incr *in, const int32_t *device_of, int64_t cutoff_us,
                 struct sim_result *r, bool *cut, uint64_t *visits)
{
    struct sim_kinds kinds;
    struct timed fresh = {.g = in->g, .c = in->c, .device_of = device_of};
    struct timed *s = &fresh;
    int32_t k;
    bool kept; /* in->tr, resumed or restarted */
    int rc;

    *cut = false;
    *visits = 0;
    if ((rc = check_placement(in, device_of)) != 0) {
        return rc;
    }
    k = resume_point(in, device_of);
    trial_sums(in, device_of);
    kept = k >= 0 || can_restart(in);
    if ((rc = run_prepare(in, kept, r, &kinds)) != 0) {
        return rc;
    }
    if (kept) {
        s = &in->tr;
        if ((rc = tr_prepare(in, device_of, r, &kinds)) == 0 && k >= 0) {
            rc = restore(in, &in->ck[k], s);
            *visits += (uint64_t)in->n / INCR_RESTORE_DIV;
        } else if (rc == 0) {
            restart(in, s);
        }
        timed_end_sync(s); /* the running ops' ends are not in the queue */
    }
    if (cutoff_us > 0) {
        s->load_us = in->load_us;
        s->tail_us = in->tail_us;
        s->tail_base_us = in->valid ? in->tail_base_us : NULL;
        s->base_dev = in->valid ? in->base_dev : NULL;
        s->moved_left = in->n_moved;
        s->cutoff_us = cutoff_us;
        s->stop_oom = true;
    }
    if (k >= 0) {
        /* an op of the prefix already proves the step >= the cutoff */
        s->cut =
            (s->stop_oom && r->n_oom > 0) || (s->tail_us && in->ck[k].tail_max_us >= cutoff_us);
    } else if (rc == 0 && !kept) {
        fresh.obs = &kinds;
        fresh.r = r;
        if ((rc = timed_setup(&fresh, &in->g->pipeline)) == 0) {
            rc = timed_start(&fresh);
        }
    } else if (rc == 0) {
        rc = timed_start(s);
    }
    if (rc == 0 && (rc = timed_loop(s)) == 0 && !s->cut) {
        rc = timed_finish(s);
    }
    if (rc == 0) {
        *visits += s->visits;
        *cut = s->cut;
        run_result(in, r);
    }
    timed_release(&fresh);
    return rc;
}
