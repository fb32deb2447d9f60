/*
 * validate_internal.h - what the checks of `baechi validate` share: adding
 * rows, GPT workloads generated and parallelised in process, and one timed
 * simulation with the saved-activation bytes of device 0 (validate.c); the
 * checks themselves are in validate_memory.c (ZeRO, Megatron parameters,
 * FLOPs, activations) and validate_sched.c (pipeline schedules, nccl-tests
 * bus bandwidth).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_RESULTS_VALIDATE_INTERNAL_H
#define BAECHI_RESULTS_VALIDATE_INTERNAL_H

#include "core/cluster.h"
#include "core/pipeline.h"
#include "core/workload.h"
#include "results/validate.h"
#include "workloads/gen.h"
#include "workloads/parallel.h"

#include <stdbool.h>
#include <stdint.h>

/* The cost model the checks generate with, and the cluster they simulate on. */
#define VALIDATE_DEVICE  "h100"
#define VALIDATE_CLUSTER "dgx-h100-8"

/*
 * Appends a row with the default tolerance; suite NAN = not modelled (then
 * `note` says what is missing).  case_name, source, unit and note are
 * copied (truncated to their fields).  0 or BAECHI_ENOMEM.
 */
int validate_add(struct validate_rows *out, const char *check, const char *case_name,
                 const char *source, double reference, double suite, const char *unit,
                 const char *note);

/*
 * GPT options for the checks: l layers, width h, a heads, sequence s,
 * vocabulary v, batch b; fp16 activations and parameters (2 bytes), Adam,
 * times from VALIDATE_DEVICE's cost model.
 */
void validate_gpt_opts(struct gen_opts *o, int l, int h, int a, int s, int v, int b);

/* gen_model("gpt", g), then parallel_apply(p) when p is active (p may be
 * NULL); `out` initialised here.  0 or the generator's / transform's error. */
int validate_gpt(struct workload *out, const struct gen_opts *g, const struct parallel_opts *p);

/* What one timed simulation of a workload gave. */
#define VALIDATE_SIM_DEVICES 8

struct validate_sim {
    int64_t step_us;
    int64_t busy_us[VALIDATE_SIM_DEVICES];   /* compute run on each device */
    int64_t update_us[VALIDATE_SIM_DEVICES]; /* of which optimizer updates */
    int64_t saved0_bytes; /* the most bytes of the saved kind device 0 held at once */
};

/*
 * Simulates w (timed model) on cluster c (NULL: VALIDATE_CLUSTER; at least VALIDATE_SIM_DEVICES
 * GPUs) with the workload's given devices (an op without one on device 0), under pipeline schedule
 * pl (NULL: the workload's).  0, or the error of graph_build, cluster_load or sim_run.
 */
int validate_simulate(const struct workload *w, const struct cluster *c,
                      const struct pipeline_opts *pl, struct validate_sim *out);

/* The checks (validate.c's registry). */
int validate_check_zero(struct validate_rows *out);
int validate_check_megatron_params(struct validate_rows *out);
int validate_check_flops(struct validate_rows *out);
int validate_check_activations(struct validate_rows *out);
int validate_check_pipeline(struct validate_rows *out);
int validate_check_nccl(struct validate_rows *out);

#endif
