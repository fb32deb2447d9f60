/*
 * sim_timed.c - the time-accurate model (sim.h, SIM_MODEL_TIMED): discrete
 * events in time order through the event queue (evq.h).
 *
 *   - compute: each device runs one op at a time; when it is idle it takes
 *     the smallest (ready time, topological index) among its ready ops; on
 *     a micro-batched graph (workloads/train.h) the smallest (position in
 *     its stage's pipeline schedule, ready time, topological index) among
 *     those the schedule lets start (sim_sched.c: 1F1B's warm-up, GPipe's
 *     all forwards first, ...).  By ready time alone a stage would run
 *     every micro-batch's first op before any second op, and no stage would
 *     start before the previous one had finished every micro-batch: no
 *     pipeline;
 *   - transfers: when a producer ends, each of its tensors is sent once to
 *     each other device that consumes it, in out-edge order then tensor
 *     order (FCFS in event order), taking cluster_comm_us(src, dst, bytes)
 *     (per-pair models honoured) on the cluster's channel model:
 *       CHANNEL_SHARED  start = max(t, chan[src], chan[dst]), both held;
 *       CHANNEL_DUPLEX  start = max(t, send[src], recv[dst]);
 *       CHANNEL_LINK    start = max(t, link[src][dst]);
 *     shared and duplex once per fabric in a cluster with nodes (NVLink
 *     engines inside a node, NIC engines across: sim/collective.h;
 *     deviation: the original has one channel a device for all traffic);
 *     channels are "free after" scalars, so a transfer's times are fixed
 *     when it is requested (no back-filling, as in the original);
 *   - memory: persistent bytes on the op's device from time 0 for the whole
 *     step; out + temp at op start (out - persistent for a variable or a
 *     constant, whose output is its persistent state); temp freed at op
 *     end; the outputs freed when all consumers have ended
 *     (then all its transfers are done too: a remote consumer starts after
 *     its transfer arrives); sinks keep their outputs, as in the original.
 *     A received tensor takes its bytes on the receiver from the start of
 *     its transfer until its last consumer on that device ends;
 *   - collectives (beyond the original; sim/collective.h): a rank op that
 *     becomes ready goes to its collective, not to the ready queue; the
 *     last rank requests the collective's channels (op_ready), and all
 *     ranks start together (coll_start) off the compute stream.
 *
 * Events at one time are handled in this order: op ends (frees, transfer
 * requests), then transfer starts (receiver allocations), then ops becoming
 * ready, then collectives starting; then every idle device, in id order,
 * starts its next op.  Equal
 * events go by topological index, then first in first out: runs are
 * deterministic.  (The op ends of up to TIMED_END_SLOTS_MAX devices are
 * kept beside the queue, one per device, and taken in that same order.)  Time O((V + E + T) log(V +
 * T)) for T edge tensors.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "sim/sim_internal.h"

#include "core/alloc.h"
#include "core/checked.h"
#include "core/err.h"
#include "core/workload.h"
#include "sim/collective.h"
#include "sim/evq.h"
#include "sim/sim_timed_internal.h"

#include <stdlib.h>

static inline int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* Device d takes bytes more now, for op (the op an OOM names). */
static inline int dev_take_bytes(struct timed *s, int32_t d, int64_t bytes, int32_t op)
{
    s->used[d] += bytes;
    sim_mem_note(s->r, s->obs, d, s->used[d], op, s->now);
    return s->trace ? trace_add_mem(s->trace, d, s->now, s->used[d]) : 0;
}

/* Device d gives back bytes now. */
static int dev_give_bytes(struct timed *s, int32_t d, int64_t bytes)
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

    /* the engines of the fabric d -> dw crosses (collective.h) */
    int64_t *f = s->chan + (s->c->channel == CHANNEL_LINK ? 0 : coll_sim_fabric_base(s->c, d, dw));

    switch (s->c->channel) {
    case CHANNEL_DUPLEX: /* send engines [0, nd), receive engines [nd, 2 nd) */
        st = max64(s->now, max64(f[d], f[nd + dw]));
        f[d] = f[nd + dw] = sat_add_i64(st, cw);
        break;
    case CHANNEL_LINK: { /* one engine per link (sim_links.h) */
        size_t l = sim_links_at(&s->r->links, d, dw);

        st = max64(s->now, s->chan[l]);
        s->chan[l] = sat_add_i64(st, cw);
        break;
    }
    case CHANNEL_SHARED:
    default:
        st = max64(s->now, max64(f[d], f[dw]));
        f[d] = f[dw] = sat_add_i64(st, cw);
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
    size_t l;
    int rc;

    if (s->n_xf >= s->alloc_xf) {
        BUG("more transfers than cross-device edge tensors (%zu)", s->alloc_xf);
    }
    *id = (int32_t)s->n_xf++;
    s->xf_pending[*id] = 0;
    /* saturating: times in range can still add up past int64 (docs/limits.md) */
    *end_us = sat_add_i64(st, cw);
    l = sim_links_at(&s->r->links, d, dw);
    s->r->link_bytes[l] += bytes;
    s->r->link_transfers[l]++;
    if (s->trace &&
        (rc = trace_add_transfer(s->trace, x, d, dw, bytes, st, *end_us, st, *end_us)) != 0) {
        return rc;
    }
    return push_event(s, st, EV_XFER_START, g->topo[g->tensor_op[x]], x, dw);
}

/*
 * Bytes op u holds for its outputs beyond shared storage.  Outputs and
 * persistent bytes are separate quantities (docs/training-memory.md), but a
 * variable's or a constant's output is its persistent state, stored once
 * (workload_type_holds_state): only what exceeds it counts.
 */
static int64_t own_out_bytes(const struct timed *s, int32_t u)
{
    int64_t b = s->g->out_bytes[u];

    if (s->g->persist_bytes[u] > 0 && workload_type_holds_state(s->g->op_type[u])) {
        b -= s->g->persist_bytes[u];
    }

    if (s->alias_bytes) {
        b -= s->alias_bytes[u];
    }
    return b > 0 ? b : 0;
}

/* One consumer of u's outputs (or of a view of them) has ended. */
static int consumer_done(struct timed *s, int32_t u)
{
    int64_t b;

    if (--s->pending_out[u] != 0) {
        return 0;
    }
    b = own_out_bytes(s, u);
    if (b > 0) {
        int32_t du = s->device_of[u];

        sim_obs_free(s->obs, du, s->now, -b, SIM_MEM_OUTPUT, u, -1);
        return dev_give_bytes(s, du, b);
    }
    return 0;
}

/* Device d's held ops go back to its ready queue (the schedule moved on). */
static int unhold(struct timed *s, int32_t d)
{
    while (s->held[d].nr > 0) {
        struct sim_rq_item it = sim_rq_pop(&s->held[d]);
        int rc = sim_rq_push_prio(&s->rq[d], it.prio, it.time_us, it.topo, it.op);

        if (rc) {
            return rc;
        }
    }
    return 0;
}

/*
 * Op v is ready now: to its device's ready queue, or, for a collective's
 * rank, to its collective, which is requested when its last rank is ready:
 * its channels are taken now and it starts when they are free.
 */
static int op_ready(struct timed *s, int32_t v)
{
    const struct graph *g = s->g;
    bool deferred = false;
    int32_t ci;
    int rc = 0;

    if (!coll_is_rank(g, v)) {
        return sim_rq_push_prio(
            &s->rq[s->device_of[v]],
            (g->micro_batch ? sim_sched_prio(&s->sched, g, s->device_of, v) : 0), s->now,
            g->topo[v], v);
    }
    if (!coll_sim_rank_ready(&s->coll, v)) {
        return 0;
    }
    ci = g->coll_of[v];
    if (s->sym_pend && ((rc = timed_sym_ready(s, ci, &deferred)) != 0 || deferred)) {
        return rc; /* replica symmetry: requested at the end of this time */
    }
    return timed_coll_request(s, ci, s->now);
}

int timed_coll_request(struct timed *s, int32_t ci, int64_t not_before_us)
{
    const struct graph *g = s->g;
    struct coll_plan p;
    int64_t st;
    int rc;

    if ((rc = coll_plan_make(&p, g, s->c, s->device_of, ci)) != 0) {
        return rc;
    }
    st = coll_sim_take(&p, s->c, s->chan, &s->r->links,
                       not_before_us > s->now ? not_before_us : s->now);
    for (int32_t k = 0; k < p.n_edge; k++) {
        size_t l = sim_links_at(&s->r->links, p.edge[k].src, p.edge[k].dst);

        s->r->link_bytes[l] = sat_add_i64(s->r->link_bytes[l], p.edge[k].bytes);
        s->r->link_transfers[l]++;
    }
    for (int32_t i = g->coll_start[ci]; i < g->coll_start[ci + 1]; i++) {
        s->r->end_us[g->coll_op[i]] = sat_add_i64(st, p.time_us); /* read by coll_start */
    }
    coll_plan_release(&p);
    return push_event(s, st, EV_COLL_START, g->topo[g->coll_op[g->coll_start[ci]]], ci, 0);
}

/* Collective ci starts now: every rank takes its output and temp bytes. */
static int coll_start(struct timed *s, int32_t ci)
{
    const struct graph *g = s->g;
    int rc;

    for (int32_t i = g->coll_start[ci]; i < g->coll_start[ci + 1]; i++) {
        int32_t v = g->coll_op[i], d = s->device_of[v];
        int64_t b = own_out_bytes(s, v), end = s->r->end_us[v];

        sim_obs_mem(s->obs, d, s->now, b, SIM_MEM_OUTPUT, v, -1);
        sim_obs_mem(s->obs, d, s->now, g->temp_bytes[v], SIM_MEM_TEMP, v, -1);
        if ((rc = dev_take_bytes(s, d, b + g->temp_bytes[v], v)) != 0) {
            return rc;
        }
        s->r->start_us[v] = s->now;
        s->r->dev[d].n_ops++;
        if (end > s->r->step_us) {
            s->r->step_us = end;
        }
        if (s->trace && (rc = trace_add_coll(s->trace, v, d, s->now, end)) != 0) {
            return rc;
        }
        if ((rc = push_event(s, end, EV_OP_END, g->topo[v], v, 0)) != 0) {
            return rc;
        }
    }
    return 0;
}

static int op_end(struct timed *s, int32_t v)
{
    const struct graph *g = s->g;
    const int32_t d = s->device_of[v], nd = s->nd;
    int rc;

    if (!coll_is_rank(g, v)) {
        s->running[d] = -1; /* a collective ran on the communication engines */
    }
    s->n_ended++;
    s->visits += 1 + (uint64_t)(g->out_start[v + 1] - g->out_start[v]);
    if (s->sched.on && sim_sched_op_end(&s->sched, s->device_of, v) && (rc = unhold(s, d)) != 0) {
        return rc;
    }
    sim_obs_free(s->obs, d, s->now, -g->temp_bytes[v], SIM_MEM_TEMP, v, -1);
    if (g->temp_bytes[v] && (rc = dev_give_bytes(s, d, g->temp_bytes[v])) != 0) {
        return rc;
    }
    /* inputs: received copies on d and producers' outputs */
    for (int32_t k = g->in_start[v]; k < g->in_start[v + 1]; k++) {
        int32_t e = g->in_edge[k], u = g->edge_src[e], du = s->device_of[u];

        if (du != d) {
            for (int32_t sl = g->et_start[e]; sl < g->et_start[e + 1]; sl++) {
                if (--s->xf_pending[s->slot_xfer[sl]] == 0) {
                    int32_t x = g->et_tensor[sl];

                    sim_obs_free(s->obs, d, s->now, -g->tensor_bytes[x], SIM_MEM_RECEIVED,
                                 g->tensor_op[x], x);
                    if ((rc = dev_give_bytes(s, d, g->tensor_bytes[x])) != 0) {
                        return rc;
                    }
                }
            }
        }
        /* the common case (other consumers left) without the call */
        if (s->pending_out[u] > 1) {
            s->pending_out[u]--;
        } else if ((rc = consumer_done(s, u)) != 0) {
            return rc;
        }
        /* a view's consumer also holds the storage it shares */
        for (int32_t i = s->root_start ? s->root_start[u] : 0;
             s->root_start && i < s->root_start[u + 1]; i++) {
            if ((rc = consumer_done(s, s->root_op[i])) != 0) {
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
                rc = op_ready(s, w);
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
        int32_t v = -1;
        int64_t w, b;

        if (s->running[d] >= 0) {
            continue;
        }
        while (v < 0 && s->rq[d].nr > 0) {
            it = sim_rq_pop(&s->rq[d]);
            if (!s->sched.on || sim_sched_open(&s->sched, s->device_of, it.op)) {
                v = it.op;
            } else if ((rc = sim_rq_push_prio(&s->held[d], it.prio, it.time_us, it.topo, it.op))) {
                return rc;
            }
        }
        if (v < 0) {
            continue;
        }
        w = sim_compute_us(s->c, d, g->weight_us[v]);
        b = own_out_bytes(s, v);
        sim_obs_mem(s->obs, d, s->now, b, SIM_MEM_OUTPUT, v, -1);
        sim_obs_mem(s->obs, d, s->now, g->temp_bytes[v], SIM_MEM_TEMP, v, -1);
        b += g->temp_bytes[v];
        if ((rc = dev_take_bytes(s, d, b, v)) != 0) {
            return rc;
        }
        s->running[d] = v;
        s->r->start_us[v] = s->now;
        s->r->end_us[v] = sat_add_i64(s->now, w);
        s->r->dev[d].busy_us = sat_add_i64(s->r->dev[d].busy_us, w);
        s->r->dev[d].n_ops++;
        if (s->r->end_us[v] > s->r->step_us) {
            s->r->step_us = s->r->end_us[v];
        }
        if (s->hook && s->hook->started) {
            s->hook->started(s->hook_ctx, s, v);
        }
        if (s->trace && (rc = trace_add_compute(s->trace, v, d, s->now, s->r->end_us[v])) != 0) {
            return rc;
        }
        if (s->end_slots && s->r->end_us[v] < s->end_min_us) {
            s->end_min_us = s->r->end_us[v];
        }
        if (!s->end_slots &&
            (rc = push_event(s, s->r->end_us[v], EV_OP_END, g->topo[v], v, 0)) != 0) {
            return rc;
        }
    }
    return 0;
}

/*
 * With end_slots: the ops running on the devices that end now, in
 * topological order (the order their EV_OP_END events would leave the
 * queue: first of the events at one time, then by topological index).
 */
static int end_running(struct timed *s)
{
    int32_t ends[TIMED_END_SLOTS_MAX], n = 0;
    int rc;

    if (s->end_min_us != s->now) {
        return 0;
    }
    s->end_min_us = INT64_MAX; /* the ends left, then dispatch's */
    for (int32_t d = 0; d < s->nd; d++) {
        int32_t v = s->running[d], i;

        if (v < 0 || s->r->end_us[v] != s->now) {
            if (v >= 0 && s->r->end_us[v] < s->end_min_us) {
                s->end_min_us = s->r->end_us[v];
            }
            continue;
        }
        for (i = n; i > 0 && s->g->topo[ends[i - 1]] > s->g->topo[v]; i--) {
            ends[i] = ends[i - 1];
        }
        ends[i] = v;
        n++;
    }
    for (int32_t i = 0; i < n; i++) {
        if ((rc = op_end(s, ends[i])) != 0) {
            return rc;
        }
    }
    return 0;
}

/* Whether an op running beside the queue ends at INT64_MAX: a saturated
 * end is a real end, not "none left" (t762's every-value-at-its-bound cells). */
static bool running_at_max(const struct timed *s)
{
    for (int32_t d = 0; d < s->nd; d++) {
        if (s->running[d] >= 0 && s->r->end_us[s->running[d]] == INT64_MAX) {
            return true;
        }
    }
    return false;
}

/* The time of the next event into *t; false when none is left. */
static bool next_time(const struct timed *s, int64_t *t)
{
    const bool queued = !evq_empty(&s->q);

    *t = queued ? evq_peek(&s->q)->time_us : INT64_MAX;
    if (!s->end_slots) {
        return queued;
    }
    if (s->end_min_us < *t) {
        *t = s->end_min_us;
        return true;
    }
    return queued || (s->end_min_us == INT64_MAX && running_at_max(s));
}

void timed_end_sync(struct timed *s)
{
    s->end_min_us = INT64_MAX;
    for (int32_t d = 0; s->end_slots && d < s->nd; d++) {
        int32_t v = s->running[d];

        if (v >= 0 && s->r->end_us[v] < s->end_min_us) {
            s->end_min_us = s->r->end_us[v];
        }
    }
}

static int handle(struct timed *s, const struct evq_event *ev)
{
    const struct graph *g = s->g;

    switch (ev->kind) {
    case EV_OP_END:
        return op_end(s, ev->a);
    case EV_XFER_START:
        /* an OOM here names the tensor's producer */
        sim_obs_mem(s->obs, ev->b, s->now, g->tensor_bytes[ev->a], SIM_MEM_RECEIVED,
                    g->tensor_op[ev->a], ev->a);
        return dev_take_bytes(s, ev->b, g->tensor_bytes[ev->a], g->tensor_op[ev->a]);
    case EV_OP_READY:
        return op_ready(s, ev->a);
    case EV_COLL_START:
        return coll_start(s, ev->a);
    case EV_COLL_REQUEST:
        return timed_sym_request(s, ev->a);
    default:
        BUG("unknown event kind %d", ev->kind);
    }
}

/*
 * Storage shared with an input (x-alias, graph.h port_alias): an output
 * whose root port is on the same device takes no bytes of its own, and each
 * of the op's consumers keeps the root's op holding its outputs (a view
 * without consumers keeps it for the whole step, as a sink keeps its
 * outputs).  Across devices there is no sharing: the output is its own.
 */
static int alias_setup(struct timed *s)
{
    const struct graph *g = s->g;
    const int32_t n = g->n_ops;
    int32_t n_roots = 0;

    s->alias_bytes = mem_calloc((size_t)n + 1, sizeof(*s->alias_bytes));
    s->root_start = mem_calloc((size_t)n + 1, sizeof(*s->root_start));
    if (!s->alias_bytes || !s->root_start) {
        return BAECHI_ENOMEM;
    }
    for (int pass = 0; pass < 2; pass++) {
        for (int32_t v = 0; v < n; v++) {
            int32_t first = n_roots;

            if (pass == 1) {
                s->root_start[v] = n_roots;
            }
            for (int32_t p = g->port_start[v]; p < g->port_start[v + 1]; p++) {
                int32_t r = g->port_alias[p], b = r >= 0 ? g->tensor_op[r] : -1;
                bool seen = false;

                if (b < 0 || s->device_of[b] != s->device_of[v]) {
                    continue;
                }
                /* the storage's owner: up the chain of views on this device */
                while (g->port_alias[r] >= 0 &&
                       s->device_of[g->tensor_op[g->port_alias[r]]] == s->device_of[v]) {
                    r = g->port_alias[r];
                    b = g->tensor_op[r];
                }
                for (int32_t i = first; pass == 1 && i < n_roots; i++) {
                    seen = seen || s->root_op[i] == b;
                }
                if (pass == 0) {
                    n_roots++;
                    continue;
                }
                s->alias_bytes[v] += g->port_bytes[p];
                if (!seen) {
                    int32_t deg = graph_out_degree(g, v);

                    s->root_op[n_roots++] = b;
                    s->pending_out[b] += deg > 0 ? deg : 1;
                }
            }
        }
        if (pass == 0) {
            if (!(s->root_op = mem_alloc_array((size_t)n_roots + 1, sizeof(*s->root_op)))) {
                return BAECHI_ENOMEM;
            }
            n_roots = 0;
        }
    }
    s->root_start[n] = n_roots;
    return 0;
}

/*
 * Nothing left to happen but ops the schedule holds: a placement whose
 * stages wait for each other (a device in two stages' places).  Lifts every
 * gate, so the step ends (priorities stay); never seen on the placements the
 * placers give, but a given placement may be anything.
 */
static int break_wait(struct timed *s)
{
    int rc;

    for (int32_t d = 0; d < s->nd; d++) {
        if (s->held[d].nr > 0) {
            s->sched.forced = true;
            if ((rc = unhold(s, d)) != 0) {
                return rc;
            }
        }
    }
    return s->sched.forced ? dispatch(s) : 0;
}

int timed_alloc(struct timed *s, size_t alloc_xf)
{
    const struct graph *g = s->g;
    const int32_t n = g->n_ops, nd = s->c->n_devices;
    const size_t n_slots = g->n_edges ? (size_t)g->et_start[g->n_edges] : 0;
    int32_t maxp = 0;

    s->nd = nd;
    s->alloc_xf = alloc_xf;
    evq_init(&s->q);
    for (int32_t v = 0; v < n; v++) {
        int32_t np = g->port_start[v + 1] - g->port_start[v];

        if (np > maxp) {
            maxp = np;
        }
    }
    s->cache_n = (size_t)(maxp + 1) * (size_t)nd;
    s->xf_pending = mem_alloc_array(s->alloc_xf, sizeof(*s->xf_pending));
    s->pending_in = mem_alloc_array((size_t)n, sizeof(*s->pending_in));
    s->pending_out = mem_alloc_array((size_t)n, sizeof(*s->pending_out));
    s->ready_at = mem_calloc((size_t)n, sizeof(*s->ready_at));
    s->slot_xfer = mem_alloc_array(n_slots, sizeof(*s->slot_xfer));
    s->cache_stamp = mem_calloc(s->cache_n, sizeof(*s->cache_stamp));
    s->cache_xfer = mem_alloc_array(s->cache_n, sizeof(*s->cache_xfer));
    s->cache_end = mem_alloc_array(s->cache_n, sizeof(*s->cache_end));
    s->used = mem_calloc((size_t)nd, sizeof(*s->used));
    s->running = mem_alloc_array((size_t)nd, sizeof(*s->running));
    /* link engines only for CHANNEL_LINK, one per link of the result's
     * layout (sim_incr.c allocates before it has a result: its layout is
     * dense, every pair) */
    s->chan = mem_calloc(coll_sim_n_engines(s->c, s->r ? s->r->links.n : (size_t)nd * nd),
                         sizeof(*s->chan));
    s->rq = mem_calloc((size_t)nd, sizeof(*s->rq));
    s->held = mem_calloc((size_t)nd, sizeof(*s->held));
    if (!s->xf_pending || !s->pending_in || !s->pending_out || !s->ready_at || !s->slot_xfer ||
        !s->cache_stamp || !s->cache_xfer || !s->cache_end || !s->used || !s->running || !s->chan ||
        !s->rq || !s->held) {
        return BAECHI_ENOMEM;
    }
    return 0;
}

int timed_setup(struct timed *s, const struct pipeline_opts *pipe)
{
    const struct graph *g = s->g;
    const int32_t n = g->n_ops, nd = s->c->n_devices;
    const int32_t *device_of = s->device_of;
    size_t alloc_xf = 0;
    int rc = 0;

    /* at most one transfer per cross-device edge tensor: sized once, no regrowth */
    for (int32_t e = 0; e < g->n_edges; e++) {
        if (device_of[g->edge_src[e]] != device_of[g->edge_dst[e]]) {
            alloc_xf += (size_t)(g->et_start[e + 1] - g->et_start[e]);
        }
    }
    if ((rc = timed_alloc(s, alloc_xf)) != 0) {
        return rc;
    }
    s->end_slots = timed_end_slots(g, s->c);
    s->end_min_us = INT64_MAX;
    if ((rc = sim_sched_init(&s->sched, g, device_of, nd, pipe)) != 0) {
        return rc;
    }
    s->r->interleaved_one_chunk = s->sched.interleaved_one_chunk;
    for (int32_t d = 0; d < nd; d++) {
        s->running[d] = -1;
    }
    if ((rc = evq_reserve(&s->q, (size_t)nd * 4 + 64)) != 0) {
        return rc;
    }
    /* persistent bytes live for the whole step, from time 0 */
    for (int32_t v = 0; v < n; v++) {
        s->pending_in[v] = graph_in_degree(g, v);
        s->pending_out[v] = graph_out_degree(g, v);
        if (g->persist_bytes[v] > 0) {
            int32_t d = device_of[v];

            sim_obs_mem(s->obs, d, 0, g->persist_bytes[v], SIM_MEM_PERSISTENT, v, -1);
            s->used[d] += g->persist_bytes[v];
            sim_mem_note(s->r, s->obs, d, s->used[d], v, 0);
        }
    }
    if (g->port_alias && (rc = alias_setup(s)) != 0) {
        return rc;
    }
    if ((rc = coll_sim_init(&s->coll, g)) != 0 || (rc = timed_sym_setup(s)) != 0) {
        return rc;
    }
    for (int32_t d = 0; s->trace && d < nd; d++) {
        if ((rc = trace_add_mem(s->trace, d, 0, s->used[d])) != 0) {
            return rc;
        }
    }
    return 0;
}

/* The hook after a dispatch (kept out of dispatch, so that a plain run
 * pays nothing per device). */
static int hook_dispatched(struct timed *s, bool first)
{
    return s->hook && s->hook->dispatched ? s->hook->dispatched(s->hook_ctx, s, first) : 0;
}

int timed_start(struct timed *s)
{
    const struct graph *g = s->g;
    int rc;

    for (int32_t i = 0; i < g->n_ops; i++) {
        int32_t v = g->topo_op[i];

        if (s->pending_in[v] == 0 && (rc = op_ready(s, v)) != 0) {
            return rc;
        }
    }
    if ((rc = dispatch(s)) != 0) {
        return rc;
    }
    return hook_dispatched(s, true);
}

int timed_loop(struct timed *s)
{
    int rc;

    while (!s->stop) {
        struct evq_event ev;
        int64_t t;

        if (!next_time(s, &t)) {
            break;
        }
        s->now = t;
        if (s->end_slots && (rc = end_running(s)) != 0) {
            return rc;
        }
        while (!evq_empty(&s->q) && evq_peek(&s->q)->time_us == s->now) {
            evq_pop(&s->q, &ev);
            if ((rc = handle(s, &ev)) != 0) {
                return rc;
            }
        }
        if ((rc = dispatch(s)) != 0) {
            return rc;
        }
        if (evq_empty(&s->q) && !next_time(s, &t) && (rc = break_wait(s)) != 0) {
            return rc;
        }
        if ((rc = hook_dispatched(s, false)) != 0) {
            return rc;
        }
    }
    return 0;
}

int timed_finish(struct timed *s)
{
    int32_t started = 0;

    for (int32_t d = 0; d < s->nd; d++) {
        started += s->r->dev[d].n_ops;
        s->r->dev[d].final_bytes = s->used[d];
    }
    if (started != s->g->n_ops && s->g->n_coll > 0) {
        return coll_sim_stuck(&s->coll);
    }
    if (started != s->g->n_ops) {
        BUG("timed simulation ran %d of %d ops", started, s->g->n_ops);
    }
    return 0;
}

void timed_release(struct timed *s)
{
    coll_sim_release(&s->coll);
    evq_release(&s->q);
    for (int32_t d = 0; d < s->nd; d++) {
        if (s->rq) {
            sim_rq_release(&s->rq[d]);
        }
        if (s->held) {
            sim_rq_release(&s->held[d]);
        }
    }
    free(s->rq);
    free(s->held);
    sim_sched_release(&s->sched);
    free(s->xf_pending);
    free(s->pending_in);
    free(s->pending_out);
    free(s->ready_at);
    free(s->slot_xfer);
    free(s->cache_stamp);
    free(s->cache_xfer);
    free(s->cache_end);
    free(s->used);
    free(s->running);
    free(s->chan);
    free(s->sym_pend);
    free(s->sym_min_us);
    free(s->sym_at_us);
    free(s->alias_bytes);
    free(s->root_start);
    free(s->root_op);
}

/* The progress callback of sim_options, through the dispatched hook: at an
 * event time, when SIM_PROGRESS_EVERY_OPS more ops have ended (work, not
 * the clock; it reads the state only). */
struct progress {
    const struct sim_options *opt;
    int64_t next; /* the count of ended ops to report at */
};

static int progress_dispatched(void *ctx, struct timed *s, bool first)
{
    struct progress *p = ctx;

    (void)first;
    if (s->n_ended >= p->next) {
        p->opt->progress(p->opt->progress_ctx, s->n_ended, s->g->n_ops, s->now, false);
        p->next = ((int64_t)s->n_ended / SIM_PROGRESS_EVERY_OPS + 1) * SIM_PROGRESS_EVERY_OPS;
    }
    return 0;
}

static const struct timed_hook progress_hook = {NULL, progress_dispatched};

int sim_timed_run(const struct graph *g, const struct cluster *c, const int32_t *device_of,
                  const struct pipeline_opts *pipe, struct trace *trace, struct sim_kinds *obs,
                  const struct sim_options *opt, struct sim_result *r)
{
    struct timed s = {.g = g, .c = c, .device_of = device_of, .trace = trace, .obs = obs, .r = r};
    struct progress p = {opt, SIM_PROGRESS_EVERY_OPS};
    bool progress = opt && opt->progress;
    int rc;

    if (progress) {
        s.hook = &progress_hook;
        s.hook_ctx = &p;
    }
    if ((rc = timed_setup(&s, pipe)) == 0 && (rc = timed_start(&s)) == 0 &&
        (rc = timed_loop(&s)) == 0) {
        rc = timed_finish(&s);
    }
    if (rc == 0 && progress) {
        opt->progress(opt->progress_ctx, s.n_ended, g->n_ops, r->step_us, true);
    }
    timed_release(&s);
    return rc;
}
