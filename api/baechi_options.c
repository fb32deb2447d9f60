/*
 * baechi_options.c - the C API's options (include/baechi.h):
 * baechi_options_set by name and text, checked as the command line checks
 * them, and the pipeline schedule they override (api_pipeline_apply).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "include/baechi.h"
#include "api/internal.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/cluster.h"
#include "core/err.h"
#include "core/yio.h"
#include "core/file_out.h"
#include "core/limits.h"
#include "core/pipeline.h"
#include "core/graph.h"
#include "core/placement.h"
#include "core/strbuf.h"
#include "core/strdist.h"
#include "core/version.h"
#include "core/workload.h"
#include "core/workload_yaml.h"
#include "placers/placer.h"
#include "results/db.h"
#include "results/sweep.h"
#include "sim/sim.h"
#include "sim/trace.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ options */

void api_options_init(struct baechi_options *o)
{
    memset(o, 0, sizeof(*o));
    placer_options_init(&o->opt);
    pipeline_opts_init(&o->pipe);
    o->pipe.virtual_stages = 0; /* 0: not given */
}

int api_pipeline_apply(const struct baechi_options *o, const struct graph *g,
                       struct pipeline_opts *pipe)
{
    struct pipeline_opts p = *pipe;
    int rc;

    if (!g->micro_batch || (!o->have_schedule && o->pipe.virtual_stages == 0)) {
        return 0;
    }
    if (o->have_schedule) {
        p.schedule = o->pipe.schedule;
        p.virtual_stages = 1;
    }
    if (o->pipe.virtual_stages > 0) {
        p.virtual_stages = o->pipe.virtual_stages;
    }
    if ((rc = pipeline_opts_check(&p)) != 0) {
        return rc;
    }
    *pipe = p;
    return 0;
}

struct baechi_options *baechi_options_new(void)
{
    struct baechi_options *o = mem_alloc(sizeof(*o));

    if (!o) {
        err_set(BAECHI_ENOMEM, "out of memory");
        return NULL;
    }
    api_options_init(o);
    return o;
}

void baechi_options_free(struct baechi_options *o)
{
    free(o);
}

static int parse_double(const char *name, const char *s, double lo, double hi, double *out)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v) || v < lo || v > hi) {
        return err_set(BAECHI_EINVAL, "option '%s': '%s' is not a number in [%g, %g]", name, s, lo,
                       hi);
    }
    *out = v;
    return 0;
}

static int parse_long(const char *name, const char *s, long lo, long hi, long *out)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi) {
        return err_set(BAECHI_EINVAL, "option '%s': '%s' is not an integer in [%ld, %ld]", name, s,
                       lo, hi);
    }
    *out = v;
    return 0;
}

static int parse_bool(const char *name, const char *s, bool *out)
{
    if (yio_parse_bool(s, out) == 0) { /* YAML's booleans, as files and sweeps */
        return 0;
    }
    return err_set(BAECHI_EINVAL, "option '%s': '%s' is not a boolean (true or false)", name, s);
}

int baechi_options_set(struct baechi_options *o, const char *name, const char *value)
{
    struct baechi_options n = *o;
    char key[64];
    double f;
    long k;
    int rc = 0;

    if (!name || !value) {
        return err_set(BAECHI_EINVAL, "option name and value are required");
    }
    if (strlen(name) >= sizeof(key)) {
        return err_set(BAECHI_EINVAL, "unknown option '%.60s...'", name);
    }
    for (size_t i = 0;; i++) {
        key[i] = name[i] == '-' ? '_' : name[i];
        if (!name[i]) {
            break;
        }
    }
    /* The ranges of the command line (core/limits.h, docs/limits.md). */
    if (strcmp(key, "memory_fraction") == 0) {
        rc = parse_double(name, value, LIMIT_FRACTION_MIN, LIMIT_FRACTION_MAX, &f);
        n.opt.memory_fraction = f;
    } else if (strcmp(key, "comm_factor") == 0) {
        rc = parse_double(name, value, 0, LIMIT_FACTOR_MAX, &f);
        n.opt.comm_factor = f;
    } else if (strcmp(key, "compute_factor") == 0) {
        rc = parse_double(name, value, LIMIT_FRACTION_MIN, LIMIT_FACTOR_MAX, &f);
        n.opt.compute_factor = f;
    } else if (strcmp(key, "devices") == 0) {
        rc = parse_long(name, value, 1, LIMIT_MAX_DEVICES, &k);
        n.opt.n_devices = (int32_t)k;
    } else if (strcmp(key, "grouper") == 0) {
        rc = placer_grouper_parse(value, &n.opt.grouper);
    } else if (strcmp(key, "fusion") == 0) {
        rc = parse_bool(name, value, &n.opt.fusion);
    } else if (strcmp(key, "fusion_check_disjoint") == 0) {
        rc = parse_bool(name, value, &n.opt.fusion_check_disjoint);
        n.opt.fusion = n.opt.fusion || n.opt.fusion_check_disjoint;
    } else if (strcmp(key, "threshold") == 0) {
        rc = parse_double(name, value, LIMIT_THRESHOLD_MIN, LIMIT_THRESHOLD_MAX, &f);
        n.opt.sct_threshold = f;
    } else if (strcmp(key, "lp_time_limit") == 0) {
        rc = parse_double(name, value, 0, LIMIT_LP_TIME_MAX_S, &f);
        n.opt.lp_time_limit_s = f;
    } else if (strcmp(key, "lp_iteration_limit") == 0) {
        rc = parse_long(name, value, 0, (long)LIMIT_LP_ITERS_MAX, &k);
        n.opt.lp_iteration_limit = k;
    } else if (strcmp(key, "lp_solver") == 0) {
        rc = placer_lp_solver_parse(value, &n.opt.lp_solver);
    } else if (strcmp(key, "seed") == 0) {
        rc = parse_long(name, value, 0, LIMIT_SEED_MAX, &k);
        n.opt.seed = (uint64_t)k;
    } else if (strcmp(key, "persistent_at_place") == 0) {
        rc = parse_bool(name, value, &n.opt.persistent_at_place);
    } else if (strcmp(key, "refine") == 0) {
        rc = parse_bool(name, value, &n.opt.refine);
    } else if (strcmp(key, "budget_ms") == 0) {
        rc = parse_long(name, value, 0, 100000000L, &k);
        n.opt.budget_ms = k;
    } else if (strcmp(key, "trace") == 0) {
        rc = parse_bool(name, value, &n.trace);
    } else if (strcmp(key, "schedule") == 0) {
        rc = pipeline_schedule_parse(value, &n.pipe.schedule);
        n.have_schedule = true;
    } else if (strcmp(key, "virtual_stages") == 0) {
        rc = parse_long(name, value, 1, PIPELINE_VIRTUAL_STAGES_MAX, &k);
        n.pipe.virtual_stages = (int32_t)k;
    } else {
        return err_set(BAECHI_EINVAL,
                       "unknown option '%s' (memory_fraction, comm_factor, compute_factor, "
                       "devices, grouper, fusion, fusion_check_disjoint, threshold, lp_solver, "
                       "lp_time_limit, lp_iteration_limit, seed, persistent_at_place, refine, "
                       "budget_ms, trace, schedule, virtual_stages)",
                       name);
    }
    if (rc == 0) {
        *o = n;
    }
    return rc;
}
