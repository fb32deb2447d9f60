/*
 * auto_screen.c - the delta screen of the `auto` placer's search
 * (auto_internal.h; beyond the original, issue 22 item 5): a cheap,
 * inexact estimate of a move's effect on the step, so that a round
 * simulates only its most promising moves.
 *
 * The estimate is the longest path of the best placement's schedule with
 * each device's order of ops fixed: ops in the order the best's timed run
 * started them (start, end, topological position), an op starts when its
 * inputs have arrived (producer's end plus cluster_comm_us over the edge's
 * bytes when the devices differ) and the op before it on its device has
 * ended.  A moved op keeps its place in that order and joins its new
 * device's sequence there.  What it leaves out: the channels' queues
 * (transfers take their links at once), memory, and the re-ordering a
 * dispatcher does; so the simulators stay the judge of every move kept.
 *
 * A trial recomputes only what the move changes, in the order above: an
 * op is recomputed when it moved, an input of it changed, or the op before
 * it on its device ends at another time than in the best; the pass stops
 * when no recomputation is pending and every device's last end equals the
 * best's at that point, since the rest is then the best's.  Checkpoints of
 * the devices' last ends every AUTO_SCREEN_CKPT positions let a trial start
 * at its first moved op.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/auto_internal.h"

#include "core/array.h"
#include "core/checked.h"
#include "core/err.h"

#include <stdlib.h>
#include <string.h>

struct auto_screen {
    int32_t n, nd;
    int32_t *ord;        /* position -> op */
    int32_t *pos;        /* op -> position */
    int32_t *desc;       /* ops by the best's estimated end, latest first */
    int64_t *base_end;   /* the estimated end of each op in the best */
    int64_t *base_ready; /* when each op's inputs arrive in the best */
    int64_t *ckpt;       /* per AUTO_SCREEN_CKPT positions, per device: last end before */
    int64_t base_step;   /* the estimated step of the best */
    int64_t *end;        /* a trial's end of each op whose stamp is the epoch */
    uint32_t *changed;   /* epoch: the op's end (or device) differs from the best's */
    uint32_t *dirty;     /* epoch: the op must be recomputed */
    uint32_t epoch;
    int64_t *dl, *bdl; /* per device: the last end so far in the trial, in the best */
    /* when every pair of devices has the same link model: each edge's
     * transfer time between two devices (else NULL: cluster_comm_us) */
    int64_t *edge_comm;
    /* when every device has speed 1: each op's run time (else NULL) */
    int64_t *op_run;
};

void auto_screen_free(struct auto_screen *x)
{
    if (!x) {
        return;
    }
    free(x->ord);
    free(x->pos);
    free(x->desc);
    free(x->base_end);
    free(x->base_ready);
    free(x->ckpt);
    free(x->end);
    free(x->changed);
    free(x->dirty);
    free(x->dl);
    free(x->bdl);
    free(x->edge_comm);
    free(x->op_run);
    free(x);
}

int auto_screen_new(const struct auto_ctx *s, struct auto_screen **out)
{
    struct auto_screen *x = array_calloc(1, sizeof(*x));
    size_t n = (size_t)s->n_ops + 1, nd = (size_t)s->n_dev + 1;

    *out = NULL;
    if (!x) {
        return err_set(BAECHI_ENOMEM, "auto: out of memory for the delta screen");
    }
    x->n = s->n_ops;
    x->nd = s->n_dev;
    x->ord = array_malloc(n, sizeof(int32_t));
    x->pos = array_malloc(n, sizeof(int32_t));
    x->desc = array_malloc(n, sizeof(int32_t));
    x->base_end = array_malloc(n, sizeof(int64_t));
    x->base_ready = array_malloc(n, sizeof(int64_t));
    x->ckpt = array_malloc((n / AUTO_SCREEN_CKPT + 1) * nd, sizeof(int64_t));
    x->end = array_malloc(n, sizeof(int64_t));
    x->changed = array_calloc(n, sizeof(uint32_t));
    x->dirty = array_calloc(n, sizeof(uint32_t));
    x->dl = array_malloc(nd, sizeof(int64_t));
    x->bdl = array_malloc(nd, sizeof(int64_t));
    if (!x->ord || !x->pos || !x->desc || !x->base_end || !x->base_ready || !x->ckpt || !x->end ||
        !x->changed || !x->dirty || !x->dl || !x->bdl) {
        auto_screen_free(x);
        return err_set(BAECHI_ENOMEM, "auto: out of memory for the delta screen");
    }
    if (!s->c->pair && s->c->nodes.gpus_per_node <= 0 && s->n_dev >= 2) {
        if (!(x->edge_comm = array_malloc((size_t)s->g->n_edges + 1, sizeof(int64_t)))) {
            auto_screen_free(x);
            return err_set(BAECHI_ENOMEM, "auto: out of memory for the delta screen");
        }
        for (int32_t e = 0; e < s->g->n_edges; e++) {
            x->edge_comm[e] = cluster_comm_us(s->c, 0, 1, s->edge_bytes[e]);
        }
    }
    bool unit = true;
    for (int32_t d = 0; d < s->n_dev; d++) {
        unit &= s->c->dev[d].speed == 1.0;
    }
    if (unit) {
        if (!(x->op_run = array_malloc(n, sizeof(int64_t)))) {
            auto_screen_free(x);
            return err_set(BAECHI_ENOMEM, "auto: out of memory for the delta screen");
        }
        for (int32_t v = 0; v < s->n_ops; v++) {
            x->op_run[v] = s->g->n_coll && s->g->coll_of[v] >= 0 ? 0 : s->g->weight_us[v];
        }
    }
    *out = x;
    return 0;
}

static int cmp_started(const void *a, const void *b, void *arg)
{
    const struct auto_ctx *s = arg;
    const struct sim_result *r = &s->rt_best;
    int32_t p = *(const int32_t *)a, q = *(const int32_t *)b;

    if (r->start_us[p] != r->start_us[q]) {
        return r->start_us[p] < r->start_us[q] ? -1 : 1;
    }
    if (r->end_us[p] != r->end_us[q]) {
        return r->end_us[p] < r->end_us[q] ? -1 : 1;
    }
    return s->g->topo[p] < s->g->topo[q] ? -1 : s->g->topo[p] > s->g->topo[q];
}

static int cmp_end_desc(const void *a, const void *b, void *arg)
{
    const int64_t *end = arg;
    int32_t p = *(const int32_t *)a, q = *(const int32_t *)b;

    if (end[p] != end[q]) {
        return end[p] > end[q] ? -1 : 1;
    }
    return p < q ? -1 : p > q;
}

/* Op v's estimated start on device d of placement dev, from the ends in
 * end (or the best's for ops not changed, when changed is not NULL). */
static int64_t ready_us(const struct auto_ctx *s, const struct auto_screen *x, int32_t v,
                        const int32_t *dev, bool trial, uint64_t *visits)
{
    const struct graph *g = s->g;
    int32_t d = dev[v];
    int64_t t = 0;

    for (int32_t i = g->in_start[v]; i < g->in_start[v + 1]; i++) {
        int32_t e = g->in_edge[i], u = g->edge_src[e];
        int64_t a = trial && x->changed[u] == x->epoch ? x->end[u] : x->base_end[u];
        if (dev[u] != d) {
            a = sat_add_i64(a, x->edge_comm ? x->edge_comm[e]
                                            : cluster_comm_us(s->c, dev[u], d, s->edge_bytes[e]));
        }
        t = a > t ? a : t;
    }
    *visits += (uint64_t)(g->in_start[v + 1] - g->in_start[v]);
    return t;
}

static int64_t run_us(const struct auto_ctx *s, int32_t v, int32_t d)
{
    if (s->screen->op_run) {
        return s->screen->op_run[v];
    }
    return s->g->n_coll && s->g->coll_of[v] >= 0 ? 0
                                                 : cluster_compute_us(s->c, d, s->g->weight_us[v]);
}

uint64_t auto_screen_base(struct auto_ctx *s)
{
    struct auto_screen *x = s->screen;
    int32_t n = x->n, nd = x->nd;
    uint64_t visits = (uint64_t)n;

    for (int32_t i = 0; i < n; i++) {
        x->ord[i] = i;
    }
    qsort_r(x->ord, (size_t)n, sizeof(int32_t), cmp_started, s);
    for (int32_t d = 0; d < nd; d++) {
        x->bdl[d] = 0;
    }
    x->base_step = 0;
    for (int32_t i = 0; i < n; i++) {
        int32_t v = x->ord[i], d = s->best[v];
        int64_t t;

        if (i % AUTO_SCREEN_CKPT == 0) {
            memcpy(x->ckpt + (size_t)(i / AUTO_SCREEN_CKPT) * (size_t)nd, x->bdl,
                   (size_t)nd * sizeof(int64_t));
        }
        x->pos[v] = i;
        t = x->base_ready[v] = ready_us(s, x, v, s->best, false, &visits);
        t = t > x->bdl[d] ? t : x->bdl[d];
        x->base_end[v] = sat_add_i64(t, run_us(s, v, d));
        x->bdl[d] = x->base_end[v];
        x->base_step = x->base_end[v] > x->base_step ? x->base_end[v] : x->base_step;
    }
    for (int32_t i = 0; i < n; i++) {
        x->desc[i] = i;
    }
    qsort_r(x->desc, (size_t)n, sizeof(int32_t), cmp_end_desc, x->base_end);
    return visits;
}

/* Marks op w for recomputation; counts it pending when it was not. */
static void mark(struct auto_screen *x, int32_t w, int32_t *pending)
{
    if (x->dirty[w] != x->epoch) {
        x->dirty[w] = x->epoch;
        (*pending)++;
    }
}

int64_t auto_screen_trial(struct auto_ctx *s, const struct auto_move *m, uint64_t *visits)
{
    struct auto_screen *x = s->screen;
    const struct graph *g = s->g;
    const int32_t *st = m->kind == AUTO_MV_CO ? s->co_start : s->tf_start;
    const int32_t *op = m->kind == AUTO_MV_CO ? s->co_op : s->tf_op;
    int32_t nd = x->nd, first = x->n, pending = 0, n_diff = 0, i;
    int64_t step = 0;
    uint64_t vis = 1;

    if (++x->epoch == 0) { /* wrapped: forget every stamp */
        memset(x->changed, 0, (size_t)x->n * sizeof(uint32_t));
        memset(x->dirty, 0, (size_t)x->n * sizeof(uint32_t));
        x->epoch = 1;
    }
    /* the moved ops: marked, the first of them is where the pass starts */
    for (int32_t k = 0; k < 2; k++) {
        int32_t lo = k == 0 ? st[m->a] : m->kind == AUTO_MV_SWAP ? s->tf_start[m->b] : 0;
        int32_t hi = k == 0 ? st[m->a + 1] : m->kind == AUTO_MV_SWAP ? s->tf_start[m->b + 1] : 0;
        const int32_t *ops = k == 0 ? op : s->tf_op;
        for (int32_t j = lo; j < hi; j++) {
            int32_t v = ops[j];
            if (s->trial[v] != s->best[v]) {
                mark(x, v, &pending);
                first = x->pos[v] < first ? x->pos[v] : first;
            }
        }
    }
    if (pending == 0) {
        *visits += vis;
        return x->base_step;
    }
    i = first - first % AUTO_SCREEN_CKPT;
    memcpy(x->bdl, x->ckpt + (size_t)(i / AUTO_SCREEN_CKPT) * (size_t)nd,
           (size_t)nd * sizeof(int64_t));
    for (; i < first; i++) {
        int32_t v = x->ord[i];
        x->bdl[s->best[v]] = x->base_end[v];
    }
    vis += (uint64_t)(first % AUTO_SCREEN_CKPT);
    memcpy(x->dl, x->bdl, (size_t)nd * sizeof(int64_t));
    for (; i < x->n && (pending > 0 || n_diff > 0); i++) {
        int32_t v = x->ord[i], d = s->trial[v], db = s->best[v];
        bool before_d = x->dl[d] != x->bdl[d], before_db = x->dl[db] != x->bdl[db];
        int64_t t;

        vis++;
        if (x->dirty[v] == x->epoch) {
            pending--;
        } else if (!before_d) {
            /* unmoved (a moved op is marked), same inputs, same device
             * predecessor's end: the best's end */
            x->dl[d] = x->bdl[d] = x->base_end[v];
            continue;
        }
        /* an op that is not marked has the inputs it had in the best */
        t = x->dirty[v] == x->epoch ? ready_us(s, x, v, s->trial, true, &vis) : x->base_ready[v];
        t = t > x->dl[d] ? t : x->dl[d];
        t = sat_add_i64(t, run_us(s, v, d));
        x->dl[d] = t;
        x->bdl[db] = x->base_end[v];
        if (t != x->base_end[v] || d != db) {
            x->end[v] = t;
            x->changed[v] = x->epoch;
            step = t > step ? t : step;
            for (int32_t e = g->out_start[v]; e < g->out_start[v + 1]; e++) {
                mark(x, g->edge_dst[e], &pending);
            }
            vis += (uint64_t)(g->out_start[v + 1] - g->out_start[v]);
        }
        n_diff += (x->dl[d] != x->bdl[d]) - before_d;
        if (db != d) {
            n_diff += (x->dl[db] != x->bdl[db]) - before_db;
        }
    }
    /* the latest end among the ops the move left as they were */
    for (int32_t j = 0; j < x->n; j++) {
        int32_t v = x->desc[j];
        vis++;
        if (x->changed[v] != x->epoch) {
            step = x->base_end[v] > step ? x->base_end[v] : step;
            break;
        }
    }
    *visits += vis;
    return step;
}

int64_t auto_screen_base_step(const struct auto_ctx *s)
{
    return s->screen->base_step;
}

int auto_screen_full(const struct auto_ctx *s, int64_t *step_us)
{
    const struct auto_screen *x = s->screen;
    const struct graph *g = s->g;
    int64_t *end = array_calloc((size_t)x->n + 1, sizeof(int64_t));
    int64_t *dl = array_calloc((size_t)x->nd + 1, sizeof(int64_t));
    int rc = 0;

    *step_us = 0;
    if (!end || !dl) {
        rc = err_set(BAECHI_ENOMEM, "auto: out of memory for the delta screen's check");
        goto cleanup;
    }
    for (int32_t i = 0; i < x->n; i++) {
        int32_t v = x->ord[i], d = s->trial[v];
        int64_t t = dl[d];

        for (int32_t k = g->in_start[v]; k < g->in_start[v + 1]; k++) {
            int32_t e = g->in_edge[k], u = g->edge_src[e];
            int64_t a = end[u];
            if (s->trial[u] != d) {
                a = sat_add_i64(a, cluster_comm_us(s->c, s->trial[u], d, s->edge_bytes[e]));
            }
            t = a > t ? a : t;
        }
        end[v] = dl[d] = sat_add_i64(t, s->g->n_coll && s->g->coll_of[v] >= 0
                                            ? 0
                                            : cluster_compute_us(s->c, d, g->weight_us[v]));
        *step_us = end[v] > *step_us ? end[v] : *step_us;
    }
cleanup:
    free(end);
    free(dl);
    return rc;
}
