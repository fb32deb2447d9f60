/*
 * auto_screen.c - the delta screen of the `auto` placer's search
 * (auto_internal.h; beyond the original, issue 22 item 5): a cheap,
 * inexact estimate of a move's step, so that a round simulates its most
 * promising moves first.
 *
 * The model is the best placement's schedule with each device's order of
 * ops fixed: the ops in the order the best's timed run started them
 * (start, end, topological position), an op starts when its inputs have
 * arrived (the producer's end plus cluster_comm_us over the edge's bytes
 * when the devices differ) and the op before it on its device has ended.
 * What it leaves out: the channels' queues (a transfer takes its link at
 * once), memory, and the re-ordering a dispatcher does; so the simulators
 * stay the judge of every move kept.
 *
 * In that model the best has a head (end) and a tail (the longest path
 * from the op's start to the step's end, its own run included) per op.  A
 * move keeps every op's place in the order; a moved op v joins its new
 * device between the ops a (before it) and b (after it) there.  Every path
 * runs forward in the order, so v's producers keep their heads and its
 * consumers, a and b keep their tails; the longest path through v is then
 *
 *     max(inputs' heads + transfers, head(a)) + run(v) +
 *     max(consumers' tails + transfers, tail(b)),
 *
 * and the one that joins v's old neighbours a', b' is head(a') + tail(b').
 * The estimate is the largest of these over the moved ops and, unless a
 * moved op lay on a longest path of the best, the best's step (a longest
 * path that avoids the moved ops survives the move).  For a move of one op
 * that is not on a longest path this is the model's exact step; for one on
 * it a lower bound (the longest path that avoids it is not known); for
 * several ops an estimate (each sees the others' old heads and tails).
 * tests/unit/test_auto.c checks the first two against a pass from scratch
 * (auto_screen_full).
 *
 * Cost: O(in- and out-degree + log ops) per moved op, and O(ops + edges)
 * plus two sorts once per new best.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/auto_internal.h"

#include "core/alloc.h"
#include "core/checked.h"
#include "core/err.h"

#include <stdlib.h>
#include <string.h>

struct auto_screen {
    int32_t n, nd;
    int32_t *ord;                /* position -> op */
    int32_t *pos;                /* op -> position */
    int64_t *head;               /* each op's end in the best */
    int64_t *tail;               /* the longest path from each op's start to the end */
    int64_t step;                /* the best's step in the model */
    int32_t *prev_dev;           /* the op before it on its device in the best (-1) */
    int32_t *next_dev;           /* ... after it (-1) */
    int32_t *dev_start, *dev_op; /* each device's ops in order (CSR) */
    int64_t *add;                /* per device: scratch of auto_screen_base */
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
    free(x->head);
    free(x->tail);
    free(x->prev_dev);
    free(x->next_dev);
    free(x->dev_start);
    free(x->dev_op);
    free(x->add);
    free(x->edge_comm);
    free(x->op_run);
    free(x);
}

int auto_screen_new(const struct auto_ctx *s, struct auto_screen **out)
{
    struct auto_screen *x = mem_calloc(1, sizeof(*x));
    size_t n = (size_t)s->n_ops + 1, nd = (size_t)s->n_dev + 1;
    bool unit_speed = true, uniform = !s->c->pair && s->c->nodes.gpus_per_node <= 0;

    *out = NULL;
    if (!x) {
        return err_set(BAECHI_ENOMEM, "auto: out of memory for the delta screen");
    }
    x->n = s->n_ops;
    x->nd = s->n_dev;
    for (int32_t d = 0; d < s->n_dev; d++) {
        unit_speed &= s->c->dev[d].speed == 1.0;
    }
    x->ord = mem_alloc_array(n, sizeof(int32_t));
    x->pos = mem_alloc_array(n, sizeof(int32_t));
    x->head = mem_calloc(n, sizeof(int64_t));
    x->tail = mem_calloc(n, sizeof(int64_t));
    x->prev_dev = mem_alloc_array(n, sizeof(int32_t));
    x->next_dev = mem_alloc_array(n, sizeof(int32_t));
    x->dev_start = mem_calloc(nd + 1, sizeof(int32_t));
    x->dev_op = mem_alloc_array(n, sizeof(int32_t));
    x->add = mem_calloc(nd, sizeof(int64_t));
    if (uniform && s->n_dev >= 2) {
        x->edge_comm = mem_alloc_array((size_t)s->g->n_edges + 1, sizeof(int64_t));
    }
    if (unit_speed) {
        x->op_run = mem_alloc_array(n, sizeof(int64_t));
    }
    if (!x->ord || !x->pos || !x->head || !x->tail || !x->prev_dev || !x->next_dev ||
        !x->dev_start || !x->dev_op || !x->add || (uniform && s->n_dev >= 2 && !x->edge_comm) ||
        (unit_speed && !x->op_run)) {
        auto_screen_free(x);
        return err_set(BAECHI_ENOMEM, "auto: out of memory for the delta screen");
    }
    for (int32_t e = 0; x->edge_comm && e < s->g->n_edges; e++) {
        x->edge_comm[e] = cluster_comm_us(s->c, 0, 1, s->edge_bytes[e]);
    }
    for (int32_t v = 0; x->op_run && v < s->n_ops; v++) {
        x->op_run[v] = s->g->n_coll && s->g->coll_of[v] >= 0 ? 0 : s->g->weight_us[v];
    }
    *out = x;
    return 0;
}

/* Op v's run time on device d, as the simulators count it (0 for a
 * collective's rank). */
static int64_t run_us(const struct auto_ctx *s, int32_t v, int32_t d)
{
    if (s->screen->op_run) {
        return s->screen->op_run[v];
    }
    return s->g->n_coll && s->g->coll_of[v] >= 0 ? 0
                                                 : cluster_compute_us(s->c, d, s->g->weight_us[v]);
}

/* Edge e's transfer time from device `from` to `to` (0 on one device). */
static int64_t comm_us(const struct auto_ctx *s, int32_t e, int32_t from, int32_t to)
{
    if (from == to) {
        return 0;
    }
    return s->screen->edge_comm ? s->screen->edge_comm[e]
                                : cluster_comm_us(s->c, from, to, s->edge_bytes[e]);
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

uint64_t auto_screen_base(struct auto_ctx *s)
{
    struct auto_screen *x = s->screen;
    const struct graph *g = s->g;
    int32_t n = x->n, nd = x->nd;
    int64_t *last = x->add; /* scratch: each device's last op so far, then its next slot */
    uint64_t visits = ((uint64_t)n + (uint64_t)g->n_edges) / AUTO_SCREEN_BASE_DIV + 1;

    for (int32_t i = 0; i < n; i++) {
        x->ord[i] = i;
    }
    qsort_r(x->ord, (size_t)n, sizeof(int32_t), cmp_started, s);
    for (int32_t d = 0; d < nd; d++) {
        last[d] = -1;
    }
    memset(x->dev_start, 0, ((size_t)nd + 1) * sizeof(int32_t));
    x->step = 0;
    /* heads, in the order, and each device's sequence */
    for (int32_t i = 0; i < n; i++) {
        int32_t v = x->ord[i], d = s->best[v];
        int64_t t = last[d] >= 0 ? x->head[last[d]] : 0;

        for (int32_t k = g->in_start[v]; k < g->in_start[v + 1]; k++) {
            int32_t e = g->in_edge[k], u = g->edge_src[e];
            int64_t a = sat_add_i64(x->head[u], comm_us(s, e, s->best[u], d));
            t = a > t ? a : t;
        }
        x->pos[v] = i;
        x->head[v] = sat_add_i64(t, run_us(s, v, d));
        x->step = x->head[v] > x->step ? x->head[v] : x->step;
        x->prev_dev[v] = (int32_t)last[d];
        x->next_dev[v] = -1;
        if (last[d] >= 0) {
            x->next_dev[last[d]] = v;
        }
        last[d] = v;
        x->dev_start[d + 1]++;
    }
    for (int32_t d = 0; d < nd; d++) {
        x->dev_start[d + 1] += x->dev_start[d];
        last[d] = x->dev_start[d];
    }
    for (int32_t i = 0; i < n; i++) {
        int32_t v = x->ord[i];
        x->dev_op[last[s->best[v]]++] = v;
    }
    /* tails, from the last op back */
    for (int32_t i = n - 1; i >= 0; i--) {
        int32_t v = x->ord[i], d = s->best[v];
        int64_t t = x->next_dev[v] >= 0 ? x->tail[x->next_dev[v]] : 0;

        for (int32_t e = g->out_start[v]; e < g->out_start[v + 1]; e++) {
            int32_t w = g->edge_dst[e];
            int64_t a = sat_add_i64(x->tail[w], comm_us(s, e, d, s->best[w]));
            t = a > t ? a : t;
        }
        x->tail[v] = sat_add_i64(t, run_us(s, v, d));
    }
    return visits;
}

/* The ops of device d just before and after position p in the best (by
 * binary search in d's sequence), -1 when none. */
static void neighbours(const struct auto_screen *x, int32_t d, int32_t p, int32_t *a, int32_t *b)
{
    int32_t lo = x->dev_start[d], hi = x->dev_start[d + 1];

    while (lo < hi) { /* the first op of d at a position after p */
        int32_t mid = lo + (hi - lo) / 2;
        if (x->pos[x->dev_op[mid]] <= p) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    *a = lo > x->dev_start[d] ? x->dev_op[lo - 1] : -1;
    *b = lo < x->dev_start[d + 1] ? x->dev_op[lo] : -1;
}

/* The longest path through moved op v at its new place, and the one that
 * joins its old neighbours (the file's header); adds its visits. */
static int64_t through_moved(const struct auto_ctx *s, int32_t v, uint64_t *vis)
{
    const struct auto_screen *x = s->screen;
    const struct graph *g = s->g;
    int32_t d = s->trial[v], a, b;
    int64_t start = 0, out = 0, est;

    for (int32_t i = g->in_start[v]; i < g->in_start[v + 1]; i++) {
        int32_t e = g->in_edge[i], u = g->edge_src[e];
        int64_t t = sat_add_i64(x->head[u], comm_us(s, e, s->trial[u], d));
        start = t > start ? t : start;
    }
    for (int32_t e = g->out_start[v]; e < g->out_start[v + 1]; e++) {
        int32_t w = g->edge_dst[e];
        int64_t t = sat_add_i64(x->tail[w], comm_us(s, e, d, s->trial[w]));
        out = t > out ? t : out;
    }
    *vis += (uint64_t)(g->in_start[v + 1] - g->in_start[v]) +
            (uint64_t)(g->out_start[v + 1] - g->out_start[v]) + 1;
    neighbours(x, d, x->pos[v], &a, &b);
    if (a >= 0 && x->head[a] > start) {
        start = x->head[a];
    }
    if (b >= 0 && x->tail[b] > out) {
        out = x->tail[b];
    }
    est = sat_add_i64(sat_add_i64(start, run_us(s, v, d)), out);
    a = x->prev_dev[v];
    b = x->next_dev[v];
    if (a >= 0 && b >= 0) {
        int64_t t = sat_add_i64(x->head[a], x->tail[b]);
        est = t > est ? t : est;
    }
    return est;
}

int64_t auto_screen_estimate(struct auto_ctx *s, const struct auto_move *m,
                             enum auto_screen_kind *kind, uint64_t *visits)
{
    const struct auto_screen *x = s->screen;
    const int32_t *st = m->kind == AUTO_MV_CO ? s->co_start : s->tf_start;
    const int32_t *op = m->kind == AUTO_MV_CO ? s->co_op : s->tf_op;
    int64_t est = 0;
    int32_t n_moved = 0;
    bool critical = false;
    uint64_t vis = 1;

    for (int32_t k = 0; k < 2; k++) {
        int32_t lo = k == 0 ? st[m->a] : m->kind == AUTO_MV_SWAP ? s->tf_start[m->b] : 0;
        int32_t hi = k == 0 ? st[m->a + 1] : m->kind == AUTO_MV_SWAP ? s->tf_start[m->b + 1] : 0;
        const int32_t *ops = k == 0 ? op : s->tf_op;
        for (int32_t j = lo; j < hi; j++) {
            int32_t v = ops[j];
            if (s->trial[v] != s->best[v]) {
                int64_t t = through_moved(s, v, &vis);
                est = t > est ? t : est;
                critical |= x->head[v] - run_us(s, v, s->best[v]) + x->tail[v] >= x->step;
                n_moved++;
            }
        }
    }
    /* a longest path of the best that avoids the moved ops survives */
    if (!critical && x->step > est) {
        est = x->step;
    }
    *kind = n_moved != 1 ? AUTO_SCREEN_GUESS : critical ? AUTO_SCREEN_LOWER : AUTO_SCREEN_EXACT;
    *visits += vis;
    return est;
}

int64_t auto_screen_step(const struct auto_ctx *s)
{
    return s->screen->step;
}

int auto_screen_full(const struct auto_ctx *s, int64_t *step_us)
{
    const struct auto_screen *x = s->screen;
    const struct graph *g = s->g;
    int64_t *end = mem_calloc((size_t)x->n + 1, sizeof(int64_t));
    int64_t *dl = mem_calloc((size_t)x->nd + 1, sizeof(int64_t));
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
