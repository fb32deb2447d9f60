/*
 * baechi.c - the public C API (include/baechi.h): opaque handles over the
 * libraries.  This file: the version, errors, the lists (placers, presets)
 * and the workload and cluster handles; the options in baechi_options.c,
 * placements in baechi_place.c, simulation, results and the store in
 * baechi_sim.c.  Nothing here computes: it loads with core/, places with
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

/* ------------------------------------------------------------ placers */

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
