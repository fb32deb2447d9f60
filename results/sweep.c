/*
 * sweep.c - a prepared sweep (inputs loaded once, points expanded with their
 * keys), the computation of one point and the resume rule.  Its record
 * is sweep_record.c, the coordinator's sink sweep_sink.c.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "results/sweep.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"
#include "core/hash.h"
#include "core/placement.h"
#include "core/strmap.h"
#include "core/units.h"
#include "core/workload_yaml.h"
#include "core/yio.h"
#include "placers/bound.h"
#include "sim/symmetry.h"
#include "results/sweep_internal.h"
#include "workloads/costmodel.h"
#include "workloads/gen_params.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------ loading */

static int load_workload(const struct sweep_spec *s, struct sweep_wl *l)
{
    int rc = 0;

    if (sweep_is_generated(l->spec)) {
        struct gen_spec g;
        char *buf = mem_strdup(l->spec), *path = NULL;
        if (!buf) {
            return BAECHI_ENOMEM;
        }
        if (sweep_gen_parse(buf, &g)) {
            rc = err_set(BAECHI_EINVAL, "bad workload spec '%s'", l->spec); /* checked at parse */
        } else if (g.source == GEN_SOURCE_IMPORT && !(path = sweep_resolve(s, g.model))) {
            rc = BAECHI_ENOMEM;
        } else {
            if (path) {
                g.model = path;
            }
            rc = gen_spec_build(&g, &l->w);
        }
        free(path);
        free(buf);
    } else {
        char *p = sweep_resolve(s, l->spec);
        if (!p) {
            return BAECHI_ENOMEM;
        }
        rc = workload_read_yaml(&l->w, p);
        free(p);
    }
    if (rc) {
        workload_release(&l->w);
        return rc;
    }
    l->have_w = true;
    if ((rc = graph_build(&l->g, &l->w)) != 0) {
        return rc;
    }
    l->have_g = true;
    l->pinned_devices = 0;
    for (int32_t v = 0; v < l->g.n_ops; v++) {
        int32_t d = l->g.given_device[v];
        if (d < 0) {
            l->pinned_devices = 0;
            break;
        }
        l->pinned_devices = d + 1 > l->pinned_devices ? d + 1 : l->pinned_devices;
    }
    {
        /* a symmetric workload (parallelize --symmetric) runs on the whole
         * cluster its representatives stand for */
        struct sim_symmetry sym;

        if ((rc = sim_symmetry_read(&l->w, &sym)) != 0) {
            return rc;
        }
        if (sim_symmetry_on(&sym) && l->pinned_devices > 0 && sym.devices > l->pinned_devices) {
            l->pinned_devices = sym.devices;
        }
    }
    /* names are looked up by graph_find lazily: build the index before forking */
    if ((rc = graph_index_names(&l->g)) != 0) {
        return rc;
    }
    return hash_workload(&l->w, l->hash);
}

static int load_cluster(const struct sweep_spec *s, struct sweep_cl *l)
{
    struct cluster c;
    const char *const *presets = cluster_preset_names();
    char *path = NULL;
    FILE *f = NULL;
    bool preset = false;
    int rc;

    for (int k = 0; presets[k]; k++) {
        preset |= strcmp(presets[k], l->spec) == 0;
    }
    if (!preset && !(path = sweep_resolve(s, l->spec))) {
        return BAECHI_ENOMEM;
    }
    rc = cluster_load(&c, preset ? l->spec : path);
    free(path);
    if (rc) {
        return rc;
    }
    if (!(f = mem_open_memstream(&l->yaml, &l->yaml_len))) {
        rc = err_set(BAECHI_ENOMEM, "out of memory");
        goto cleanup;
    }
    rc = cluster_write_yaml(&c, f);
    if ((fclose(f) != 0 || !l->yaml) && !rc) { /* !yaml: fclose's realloc failed */
        rc = err_set(BAECHI_ENOMEM, "out of memory");
    }
    if (rc) {
        goto cleanup;
    }
    hash_hex(hash_fnv1a64(l->yaml, l->yaml_len, HASH_FNV1A64_INIT), l->hash);
    l->n_devices = c.n_devices;
    if (!(l->name = mem_strdup(c.name ? c.name : l->spec)) ||
        (c.n_devices > 0 && c.dev[0].kind && !(l->kind = mem_strdup(c.dev[0].kind)))) {
        rc = BAECHI_ENOMEM;
    }
cleanup:
    cluster_release(&c);
    return rc;
}

/* ------------------------------------------------------------ points */

static bool excluded(const struct sweep_spec *s, const char *wl, const char *cl, const char *pl,
                     enum placer_grouper gr, bool fusion)
{
    for (int32_t i = 0; i < s->n_exclude; i++) {
        const struct sweep_exclude *e = &s->exclude[i];
        if ((!e->workload || strcmp(e->workload, wl) == 0) &&
            (!e->cluster || strcmp(e->cluster, cl) == 0) &&
            (!e->placer || strcmp(e->placer, pl) == 0) && (!e->grouper || e->grouper_v == gr) &&
            (!e->fusion || e->fusion_v == fusion)) {
            return true;
        }
    }
    return false;
}

static bool is_sct(const char *placer)
{
    return strncmp(placer, "m-sct", 5) == 0 || strncmp(placer, "m_sct", 5) == 0;
}

static int make_key(const struct sweep *sw, const struct sweep_point *p, char **out)
{
    const struct sweep_wl *w = &sw->wl[p->wl];
    const struct sweep_cl *c = &sw->cl[p->cl];
    char mf[40], cf[40], xf[40], th[40], lp[16] = "";

    /* only a solver other than auto is in the key: the keys of points
     * stored before sweeps had `lp_solver` stay what they were (resume) */
    if (p->opt.lp_solver != PLACER_LP_AUTO) {
        snprintf(lp, sizeof(lp), "|lp=%s", placer_lp_solver_name(p->opt.lp_solver));
    }
    yio_fmt_double(p->opt.memory_fraction, mf, sizeof(mf));
    yio_fmt_double(p->opt.comm_factor, cf, sizeof(cf));
    yio_fmt_double(p->opt.compute_factor, xf, sizeof(xf));
    yio_fmt_double(p->opt.sct_threshold, th, sizeof(th));
    if (mem_asprintf(out,
                     "w=%s@%s|c=%s@%s|k=%d|p=%s|g=%s|f=%d|mf=%s|cf=%s|xf=%s|th=%s%s|seed=%" PRIu64
                     "|r=%d",
                     w->error ? w->spec : w->w.name, w->error ? "error" : w->hash,
                     c->error ? c->spec : c->name, c->error ? "error" : c->hash, p->opt.n_devices,
                     sw->spec.placers.item[p->placer].text, placer_grouper_name(p->opt.grouper),
                     p->opt.fusion ? 1 : 0, mf, cf, xf, th, lp, p->opt.seed, p->repeat) < 0) {
        *out = NULL;
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    return 0;
}

static int add_point(struct sweep *sw, struct sweep_point *p, size_t *alloc, struct strmap *seen,
                     struct strpool *pool)
{
    int32_t old;
    const char *k;
    int rc;

    if ((rc = make_key(sw, p, &p->key)) != 0) {
        return rc;
    }
    if (!(k = strpool_add(pool, p->key, strlen(p->key)))) {
        free(p->key);
        return BAECHI_ENOMEM;
    }
    if ((rc = strmap_put(seen, k, sw->n_points, &old)) != 0) {
        free(p->key);
        return rc;
    }
    if (old >= 0) {
        free(p->key); /* a duplicate after normalisation */
        return 0;
    }
    if (ARRAY_RESERVE(sw->point, *alloc, (size_t)sw->n_points + 1)) {
        free(p->key);
        return BAECHI_ENOMEM;
    }
    sw->point[sw->n_points++] = *p;
    return 0;
}

/* The sweep's dimensions, outermost first: the order points are listed in. */
enum sweep_dim {
    DIM_WORKLOAD,
    DIM_CLUSTER,
    DIM_DEVICES,
    DIM_PLACER,
    DIM_GROUPER,
    DIM_FUSION,
    DIM_MEMORY,
    DIM_COMM,
    DIM_COMPUTE,
    DIM_LP_SOLVER,
    DIM_SEED,
    DIM_REPEAT,
    N_DIMS
};

/* Whether placer `name` draws random numbers: `random` and `auto`'s search.
 * Before issue 19 a sweep ran `auto` with seed 0 and `run -p auto`
 * with 1 (3.040 vs 3.137 s on one cell); both use the sweep's seeds now. */
static bool uses_seed(const char *name)
{
    return strcmp(name, "random") == 0 || strcmp(name, PLACER_AUTO_NAME) == 0;
}

/* Whether placer `name` solves m-SCT's LP: m-SCT and m-SCT-reserve, and
 * `auto` through its m-SCT candidates. */
static bool uses_lp(const char *name)
{
    return is_sct(name) || strcmp(name, PLACER_AUTO_NAME) == 0;
}

/* The point at index i[] of every dimension. */
static void make_point(const struct sweep *sw, const int32_t *i, struct sweep_point *p)
{
    const struct sweep_spec *s = &sw->spec;
    const char *pname = s->placers.item[i[DIM_PLACER]].text;
    int32_t c = i[DIM_CLUSTER];

    memset(p, 0, sizeof(*p));
    p->wl = i[DIM_WORKLOAD];
    p->cl = c;
    p->placer = i[DIM_PLACER];
    p->repeat = i[DIM_REPEAT];
    placer_options_init(&p->opt);
    p->opt.n_devices = s->devices[i[DIM_DEVICES]];
    if (p->opt.n_devices == 0 && !sw->cl[c].error) {
        p->opt.n_devices = sw->cl[c].n_devices;
    }
    /* a parallelised graph (workload parallelize) names its D x T x P ranks:
     * `given` runs it on them, one point whatever the devices list says,
     * so that a sweep can list graphs of several sizes beside `devices` */
    if (strcmp(pname, "given") == 0 && sw->wl[p->wl].pinned_devices > 0) {
        p->opt.n_devices = sw->wl[p->wl].pinned_devices;
    }
    p->opt.grouper = s->groupers[i[DIM_GROUPER]];
    p->opt.fusion = s->fusion[i[DIM_FUSION]];
    if (strcmp(pname, PLACER_PAPER_NAME) == 0) {
        p->opt.grouper = PLACER_GROUPER_COPLACE;
        p->opt.fusion = true;
    }
    p->opt.memory_fraction = s->memory_fractions[i[DIM_MEMORY]];
    p->opt.comm_factor = s->comm_factors[i[DIM_COMM]];
    p->opt.compute_factor = s->compute_factors[i[DIM_COMPUTE]];
    /* seeds: to the placers that draw random numbers, as `run --seed`;
     * 0 in the key of the others (their points do not differ by seed) */
    p->opt.seed = uses_seed(pname) ? s->seeds[i[DIM_SEED]] : 0;
    p->opt.sct_threshold = is_sct(pname) ? s->sct_threshold : 0;
    p->opt.lp_time_limit_s = s->lp_time_limit_s;
    /* the LP solver: to the placers that solve an LP (m-SCT, auto's m-SCT
     * candidates); auto in the key of the others */
    p->opt.lp_solver = uses_lp(pname) ? s->lp_solvers[i[DIM_LP_SOLVER]] : PLACER_LP_AUTO;
}

/* The cartesian product of the dimensions, as an odometer (last digit fastest). */
static int expand(struct sweep *sw)
{
    const struct sweep_spec *s = &sw->spec;
    const int32_t size[N_DIMS] = {
        [DIM_WORKLOAD] = s->workloads.n,
        [DIM_CLUSTER] = s->clusters.n,
        [DIM_DEVICES] = s->n_devices,
        [DIM_PLACER] = s->placers.n,
        [DIM_GROUPER] = s->n_groupers,
        [DIM_FUSION] = s->n_fusion,
        [DIM_MEMORY] = s->n_memory_fractions,
        [DIM_COMM] = s->n_comm_factors,
        [DIM_COMPUTE] = s->n_compute_factors,
        [DIM_LP_SOLVER] = s->n_lp_solvers,
        [DIM_SEED] = s->n_seeds,
        [DIM_REPEAT] = s->repeats,
    };
    int32_t i[N_DIMS] = {0};
    struct strmap seen;
    struct strpool pool;
    size_t alloc = 0;
    int rc = 0;

    for (int d = 0; d < N_DIMS; d++) {
        if (size[d] <= 0) {
            return 0; /* an empty list: no point */
        }
    }
    strmap_init(&seen);
    strpool_init(&pool);
    for (;;) {
        int d;

        /* as written: `paper` fixes its grouper and fusion only in the point */
        if (!excluded(s, s->workloads.item[i[DIM_WORKLOAD]].text,
                      s->clusters.item[i[DIM_CLUSTER]].text, s->placers.item[i[DIM_PLACER]].text,
                      s->groupers[i[DIM_GROUPER]], s->fusion[i[DIM_FUSION]])) {
            struct sweep_point p;

            make_point(sw, i, &p);
            if ((rc = add_point(sw, &p, &alloc, &seen, &pool)) != 0) {
                break;
            }
        }
        for (d = N_DIMS - 1; d >= 0; d--) {
            if (++i[d] < size[d]) {
                break;
            }
            i[d] = 0;
        }
        if (d < 0) {
            break;
        }
    }
    strmap_release(&seen);
    strpool_release(&pool);
    return rc;
}

/*
 * A symmetric workload (parallelize --symmetric) is replica 0 of D on its
 * given devices: a point placing it with another placer than `given` would
 * store the representatives' placement as the cluster's result.  Refused
 * before the first run, naming the workload's entry (as `baechi place`).
 */
static int refuse_symmetric(const struct sweep *sw)
{
    for (int32_t i = 0; i < sw->n_points; i++) {
        const struct sweep_point *p = &sw->point[i];
        const struct sweep_item *wi = &sw->spec.workloads.item[p->wl];
        const char *placer = sw->spec.placers.item[p->placer].text;
        struct sim_symmetry sym;

        if (!sw->wl[p->wl].have_w || strcmp(placer, "given") == 0 ||
            sim_symmetry_read(&sw->wl[p->wl].w, &sym) != 0 || !sim_symmetry_on(&sym)) {
            continue; /* a malformed x-symmetry is the workload's load error */
        }
        return err_set(BAECHI_EINVAL,
                       "%s:%d:%d: workload '%s' is not symmetric under placer '%s': it is replica "
                       "0 of %d (parallelize --symmetric) and runs on its given placement; '%s' "
                       "would place its ops anywhere: use placer given, or the exact workload",
                       sw->spec.path, (int)wi->line, (int)wi->col, wi->text, placer,
                       (int)sym.replicas, placer);
    }
    return 0;
}

int sweep_prepare(struct sweep *sw, const char *text, size_t len, const char *path)
{
    return sweep_prepare_limit(sw, text, len, path, 0);
}

int sweep_prepare_limit(struct sweep *sw, const char *text, size_t len, const char *path,
                        int64_t max_runs)
{
    int rc;

    memset(sw, 0, sizeof(*sw));
    if ((rc = sweep_spec_parse(&sw->spec, text, len, path)) != 0) {
        return rc;
    }
    if ((rc = sweep_check_runs(&sw->spec, max_runs > 0 ? max_runs : SWEEP_MAX_RUNS_DEFAULT)) != 0) {
        sweep_spec_release(&sw->spec);
        return rc;
    }
    if (gethostname(sw->host, sizeof(sw->host) - 1) != 0) {
        snprintf(sw->host, sizeof(sw->host), "?");
    }
    sw->wl = mem_calloc((size_t)sw->spec.workloads.n, sizeof(*sw->wl));
    sw->cl = mem_calloc((size_t)sw->spec.clusters.n, sizeof(*sw->cl));
    if (!sw->wl || !sw->cl) {
        rc = BAECHI_ENOMEM;
        goto fail;
    }
    for (int32_t i = 0; i < sw->spec.workloads.n; i++) {
        struct sweep_wl *l = &sw->wl[i];
        l->spec = sw->spec.workloads.item[i].text;
        if ((rc = load_workload(&sw->spec, l)) != 0) {
            if (rc == BAECHI_ENOMEM || !(l->error = mem_strdup(err_msg()))) {
                goto fail;
            }
            rc = 0;
        }
    }
    for (int32_t i = 0; i < sw->spec.clusters.n; i++) {
        struct sweep_cl *l = &sw->cl[i];
        l->spec = sw->spec.clusters.item[i].text;
        if ((rc = load_cluster(&sw->spec, l)) != 0) {
            if (rc == BAECHI_ENOMEM || !(l->error = mem_strdup(err_msg()))) {
                goto fail;
            }
            rc = 0;
        }
    }
    /* op times made for another device than a cluster's: said once per pair */
    for (int32_t i = 0; i < sw->spec.workloads.n; i++) {
        for (int32_t j = 0; j < sw->spec.clusters.n; j++) {
            if (sw->wl[i].have_w && !sw->cl[j].error) {
                costmodel_warn_times(&sw->wl[i].w, sw->cl[j].name, sw->cl[j].kind);
            }
        }
    }
    if ((rc = expand(sw)) != 0 || (rc = refuse_symmetric(sw)) != 0) {
        goto fail;
    }
    return 0;
fail:
    sweep_release(sw);
    return rc;
}

void sweep_release(struct sweep *sw)
{
    for (int32_t i = 0; sw->wl && i < sw->spec.workloads.n; i++) {
        struct sweep_wl *l = &sw->wl[i];
        free(l->error);
        if (l->have_g) {
            graph_release(&l->g);
        }
        if (l->have_w) {
            workload_release(&l->w);
        }
    }
    for (int32_t i = 0; sw->cl && i < sw->spec.clusters.n; i++) {
        free(sw->cl[i].error);
        free(sw->cl[i].yaml);
        free(sw->cl[i].name);
        free(sw->cl[i].kind);
    }
    for (int32_t i = 0; i < sw->n_points; i++) {
        free(sw->point[i].key);
    }
    free(sw->point);
    free(sw->wl);
    free(sw->cl);
    sweep_spec_release(&sw->spec);
    memset(sw, 0, sizeof(*sw));
}

/* ------------------------------------------------------------ one point */

/* An absolute path of file p (relative to the sweep file), or p when it
 * cannot be resolved (gone since it was loaded: the run is an error). */
static char *abs_path(const struct sweep_spec *s, const char *p)
{
    char *rel = sweep_resolve(s, p), *abs;

    if (!rel) {
        return NULL;
    }
    if (!(abs = realpath(rel, NULL))) {
        return rel;
    }
    free(rel);
    return abs;
}

/*
 * The spec of a workload or cluster as stored in the runs table: a file by
 * its absolute path, an import: by its file's, gen: and presets as written
 * (malloc'ed; NULL on ENOMEM).  docs/results.md, "Re-simulating a run".
 */
static char *abs_spec(const struct sweep_spec *s, const char *spec)
{
    const char *const *presets = cluster_preset_names();
    char *buf, *file, *q, *out = NULL;

    if (strncmp(spec, "gen:", 4) == 0) {
        return mem_strdup(spec);
    }
    for (int k = 0; presets[k]; k++) {
        if (strcmp(presets[k], spec) == 0) {
            return mem_strdup(spec);
        }
    }
    if (strncmp(spec, "import:", 7) != 0) {
        return abs_path(s, spec);
    }
    if (!(buf = mem_strdup(spec + 7))) {
        return NULL;
    }
    if ((q = strchr(buf, '?'))) {
        *q++ = '\0';
    }
    if ((file = abs_path(s, buf)) &&
        mem_asprintf(&out, "import:%s%s%s", file, q ? "?" : "", q ? q : "") < 0) {
        out = NULL;
    }
    free(file);
    free(buf);
    return out;
}

/* The fields every run of point i has, whatever happens. */
static int run_common(const struct sweep *sw, int32_t i, enum sim_model m, struct db_run *r)
{
    const struct sweep_point *p = &sw->point[i];
    const struct sweep_wl *w = &sw->wl[p->wl];
    const struct sweep_cl *c = &sw->cl[p->cl];
    char now[40];
    int rc = 0;

    db_run_init(r);
    db_now_iso(now, sizeof(now));
    rc |= db_run_setf(&r->key, "%s|model=%s", p->key, sim_model_name(m));
    rc |= db_run_set(&r->sweep, sw->spec.name);
    rc |= db_run_set(&r->time, now);
    rc |= db_run_set(&r->tool_version, db_tool_version());
    rc |= db_run_set(&r->host, sw->host);
    rc |= db_run_set(&r->workload, w->error ? w->spec : w->w.name);
    /* absolute, so that `baechi plot gantt` loads it again from anywhere */
    free(r->workload_spec);
    if (!(r->workload_spec = abs_spec(&sw->spec, w->spec))) {
        rc = BAECHI_ENOMEM;
    }
    rc |= db_run_set(&r->workload_hash, w->error ? NULL : w->hash);
    r->n_ops = w->error ? DB_NULL_INT : w->g.n_ops;
    rc |= db_run_set(&r->cluster, c->error ? c->spec : c->name);
    free(r->cluster_spec);
    if (!(r->cluster_spec = abs_spec(&sw->spec, c->spec))) {
        rc = BAECHI_ENOMEM;
    }
    rc |= db_run_set(&r->cluster_hash, c->error ? NULL : c->hash);
    r->n_devices = p->opt.n_devices;
    rc |= db_run_set(&r->placer, sw->spec.placers.item[p->placer].text);
    rc |= db_run_set(&r->grouper, placer_grouper_name(p->opt.grouper));
    r->fusion = p->opt.fusion;
    r->memory_fraction = p->opt.memory_fraction;
    r->comm_factor = p->opt.comm_factor;
    r->compute_factor = p->opt.compute_factor;
    r->sct_threshold = p->opt.sct_threshold;
    r->seed = (int64_t)p->opt.seed;
    sweep_fill_options(r, &p->opt);
    r->repeat = p->repeat;
    rc |= db_run_set(&r->sim_model, sim_model_name(m));
    rc |= db_run_set(&r->status, "error");
    return rc ? BAECHI_ENOMEM : 0;
}

static int set_status(struct db_run *r, enum db_status s, const char *msg)
{
    int rc = db_run_set(&r->status, db_status_name(s));
    return rc ? rc : db_run_set(&r->message, msg);
}

int sweep_error_run(const struct sweep *sw, int32_t i, enum sim_model m, const char *why,
                    struct db_run *r)
{
    int rc = run_common(sw, i, m, r);

    return rc ? rc : set_status(r, DB_STATUS_ERROR, why);
}

/* Simulates the placed point with every model into runs[] (a symmetric
 * workload: checked and expanded, sim_symmetry_run). */
static int simulate(const struct sweep *sw, const struct sweep_point *p, const struct workload *wl,
                    const struct graph *g0, const struct cluster *c, const struct placement *pl,
                    const struct placer_stats *st, struct db_run *runs)
{
    struct graph g;
    int64_t *w;
    int rc = placer_world_graph(g0, &p->opt, &g, &w);

    if (rc) {
        return rc;
    }
    for (int32_t m = 0; m < sw->spec.n_models; m++) {
        struct sim_options so = {.model = sw->spec.models[m], .trace = NULL};
        struct sim_result res;
        sim_result_init(&res);
        rc = sim_symmetry_run(wl, &g, c, pl->device_of, &so, &res, NULL);
        if (rc == 0) {
            rc = sweep_fill_sim(&runs[m], &g, c, st, &res, pl->device_of, sw->spec.store_placement);
        } else if (rc != BAECHI_ENOMEM) {
            rc = set_status(&runs[m], DB_STATUS_ERROR, err_msg());
        }
        sim_result_release(&res);
        if (rc) {
            break;
        }
    }
    free(w);
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/*
 * Places the point (placer_run), timed as the spec asks: with
 * placement_repeats R > 1, one untimed warm-up placement (a worker's first
 * placement pays for page faults and cold caches: 9 ms for `single` where
 * it takes 0.03 ms), then R placements whose median placement and algorithm
 * times are stored.  The placers are deterministic: the last placement is
 * kept.  A failing placement fails at once, as without repeats.
 */
static int place_point(const struct sweep *sw, const char *placer, const struct sweep_wl *wl,
                       const struct cluster *c, const struct placer_options *po,
                       struct placement *pl, struct placer_stats *st)
{
    const int32_t reps = sw->spec.placement_repeats > 1 ? sw->spec.placement_repeats : 1;
    double t_ms[100], a_ms[100]; /* placement_repeats <= 100 (sweep_file.c) */
    int rc = 0;

    const int32_t first = reps > 1 ? -1 : 0; /* -1: the warm-up */

    for (int32_t k = first; k < reps; k++) {
        if (k > first) {
            placement_release(pl);
            placer_stats_release(st);
            placer_stats_init(st);
        }
        if ((rc = placer_run(placer, &wl->g, c, po, wl->w.name, pl, st)) != 0) {
            return rc;
        }
        if (k >= 0) {
            t_ms[k] = st->placement_ms;
            a_ms[k] = st->algorithm_ms;
        }
    }
    if (reps > 1) {
        qsort(t_ms, (size_t)reps, sizeof(double), cmp_double);
        qsort(a_ms, (size_t)reps, sizeof(double), cmp_double);
        st->placement_ms = reps % 2 ? t_ms[reps / 2] : (t_ms[reps / 2 - 1] + t_ms[reps / 2]) / 2;
        st->algorithm_ms = reps % 2 ? a_ms[reps / 2] : (a_ms[reps / 2 - 1] + a_ms[reps / 2]) / 2;
    }
    return rc;
}

int sweep_point_exec(const struct sweep *sw, int32_t i, struct db_buf *out)
{
    const struct sweep_point *p = &sw->point[i];
    const struct sweep_wl *wl = &sw->wl[p->wl];
    const struct sweep_cl *cl = &sw->cl[p->cl];
    struct db_run runs[2];
    struct cluster c;
    struct placement pl;
    struct placer_stats st;
    bool have_c = false, have_pl = false;
    int32_t nm = sw->spec.n_models;
    int rc = 0;

    memset(&pl, 0, sizeof(pl));
    placer_stats_init(&st);
    for (int32_t m = 0; m < nm; m++) {
        db_run_init(&runs[m]);
    }
    for (int32_t m = 0; m < nm; m++) {
        CHECK(run_common(sw, i, sw->spec.models[m], &runs[m]));
    }
    if (wl->error || cl->error) {
        for (int32_t m = 0; m < nm; m++) {
            CHECK(set_status(&runs[m], DB_STATUS_ERROR, wl->error ? wl->error : cl->error));
        }
        goto encode;
    }
    err_clear();
    rc = cluster_read_yaml_string(&c, cl->yaml, cl->yaml_len, cl->spec);
    have_c = rc == 0;
    if (rc == 0) {
        struct placer_options po = p->opt;

        rc = pipeline_opts_read(&wl->w, &po.pipeline, NULL);
        rc =
            rc ? rc : place_point(sw, sw->spec.placers.item[p->placer].text, wl, &c, &po, &pl, &st);
        have_pl = rc == 0;
    }
    if (rc == 0) {
        for (int32_t m = 0; m < nm && !rc; m++) {
            rc = sweep_fill_placer(&runs[m], &pl, &st);
        }
        if (rc == 0) {
            rc = placer_world(&c, &p->opt);
        }
        if (rc == 0) {
            rc = simulate(sw, p, &wl->w, &wl->g, &c, &pl, &st, runs);
        }
    }
    if (rc == BAECHI_ENOMEM) {
        goto cleanup;
    }
    if (rc) {
        enum db_status s = rc == BAECHI_EINFEASIBLE ? DB_STATUS_INFEASIBLE : DB_STATUS_ERROR;
        for (int32_t m = 0; m < nm; m++) {
            CHECK(set_status(&runs[m], s, err_msg()));
            if (st.placement_ms > 0 && isnan(runs[m].placement_ms)) {
                runs[m].placement_ms = st.placement_ms;
            }
        }
        rc = 0;
    }
encode:
    for (int32_t m = 0; m < nm; m++) {
        CHECK(db_run_serialize(&runs[m], out));
    }
cleanup:
    for (int32_t m = 0; m < nm; m++) {
        db_run_release(&runs[m]);
    }
    if (have_pl) {
        placement_release(&pl);
    }
    placer_stats_release(&st);
    if (have_c) {
        cluster_release(&c);
    }
    return rc;
}

/* ------------------------------------------------------------ resume */

struct todo_ctx {
    const struct sweep *sw;
    struct strmap map; /* run key -> point */
    struct strpool pool;
    int32_t *n_found; /* per point: runs stored */
    uint8_t *err;     /* per point: a run with status error */
};

static int todo_key(void *ctx, const char *key, const char *status)
{
    struct todo_ctx *t = ctx;
    int32_t i = strmap_get(&t->map, key, strlen(key));

    if (i >= 0) {
        t->n_found[i]++;
        if (status && strcmp(status, "error") == 0) {
            t->err[i] = 1;
        }
    }
    return 0;
}

int sweep_todo(const struct sweep *sw, struct db *db, int32_t **todo, int32_t *n_todo)
{
    struct todo_ctx t;
    int32_t n = sw->n_points, nm = sw->spec.n_models;
    bool began = false;
    int rc = 0;

    *todo = NULL;
    *n_todo = 0;
    memset(&t, 0, sizeof(t));
    t.sw = sw;
    strmap_init(&t.map);
    strpool_init(&t.pool);
    t.n_found = mem_calloc((size_t)n + 1, sizeof(int32_t));
    t.err = mem_calloc((size_t)n + 1, 1);
    *todo = mem_calloc((size_t)n + 1, sizeof(int32_t));
    if (!t.n_found || !t.err || !*todo) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    CHECK(strmap_reserve(&t.map, (size_t)(n * nm)));
    for (int32_t i = 0; i < n; i++) {
        for (int32_t m = 0; m < nm; m++) {
            char buf[16];
            const char *k;
            char *full = NULL;
            snprintf(buf, sizeof(buf), "%s", sim_model_name(sw->spec.models[m]));
            if (mem_asprintf(&full, "%s|model=%s", sw->point[i].key, buf) < 0) {
                rc = err_set(BAECHI_ENOMEM, "out of memory");
                goto cleanup;
            }
            k = strpool_add(&t.pool, full, strlen(full));
            free(full);
            if (!k) {
                rc = BAECHI_ENOMEM;
                goto cleanup;
            }
            CHECK(strmap_put(&t.map, k, i, NULL));
        }
    }
    CHECK(db_each_key(db, todo_key, &t));
    for (int32_t i = 0; i < n; i++) {
        if (t.n_found[i] == nm && !t.err[i]) {
            continue;
        }
        if (t.n_found[i] > 0) {
            /* an error run (or, impossible with one transaction per point, a partial one) */
            if (!began) {
                CHECK(db_begin(db));
                began = true;
            }
            for (int32_t m = 0; m < nm; m++) {
                char *full = NULL;
                if (mem_asprintf(&full, "%s|model=%s", sw->point[i].key,
                                 sim_model_name(sw->spec.models[m])) < 0) {
                    rc = err_set(BAECHI_ENOMEM, "out of memory");
                    goto cleanup;
                }
                rc = db_delete_key(db, full);
                free(full);
                if (rc) {
                    goto cleanup;
                }
            }
        }
        (*todo)[(*n_todo)++] = i;
    }
    if (began) {
        began = false;
        CHECK(db_commit(db));
    }
cleanup:
    if (began) {
        db_rollback(db);
    }
    if (rc) {
        FREE_AND_NULL(*todo);
        *n_todo = 0;
    }
    free(t.n_found);
    free(t.err);
    strmap_release(&t.map);
    strpool_release(&t.pool);
    return rc;
}
