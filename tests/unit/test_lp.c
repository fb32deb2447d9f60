/*
 * test_lp.c - the LP backends (placers/lp_backend.h, lp_clp.h): GLPK and
 * CLP solve m-SCT's favourite-child LP to the same value, the same x and
 * the same placement where the optimum is unique; CLP's iteration limit
 * counts work; no exception crosses the shim; `auto`'s rule.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include <criterion/criterion.h>

#include "core/err.h"
#include "placers/bound.h"
#include "placers/lp_backend.h"
#include "placers/lp_memo.h"
#include "placers/placer.h"
#include "placers/placer_internal.h"
#include "tests/unit/placer_fixture.h"
#include "workloads/gen.h"
#include "workloads/gen_synthetic.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void solve(const struct pgraph *pg, enum placer_lp_solver s, int64_t iters,
                  struct lp_result *r)
{
    struct lp_limits lim = {0, iters, s};

    cr_assert_eq(lp_favourite_child_limited(pg, &lim, r), 0, "%s: %s", placer_lp_solver_name(s),
                 err_msg());
    cr_assert_eq(r->solver, s, "asked %s, ran %s", placer_lp_solver_name(s),
                 placer_lp_solver_name(r->solver));
}

static double max_abs_diff(const double *a, const double *b, int32_t n)
{
    double d = 0;

    for (int32_t i = 0; i < n; i++) {
        d = fabs(a[i] - b[i]) > d ? fabs(a[i] - b[i]) : d;
    }
    return d;
}

/* The LP's value from both solvers, equal within 1e-6 relative. */
static void expect_same_value(const struct lp_result *a, const struct lp_result *b,
                              const char *what)
{
    cr_expect_str_eq(a->status, "optimal", "%s: GLPK %s", what, a->status);
    cr_expect_str_eq(b->status, "optimal", "%s: CLP %s", what, b->status);
    cr_expect(fabs(a->makespan_us - b->makespan_us) <= 1e-6 * fabs(a->makespan_us),
              "%s: GLPK w* = %.9f, CLP w* = %.9f", what, a->makespan_us, b->makespan_us);
}

static bool compare_sct(const struct graph *g, const struct cluster *c, const char *what);

Test(lp, clp_is_built_in)
{
    /* install-deps.sh installs coinor-libclp-dev: a build without it is a mistake here */
    cr_assert(lp_clp_available());
}

/* test_placer.c's T3: the optimum is unique (x = 1/9, 8/9, 1/9; w* = 173/9). */
Test(lp, both_solvers_find_the_unique_optimum_of_t3)
{
    struct graph g;
    struct cluster c;
    struct pgraph pg;
    struct lp_result a, b;

    t2_setup(&g, &c);
    ungrouped_pgraph(&pg, &g, &c);
    solve(&pg, PLACER_LP_GLPK, 0, &a);
    solve(&pg, PLACER_LP_CLP, 0, &b);
    expect_same_value(&a, &b, "t3");
    cr_expect(fabs(b.makespan_us - 173.0 / 9) < 1e-6, "CLP w* = %g", b.makespan_us);
    cr_expect(max_abs_diff(a.x, b.x, pg.m) < 1e-6, "x differs by %g", max_abs_diff(a.x, b.x, pg.m));
    cr_expect_eq(b.nonzeros, lp_favourite_child_nonzeros(&pg));
    cr_expect(compare_sct(&g, &c, "t3"), "the unique optimum: the same x");
    lp_result_release(&a);
    lp_result_release(&b);
    pgraph_release(&pg);
    cluster_release(&c);
    graph_release(&g);
}

/* A layered synthetic workload of n ops (the CLI's `--shape layered --seed`). */
static void layered(struct graph *g, int32_t n, uint64_t seed)
{
    struct workload w;
    struct synth_opts o;

    synth_opts_init(&o);
    o.n_ops = n;
    o.seed = seed;
    workload_init(&w);
    cr_assert_eq(gen_synthetic(&w, &o), 0, "%s", err_msg());
    cr_assert_eq(graph_build(g, &w), 0, "%s", err_msg());
    workload_release(&w);
}

/*
 * m-SCT with each solver on g: the LP values equal; where the two x agree
 * (the optimum they found is the same vertex, as it must be when it is
 * unique) the placements are identical too.  Returns whether x agreed.
 */
static bool compare_sct(const struct graph *g, const struct cluster *c, const char *what)
{
    struct placer_options o;
    struct placement p[2];
    struct placer_stats st[2];
    struct pgraph pg;
    struct lp_result a, b;
    bool same_x;

    ungrouped_pgraph(&pg, g, c);
    solve(&pg, PLACER_LP_GLPK, 0, &a);
    solve(&pg, PLACER_LP_CLP, 0, &b);
    expect_same_value(&a, &b, what);
    cr_expect_eq(a.nonzeros, lp_favourite_child_nonzeros(&pg), "%s", what);
    same_x = max_abs_diff(a.x, b.x, pg.m) < 1e-6;
    cr_log_info("%s: w* %.6f, x %s", what, a.makespan_us,
                same_x ? "identical (placements compared)" : "differs (another optimal vertex)");
    placer_options_init(&o);
    for (int k = 0; k < 2; k++) {
        o.lp_solver = k ? PLACER_LP_CLP : PLACER_LP_GLPK;
        cr_assert_eq(placer_run("m-sct", g, c, &o, "t", &p[k], &st[k]), 0, "%s: %s", what,
                     err_msg());
        cr_expect_str_eq(st[k].lp_solver, k ? "clp" : "glpk", "%s", what);
    }
    cr_expect(fabs(st[0].lp_makespan_us - st[1].lp_makespan_us) <=
                  1e-6 * fabs(st[0].lp_makespan_us),
              "%s: %.9f vs %.9f", what, st[0].lp_makespan_us, st[1].lp_makespan_us);
    if (same_x) {
        cr_expect_eq(memcmp(p[0].device_of, p[1].device_of, (size_t)g->n_ops * sizeof(int32_t)), 0,
                     "%s: the same optimum, different placements", what);
        cr_expect_eq(st[0].estimate_us, st[1].estimate_us, "%s", what);
    }
    for (int k = 0; k < 2; k++) {
        placement_release(&p[k]);
        placer_stats_release(&st[k]);
    }
    lp_result_release(&a);
    lp_result_release(&b);
    pgraph_release(&pg);
    return same_x;
}

Test(lp, gnmt_and_layered_graphs_same_value_both_solvers, .timeout = 600)
{
    struct cluster c;
    struct graph g;
    struct workload w;
    struct gen_opts go;

    err_set_quiet(1);
    cr_assert_eq(cluster_load(&c, "paper-4gpu-pcie"), 0, "%s", err_msg());
    gen_opts_init(&go);
    go.forward_only = true;
    workload_init(&w);
    cr_assert_eq(gen_gnmt(&w, &go, NULL), 0, "%s", err_msg());
    cr_assert_eq(graph_build(&g, &w), 0, "%s", err_msg());
    workload_release(&w);
    compare_sct(&g, &c, "GNMT");
    graph_release(&g);
    cluster_release(&c);

    /* paper-4gpu-pcie's slow links make the layered LPs hard for both
     * solvers (3,000 ops: about 40 s each); NVLink's are easy */
    cr_assert_eq(cluster_load(&c, "dgx-h100-8"), 0, "%s", err_msg());
    layered(&g, 500, 3);
    compare_sct(&g, &c, "layered 500");
    graph_release(&g);
    layered(&g, 3000, 42);
    compare_sct(&g, &c, "layered 3000");
    graph_release(&g);
    cluster_release(&c);
}

/* A chain: every edge is on the only path, so x = 0 is the unique optimum
 * (w* = Σ p): both solvers give it. */
Test(lp, chain_optimum_identical)
{
    static const struct simtest_op chain[] = {
        {"A", 10, "100", 0, 0, -1, NULL},
        {"B", 20, "100", 0, 0, -1, "A:0"},
        {"C", 30, "100", 0, 0, -1, "B:0"},
        {"D", 40, "", 0, 0, -1, "C:0"},
    };
    struct graph g;
    struct cluster c;
    struct pgraph pg;
    struct lp_result a, b;

    fixture_graph(&g, &c, chain, 4);
    ungrouped_pgraph(&pg, &g, &c);
    solve(&pg, PLACER_LP_GLPK, 0, &a);
    solve(&pg, PLACER_LP_CLP, 0, &b);
    expect_same_value(&a, &b, "chain");
    cr_expect(fabs(b.makespan_us - 100.0) < 1e-6, "w* = %g (Σ p, every x_e = 0)", b.makespan_us);
    cr_expect(max_abs_diff(a.x, b.x, pg.m) < 1e-6);
    for (int32_t e = 0; e < pg.m; e++) {
        cr_expect(fabs(b.x[e]) < 1e-9, "x_%d = %g", (int)e, b.x[e]);
    }
    cr_expect(compare_sct(&g, &c, "chain"), "the unique optimum: the same x");
    lp_result_release(&a);
    lp_result_release(&b);
    pgraph_release(&pg);
    cluster_release(&c);
    graph_release(&g);
}

/* --lp-iteration-limit counts CLP's iterations: it stops there, the same way twice. */
Test(lp, clp_iteration_limit_is_work_and_deterministic, .timeout = 120)
{
    struct cluster c;
    struct graph g;
    struct pgraph pg;
    struct lp_result full, r[2];
    struct lp_limits lim = {0, 0, PLACER_LP_CLP};

    err_set_quiet(1);
    cr_assert_eq(cluster_load(&c, "paper-4gpu-pcie"), 0, "%s", err_msg());
    layered(&g, 500, 3);
    ungrouped_pgraph(&pg, &g, &c);
    solve(&pg, PLACER_LP_CLP, 0, &full);
    cr_assert_gt(full.iterations, 100, "%lld", (long long)full.iterations);
    lim.iteration_limit = full.iterations / 2;
    for (int k = 0; k < 2; k++) {
        int rc = lp_favourite_child_limited(&pg, &lim, &r[k]);

        cr_expect_eq(r[k].stopped, LP_STOP_ITERATIONS, "run %d: stopped %d", k, r[k].stopped);
        cr_expect_leq(r[k].iterations, lim.iteration_limit + 1, "run %d: %lld iterations", k,
                      (long long)r[k].iterations);
        if (rc == 0) {
            cr_expect_str_eq(r[k].status, "iteration limit (feasible)");
        } else {
            cr_expect_eq(rc, BAECHI_ESOLVER);
            cr_expect(strstr(err_msg(), "iteration limit of") != NULL, "%s", err_msg());
        }
        cr_expect_eq(r[k].solver, PLACER_LP_CLP);
    }
    cr_expect_eq(r[0].iterations, r[1].iterations);
    cr_expect_eq(r[0].stopped, r[1].stopped);
    lp_result_release(&r[0]);
    lp_result_release(&r[1]);
    lim.iteration_limit = 2 * full.iterations; /* enough (CLP stops at the limit even optimal) */
    cr_assert_eq(lp_favourite_child_limited(&pg, &lim, &r[0]), 0, "%s", err_msg());
    cr_expect_str_eq(r[0].status, "optimal");
    cr_expect_eq(memcmp(full.x, r[0].x, (size_t)pg.m * sizeof(double)), 0, "the same optimum");
    lp_result_release(&r[0]);
    lp_result_release(&full);
    pgraph_release(&pg);
    graph_release(&g);
    cluster_release(&c);
}

/* No exception crosses into C: the shim's guard turns each into -1 and a message. */
Test(lp, clp_exceptions_become_errors)
{
    struct lp_clp_result r;

    cr_expect_eq(lp_clp_selftest_throw(0, &r), -1);
    cr_expect(r.out_of_memory);
    cr_expect(strstr(r.msg, "out of memory") != NULL, "%s", r.msg);
    cr_expect_eq(lp_clp_selftest_throw(1, &r), -1);
    cr_expect(!r.out_of_memory);
    cr_expect(strstr(r.msg, "unknown exception") != NULL, "%s", r.msg);
}

Test(lp, auto_rule_and_names)
{
    enum placer_lp_solver s;

    cr_expect_eq(lp_solver_choose(PLACER_LP_AUTO, LP_SOLVER_AUTO_MAX_GLPK_NONZEROS),
                 PLACER_LP_GLPK);
    cr_expect_eq(lp_solver_choose(PLACER_LP_AUTO, LP_SOLVER_AUTO_MAX_GLPK_NONZEROS + 1),
                 PLACER_LP_CLP);
    cr_expect_eq(lp_solver_choose(PLACER_LP_GLPK, 1000000000), PLACER_LP_GLPK);
    cr_expect_eq(lp_solver_choose(PLACER_LP_CLP, 10), PLACER_LP_CLP);
    cr_expect_eq(placer_lp_solver_parse("clp", &s), 0);
    cr_expect_eq(s, PLACER_LP_CLP);
    cr_expect_eq(placer_lp_solver_parse("auto", &s), 0);
    cr_expect_eq(s, PLACER_LP_AUTO);
    err_set_quiet(1);
    cr_expect_eq(placer_lp_solver_parse("cplex", &s), BAECHI_EINVAL);
    cr_expect(strstr(err_msg(), "'cplex'") != NULL, "%s", err_msg());
}

/* m-SCT (reserve or not) on g with options o, through memo (NULL: none). */
static void sct_run(const char *placer, const struct graph *g, const struct cluster *c,
                    struct placer_options o, struct lp_memo *memo, struct placement *p,
                    struct placer_stats *st)
{
    o.lp_memo = memo;
    cr_assert_eq(placer_run(placer, g, c, &o, "t", p, st), 0, "%s: %s", placer, err_msg());
}

/*
 * auto's m-SCT candidates (lp_memo.h): m-SCT and m-SCT-reserve of one grouper
 * and fusion build the same LP -- solved once, the second placement given the
 * first's solution -- and each placement is the one a solve of its own gives.
 */
Test(lp, memo_solves_each_distinct_lp_once, .timeout = 120)
{
    static const char *const placers[] = {"m-sct", "m-sct-reserve"};
    struct cluster c;
    struct graph g;
    struct workload w;
    struct gen_opts go;
    struct lp_memo memo;
    int64_t iters = 0;

    err_set_quiet(1);
    cr_assert_eq(cluster_load(&c, "paper-4gpu-pcie"), 0, "%s", err_msg());
    gen_opts_init(&go);
    go.forward_only = true;
    go.layers = 2;
    workload_init(&w);
    cr_assert_eq(gen_transformer(&w, &go, NULL), 0, "%s", err_msg());
    cr_assert_eq(graph_build(&g, &w), 0, "%s", err_msg());
    workload_release(&w);
    lp_memo_init(&memo);
    for (int cfg = 0; cfg < 2; cfg++) { /* auto's two: plain; coplace + fusion */
        struct placer_options o;

        placer_options_init(&o);
        o.grouper = cfg ? PLACER_GROUPER_COPLACE : PLACER_GROUPER_TF;
        o.fusion = cfg == 1;
        for (int k = 0; k < 2; k++) {
            struct placement p[2];
            struct placer_stats st[2];

            sct_run(placers[k], &g, &c, o, NULL, &p[0], &st[0]);
            sct_run(placers[k], &g, &c, o, &memo, &p[1], &st[1]);
            cr_expect_str_eq(st[1].lp_status, st[0].lp_status, "%s cfg %d", placers[k], cfg);
            cr_expect_eq(st[1].lp_makespan_us, st[0].lp_makespan_us);
            cr_expect_eq(st[1].lp_iterations, st[0].lp_iterations);
            cr_expect_eq(st[1].n_favourites, st[0].n_favourites);
            cr_expect_eq(st[1].estimate_us, st[0].estimate_us);
            cr_expect_eq(memcmp(p[0].device_of, p[1].device_of, (size_t)g.n_ops * sizeof(int32_t)),
                         0, "%s cfg %d: the memo changed the placement", placers[k], cfg);
            cr_expect_gt(st[0].n_favourites, 0, "a test of favourites needs some");
            iters += k == 0 ? st[0].lp_iterations : 0;
            for (int i = 0; i < 2; i++) {
                placement_release(&p[i]);
                placer_stats_release(&st[i]);
            }
        }
    }
    cr_expect_eq(memo.n_solved, 2, "one solve per grouper and fusion, not %d", (int)memo.n_solved);
    cr_expect_eq(memo.n_reused, 2);
    cr_expect_eq(memo.iterations_run, iters, "the iterations of the two solves run");

    /* another LP (the comm model scaled) is not taken for one of those */
    {
        struct placer_options o;
        struct placement p;
        struct placer_stats st;

        placer_options_init(&o);
        o.comm_factor = 2;
        sct_run("m-sct", &g, &c, o, &memo, &p, &st);
        cr_expect_eq(memo.n_solved, 3);
        placement_release(&p);
        placer_stats_release(&st);
    }
    lp_memo_release(&memo);
    graph_release(&g);
    cluster_release(&c);
}

/* A failed solve (GLPK out of memory: its limit made tiny, lp.c's test hook)
 * is kept too: the reuse fails the same way, with the same message. */
/*
 * GLPK's allocator (env/alloc.c, dma()) takes a block off its list before it
 * checks the memory limit, so a realloc beyond the limit loses that block:
 * glp_free_env() after the error cannot free it.  That is GLPK's leak, not
 * the memo's; under LeakSanitizer this test ignores the allocations of the
 * two solves (and only those), so the rest of the process is still checked.
 */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LP_TEST_LSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(LP_TEST_LSAN)
#define LP_TEST_LSAN 1
#endif
#ifdef LP_TEST_LSAN
#include <sanitizer/lsan_interface.h>
#define LP_GLPK_LEAK_BEGIN() __lsan_disable()
#define LP_GLPK_LEAK_END()   __lsan_enable()
#else
#define LP_GLPK_LEAK_BEGIN() ((void)0)
#define LP_GLPK_LEAK_END()   ((void)0)
#endif

Test(lp, memo_keeps_a_failure)
{
    struct graph g;
    struct cluster c;
    struct pgraph pg;
    struct lp_memo memo;
    struct lp_result r;
    struct lp_limits lim = {0, 0, PLACER_LP_GLPK};
    char first[256];
    int rc1, rc2;

    setenv("BAECHI_GLPK_MEM_LIMIT_MB", "1", 1);
    layered(&g, 200, 3);
    cr_assert_eq(cluster_load(&c, "paper-4gpu-pcie"), 0, "%s", err_msg());
    ungrouped_pgraph(&pg, &g, &c);
    err_set_quiet(1);
    lp_memo_init(&memo);
    LP_GLPK_LEAK_BEGIN();
    rc1 = lp_memo_solve(&memo, &pg, &lim, &r);
    LP_GLPK_LEAK_END();
    cr_assert_eq(rc1, BAECHI_ESOLVER);
    snprintf(first, sizeof(first), "%s", err_msg());
    cr_expect(r.out_of_memory, "%s", first);
    err_clear();
    LP_GLPK_LEAK_BEGIN();
    rc2 = lp_memo_solve(&memo, &pg, &lim, &r);
    LP_GLPK_LEAK_END();
    cr_assert_eq(rc2, BAECHI_ESOLVER);
    cr_expect_str_eq(err_msg(), first);
    cr_expect(r.out_of_memory);
    cr_expect_eq(memo.n_solved, 1);
    cr_expect_eq(memo.n_reused, 1);
    lp_memo_release(&memo);
    pgraph_release(&pg);
    graph_release(&g);
    cluster_release(&c);
}
