/*
 * sim_incr.c - incremental re-simulation of the timed model (sim_incr.h):
 * the base run, which records checkpoints (sim_incr_ckpt.c) and its
 * dispatch log (sim_incr_log.c), and the trials, resumed from the last
 * checkpoint before a moved op can be seen, restarted in the kept state,
 * or run afresh, stopped early with a cutoff (sim_incr_cutoff.c).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "sim/sim_incr.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/checked.h"
#include "core/err.h"
#include "sim/collective.h"
#include "sim/sim_incr_internal.h"

#include <stdlib.h>
#include <string.h>

bool sim_incr_supported(const struct graph *g)
{
    return g->n_coll == 0 && !g->port_alias && !g->micro_batch;
}

void sim_incr_free(struct sim_incr *in)
{
    if (!in) {
        return;
    }
    for (int32_t i = 0; in->ck && i < in->max_ckpt; i++) {
        incr_ckpt_release(&in->ck[i]);
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
    in->n_chan = coll_sim_n_engines(c, (size_t)in->nd * (size_t)in->nd);
    in->n_slots = g->n_edges ? (size_t)g->et_start[g->n_edges] : 0;
    per = (size_t)in->n * 16 + 4096;
    in->max_ckpt =
        INCR_BYTES / per < INCR_CHECKPOINTS ? (int32_t)(INCR_BYTES / per) : INCR_CHECKPOINTS;
    in->max_ckpt = in->max_ckpt < 1 ? 1 : in->max_ckpt;
    in->every = in->n / (in->max_ckpt + 1) > 1 ? in->n / (in->max_ckpt + 1) : 1;
    in->ck = mem_calloc((size_t)in->max_ckpt, sizeof(*in->ck));
    in->base_dev = mem_alloc_array((size_t)in->n + 1, sizeof(*in->base_dev));
    in->base_slot = mem_alloc_array(in->n_slots + 1, sizeof(*in->base_slot));
    in->base_start = mem_alloc_array((size_t)in->n + 1, sizeof(*in->base_start));
    in->base_end = mem_alloc_array((size_t)in->n + 1, sizeof(*in->base_end));
    in->base_persist = mem_calloc((size_t)in->nd, sizeof(*in->base_persist));
    in->load_us = mem_calloc((size_t)in->nd, sizeof(*in->load_us));
    in->kind_cur = mem_calloc((size_t)in->nd * MEM_KIND_N, sizeof(*in->kind_cur));
    in->kind_at_peak = mem_calloc((size_t)in->nd, sizeof(*in->kind_at_peak));
    in->log = mem_calloc((size_t)in->nd, sizeof(*in->log));
    in->moved = mem_alloc_array((size_t)in->n + 1, sizeof(*in->moved));
    in->base_load = mem_calloc((size_t)in->nd, sizeof(*in->base_load));
    in->delta_persist = mem_calloc((size_t)in->nd, sizeof(*in->delta_persist));
    in->pend_in0 = mem_alloc_array((size_t)in->n + 1, sizeof(*in->pend_in0));
    in->pend_out0 = mem_alloc_array((size_t)in->n + 1, sizeof(*in->pend_out0));
    if (!in->log || !in->moved || !in->base_load || !in->delta_persist || !in->pend_in0 ||
        !in->pend_out0 || !in->ck || !in->base_dev || !in->base_slot || !in->base_start ||
        !in->base_end || !in->base_persist || !in->load_us || !in->kind_cur || !in->kind_at_peak) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    for (int32_t i = 0; i < in->max_ckpt; i++) {
        CHECK(incr_ckpt_alloc(in, &in->ck[i]));
    }
    for (int32_t v = 0; v < in->n; v++) {
        in->pend_in0[v] = graph_in_degree(g, v);
        in->pend_out0[v] = graph_out_degree(g, v);
    }
    CHECK(incr_tails(in));
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

/*
 * The base run's hook, after each dispatch: the dispatch log gets each
 * device's choice or its idle spell, then (after an event time's
 * dispatch) a checkpoint may be taken.
 */
static int base_dispatched(void *ctx, struct timed *s, bool first)
{
    struct sim_incr *in = ctx;
    int rc;

    for (int32_t d = 0; d < s->nd; d++) {
        int32_t v = s->running[d];
        bool started = v >= 0 && s->r->start_us[v] == s->now;

        if ((v < 0 || started) &&
            (rc = incr_log_note(in, d, s->now, v, v >= 0 ? s->ready_at[v] : 0)) != 0) {
            return rc;
        }
    }
    return first ? 0 : incr_ckpt_take(in, s);
}

static const struct timed_hook base_hook = {NULL, base_dispatched};

int sim_incr_base(struct sim_incr *in, const int32_t *device_of, struct sim_result *r,
                  uint64_t *visits)
{
    struct sim_kinds kinds;
    struct timed s = {
        .g = in->g, .c = in->c, .device_of = device_of, .hook = &base_hook, .hook_ctx = in};
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
        incr_prefix_tails(in);
        incr_tails_base(in);
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
            int64_t t = incr_log_source_enters(in, device_of[v], v);

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
    s->stop = false;
    s->hook = NULL;
    s->hook_ctx = NULL;
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
            rc = incr_ckpt_restore(in, &in->ck[k], s);
            *visits += (uint64_t)in->n / INCR_RESTORE_DIV;
        } else if (rc == 0) {
            restart(in, s);
        }
        timed_end_sync(s); /* the running ops' ends are not in the queue */
    }
    if (cutoff_us > 0) {
        s->hook = incr_cutoff_hook();
        s->hook_ctx = in;
        in->moved_left = in->n_moved;
        in->cutoff_us = cutoff_us;
    }
    if (k >= 0) {
        /* an op of the prefix already proves the step >= the cutoff */
        s->stop =
            cutoff_us > 0 && (r->n_oom > 0 || (in->tail_us && in->ck[k].tail_max_us >= cutoff_us));
    } else if (rc == 0 && !kept) {
        fresh.obs = &kinds;
        fresh.r = r;
        if ((rc = timed_setup(&fresh, &in->g->pipeline)) == 0) {
            rc = timed_start(&fresh);
        }
    } else if (rc == 0) {
        rc = timed_start(s);
    }
    if (rc == 0 && (rc = timed_loop(s)) == 0 && !s->stop) {
        rc = timed_finish(s);
    }
    if (rc == 0) {
        *visits += s->visits;
        *cut = s->stop;
        run_result(in, r);
    }
    timed_release(&fresh);
    return rc;
}
