/*
 * baechi_sim.c - the C API's simulation and results
 * (include/baechi.h): the world a placement is simulated in (as `baechi
 * run` makes it), the result's getters and trace, and the results store.
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
#include "sim/symmetry.h"
#include "sim/trace.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ simulation */

/* A symmetric workload (parallelize --symmetric) is replica 0 of D on its
 * given devices: a placer's own placement of its ops stands for nothing, as
 * `baechi place` says. */
static int api_symmetry_placer(const struct baechi_workload *w, const struct baechi_placement *p)
{
    struct sim_symmetry sym;
    int rc;

    if ((rc = sim_symmetry_read(&w->w, &sym)) != 0) {
        return rc;
    }
    if (sim_symmetry_on(&sym) && p->p.placer && strcmp(p->p.placer, "given") != 0) {
        return err_set(BAECHI_EINVAL,
                       "not symmetric: '%s' is replica 0 of %d (parallelize --symmetric) and "
                       "runs on its given placement; placer '%s' would place its ops anywhere: "
                       "use the placer 'given', or the exact workload",
                       w->w.name, (int)sym.replicas, p->p.placer);
    }
    return 0;
}

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
    if ((rc = api_symmetry_placer(w, p)) != 0 || (rc = cluster_copy(cw, &c->c)) != 0) {
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
    api_options_init(defaults);
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
    rc = sim_symmetry_run(&w->w, &g, &cw, p->p.device_of, &so, &h->r, NULL);
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
    CHECK(sim_symmetry_run(&w->w, &g, &cw, p->p.device_of, &so, &rb, NULL));
    so.model = SIM_MODEL_TIMED;
    CHECK(sim_symmetry_run(&w->w, &g, &cw, p->p.device_of, &so, &rt, NULL));
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
