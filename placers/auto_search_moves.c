/*
 * auto_search_moves.c - the moves a round of the `auto` search tries
 * (auto_internal.h): along the critical path of the best placement's timed
 * run (a device-bound op to the device it waited for, the two ends of a
 * transfer the path waited for brought together), and the link moves that
 * take the transfers a queued transfer waited behind off its channel (the
 * channels replayed from the run's op ends; auto_search.c says why).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/auto_internal.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/rng.h"
#include "sim/sim.h"
#include "sim/sim_incr.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- local search: moves along the critical path of the timed run ---- */

struct start_ctx {
    const struct sim_result *r;
    const int32_t *dev;
};

static int cmp_dev_start(const void *a, const void *b, void *arg)
{
    const struct start_ctx *x = arg;
    int32_t p = *(const int32_t *)a, q = *(const int32_t *)b;

    if (x->dev[p] != x->dev[q]) {
        return x->dev[p] < x->dev[q] ? -1 : 1;
    }
    if (x->r->start_us[p] != x->r->start_us[q]) {
        return x->r->start_us[p] < x->r->start_us[q] ? -1 : 1;
    }
    if (x->r->end_us[p] != x->r->end_us[q]) {
        return x->r->end_us[p] < x->r->end_us[q] ? -1 : 1;
    }
    return p < q ? -1 : p > q;
}

/* s->order: the ops by device, then start, end and index in run r;
 * s->prev_on_dev: each op's predecessor on its device in that order (-1). */
void auto_order_by_device(struct auto_ctx *s, const struct sim_result *r, const int32_t *dev)
{
    struct start_ctx sc = {r, dev};

    for (int32_t i = 0; i < s->n_ops; i++) {
        s->order[i] = i;
    }
    qsort_r(s->order, (size_t)s->n_ops, sizeof(int32_t), cmp_dev_start, &sc);
    for (int32_t i = 0; i < s->n_ops; i++) {
        int32_t u = s->order[i];
        s->prev_on_dev[u] = i > 0 && dev[s->order[i - 1]] == dev[u] ? s->order[i - 1] : -1;
    }
}

void auto_path_walk(struct auto_ctx *s, auto_path_visit visit, void *arg)
{
    const struct graph *g = s->g;
    const struct sim_result *r = &s->rt_best;
    const int32_t *dev = s->best;
    int32_t v = -1;

    auto_order_by_device(s, r, dev);
    for (int32_t u = 0; u < s->n_ops; u++) {
        if (v < 0 || r->end_us[u] > r->end_us[v]) {
            v = u;
        }
    }
    for (int32_t guard = 0; v >= 0 && guard < s->n_ops; guard++) {
        int32_t up = -1, p = s->prev_on_dev[v], e_up = -1;
        int64_t arrive = -1;

        for (int32_t i = g->in_start[v]; i < g->in_start[v + 1]; i++) {
            int32_t e = g->in_edge[i], u = g->edge_src[e];
            int64_t t = r->end_us[u];
            if (dev[u] != dev[v]) {
                t += cluster_comm_us(s->c, dev[u], dev[v], s->edge_bytes[e]);
            }
            if (t > arrive) {
                arrive = t;
                up = u;
                e_up = e;
            }
        }
        if (p >= 0 && r->end_us[p] >= arrive) {
            visit(s, v, p, -1, arg);
            v = p;
        } else if (up >= 0) {
            visit(s, v, -1, e_up, arg);
            v = up;
        } else {
            break;
        }
    }
}

/* auto_path_moves' visit: a device-bound op (p >= 0) runs elsewhere, or the two
 * ends of a transfer the path waits for (edge e) meet. */
static void path_visit(struct auto_ctx *s, int32_t v, int32_t p, int32_t e, void *arg)
{
    const int32_t *dev = s->best, least = *(const int32_t *)arg;

    if (p >= 0) {
        for (int32_t d = 0; d < s->n_dev; d++) {
            if (d != dev[v] && (d == least || auto_rnd(s, AUTO_PATH_SPREAD_ONE_IN) == 0)) {
                auto_add_move(s, AUTO_MV_TF, s->tf_of[v], d);
            }
        }
        auto_add_move(s, AUTO_MV_TF, s->tf_of[p], least);
        auto_add_move(s, AUTO_MV_CO, s->co_of[v], least);
    } else {
        int32_t up = s->g->edge_src[e];
        if (dev[up] != dev[v]) {
            auto_add_move(s, AUTO_MV_TF, s->tf_of[v], dev[up]);
            auto_add_move(s, AUTO_MV_TF, s->tf_of[up], dev[v]);
            auto_add_move(s, AUTO_MV_CO, s->co_of[v], dev[up]);
            auto_add_move(s, AUTO_MV_CO, s->co_of[up], dev[v]);
            auto_add_move(s, AUTO_MV_SWAP, s->tf_of[up], s->tf_of[v]);
        }
    }
}

void auto_path_moves(struct auto_ctx *s)
{
    const struct sim_result *r = &s->rt_best;
    int32_t least = 0;

    for (int32_t d = 1; d < r->n_devices; d++) {
        if (r->dev[d].busy_us < r->dev[least].busy_us) {
            least = d;
        }
    }
    auto_path_walk(s, path_visit, &least);
}

/* ---- moves that relieve a queued transfer ---- */

/* A transfer of the best placement's timed run: requested when producer u
 * ends (consumer w, the first on device dst), its channel(s) r1, r2. */
struct xfer {
    int64_t req, start, end;
    int32_t x, u, w, src, dst, r1, r2;
};

struct link_scan {
    struct xfer *xf;
    int32_t n_xf;
    int32_t *first_xf;     /* n_ops + 1: op -> its first transfer */
    int32_t *crit, n_crit; /* the edges the critical path waits for */
};

static int cmp_end_topo(const void *a, const void *b, void *arg)
{
    const struct auto_ctx *s = arg;
    int32_t p = *(const int32_t *)a, q = *(const int32_t *)b;

    if (s->rt_best.end_us[p] != s->rt_best.end_us[q]) {
        return s->rt_best.end_us[p] < s->rt_best.end_us[q] ? -1 : 1;
    }
    return s->g->topo[p] < s->g->topo[q] ? -1 : s->g->topo[p] > s->g->topo[q];
}

/* The transfers again, as the timed model orders them (sim_timed.c: when a
 * producer ends, its tensors in out-edge order, once per device; each
 * takes its channels first come, first served), into w->xf. */
static void link_replay(struct auto_ctx *s, struct link_scan *w, int32_t *by_end, int64_t *chan)
{
    const struct graph *g = s->g;
    const int32_t *dev = s->best;
    int32_t nd = s->n_dev, n = 0;

    /* only the producers that send anything (GNMT: about 1 op in 6) */
    for (int32_t u = 0; u < s->n_ops; u++) {
        bool sends = false;
        for (int32_t e = g->out_start[u]; e < g->out_start[u + 1] && !sends; e++) {
            sends = dev[g->edge_dst[e]] != dev[u];
        }
        if (sends) {
            by_end[n++] = u;
        }
    }
    qsort_r(by_end, (size_t)n, sizeof(int32_t), cmp_end_topo, s);
    for (int32_t i = 0; i < n; i++) {
        int32_t u = by_end[i], first = w->n_xf;

        w->first_xf[u] = first;
        for (int32_t e = g->out_start[u]; e < g->out_start[u + 1]; e++) {
            int32_t dw = dev[g->edge_dst[e]], d = dev[u];
            for (int32_t k = g->et_start[e]; k < g->et_start[e + 1] && dw != d; k++) {
                struct xfer x = {.req = s->rt_best.end_us[u],
                                 .x = g->et_tensor[k],
                                 .u = u,
                                 .w = g->edge_dst[e],
                                 .src = d,
                                 .dst = dw,
                                 .r1 = d,
                                 .r2 = dw};
                int64_t cw = cluster_comm_us(s->c, d, dw, g->tensor_bytes[x.x]);
                bool sent = false;
                for (int32_t j = first; j < w->n_xf && !sent; j++) {
                    sent = w->xf[j].dst == dw && w->xf[j].x == x.x;
                }
                if (sent) {
                    continue;
                }
                if (s->c->channel == CHANNEL_DUPLEX) {
                    x.r2 = nd + dw;
                } else if (s->c->channel == CHANNEL_LINK) {
                    x.r1 = x.r2 = 2 * nd + d * nd + dw;
                }
                x.start = x.req > chan[x.r1] ? x.req : chan[x.r1];
                x.start = x.start > chan[x.r2] ? x.start : chan[x.r2];
                x.end = x.start + cw;
                chan[x.r1] = chan[x.r2] = x.end;
                w->xf[w->n_xf++] = x;
            }
        }
    }
}
static void crit_visit(struct auto_ctx *s, int32_t v, int32_t p, int32_t e, void *arg)
{
    struct link_scan *w = arg;

    if (p < 0 && s->best[s->g->edge_src[e]] != s->best[v]) {
        w->crit[w->n_crit++] = e;
    }
}

/* A move unless the list has it already (the link moves keep their order). */
static void add_once(struct auto_ctx *s, enum auto_move_kind kind, int32_t a, int32_t b)
{
    for (int32_t i = 0; i < s->n_moves; i++) {
        if (s->moves[i].kind == (int32_t)kind && s->moves[i].a == a && s->moves[i].b == b) {
            return;
        }
    }
    auto_add_move(s, kind, a, b);
}

/* Into top (at most AUTO_LINK_BLOCKERS, longest first): the transfers of
 * the busy period that transfer t waited in on its channels: each one that
 * still held a channel when t (or a transfer found before) was requested.
 * Why the whole period: a 61 MB weight sent first delays a queue of small
 * tensors behind it, and t waits behind the queue.  Returns how many. */
static int32_t blockers(const struct link_scan *w, int32_t t, int32_t *top)
{
    const struct xfer *x = &w->xf[t];
    int64_t held[AUTO_LINK_BLOCKERS], horizon = x->req;
    int32_t n = 0;

    for (int32_t j = t - 1; j >= 0 && j >= t - AUTO_LINK_SCAN; j--) {
        const struct xfer *b = &w->xf[j];
        int64_t len = b->end - b->start;
        int32_t i;

        if (b->end <= horizon ||
            (b->r1 != x->r1 && b->r1 != x->r2 && b->r2 != x->r1 && b->r2 != x->r2)) {
            continue;
        }
        horizon = b->req < horizon ? b->req : horizon;
        for (i = n < AUTO_LINK_BLOCKERS ? n++ : n; i > 0 && held[i - 1] < len; i--) {
            if (i < AUTO_LINK_BLOCKERS) {
                held[i] = held[i - 1];
                top[i] = top[i - 1];
            }
        }
        if (i < AUTO_LINK_BLOCKERS) {
            held[i] = len;
            top[i] = j;
        }
    }
    return n;
}

/* Moves that take the transfers a queued transfer of the critical path
 * waited behind off its channels: each blocker's consumer to its
 * producer's device, its producer to its consumer's. */
int auto_link_moves(struct auto_ctx *s)
{
    const struct graph *g = s->g;
    size_t n_xt = (size_t)g->et_start[g->n_edges] + 1, nd = (size_t)s->n_dev;
    struct link_scan w = {0};
    int32_t *by_end = mem_alloc_array((size_t)s->n_ops + 1, sizeof(int32_t));
    int64_t *chan = mem_calloc(nd * nd + 2 * nd + 1, sizeof(int64_t));
    int rc = 0;

    w.xf = mem_alloc_array(n_xt, sizeof(struct xfer));
    w.first_xf = mem_alloc_array((size_t)s->n_ops + 1, sizeof(int32_t));
    w.crit = mem_alloc_array((size_t)s->n_ops + 1, sizeof(int32_t));
    if (!by_end || !chan || !w.xf || !w.first_xf || !w.crit) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    link_replay(s, &w, by_end, chan);
    auto_path_walk(s, crit_visit, &w);
    for (int32_t c = 0; c < w.n_crit; c++) {
        int32_t u = g->edge_src[w.crit[c]], d = s->best[g->edge_dst[w.crit[c]]], t = -1;
        int32_t top[AUTO_LINK_BLOCKERS], n;

        for (int32_t j = w.first_xf[u]; j < w.n_xf && w.xf[j].u == u; j++) {
            if (w.xf[j].dst == d && (t < 0 || w.xf[j].end > w.xf[t].end)) {
                t = j;
            }
        }
        if (t < 0 || w.xf[t].start <= w.xf[t].req) {
            continue; /* not queued */
        }
        n = blockers(&w, t, top);
        for (int32_t i = 0; i < n; i++) {
            const struct xfer *b = &w.xf[top[i]];
            add_once(s, AUTO_MV_TF, s->tf_of[b->w], b->src);
            add_once(s, AUTO_MV_TF, s->tf_of[b->u], b->dst);
            add_once(s, AUTO_MV_CO, s->co_of[b->w], b->src);
            add_once(s, AUTO_MV_CO, s->co_of[b->u], b->dst);
        }
    }
cleanup:
    free(by_end);
    free(chan);
    free(w.xf);
    free(w.first_xf);
    free(w.crit);
    return rc;
}
