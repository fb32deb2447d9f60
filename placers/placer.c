/*
 * placer.c - the registry of placers and the pipeline every one runs
 * through (baechi-spec §0.2 steps 4-7): grouper -> fusion -> algorithm ->
 * the placement of every op.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/placer.h"

#include "core/alloc.h"
#include "core/checked.h"
#include "core/err.h"
#include "core/strbuf.h"
#include "core/limits.h"
#include "placers/auto_internal.h"
#include "placers/lp_clp.h"
#include "placers/lp_memo.h"
#include "placers/placer_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

struct names {
    const struct graph *g;
    const int32_t *rep_op; /* node -> first op, or NULL (identity) */
};

static const char *node_name(const void *arg, int32_t v)
{
    const struct names *nm = arg;
    return nm->g->op_name[nm->rep_op ? nm->rep_op[v] : v];
}

static int check_options(const struct placer_options *o, const struct cluster *c)
{
    /* the ranges of docs/limits.md, for callers of the library too */
    if (!(o->memory_fraction >= LIMIT_FRACTION_MIN && o->memory_fraction <= LIMIT_FRACTION_MAX)) {
        return err_set(BAECHI_EINVAL, "memory fraction must be in [%g, %g], not %g",
                       LIMIT_FRACTION_MIN, LIMIT_FRACTION_MAX, o->memory_fraction);
    }
    if (!(o->comm_factor >= 0 && o->comm_factor <= LIMIT_FACTOR_MAX)) {
        return err_set(BAECHI_EINVAL, "comm factor must be in [0, %g], not %g", LIMIT_FACTOR_MAX,
                       o->comm_factor);
    }
    if (!(o->compute_factor >= LIMIT_FRACTION_MIN && o->compute_factor <= LIMIT_FACTOR_MAX)) {
        return err_set(BAECHI_EINVAL, "compute factor must be in [%g, %g], not %g",
                       LIMIT_FRACTION_MIN, LIMIT_FACTOR_MAX, o->compute_factor);
    }
    if (o->n_devices < 0 || o->n_devices > c->n_devices) {
        return err_set(BAECHI_EINVAL, "device count %d out of range: cluster '%s' has %d devices",
                       (int)o->n_devices, c->name ? c->name : "?", (int)c->n_devices);
    }
    if (!isfinite(o->sct_threshold)) {
        return err_set(BAECHI_EINVAL, "sct threshold must be finite");
    }
    if (o->budget_ms < 0) {
        return err_set(BAECHI_EINVAL, "budget must be >= 0 ms, not %lld", (long long)o->budget_ms);
    }
    if (!(o->lp_time_limit_s >= 0 && o->lp_time_limit_s <= LIMIT_LP_TIME_MAX_S)) {
        return err_set(BAECHI_EINVAL, "LP time limit must be >= 0 s, not %g", o->lp_time_limit_s);
    }
    if (o->lp_solver == PLACER_LP_CLP && !lp_clp_available()) {
        return err_set(BAECHI_EINVAL, "LP solver 'clp' is not built in (install "
                                      "coinor-libclp-dev and rebuild)");
    }
    if (o->lp_iteration_limit < 0 || o->lp_iteration_limit > LIMIT_LP_ITERS_MAX) {
        return err_set(BAECHI_EINVAL, "LP iteration limit must be in [0, %lld], not %lld",
                       (long long)LIMIT_LP_ITERS_MAX, (long long)o->lp_iteration_limit);
    }
    return 0;
}

int placer_add_kv(struct placement *pl, bool stat, const char *key, const char *fmt, ...)
{
    struct strbuf val = STRBUF_INIT; /* a value of any length (a char[128] cut it) */
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = strbuf_vaddf(&val, fmt, ap);
    va_end(ap);
    if (rc == 0) {
        rc = stat ? placement_add_stat(pl, key, val.buf) : placement_add_option(pl, key, val.buf);
    }
    strbuf_release(&val);
    return rc;
}

/* Options and deterministic statistics into the placement file (no wall-clock times,
 * so that the same input gives a byte-identical file). */
static int record(struct placement *pl, const struct placer_desc *d, const struct placer_options *o,
                  int32_t n_dev, const struct placer_stats *st)
{
    int rc = 0;

    CHECK(placer_add_kv(pl, false, "grouper", "%s", placer_grouper_name(o->grouper)));
    CHECK(placer_add_kv(pl, false, "fusion", "%s", o->fusion ? "true" : "false"));
    if (o->fusion && o->fusion_check_disjoint) {
        CHECK(placer_add_kv(pl, false, "fusion_check_disjoint", "true"));
    }
    CHECK(placer_add_kv(pl, false, "memory_fraction", "%g", o->memory_fraction));
    CHECK(placer_add_kv(pl, false, "comm_factor", "%g", o->comm_factor));
    CHECK(placer_add_kv(pl, false, "compute_factor", "%g", o->compute_factor));
    CHECK(placer_add_kv(pl, false, "devices", "%d", (int)n_dev));
    if (d->flags & PLACER_LP) {
        CHECK(placer_add_kv(pl, false, "sct_threshold", "%g", o->sct_threshold));
        if (o->lp_solver != PLACER_LP_AUTO) {
            CHECK(placer_add_kv(pl, false, "lp_solver", "%s", placer_lp_solver_name(o->lp_solver)));
        }
    }
    if (d->flags & PLACER_SEEDED) {
        CHECK(placer_add_kv(pl, false, "seed", "%llu", (unsigned long long)o->seed));
    }
    if (o->persistent_at_place && (d->flags & PLACER_MEMORY_RULE)) {
        CHECK(placer_add_kv(pl, false, "persistent_at_place", "true"));
    }
    if (st->estimate_us >= 0) {
        CHECK(placer_add_kv(pl, true, "estimate_us", "%lld", (long long)st->estimate_us));
    }
    CHECK(placer_add_kv(pl, true, "nodes", "%d", (int)st->n_nodes));
    CHECK(placer_add_kv(pl, true, "groups", "%d", (int)st->n_groups));
    if (d->flags & PLACER_LP) {
        if (!isnan(st->lp_makespan_us)) {
            CHECK(placer_add_kv(pl, true, "lp_makespan_us", "%.3f", st->lp_makespan_us));
        }
        CHECK(placer_add_kv(pl, true, "lp_status", "%s", st->lp_status));
        if (st->lp_solver[0]) {
            CHECK(placer_add_kv(pl, true, "lp_solver", "%s", st->lp_solver));
        }
        CHECK(placer_add_kv(pl, true, "favourite_children", "%d", (int)st->n_favourites));
    }
cleanup:
    return rc;
}

/* One of the paper's algorithms on the algorithms' graph: fills device_of[x->p->n]. */
typedef int (*palgo_fn)(const struct palgo_ctx *x, int32_t *device_of, struct placer_stats *st);

/*
 * Paper algorithm `algo` on call->g grouped by call->group_of: the
 * algorithms' graph (fused when opt->fusion), the algorithm, then each op on
 * its node's device in out->device_of.  Statistics into st.
 */
static int run_algorithm(const struct placer_call *call, palgo_fn algo)
{
    const struct graph *g = call->g;
    const struct placer_options *opt = call->opt;
    struct placement *out = call->out;
    struct placer_stats *st = call->st;
    struct pgraph pg = {0}, fused = {0};
    struct names nm = {g, NULL};
    int32_t *map = NULL, *node_dev = NULL, *rep_op = NULL;
    const struct pgraph *work;
    struct palgo_ctx x;
    double t1;
    int rc = 0;

    CHECK(pgraph_from_graph(&pg, g, call->c, call->group_of, call->n_groups, opt->comm_factor,
                            opt->compute_factor));
    work = &pg;
    if (opt->fusion) {
        map = mem_alloc_array((size_t)g->n_ops + 1, sizeof(int32_t));
        if (!map) {
            rc = BAECHI_ENOMEM;
            goto cleanup;
        }
        CHECK(pgraph_fuse(&pg, opt->fusion_check_disjoint, &fused, map));
        work = &fused;
        rep_op = mem_alloc_array((size_t)fused.n + 1, sizeof(int32_t));
        if (!rep_op) {
            rc = BAECHI_ENOMEM;
            goto cleanup;
        }
        for (int32_t v = g->n_ops - 1; v >= 0; v--) {
            rep_op[map[v]] = v;
        }
        nm.rep_op = rep_op;
    }
    st->n_nodes = work->n;
    st->n_edges = work->m;
    node_dev = mem_alloc_array((size_t)work->n + 1, sizeof(int32_t));
    if (!node_dev) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    x.p = work;
    x.n_dev = call->n_dev;
    x.limit = call->limit;
    x.opt = opt;
    x.name = node_name;
    x.name_arg = &nm;
    t1 = now_ms();
    rc = algo(&x, node_dev, st);
    st->algorithm_ms = now_ms() - t1;
    if (rc != 0) {
        goto cleanup;
    }
    for (int32_t v = 0; v < g->n_ops; v++) {
        out->device_of[v] = node_dev[map ? map[v] : v];
    }
cleanup:
    pgraph_release(&pg);
    pgraph_release(&fused);
    free(map);
    free(node_dev);
    free(rep_op);
    return rc;
}

static int algo_topo(const struct palgo_ctx *x, int32_t *device_of, struct placer_stats *st)
{
    return m_topo_place(x, true, device_of, st);
}

static int algo_topo_nonuniform(const struct palgo_ctx *x, int32_t *device_of,
                                struct placer_stats *st)
{
    return m_topo_place(x, false, device_of, st);
}

static int algo_etf(const struct palgo_ctx *x, int32_t *device_of, struct placer_stats *st)
{
    return m_etf_place(x, false, device_of, st);
}

static int algo_etf_reserve(const struct palgo_ctx *x, int32_t *device_of, struct placer_stats *st)
{
    return m_etf_place(x, true, device_of, st);
}

static int algo_sct(const struct palgo_ctx *x, int32_t *device_of, struct placer_stats *st)
{
    return m_sct_place(x, false, device_of, st);
}

static int algo_sct_reserve(const struct palgo_ctx *x, int32_t *device_of, struct placer_stats *st)
{
    return m_sct_place(x, true, device_of, st);
}

static int place_m_topo(const struct placer_call *call)
{
    return run_algorithm(call, algo_topo);
}

static int place_m_topo_nonuniform(const struct placer_call *call)
{
    return run_algorithm(call, algo_topo_nonuniform);
}

/* m-etf; also `paper` (m-etf under placer_options_paper, applied by placer_run). */
static int place_m_etf(const struct placer_call *call)
{
    return run_algorithm(call, algo_etf);
}

static int place_m_etf_reserve(const struct placer_call *call)
{
    return run_algorithm(call, algo_etf_reserve);
}

static int place_m_sct(const struct placer_call *call)
{
    return run_algorithm(call, algo_sct);
}

static int place_m_sct_reserve(const struct placer_call *call)
{
    return run_algorithm(call, algo_sct_reserve);
}

/* auto runs the pipeline of every other placer itself; its m-SCT candidates
 * share their LPs, whose solvers it reports (lp_memo.h) */
static int place_auto(const struct placer_call *call)
{
    struct placer_options opt = *call->opt;
    struct lp_memo memo;
    double t1 = now_ms();
    int rc;

    lp_memo_init(&memo);
    opt.lp_memo = &memo;
    rc = auto_place(call->g, call->c, &opt, call->out, call->st);
    lp_memo_solvers(&memo, call->st->lp_solver, sizeof(call->st->lp_solver));
    lp_memo_release(&memo);
    call->st->algorithm_ms = now_ms() - t1;
    return rc;
}

static int place_pipeline(const struct placer_call *call)
{
    double t1 = now_ms();
    int rc = pipeline_place(call->g, call->c, call->opt, call->group_of, call->n_groups,
                            call->n_dev, call->limit, call->out, call->st);

    call->st->algorithm_ms = now_ms() - t1;
    return rc;
}

/* single, round-robin, random, given, expert: baselines.c by the row's name */
static int place_baseline(const struct placer_call *call)
{
    double t1 = now_ms();
    int rc = baseline_place(call->desc->name, call->g, call->group_of, call->n_groups, call->n_dev,
                            call->opt->seed, call->out);

    call->st->algorithm_ms = now_ms() - t1;
    call->st->n_nodes = call->g->n_ops;
    call->st->n_edges = call->g->n_edges;
    return rc;
}

/*
 * The registry: each row holds its function (like git's builtin table), in
 * display order.  The paper's algorithms come first (PLACER_N_ALGORITHMS
 * rows flagged PLACER_ALGORITHM; auto's candidates walk them).
 */
static const struct placer_desc registry[] = {
    {"m-topo", "m-TOPO: topological order, uniform capacity per device (§2)", PLACER_ALGORITHM,
     place_m_topo},
    {"m-topo-nonuniform", "m-TOPO filling each device up to its memory limit (§2)",
     PLACER_ALGORITHM, place_m_topo_nonuniform},
    {"m-etf", "m-ETF: earliest task first with memory constraints (§3)",
     PLACER_ESTIMATES | PLACER_ALGORITHM | PLACER_MEMORY_RULE, place_m_etf},
    {"m-etf-reserve", "m-ETF reserving each group's peak memory when placed (§3.6)",
     PLACER_ESTIMATES | PLACER_ALGORITHM | PLACER_MEMORY_RULE, place_m_etf_reserve},
    {"m-sct", "m-SCT: ETF + favourite children from an LP (§4)",
     PLACER_ESTIMATES | PLACER_ALGORITHM | PLACER_MEMORY_RULE | PLACER_LP, place_m_sct},
    {"m-sct-reserve", "m-SCT reserving each group's peak memory (§3.6, §4)",
     PLACER_ESTIMATES | PLACER_ALGORITHM | PLACER_MEMORY_RULE | PLACER_LP, place_m_sct_reserve},
    {PLACER_PAPER_NAME, "the original README's configuration: m-etf + fusion + coplace",
     PLACER_ESTIMATES | PLACER_MEMORY_RULE | PLACER_PAPER_OPTIONS, place_m_etf},
    {PLACER_AUTO_NAME,
     "memory-aware: best of all placers by the simulators, repaired, then local search "
     "(--budget-ms, --seed)",
     PLACER_ESTIMATES | PLACER_WHOLE, place_auto},
    {PLACER_PIPELINE_NAME,
     "beyond the original: contiguous pipeline stages by PipeDream's planner (DP), memory "
     "per the workload's schedule (x-pipeline)",
     PLACER_ESTIMATES, place_pipeline},
    {"single", "every op on device 0", PLACER_BASELINE, place_baseline},
    {"round-robin", "colocation groups dealt to devices in topological order", PLACER_BASELINE,
     place_baseline},
    {"random", "each colocation group on a random device (--seed)", PLACER_BASELINE | PLACER_SEEDED,
     place_baseline},
    {"given", "the workload's `device` fields", PLACER_BASELINE, place_baseline},
    {"expert", "the model's hand-made placement (= given, when the workload has one)",
     PLACER_BASELINE, place_baseline},
    {NULL, NULL, 0, NULL},
};

const struct placer_desc *placer_list(void)
{
    return registry;
}

const struct placer_desc *placer_find(const char *name)
{
    /* the original's spelling too: m_etf, m_topo_nonuniform, ... (compared
     * in place: no copy to cut) */
    for (const struct placer_desc *d = registry; d->name; d++) {
        size_t i = 0;

        while (d->name[i] && (name[i] == '_' ? '-' : name[i]) == d->name[i]) {
            i++;
        }
        if (!d->name[i] && !name[i]) {
            return d;
        }
    }
    return NULL;
}

int placer_run(const char *name, const struct graph *g, const struct cluster *c,
               const struct placer_options *opt_in, const char *workload_name,
               struct placement *out, struct placer_stats *st)
{
    const struct placer_desc *desc = placer_find(name);
    struct placer_options opt = *opt_in;
    struct placer_call call;
    int32_t *group_of = NULL;
    int64_t *limit = NULL;
    int32_t n_groups = 0, n_dev;
    double t0 = now_ms();
    int rc = 0;

    placer_stats_init(st);
    memset(out, 0, sizeof(*out));
    if (!desc) {
        return err_set(BAECHI_EINVAL, "unknown placer '%s' (see 'baechi place --list')", name);
    }
    if (desc->flags & PLACER_PAPER_OPTIONS) {
        placer_options_paper(&opt);
    }
    if ((rc = check_options(&opt, c)) != 0) {
        return rc;
    }
    n_dev = opt.n_devices > 0 ? opt.n_devices : c->n_devices;
    if (n_dev < 1) {
        return err_set(BAECHI_EINVAL, "cluster '%s' has no devices", c->name ? c->name : "?");
    }
    CHECK(placement_init(out, g->n_ops));
    CHECK(placement_set_meta(out, workload_name, c->name, desc->name));
    group_of = mem_alloc_array((size_t)g->n_ops + 1, sizeof(int32_t));
    limit = mem_alloc_array((size_t)n_dev, sizeof(int64_t));
    st->peak_bytes = mem_calloc((size_t)n_dev, sizeof(int64_t));
    st->limit_bytes = mem_alloc_array((size_t)n_dev, sizeof(int64_t));
    if (!group_of || !limit || !st->peak_bytes || !st->limit_bytes) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    st->n_devices = n_dev;
    for (int32_t d = 0; d < n_dev; d++) {
        /* §1.6: memory_limit = int(fraction * memory_limit) */
        /* deviation: saturates (the original's Python int never wraps; a C
         * cast of fraction x INT64_MAX would) */
        limit[d] = sat_scale_i64(c->dev[d].mem_bytes, opt.memory_fraction);
        st->limit_bytes[d] = limit[d];
    }
    call = (struct placer_call){desc, g, c, &opt, group_of, 0, n_dev, limit, out, st};
    if (desc->flags & PLACER_WHOLE) {
        CHECK(desc->fn(&call));
        st->placement_ms = now_ms() - t0;
        goto cleanup;
    }
    CHECK(placer_group(g, opt.grouper, group_of, &n_groups, NULL));
    st->n_groups = n_groups;
    call.n_groups = n_groups;
    CHECK(desc->fn(&call));
    CHECK(record(out, desc, &opt, n_dev, st));
    if (opt.refine) {
        CHECK(auto_refine(g, c, &opt, out));
    }
    st->placement_ms = now_ms() - t0;
cleanup:
    if (rc == 0) {
        /* what it was made for, so that `sim` of a file written by any
         * caller (the CLI, the API, Python) sees the world `run` simulates */
        rc = placer_world_record(out, c, opt_in);
    }
    if (rc != 0) {
        placement_release(out);
        free(st->peak_bytes);
        free(st->limit_bytes);
        st->peak_bytes = st->limit_bytes = NULL;
        st->n_devices = 0;
    }
    free(group_of);
    free(limit);
    return rc;
}
