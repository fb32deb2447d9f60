/*
 * replay.c - a placed graph as a bench program, and the comparison of a
 * replay with the simulator (see replay.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "calibrate/replay.h"

#include "calibrate/fit.h"
#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct pending_free {
    double time; /* when the simulator frees it (sort key) */
    int32_t seq; /* tie-break: creation order */
    int32_t device;
    int32_t buf;
    int32_t wait_off, n_wait; /* events in builder.waits */
};

struct builder {
    const struct graph *g;
    const struct cluster *c;
    const int32_t *dev;
    const struct sim_result *sim;
    struct bench_program *p;
    int32_t n;           /* devices */
    int32_t *src_buf;    /* per tensor: buffer on the producer, -1 */
    int32_t *recv_buf;   /* per tensor x device, -1 */
    int32_t *recv_event; /* per tensor x device, -1 */
    int32_t *done_event; /* per op */
    int32_t *last_op;    /* per device: the last op issued there, -1 */
    struct pending_free *fr;
    size_t n_fr, alloc_fr;
    int32_t *waits;
    size_t n_waits, alloc_waits;
};

static int add(struct builder *b, int part, uint8_t kind, int32_t stream, int32_t buf,
               int32_t src_buf, int32_t event, int32_t id, double us)
{
    struct bench_cmd c = {kind, stream, buf, src_buf, event, id, us};

    return bench_program_add(b->p, part, &c);
}

static int32_t stream_of(int32_t d, int role)
{
    return d * BENCH_STREAMS_PER_DEVICE + role;
}

static double op_end(const struct builder *b, int32_t v)
{
    return b->sim ? (double)b->sim->end_us[v] : (double)b->g->topo[v];
}

static int push_wait(struct builder *b, int32_t ev)
{
    int rc = ARRAY_RESERVE(b->waits, b->alloc_waits, b->n_waits + 1);

    if (rc == 0) {
        b->waits[b->n_waits++] = ev;
    }
    return rc;
}

static int new_free(struct builder *b, int32_t d, int32_t buf, struct pending_free **out)
{
    int rc = ARRAY_RESERVE(b->fr, b->alloc_fr, b->n_fr + 1);

    if (rc) {
        return rc;
    }
    *out = &b->fr[b->n_fr];
    **out = (struct pending_free){-INFINITY, (int32_t)b->n_fr, d, buf, (int32_t)b->n_waits, 0};
    b->n_fr++;
    return 0;
}

static bool edge_has(const struct graph *g, int32_t e, int32_t t)
{
    for (int32_t k = g->et_start[e]; k < g->et_start[e + 1]; k++) {
        if (g->et_tensor[k] == t) {
            return true;
        }
    }
    return false;
}

/* The commands of op v: its compute, then its outgoing copies. */
static int emit_op(struct builder *b, int32_t v)
{
    const struct graph *g = b->g;
    int32_t d = b->dev[v], cs = stream_of(d, BENCH_STREAM_COMPUTE), temp_buf = -1;
    int rc = 0;

    for (int32_t k = b->g->in_start[v]; k < g->in_start[v + 1]; k++) {
        int32_t e = g->in_edge[k], u = g->edge_src[e];

        if (b->dev[u] == d) {
            continue; /* same stream, earlier in the issue order */
        }
        for (int32_t j = g->et_start[e]; j < g->et_start[e + 1]; j++) {
            int32_t ev = b->recv_event[(size_t)g->et_tensor[j] * b->n + d];

            if (ev < 0) {
                BUG("tensor %d not delivered to device %d before op %d", (int)g->et_tensor[j],
                    (int)d, (int)v);
            }
            CHECK(add(b, BENCH_PART_STEP, BENCH_WAIT, cs, -1, -1, ev, v, 0));
        }
    }
    for (int32_t t = g->port_start[v]; t < g->port_start[v + 1]; t++) {
        CHECK(bench_program_add_buf(b->p, d, g->port_bytes[t], &b->src_buf[t]));
        CHECK(add(b, BENCH_PART_STEP, BENCH_ALLOC, cs, b->src_buf[t], -1, -1, v, 0));
    }
    if (g->temp_bytes[v] > 0) {
        CHECK(bench_program_add_buf(b->p, d, g->temp_bytes[v], &temp_buf));
        CHECK(add(b, BENCH_PART_STEP, BENCH_ALLOC, cs, temp_buf, -1, -1, v, 0));
    }
    CHECK(add(b, BENCH_PART_STEP, BENCH_SPIN, cs, -1, -1, -1, v,
              (double)cluster_compute_us(b->c, d, g->weight_us[v])));
    if (temp_buf >= 0) {
        CHECK(add(b, BENCH_PART_STEP, BENCH_FREE, cs, temp_buf, -1, -1, v, 0));
    }
    CHECK(add(b, BENCH_PART_STEP, BENCH_RECORD, cs, -1, -1, b->done_event[v], v, 0));

    /* copies, in out-edge order, each tensor once per receiving device (baechi-spec §5.2) */
    for (int32_t e = g->out_start[v]; e < g->out_start[v + 1]; e++) {
        int32_t w = g->edge_dst[e], dw = b->dev[w], ks = stream_of(dw, BENCH_STREAM_COPY);

        if (dw == d) {
            continue;
        }
        for (int32_t j = g->et_start[e]; j < g->et_start[e + 1]; j++) {
            int32_t t = g->et_tensor[j];
            size_t slot = (size_t)t * b->n + dw;

            if (b->recv_event[slot] >= 0) {
                continue;
            }
            b->recv_event[slot] = b->p->n_events++;
            CHECK(bench_program_add_buf(b->p, dw, g->tensor_bytes[t], &b->recv_buf[slot]));
            CHECK(add(b, BENCH_PART_STEP, BENCH_WAIT, ks, -1, -1, b->done_event[v], t, 0));
            CHECK(add(b, BENCH_PART_STEP, BENCH_ALLOC, ks, b->recv_buf[slot], -1, -1, t, 0));
            CHECK(add(b, BENCH_PART_STEP, BENCH_COPY, ks, b->recv_buf[slot], b->src_buf[t], -1, t,
                      0));
            CHECK(add(b, BENCH_PART_STEP, BENCH_RECORD, ks, -1, -1, b->recv_event[slot], t, 0));
        }
    }
cleanup:
    return rc;
}

/* Frees of op v's outputs (on its device) and of its tensors received elsewhere. */
static int plan_frees(struct builder *b, int32_t v)
{
    const struct graph *g = b->g;
    int32_t d = b->dev[v];
    struct pending_free *f;
    int rc = 0;

    /* the producer's buffers: after all its consumers and every copy */
    for (int32_t t = g->port_start[v]; t < g->port_start[v + 1]; t++) {
        int32_t tt = t;
        double time = op_end(b, v);

        if (b->src_buf[tt] < 0) {
            continue;
        }
        CHECK(new_free(b, d, b->src_buf[tt], &f));
        CHECK(push_wait(b, b->done_event[v]));
        f->n_wait++;
        if (graph_out_degree(g, v) == 0) {
            /* a sink keeps its outputs to the end of the step, as the simulators
               (and the original) do: after the last op of every device */
            for (int32_t k = 0; k < b->n; k++) {
                if (b->last_op[k] >= 0) {
                    CHECK(push_wait(b, b->done_event[b->last_op[k]]));
                    f->n_wait++;
                }
            }
            f = &b->fr[b->n_fr - 1];
            f->time = INFINITY;
            continue;
        }
        for (int32_t e = g->out_start[v]; e < g->out_start[v + 1]; e++) {
            int32_t w = g->edge_dst[e];

            /* as the timed simulator: all ports of v are held until v's last
               consumer (on any device) ended and its last copy completed */
            CHECK(push_wait(b, b->done_event[w]));
            f->n_wait++;
            time = fmax(time, op_end(b, w));
        }
        for (int32_t k = 0; k < b->n; k++) {
            int32_t ev = b->recv_event[(size_t)tt * b->n + k];

            if (ev >= 0) {
                CHECK(push_wait(b, ev));
                f->n_wait++;
            }
        }
        f = &b->fr[b->n_fr - 1];
        f->time = time;
    }
    /* received copies: after their last consumer on the receiving device */
    for (int32_t t = g->port_start[v]; t <= g->port_start[v + 1]; t++) {
        int32_t tt = t < g->port_start[v + 1] ? t : g->n_ports + v;

        for (int32_t k = 0; k < b->n; k++) {
            size_t slot = (size_t)tt * b->n + k;
            double time = -INFINITY;

            if (b->recv_buf[slot] < 0) {
                continue;
            }
            CHECK(new_free(b, k, b->recv_buf[slot], &f));
            CHECK(push_wait(b, b->recv_event[slot]));
            f->n_wait++;
            for (int32_t e = g->out_start[v]; e < g->out_start[v + 1]; e++) {
                int32_t w = g->edge_dst[e];

                if (b->dev[w] == k && edge_has(g, e, tt)) {
                    CHECK(push_wait(b, b->done_event[w]));
                    f->n_wait++;
                    time = fmax(time, op_end(b, w));
                }
            }
            f->time = time;
        }
    }
cleanup:
    return rc;
}

static int cmp_free(const void *a, const void *b)
{
    const struct pending_free *x = a, *y = b;

    if (x->time != y->time) {
        return x->time < y->time ? -1 : 1;
    }
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Issue order: simulated start time, then topological index (qsort_r context: the builder). */
static int cmp_order(const void *a, const void *b, void *ctx)
{
    const struct builder *bd = ctx;
    int32_t u = *(const int32_t *)a, v = *(const int32_t *)b;

    if (bd->sim && bd->sim->start_us[u] != bd->sim->start_us[v]) {
        return bd->sim->start_us[u] < bd->sim->start_us[v] ? -1 : 1;
    }
    return (bd->g->topo[u] > bd->g->topo[v]) - (bd->g->topo[u] < bd->g->topo[v]);
}

int replay_build(const struct graph *g, const struct cluster *c, const int32_t *device_of,
                 const struct sim_result *sim, struct bench_program *p, struct replay_stats *stats)
{
    struct builder b;
    int32_t *order = NULL;
    size_t nt;
    int rc = 0;

    memset(p, 0, sizeof(*p));
    memset(&b, 0, sizeof(b));
    b.g = g;
    b.c = c;
    b.dev = device_of;
    b.sim = sim;
    b.p = p;
    b.n = c->n_devices;
    p->n_devices = c->n_devices;
    for (int32_t v = 0; v < g->n_ops; v++) {
        if (device_of[v] < 0 || device_of[v] >= c->n_devices) {
            return err_set(BAECHI_EINVAL, "op '%s' is placed on device %d of %d", g->op_name[v],
                           (int)device_of[v], (int)c->n_devices);
        }
    }
    nt = (size_t)g->n_tensors * (size_t)b.n;
    order = mem_alloc_array((size_t)g->n_ops + 1, sizeof(*order));
    b.src_buf = mem_alloc_array((size_t)g->n_tensors + 1, sizeof(int32_t));
    b.recv_buf = mem_alloc_array(nt + 1, sizeof(int32_t));
    b.recv_event = mem_alloc_array(nt + 1, sizeof(int32_t));
    b.done_event = mem_alloc_array((size_t)g->n_ops + 1, sizeof(int32_t));
    b.last_op = mem_alloc_array((size_t)b.n + 1, sizeof(int32_t));
    if (!order || !b.src_buf || !b.recv_buf || !b.recv_event || !b.done_event || !b.last_op) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    memset(b.src_buf, 0xff, ((size_t)g->n_tensors + 1) * sizeof(int32_t));
    memset(b.recv_buf, 0xff, (nt + 1) * sizeof(int32_t));
    memset(b.recv_event, 0xff, (nt + 1) * sizeof(int32_t));
    memset(b.last_op, 0xff, ((size_t)b.n + 1) * sizeof(int32_t));
    for (int32_t v = 0; v < g->n_ops; v++) {
        order[v] = v;
        b.done_event[v] = p->n_events++;
    }
    qsort_r(order, (size_t)g->n_ops, sizeof(*order), cmp_order, &b);

    /* persistent bytes: for the whole run */
    for (int32_t v = 0; v < g->n_ops; v++) {
        int32_t buf;

        if (g->persist_bytes[v] <= 0) {
            continue;
        }
        CHECK(bench_program_add_buf(p, device_of[v], g->persist_bytes[v], &buf));
        CHECK(
            add(&b, BENCH_PART_SETUP, BENCH_ALLOC, stream_of(device_of[v], 0), buf, -1, -1, v, 0));
        CHECK(add(&b, BENCH_PART_TEARDOWN, BENCH_FREE, stream_of(device_of[v], 0), buf, -1, -1, v,
                  0));
    }
    for (int32_t i = 0; i < g->n_ops; i++) {
        CHECK(emit_op(&b, order[i]));
    }
    for (int32_t i = 0; i < g->n_ops; i++) {
        b.last_op[device_of[order[i]]] = order[i];
    }
    for (int32_t i = 0; i < g->n_ops; i++) {
        CHECK(plan_frees(&b, order[i]));
    }
    qsort(b.fr, b.n_fr, sizeof(*b.fr), cmp_free);
    for (size_t i = 0; i < b.n_fr; i++) {
        const struct pending_free *f = &b.fr[i];
        int32_t ms = stream_of(f->device, BENCH_STREAM_MEM);

        for (int32_t k = 0; k < f->n_wait; k++) {
            CHECK(
                add(&b, BENCH_PART_STEP, BENCH_WAIT, ms, -1, -1, b.waits[f->wait_off + k], -1, 0));
        }
        CHECK(add(&b, BENCH_PART_STEP, BENCH_FREE, ms, f->buf, -1, -1, -1, 0));
    }
    if (stats) {
        memset(stats, 0, sizeof(*stats));
        stats->n_spins = g->n_ops;
        for (size_t s = 0; s < nt; s++) {
            if (b.recv_buf[s] >= 0) {
                stats->n_copies++;
                stats->copy_bytes += p->buf_bytes[b.recv_buf[s]];
            }
        }
    }
cleanup:
    free(order);
    free(b.src_buf);
    free(b.recv_buf);
    free(b.recv_event);
    free(b.done_event);
    free(b.last_op);
    free(b.fr);
    free(b.waits);
    if (rc) {
        bench_program_release(p);
    }
    return rc;
}

static double pct(double predicted, double measured)
{
    if (measured == 0) {
        return predicted == 0 ? 0.0 : INFINITY;
    }
    return 100.0 * (predicted - measured) / measured;
}

int replay_compare(const struct bench_replay_result *r, const struct sim_result *sim,
                   struct replay_compare *cmp)
{
    memset(cmp, 0, sizeof(*cmp));
    if (r->n_steps < 1) {
        return err_set(BAECHI_EINVAL, "no measured step to compare");
    }
    cmp->n_devices = r->n_devices;
    cmp->measured_peak = mem_calloc((size_t)r->n_devices + 1, sizeof(int64_t));
    cmp->sim_peak = mem_calloc((size_t)r->n_devices + 1, sizeof(int64_t));
    cmp->peak_err_pct = mem_calloc((size_t)r->n_devices + 1, sizeof(double));
    if (!cmp->measured_peak || !cmp->sim_peak || !cmp->peak_err_pct) {
        replay_compare_release(cmp);
        return BAECHI_ENOMEM;
    }
    cmp->measured_step_us = fit_median(r->step_us, r->n_steps);
    cmp->min_step_us = cmp->max_step_us = r->step_us[0];
    for (int32_t i = 1; i < r->n_steps; i++) {
        cmp->min_step_us = fmin(cmp->min_step_us, r->step_us[i]);
        cmp->max_step_us = fmax(cmp->max_step_us, r->step_us[i]);
    }
    cmp->sim_step_us = sim->step_us;
    cmp->step_err_pct = pct((double)sim->step_us, cmp->measured_step_us);
    for (int32_t d = 0; d < r->n_devices; d++) {
        cmp->measured_peak[d] = r->peak_bytes[d];
        cmp->sim_peak[d] = d < sim->n_devices ? sim->dev[d].peak_bytes : 0;
        cmp->peak_err_pct[d] = pct((double)cmp->sim_peak[d], (double)cmp->measured_peak[d]);
    }
    return 0;
}

void replay_compare_release(struct replay_compare *cmp)
{
    free(cmp->measured_peak);
    free(cmp->sim_peak);
    free(cmp->peak_err_pct);
    memset(cmp, 0, sizeof(*cmp));
}
