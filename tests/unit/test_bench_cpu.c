/*
 * test_bench_cpu.c - the CPU backend of calibrate/bench.h and the
 * calibration pipeline on it, end to end: calibrate -> cluster YAML ->
 * cluster_read_yaml -> sim_run.  Sizes and iterations are tiny (fast).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "calibrate/bench.h"
#include "calibrate/calibrate.h"
#include "core/err.h"
#include "sim/sim.h"
#include "tests/unit/simtest.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static void tiny_options(struct calib_options *o)
{
    calib_options_default(o, "cpu", true);
    o->max_exp = 14;
    o->iters = 2;
    o->warmup = 0;
    o->n_gemm = 1;
    o->gemm_n[0] = 16;
    o->gemm_iters = 1;
    o->membw_bytes = 1 << 16;
    o->launch_iters = 3;
}

Test(bench_cpu, measures_positive_numbers)
{
    struct bench b;
    struct bench_device_info info;
    double us[3], v;

    cr_assert_eq(bench_open(&b, "cpu", NULL, 2), 0, "%s", err_msg());
    cr_assert_eq(b.n_devices, 2);
    cr_assert_str_eq(b.ops->name, "cpu");
    cr_assert_eq(b.ops->device_info(&b, 1, &info), 0);
    cr_assert(strstr(info.name, "host thread 1") != NULL, "%s", info.name);
    cr_assert(info.mem_total_bytes > 0 && info.mem_usable_bytes > 0);
    cr_assert_str_eq(b.ops->copy_path(&b, 0, 1), "memcpy");
    cr_assert_eq(b.ops->copy_us(&b, 0, 1, 4096, 1, 3, us), 0);
    for (int i = 0; i < 3; i++) {
        cr_assert(us[i] > 0 && us[i] < 1e6, "copy %d took %g µs", i, us[i]);
    }
    cr_assert_eq(b.ops->gemm_flops(&b, 0, 32, 1, &v), 0);
    cr_assert(v > 1e6, "GEMM %g FLOP/s", v);
    cr_assert_eq(b.ops->mem_bw(&b, 1, 1 << 16, 2, &v), 0);
    cr_assert(v > 1e6, "bandwidth %g B/s", v);
    cr_assert_eq(b.ops->launch_us(&b, 0, 5, &v), 0);
    cr_assert(v > 0 && v < 1e6, "launch %g µs", v);
    bench_close(&b);
}

Test(bench_cpu, backend_errors)
{
    struct bench b;
    int32_t dup[] = {0, 0};

    err_set_quiet(1);
    cr_assert_eq(bench_open(&b, "tpu", NULL, 0), BAECHI_EINVAL);
    cr_assert(strstr(err_msg(), "tpu") != NULL);
    cr_assert_eq(bench_open(&b, "cpu", dup, 2), BAECHI_EINVAL);
    if (!bench_have_cuda()) {
        cr_assert_eq(bench_open(&b, "cuda", NULL, 0), BAECHI_EUNSUPPORTED);
        cr_assert(strstr(err_msg(), "make cuda") != NULL, "%s", err_msg());
    }
}

Test(bench_cpu, calibrate_to_cluster_to_sim)
{
    struct bench b;
    struct calib_options o;
    struct calib_result r;
    struct cluster c, back;
    struct graph g;
    struct sim_result sr;
    struct sim_options so = {.model = SIM_MODEL_TIMED, .trace = NULL};
    char *text = NULL;
    size_t len = 0;
    FILE *f;
    int32_t dev[3];
    const struct simtest_op ops[] = {
        {"A", 10, "100", 50, 0, 0, ""},
        {"B", 5, "20", 0, 0, 1, "A:0"},
        {"C", 3, "", 10, 0, 0, "A:0 B:0"},
    };

    tiny_options(&o);
    cr_assert_eq(bench_open(&b, "cpu", NULL, 2), 0);
    cr_assert_eq(calibrate_run(&b, &o, &r), 0, "%s", err_msg());
    cr_assert_eq(r.n_devices, 2);
    cr_assert_eq(r.n_sizes, 15);
    cr_assert_eq(r.n_pairs, 2);
    cr_assert(r.have_fit);
    cr_assert(r.n_groups >= 1 && r.n_groups <= 2);
    for (int32_t p = 0; p < r.n_pairs; p++) {
        cr_assert_neq(r.pair[p].src, r.pair[p].dst);
        cr_assert(r.pair[p].fit.r2 <= 1.0);
        for (int32_t k = 0; k < r.n_sizes; k++) {
            cr_assert(r.pair[p].median_us[k] > 0);
        }
    }
    cr_assert(r.dev[0].peak_flops > 0 && r.dev[1].mem_bw_bytes_per_s > 0);

    cr_assert_eq(calibrate_to_cluster(&r, "cal-test", "test", &c), 0, "%s", err_msg());
    cr_assert_eq(c.n_devices, 2);
    cr_assert(c.comm.slope_us_per_byte >= 0 && c.comm.intercept_us >= 0);
    cr_assert(strstr(c.source, "cpu backend") != NULL, "%s", c.source);
    f = open_memstream(&text, &len);
    cr_assert(f != NULL);
    cr_assert_eq(calibrate_write_yaml(&r, &c, f), 0, "%s", err_msg());
    fclose(f);
    cr_assert(strstr(text, "# group 0") != NULL);
    cr_assert_eq(cluster_read_yaml_string(&back, text, len, "calibrated.yaml"), 0, "%s\n%s",
                 err_msg(), text);
    cr_assert_eq(back.n_devices, 2);
    cr_assert_float_eq(back.comm.intercept_us, c.comm.intercept_us,
                       1e-6 * (1 + c.comm.intercept_us));
    cr_assert_float_eq(back.dev[1].peak_flops, c.dev[1].peak_flops, 1e-3 * c.dev[1].peak_flops);

    /* the calibrated cluster drives the simulator */
    cr_assert_eq(simtest_graph(&g, ops, 3), 0);
    for (int32_t v = 0; v < g.n_ops; v++) {
        dev[v] = g.given_device[v];
    }
    cr_assert_eq(sim_run(&g, &back, dev, &so, &sr), 0, "%s", err_msg());
    cr_assert(sr.step_us >= 18, "step %lld", (long long)sr.step_us);
    cr_assert_eq(sr.step_us,
                 18 + cluster_comm_us(&back, 0, 1, 100) + cluster_comm_us(&back, 1, 0, 20));
    cr_assert_eq(sim_check(&g, &back, dev, &sr), 0, "%s", err_msg());

    sim_result_release(&sr);
    graph_release(&g);
    cluster_release(&back);
    cluster_release(&c);
    free(text);
    calib_result_release(&r);
    bench_close(&b);
}

Test(bench_cpu, one_device_keeps_default_model)
{
    struct bench b;
    struct calib_options o;
    struct calib_result r;
    struct cluster c;

    tiny_options(&o);
    cr_assert_eq(bench_open(&b, "cpu", NULL, 1), 0);
    cr_assert_eq(calibrate_run(&b, &o, &r), 0, "%s", err_msg());
    cr_assert_eq(r.n_pairs, 0);
    cr_assert(!r.have_fit);
    cr_assert_eq(calibrate_to_cluster(&r, "one", NULL, &c), 0);
    cr_assert_float_eq(c.comm.slope_us_per_byte, CLUSTER_DEFAULT_SLOPE_US_PER_BYTE, 1e-15);
    cr_assert_float_eq(c.comm.intercept_us, CLUSTER_DEFAULT_INTERCEPT_US, 1e-12);
    cr_assert_null(c.pair);
    cluster_release(&c);
    calib_result_release(&r);
    bench_close(&b);
}

static void count_warning(const char *msg, void *ctx)
{
    (void)msg;
    (*(int *)ctx)++;
}

/* A poor fit is said aloud and recorded in the cluster's provenance; a sound one only recorded. */
Test(bench_cpu, calibration_fit_quality_warnings)
{
    struct bench b;
    struct calib_options o;
    struct calib_result r;
    struct cluster c;
    int warned = 0;

    tiny_options(&o);
    cr_assert_eq(bench_open(&b, "cpu", NULL, 2), 0);
    cr_assert_eq(calibrate_run(&b, &o, &r), 0, "%s", err_msg());
    cr_assert(r.have_fit && r.n_groups >= 1);
    err_set_warn_handler(count_warning, &warned);
    /* sound: every fit exact */
    r.all.r2 = 1;
    r.all.intercept = 5;
    for (int32_t g = 0; g < r.n_groups; g++) {
        r.group[g].fit.r2 = 1;
        r.group[g].fit.intercept = 5;
        for (int k = 0; k < CALIB_N_RANGES; k++) {
            r.group[g].err[k].worst_rel = 0.01;
        }
    }
    cr_assert_eq(calibrate_to_cluster(&r, "sound", "test", &c), 0, "%s", err_msg());
    cr_assert_eq(warned, 0);
    cr_assert(strstr(c.source, "fit quality: R² 1.00000 over all pairs, worst error"), "%s",
              c.source);
    cr_assert_null(strstr(c.source, "WARNING"), "%s", c.source);
    cluster_release(&c);
    /* poor: the CPU calibration the issue saw (R² 0.89, -178 µs, 4961 %) */
    r.all.r2 = 0.89;
    r.all.intercept = -178;
    r.group[0].fit.r2 = 0.89;
    r.group[0].err[0].n = 4;
    r.group[0].err[0].worst_rel = 49.61;
    cr_assert_eq(calibrate_to_cluster(&r, "poor", "test", &c), 0, "%s", err_msg());
    cr_assert_eq(warned, 2, "the pooled fit and group 0");
    cr_assert_float_eq(c.comm.intercept_us, 0, 1e-12, "clamped");
    cr_assert(strstr(c.source, "WARNING: all pairs: R² 0.8900 < 0.99; intercept -178.0 µs "
                               "clamped to 0; group 0: R² 0.8900 < 0.99; worst error 4961.0 %"),
              "%s", c.source);
    err_set_warn_handler(NULL, NULL);
    cluster_release(&c);
    calib_result_release(&r);
    bench_close(&b);
}

Test(bench_cpu, replay_program_accounts_memory_and_events)
{
    struct bench b;
    struct bench_program p;
    struct bench_replay_result r;
    struct bench_replay_opts opt = {1, 2, true};
    int32_t b0, b1, b2, b3;
    struct bench_cmd cmds[] = {
        {BENCH_ALLOC, 0, 0, -1, -1, 0, 0}, /* dev0 compute: 100 B */
        {BENCH_ALLOC, 0, 1, -1, -1, 0, 0}, /* + 50 B */
        {BENCH_SPIN, 0, -1, -1, -1, 7, 200},
        {BENCH_FREE, 0, 1, -1, -1, 0, 0},
        {BENCH_RECORD, 0, -1, -1, 0, 0, 0},
        {BENCH_WAIT, 4, -1, -1, 0, 0, 0}, /* dev1 copy stream */
        {BENCH_ALLOC, 4, 2, -1, -1, 0, 0},
        {BENCH_COPY, 4, 2, 0, -1, 9, 0},
        {BENCH_RECORD, 4, -1, -1, 1, 0, 0},
        {BENCH_WAIT, 3, -1, -1, 1, 0, 0}, /* dev1 compute */
        {BENCH_SPIN, 3, -1, -1, -1, 8, 100},
        {BENCH_RECORD, 3, -1, -1, 2, 0, 0},
        {BENCH_WAIT, 5, -1, -1, 2, 0, 0}, /* dev1 frees */
        {BENCH_FREE, 5, 2, -1, -1, 0, 0},
        {BENCH_WAIT, 2, -1, -1, 1, 0, 0}, /* dev0 frees */
        {BENCH_FREE, 2, 0, -1, -1, 0, 0},
    };

    memset(&p, 0, sizeof(p));
    p.n_devices = 2;
    p.n_events = 3;
    cr_assert_eq(bench_program_add_buf(&p, 0, 100, &b0), 0);
    cr_assert_eq(bench_program_add_buf(&p, 0, 50, &b1), 0);
    cr_assert_eq(bench_program_add_buf(&p, 1, 100, &b2), 0);
    cr_assert_eq(bench_program_add_buf(&p, 1, 1000, &b3), 0);
    cr_assert_eq(b3, 3);
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        cr_assert_eq(bench_program_add(&p, BENCH_PART_STEP, &cmds[i]), 0);
    }
    /* a persistent 1000 B on device 1 for the whole run */
    cr_assert_eq(bench_program_add(&p, BENCH_PART_SETUP,
                                   &(struct bench_cmd){BENCH_ALLOC, 3, 3, -1, -1, 0, 0}),
                 0);
    cr_assert_eq(bench_program_add(&p, BENCH_PART_TEARDOWN,
                                   &(struct bench_cmd){BENCH_FREE, 3, 3, -1, -1, 0, 0}),
                 0);
    cr_assert_eq(bench_open(&b, "cpu", NULL, 2), 0);
    cr_assert_eq(b.ops->replay(&b, &p, &opt, &r), 0, "%s", err_msg());
    cr_assert_eq(r.n_steps, 2);
    cr_assert_eq(r.peak_bytes[0], 150);
    cr_assert_eq(r.peak_bytes[1], 1100);
    for (int i = 0; i < 2; i++) {
        cr_assert(r.step_us[i] >= 300, "step %d took %g µs", i, r.step_us[i]);
    }
    /* 2 spins + 1 copy per measured step, in dependency order */
    cr_assert_eq(r.n_log, 6);
    for (int s = 0; s < 2; s++) {
        double spin7_end = -1, copy_end = -1, spin8_start = -1;

        for (size_t i = 0; i < r.n_log; i++) {
            const struct bench_log_entry *e = &r.log[i];

            if (e->step != s) {
                continue;
            }
            if (e->kind == BENCH_SPIN && e->id == 7) {
                spin7_end = e->end_us;
                cr_assert(e->end_us - e->start_us >= 200);
            } else if (e->kind == BENCH_COPY) {
                cr_assert_eq(e->id, 9);
                copy_end = e->end_us;
            } else if (e->kind == BENCH_SPIN && e->id == 8) {
                spin8_start = e->start_us;
            }
        }
        cr_assert(spin7_end >= 0 && copy_end >= spin7_end && spin8_start >= copy_end);
    }
    bench_replay_result_release(&r);
    bench_program_release(&p);
    bench_close(&b);
}

/* A backend without a working all-reduce (the CUDA backend on a machine
 * without NCCL): the calibration stands, the summary says why. */
static int allreduce_unsupported(struct bench *b, int64_t bytes, int32_t warmup, int32_t iters,
                                 double *us)
{
    (void)b, (void)bytes, (void)warmup, (void)iters, (void)us;
    return err_set(BAECHI_EUNSUPPORTED, "all-reduce: no libnccl found");
}

Test(bench_cpu, allreduce_unsupported_is_skipped_with_its_reason)
{
    struct bench b;
    struct bench_ops ops;
    struct calib_options o;
    struct calib_result r;
    char *text = NULL;
    size_t len = 0;
    FILE *f;

    tiny_options(&o);
    cr_assert_eq(bench_open(&b, "cpu", NULL, 2), 0);
    ops = *b.ops;
    ops.allreduce_us = allreduce_unsupported;
    b.ops = &ops;
    cr_assert_eq(calibrate_run(&b, &o, &r), 0, "%s", err_msg());
    cr_expect(r.have_fit);
    cr_expect_not(r.allreduce.have);
    cr_expect_null(r.allreduce.median_us);
    cr_expect_str_eq(r.allreduce.skipped, "all-reduce: no libnccl found");
    cr_assert_not_null(f = open_memstream(&text, &len));
    calibrate_print_summary(&r, f);
    fclose(f);
    cr_expect(strstr(text, "collectives: not measured: all-reduce: no libnccl found") != NULL, "%s",
              text);
    free(text);
    calib_result_release(&r);
    bench_close(&b);
}
