/*
 * sweep_internal.h - what the sweep's files share and nobody else uses.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_RESULTS_SWEEP_INTERNAL_H
#define BAECHI_RESULTS_SWEEP_INTERNAL_H

#include "results/sweep.h"
#include "workloads/gen_params.h"

/*
 * Parses gen:MODEL?k=v&... or import:FILE?k=v&... in `buf`, a writable copy
 * of the spec that is cut into pieces (g's strings point into it; an
 * import's file as written, to sweep_resolve()).  NULL when fine, else why
 * (static text, or this thread's until its next call).
 */
const char *sweep_gen_parse(char *buf, struct gen_spec *g);

/* Whether a workload spec is gen:... or import:... rather than a file. */
bool sweep_is_generated(const char *spec);

/* Refuses a grid of more than max_runs runs (sweep_limit.c), before anything
 * is expanded: the message names the file, the product and the cap. */
int sweep_check_runs(const struct sweep_spec *s, int64_t max_runs);

/* A workload or cluster path relative to the sweep file (malloc'ed; NULL on ENOMEM). */
char *sweep_resolve(const struct sweep_spec *s, const char *p);

/* Run i's row for model m recorded as an error with message why (r released by the caller). */
int sweep_error_run(const struct sweep *sw, int32_t i, enum sim_model m, const char *why,
                    struct db_run *r);

#endif
