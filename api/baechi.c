/*
 * baechi.c - the public C API (include/baechi.h): opaque handles over the
 * libraries.  Nothing here computes: it loads with core/, places with
 * placers/, simulates with sim/ and stores with results/, exactly as the
 * `baechi run` command does, so that a program using the library gets the
 * numbers of `baechi run --json` (tests/python, examples/).
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

/* The public codes are the library's own (core/err.h). */
_Static_assert((int)BAECHI_SUCCESS == (int)BAECHI_OK &&
                   (int)BAECHI_ERR_NOMEM == (int)BAECHI_ENOMEM &&
                   (int)BAECHI_ERR_INVAL == (int)BAECHI_EINVAL &&
                   (int)BAECHI_ERR_PARSE == (int)BAECHI_EPARSE &&
                   (int)BAECHI_ERR_IO == (int)BAECHI_EIO &&
                   (int)BAECHI_ERR_INFEASIBLE == (int)BAECHI_EINFEASIBLE &&
                   (int)BAECHI_ERR_SOLVER == (int)BAECHI_ESOLVER &&
                   (int)BAECHI_ERR_UNSUPPORTED == (int)BAECHI_EUNSUPPORTED,
               "include/baechi.h codes differ from core/err.h");

_Static_assert(BAECHI_API_MAJOR == BAECHI_VERSION_MAJOR && BAECHI_API_MINOR == BAECHI_VERSION_MINOR,
               "include/baechi.h and core/version.h name different versions");

static char version_buf[128];

static void version_fill(void)
{
    snprintf(version_buf, sizeof(version_buf), "%s (%s)", BAECHI_VERSION, db_tool_version());
}

const char *baechi_version(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;

    pthread_once(&once, version_fill);
    return version_buf;
}

const char *baechi_errmsg(void)
{
    return err_msg();
}

void baechi_free(void *p)
{
    free(p);
}

void baechi_set_warning_handler(baechi_warning_fn fn, void *ctx)
{
    err_set_warn_handler(fn, ctx);
}

/* ------------------------------------------------------------ workloads */

static int workload_finish(struct baechi_workload *h, int rc, struct baechi_workload **out)
{
    if (rc == 0) {
        rc = graph_build(&h->g, &h->w);
    }
    if (rc) {
        baechi_workload_free(h);
        return rc;
    }
    *out = h;
    return 0;
}

static struct baechi_workload *workload_new(const char *path)
{
    struct baechi_workload *h = mem_calloc(1, sizeof(*h));

    if (!h || (path && !(h->path = mem_strdup(path)))) {
        free(h);
        err_set(BAECHI_ENOMEM, "out of memory");
        return NULL;
    }
    workload_init(&h->w);
    return h;
}

int baechi_workload_load(const char *path, struct baechi_workload **out)
{
    struct baechi_workload *h;

    *out = NULL;
    if (!path) {
        return err_set(BAECHI_EINVAL, "no workload path given");
    }
    if (!(h = workload_new(path))) {
        return BAECHI_ENOMEM;
    }
    return workload_finish(h, workload_read_yaml(&h->w, path), out);
}

int baechi_workload_parse(const char *yaml, size_t len, const char *name,
                          struct baechi_workload **out)
{
    struct baechi_workload *h;

    *out = NULL;
    if (!yaml) {
        return err_set(BAECHI_EINVAL, "no workload text given");
    }
    if (!(h = workload_new(NULL))) {
        return BAECHI_ENOMEM;
    }
    return workload_finish(h, workload_read_yaml_string(&h->w, yaml, len, name ? name : "<string>"),
                           out);
}

void baechi_workload_free(struct baechi_workload *h)
{
    if (!h) {
        return;
    }
    graph_release(&h->g);
    workload_release(&h->w);
    free(h->path);
    free(h);
}

const char *baechi_workload_name(const struct baechi_workload *h)
{
    return h->w.name;
}

int32_t baechi_workload_n_ops(const struct baechi_workload *h)
{
    return h->g.n_ops;
}

const char *baechi_workload_op_name(const struct baechi_workload *h, int32_t op)
{
    return op >= 0 && op < h->g.n_ops ? h->g.op_name[op] : NULL;
}

int64_t baechi_workload_total_compute_us(const struct baechi_workload *h)
{
    return graph_total_compute_us(&h->g);
}

int64_t baechi_workload_critical_path_us(const struct baechi_workload *h)
{
    int64_t cp;

    return graph_critical_path_us(&h->g, &cp) ? -1 : cp;
}

/* ------------------------------------------------------------ clusters */

static int cluster_finish(struct baechi_cluster *h, int rc, struct baechi_cluster **out)
{
    if (rc) {
        baechi_cluster_free(h);
        return rc;
    }
    *out = h;
    return 0;
}

static struct baechi_cluster *cluster_new(const char *spec)
{
    struct baechi_cluster *h = mem_calloc(1, sizeof(*h));

    if (!h || (spec && !(h->spec = mem_strdup(spec)))) {
        free(h);
        err_set(BAECHI_ENOMEM, "out of memory");
        return NULL;
    }
    cluster_init(&h->c);
    return h;
}

int baechi_cluster_load(const char *spec, struct baechi_cluster **out)
{
    struct baechi_cluster *h;

    *out = NULL;
    if (!spec) {
        return err_set(BAECHI_EINVAL, "no cluster given");
    }
    if (!(h = cluster_new(spec))) {
        return BAECHI_ENOMEM;
    }
    return cluster_finish(h, cluster_load(&h->c, spec), out);
}

int baechi_cluster_parse(const char *yaml, size_t len, const char *name,
                         struct baechi_cluster **out)
{
    struct baechi_cluster *h;

    *out = NULL;
    if (!yaml) {
        return err_set(BAECHI_EINVAL, "no cluster text given");
    }
    if (!(h = cluster_new(NULL))) {
        return BAECHI_ENOMEM;
    }
    return cluster_finish(h, cluster_read_yaml_string(&h->c, yaml, len, name ? name : "<string>"),
                          out);
}

void baechi_cluster_free(struct baechi_cluster *h)
{
    if (!h) {
        return;
    }
    cluster_release(&h->c);
    free(h->spec);
    free(h);
}

const char *const *baechi_cluster_presets(void)
{
    return cluster_preset_names();
}

const char *baechi_cluster_name(const struct baechi_cluster *h)
{
    return h->c.name;
}

int32_t baechi_cluster_n_devices(const struct baechi_cluster *h)
{
    return h->c.n_devices;
}

const char *baechi_cluster_device_name(const struct baechi_cluster *h, int32_t d)
{
    return d >= 0 && d < h->c.n_devices ? h->c.dev[d].name : NULL;
}

int64_t baechi_cluster_device_memory_bytes(const struct baechi_cluster *h, int32_t d)
{
    return d >= 0 && d < h->c.n_devices ? h->c.dev[d].mem_bytes : -1;
}

/* ------------------------------------------------------------ options */

static void options_init(struct baechi_options *o)
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
    options_init(o);
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

/* ------------------------------------------------------------ placement */

#define PLACERS_MAX 64
static const char *placer_names[PLACERS_MAX + 1];

static void placers_fill(void)
{
    int n = 0;

    for (const struct placer_desc *d = placer_list(); d->name && n < PLACERS_MAX; d++) {
        placer_names[n++] = d->name;
    }
    placer_names[n] = NULL;
}

const char *const *baechi_placers(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;

    pthread_once(&once, placers_fill);
    return placer_names;
}

static struct baechi_placement *placement_new(void)
{
    struct baechi_placement *h = mem_calloc(1, sizeof(*h));

    if (!h) {
        err_set(BAECHI_ENOMEM, "out of memory");
        return NULL;
    }
    placer_stats_init(&h->st);
    options_init(&h->made_with);
    return h;
}

/*
 * The error for a placer name not in the registry, in words every binding
 * can show as they are (Python's error named a C function): the closest
 * name and the known ones.
 */
static int unknown_placer(const char *placer)
{
    const struct placer_desc *list = placer_list(), *best = NULL;
    size_t best_d = (size_t)-1;
    struct strbuf known = STRBUF_INIT;
    int rc = 0;

    /* every placer, however many the registry holds (a char[512] once cut
     * the list) */
    for (const struct placer_desc *p = list; p->name && rc == 0; p++) {
        size_t d = strdist(placer, p->name);

        if (d < best_d) {
            best_d = d;
            best = p;
        }
        rc = strbuf_addf(&known, "%s%s", known.len ? ", " : "", p->name);
    }
    if (rc == 0 && best && best_d <= 3) {
        rc = err_set(BAECHI_EINVAL, "unknown placer '%s'; the most similar is '%s' (known: %s)",
                     placer, best->name, known.buf);
    } else if (rc == 0) {
        rc = err_set(BAECHI_EINVAL, "unknown placer '%s' (known: %s)", placer, known.buf);
    }
    strbuf_release(&known);
    return rc;
}

int baechi_place(const struct baechi_workload *w, const struct baechi_cluster *c,
                 const char *placer, const struct baechi_options *o, struct baechi_placement **out)
{
    struct baechi_options defaults;
    struct baechi_placement *h;
    int rc;

    *out = NULL;
    if (!placer) {
        return err_set(BAECHI_EINVAL, "no placer given");
    }
    if (!placer_find(placer)) {
        return unknown_placer(placer);
    }
    if (!o) {
        options_init(&defaults);
        o = &defaults;
    }
    if (!(h = placement_new())) {
        return BAECHI_ENOMEM;
    }
    h->made_with = *o;
    h->placed = true;
    /* the workload's pipeline schedule (x-pipeline), for the `pipeline` placer */
    rc = pipeline_opts_read(&w->w, &h->made_with.opt.pipeline, NULL);
    rc = rc ? rc : api_pipeline_apply(o, &w->g, &h->made_with.opt.pipeline);
    rc = rc ? rc : placer_run(placer, &w->g, &c->c, &h->made_with.opt, w->w.name, &h->p, &h->st);
    if (rc) {
        baechi_placement_free(h);
        return rc;
    }
    *out = h;
    return 0;
}

static int placement_finish(struct baechi_placement *h, int rc, struct baechi_placement **out)
{
    if (rc) {
        placer_stats_release(&h->st);
        free(h);
        return rc;
    }
    h->st.estimate_us = -1;
    *out = h;
    return 0;
}

int baechi_placement_load(const struct baechi_workload *w, const char *path,
                          struct baechi_placement **out)
{
    struct baechi_placement *h;

    *out = NULL;
    if (!path) {
        return err_set(BAECHI_EINVAL, "no placement path given");
    }
    if (!(h = placement_new())) {
        return BAECHI_ENOMEM;
    }
    return placement_finish(h, placement_read_yaml_workload(&h->p, &w->g, &w->w, path), out);
}

int baechi_placement_parse(const struct baechi_workload *w, const char *yaml, size_t len,
                           const char *name, struct baechi_placement **out)
{
    struct baechi_placement *h;

    *out = NULL;
    if (!yaml) {
        return err_set(BAECHI_EINVAL, "no placement text given");
    }
    if (!(h = placement_new())) {
        return BAECHI_ENOMEM;
    }
    return placement_finish(
        h, placement_read_yaml_string(&h->p, &w->g, &w->w, yaml, len, name ? name : "<string>"),
        out);
}

struct placement_file {
    const struct placement *p;
    const struct graph *g;
};

static int write_placement(FILE *f, void *ctx)
{
    const struct placement_file *pf = ctx;

    return placement_write_yaml(pf->p, pf->g, f);
}

int baechi_placement_write(const struct baechi_placement *h, const struct baechi_workload *w,
                           const char *path)
{
    struct placement_file pf = {&h->p, &w->g};

    /* every argument is checked before the target is touched */
    if (h->p.n_ops != w->g.n_ops) {
        return err_set(BAECHI_EINVAL, "placement of %d ops given for workload '%s' of %d ops",
                       h->p.n_ops, w->w.name, w->g.n_ops);
    }
    return file_write_atomic(path ? path : "-", write_placement, &pf);
}

void baechi_placement_free(struct baechi_placement *h)
{
    if (!h) {
        return;
    }
    placement_release(&h->p);
    placer_stats_release(&h->st);
    free(h);
}

int32_t baechi_placement_n_ops(const struct baechi_placement *h)
{
    return h->p.n_ops;
}

int32_t baechi_placement_device_of(const struct baechi_placement *h, int32_t op)
{
    return op >= 0 && op < h->p.n_ops ? h->p.device_of[op] : -1;
}

const char *baechi_placement_placer(const struct baechi_placement *h)
{
    return h->p.placer;
}

double baechi_placement_time_ms(const struct baechi_placement *h)
{
    return h->placed ? h->st.placement_ms : 0.0;
}

int64_t baechi_placement_estimate_us(const struct baechi_placement *h)
{
    return h->placed ? h->st.estimate_us : -1;
}

/* ------------------------------------------------------------ simulation */

/* The world of a simulation under o (placer_world), on copies. */
int api_world_of(const struct baechi_workload *w, const struct baechi_cluster *c,
                 const struct baechi_placement *p, const struct baechi_options *o, struct graph *g,
                 int64_t **weights, struct cluster *cw)
{
    int rc;

    if (p->p.n_ops != w->g.n_ops) {
        return err_set(BAECHI_EINVAL, "placement of %d ops given for workload '%s' of %d ops",
                       p->p.n_ops, w->w.name, w->g.n_ops);
    }
    if ((rc = cluster_copy(cw, &c->c)) != 0) {
        return rc;
    }
    if ((rc = placer_world(cw, &o->opt)) != 0 || (rc = placement_check(&p->p, &w->g, cw)) != 0 ||
        (rc = placer_world_graph(&w->g, &o->opt, g, weights)) != 0) {
        cluster_release(cw);
        return rc;
    }
    /* g is a shallow copy of w's graph (placer_world_graph): its own
     * pipeline field is the one to change */
    if ((rc = api_pipeline_apply(o, g, &g->pipeline)) != 0) {
        free(*weights);
        *weights = NULL;
        cluster_release(cw);
        return rc;
    }
    return 0;
}

const struct baechi_options *api_options_for(const struct baechi_placement *p,
                                             const struct baechi_options *o,
                                             struct baechi_options *defaults)
{
    if (o) {
        return o;
    }
    if (p->placed) {
        return &p->made_with;
    }
    options_init(defaults);
    return defaults;
}

int api_sim_world(const struct baechi_workload *w, const struct baechi_cluster *c,
                  const struct baechi_placement *p, const struct baechi_options **o,
                  struct baechi_options *defaults, const char *model, struct sim_options *so,
                  struct graph *g, int64_t **weights, struct cluster *cw)
{
    int rc;

    *o = api_options_for(p, *o, defaults);
    if (model && (rc = sim_model_parse(model, &so->model)) != 0) {
        return rc;
    }
    return api_world_of(w, c, p, *o, g, weights, cw);
}

int baechi_simulate(const struct baechi_workload *w, const struct baechi_cluster *c,
                    const struct baechi_placement *p, const char *model,
                    const struct baechi_options *o, struct baechi_result **out)
{
    struct baechi_options defaults;
    struct sim_options so = {.model = SIM_MODEL_TIMED, .trace = NULL};
    struct baechi_result *h = NULL;
    struct cluster cw;
    struct graph g;
    int64_t *weights = NULL;
    int rc;

    *out = NULL;
    if ((rc = api_sim_world(w, c, p, &o, &defaults, model, &so, &g, &weights, &cw)) != 0) {
        return rc;
    }
    if (!(h = mem_calloc(1, sizeof(*h)))) {
        rc = err_set(BAECHI_ENOMEM, "out of memory");
        goto cleanup;
    }
    sim_result_init(&h->r);
    h->n_ops = g.n_ops;
    if (o->trace) {
        trace_init(&h->t, cw.channel);
        h->have_trace = true;
        so.trace = &h->t;
    }
    rc = sim_run(&g, &cw, p->p.device_of, &so, &h->r);
cleanup:
    if (rc) {
        baechi_result_free(h);
    } else {
        *out = h;
    }
    free(weights);
    cluster_release(&cw);
    return rc;
}

void baechi_result_free(struct baechi_result *h)
{
    if (!h) {
        return;
    }
    sim_result_release(&h->r);
    if (h->have_trace) {
        trace_release(&h->t);
    }
    free(h);
}

const char *baechi_result_model(const struct baechi_result *h)
{
    return sim_model_name(h->r.model);
}

int64_t baechi_result_step_us(const struct baechi_result *h)
{
    return h->r.step_us;
}

int32_t baechi_result_oom(const struct baechi_result *h)
{
    int32_t n = 0;

    for (int32_t d = 0; d < h->r.n_devices; d++) {
        n += h->r.dev[d].oom ? 1 : 0;
    }
    return n;
}

int32_t baechi_result_n_devices(const struct baechi_result *h)
{
    return h->r.n_devices;
}

int64_t baechi_result_lower_bound_us(const struct baechi_result *h)
{
    return h->r.lower_bound_us;
}

int64_t baechi_result_critical_path_us(const struct baechi_result *h)
{
    return h->r.critical_path_us;
}

int64_t baechi_result_total_compute_us(const struct baechi_result *h)
{
    return h->r.total_compute_us;
}

#define DEV_GETTER(type, fn, expr)                                                                 \
    type fn(const struct baechi_result *h, int32_t d)                                              \
    {                                                                                              \
        if (d < 0 || d >= h->r.n_devices) {                                                        \
            return -1;                                                                             \
        }                                                                                          \
        return (type)(expr);                                                                       \
    }

DEV_GETTER(int64_t, baechi_result_peak_bytes, h->r.dev[d].peak_bytes)
DEV_GETTER(int64_t, baechi_result_limit_bytes, h->r.dev[d].limit_bytes)
DEV_GETTER(int64_t, baechi_result_final_bytes, h->r.dev[d].final_bytes)
DEV_GETTER(int64_t, baechi_result_busy_us, h->r.dev[d].busy_us)
DEV_GETTER(int32_t, baechi_result_n_ops, h->r.dev[d].n_ops)
DEV_GETTER(int32_t, baechi_result_device_oom, h->r.dev[d].oom ? 1 : 0)

static int64_t link_at(const struct baechi_result *h, const int64_t *m, int32_t s, int32_t d)
{
    int32_t n = h->r.n_devices;
    int64_t i;

    if (!m || s < 0 || d < 0 || s >= n || d >= n) {
        return -1;
    }
    /* a pair the placement never uses (sim_links.h, large clusters): 0 */
    i = sim_links_find(&h->r.links, s, d);
    return i < 0 ? 0 : m[i];
}

int64_t baechi_result_link_bytes(const struct baechi_result *h, int32_t src, int32_t dst)
{
    return link_at(h, h->r.link_bytes, src, dst);
}

int64_t baechi_result_link_transfers(const struct baechi_result *h, int32_t src, int32_t dst)
{
    return link_at(h, h->r.link_transfers, src, dst);
}

int64_t baechi_result_op_start_us(const struct baechi_result *h, int32_t op)
{
    return op >= 0 && op < h->n_ops && h->r.start_us ? h->r.start_us[op] : -1;
}

int64_t baechi_result_op_end_us(const struct baechi_result *h, int32_t op)
{
    return op >= 0 && op < h->n_ops && h->r.end_us ? h->r.end_us[op] : -1;
}

int baechi_result_write_trace(const struct baechi_result *h, const struct baechi_workload *w,
                              const struct baechi_cluster *c, const char *path)
{
    FILE *f;
    int rc;

    if (!h->have_trace) {
        return err_set(BAECHI_EINVAL, "no trace recorded: simulate with the option 'trace' set");
    }
    if (w->g.n_ops != h->n_ops) {
        return err_set(BAECHI_EINVAL, "trace of %d ops, workload '%s' has %d", h->n_ops, w->w.name,
                       w->g.n_ops);
    }
    if (!path || !(f = fopen(path, "w"))) {
        return err_set(BAECHI_EIO, "cannot write '%s': %s", path ? path : "(null)",
                       strerror(errno));
    }
    rc = trace_write_chrome(&h->t, &w->g, &c->c, f);
    if ((ferror(f) | fclose(f)) && !rc) {
        rc = err_set(BAECHI_EIO, "cannot write '%s': %s", path, strerror(errno));
    }
    return rc;
}

/* ------------------------------------------------------------ results */

int baechi_db_store(const char *db_path, const struct baechi_workload *w,
                    const struct baechi_cluster *c, const struct baechi_placement *p,
                    const struct baechi_options *o)
{
    struct baechi_options defaults;
    struct sim_options so = {.model = SIM_MODEL_BAECHI, .trace = NULL};
    struct sim_result rb, rt;
    struct sweep_origin origin;
    struct cluster cw;
    struct graph g;
    int64_t *weights = NULL;
    int rc;

    if (!db_path) {
        return err_set(BAECHI_EINVAL, "no database path given");
    }
    o = api_options_for(p, o, &defaults);
    if ((rc = api_world_of(w, c, p, o, &g, &weights, &cw)) != 0) {
        return rc;
    }
    sim_result_init(&rb);
    sim_result_init(&rt);
    CHECK(sim_run(&g, &cw, p->p.device_of, &so, &rb));
    so.model = SIM_MODEL_TIMED;
    CHECK(sim_run(&g, &cw, p->p.device_of, &so, &rt));
    origin = (struct sweep_origin){w->path, c->spec ? c->spec : c->c.name,
                                   p->p.placer ? p->p.placer : "given", &o->opt};
    rc = sweep_record_run(db_path, &origin, &w->w, &g, &cw, &p->p, &p->st, &rb, &rt, 0, NULL);
cleanup:
    sim_result_release(&rb);
    sim_result_release(&rt);
    free(weights);
    cluster_release(&cw);
    return rc;
}
