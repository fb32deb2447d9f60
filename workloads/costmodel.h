/*
 * costmodel.h - the time of an op on a device from its FLOPs and bytes moved
 * (a roofline with a launch overhead), per device class.
 *
 *     time_us = max(flops / (peak_flops * flops_eff),
 *                   bytes / (mem_bw_bytes_per_s * bw_eff)) * 1e6 + launch_us
 *
 * An op with neither flops nor bytes gets no time from the model.  Presets
 * give datasheet peaks (FP32, non-tensor-core, boost clock) for the paper's
 * GPUs (RTX 2080, P100, V100) and current ones (A100, H100, H200); their
 * efficiencies and launch overhead are assumptions, marked as such, until
 * calibration (calibrate/) replaces them through the cluster file
 * (`peak_flops`, `mem_bw` of a device override the preset of its `kind`).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_WORKLOADS_COSTMODEL_H
#define BAECHI_WORKLOADS_COSTMODEL_H

#include "core/cluster.h"
#include "core/workload.h"

#include <stdbool.h>
#include <stdint.h>

struct costmodel {
    const char *kind;          /* device class ("v100"); static or owned by a cluster */
    double peak_flops;         /* FLOP/s */
    double mem_bw_bytes_per_s; /* bytes/s */
    double flops_eff;          /* achieved fraction of the peak, 0 < eff <= 1 */
    double bw_eff;             /* achieved fraction of the bandwidth, 0 < eff <= 1 */
    double launch_us;          /* fixed overhead per op (kernel launch), µs */
    bool datasheet;            /* peaks are datasheet numbers, not measured */
};

/* Defaults of the presets (assumed, not measured). */
#define COSTMODEL_DEFAULT_FLOPS_EFF 0.6
#define COSTMODEL_DEFAULT_BW_EFF    0.8
#define COSTMODEL_DEFAULT_LAUNCH_US 5.0

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
 * its kind (costmodel_from_device).  m->kind then points into kind_buf.
 * Errors name the spec: an unknown preset, or the cluster's own error.
 */
int costmodel_from_spec(struct costmodel *m, const char *spec, char *kind_buf, size_t kind_len);

/* Checks that every parameter is finite and in range (BAECHI_EINVAL otherwise). */
int costmodel_check(const struct costmodel *m);

/*
 * Time of one op in µs.  NAN flops or bytes count as 0; returns NAN when both
 * are unknown (the model has nothing to say).
 */
double costmodel_op_us(const struct costmodel *m, double flops, double bytes);

enum costmodel_flags {
    COSTMODEL_OVERRIDE = 1 << 0, /* replace measured time_us too */
};

/*
 * Sets time_us of the ops of `w` from the model: ops that already have a
 * measured time_us keep it unless COSTMODEL_OVERRIDE (measured wins); ops
 * without flops and bytes are left alone.  Times are rounded to 0.01 µs.
 * Sets w->reference_device to m->kind when it is unset and an op changed,
 * and then the top-level `x-times: {source: roofline | calibrated, device:
 * <m->kind>}` (WORKLOAD_TIMES_KEY; replaced when present).
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
