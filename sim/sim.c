/*
 * sim.c - the simulator's front: model names, results, argument checks,
 * dispatch to the two models (sim_baechi.c, sim_timed.c), the lower bound
 * and the consistency checker (see sim.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "sim/sim.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/checked.h"
#include "core/err.h"
#include "core/limits.h"
#include "sim/sim_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int sim_model_parse(const char *s, enum sim_model *m)
{
    if (s && strcmp(s, "timed") == 0) {
        *m = SIM_MODEL_TIMED;
        return 0;
    }
    if (s && strcmp(s, "baechi") == 0) {
        *m = SIM_MODEL_BAECHI;
        return 0;
    }
    return err_set(BAECHI_EINVAL, "unknown simulator model '%s' (expected 'timed' or 'baechi')",
                   s ? s : "");
}

const char *sim_model_name(enum sim_model m)
{
    return m == SIM_MODEL_BAECHI ? "baechi" : "timed";
}

void sim_result_init(struct sim_result *r)
{
    memset(r, 0, sizeof(*r));
}

void sim_result_warn(const struct sim_result *r, const struct graph *g)
{
    if (r->interleaved_one_chunk) {
        err_warn("the interleaved schedule with %d virtual stages needs each device to hold "
                 "several chunks of the layers; this placement gives each device one, so it "
                 "ran as 1F1B (-p pipeline places %d chunks on each device)",
                 (int)g->pipeline.virtual_stages, (int)g->pipeline.virtual_stages);
    }
}

_Static_assert(TRACE_MEM_KINDS == MEM_KIND_N, "sim/trace.h: one trace series per memory kind");

static const char *const kind_names[MEM_KIND_N] = {
    "parameters", "optimizer", "gradients", "saved", "activations", "received", "temp",
};

const char *mem_kind_name(enum mem_kind k)
{
    return (unsigned)k < MEM_KIND_N ? kind_names[k] : "?";
}

int sim_saved_ops(const struct graph *g, uint8_t **saved_out)
{
    uint8_t *saved = mem_calloc((size_t)g->n_ops + 1, sizeof(*saved));

    *saved_out = saved;
    if (!saved) {
        return BAECHI_ENOMEM;
    }
    /* A forward output is "saved" when a backward op reads it, or reads a
     * view of it (x-alias: the storage is the first op's). */
    for (int32_t e = 0; g->phase && e < g->n_edges; e++) {
        int32_t u = g->edge_src[e], w = g->edge_dst[e];

        if (g->phase[u] != PHASE_FORWARD || g->phase[w] != PHASE_BACKWARD) {
            continue;
        }
        saved[u] = 1;
        for (int32_t sl = g->et_start[e]; g->port_alias && sl < g->et_start[e + 1]; sl++) {
            int32_t t = g->et_tensor[sl];

            for (int32_t steps = 0; t < g->n_ports && g->port_alias[t] >= 0 && steps < g->n_ports;
                 steps++) {
                t = g->port_alias[t];
                saved[g->tensor_op[t]] = 1;
            }
        }
    }
    return 0;
}

enum mem_kind sim_mem_kind(const struct graph *g, const uint8_t *saved, enum sim_mem_what what,
                           int32_t op)
{
    return sim_kind_of(g->phase, saved, what, op);
}

void sim_result_release(struct sim_result *r)
{
    free(r->peak_kind_bytes);
    free(r->dev);
    free(r->link_bytes);
    free(r->link_transfers);
    sim_links_release(&r->links);
    free(r->oom);
    free(r->start_us);
    free(r->end_us);
    sim_result_init(r);
}

int sim_result_alloc(struct sim_result *r, const struct graph *g, const struct cluster *c)
{
    return sim_result_alloc_placed(r, g, c, NULL);
}

int sim_result_alloc_placed(struct sim_result *r, const struct graph *g, const struct cluster *c,
                            const int32_t *device_of)
{
    size_t n = (size_t)c->n_devices;
    int rc;

    r->n_devices = c->n_devices;
    rc = device_of ? sim_links_init_placed(&r->links, g, c, device_of)
                   : sim_links_init_dense(&r->links, c->n_devices);
    if (rc) {
        return rc;
    }
    r->dev = mem_calloc(n, sizeof(*r->dev));
    /* +1: a placement without traffic has no link */
    r->link_bytes = mem_calloc(r->links.n + 1, sizeof(*r->link_bytes));
    r->link_transfers = mem_calloc(r->links.n + 1, sizeof(*r->link_transfers));
    r->oom = mem_calloc(n, sizeof(*r->oom));
    r->start_us = mem_alloc_array((size_t)g->n_ops, sizeof(*r->start_us));
    r->end_us = mem_alloc_array((size_t)g->n_ops, sizeof(*r->end_us));
    r->peak_kind_bytes = mem_calloc(n * MEM_KIND_N, sizeof(*r->peak_kind_bytes));
    if (!r->dev || !r->link_bytes || !r->link_transfers || !r->oom || !r->start_us || !r->end_us ||
        !r->peak_kind_bytes) {
        return BAECHI_ENOMEM;
    }
    for (int32_t d = 0; d < c->n_devices; d++) {
        r->dev[d].limit_bytes = c->dev[d].mem_bytes;
    }
    for (int32_t v = 0; v < g->n_ops; v++) {
        r->start_us[v] = -1;
        r->end_us[v] = -1;
    }
    return 0;
}

/* --- the ready queue shared by both models --- */

static inline bool rq_less(const struct sim_rq_item *x, const struct sim_rq_item *y)
{
    if (x->prio != y->prio) {
        return x->prio < y->prio;
    }
    return x->time_us < y->time_us || (x->time_us == y->time_us && x->topo < y->topo);
}

int sim_rq_push(struct sim_rq *q, int64_t time_us, int32_t topo, int32_t op)
{
    return sim_rq_push_prio(q, 0, time_us, topo, op);
}

static int heap_push(struct sim_rq *q, struct sim_rq_item it)
{
    size_t i;
    int rc;

    if (q->heap_nr == q->alloc && (rc = ARRAY_RESERVE(q->heap, q->alloc, q->heap_nr + 1)) != 0) {
        return rc;
    }
    i = q->heap_nr++;
    while (i > 0) {
        size_t p = (i - 1) / 2;

        if (!rq_less(&it, &q->heap[p])) {
            break;
        }
        q->heap[i] = q->heap[p];
        i = p;
    }
    q->heap[i] = it;
    return 0;
}

int sim_rq_push_prio(struct sim_rq *q, int32_t prio, int64_t time_us, int32_t topo, int32_t op)
{
    struct sim_rq_item it = {prio, time_us, topo, op};
    int rc;

    if (q->run_head == q->run_nr) {
        q->run_head = q->run_nr = 0;
    }
    if (q->run_nr == 0 || rq_less(&q->run[q->run_nr - 1], &it)) {
        if (q->run_nr == q->run_alloc &&
            (rc = ARRAY_RESERVE(q->run, q->run_alloc, q->run_nr + 1)) != 0) {
            return rc;
        }
        q->run[q->run_nr++] = it;
    } else if ((rc = heap_push(q, it)) != 0) {
        return rc;
    }
    q->nr++;
    return 0;
}

/*
 * Floyd's bottom-up removal: the hole left at the root sinks to a leaf
 * along the smaller children (one comparison per level, where the classic
 * sift-down of the last item takes two), then the last item rises from
 * there, usually by a level or none.  Keys are unique (the topological
 * index), so every valid heap pops the same sequence.
 */
static struct sim_rq_item heap_pop(struct sim_rq *q)
{
    struct sim_rq_item top = q->heap[0], last;
    size_t i = 0, n = --q->heap_nr;

    if (n == 0) {
        return top;
    }
    last = q->heap[n];
    for (;;) {
        size_t c = 2 * i + 1;

        if (c >= n) {
            break;
        }
        if (c + 1 < n && rq_less(&q->heap[c + 1], &q->heap[c])) {
            c++;
        }
        q->heap[i] = q->heap[c];
        i = c;
    }
    while (i > 0) {
        size_t p = (i - 1) / 2;

        if (!rq_less(&last, &q->heap[p])) {
            break;
        }
        q->heap[i] = q->heap[p];
        i = p;
    }
    q->heap[i] = last;
    return top;
}

struct sim_rq_item sim_rq_pop(struct sim_rq *q)
{
    q->nr--;
    if (q->run_head < q->run_nr &&
        (q->heap_nr == 0 || rq_less(&q->run[q->run_head], &q->heap[0]))) {
        return q->run[q->run_head++];
    }
    return heap_pop(q);
}

/* Floyd's heapify of q's heap, after items were taken out of its middle. */
static void heap_build(struct sim_rq *q)
{
    for (size_t top = q->heap_nr / 2; top-- > 0;) {
        struct sim_rq_item it = q->heap[top];
        size_t i = top;

        for (;;) {
            size_t c = 2 * i + 1;

            if (c >= q->heap_nr) {
                break;
            }
            if (c + 1 < q->heap_nr && rq_less(&q->heap[c + 1], &q->heap[c])) {
                c++;
            }
            if (!rq_less(&q->heap[c], &it)) {
                break;
            }
            q->heap[i] = q->heap[c];
            i = c;
        }
        q->heap[i] = it;
    }
}

size_t sim_rq_drop_moved(struct sim_rq *q, int32_t d, const int32_t *device_of)
{
    size_t kept = q->run_head, dropped;

    for (size_t i = q->run_head; i < q->run_nr; i++) {
        if (device_of[q->run[i].op] == d) {
            q->run[kept++] = q->run[i];
        }
    }
    dropped = q->run_nr - kept;
    q->run_nr = kept;
    kept = 0;
    for (size_t i = 0; i < q->heap_nr; i++) {
        if (device_of[q->heap[i].op] == d) {
            q->heap[kept++] = q->heap[i];
        }
    }
    if (kept != q->heap_nr) {
        dropped += q->heap_nr - kept;
        q->heap_nr = kept;
        heap_build(q); /* keys are unique: any valid heap pops the same sequence */
    }
    q->nr -= dropped;
    return dropped;
}

void sim_rq_release(struct sim_rq *q)
{
    free(q->heap);
    free(q->run);
    memset(q, 0, sizeof(*q));
}

/* --- bounds --- */

static int32_t fastest_device(const struct cluster *c)
{
    int32_t best = 0;

    for (int32_t d = 1; d < c->n_devices; d++) {
        if (c->dev[d].speed > c->dev[best].speed) {
            best = d;
        }
    }
    return best;
}

/* Longest path with each op at its time on the fastest device, into *cp_us
 * (µs).  0 or BAECHI_ENOMEM. */
static int critical_path_fastest(const struct graph *g, const struct cluster *c, int64_t *cp_us)
{
    int32_t f;
    int64_t *fin, best = 0, cp;
    double sp;
    int rc;

    if (c->n_devices <= 0) {
        return graph_critical_path_us(g, cp_us);
    }
    f = fastest_device(c);
    sp = c->dev[f].speed > 0 ? c->dev[f].speed : 1.0;
    if (g->fused || g->n_ops == 0) {
        /* topo[] of a fused graph may not be an order; approximate */
        if ((rc = graph_critical_path_us(g, &cp)) != 0) {
            return rc;
        }
        *cp_us = limit_sat_time_us(ceil((double)cp / sp));
        return 0;
    }
    if (!(fin = mem_calloc((size_t)g->n_ops, sizeof(*fin)))) {
        return BAECHI_ENOMEM; /* mem_calloc set the message */
    }
    for (int32_t i = 0; i < g->n_ops; i++) {
        int32_t v = g->topo_op[i];
        int64_t s = 0;

        for (int32_t k = g->in_start[v]; k < g->in_start[v + 1]; k++) {
            int32_t u = g->edge_src[g->in_edge[k]];

            if (fin[u] > s) {
                s = fin[u];
            }
        }
        fin[v] = sat_add_i64(s, cluster_compute_us(c, f, g->weight_us[v]));
        if (fin[v] > best) {
            best = fin[v];
        }
    }
    free(fin);
    *cp_us = best;
    return 0;
}

static int64_t work_bound(const struct graph *g, const struct cluster *c)
{
    double speed = 0;

    for (int32_t d = 0; d < c->n_devices; d++) {
        speed += c->dev[d].speed > 0 ? c->dev[d].speed : 1.0;
    }
    if (speed <= 0) {
        speed = 1;
    }
    return limit_sat_time_us(ceil((double)graph_total_compute_us(g) / speed));
}

int sim_lower_bound_us(const struct graph *g, const struct cluster *c, int64_t *lb_us)
{
    int64_t cp, w = work_bound(g, c);
    int rc = critical_path_fastest(g, c, &cp);

    *lb_us = rc ? 0 : cp > w ? cp : w;
    return rc;
}

/* --- running --- */

/* Whether any op is of `phase`. */
static bool graph_has_phase(const struct graph *g, enum op_phase phase)
{
    return g->phase && g->n_ops > 0 && memchr(g->phase, (int)phase, (size_t)g->n_ops);
}

void sim_kinds_note_slow(struct sim_kinds *k, int32_t d, int64_t time_us, int64_t delta,
                         enum sim_mem_what what, int32_t op, int32_t tensor, bool alloc)
{
    int64_t *cur = k->cur + (size_t)d * MEM_KIND_N;

    sim_kinds_flush(k, d);
    cur[sim_kind_of(k->phase, k->saved, what, op)] += delta;
    if (k->trace && !k->rc) {
        k->rc = trace_add_mem_kinds(k->trace, d, time_us, cur);
    }
    if (k->next) {
        k->next->fn(k->next->ctx, d, time_us, delta, what, op, tensor, alloc);
    }
}

/* Sets up k for r (sim_result_alloc done); 0 or BAECHI_ENOMEM. */
static int kinds_init(struct sim_kinds *k, const struct graph *g, const struct sim_options *opt,
                      struct trace *trace, struct sim_result *r)
{
    size_t nd = (size_t)r->n_devices;
    uint8_t *saved = NULL;
    int rc;

    memset(k, 0, sizeof(*k));
    k->phase = g->phase;
    k->peak = r->peak_kind_bytes;
    k->next = opt ? opt->mem_obs : NULL;
    k->trace = trace;
    k->slow = trace || k->next;
    k->cur = mem_calloc(nd * MEM_KIND_N, sizeof(*k->cur));
    k->at_peak = mem_calloc(nd, sizeof(*k->at_peak));
    if (!k->cur || !k->at_peak) {
        return BAECHI_ENOMEM;
    }
    /* the pass over all edges only where a backward op can read a saved output */
    k->forward_only = !graph_has_phase(g, PHASE_BACKWARD) && !graph_has_phase(g, PHASE_UPDATE);
    if (graph_has_phase(g, PHASE_BACKWARD)) {
        if ((rc = sim_saved_ops(g, &saved)) != 0) {
            return rc;
        }
        k->saved = saved;
    }
    return 0;
}

static void kinds_release(struct sim_kinds *k)
{
    free(k->cur);
    free(k->at_peak);
    free((void *)k->saved);
}

/*
 * The critical path and the lower bound of r.  At speed 1.0, the common
 * case, the critical path on the fastest device is the longest path by
 * weight_us (cluster_compute_us is the identity): no call per op.
 */
int sim_result_bounds(const struct graph *g, const struct cluster *c, struct sim_result *r)
{
    int rc;

    if (c->dev[fastest_device(c)].speed == 1.0) {
        rc = graph_critical_path_us(g, &r->critical_path_us);
    } else {
        rc = critical_path_fastest(g, c, &r->critical_path_us);
    }
    if (rc) {
        return rc;
    }
    r->lower_bound_us = work_bound(g, c);
    if (r->critical_path_us > r->lower_bound_us) {
        r->lower_bound_us = r->critical_path_us;
    }
    return 0;
}

/* --- running --- */

int sim_run(const struct graph *g, const struct cluster *c, const int32_t *device_of,
            const struct sim_options *opt, struct sim_result *r)
{
    enum sim_model model = opt ? opt->model : SIM_MODEL_TIMED;
    struct trace *trace = opt ? opt->trace : NULL;
    const struct pipeline_opts *pipe = opt && opt->pipeline ? opt->pipeline : &g->pipeline;
    struct sim_kinds kt = {0};
    int rc;

    sim_result_init(r);
    if (!c || c->n_devices <= 0) {
        return err_set(BAECHI_EINVAL, "the cluster has no devices");
    }
    if (model != SIM_MODEL_TIMED && model != SIM_MODEL_BAECHI) {
        return err_set(BAECHI_EINVAL, "unknown simulator model %d", (int)model);
    }
    if (g->micro_batch && (rc = pipeline_opts_check(pipe)) != 0) {
        return rc;
    }
    for (int32_t v = 0; v < g->n_ops; v++) {
        if (device_of[v] < 0 || device_of[v] >= c->n_devices) {
            return err_set(BAECHI_EINVAL,
                           "op '%s' is placed on device %d, but the cluster has %d devices "
                           "(0..%d)",
                           g->op_name[v], device_of[v], c->n_devices, c->n_devices - 1);
        }
    }
    if ((rc = sim_result_alloc_placed(r, g, c, device_of)) != 0 ||
        (rc = kinds_init(&kt, g, opt, trace, r)) != 0) {
        goto fail;
    }
    r->model = model;
    if (trace) {
        /* the baechi model always has one channel per device */
        trace->channel = model == SIM_MODEL_BAECHI ? CHANNEL_SHARED : c->channel;
    }
    rc = model == SIM_MODEL_BAECHI ? sim_baechi_run(g, c, device_of, trace, &kt, r)
                                   : sim_timed_run(g, c, device_of, pipe, trace, &kt, opt, r);
    if (rc || (rc = kt.rc) != 0) {
        goto fail;
    }
    for (int32_t d = 0; d < r->n_devices; d++) {
        int64_t sum = 0;

        sim_kinds_flush(&kt, d);
        for (int k = 0; k < MEM_KIND_N; k++) {
            sum += r->peak_kind_bytes[(size_t)d * MEM_KIND_N + (size_t)k];
        }
        if (sum != r->dev[d].peak_bytes) {
            BUG("device %d: memory by kind at the peak adds up to %lld B, the model's peak is "
                "%lld B",
                d, (long long)sum, (long long)r->dev[d].peak_bytes);
        }
    }
    kinds_release(&kt);
    r->total_compute_us = 0;
    for (int32_t d = 0; d < r->n_devices; d++) {
        r->total_compute_us = sat_add_i64(r->total_compute_us, r->dev[d].busy_us);
        r->dev[d].oom = r->dev[d].limit_bytes > 0 && r->dev[d].peak_bytes > r->dev[d].limit_bytes;
    }
    if ((rc = sim_result_bounds(g, c, r)) != 0) {
        goto fail_freed;
    }
    return 0;

fail:
    kinds_release(&kt);
fail_freed:
    sim_result_release(r);
    return rc;
}

/* --- the checker --- */

struct cmp_ctx {
    const struct sim_result *r;
    const int32_t *dev;
};

static int cmp_by_device_start(const void *a, const void *b, void *arg)
{
    const struct cmp_ctx *ctx = arg;
    const struct sim_result *cmp_r = ctx->r;
    const int32_t *cmp_dev = ctx->dev;
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

    if (cmp_dev[x] != cmp_dev[y]) {
        return cmp_dev[x] < cmp_dev[y] ? -1 : 1;
    }
    if (cmp_r->start_us[x] != cmp_r->start_us[y]) {
        return cmp_r->start_us[x] < cmp_r->start_us[y] ? -1 : 1;
    }
    return x < y ? -1 : x > y;
}

int sim_check(const struct graph *g, const struct cluster *c, const int32_t *device_of,
              const struct sim_result *r)
{
    int64_t makespan = 0;
    int32_t *order;
    int64_t busy_sum = 0;
    int32_t n_compute = 0;
    /* the timed model runs collectives' ranks on the communication engines;
     * the baechi model runs them as ordinary ops */
    const bool coll = g->coll_of && r->model == SIM_MODEL_TIMED;

    if (r->n_devices != c->n_devices || !r->start_us || !r->end_us || !r->dev) {
        return err_set(BAECHI_EINVAL, "result does not match the cluster (%d devices vs %d)",
                       r->n_devices, c->n_devices);
    }
    for (int32_t v = 0; v < g->n_ops; v++) {
        int64_t w = cluster_compute_us(c, device_of[v], g->weight_us[v]);

        if (r->start_us[v] < 0) {
            return err_set(BAECHI_EINVAL, "op '%s' never ran", g->op_name[v]);
        }
        if (coll && g->coll_of[v] >= 0) {
            if (r->end_us[v] > makespan) {
                makespan = r->end_us[v];
            }
            continue;
        }
        if (r->end_us[v] != r->start_us[v] + w) {
            return err_set(BAECHI_EINVAL, "op '%s' ends at %lld µs, expected %lld + %lld µs",
                           g->op_name[v], (long long)r->end_us[v], (long long)r->start_us[v],
                           (long long)w);
        }
        busy_sum += w;
        if (r->end_us[v] > makespan) {
            makespan = r->end_us[v];
        }
    }
    if (makespan != r->step_us) {
        return err_set(BAECHI_EINVAL, "step time %lld µs is not the last end %lld µs",
                       (long long)r->step_us, (long long)makespan);
    }
    if (busy_sum != r->total_compute_us) {
        return err_set(BAECHI_EINVAL, "total compute %lld µs, expected %lld µs",
                       (long long)r->total_compute_us, (long long)busy_sum);
    }
    for (int32_t e = 0; e < g->n_edges; e++) {
        int32_t u = g->edge_src[e], v = g->edge_dst[e];

        if (r->start_us[v] < r->end_us[u]) {
            return err_set(BAECHI_EINVAL,
                           "op '%s' starts at %lld µs before its input '%s' ends "
                           "at %lld µs",
                           g->op_name[v], (long long)r->start_us[v], g->op_name[u],
                           (long long)r->end_us[u]);
        }
    }
    for (int32_t d = 0; d < r->n_devices; d++) {
        const struct sim_device_stats *s = &r->dev[d];

        if (s->final_bytes < 0 || s->peak_bytes < 0 || s->final_bytes > s->peak_bytes) {
            return err_set(BAECHI_EINVAL,
                           "device %d memory inconsistent: peak %lld B, final %lld B", d,
                           (long long)s->peak_bytes, (long long)s->final_bytes);
        }
        if (s->oom != (s->limit_bytes > 0 && s->peak_bytes > s->limit_bytes)) {
            return err_set(BAECHI_EINVAL, "device %d oom flag disagrees with its peak", d);
        }
    }
    if (g->n_ops == 0) {
        return 0;
    }
    order = mem_alloc_array((size_t)g->n_ops, sizeof(*order));
    if (!order) {
        return BAECHI_ENOMEM;
    }
    for (int32_t v = 0; v < g->n_ops; v++) {
        if (!coll || g->coll_of[v] < 0) { /* collectives overlap compute */
            order[n_compute++] = v;
        }
    }
    qsort_r(order, (size_t)n_compute, sizeof(*order), cmp_by_device_start,
            &(struct cmp_ctx){r, device_of});
    for (int32_t i = 1; i < n_compute; i++) {
        int32_t a = order[i - 1], b = order[i];

        if (device_of[a] == device_of[b] && r->start_us[b] < r->end_us[a]) {
            int rc = err_set(BAECHI_EINVAL, "ops '%s' and '%s' overlap on device %d", g->op_name[a],
                             g->op_name[b], device_of[a]);
            free(order);
            return rc;
        }
    }
    free(order);
    return 0;
}
