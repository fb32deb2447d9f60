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

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Simulates the run o selects with so (its model is the run's); x released by the caller. */
int plot_rerun_sim(struct db *db, const struct plot_opts *o, struct sim_options *so,
                   struct trace *t, bool *have_t, struct rerun *x)
{
    struct rows r = {0};
    char id[32], *yaml = NULL;
    char *q[3] = {NULL, NULL, NULL};
    int32_t n_stored = 0;
    int rc = 0;

    memset(x, 0, sizeof(*x));
    placer_stats_init(&x->st);
    sim_result_init(&x->res);
    CHECK(plot_run_query(db, o,
                         "SELECT workload_spec, cluster_spec, n_devices, placer, grouper, fusion, "
                         "memory_fraction, comm_factor, sct_threshold, seed, sim_model, status, "
                         "compute_factor FROM runs WHERE id = ?1",
                         NULL, id, sizeof(id), x->desc, sizeof(x->desc), &r));
    for (int c2 = 0; c2 < 11; c2++) {
        if (!plot_cell(&r, 0, c2)) {
            rc = err_set(BAECHI_EINVAL, "run %s lacks what is needed to simulate it again", id);
            goto cleanup;
        }
    }
    /* the names are quoted as YAML scalars (a path may hold a quote) */
    CHECK(yaml_sq(&q[0], plot_cell(&r, 0, 0)));
    CHECK(yaml_sq(&q[1], plot_cell(&r, 0, 1)));
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
    free(yaml);
    plot_rows_release(&r);
    return rc;
}

const int32_t *plot_rerun_device_of(const struct rerun *x)
{
    return x->have_pl ? x->pl.device_of : x->stored;
}
