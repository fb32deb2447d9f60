/*
 * sim_incr_cutoff.c - the early stop of the incremental re-simulation's
 * trials (sim_incr.h, "With a cutoff"): lower bounds on the step after each
 * op (the longest chain after it at the fastest device's speed, and on the
 * base's placement with its transfers), and the engine hook that stops a
 * trial once its step is certainly at or over the cutoff.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "sim/sim_incr_internal.h"

#include "core/alloc.h"
#include "core/checked.h"
#include "core/err.h"

/* tail_us[v]: the longest chain of v's successors at their fastest (a
 * consumer starts after v ends), in reverse topological order. */
int incr_tails(struct sim_incr *in)
{
    const struct graph *g = in->g;

    if (g->fused) {
        return 0; /* topo[] of a fused graph may not be an order: no cutoff */
    }
    if (!(in->tail_us = mem_calloc((size_t)in->n + 1, sizeof(*in->tail_us))) ||
        !(in->tail_base_us = mem_calloc((size_t)in->n + 1, sizeof(*in->tail_base_us)))) {
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
void incr_tails_base(struct sim_incr *in)
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

/* Each checkpoint's tail_max_us from the base's starts and ends: the ops it
 * has started run the same in every trial that resumes from it. */
void incr_prefix_tails(struct sim_incr *in)
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

/* A trial with a cutoff, as op v starts: the step is at least v's end
 * plus the longest chain after it (on the base's placement once every
 * moved op has started). */
static void trial_started(void *ctx, struct timed *s, int32_t v)
{
    struct sim_incr *in = ctx;
    const int64_t *tail_base = in->valid ? in->tail_base_us : NULL;

    if (in->tail_us && sat_add_i64(s->r->end_us[v], in->moved_left == 0 && tail_base
                                                        ? tail_base[v]
                                                        : in->tail_us[v]) >= in->cutoff_us) {
        s->stop = true;
    }
    if (in->valid && s->device_of[v] != in->base_dev[v]) {
        in->moved_left--;
    }
}

/* Whether a device's work not started yet, after what it runs now, ends at
 * or after the cutoff (its ops run one at a time: the step is that late). */
static bool load_cut(const struct sim_incr *in, const struct timed *s)
{
    for (int32_t d = 0; d < s->nd; d++) {
        int32_t v = s->running[d];
        int64_t free_us = v >= 0 && s->r->end_us[v] > s->now ? s->r->end_us[v] : s->now;

        if (sat_add_i64(free_us, in->load_us[d] - s->r->dev[d].busy_us) >= in->cutoff_us) {
            return true;
        }
    }
    return false;
}

/* A trial with a cutoff, after an event time's dispatch: an allocation
 * over a limit, or a device's work left ending past the cutoff, stops it. */
static int trial_dispatched(void *ctx, struct timed *s, bool first)
{
    if (!first && (s->r->n_oom > 0 || load_cut(ctx, s))) {
        s->stop = true;
    }
    return 0;
}

const struct timed_hook *incr_cutoff_hook(void)
{
    static const struct timed_hook trial_hook = {trial_started, trial_dispatched};

    return &trial_hook;
}
