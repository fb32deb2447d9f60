/*
 * test_costmodel.c - the roofline cost model and its presets.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/costmodel.h"

#include "sim/err.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

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
    cr_assert_eq(n, 6);
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
    struct cluster_device d = {name, kind, 1, 1.0, NAN, NAN};
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
    cr_assert_eq(workload_add_op(&w, "a", "MatMul", &a), 0);
    w.op[a].time_us = 7;
    w.op[a].flops = 15.7e12 * 0.6 / 1e3; /* 1 ms by the model */
    cr_assert_eq(workload_add_op(&w, "b", "MatMul", &b), 0);
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
