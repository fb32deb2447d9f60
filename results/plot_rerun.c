/*
 * plot_rerun.c - a stored run simulated again as its sweep did (plot_internal.h),
 * for the gantt and the memory timeline.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "results/plot_internal.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"
#include "results/report.h"
#include "sim/symmetry.h"

#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A YAML single-quoted scalar ('' for a quote), for the one-point sweep of a gantt. */
static int yaml_sq(char **out, const char *s)
{
    size_t n = 3;
    char *p;

    for (const char *q = s; *q; q++) {
        n += *q == '\'' ? 2 : 1;
    }
    if (!(p = *out = mem_alloc(n))) {
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    *p++ = '\'';
    for (; *s; s++) {
        if (*s == '\'') {
            *p++ = '\'';
        }
        *p++ = *s;
    }
    *p++ = '\'';
    *p = '\0';
    return 0;
}

void plot_rerun_release(struct rerun *x)
{
    free(x->stored);
    free(x->weights);
    sim_result_release(&x->res);
    if (x->have_pl) {
        placement_release(&x->pl);
    }
    placer_stats_release(&x->st);
    if (x->have_c) {
        cluster_release(&x->c);
    }
    if (x->have_sw) {
        sweep_release(&x->sw);
    }
}

/*
 * The file of a stored spec, found again: absolute as stored since issue 19;
 * a relative one (older databases) relative to the database's directory,
 * then to the working directory.  *out malloc'ed, NULL when none is
 * readable.
 */
static int find_file(const char *db_file, const char *p, char **out)
{
    char *d = NULL;

    *out = NULL;
    if (p[0] != '/') {
        char *dd = mem_strdup(db_file);

        if (!dd) {
            return BAECHI_ENOMEM;
        }
        if (mem_asprintf(&d, "%s/%s", dirname(dd), p) < 0) {
            d = NULL;
        }
        free(dd);
        if (!d) {
            return err_set(BAECHI_ENOMEM, "out of memory");
        }
        if (access(d, R_OK) == 0) {
            *out = d;
            return 0;
        }
        free(d);
    }
    if (access(p, R_OK) == 0 && !(*out = mem_strdup(p))) {
        return BAECHI_ENOMEM;
    }
    return 0;
}

/*
 * Stored spec `spec` (a workload's when wl, else a cluster's) with its file
 * found by find_file() into *out (malloc'ed): gen: and presets unchanged.
 * A file found nowhere is BAECHI_EIO naming it.
 */
static int locate_spec(const char *db_file, const char *id, const char *spec, bool wl, char **out)
{
    const char *const *presets = cluster_preset_names();
    bool import = wl && strncmp(spec, "import:", 7) == 0;
    char *buf = NULL, *q, *file = NULL;
    int rc = 0;

    *out = NULL;
    if (wl ? strncmp(spec, "gen:", 4) == 0 : false) {
        return (*out = mem_strdup(spec)) ? 0 : BAECHI_ENOMEM;
    }
    for (int k = 0; !wl && presets[k]; k++) {
        if (strcmp(presets[k], spec) == 0) {
            return (*out = mem_strdup(spec)) ? 0 : BAECHI_ENOMEM;
        }
    }
    if (!(buf = mem_strdup(import ? spec + 7 : spec))) {
        return BAECHI_ENOMEM;
    }
    if (import && (q = strchr(buf, '?'))) {
        *q++ = '\0';
    } else {
        q = NULL;
    }
    CHECK(find_file(db_file, buf, &file));
    if (!file) {
        rc = err_set(BAECHI_EIO,
                     "run %s: %s '%s' is not a readable file (moved or deleted since the run was "
                     "stored?)",
                     id, wl ? "workload" : "cluster", buf);
        goto cleanup;
    }
    if (!import) {
        *out = file;
        file = NULL;
    } else if (mem_asprintf(out, "import:%s%s%s", file, q ? "?" : "", q ? q : "") < 0) {
        *out = NULL;
        rc = err_set(BAECHI_ENOMEM, "out of memory");
    }
cleanup:
    free(file);
    free(buf);
    return rc;
}

/* The content of what was loaded again is what the run was computed from. */
static int check_hash(const char *id, const char *what, const char *spec, const char *stored,
                      const char *now)
{
    if (!stored || !*stored || strcmp(stored, now) == 0) {
        return 0; /* runs stored before hashes, or as errors, have none */
    }
    return err_set(
        BAECHI_EINVAL,
        "run %s: %s '%s' changed since the run was stored (hash %s != %s stored); re-run the "
        "sweep",
        id, what, spec, now, stored);
}

/* Simulates the run o selects with so (its model is the run's); x released by the caller. */
int plot_rerun_sim(struct db *db, const struct plot_opts *o, struct sim_options *so,
                   struct trace *t, bool *have_t, struct rerun *x)
{
    struct rows r = {0};
    char id[32], *yaml = NULL;
    char *q[3] = {NULL, NULL, NULL}, *spec[2] = {NULL, NULL};
    int32_t n_stored = 0;
    int rc = 0;

    memset(x, 0, sizeof(*x));
    placer_stats_init(&x->st);
    sim_result_init(&x->res);
    CHECK(plot_run_query(db, o,
                         "SELECT workload_spec, cluster_spec, n_devices, placer, grouper, fusion, "
                         "memory_fraction, comm_factor, sct_threshold, seed, sim_model, status, "
                         "compute_factor, workload_hash, cluster_hash FROM runs WHERE id = ?1",
                         NULL, id, sizeof(id), x->desc, sizeof(x->desc), &r));
    for (int c2 = 0; c2 < 11; c2++) {
        if (!plot_cell(&r, 0, c2)) {
            rc = err_set(BAECHI_EINVAL, "run %s lacks what is needed to simulate it again", id);
            goto cleanup;
        }
    }
    /* the names are quoted as YAML scalars (a path may hold a quote) */
    CHECK(locate_spec(db_path(db), id, plot_cell(&r, 0, 0), true, &spec[0]));
    CHECK(locate_spec(db_path(db), id, plot_cell(&r, 0, 1), false, &spec[1]));
    CHECK(yaml_sq(&q[0], spec[0]));
    CHECK(yaml_sq(&q[1], spec[1]));
    CHECK(yaml_sq(&q[2], plot_cell(&r, 0, 3)));
    if (mem_asprintf(&yaml,
                     "workloads: [%s]\nclusters: [%s]\ndevices: [%s]\nplacers: [%s]\n"
                     "groupers: [%s]\nfusion: [%s]\nmemory_fractions: [%s]\ncomm_factors: [%s]\n"
                     "seeds: [%s]\nsct_threshold: %s\nmodels: [%s]\ncompute_factors: [%s]\n",
                     q[0], q[1], plot_cell(&r, 0, 2), q[2], plot_cell(&r, 0, 4),
                     strcmp(plot_cell(&r, 0, 5), "0") ? "true" : "false", plot_cell(&r, 0, 6),
                     plot_cell(&r, 0, 7),
                     strcmp(plot_cell(&r, 0, 9), "0") ? plot_cell(&r, 0, 9) : "1",
                     strtod(plot_cell(&r, 0, 8), NULL) > 0 ? plot_cell(&r, 0, 8) : "0.1",
                     plot_cell(&r, 0, 10), plot_cell(&r, 0, 12) ? plot_cell(&r, 0, 12) : "1") < 0) {
        rc = err_set(BAECHI_ENOMEM, "out of memory");
        goto cleanup;
    }
    CHECK(sweep_prepare(&x->sw, yaml, strlen(yaml), "(run)"));
    x->have_sw = true;
    if (x->sw.n_points != 1 || x->sw.wl[0].error || x->sw.cl[0].error) {
        rc = err_set(BAECHI_EINVAL, "run %s cannot be loaded again: %s", id,
                     x->sw.n_points != 1 ? "?"
                     : x->sw.wl[0].error ? x->sw.wl[0].error
                                         : x->sw.cl[0].error);
        goto cleanup;
    }
    {
        /* a symmetric workload's trace holds its representatives' devices
         * alone: the other devices' lanes would be drawn empty */
        struct sim_symmetry sym;

        CHECK(sim_symmetry_read(&x->sw.wl[0].w, &sym));
        if (sim_symmetry_on(&sym)) {
            rc = err_set(BAECHI_EINVAL,
                         "run %s: workload '%s' is symmetric (replica 0 of %d, parallelize "
                         "--symmetric): its simulation times the representatives' devices alone, "
                         "so no per-device plot is drawn from it; plot a run of the workload "
                         "written without --symmetric",
                         id, spec[0], (int)sym.replicas);
            goto cleanup;
        }
    }
    CHECK(check_hash(id, "workload", spec[0], plot_cell(&r, 0, 13), x->sw.wl[0].hash));
    CHECK(check_hash(id, "cluster", spec[1], plot_cell(&r, 0, 14), x->sw.cl[0].hash));
    CHECK(
        cluster_read_yaml_string(&x->c, x->sw.cl[0].yaml, x->sw.cl[0].yaml_len, x->sw.cl[0].spec));
    x->have_c = true;
    CHECK(db_load_placement(db, strtoll(id, NULL, 10), &x->stored, &n_stored));
    if (!x->stored || n_stored != x->sw.wl[0].g.n_ops) {
        CHECK(placer_run(x->sw.spec.placers.item[0].text, &x->sw.wl[0].g, &x->c,
                         &x->sw.point[0].opt, x->sw.wl[0].w.name, &x->pl, &x->st));
        x->have_pl = true;
    }
    CHECK(placer_world(&x->c, &x->sw.point[0].opt));
    CHECK(sim_model_parse(plot_cell(&r, 0, 10), &so->model));
    if (t) {
        trace_init(t, x->c.channel);
        *have_t = true;
        so->trace = t;
    }
    CHECK(placer_world_graph(&x->sw.wl[0].g, &x->sw.point[0].opt, &x->g, &x->weights));
    CHECK(sim_run(&x->g, &x->c, plot_rerun_device_of(x), so, &x->res));
cleanup:
    for (int i = 0; i < 3; i++) {
        free(q[i]);
    }
    free(spec[0]);
    free(spec[1]);
    free(yaml);
    plot_rows_release(&r);
    return rc;
}

const int32_t *plot_rerun_device_of(const struct rerun *x)
{
    return x->have_pl ? x->pl.device_of : x->stored;
}
