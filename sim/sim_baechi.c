/*
 * sim_baechi.c - the original virtual scheduler, exactly (baechi-spec §5,
 * virtual_scheduler.py).  A list scheduler over one global priority queue
 * keyed by (ready time, topological index):
 *
 *   - compute: an op starts at max(free_at[d], ready time), in pop order,
 *     no back-filling;
 *   - communication: one channel per device shared by sends and receives;
 *     the transfers of an op's outputs are committed when the op is popped,
 *     in out-edge order (consumer id ascending) then tensor order:
 *         s = max(end(v), chan[src]); chan[src] = s + w;
 *         r = max(s, chan[dst]);      chan[dst] = r + w;   arrival r + w
 *     with w = comm(bytes) of the cluster's default model (the original
 *     ignores device pairs), and a tensor is sent once per receiving device
 *     (the cache by tensor name at the receiver);
 *   - memory, at each pop: +out (peak), +temp (peak), -temp, then for each
 *     predecessor whose last consumer this is, += persistent - out with no
 *     peak update; receivers hold nothing.
 *
 * The tensor cache only ever matters while the producer is popped (a tensor
 * is sent by its producer only), so it is a scratch table (local tensor
 * index x device) stamped with the producer, and arrival times live per edge
 * tensor slot.  Time O((V + E + T) log V) for T edge tensors; memory
 * O(V + T) plus (max ports per op + 1) x devices.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "sim/sim_internal.h"

#include "core/alloc.h"
#include "core/checked.h"
#include "core/err.h"

#include <stdlib.h>

static inline int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* The scheduler's state during one run. */
struct bsim {
    const struct graph *g;
    const struct cluster *c;
    const int32_t *device_of;
    struct trace *trace;
    struct sim_kinds *obs;
    struct sim_result *r;
    int32_t *ready_count, *exec_out, *cache_stamp;
    int64_t *slot_recv, *cache_end;
    int64_t *used, *free_at, *chan; /* per device */
};

/*
 * Op v runs on device d from start to end (w µs): the memory at its pop,
 * and the last consumer popped frees its predecessors' outputs (§5.2).
 */
static int bsim_compute(struct bsim *b, int32_t v, int32_t d, int64_t start, int64_t end, int64_t w)
{
    const struct graph *g = b->g;
    struct sim_kinds *obs = b->obs;
    struct sim_result *r = b->r;
    int64_t *used = b->used;
    int rc = 0;

    /* the outputs hold the persistent bytes (the original's variables) */
    if (obs->slow) { /* the negative part first: no partial sum above the model's */
        int64_t po = g->out_bytes[v] - g->persist_bytes[v];

        sim_obs_mem(obs, d, start, po < 0 ? po : 0, SIM_MEM_OUTPUT, v, -1);
        sim_obs_mem(obs, d, start, g->persist_bytes[v], SIM_MEM_PERSISTENT, v, -1);
        sim_obs_mem(obs, d, start, po > 0 ? po : 0, SIM_MEM_OUTPUT, v, -1);
    } else {
        sim_kinds_outputs(obs, d, v, g->persist_bytes[v], g->out_bytes[v] - g->persist_bytes[v]);
    }
    used[d] += g->out_bytes[v];
    sim_mem_note(r, b->obs, d, used[d], v, start);
    sim_obs_mem(obs, d, start, g->temp_bytes[v], SIM_MEM_TEMP, v, -1);
    used[d] += g->temp_bytes[v];
    sim_mem_note(r, b->obs, d, used[d], v, start);
    if (b->trace) {
        CHECK(trace_add_mem(b->trace, d, start, used[d]));
    }
    r->start_us[v] = start;
    r->end_us[v] = end;
    b->free_at[d] = end;
    r->dev[d].busy_us = sat_add_i64(r->dev[d].busy_us, w);
    r->dev[d].n_ops++;
    used[d] -= g->temp_bytes[v];
    sim_obs_free(obs, d, end, -g->temp_bytes[v], SIM_MEM_TEMP, v, -1);
    if (b->trace) {
        CHECK(trace_add_compute(b->trace, v, d, start, end));
        CHECK(trace_add_mem(b->trace, d, end, used[d]));
    }
    for (int32_t k = g->in_start[v]; k < g->in_start[v + 1]; k++) {
        int32_t u = g->edge_src[g->in_edge[k]];

        if (++b->exec_out[u] == graph_out_degree(g, u)) {
            int32_t du = b->device_of[u];

            used[du] += g->persist_bytes[u] - g->out_bytes[u];
            sim_obs_free(obs, du, start, g->persist_bytes[u] - g->out_bytes[u], SIM_MEM_OUTPUT, u,
                         -1);
            if (b->trace) {
                CHECK(trace_add_mem(b->trace, du, start, used[du]));
            }
        }
    }
cleanup:
    return rc;
}

/* The transfers of op v's outputs (on d, done at end), committed now, out-edge order then tensor
 * order. */
static int bsim_transfers(struct bsim *b, int32_t v, int32_t d, int64_t end)
{
    const struct graph *g = b->g;
    const int32_t nd = b->c->n_devices;
    int64_t *chan = b->chan;
    int rc = 0;

    for (int32_t e = g->out_start[v]; e < g->out_start[v + 1]; e++) {
        int32_t dw = b->device_of[g->edge_dst[e]];

        if (dw == d) {
            continue;
        }
        for (int32_t s = g->et_start[e]; s < g->et_start[e + 1]; s++) {
            int32_t x = g->et_tensor[s];
            int32_t li =
                x < g->n_ports ? x - g->port_start[v] : g->port_start[v + 1] - g->port_start[v];
            size_t ci = (size_t)li * (size_t)nd + (size_t)dw;
            int64_t bytes, cw, ts, tr;
            size_t l;

            if (b->cache_stamp[ci] == v + 1) {
                b->slot_recv[s] = b->cache_end[ci];
                continue;
            }
            bytes = g->tensor_bytes[x];
            cw = cluster_comm_default_us(b->c, bytes);
            ts = max64(end, chan[d]);
            chan[d] = sat_add_i64(ts, cw);
            tr = max64(ts, chan[dw]);
            chan[dw] = sat_add_i64(tr, cw);
            b->slot_recv[s] = chan[dw];
            b->cache_stamp[ci] = v + 1;
            b->cache_end[ci] = chan[dw];
            l = sim_links_at(&b->r->links, d, dw);
            b->r->link_bytes[l] += bytes;
            b->r->link_transfers[l]++;
            if (b->trace) {
                CHECK(trace_add_transfer(b->trace, x, d, dw, bytes, ts, sat_add_i64(ts, cw), tr,
                                         chan[dw]));
            }
        }
    }
cleanup:
    return rc;
}

/* The successors of v whose inputs are all committed become ready. */
static int bsim_release_successors(struct bsim *b, struct sim_rq *q, int32_t v)
{
    const struct graph *g = b->g;
    const int32_t *device_of = b->device_of;

    for (int32_t e = g->out_start[v]; e < g->out_start[v + 1]; e++) {
        int32_t x = g->edge_dst[e], dx = device_of[x];
        int64_t ready = 0;
        int rc;

        if (++b->ready_count[x] != graph_in_degree(g, x)) {
            continue;
        }
        for (int32_t k = g->in_start[x]; k < g->in_start[x + 1]; k++) {
            int32_t e2 = g->in_edge[k], u = g->edge_src[e2];

            if (device_of[u] == dx) {
                ready = max64(ready, b->r->end_us[u]);
                continue;
            }
            for (int32_t s = g->et_start[e2]; s < g->et_start[e2 + 1]; s++) {
                ready = max64(ready, b->slot_recv[s]);
            }
        }
        if ((rc = sim_rq_push(q, ready, g->topo[x], x))) {
            return rc;
        }
    }
    return 0;
}

int sim_baechi_run(const struct graph *g, const struct cluster *c, const int32_t *device_of,
                   struct trace *trace, struct sim_kinds *obs, struct sim_result *r)
{
    const int32_t n = g->n_ops, nd = c->n_devices;
    const size_t n_slots = g->n_edges ? (size_t)g->et_start[g->n_edges] : 0;
    int64_t *dev_state = NULL;
    struct bsim b = {.g = g, .c = c, .device_of = device_of, .trace = trace, .obs = obs, .r = r};
    struct sim_rq q = {0};
    int32_t maxp = 0;
    size_t cache_n;
    int64_t makespan = 0;
    int rc = 0;

    for (int32_t v = 0; v < n; v++) {
        int32_t np = g->port_start[v + 1] - g->port_start[v];

        if (np > maxp) {
            maxp = np;
        }
    }
    cache_n = (size_t)(maxp + 1) * (size_t)nd;
    b.ready_count = mem_calloc((size_t)n, sizeof(*b.ready_count));
    b.exec_out = mem_calloc((size_t)n, sizeof(*b.exec_out));
    b.slot_recv = mem_alloc_array(n_slots, sizeof(*b.slot_recv));
    b.cache_end = mem_alloc_array(cache_n, sizeof(*b.cache_end));
    b.cache_stamp = mem_calloc(cache_n, sizeof(*b.cache_stamp));
    dev_state = mem_calloc((size_t)nd * 3, sizeof(*dev_state));
    if (!b.ready_count || !b.exec_out || !b.slot_recv || !b.cache_end || !b.cache_stamp ||
        !dev_state) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    b.used = dev_state;
    b.free_at = dev_state + nd;
    b.chan = dev_state + 2 * nd;

    for (int32_t v = 0; v < n; v++) {
        if (graph_in_degree(g, v) == 0) {
            CHECK(sim_rq_push(&q, 0, g->topo[v], v));
        }
    }

    while (q.nr) {
        struct sim_rq_item it = sim_rq_pop(&q);
        const int32_t v = it.op, d = device_of[v];
        const int64_t w = sim_compute_us(c, d, g->weight_us[v]);
        /* saturating: times in range can still add up past int64 (docs/limits.md) */
        const int64_t start = max64(b.free_at[d], it.time_us), end = sat_add_i64(start, w);

        CHECK(bsim_compute(&b, v, d, start, end, w));
        makespan = max64(makespan, b.free_at[d]);
        CHECK(bsim_transfers(&b, v, d, end));
        CHECK(bsim_release_successors(&b, &q, v));
    }

    r->step_us = makespan;
    for (int32_t d = 0; d < nd; d++) {
        r->dev[d].final_bytes = b.used[d];
    }

cleanup:
    sim_rq_release(&q);
    free(b.ready_count);
    free(b.exec_out);
    free(b.slot_recv);
    free(b.cache_end);
    free(b.cache_stamp);
    free(dev_state);
    return rc;
}
