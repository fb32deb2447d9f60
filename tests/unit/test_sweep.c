/*
 * test_sweep.c - sweep files: errors with file:line:col, defaults,
 * expansion with normalisation and exclusion, one point computed.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/err.h"
#include "results/sweep.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_err(const char *text)
{
    struct sweep_spec s;
    int rc = sweep_spec_parse(&s, text, strlen(text), "t.yaml");
    if (rc == 0) {
        sweep_spec_release(&s);
    }
    return rc;
}

Test(sweep, errors_name_line_and_column)
{
    cr_assert_eq(parse_err("workloads: [\"gen:gnmt\"]\nclusters: [paper-4gpu-pcie]\n"
                           "placers: [m-etf]\nrepeats: 0\n"),
                 BAECHI_EPARSE);
    cr_assert(strstr(err_msg(), "t.yaml:4:10: repeats: '0' is out of range"), "%s", err_msg());
    cr_assert_eq(parse_err("workloads: [\"gen:gnmt?batch=x\"]\nclusters: [paper-4gpu-pcie]\n"
                           "placers: [m-etf]\n"),
                 BAECHI_EPARSE);
    cr_assert(strstr(err_msg(), "t.yaml:1:13: workloads: 'gen:gnmt?batch=x' parameter 'batch'"),
              "%s", err_msg());
    cr_assert_eq(parse_err("workloads: [\"gen:gnmt\"]\nclusters: [paper-4gpu-pcie]\n"),
                 BAECHI_EPARSE);
    cr_assert(strstr(err_msg(), "missing key 'placers'"), "%s", err_msg());
    cr_assert_eq(parse_err("workloads: [\"gen:gnmt\"]\nclusters: [paper-4gpu-pcie]\n"
                           "placers: [m-etf]\nmodels: [timed, fast]\n"),
                 BAECHI_EPARSE);
    cr_assert(strstr(err_msg(), "t.yaml:4:17: models: 'fast' is not a simulator model"), "%s",
              err_msg());
    cr_assert_eq(parse_err("workloads: [\"gen:gnmt\"]\nclusters: [paper-4gpu-pcie]\n"
                           "placers: [m-etf]\nplacers: [m-sct]\n"),
                 BAECHI_EPARSE);
    cr_assert(strstr(err_msg(), "t.yaml:4:1: duplicate key 'placers'"), "%s", err_msg());
    cr_assert_eq(parse_err("workloads: []\n"), BAECHI_EPARSE);
    cr_assert(strstr(err_msg(), "t.yaml:1:12: workloads: the list is empty"), "%s", err_msg());
    cr_assert_eq(parse_err("- a\n"), BAECHI_EPARSE);
}

Test(sweep, expansion_normalises_and_excludes)
{
    const char *text = "name: x\n"
                       "workloads: [\"gen:transformer?layers=1&forward_only=true\"]\n"
                       "clusters: [paper-4gpu-pcie, paper-2gpu-pcie]\n"
                       "placers: [m-topo, paper, random]\n"
                       "fusion: [false, true]\n"
                       "seeds: [1, 2]\n"
                       "exclude: [{cluster: paper-2gpu-pcie, placer: random}]\n";
    struct sweep sw;
    struct db_buf b = {0};
    struct db_run r;
    size_t pos = 0;

    cr_assert_eq(sweep_prepare(&sw, text, strlen(text), "t.yaml"), 0, "%s", err_msg());
    cr_assert_null(sw.wl[0].error);
    /* 4gpu: m-topo 2 fusion (seed ignored), paper 1, random 2x2; 2gpu: m-topo 2, paper 1 */
    cr_assert_eq(sw.n_points, 7 + 3);
    cr_assert_str_eq(sw.spec.name, "x");
    cr_assert_eq(sw.point[0].opt.n_devices, 4, "devices 0 = all of the cluster");
    cr_assert(strstr(sw.point[0].key, "|k=4|p=m-topo|g=tf|f=0|mf=1|"), "%s", sw.point[0].key);
    cr_assert_eq(sweep_point_exec(&sw, 0, &b), 0);
    cr_assert_eq(db_run_deserialize(&r, b.p, b.len, &pos), 0);
    cr_assert_str_eq(r.status, "ok");
    cr_assert_str_eq(r.sim_model, "timed");
    cr_assert_gt(r.step_us, 0);
    cr_assert_eq(r.n_dev, 4);
    cr_assert(strstr(r.key, "|model=timed"));
    db_run_release(&r);
    free(b.p);
    sweep_release(&sw);
}

Test(sweep, gen_options_are_checked_before_running)
{
    struct sweep sw;
    const char *bad[][2] = {
        {"gen:gpt?size=nope", "'nope' is not a size of gpt"},
        {"gen:gpt?layers=100000", "parameter 'layers': expected an integer in 1..10000"},
        {"gen:gpt?elem_bytes=0", "parameter 'elem_bytes': expected an integer in 1..16"},
        {"gen:gpt?optimizer=lion", "parameter 'optimizer'"},
        {"gen:gpt?bwd_factor=-1", "parameter 'bwd_factor'"},
        {"gen:gpt?aux=2", "parameter 'aux': expected true or false"},
    };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char text[256];

        snprintf(text, sizeof(text),
                 "workloads: [\"%s\"]\nclusters: [paper-4gpu-pcie]\nplacers: [single]\n",
                 bad[i][0]);
        cr_assert_eq(sweep_prepare(&sw, text, strlen(text), "t.yaml"), BAECHI_EPARSE, "%s",
                     bad[i][0]);
        cr_expect(strstr(err_msg(), bad[i][1]) != NULL, "%s: %s", bad[i][0], err_msg());
        cr_expect(strstr(err_msg(), "t.yaml:1:13:") != NULL, "%s", err_msg());
    }
    {
        const char *text = "workloads: [\"gen:gnmt?size=big&d_model=512&heads=8&ffn=2048&"
                           "vocab=1000&no_groups=true&optimizer=adam&bwd_factor=1.5\"]\n"
                           "clusters: [paper-4gpu-pcie]\nplacers: [single]\ndevices: [4]\n";

        cr_assert_eq(sweep_prepare(&sw, text, strlen(text), "t.yaml"), 0, "%s", err_msg());
        sweep_release(&sw);
    }
    {
        const char *text = "workloads: [\"gen:gnmt?layers=1\"]\nclusters: [paper-4gpu-pcie]\n"
                           "placers: [single]\ndevices: [2, 5]\n";

        cr_assert_eq(sweep_prepare(&sw, text, strlen(text), "t.yaml"), BAECHI_EPARSE);
        cr_expect(strstr(err_msg(), "t.yaml:4:14: devices: '5' asks for 5 devices") != NULL, "%s",
                  err_msg());
    }
}

Test(sweep, failing_workload_is_an_error_run)
{
    /* valid parameters that the generator refuses together (sizes are
     * checked before the sweep runs) */
    const char *text = "workloads: [\"gen:gpt?d_model=64&heads=3&layers=1\"]\n"
                       "clusters: [paper-4gpu-pcie]\nplacers: [single]\n";
    struct sweep sw;
    struct db_buf b = {0};
    struct db_run r;
    size_t pos = 0;

    cr_assert_eq(sweep_prepare(&sw, text, strlen(text), "t.yaml"), 0, "%s", err_msg());
    cr_assert_not_null(sw.wl[0].error);
    cr_assert_eq(sw.n_points, 1);
    cr_assert_eq(sweep_point_exec(&sw, 0, &b), 0);
    cr_assert_eq(db_run_deserialize(&r, b.p, b.len, &pos), 0);
    cr_assert_str_eq(r.status, "error");
    cr_assert_not_null(r.message);
    db_run_release(&r);
    free(b.p);
    sweep_release(&sw);
}

/* The paper sweep's two configurations per placer: exclude by grouper and fusion. */
Test(sweep, exclude_by_grouper_and_fusion)
{
    const char *text = "workloads: [\"gen:transformer?layers=1&forward_only=true\"]\n"
                       "clusters: [paper-4gpu-pcie]\n"
                       "placers: [single, m-etf]\n"
                       "groupers: [tf, coplace]\n"
                       "fusion: [false, true]\n"
                       "exclude:\n"
                       "  - {grouper: coplace, fusion: false}\n"
                       "  - {grouper: tf, fusion: true}\n"
                       "  - {placer: single, grouper: coplace}\n";
    struct sweep sw;

    cr_assert_eq(sweep_prepare(&sw, text, strlen(text), "t.yaml"), 0, "%s", err_msg());
    cr_assert_eq(sw.n_points, 3, "single; m-etf plain; m-etf + coplace + fusion");
    cr_assert(strstr(sw.point[0].key, "|p=single|g=tf|f=0|"), "%s", sw.point[0].key);
    cr_assert(strstr(sw.point[1].key, "|p=m-etf|g=tf|f=0|"), "%s", sw.point[1].key);
    cr_assert(strstr(sw.point[2].key, "|p=m-etf|g=coplace|f=1|"), "%s", sw.point[2].key);
    sweep_release(&sw);
    cr_assert_eq(parse_err("workloads: [\"gen:gnmt\"]\nclusters: [paper-4gpu-pcie]\n"
                           "placers: [m-etf]\nexclude: [{grouper: glue}]\n"),
                 BAECHI_EPARSE);
    cr_assert(strstr(err_msg(), "t.yaml:4:21: exclude: grouper: 'glue' is not a grouper"), "%s",
              err_msg());
    cr_assert_eq(parse_err("workloads: [\"gen:gnmt\"]\nclusters: [paper-4gpu-pcie]\n"
                           "placers: [m-etf]\nexclude: [{fusion: maybe}]\n"),
                 BAECHI_EPARSE);
    cr_assert(strstr(err_msg(), "exclude: fusion: 'maybe' is not true or false"), "%s", err_msg());
}

Test(sweep, runs_are_counted_and_capped_before_expansion)
{
    const char *text = "workloads: [\"gen:transformer?layers=1&forward_only=true\"]\n"
                       "clusters: [paper-4gpu-pcie]\n"
                       "placers: [m-topo, m-etf]\n"
                       "memory_fractions: [1, 0.5, 0.25]\n"
                       "models: [timed, baechi]\n";
    struct sweep_spec s;
    struct sweep sw;
    int64_t n = 0;

    cr_assert_eq(sweep_spec_parse(&s, text, strlen(text), "t.yaml"), 0, "%s", err_msg());
    cr_assert(sweep_spec_runs(&s, &n));
    cr_assert_eq(n, 2 * 3 * 2);
    /* an overflowing product is caught, not wrapped */
    s.n_memory_fractions = s.n_comm_factors = s.n_compute_factors = s.n_seeds = INT32_MAX;
    cr_assert_not(sweep_spec_runs(&s, &n));
    cr_assert_eq(n, INT64_MAX);
    sweep_spec_release(&s);

    cr_assert_eq(sweep_prepare_limit(&sw, text, strlen(text), "t.yaml", 11), BAECHI_EINVAL);
    cr_assert(strstr(err_msg(), "t.yaml: the sweep has 12 runs (2 placers x 3 memory_fractions x "
                                "2 models), more than the cap of 11 runs"),
              "%s", err_msg());
    cr_assert_eq(sw.n_points, 0);
    cr_assert_eq(sweep_prepare_limit(&sw, text, strlen(text), "t.yaml", 12), 0, "%s", err_msg());
    cr_assert_eq(sw.n_points, 6);
    sweep_release(&sw);
    /* the default cap */
    text = "workloads: [\"gen:gnmt\"]\nclusters: [paper-4gpu-pcie]\nplacers: [m-etf]\n"
           "repeats: 100001\n";
    cr_assert_eq(sweep_prepare(&sw, text, strlen(text), "t.yaml"), BAECHI_EINVAL);
    cr_assert(strstr(err_msg(), "100001 runs (100001 repeats), more than the cap of 100000"), "%s",
              err_msg());
}

/* lp_solver (issue 22): a list is an axis of m-SCT's and auto's points only,
 * in the key when not auto, each run storing the solver that ran. */
Test(sweep, lp_solver_is_an_axis_of_the_lp_placers)
{
    const char *text = "workloads: [\"gen:transformer?layers=1&forward_only=true\"]\n"
                       "clusters: [paper-4gpu-pcie]\n"
                       "placers: [m-sct, m-etf]\n"
                       "lp_solver: [auto, glpk]\n";
    struct sweep sw;
    struct sweep_spec s;
    int64_t n = 0;

    cr_assert_eq(sweep_spec_parse(&s, text, strlen(text), "t.yaml"), 0, "%s", err_msg());
    cr_assert_eq(s.n_lp_solvers, 2);
    cr_assert(sweep_spec_runs(&s, &n));
    cr_assert_eq(n, 2 * 2);
    sweep_spec_release(&s);

    cr_assert_eq(sweep_prepare(&sw, text, strlen(text), "t.yaml"), 0, "%s", err_msg());
    cr_assert_eq(sw.n_points, 3, "m-sct twice, m-etf once");
    cr_assert_eq(sw.point[0].opt.lp_solver, PLACER_LP_AUTO);
    cr_assert_null(strstr(sw.point[0].key, "|lp="), "%s", sw.point[0].key);
    cr_assert_eq(sw.point[1].opt.lp_solver, PLACER_LP_GLPK);
    cr_assert(strstr(sw.point[1].key, "|th=0.1|lp=glpk|seed=0|"), "%s", sw.point[1].key);
    cr_assert_eq(sw.point[2].opt.lp_solver, PLACER_LP_AUTO, "m-etf solves no LP");
    for (int32_t i = 0; i < 2; i++) {
        struct db_buf b = {0};
        struct db_run r;
        size_t pos = 0;

        cr_assert_eq(sweep_point_exec(&sw, i, &b), 0);
        cr_assert_eq(db_run_deserialize(&r, b.p, b.len, &pos), 0);
        cr_assert_str_eq(r.status, "ok");
        cr_assert_str_eq(r.lp_solver, "glpk", "point %d: the solver that ran", (int)i);
        db_run_release(&r);
        free(b.p);
    }
    sweep_release(&sw);

    cr_assert_eq(parse_err("workloads: [\"gen:gnmt\"]\nclusters: [paper-4gpu-pcie]\n"
                           "placers: [m-sct]\nlp_solver: [glpk, mosek]\n"),
                 BAECHI_EPARSE);
    cr_assert(strstr(err_msg(), "t.yaml:4:19: lp_solver: 'mosek' is not an LP solver"), "%s",
              err_msg());
    cr_assert_eq(parse_err("workloads: [\"gen:gnmt\"]\nclusters: [paper-4gpu-pcie]\n"
                           "placers: [m-sct]\nlp_solver: []\n"),
                 BAECHI_EPARSE);
    cr_assert(strstr(err_msg(), "t.yaml:4:12: lp_solver: the list is empty"), "%s", err_msg());
}
