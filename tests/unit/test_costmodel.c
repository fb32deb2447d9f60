/*
 * test_costmodel.c - the roofline cost model and its presets.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/costmodel.h"

#include "core/err.h"
#include "core/strbuf.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

Test(costmodel, presets_have_datasheet_peaks)
{
    struct costmodel m;
    const char *const *names = costmodel_preset_names();
    int n = 0;

    for (; names[n]; n++) {
        cr_assert_eq(costmodel_preset(&m, names[n]), 0, "%s", names[n]);
        cr_assert(m.datasheet);
        cr_assert(m.peak_flops > 1e12 && m.mem_bw_bytes_per_s > 1e11, "%s", names[n]);
    }
    cr_assert_eq(n, 7);
    cr_assert_eq(costmodel_preset(&m, "V100"), 0);
    cr_assert_float_eq(m.peak_flops, 15.7e12, 1);
    cr_assert_float_eq(m.mem_bw_bytes_per_s, 900e9, 1);
    cr_assert_eq(costmodel_preset(&m, "h200"), 0);
    cr_assert_float_eq(m.mem_bw_bytes_per_s, 4.8e12, 1);
}

Test(costmodel, unknown_kind_is_an_error)
{
    struct costmodel m;

    cr_assert_eq(costmodel_preset(&m, "tpu9"), BAECHI_EINVAL);
    cr_assert(strstr(err_msg(), "tpu9") != NULL, "%s", err_msg());
}

Test(costmodel, roofline)
{
    struct costmodel m;

    costmodel_preset(&m, "v100");
    /* compute bound: 1 s of work at 60 % of the peak */
    cr_assert_float_eq(costmodel_op_us(&m, 15.7e12 * 0.6, 1e3), 1e6 + 5.0, 1e-3);
    /* memory bound: 0.72 GB at 80 % of 900 GB/s = 1 ms */
    cr_assert_float_eq(costmodel_op_us(&m, 1e3, 0.72e9), 1000.0 + 5.0, 1e-6);
    /* only one of the two known */
    cr_assert_float_eq(costmodel_op_us(&m, NAN, 0.72e9), 1005.0, 1e-6);
    cr_assert_float_eq(costmodel_op_us(&m, 0, 0), 5.0, 1e-9);
    cr_assert(isnan(costmodel_op_us(&m, NAN, NAN)));
}

Test(costmodel, device_numbers_override_the_preset)
{
    char name[] = "gpu0", kind[] = "a100";
    struct cluster_device d = {name, kind, 1, 1.0, NAN, NAN, NAN};
    struct costmodel m;

    cr_assert_eq(costmodel_from_device(&m, &d), 0);
    cr_assert(m.datasheet);
    cr_assert_float_eq(m.peak_flops, 19.5e12, 1);
    d.peak_flops = 12e12;
    cr_assert_eq(costmodel_from_device(&m, &d), 0);
    cr_assert(!m.datasheet);
    cr_assert_float_eq(m.peak_flops, 12e12, 1);
    cr_assert_float_eq(m.mem_bw_bytes_per_s, 2039e9, 1);
    d.kind = NULL;
    cr_assert_eq(costmodel_from_device(&m, &d), BAECHI_EINVAL);
    cr_assert(strstr(err_msg(), "gpu0") != NULL);
    d.mem_bw_bytes_per_s = 1e12;
    cr_assert_eq(costmodel_from_device(&m, &d), 0);
    cr_assert_float_eq(m.launch_us, COSTMODEL_DEFAULT_LAUNCH_US, 1e-12);
    d.launch_us = 7.5; /* measured by calibrate */
    cr_assert_eq(costmodel_from_device(&m, &d), 0);
    cr_assert_float_eq(m.launch_us, 7.5, 1e-12);
}

/* --device: a preset, or a (calibrated) cluster file with an optional :N */
Test(costmodel, from_spec_preset_or_cluster_device)
{
    char path[] = "/tmp/baechi-costmodel-XXXXXX";
    struct strbuf kind = STRBUF_INIT;
    const char *yaml = "format: 1\nname: cal\ndevices:\n"
                       "  - {name: gpu0, kind: h100, memory: 80GiB}\n"
                       "  - {name: gpu1, memory: 80GiB, peak_flops: 50e12, memory_bandwidth: 3e12,"
                       " launch_us: 4.25}\n"
                       "comm: {slope_us_per_byte: 0.001, intercept_us: 10}\n";
    char spec[96];
    struct costmodel m;
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");

    cr_assert(f != NULL);
    fputs(yaml, f);
    fclose(f);

    cr_assert_eq(costmodel_from_spec(&m, "v100", &kind), 0);
    cr_assert_str_eq(m.kind, "v100");
    cr_assert(m.datasheet);

    /* device 0 (default): its kind's preset, nothing measured */
    cr_assert_eq(costmodel_from_spec(&m, path, &kind), 0);
    cr_assert_str_eq(m.kind, "h100");
    cr_assert(m.datasheet);
    cr_assert_float_eq(m.peak_flops, 67e12, 1);

    /* device 1: the measured numbers */
    snprintf(spec, sizeof(spec), "%s:1", path);
    cr_assert_eq(costmodel_from_spec(&m, spec, &kind), 0);
    cr_assert_str_eq(m.kind, "gpu1");
    cr_assert(m.kind == kind.buf);
    cr_assert(!m.datasheet);
    cr_assert_float_eq(m.peak_flops, 50e12, 1);
    cr_assert_float_eq(m.mem_bw_bytes_per_s, 3e12, 1);
    cr_assert_float_eq(m.launch_us, 4.25, 1e-12);

    snprintf(spec, sizeof(spec), "%s:2", path);
    cr_assert_eq(costmodel_from_spec(&m, spec, &kind), BAECHI_EINVAL);
    cr_assert(strstr(err_msg(), "has 2 devices (0..1)") != NULL, "%s", err_msg());
    cr_assert_eq(costmodel_from_spec(&m, "k80", &kind), BAECHI_EINVAL);
    cr_assert(strstr(err_msg(), "unknown device class 'k80'") != NULL, "%s", err_msg());
    cr_assert_neq(costmodel_from_spec(&m, "/nonexistent/c.yaml", &kind), 0);
    cr_assert(strstr(err_msg(), "not a cost-model preset") != NULL, "%s", err_msg());
    /* a cluster preset works too */
    cr_assert_eq(costmodel_from_spec(&m, "dgx-h100-8:7", &kind), 0);
    cr_assert(strncmp(m.kind, "h100", 4) == 0, "%s", m.kind);
    strbuf_release(&kind);
    unlink(path);
}

/* A cluster device's kind reaches m->kind whole at any length (issue 34
 * item 2: a char[128] cut it at 127 bytes, and with it the workload's name). */
Test(costmodel, from_spec_long_kind_whole)
{
    char path[] = "/tmp/baechi-costmodel-XXXXXX", long_kind[301];
    struct strbuf kind = STRBUF_INIT;
    struct costmodel m;
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");

    cr_assert(f != NULL);
    memset(long_kind, 'k', sizeof(long_kind) - 1);
    long_kind[sizeof(long_kind) - 1] = '\0';
    fprintf(f,
            "format: 1\nname: cal\ndevices:\n  - {name: g, kind: %s, memory: 80GiB, "
            "peak_flops: 50e12, memory_bandwidth: 3e12}\n"
            "comm: {slope_us_per_byte: 0.001, intercept_us: 10}\n",
            long_kind);
    fclose(f);
    cr_assert_eq(costmodel_from_spec(&m, path, &kind), 0, "%s", err_msg());
    cr_assert_str_eq(m.kind, long_kind);
    cr_assert_eq(strlen(m.kind), 300);
    strbuf_release(&kind);
    unlink(path);
}

Test(costmodel, bad_parameters_are_rejected)
{
    struct costmodel m;

    costmodel_preset(&m, "p100");
    m.flops_eff = 1.5;
    cr_assert_eq(costmodel_check(&m), BAECHI_EINVAL);
    costmodel_preset(&m, "p100");
    m.launch_us = -1;
    cr_assert_eq(costmodel_check(&m), BAECHI_EINVAL);
}

Test(costmodel, measured_time_wins_unless_override)
{
    struct workload w;
    struct costmodel m;
    int32_t a, b, c, n;

    workload_init(&w);
    costmodel_preset(&m, "v100");
    cr_assert_eq(workload_add_op(&w, "a", "Add", &a), 0);
    w.op[a].time_us = 7;
    w.op[a].flops = 15.7e12 * 0.6 / 1e3; /* 1 ms by the model */
    cr_assert_eq(workload_add_op(&w, "b", "Add", &b), 0);
    w.op[b].flops = 15.7e12 * 0.6 / 1e3;
    cr_assert_eq(workload_add_op(&w, "c", "NoOp", &c), 0);
    cr_assert_eq(costmodel_apply(&m, &w, 0, &n), 0);
    cr_assert_eq(n, 1);
    cr_assert_float_eq(w.op[a].time_us, 7.0, 1e-9);
    cr_assert_float_eq(w.op[b].time_us, 1005.0, 1e-6);
    cr_assert(isnan(w.op[c].time_us));
    cr_assert_str_eq(w.reference_device, "v100");
    cr_assert_eq(costmodel_apply(&m, &w, COSTMODEL_OVERRIDE, &n), 0);
    cr_assert_eq(n, 2);
    cr_assert_float_eq(w.op[a].time_us, 1005.0, 1e-6);
    workload_release(&w);
}

Test(costmodel, one_table_for_presets_and_cluster_kinds)
{
    struct costmodel p, c;
    char name[] = "g", kind[] = "h100-sxm5-80gb";
    struct cluster_device d = {
        .name = name, .kind = kind, .peak_flops = NAN, .mem_bw_bytes_per_s = NAN, .launch_us = NAN};

    cr_assert_eq(costmodel_preset(&p, "h100"), 0);
    cr_assert_eq(costmodel_from_device(&c, &d), 0, "%s", err_msg());
    cr_assert(c.datasheet);
    for (int t = 0; t < DEVICES_N_DTYPES; t++) {
        cr_assert_eq(p.gemm_flops[t], c.gemm_flops[t]);
    }
    cr_assert_float_eq(p.gemm_flops[DEVICES_FP16], 989.4e12, 1);
    cr_assert_float_eq(p.gemm_flops[DEVICES_TF32], 494.7e12, 1);
    cr_assert_float_eq(p.gemm_flops[DEVICES_FP8], 1978.9e12, 1);
    cr_assert_eq(p.mem_bw_bytes_per_s, c.mem_bw_bytes_per_s);
    /* the longest stem wins: a100-pcie-40gb is not the SXM a100 */
    cr_assert_str_eq(devices_find("a100-pcie-40gb")->name, "a100-pcie");
    cr_assert_str_eq(devices_find("A100-SXM4-80GB")->name, "a100");
    cr_assert_null(devices_find("h1000"));
    cr_assert_eq(costmodel_preset(&p, "h100-sxm5-80gb"), BAECHI_EINVAL); /* presets: exact */
}

Test(costmodel, gemm_rate_per_dtype_and_size)
{
    struct costmodel m;
    double big = 1e15, n_half;

    cr_assert_eq(costmodel_preset(&m, "a100"), 0);
    cr_assert(costmodel_is_gemm("MatMul") && costmodel_is_gemm("MatMulGrad"));
    cr_assert(costmodel_is_gemm("Conv2DGrad") && costmodel_is_gemm("BatchMatMul"));
    cr_assert(!costmodel_is_gemm("Add") && !costmodel_is_gemm("SoftmaxGrad"));
    cr_assert_eq(costmodel_dtype(&m, 2), DEVICES_FP16);
    cr_assert_eq(costmodel_dtype(&m, 4), DEVICES_FP32);
    cr_assert_eq(costmodel_dtype(&m, 1), DEVICES_FP16); /* no fp8 on A100 */
    /* a large fp16 GEMM: at 0.8 of 312 TFLOP/s plus the half-size term */
    n_half = 312e12 * COSTMODEL_DEFAULT_GEMM_HALF_US * 1e-6;
    cr_assert_float_eq(costmodel_gemm_us(&m, DEVICES_FP16, big, 0),
                       (big + n_half) / (312e12 * 0.8) * 1e6 + 5.0, 1e-6);
    /* at n = n_half the efficiency is half of its maximum */
    cr_assert_float_eq(costmodel_gemm_us(&m, DEVICES_FP16, n_half, 0) - 5.0,
                       n_half / (312e12 * 0.4) * 1e6, 1e-9);
    /* fp32 on the CUDA cores, tf32 on the tensor cores */
    cr_assert_float_eq(costmodel_gemm_us(&m, DEVICES_FP32, big, 0),
                       (big + 19.5e12 * 4e-6) / (19.5e12 * 0.6) * 1e6 + 5.0, 1e-3);
    cr_assert_float_eq(costmodel_gemm_us(&m, DEVICES_TF32, big, 0),
                       (big + 156e12 * 4e-6) / (156e12 * 0.8) * 1e6 + 5.0, 1e-3);
    /* memory-bound: the bandwidth term */
    cr_assert_float_eq(costmodel_gemm_us(&m, DEVICES_FP16, 1e6, 2039e9 * 0.8 * 1e-3), 1005.0, 1e-6);
}

Test(costmodel, dtype_suffix)
{
    struct costmodel m;
    struct strbuf kind = STRBUF_INIT;

    cr_assert_eq(costmodel_from_spec(&m, "h100:tf32", &kind), 0, "%s", err_msg());
    cr_assert_eq(m.dtype, DEVICES_TF32);
    cr_assert_eq(costmodel_dtype(&m, 2), DEVICES_TF32);
    cr_assert_eq(costmodel_from_spec(&m, "h100", &kind), 0);
    cr_assert_eq(m.dtype, -1);
    cr_assert_eq(costmodel_from_spec(&m, "h100:fp12", &kind), BAECHI_EINVAL);
    cr_assert(strstr(err_msg(), "unknown data type 'fp12'"), "%s", err_msg());
    cr_assert_eq(costmodel_from_spec(&m, "v100:bf16", &kind), BAECHI_EINVAL);
    cr_assert(strstr(err_msg(), "no bf16"), "%s", err_msg());
    cr_assert_eq(costmodel_from_spec(&m, "dgx-h100-8:3:fp8", &kind), 0, "%s", err_msg());
    cr_assert_eq(m.dtype, DEVICES_FP8);
    cr_assert_float_eq(m.gemm_flops[DEVICES_FP8], 1978.9e12, 1);
    strbuf_release(&kind);
}
