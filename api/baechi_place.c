/*
 * baechi_place.c - the C API's placements (include/baechi.h):
 * placing a workload on a cluster by placer name, placement files in and
 * out, and what a placement holds.
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

static struct baechi_placement *placement_new(void)
{
    struct baechi_placement *h = mem_calloc(1, sizeof(*h));

    if (!h) {
        err_set(BAECHI_ENOMEM, "out of memory");
        return NULL;
    }
    placer_stats_init(&h->st);
    api_options_init(&h->made_with);
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
        api_options_init(&defaults);
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
