/*
 * sim_timed.c - the time-accurate model (sim.h, SIM_MODEL_TIMED): discrete
 * events in time order through the event queue (evq.h).
 *
 *   - compute: each device runs one op at a time; when it is idle it takes
 *     the smallest (ready time, topological index) among its ready ops;
 *   - transfers: when a producer ends, each of its tensors is sent once to
 *     each other device that consumes it, in out-edge order then tensor
 *     order (FCFS in event order), taking cluster_comm_us(src, dst, bytes)
 *     (per-pair models honoured) on the cluster's channel model:
 *       CHANNEL_SHARED  start = max(t, chan[src], chan[dst]), both held;
 *       CHANNEL_DUPLEX  start = max(t, send[src], recv[dst]);
 *       CHANNEL_LINK    start = max(t, link[src][dst]);
 *     channels are "free after" scalars, so a transfer's times are fixed
 *     when it is requested (no back-filling, as in the original);
 *   - memory: persistent bytes on the op's device from time 0 for the whole
 *     step; max(0, out - persistent) + temp at op start; temp freed at op
 *     end; the max(0, out - persistent) freed when all consumers have ended
 *     (then all its transfers are done too: a remote consumer starts after
 *     its transfer arrives); sinks keep their outputs, as in the original.
 *     A received tensor takes its bytes on the receiver from the start of
 *     its transfer until its last consumer on that device ends.
 *
 * Events at one time are handled in this order: op ends (frees, transfer
 * requests), then transfer starts (receiver allocations), then ops becoming
 * ready; then every idle device, in id order, starts its next op.  Equal
 * events go by topological index, then first in first out: runs are
 * deterministic.  Time O((V + E + T) log(V + T)) for T edge tensors.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "sim/sim_internal.h"

#include "core/array.h"
#include "core/err.h"
#include "sim/evq.h"

#include <stdlib.h>

enum timed_event {
    EV_OP_END = 0,     /* a = op */
    EV_XFER_START = 1, /* a = tensor, b = receiving device */
    EV_OP_READY = 2    /* a = op */
};

struct timed {
    const struct graph *g;
    const struct cluster *c;
    const int32_t *device_of;
    struct trace *trace;
    struct sim_result *r;
    int32_t nd;

    int32_t *pending_in;  /* per op: in-edges not resolved yet */
    int32_t *pending_out; /* per op: consumers not ended yet */
    int64_t *ready_at;    /* per op: latest input arrival */
    int32_t *slot_xfer;   /* per edge tensor slot: its transfer (cross-device edges) */
    int32_t *cache_stamp; /* (local tensor, device) -> producer + 1 */
    int32_t *cache_xfer;
    int64_t *cache_end;  /* its arrival */
    int64_t *used;       /* per device */
    int32_t *running;    /* per device: op or -1 */
    int64_t *chan;       /* channel "free after" times, layout per channel model */
    struct sim_rq *rq;   /* per device */
    int32_t *xf_pending; /* per transfer: consumers on its receiver not ended yet */
    size_t n_xf, alloc_xf;
    struct evq q;
    int64_t now;
};

static inline int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int mem_alloc(struct timed *s, int32_t d, int64_t bytes, int32_t op)
{
    s->used[d] += bytes;
    sim_mem_note(s->r, d, s->used[d], op, s->now);
    return s->trace ? trace_add_mem(s->trace, d, s->now, s->used[d]) : 0;
}

static int mem_free(struct timed *s, int32_t d, int64_t bytes)
{
    s->used[d] -= bytes;
    if (s->used[d] < 0) {
        BUG("device %d memory went negative (%lld B)", d, (long long)s->used[d]);
    }
    return s->trace ? trace_add_mem(s->trace, d, s->now, s->used[d]) : 0;
}

static int push_event(struct timed *s, int64_t t, int32_t kind, int32_t topo, int32_t a, int32_t b)
{
    struct evq_event ev = {.time_us = t, .key1 = kind, .key2 = topo, .kind = kind, .a = a, .b = b};

    return evq_push(&s->q, &ev);
}

/* The start of a transfer of cw µs from d to dw requested now. */
static int64_t channel_take(struct timed *s, int32_t d, int32_t dw, int64_t cw)
{
    const int32_t nd = s->nd;
    int64_t st;

    switch (s->c->channel) {
    case CHANNEL_DUPLEX: /* send engines [0, nd), receive engines [nd, 2 nd) */
        st = max64(s->now, max64(s->chan[d], s->chan[nd + dw]));
        s->chan[d] = s->chan[nd + dw] = st + cw;
        break;
    case CHANNEL_LINK:
        st = max64(s->now, s->chan[(size_t)d * nd + dw]);
        s->chan[(size_t)d * nd + dw] = st + cw;
        break;
    case CHANNEL_SHARED:
    default:
        st = max64(s->now, max64(s->chan[d], s->chan[dw]));
        s->chan[d] = s->chan[dw] = st + cw;
        break;
    }
    return st;
}

/* A new transfer of tensor x from d to dw, requested now; its id and arrival. */
static int xfer_new(struct timed *s, int32_t x, int32_t d, int32_t dw, int32_t *id, int64_t *end_us)
{
    const struct graph *g = s->g;
    int64_t bytes = g->tensor_bytes[x];
    int64_t cw = cluster_comm_us(s->c, d, dw, bytes);
    int64_t st = channel_take(s, d, dw, cw);
    int rc;

    if (s->n_xf >= s->alloc_xf) {
        BUG("more transfers than cross-device edge tensors (%zu)", s->alloc_xf);
    }
    *id = (int32_t)s->n_xf++;
    s->xf_pending[*id] = 0;
    *end_us = st + cw;
    s->r->link_bytes[(size_t)d * s->nd + dw] += bytes;
    s->r->link_transfers[(size_t)d * s->nd + dw]++;
    if (s->trace &&
        (rc = trace_add_transfer(s->trace, x, d, dw, bytes, st, st + cw, st, st + cw)) != 0) {
        return rc;
    }
    return push_event(s, st, EV_XFER_START, g->topo[g->tensor_op[x]], x, dw);
}

static int op_end(struct timed *s, int32_t v)
{
    const struct graph *g = s->g;
    const int32_t d = s->device_of[v], nd = s->nd;
    int rc;

    s->running[d] = -1;
    if (g->temp_bytes[v] && (rc = mem_free(s, d, g->temp_bytes[v])) != 0) {
        return rc;
    }
    /* inputs: received copies on d and producers' outputs */
    for (int32_t k = g->in_start[v]; k < g->in_start[v + 1]; k++) {
        int32_t e = g->in_edge[k], u = g->edge_src[e], du = s->device_of[u];

        if (du != d) {
            for (int32_t sl = g->et_start[e]; sl < g->et_start[e + 1]; sl++) {
                if (--s->xf_pending[s->slot_xfer[sl]] == 0 &&
                    (rc = mem_free(s, d, g->tensor_bytes[g->et_tensor[sl]])) != 0) {
                    return rc;
                }
            }
        }
        if (--s->pending_out[u] == 0) {
            int64_t b = g->out_bytes[u] - g->persist_bytes[u];

            if (b > 0 && (rc = mem_free(s, du, b)) != 0) {
                return rc;
            }
        }
    }
    /* outputs: transfers, then consumers' readiness */
    for (int32_t e = g->out_start[v]; e < g->out_start[v + 1]; e++) {
        int32_t w = g->edge_dst[e], dw = s->device_of[w];
        int64_t arrival = s->now;

        if (dw != d) {
            for (int32_t sl = g->et_start[e]; sl < g->et_start[e + 1]; sl++) {
                int32_t x = g->et_tensor[sl], id = -1;
                int64_t end_us = 0;
                int32_t li =
                    x < g->n_ports ? x - g->port_start[v] : g->port_start[v + 1] - g->port_start[v];
                size_t ci = (size_t)li * (size_t)nd + (size_t)dw;

                if (s->cache_stamp[ci] == v + 1) {
                    id = s->cache_xfer[ci];
                    end_us = s->cache_end[ci];
                } else {
                    if ((rc = xfer_new(s, x, d, dw, &id, &end_us)) != 0) {
                        return rc;
                    }
                    s->cache_stamp[ci] = v + 1;
                    s->cache_xfer[ci] = id;
                    s->cache_end[ci] = end_us;
                }
                s->slot_xfer[sl] = id;
                s->xf_pending[id]++;
                arrival = max64(arrival, end_us);
            }
        }
        s->ready_at[w] = max64(s->ready_at[w], arrival);
        if (--s->pending_in[w] == 0) {
            if (s->ready_at[w] == s->now) {
                rc = sim_rq_push(&s->rq[dw], s->now, g->topo[w], w);
            } else {
                rc = push_event(s, s->ready_at[w], EV_OP_READY, g->topo[w], w, 0);
            }
            if (rc) {
                return rc;
            }
        }
    }
    return 0;
}

/* Every idle device starts its next ready op. */
static int dispatch(struct timed *s)
{
    const struct graph *g = s->g;
    int rc;

    for (int32_t d = 0; d < s->nd; d++) {
        struct sim_rq_item it;
        int32_t v;
        int64_t w, b;

        if (s->running[d] >= 0 || s->rq[d].nr == 0) {
            continue;
        }
        it = sim_rq_pop(&s->rq[d]);
        v = it.op;
        w = cluster_compute_us(s->c, d, g->weight_us[v]);
        b = g->out_bytes[v] - g->persist_bytes[v];
        if (b < 0) {
            b = 0;
        }
        b += g->temp_bytes[v];
        if ((rc = mem_alloc(s, d, b, v)) != 0) {
            return rc;
        }
        s->running[d] = v;
        s->r->start_us[v] = s->now;
        s->r->end_us[v] = s->now + w;
        s->r->dev[d].busy_us += w;
        s->r->dev[d].n_ops++;
        if (s->r->end_us[v] > s->r->step_us) {
            s->r->step_us = s->r->end_us[v];
        }
        if (s->trace && (rc = trace_add_compute(s->trace, v, d, s->now, s->now + w)) != 0) {
            return rc;
        }
        if ((rc = push_event(s, s->now + w, EV_OP_END, g->topo[v], v, 0)) != 0) {
            return rc;
        }
    }
    return 0;
}

static int handle(struct timed *s, const struct evq_event *ev)
{
    const struct graph *g = s->g;

    switch (ev->kind) {
    case EV_OP_END:
        return op_end(s, ev->a);
    case EV_XFER_START:
        /* an OOM here names the tensor's producer */
        return mem_alloc(s, ev->b, g->tensor_bytes[ev->a], g->tensor_op[ev->a]);
    case EV_OP_READY:
        return sim_rq_push(&s->rq[s->device_of[ev->a]], s->now, g->topo[ev->a], ev->a);
    default:
        BUG("unknown event kind %d", ev->kind);
    }
}

int sim_timed_run(const struct graph *g, const struct cluster *c, const int32_t *device_of,
                  struct trace *trace, struct sim_result *r)
{
    const int32_t n = g->n_ops, nd = c->n_devices;
    const size_t n_slots = g->n_edges ? (size_t)g->et_start[g->n_edges] : 0;
    struct timed s = {.g = g, .c = c, .device_of = device_of, .trace = trace, .r = r, .nd = nd};
    int32_t maxp = 0, started = 0;
    size_t cache_n;
    int rc = 0;

    evq_init(&s.q);
    for (int32_t v = 0; v < n; v++) {
        int32_t np = g->port_start[v + 1] - g->port_start[v];

        if (np > maxp) {
            maxp = np;
        }
    }
    cache_n = (size_t)(maxp + 1) * (size_t)nd;
    /* at most one transfer per cross-device edge tensor: sized once, no regrowth */
    for (int32_t e = 0; e < g->n_edges; e++) {
        if (device_of[g->edge_src[e]] != device_of[g->edge_dst[e]]) {
            s.alloc_xf += (size_t)(g->et_start[e + 1] - g->et_start[e]);
        }
    }
    s.xf_pending = array_malloc(s.alloc_xf, sizeof(*s.xf_pending));
    s.pending_in = array_malloc((size_t)n, sizeof(*s.pending_in));
    s.pending_out = array_malloc((size_t)n, sizeof(*s.pending_out));
    s.ready_at = array_calloc((size_t)n, sizeof(*s.ready_at));
    s.slot_xfer = array_malloc(n_slots, sizeof(*s.slot_xfer));
    s.cache_stamp = array_calloc(cache_n, sizeof(*s.cache_stamp));
    s.cache_xfer = array_malloc(cache_n, sizeof(*s.cache_xfer));
    s.cache_end = array_malloc(cache_n, sizeof(*s.cache_end));
    s.used = array_calloc((size_t)nd, sizeof(*s.used));
    s.running = array_malloc((size_t)nd, sizeof(*s.running));
    s.chan = array_calloc((size_t)nd * nd + 2 * (size_t)nd, sizeof(*s.chan));
    s.rq = array_calloc((size_t)nd, sizeof(*s.rq));
    if (!s.xf_pending || !s.pending_in || !s.pending_out || !s.ready_at || !s.slot_xfer ||
        !s.cache_stamp || !s.cache_xfer || !s.cache_end || !s.used || !s.running || !s.chan ||
        !s.rq) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    for (int32_t d = 0; d < nd; d++) {
        s.running[d] = -1;
    }
    CHECK(evq_reserve(&s.q, (size_t)nd * 4 + 64));

    /* persistent bytes live for the whole step, from time 0 */
    for (int32_t v = 0; v < n; v++) {
        s.pending_in[v] = graph_in_degree(g, v);
        s.pending_out[v] = graph_out_degree(g, v);
        if (g->persist_bytes[v] > 0) {
            int32_t d = device_of[v];

            s.used[d] += g->persist_bytes[v];
            sim_mem_note(r, d, s.used[d], v, 0);
        }
    }
    if (trace) {
        for (int32_t d = 0; d < nd; d++) {
            CHECK(trace_add_mem(trace, d, 0, s.used[d]));
        }
    }
    for (int32_t i = 0; i < n; i++) {
        int32_t v = g->topo_op[i];

        if (s.pending_in[v] == 0) {
            CHECK(sim_rq_push(&s.rq[device_of[v]], 0, g->topo[v], v));
        }
    }
    CHECK(dispatch(&s));
    while (!evq_empty(&s.q)) {
        struct evq_event ev;

        s.now = evq_peek(&s.q)->time_us;
        while (!evq_empty(&s.q) && evq_peek(&s.q)->time_us == s.now) {
            evq_pop(&s.q, &ev);
            CHECK(handle(&s, &ev));
        }
        CHECK(dispatch(&s));
    }
    for (int32_t d = 0; d < nd; d++) {
        started += r->dev[d].n_ops;
        r->dev[d].final_bytes = s.used[d];
    }
    if (started != n) {
        BUG("timed simulation ran %d of %d ops", started, n);
    }

cleanup:
    evq_release(&s.q);
    if (s.rq) {
        for (int32_t d = 0; d < nd; d++) {
            sim_rq_release(&s.rq[d]);
        }
    }
    free(s.rq);
    free(s.xf_pending);
    free(s.pending_in);
    free(s.pending_out);
    free(s.ready_at);
    free(s.slot_xfer);
    free(s.cache_stamp);
    free(s.cache_xfer);
    free(s.cache_end);
    free(s.used);
    free(s.running);
    free(s.chan);
    return rc;
}
