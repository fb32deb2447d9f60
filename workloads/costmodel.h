/*
 * costmodel.h - the time of an op on a device from its FLOPs and bytes moved:
 * a roofline per op, at the rate of the op's data type, with an efficiency
 * that falls for small matrix products, plus a launch overhead.
 *
 *   GEMM-like ops (MatMul, BatchMatMul, Gemm, Conv, LSTM/GRU and their
 *   gradients), n = the op's FLOPs, R = the device's rate for the data type:
 *     eff(n)  = gemm_eff_max * n / (n + R * gemm_half_us)
 *     time_us = max(n / (R * eff(n)), bytes / (bw * bw_eff)) * 1e6 + launch_us
 *   every other op, at the FP32 rate of the CUDA cores:
 *     time_us = max(flops / (peak_flops * flops_eff), bytes / (bw * bw_eff))
 *               * 1e6 + launch_us
 *
 * The rates come from the one device table (devices.h, docs/devices.md):
 * FP32, TF32, FP16/BF16, FP8 per kind.  The data type of a GEMM-like op is
 * the one the spec names (`--device h100:fp16`), else that of the ops'
 * element size (2 bytes fp16, 1 fp8, 4 fp32; TF32 only when named).  A
 * measured peak_flops (a calibrated cluster file) replaces every rate and
 * the size curve: then the model is the flat roofline it was before.  An op
 * with neither flops nor bytes gets no time from the model.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_WORKLOADS_COSTMODEL_H
#define BAECHI_WORKLOADS_COSTMODEL_H

#include "core/cluster.h"
#include "core/workload.h"
#include "workloads/devices.h"

#include <stdbool.h>
#include <stdint.h>

struct costmodel {
    const char *kind;  /* device class ("v100"); static or owned by a cluster */
    double peak_flops; /* FP32 FLOP/s of the CUDA cores: ops that are not GEMM-like */
    double gemm_flops[DEVICES_N_DTYPES]; /* GEMM-like ops' peak per data type; 0 = none */
    double mem_bw_bytes_per_s;           /* bytes/s */
    double flops_eff;                    /* achieved fraction of peak_flops, 0 < eff <= 1 */
    double bw_eff;                       /* achieved fraction of the bandwidth, 0 < eff <= 1 */
    double gemm_eff_max;                 /* GEMM efficiency of a large op on the tensor cores */
    double gemm_simt_eff_max;            /* the same on the CUDA cores (FP32, P100's FP16) */
    double gemm_half_us; /* n_half = rate x gemm_half_us: the op at half of eff_max */
    double launch_us;    /* fixed overhead per op (kernel launch), µs */
    int tensor_cores;    /* 1: non-FP32 GEMM-like ops run on tensor cores */
    int dtype;           /* enum devices_dtype the spec named; -1: from elem_bytes */
    int elem_bytes;      /* the ops' element size when dtype is -1; 0: the workload's
                            x-times dtype, else 4 (fp32) */
    bool datasheet;      /* peaks are datasheet numbers, not measured */
};

/*
 * Defaults of the presets.  FLOPS_EFF and BW_EFF are assumptions kept from
 * the first cost model: element-wise kernels reach about 80 % of the HBM
 * bandwidth (STREAM-like copies), and 60 % of the FP32 peak is also what
 * cuBLAS SGEMM reaches on a GPU whose FP32 peak counts dual-issue units (23.2
 * of 38.7 TFLOP/s on an RTX A6000, S. Boehm, "How to Optimize a CUDA Matmul
 * Kernel for cuBLAS-like Performance", 2022): GEMM_SIMT_EFF.  GEMM_EFF: large
 * fp16/bf16 GEMMs reach 75-85 % of the dense tensor-core peak in cuBLAS
 * (NVIDIA, Matrix Multiplication Background User's Guide, DU-09799-001,
 * section 2.3: about 250-270 of A100's 312 TFLOP/s at M, N, K >= 4096);
 * GEMM_HALF_US: a GEMM the unit would finish in 4 µs at peak runs at half
 * of that (the same guide, chapter 3: tile and wave quantisation leave SMs
 * idle in small GEMMs; 1024^3 fp16 reaches about half of the large-GEMM
 * rate on A100).  docs/devices.md shows the curve.
 */
#define COSTMODEL_DEFAULT_FLOPS_EFF     0.6
#define COSTMODEL_DEFAULT_BW_EFF        0.8
#define COSTMODEL_DEFAULT_GEMM_EFF      0.8
#define COSTMODEL_DEFAULT_GEMM_SIMT_EFF 0.6
#define COSTMODEL_DEFAULT_GEMM_HALF_US  4.0
#define COSTMODEL_DEFAULT_LAUNCH_US     5.0

/* NULL-terminated list of preset names ("rtx2080", "p100", ...). */
const char *const *costmodel_preset_names(void);

/*
 * Fills *m with the preset for device class `kind` (case-insensitive).
 * Unknown kind: BAECHI_EINVAL naming it and the known ones.
 */
int costmodel_preset(struct costmodel *m, const char *kind);

/*
 * The model of cluster device `d`: the preset of d->kind when there is one,
 * with d->peak_flops and d->mem_bw_bytes_per_s (when not NAN) replacing the
 * preset's peaks (then `datasheet` is false) and d->launch_us its launch
 * overhead.  A device without a known kind
 * needs both numbers; otherwise BAECHI_EINVAL naming the device.
 */
int costmodel_from_device(struct costmodel *m, const struct cluster_device *d);

/*
 * The model a `--device` option names: a preset kind ("v100"), else a
 * cluster (a file, e.g. one written by `baechi calibrate`, or a cluster
 * preset name) with an optional ":N" for its device N (default 0): its
 * measured peak_flops, memory_bandwidth and launch_us replace the preset of
 * its kind (costmodel_from_device).  m->kind then points into kind, the
 * caller's (initialised) strbuf, which holds the device's kind whole at any
 * length (a char[128] cut it: issue 34 item 2); m->kind is valid until the
 * caller changes or releases kind.
 * A last ":<dtype>" (fp32, tf32, fp16, bf16, fp8) sets m->dtype:
 * "h100:fp16", "dgx-h100-8:0:tf32".  Errors name the spec: an unknown
 * preset, the cluster's own error, a suffix that is neither a device number
 * nor a data type, a data type the kind has no unit for ("v100:bf16").
 */
struct strbuf;
int costmodel_from_spec(struct costmodel *m, const char *spec, struct strbuf *kind);

/*
 * The data type the GEMM-like ops of a workload whose elements are
 * `elem_bytes` wide run in on m: m->dtype when set, else by the size (1 fp8,
 * 2 fp16, else fp32), falling back to fp16 and then fp32 where the device
 * has no such unit.
 */
enum devices_dtype costmodel_dtype(const struct costmodel *m, int elem_bytes);

/* True when ops of `type` are GEMM-like (matrix products, convolutions,
 * recurrent cells, and their "...Grad" gradients; workloads/ops.h). */
bool costmodel_is_gemm(const char *type);

/*
 * Time of one GEMM-like op of data type t in µs (the formula above).  NAN
 * flops or bytes count as 0; NAN when both are unknown.
 */
double costmodel_gemm_us(const struct costmodel *m, enum devices_dtype t, double flops,
                         double bytes);

/* Checks that every parameter is finite and in range (BAECHI_EINVAL otherwise). */
int costmodel_check(const struct costmodel *m);

/*
 * Time of one op that is not GEMM-like in µs.  NAN flops or bytes count as
 * 0; returns NAN when both are unknown (the model has nothing to say).
 */
double costmodel_op_us(const struct costmodel *m, double flops, double bytes);

enum costmodel_flags {
    COSTMODEL_OVERRIDE = 1 << 0, /* replace measured time_us too */
};

/*
 * Sets time_us of the ops of `w` from the model: ops that already have a
 * measured time_us keep it unless COSTMODEL_OVERRIDE (measured wins); ops
 * without flops and bytes are left alone.  Times are rounded to 0.01 µs.
 * GEMM-like ops run in costmodel_dtype(m, elem) where elem is m->elem_bytes,
 * else the size the `dtype` of w's x-times key says, else 4.
 * Sets w->reference_device to m->kind when it is unset and an op changed,
 * and then the top-level `x-times: {source: roofline | calibrated, device:
 * <m->kind>, dtype: <GEMM data type>}` (WORKLOAD_TIMES_KEY; replaced when
 * present).
 * *n_set (may be NULL) receives the number of ops whose time was set.
 */
int costmodel_apply(const struct costmodel *m, struct workload *w, unsigned flags, int32_t *n_set);

/*
 * Warns in one line (err_warn) when the op times of `w` were made for
 * another device than `kind` (a cluster's device kind; NULL: no check): the
 * device of its x-times key, else its reference_device, compared by the
 * part before the first '-' ("h100" matches "h100-sxm5-80gb").  `cluster`
 * names the cluster in the message.  place, run, sim, replay and sweeps call it.
 */
void costmodel_warn_times(const struct workload *w, const char *cluster, const char *kind);

#endif
