/*
 * test_bound.c - the certified lower bound (placers/bound.h): hand-checked
 * cases, and the exhaustive check that it never exceeds the optimum of the
 * timed model on small random graphs (every placement of every graph,
 * fixed seed).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include <criterion/criterion.h>

#include "core/err.h"
#include "core/workload_yaml.h"
#include "placers/bound.h"
#include "sim/sim.h"
#include "tests/unit/bound_cases.h"
#include "tests/unit/simtest.h"

#include <stdio.h>

/* The exhaustive checks' cases: all in the plain build, a prefix of a
 * quarter under the sanitizers (bound_cases.h), thresholds scaled alike. */
#ifdef BOUND_CASES_SANITIZED
#define BOUND_CASES_DIV 4
#else
#define BOUND_CASES_DIV 1
#endif

/* A chain A -> B -> C, 600 persistent bytes each, 10 µs each. */
static const struct simtest_op chain_ops[] = {
    {"A", 10, "100", 0, 600, 0, NULL},
    {"B", 10, "1000", 0, 600, 0, "A:0"},
    {"C", 10, "", 0, 600, 0, "B:0"},
};

/* 100 B -> 1 + 10 = 11 µs, 1000 B -> 1 + 100 = 101 µs */
#define SLOPE     0.1
#define INTERCEPT 1.0

Test(bound, memory_forces_a_cut)
{
    struct graph g;
    struct cluster c;
    struct bound_result r;

    cr_assert_eq(simtest_graph(&g, chain_ops, 3), 0, "%s", err_msg());
    /* 1,700 B: two neighbours fit (1,200 persistent + B's 400 own output
     * bytes), A B C do not: a cut on A->B or B->C, the cheaper (11 µs) */
    cr_assert_eq(simtest_cluster(&c, 3, 1700, SLOPE, INTERCEPT, CHANNEL_SHARED), 0);
    cr_assert_eq(bound_compute(&g, &c, NULL, &r), 0, "%s", err_msg());
    cr_expect_eq(r.simple_us, 30);
    cr_expect_eq(r.memory_us, 41, "memory %lld", (long long)r.memory_us);
    cr_expect_eq(r.min_devices, 2);
    cr_expect_eq(r.forced_cuts, 1);
    cr_expect_geq(r.lower_bound_us, 41);
    cr_expect_neq(r.kind, BOUND_SIMPLE);
    cluster_release(&c);
    /* 1,000 B: no two neighbours fit one device, both edges are cut (the
     * optimum: A and C may share a device) */
    cr_assert_eq(simtest_cluster(&c, 3, 1000, SLOPE, INTERCEPT, CHANNEL_SHARED), 0);
    cr_assert_eq(bound_compute(&g, &c, NULL, &r), 0, "%s", err_msg());
    cr_expect_eq(r.memory_us, 142, "memory %lld", (long long)r.memory_us);
    cr_expect_eq(r.forced_cuts, 2);
    cluster_release(&c);
    /* unlimited memory: the simple bound */
    cr_assert_eq(simtest_cluster(&c, 3, 0, SLOPE, INTERCEPT, CHANNEL_SHARED), 0);
    cr_assert_eq(bound_compute(&g, &c, NULL, &r), 0, "%s", err_msg());
    cr_expect_eq(r.lower_bound_us, 30);
    cr_expect_eq(r.kind, BOUND_SIMPLE);
    cr_expect_str_eq(bound_kind_name(r.kind), "simple");
    cluster_release(&c);
    graph_release(&g);
}

Test(bound, lp_skipped_beyond_its_size)
{
    struct graph g;
    struct cluster c;
    struct bound_result r;
    struct bound_options o;

    bound_options_init(&o);
    o.lp_max_ops = 2;
    cr_assert_eq(simtest_graph(&g, chain_ops, 3), 0, "%s", err_msg());
    cr_assert_eq(simtest_cluster(&c, 2, 1700, SLOPE, INTERCEPT, CHANNEL_SHARED), 0);
    cr_assert_eq(bound_compute(&g, &c, &o, &r), 0, "%s", err_msg());
    cr_expect_eq(r.lp_us, -1);
    cr_expect_str_eq(r.lp_status, "skipped: 3 ops > 2");
    cr_expect_eq(r.kind, BOUND_MEMORY);
    cr_expect_eq(r.lower_bound_us, r.memory_us);
    o.lp_max_ops = 3;
    cr_assert_eq(bound_compute(&g, &c, &o, &r), 0, "%s", err_msg());
    cr_expect_str_eq(r.lp_status, "optimal");
    cr_expect_geq(r.lp_us, 0);
    cluster_release(&c);
    graph_release(&g);
}

/* The smallest timed step over every placement that fits memory; -1 when none. */
static int64_t timed_optimum(const struct graph *g, const struct cluster *c)
{
    int32_t n = g->n_ops, nd = c->n_devices;
    int32_t dev[16] = {0};
    struct sim_options so = {.model = SIM_MODEL_TIMED, .trace = NULL};
    int64_t best = -1;

    cr_assert(n <= 16);
    for (;;) {
        struct sim_result r;
        int32_t i = 0;

        cr_assert_eq(sim_run(g, c, dev, &so, &r), 0, "%s", err_msg());
        if (r.n_oom == 0 && (best < 0 || r.step_us < best)) {
            best = r.step_us;
        }
        sim_result_release(&r);
        while (i < n && ++dev[i] == nd) {
            dev[i++] = 0;
        }
        if (i == n) {
            return best;
        }
    }
}

/*
 * Every placement of thousands of random graphs (<= 10 ops on 2 devices,
 * <= 7 on 3), memory limits around the persistent bytes, comm costs in the
 * range of compute, every channel model, sometimes a faster device: the
 * bound and each of its parts never exceed the timed optimum.  The counts
 * at the end make sure the memory and LP parts did bind in some cases.
 */
/* No .timeout: Criterion's runner leaks its timer when a long test has one
 * (LeakSanitizer then fails the sanitized run). */
Test(bound, never_above_the_timed_optimum)
{
    uint64_t s = 20240522;
    int cases = 0, fits = 0, memory_wins = 0, lp_wins = 0, violations = 0;

    for (int k = 0; k < 4000 / BOUND_CASES_DIV; k++) {
        struct graph g;
        struct cluster c;
        struct bound_result r;
        int64_t opt;

        cr_assert_eq(bound_case_draw(k, &s, 10, 7, &g, &c), 0, "%s", err_msg());
        cr_assert_eq(bound_compute(&g, &c, NULL, &r), 0, "%s", err_msg());
        opt = timed_optimum(&g, &c);
        cases++;
        if (opt >= 0) {
            fits++;
            memory_wins += r.memory_us > r.simple_us;
            lp_wins += r.lp_us > r.simple_us && r.lp_us > r.memory_us;
            if (r.lower_bound_us > opt || r.simple_us > opt || r.memory_us > opt || r.lp_us > opt) {
                violations++;
                cr_log_error("case %d (%d ops, %d devices, mem %lld): optimum %lld, bound %lld "
                             "(simple %lld, memory %lld, lp %lld)",
                             k, g.n_ops, c.n_devices, (long long)c.dev[0].mem_bytes, (long long)opt,
                             (long long)r.lower_bound_us, (long long)r.simple_us,
                             (long long)r.memory_us, (long long)r.lp_us);
            }
        }
        cluster_release(&c);
        graph_release(&g);
    }
    cr_log_info("bound: %d cases, %d with a placement that fits, memory bound above simple in "
                "%d, LP above both in %d",
                cases, fits, memory_wins, lp_wins);
    cr_expect_eq(violations, 0, "%d of %d cases above the optimum", violations, fits);
    cr_expect_gt(fits, 1500 / BOUND_CASES_DIV, "only %d cases fit", fits);
    cr_expect_gt(memory_wins, 20 / BOUND_CASES_DIV, "the memory bound bound only %d times",
                 memory_wins);
    cr_expect_gt(lp_wins, 20 / BOUND_CASES_DIV, "the LP bound only %d times", lp_wins);
}

/*
 * A view keeps its root's storage (x-alias, bound.h "memory"): R is a view
 * of A's 1,000 bytes and D, the last op, reads R, so on one device A's
 * bytes stay until D ends, and with B's 10 and C's 200 temp that is 1,210 >
 * 1,100 bytes at C's start: the chain needs a cut (10 B: 2 µs), although
 * without the view's hold the path fits (A's bytes gone after R).  One
 * cut alone (A R B | C D or A R B C | D) also sends R's 1,000 B to D
 * (101 µs on the link: bound.h "one cut"), so two cuts: the bound is 54,
 * the optimum (exhaustive) too: C on its own device, 10 B there and back.
 */
static const char view_yaml[] =
    "format: 1\nname: view\nops:\n"
    "  - {name: A, type: Conv2D, time_us: 10, outputs: [1000]}\n"
    "  - {name: R, type: Relu, time_us: 10, outputs: [1000], inputs: [A], x-alias: [0]}\n"
    "  - {name: B, type: Op, time_us: 10, outputs: [10], inputs: [R]}\n"
    "  - {name: C, type: Op, time_us: 10, outputs: [10], temp: 200, inputs: [B]}\n"
    "  - {name: D, type: Op, time_us: 10, inputs: [C, R]}\n";

Test(bound, a_view_keeps_its_root_live)
{
    struct workload w;
    struct graph g;
    struct cluster c;
    struct bound_result r;
    int64_t opt;

    err_set_quiet(1);
    cr_assert_eq(workload_read_yaml_string(&w, view_yaml, strlen(view_yaml), "v.yaml"), 0, "%s",
                 err_msg());
    cr_assert_eq(graph_build(&g, &w), 0, "%s", err_msg());
    workload_release(&w);
    cr_assert_eq(simtest_cluster(&c, 2, 1100, SLOPE, INTERCEPT, CHANNEL_DUPLEX), 0);
    cr_assert_eq(bound_compute(&g, &c, NULL, &r), 0, "%s", err_msg());
    opt = timed_optimum(&g, &c);
    cr_expect_eq(r.simple_us, 50);
    cr_expect_eq(r.memory_us, 54, "the view's hold forces two 2 µs cuts: memory bound %lld",
                 (long long)r.memory_us);
    cr_expect_eq(opt, 54);
    cr_expect_leq(r.lower_bound_us, opt);
    cluster_release(&c);
    graph_release(&g);
}

/*
 * The exhaustive check again, on graphs with views: a third of the ops
 * (chains and random DAGs as above) share the storage of one of their data
 * inputs (x-alias), so chains of views occur.  Every placement simulated;
 * the bound never exceeds the timed optimum.
 */
Test(bound, never_above_the_timed_optimum_with_views)
{
    uint64_t s = 20261203;
    int fits = 0, memory_wins = 0, violations = 0, views = 0;

    for (int k = 0; k < 2000 / BOUND_CASES_DIV; k++) {
        int32_t nd = 2 + (int32_t)(simtest_rand(&s) % 2);
        int n = nd == 2 ? 3 + (int)(simtest_rand(&s) % 7) : 3 + (int)(simtest_rand(&s) % 4);
        struct graph g;
        struct cluster c;
        struct bound_result r;
        struct graph_mem_totals mt;
        int64_t opt, mem;

        if (k % 2) {
            cr_assert_eq(bound_case_chain(&g, n, &s), 0, "%s", err_msg());
        } else {
            cr_assert_eq(simtest_random_graph(&g, n, nd, (uint64_t)k + 11), 0, "%s", err_msg());
        }
        cr_assert_null(g.port_alias);
        g.port_alias = malloc(((size_t)g.n_ports + 1) * sizeof(*g.port_alias));
        cr_assert_not_null(g.port_alias);
        for (int32_t p = 0; p < g.n_ports; p++) {
            g.port_alias[p] = -1;
        }
        for (int32_t v = 0; v < g.n_ops; v++) {
            for (int32_t i = g.in_start[v]; i < g.in_start[v + 1]; i++) {
                int32_t e = g.in_edge[i];
                int32_t t = g.et_tensor[g.et_start[e]];

                if (g.port_start[v] < g.port_start[v + 1] && t < g.n_ports &&
                    simtest_rand(&s) % 3 == 0) {
                    g.port_alias[g.port_start[v]] = t;
                    views++;
                    break;
                }
            }
        }
        for (int32_t v = 0; v < g.n_ops; v++) {
            g.persist_bytes[v] = simtest_rand(&s) % 3 ? 0 : (int64_t)(simtest_rand(&s) % 800);
        }
        graph_mem_totals(&g, &mt);
        mem = mt.persistent + mt.temp_max +
              (int64_t)((double)mt.outputs * (double)(10 + simtest_rand(&s) % 90) / 100.0);
        cr_assert_eq(simtest_cluster(&c, nd, mem, (double)(simtest_rand(&s) % 40) / 1000.0,
                                     (double)(simtest_rand(&s) % 30),
                                     (enum channel_model)(simtest_rand(&s) % 3)),
                     0);
        cr_assert_eq(bound_compute(&g, &c, NULL, &r), 0, "%s", err_msg());
        opt = timed_optimum(&g, &c);
        if (opt >= 0) {
            fits++;
            memory_wins += r.memory_us > r.simple_us;
            if (r.lower_bound_us > opt || r.memory_us > opt) {
                violations++;
                cr_log_error("views case %d (%d ops, %d devices, mem %lld): optimum %lld, "
                             "bound %lld (memory %lld)",
                             k, g.n_ops, nd, (long long)mem, (long long)opt,
                             (long long)r.lower_bound_us, (long long)r.memory_us);
            }
        }
        cluster_release(&c);
        graph_release(&g);
    }
    cr_log_info("bound with views: %d fit, %d views, memory bound above simple in %d", fits, views,
                memory_wins);
    cr_expect_eq(violations, 0, "%d of %d cases above the optimum", violations, fits);
    cr_expect_gt(fits, 800 / BOUND_CASES_DIV, "only %d cases fit", fits);
    cr_expect_gt(memory_wins, 20 / BOUND_CASES_DIV, "the memory bound bound only %d times",
                 memory_wins);
}

/*
 * A path over dear edges: A -> L -> B is the compute-critical path (21 µs)
 * and its edges carry 10 B (2 µs); A -> B carries 1,000 B (101 µs).  A and
 * B hold 2,000 persistent bytes each and a device 3,100, so they sit apart:
 * the critical path's cheapest cut adds 2 µs (23), while the path A -> B,
 * over the edges dearer than 2 µs only, must carry the 1,000 B: 10 + 101 +
 * 10 = 121 µs.  The exhaustive optimum is 123 µs (L's 10 B queue behind the
 * 1,000 B on A's link).
 */
static const char dear_yaml[] =
    "format: 1\nname: dear\nops:\n"
    "  - {name: A, type: Op, time_us: 10, outputs: [1000, 10], persistent: 2000}\n"
    "  - {name: L, type: Op, time_us: 1, outputs: [10], inputs: ['A:1']}\n"
    "  - {name: B, type: Op, time_us: 10, persistent: 2000, inputs: ['A:0', 'L:0']}\n";

Test(bound, a_path_over_dear_edges)
{
    struct workload w;
    struct graph g;
    struct cluster c;
    struct bound_result r;
    int64_t opt;

    err_set_quiet(1);
    cr_assert_eq(workload_read_yaml_string(&w, dear_yaml, strlen(dear_yaml), "d.yaml"), 0, "%s",
                 err_msg());
    cr_assert_eq(graph_build(&g, &w), 0, "%s", err_msg());
    workload_release(&w);
    cr_assert_eq(simtest_cluster(&c, 2, 3100, SLOPE, INTERCEPT, CHANNEL_DUPLEX), 0);
    cr_assert_eq(bound_compute(&g, &c, NULL, &r), 0, "%s", err_msg());
    opt = timed_optimum(&g, &c);
    cr_expect_eq(r.simple_us, 21);
    cr_expect_eq(r.memory_us, 121, "the dear path's cut: memory bound %lld",
                 (long long)r.memory_us);
    cr_expect_eq(opt, 123, "optimum %lld, bound %lld", (long long)opt, (long long)r.lower_bound_us);
    cluster_release(&c);
    graph_release(&g);
}
