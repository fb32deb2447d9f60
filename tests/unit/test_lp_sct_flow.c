/*
 * test_lp_sct_flow.c - the flow solver of m-SCT's LP (placers/lp_sct_flow.h):
 * its value is a feasible point's (never below GLPK's optimum), its gap
 * certifies (value × (1 - gap) never above the optimum), its x lies in the
 * LP's polytope, and two solves give the same bits.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include <criterion/criterion.h>

#include "core/err.h"
#include "placers/lp_sct_flow.h"
#include "placers/placer_internal.h"
#include "tests/unit/placer_fixture.h"
#include "workloads/gen.h"
#include "workloads/gen_synthetic.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* x within the LP's polytope: 0 <= x <= 1, Σ_out x >= outdeg - 1, Σ_in x >= indeg - 1. */
static void expect_feasible(const struct pgraph *pg, const double *x)
{
    for (int32_t e = 0; e < pg->m; e++) {
        cr_expect(x[e] >= -1e-12 && x[e] <= 1 + 1e-12, "x[%d] = %g", (int)e, x[e]);
    }
    for (int32_t v = 0; v < pg->n; v++) {
        double out = 0, in = 0;
        int32_t dout = pg->out_start[v + 1] - pg->out_start[v];
        int32_t din = pg->in_start[v + 1] - pg->in_start[v];

        for (int32_t e = pg->out_start[v]; e < pg->out_start[v + 1]; e++) {
            out += x[e];
        }
        for (int32_t k = pg->in_start[v]; k < pg->in_start[v + 1]; k++) {
            in += x[pg->in_edge[k]];
        }
        cr_expect(dout == 0 || out >= dout - 1 - 1e-9, "node %d: Σ out x = %g", (int)v, out);
        cr_expect(din == 0 || in >= din - 1 - 1e-9, "node %d: Σ in x = %g", (int)v, in);
    }
}

/* The flow solver on pg against GLPK's optimum: feasible, certified, within max_gap. */
static void check_against_glpk(const struct pgraph *pg, double max_gap, const char *what)
{
    struct lp_limits lim = {0, 0, PLACER_LP_GLPK};
    struct lp_result g;
    struct lp_sct_flow_result r, r2;
    double *x = calloc((size_t)pg->m + 1, sizeof(double));
    double *x2 = calloc((size_t)pg->m + 1, sizeof(double));

    cr_assert(x && x2);
    cr_assert_eq(lp_favourite_child_limited(pg, &lim, &g), 0, "%s", err_msg());
    cr_assert_eq(lp_sct_flow_solve(pg, LP_SCT_FLOW_STEPS, x, &r), 0, "%s", err_msg());
    cr_assert_eq(lp_sct_flow_solve(pg, LP_SCT_FLOW_STEPS, x2, &r2), 0, "%s", err_msg());
    cr_expect(memcmp(x, x2, (size_t)pg->m * sizeof(double)) == 0, "%s: two solves differ", what);
    cr_expect_eq(r.makespan_us, r2.makespan_us);
    expect_feasible(pg, x);
    cr_expect(r.makespan_us >= g.makespan_us - 1e-6 * g.makespan_us,
              "%s: flow %.9f below the optimum %.9f", what, r.makespan_us, g.makespan_us);
    cr_expect(r.lower_us <= g.makespan_us + 1e-6 * g.makespan_us,
              "%s: bound %.9f above the optimum %.9f", what, r.lower_us, g.makespan_us);
    cr_expect(r.gap >= 0 && r.gap <= max_gap, "%s: gap %g", what, r.gap);
    cr_expect_eq(r.steps, LP_SCT_FLOW_STEPS);
    cr_log_info("%s: optimum %.6f, flow %.6f, bound %.6f, gap %.4f %%", what, g.makespan_us,
                r.makespan_us, r.lower_us, 100 * r.gap);
    lp_result_release(&g);
    free(x);
    free(x2);
}

/* §13 T3: the unique optimum w* = 173/9, x = (1/9, 8/9, 1/9). */
Test(lp_sct_flow, t3_within_its_certificate)
{
    struct graph g;
    struct cluster c;
    struct pgraph pg;

    t2_setup(&g, &c);
    ungrouped_pgraph(&pg, &g, &c);
    check_against_glpk(&pg, 0.02, "t3");
    pgraph_release(&pg);
    cluster_release(&c);
    graph_release(&g);
}

/* A layered synthetic graph of 300 ops (the CLI's `--shape layered --seed 7`). */
Test(lp_sct_flow, layered_within_its_certificate)
{
    struct workload w;
    struct synth_opts o;
    struct graph g;
    struct cluster c;
    struct pgraph pg;

    synth_opts_init(&o);
    o.n_ops = 300;
    o.seed = 7;
    workload_init(&w);
    cr_assert_eq(gen_synthetic(&w, &o), 0, "%s", err_msg());
    cr_assert_eq(graph_build(&g, &w), 0, "%s", err_msg());
    workload_release(&w);
    cr_assert_eq(cluster_load(&c, "paper-4gpu-pcie"), 0, "%s", err_msg());
    ungrouped_pgraph(&pg, &g, &c);
    check_against_glpk(&pg, 0.05, "layered 300");
    pgraph_release(&pg);
    cluster_release(&c);
    graph_release(&g);
}
