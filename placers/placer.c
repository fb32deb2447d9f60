/*
 * placer.c - the registry of placers and the pipeline every one runs
 * through (baechi-spec §0.2 steps 4-7): grouper -> fusion -> algorithm ->
 * the placement of every op.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/placer.h"

#include "core/array.h"
#include "core/checked.h"
#include "core/err.h"
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

/* The first PLACER_N_ALGOS entries are enum placer_algo's, in its order. */
static const struct placer_desc registry[] = {
    {"m-topo", "m-TOPO: topological order, uniform capacity per device (§2)", 0},
    {"m-topo-nonuniform", "m-TOPO filling each device up to its memory limit (§2)", 0},
    {"m-etf", "m-ETF: earliest task first with memory constraints (§3)", PLACER_ESTIMATES},
    {"m-etf-reserve", "m-ETF reserving each group's peak memory when placed (§3.6)",
     PLACER_ESTIMATES},
    {"m-sct", "m-SCT: ETF + favourite children from an LP (§4)", PLACER_ESTIMATES},
    {"m-sct-reserve", "m-SCT reserving each group's peak memory (§3.6, §4)", PLACER_ESTIMATES},
    {PLACER_PAPER_NAME, "the original README's configuration: m-etf + fusion + coplace",
     PLACER_ESTIMATES},
    {PLACER_AUTO_NAME,
     "memory-aware: best of all placers by the simulators, repaired, then local search "
     "(--budget-ms, --seed)",
     PLACER_ESTIMATES},
    {PLACER_PIPELINE_NAME,
     "beyond the original: contiguous pipeline stages by PipeDream's planner (DP), memory "
     "per the workload's schedule (x-pipeline)",
     PLACER_ESTIMATES},
    {"single", "every op on device 0", PLACER_BASELINE},
    {"round-robin", "colocation groups dealt to devices in topological order", PLACER_BASELINE},
    {"random", "each colocation group on a random device (--seed)", PLACER_BASELINE},
    {"given", "the workload's `device` fields", PLACER_BASELINE},
    {"expert", "the model's hand-made placement (= given, when the workload has one)",
     PLACER_BASELINE},
    {NULL, NULL, 0},
};

const struct placer_desc *placer_list(void)
{
    return registry;
}

const struct placer_desc *placer_find(const char *name)
{
    char buf[64];
    size_t n = strlen(name);

    if (n >= sizeof(buf)) {
        return NULL;
    }
    /* the original's spelling: m_etf, m_topo_nonuniform, ... */
    for (size_t i = 0; i <= n; i++) {
        buf[i] = name[i] == '_' ? '-' : name[i];
    }
    for (const struct placer_desc *d = registry; d->name; d++) {
        if (strcmp(d->name, buf) == 0) {
            return d;
        }
    }
    return NULL;
}

const char *placer_algo_name(enum placer_algo a)
{
    return registry[a].name;
}

static enum placer_algo algo_of(const char *name)
{
    for (int i = 0; i < PLACER_N_ALGOS; i++) {
        if (strcmp(name, registry[i].name) == 0) {
            return (enum placer_algo)i;
        }
    }
    return PLACER_ALGO_BASELINE;
}

void placer_options_init(struct placer_options *o)
{
    memset(o, 0, sizeof(*o));
    o->memory_fraction = 1.0;
    o->comm_factor = 1.0;
    o->compute_factor = 1.0;
    o->n_devices = 0;
    o->grouper = PLACER_GROUPER_TF;
    o->sct_threshold = 0.1;
    o->lp_time_limit_s = 0;
    o->seed = PLACER_DEFAULT_SEED;
    o->impl = PLACER_IMPL_FAST;
    o->budget_ms = PLACER_AUTO_BUDGET_MS;
    o->pipeline.schedule = PIPELINE_1F1B;
    o->pipeline.virtual_stages = 1;
}

void placer_options_paper(struct placer_options *o)
{
    o->fusion = true;
    o->grouper = PLACER_GROUPER_COPLACE;
}

void placer_stats_init(struct placer_stats *s)
{
    memset(s, 0, sizeof(*s));
    s->estimate_us = -1;
    s->lp_makespan_us = NAN;
}

void placer_stats_release(struct placer_stats *s)
{
    free(s->peak_bytes);
    free(s->limit_bytes);
    placer_stats_init(s);
}

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
    char buf[128];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    return stat ? placement_add_stat(pl, key, buf) : placement_add_option(pl, key, buf);
}

/* Options and deterministic statistics into the placement file (no wall-clock times,
 * so that the same input gives a byte-identical file). */
static int record(struct placement *pl, const char *placer, const struct placer_options *o,
                  enum placer_algo a, int32_t n_dev, const struct placer_stats *st)
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
    if (a == PLACER_ALGO_SCT || a == PLACER_ALGO_SCT_RESERVE) {
        CHECK(placer_add_kv(pl, false, "sct_threshold", "%g", o->sct_threshold));
        if (o->lp_solver != PLACER_LP_AUTO) {
            CHECK(placer_add_kv(pl, false, "lp_solver", "%s", placer_lp_solver_name(o->lp_solver)));
        }
    }
    if (strcmp(placer, "random") == 0) {
        CHECK(placer_add_kv(pl, false, "seed", "%llu", (unsigned long long)o->seed));
    }
    if (o->persistent_at_place && (a == PLACER_ALGO_ETF || a == PLACER_ALGO_ETF_RESERVE ||
                                   a == PLACER_ALGO_SCT || a == PLACER_ALGO_SCT_RESERVE)) {
        CHECK(placer_add_kv(pl, false, "persistent_at_place", "true"));
    }
    if (st->estimate_us >= 0) {
        CHECK(placer_add_kv(pl, true, "estimate_us", "%lld", (long long)st->estimate_us));
    }
    CHECK(placer_add_kv(pl, true, "nodes", "%d", (int)st->n_nodes));
    CHECK(placer_add_kv(pl, true, "groups", "%d", (int)st->n_groups));
    if (a == PLACER_ALGO_SCT || a == PLACER_ALGO_SCT_RESERVE) {
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

/*
 * Paper algorithm a on g grouped by group_of: the algorithms' graph (fused
 * when opt->fusion), the algorithm, then each op on its node's device in
 * out->device_of.  Statistics into st.
 */
static int run_algorithm(enum placer_algo a, const struct graph *g, const struct cluster *c,
                         const struct placer_options *opt, const int32_t *group_of,
                         int32_t n_groups, int32_t n_dev, const int64_t *limit,
                         struct placement *out, struct placer_stats *st)
{
    struct pgraph pg = {0}, fused = {0};
    struct names nm = {g, NULL};
    int32_t *map = NULL, *node_dev = NULL, *rep_op = NULL;
    const struct pgraph *work;
    struct palgo_ctx x;
    double t1;
    int rc = 0;

    CHECK(pgraph_from_graph(&pg, g, c, group_of, n_groups, opt->comm_factor, opt->compute_factor));
    work = &pg;
    if (opt->fusion) {
        map = array_malloc((size_t)g->n_ops + 1, sizeof(int32_t));
        if (!map) {
            rc = BAECHI_ENOMEM;
            goto cleanup;
        }
        CHECK(pgraph_fuse(&pg, opt->fusion_check_disjoint, &fused, map));
        work = &fused;
        rep_op = array_malloc((size_t)fused.n + 1, sizeof(int32_t));
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
    node_dev = array_malloc((size_t)work->n + 1, sizeof(int32_t));
    if (!node_dev) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    x.p = work;
    x.n_dev = n_dev;
    x.limit = limit;
    x.opt = opt;
    x.name = node_name;
    x.name_arg = &nm;
    t1 = now_ms();
    switch (a) {
    case PLACER_ALGO_TOPO:
    case PLACER_ALGO_TOPO_NONUNIFORM:
        rc = m_topo_place(&x, a == PLACER_ALGO_TOPO, node_dev, st);
        break;
    case PLACER_ALGO_ETF:
    case PLACER_ALGO_ETF_RESERVE:
        rc = m_etf_place(&x, a == PLACER_ALGO_ETF_RESERVE, node_dev, st);
        break;
    default:
        rc = m_sct_place(&x, a == PLACER_ALGO_SCT_RESERVE, node_dev, st);
        break;
    }
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

int placer_run(const char *name, const struct graph *g, const struct cluster *c,
               const struct placer_options *opt_in, const char *workload_name,
               struct placement *out, struct placer_stats *st)
{
    const struct placer_desc *desc = placer_find(name);
    struct placer_options opt = *opt_in;
    int32_t *group_of = NULL;
    int64_t *limit = NULL;
    int32_t n_groups = 0, n_dev;
    const char *algo_name;
    enum placer_algo a;
    double t0 = now_ms(), t1;
    int rc = 0;

    placer_stats_init(st);
    memset(out, 0, sizeof(*out));
    if (!desc) {
        return err_set(BAECHI_EINVAL, "unknown placer '%s' (see 'baechi place --list')", name);
    }
    algo_name = desc->name;
    if (strcmp(desc->name, PLACER_PAPER_NAME) == 0) {
        placer_options_paper(&opt);
        algo_name = "m-etf";
    }
    a = algo_of(algo_name);
    if ((rc = check_options(&opt, c)) != 0) {
        return rc;
    }
    n_dev = opt.n_devices > 0 ? opt.n_devices : c->n_devices;
    if (n_dev < 1) {
        return err_set(BAECHI_EINVAL, "cluster '%s' has no devices", c->name ? c->name : "?");
    }
    CHECK(placement_init(out, g->n_ops));
    CHECK(placement_set_meta(out, workload_name, c->name, desc->name));
    group_of = array_malloc((size_t)g->n_ops + 1, sizeof(int32_t));
    limit = array_malloc((size_t)n_dev, sizeof(int64_t));
    st->peak_bytes = array_calloc((size_t)n_dev, sizeof(int64_t));
    st->limit_bytes = array_malloc((size_t)n_dev, sizeof(int64_t));
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
    if (strcmp(desc->name, PLACER_AUTO_NAME) == 0) {
        /* auto runs the pipeline of every other placer itself; its m-SCT
         * candidates share their LPs, whose solvers it reports (lp_memo.h) */
        struct lp_memo memo;
        t1 = now_ms();
        lp_memo_init(&memo);
        opt.lp_memo = &memo;
        rc = auto_place(g, c, &opt, out, st);
        lp_memo_solvers(&memo, st->lp_solver, sizeof(st->lp_solver));
        lp_memo_release(&memo);
        CHECK(rc);
        st->algorithm_ms = now_ms() - t1;
        st->placement_ms = now_ms() - t0;
        goto cleanup;
    }
    CHECK(placer_group(g, opt.grouper, group_of, &n_groups, NULL));
    st->n_groups = n_groups;

    if (strcmp(desc->name, PLACER_PIPELINE_NAME) == 0) {
        t1 = now_ms();
        CHECK(pipeline_place(g, c, &opt, group_of, n_groups, n_dev, limit, out, st));
        st->algorithm_ms = now_ms() - t1;
    } else if (a == PLACER_ALGO_BASELINE) {
        t1 = now_ms();
        CHECK(baseline_place(algo_name, g, group_of, n_groups, n_dev, opt.seed, out));
        st->algorithm_ms = now_ms() - t1;
        st->n_nodes = g->n_ops;
        st->n_edges = g->n_edges;
    } else {
        CHECK(run_algorithm(a, g, c, &opt, group_of, n_groups, n_dev, limit, out, st));
    }
    CHECK(record(out, desc->name, &opt, a, n_dev, st));
    if (opt.refine) {
        CHECK(auto_refine(g, c, &opt, out));
    }
    st->placement_ms = now_ms() - t0;
cleanup:
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

int placer_world(struct cluster *c, const struct placer_options *opt)
{
    int rc;

    if (opt->n_devices > 0 && opt->n_devices < c->n_devices &&
        (rc = cluster_truncate(c, opt->n_devices))) {
        return rc;
    }
    if (opt->comm_factor != 1.0) {
        cluster_scale_comm(c, opt->comm_factor);
    }
    if (opt->memory_fraction != 1.0) {
        cluster_scale_memory(c, opt->memory_fraction);
    }
    return 0;
}

void placer_world_weights(const struct graph *g, const struct placer_options *opt, int64_t *out)
{
    for (int32_t v = 0; v < g->n_ops; v++) {
        int64_t w = limit_sat_time_us((double)g->weight_us[v] * opt->compute_factor);

        out[v] = opt->compute_factor == 1.0 ? g->weight_us[v] : (w <= 0 ? 1 : w);
    }
}

int placer_world_graph(const struct graph *g0, const struct placer_options *opt, struct graph *g,
                       int64_t **weights)
{
    *g = *g0;
    *weights = NULL;
    if (opt->compute_factor == 1.0) {
        return 0;
    }
    if (!(*weights = array_malloc((size_t)g0->n_ops + 1, sizeof(**weights)))) {
        return BAECHI_ENOMEM;
    }
    placer_world_weights(g0, opt, *weights);
    g->weight_us = *weights;
    return 0;
}
