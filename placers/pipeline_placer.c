/*
 * pipeline_placer.c - the `pipeline` placer: a (micro-batched) training
 * graph cut into K contiguous pipeline stages, one per device, by
 * PipeDream's planner (Narayanan et al., SOSP 2019, §3.1; the dynamic
 * programme is pipeline_plan.c).  Beyond the original Baechi, which has no
 * pipeline placer.
 *
 * The chain.  Its units are the colocation groups (after the grouper) that
 * hold a forward op, in the order of their first forward op in topological
 * order; a group whose forward ops all lack inputs (the data sources,
 * `tokens`, `labels`) stands just before the first group that reads it, so
 * that it does not cost a transfer.  A group without forward op (gradient
 * or update ops not colocated with their layer) goes with the unit of its
 * first forward producer, else of any producer, else of its first
 * consumer.  The backward and update ops of a layer are in its group
 * (train.h colocates them), so they follow its stage.
 *
 * A unit's costs (all micro-batches of the step together; dividing every
 * stage by M changes no decision):
 *   compute   Σ weight_us of its ops (compute_factor applied), divided by
 *             the speed of the stage's device;
 *   transfers the tensors a stage receives: produced outside it, read
 *             inside it, each once, at the cluster's default comm model
 *             (comm_factor applied);
 *   memory    persistent bytes (parameters, optimizer state), one weight
 *             gradient buffer per parameter (training graphs), the forward
 *             outputs a backward op reads (saved activations, views not
 *             counted twice) of one micro-batch times the micro-batches the
 *             schedule keeps in flight on the stage (core/pipeline.h
 *             pipeline_in_flight), and as working-set margin the largest
 *             temp + output of one op.  Saved activations of ops of no
 *             micro-batch count once.
 *
 * The schedule is placer_options.pipeline (the workload's `x-pipeline`,
 * pipeline_opts_read).  With interleaved and V > 1 the chain is cut into
 * K*V chunks, chunk c on device c mod K; deviation from Megatron's
 * accounting: each chunk gets 1/V of its device's memory and ceil(in-flight
 * / V) micro-batches (the warm-up forwards spread over the V chunks).
 * Fewer units than K*V: fewer stages (K' = min(K, units), V' = min(V,
 * units / K')).
 *
 * Estimate: (M*V + K - 1) x bottleneck / M, GPipe's and Megatron's step
 * formula with the slowest stage's time per micro-batch.
 *
 * Known limits: operator fusion is ignored (the units are whole groups);
 * transfers use the default comm model, not per-pair links; time O(n * (E
 * + n * K)) for n units and E tensor reads.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/placer_internal.h"
#include "placers/placer_world.h"

#include "core/alloc.h"
#include "core/checked.h"
#include "core/err.h"
#include "core/pipeline.h"
#include "core/workload.h"
#include "core/units.h"
#include "placers/pipeline_plan.h"

#include <stdlib.h>
#include <string.h>

#define NO_UNIT (-1)

/* The planner's DP takes about units² x stages steps (pipeline_plan.h) and
 * the stages are min(devices, units): a dp=512 GPT graph of 4,096 units
 * took 4.2 s of CPU on 64 devices (1.1e9 steps), 13 s on 256 and 29 s on
 * 4,096; a 20,000-op chain on 4,096 devices did not finish.  Beyond this
 * many steps it is refused, naming the devices that fit (docs/limits.md). */
#define PIPELINE_MAX_DP_STEPS 1073741824.0

/* The chain of a graph: unit_of[op], the ops of each unit and their costs. */
struct chain_build {
    const struct graph *g;
    int32_t n_units;
    int32_t *unit_of;   /* op -> unit */
    int32_t *first_grp; /* unit -> its first group (names) */
    int32_t *op_start;  /* n_units + 1 */
    int32_t *op_list;   /* ops of each unit, by op id */
    int64_t *compute_us, *persist, *saved, *work;
    int64_t *tcomm;  /* tensor -> comm µs */
    int64_t *stamp;  /* tensor -> recv_row's state */
    int32_t n_micro; /* M */
};

static void chain_build_release(struct chain_build *b)
{
    free(b->unit_of);
    free(b->first_grp);
    free(b->op_start);
    free(b->op_list);
    free(b->compute_us);
    free(b->persist);
    free(b->saved);
    free(b->work);
    free(b->tcomm);
    free(b->stamp);
}

/* The first op of `grp` in topological order reading a group of a unit
 * (producers; forward ones first), else read by one (consumers): its unit. */
static int32_t unit_by_neighbours(const struct graph *g, const int32_t *group_of,
                                  const int32_t *unit_of_grp, int32_t v, int pass)
{
    if (pass < 2) {
        for (int32_t k = g->in_start[v]; k < g->in_start[v + 1]; k++) {
            int32_t u = g->edge_src[g->in_edge[k]], x = unit_of_grp[group_of[u]];

            if (x != NO_UNIT && (pass == 1 || g->phase[u] == PHASE_FORWARD)) {
                return x;
            }
        }
        return NO_UNIT;
    }
    for (int32_t e = g->out_start[v]; e < g->out_start[v + 1]; e++) {
        int32_t x = unit_of_grp[group_of[g->edge_dst[e]]];
        if (x != NO_UNIT) {
            return x;
        }
    }
    return NO_UNIT;
}

struct grp_key {
    int32_t key, rank, grp;
};

static int cmp_key(const void *pa, const void *pb)
{
    const struct grp_key *a = pa, *b = pb;

    if (a->key != b->key) {
        return a->key < b->key ? -1 : 1;
    }
    if (a->rank != b->rank) {
        return a->rank < b->rank ? -1 : 1;
    }
    return a->grp < b->grp ? -1 : a->grp > b->grp;
}

/*
 * unit_of_grp[grp] for every group: the forward groups in chain order (the
 * sources before their first reader), then the rest by their neighbours.
 */
static int order_groups(const struct graph *g, const int32_t *group_of, int32_t n_groups,
                        int32_t *unit_of_grp, int32_t *first_grp, int32_t *n_units)
{
    struct grp_key *k = mem_alloc_array((size_t)n_groups + 1, sizeof(*k));
    bool *has_input = mem_calloc((size_t)n_groups + 1, sizeof(bool));
    int32_t *to = mem_alloc_array((size_t)n_groups + 1, sizeof(int32_t));
    int32_t n = 0;
    int rc = 0;

    if (!k || !has_input || !to) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    for (int32_t x = 0; x < n_groups; x++) {
        k[x] = (struct grp_key){INT32_MAX, 1, x};
        to[x] = INT32_MAX;
    }
    for (int32_t t = 0; t < g->n_ops; t++) {
        int32_t v = g->topo_op[t], x = group_of[v];
        if (g->phase[v] == PHASE_FORWARD) {
            k[x].key = k[x].key < t ? k[x].key : t;
            has_input[x] |= graph_in_degree(g, v) > 0;
        }
    }
    /* a source group: just before the first group that reads it */
    for (int32_t v = 0; v < g->n_ops; v++) {
        int32_t x = group_of[v];
        if (k[x].key == INT32_MAX || has_input[x]) {
            continue;
        }
        for (int32_t e = g->out_start[v]; e < g->out_start[v + 1]; e++) {
            int32_t y = group_of[g->edge_dst[e]];
            if (y != x && has_input[y] && k[y].key < to[x]) {
                to[x] = k[y].key;
            }
        }
    }
    for (int32_t x = 0; x < n_groups; x++) {
        if (to[x] != INT32_MAX) {
            k[x].key = to[x];
            k[x].rank = 0;
        }
    }
    qsort(k, (size_t)n_groups, sizeof(*k), cmp_key);
    for (int32_t x = 0; x < n_groups; x++) {
        unit_of_grp[x] = NO_UNIT;
    }
    for (int32_t i = 0; i < n_groups && k[i].key != INT32_MAX; i++) {
        first_grp[n] = k[i].grp;
        unit_of_grp[k[i].grp] = n++;
    }
    if (n == 0) {
        rc =
            err_set(BAECHI_EINFEASIBLE, "pipeline: the graph has no forward op to cut into stages");
        goto cleanup;
    }
    for (int pass = 0; pass < 3; pass++) {
        for (int32_t t = 0; t < g->n_ops; t++) {
            int32_t v = g->topo_op[pass == 2 ? g->n_ops - 1 - t : t];
            if (unit_of_grp[group_of[v]] == NO_UNIT) {
                unit_of_grp[group_of[v]] = unit_by_neighbours(g, group_of, unit_of_grp, v, pass);
            }
        }
    }
    for (int32_t x = 0; x < n_groups; x++) {
        if (unit_of_grp[x] == NO_UNIT) {
            unit_of_grp[x] = 0; /* unreachable: graph_build prunes dangling ops */
        }
    }
    *n_units = n;
cleanup:
    free(k);
    free(has_input);
    free(to);
    return rc;
}

/* Forward outputs of v a backward op reads (views not counted twice), bytes;
 * mark[t] == v + 1 once port t is counted. */
static int64_t saved_bytes_of(const struct graph *g, int32_t v, int32_t *mark)
{
    int64_t sum = 0;

    for (int32_t e = g->out_start[v]; e < g->out_start[v + 1]; e++) {
        if (g->phase[g->edge_dst[e]] != PHASE_BACKWARD) {
            continue;
        }
        for (int32_t k = g->et_start[e]; k < g->et_start[e + 1]; k++) {
            int32_t t = g->et_tensor[k];
            if (graph_tensor_is_control(g, t) || mark[t] == v + 1 ||
                (g->port_alias && g->port_alias[t] >= 0)) {
                continue;
            }
            mark[t] = v + 1;
            sum = sat_add_i64(sum, g->port_bytes[t]);
        }
    }
    return sum;
}

/* Per-unit compute, memory and the tensors' transfer times. */
static int unit_costs(struct chain_build *b, const struct cluster *c,
                      const struct placer_options *opt)
{
    const struct graph *g = b->g;
    int64_t *saved_mb = NULL, *weight = NULL;
    int32_t *mark = NULL;
    bool training = false;
    struct comm_model cm = c->comm;
    int rc = 0;

    saved_mb = mem_calloc((size_t)b->n_units, sizeof(int64_t));
    weight = mem_alloc_array((size_t)g->n_ops + 1, sizeof(int64_t));
    mark = mem_calloc((size_t)g->n_tensors + 1, sizeof(int32_t));
    if (!saved_mb || !weight || !mark) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    placer_world_weights(g, opt, weight);
    b->n_micro = 1;
    for (int32_t v = 0; v < g->n_ops; v++) {
        training |= g->phase[v] == PHASE_BACKWARD;
        if (g->micro_batch && g->micro_batch[v] + 1 > b->n_micro) {
            b->n_micro = g->micro_batch[v] + 1;
        }
    }
    for (int32_t v = 0; v < g->n_ops; v++) {
        int32_t u = b->unit_of[v];
        int64_t work = sat_add_i64(g->temp_bytes[v], g->out_bytes[v]);

        b->compute_us[u] = sat_add_i64(b->compute_us[u], weight[v]);
        b->persist[u] = sat_add_i64(b->persist[u], g->persist_bytes[v]);
        b->work[u] = work > b->work[u] ? work : b->work[u];
        if (g->phase[v] != PHASE_FORWARD) {
            continue;
        }
        if (training) {
            /* the weight gradient, accumulated over the micro-batches */
            b->persist[u] = sat_add_i64(b->persist[u], g->persist_bytes[v]);
        }
        if (g->micro_batch && g->micro_batch[v] >= 0) {
            saved_mb[u] = sat_add_i64(saved_mb[u], saved_bytes_of(g, v, mark));
        } else {
            b->persist[u] = sat_add_i64(b->persist[u], saved_bytes_of(g, v, mark));
        }
    }
    for (int32_t u = 0; u < b->n_units; u++) {
        b->saved[u] = saved_mb[u] / b->n_micro + (saved_mb[u] % b->n_micro != 0);
    }
    for (int32_t t = 0; t < g->n_tensors; t++) {
        b->tcomm[t] = placer_comm_us(cm.slope_us_per_byte * opt->comm_factor,
                                     cm.intercept_us * opt->comm_factor, g->tensor_bytes[t]);
    }
cleanup:
    free(saved_mb);
    free(weight);
    free(mark);
    return rc;
}

/* pipeline_recv_row_fn over the graph: stamp[t] = 2i + 1 while tensor t is
 * received by [i, j), 2i + 2 once its producer is inside. */
static int recv_row(void *arg, int32_t i, int64_t *recv_us)
{
    struct chain_build *b = arg;
    const struct graph *g = b->g;
    int64_t sum = 0, counted = 2 * (int64_t)i + 1, inside = counted + 1;

    for (int32_t j = i + 1; j <= b->n_units; j++) {
        int32_t u = j - 1;

        for (int32_t k = b->op_start[u]; k < b->op_start[u + 1]; k++) {
            int32_t v = b->op_list[k];
            for (int32_t e = g->out_start[v]; e < g->out_start[v + 1]; e++) {
                for (int32_t q = g->et_start[e]; q < g->et_start[e + 1]; q++) {
                    int32_t t = g->et_tensor[q];
                    if (b->stamp[t] == counted) {
                        sum -= b->tcomm[t];
                    }
                    b->stamp[t] = inside;
                }
            }
        }
        for (int32_t k = b->op_start[u]; k < b->op_start[u + 1]; k++) {
            int32_t v = b->op_list[k];
            for (int32_t e = g->in_start[v]; e < g->in_start[v + 1]; e++) {
                int32_t ed = g->in_edge[e];
                int32_t a = b->unit_of[g->edge_src[ed]];
                if (a >= i && a <= u) {
                    continue;
                }
                for (int32_t q = g->et_start[ed]; q < g->et_start[ed + 1]; q++) {
                    int32_t t = g->et_tensor[q];
                    if (b->stamp[t] != counted && b->stamp[t] != inside) {
                        b->stamp[t] = counted;
                        sum += b->tcomm[t];
                    }
                }
            }
        }
        recv_us[j - i - 1] = sum;
    }
    return 0;
}

static int chain_build(struct chain_build *b, const struct graph *g, const struct cluster *c,
                       const struct placer_options *opt, const int32_t *group_of, int32_t n_groups)
{
    int32_t *unit_of_grp = NULL, *cursor = NULL;
    int rc = 0;

    memset(b, 0, sizeof(*b));
    b->g = g;
    unit_of_grp = mem_alloc_array((size_t)n_groups + 1, sizeof(int32_t));
    b->first_grp = mem_alloc_array((size_t)n_groups + 1, sizeof(int32_t));
    b->unit_of = mem_alloc_array((size_t)g->n_ops + 1, sizeof(int32_t));
    b->op_list = mem_alloc_array((size_t)g->n_ops + 1, sizeof(int32_t));
    b->tcomm = mem_alloc_array((size_t)g->n_tensors + 1, sizeof(int64_t));
    b->stamp = mem_calloc((size_t)g->n_tensors + 1, sizeof(int64_t));
    if (!unit_of_grp || !b->first_grp || !b->unit_of || !b->op_list || !b->tcomm || !b->stamp) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    CHECK(order_groups(g, group_of, n_groups, unit_of_grp, b->first_grp, &b->n_units));
    b->op_start = mem_calloc((size_t)b->n_units + 1, sizeof(int32_t));
    cursor = mem_alloc_array((size_t)b->n_units + 1, sizeof(int32_t));
    b->compute_us = mem_calloc((size_t)b->n_units, sizeof(int64_t));
    b->persist = mem_calloc((size_t)b->n_units, sizeof(int64_t));
    b->saved = mem_calloc((size_t)b->n_units, sizeof(int64_t));
    b->work = mem_calloc((size_t)b->n_units, sizeof(int64_t));
    if (!b->op_start || !cursor || !b->compute_us || !b->persist || !b->saved || !b->work) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    for (int32_t v = 0; v < g->n_ops; v++) {
        b->unit_of[v] = unit_of_grp[group_of[v]];
        b->op_start[b->unit_of[v] + 1]++;
    }
    for (int32_t u = 0; u < b->n_units; u++) {
        b->op_start[u + 1] += b->op_start[u];
        cursor[u] = b->op_start[u];
    }
    for (int32_t v = 0; v < g->n_ops; v++) {
        b->op_list[cursor[b->unit_of[v]]++] = v;
    }
    rc = unit_costs(b, c, opt);
cleanup:
    free(unit_of_grp);
    free(cursor);
    return rc;
}

/* BAECHI_EINFEASIBLE naming the layer that needs most memory. */
static int infeasible(const struct chain_build *b, const struct pipeline_chain *ch,
                      const struct pipeline_stages *sg, const struct pipeline_opts *po,
                      int32_t n_dev)
{
    const struct pipeline_chain *c = ch;
    int64_t worst = -1, total = 0, room = 0, fl = INT64_MAX;
    int32_t wu = 0;

    for (int32_t s = 0; s < sg->n_stages; s++) {
        room = sat_add_i64(room, sg->limit_bytes[s]);
        fl = sg->in_flight[s] < fl ? sg->in_flight[s] : fl;
    }
    for (int32_t u = 0; u < c->n; u++) {
        int64_t m = pipeline_plan_mem_bytes(c, u, u + 1, fl);
        total = sat_add_i64(total, m - c->work_bytes[u]);
        if (m > worst) {
            worst = m;
            wu = u;
        }
    }
    char worst_s[32], total_s[32], room_s[32];

    units_fmt_bytes(worst, worst_s, sizeof(worst_s)); /* with units (issue 33 item 4) */
    units_fmt_bytes(total, total_s, sizeof(total_s));
    units_fmt_bytes(room, room_s, sizeof(room_s));
    return err_set(BAECHI_EINFEASIBLE,
                   "pipeline: no split of %d layers into %d contiguous stages on %d devices fits "
                   "(schedule %s, %d micro-batches): layer '%s' alone needs %s, all layers at "
                   "least %s, the stages have %s",
                   (int)c->n, (int)sg->n_stages, (int)n_dev, pipeline_schedule_name(po->schedule),
                   (int)b->n_micro, b->g->group_name[b->g->group[b->op_list[b->op_start[wu]]]],
                   worst_s, total_s, room_s);
}

/* The stages (K' devices, V' chunks each) and their limits and in-flight counts. */
static int make_stages(struct pipeline_stages *sg, const struct cluster *c,
                       const struct pipeline_opts *po, int32_t n_units, int32_t n_dev,
                       const int64_t *limit, int32_t n_micro, int32_t *k_out)
{
    int32_t k = n_dev < n_units ? n_dev : n_units;
    int32_t v = po->virtual_stages < n_units / k ? po->virtual_stages : n_units / k;
    double *speed;
    int64_t *lim, *fl;

    sg->n_stages = k * v;
    speed = mem_alloc_array((size_t)sg->n_stages, sizeof(double));
    lim = mem_alloc_array((size_t)sg->n_stages, sizeof(int64_t));
    fl = mem_alloc_array((size_t)sg->n_stages, sizeof(int64_t));
    sg->speed = speed;
    sg->limit_bytes = lim;
    sg->in_flight = fl;
    if (!speed || !lim || !fl) {
        return BAECHI_ENOMEM;
    }
    for (int32_t s = 0; s < sg->n_stages; s++) {
        int32_t d = s % k;
        int64_t f = pipeline_in_flight(po, k, d, n_micro);

        speed[s] = c->dev[d].speed > 0 ? c->dev[d].speed : 1.0;
        lim[s] = limit[d] / v;
        fl[s] = f / v + (f % v != 0);
    }
    *k_out = k;
    return 0;
}

int pipeline_place(const struct graph *g, const struct cluster *c, const struct placer_options *opt,
                   const int32_t *group_of, int32_t n_groups, int32_t n_dev, const int64_t *limit,
                   struct placement *out, struct placer_stats *st)
{
    const struct pipeline_opts *po = &opt->pipeline;
    struct chain_build b;
    struct pipeline_chain ch;
    struct pipeline_stages sg = {0};
    struct pipeline_plan plan = {0};
    int32_t k = 1;
    int rc = 0;

    memset(&b, 0, sizeof(b));
    CHECK(pipeline_opts_check(po));
    CHECK(chain_build(&b, g, c, opt, group_of, n_groups));
    {
        /* make_stages' stage count, before any of its arrays */
        int32_t k0 = n_dev < b.n_units ? n_dev : b.n_units;
        int32_t v0 = k0 > 0 && po->virtual_stages < b.n_units / k0 ? po->virtual_stages
                     : k0 > 0                                      ? b.n_units / k0
                                                                   : 1;
        double n2 = (double)b.n_units * (double)b.n_units;

        if (n2 * (double)k0 * (double)v0 > PIPELINE_MAX_DP_STEPS) {
            rc = err_set(BAECHI_EINVAL,
                         "pipeline: %d units on %d stages (%d devices) would take %.3g steps of "
                         "its planner, more than %.3g: use --devices K (-k) with K <= %d, or "
                         "coarser colocation groups (docs/limits.md)",
                         (int)b.n_units, (int)(k0 * v0), (int)n_dev, n2 * (double)k0 * (double)v0,
                         PIPELINE_MAX_DP_STEPS, (int)(PIPELINE_MAX_DP_STEPS / n2 / (double)v0));
            goto cleanup;
        }
    }
    ch = (struct pipeline_chain){b.n_units, b.compute_us, b.persist, b.saved, b.work, recv_row, &b};
    CHECK(make_stages(&sg, c, po, b.n_units, n_dev, limit, b.n_micro, &k));
    rc = pipeline_plan_solve(&ch, &sg, &plan);
    if (rc == BAECHI_EINFEASIBLE) {
        rc = infeasible(&b, &ch, &sg, po, n_dev);
    }
    if (rc != 0) {
        goto cleanup;
    }
    for (int32_t s = 0; s < sg.n_stages; s++) {
        for (int32_t u = plan.start[s]; u < plan.start[s + 1]; u++) {
            for (int32_t i = b.op_start[u]; i < b.op_start[u + 1]; i++) {
                out->device_of[b.op_list[i]] = s % k;
            }
        }
        st->peak_bytes[s % k] = sat_add_i64(st->peak_bytes[s % k], plan.mem_bytes[s]);
    }
    st->estimate_us = sat_i64_from_double((double)(b.n_micro * (int64_t)(sg.n_stages / k) + k - 1) *
                                          (double)plan.bottleneck_us / (double)b.n_micro);
    st->n_nodes = b.n_units;
cleanup:
    pipeline_plan_release(&plan);
    free((void *)sg.speed);
    free((void *)sg.limit_bytes);
    free((void *)sg.in_flight);
    chain_build_release(&b);
    return rc;
}
