/*
 * annotate.h - per-op times from a profiler trace: a PyTorch profiler
 * Chrome trace (torch.profiler / Kineto `export_chrome_trace`, or the older
 * autograd profiler's) matched to the ops of a workload.
 *
 * Matching rules, in this order (docs/calibration.md):
 *   1. name, GPU annotation: an event of category `gpu_user_annotation` named
 *      exactly like the op (torch.profiler.record_function(op_name) on a
 *      GPU run) gives the op's time: its duration;
 *   2. name, host event: an event of category `cpu_op`, `user_annotation`,
 *      `python_function` or without category, named exactly like the op,
 *      gives the summed duration of the GPU events (`kernel`, `gpu_memcpy`,
 *      `gpu_memset`) whose "External id" is its own or that of a host event
 *      nested in it (same pid and tid); when none exist (a CPU run), its own
 *      duration;
 *   3. type order: the ops still unmatched of type T take, in file order,
 *      the `cpu_op` events named T or "aten::<t>" (t = T in lower case) in
 *      time order, when their number is a multiple k of the number of those
 *      ops (k profiled steps: op i takes events i, i + n, ..., i + (k-1)n);
 *      times as in rule 2.
 * An op matched by several events (several steps) takes their median.
 * Only complete events (ph "X") count.  Ops left unmatched keep their time
 * and are reported.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CALIBRATE_ANNOTATE_H
#define BAECHI_CALIBRATE_ANNOTATE_H

#include "core/workload.h"

#include <stdint.h>

enum annotate_rule { ANNOTATE_NONE = 0, ANNOTATE_GPU_NAME, ANNOTATE_HOST_NAME, ANNOTATE_TYPE };

struct annotate_report {
    int32_t n_ops;
    int32_t n_matched;
    int32_t by_rule[4];   /* indexed by enum annotate_rule */
    int32_t n_events;     /* complete events in the trace */
    int32_t n_gpu_events; /* kernels, copies, sets */
    int32_t *unmatched;   /* op indices, n_ops - n_matched of them */
    uint8_t *rule;        /* per op: enum annotate_rule */
};

void annotate_report_release(struct annotate_report *r);

/*
 * Reads the trace at `path` and sets time_us of the matched ops of `w`
 * (rounded to 0.01 µs).  Errors: BAECHI_EIO (unreadable), BAECHI_EPARSE (not
 * JSON: path:line:col; or no event list), BAECHI_ENOMEM.  rep is initialised
 * here.
 */
int annotate_profile(struct workload *w, const char *path, struct annotate_report *rep);

#endif
