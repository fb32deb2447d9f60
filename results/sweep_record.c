/*
 * sweep_record.c - recording a point's results (sweep.h): the run record
 * filled from the placer and the simulators, and `run --db`'s record of one
 * run outside a sweep.
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

static int options_text(const struct placement *pl, char **out)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = mem_open_memstream(&buf, &len);

    if (!f) {
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    for (int32_t i = 0; i < pl->n_options; i++) {
        fprintf(f, "%s%s=%s", i ? ", " : "", pl->options[i].key, pl->options[i].value);
    }
    if (fclose(f) != 0 || !buf) { /* !buf: fclose's realloc failed */
        free(buf);
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    free(*out);
    *out = buf;
    return 0;
}

_Static_assert(DB_MEM_KINDS == MEM_KIND_N, "results/db.h: one column per sim/sim.h memory kind");

int sweep_fill_sim(struct db_run *r, const struct graph *g, const struct cluster *c,
                   const struct placer_stats *st, const struct sim_result *s,
                   const int32_t *device_of, bool store_placement)
{
    int64_t maxpeak = 0;
    int32_t n_oom = 0, nl = 0;
    struct bound_result bd;
    int rc;

    /* the certified bound of the world simulated (placers/bound.h) */
    if ((rc = bound_compute(g, c, NULL, &bd)) != 0) {
        return rc;
    }
    r->step_us = s->step_us;
    r->lower_bound_us = bd.lower_bound_us;
    r->simple_lower_bound_us = s->lower_bound_us;
    if (db_run_set(&r->lower_bound_kind, bound_kind_name(bd.kind))) {
        return BAECHI_ENOMEM;
    }
    r->critical_path_us = s->critical_path_us;
    r->total_compute_us = s->total_compute_us;
    if (!(r->dev = mem_calloc((size_t)s->n_devices, sizeof(*r->dev)))) {
        return BAECHI_ENOMEM;
    }
    for (int32_t d = 0; d < s->n_devices; d++) {
        struct db_device_rec *v = &r->dev[d];
        r->n_dev = d + 1;
        v->device = d;
        if (!(v->name = mem_strdup(c->dev[d].name))) {
            return BAECHI_ENOMEM;
        }
        v->peak_bytes = s->dev[d].peak_bytes;
        v->limit_bytes = s->dev[d].limit_bytes;
        v->placer_peak_bytes = DB_NULL_INT;
        v->placer_limit_bytes = DB_NULL_INT;
        /* the baselines place without looking at memory: no limit of their own */
        if (st && st->peak_bytes && d < st->n_devices && st->limit_bytes[d] > 0 &&
            !(r->placer && placer_find(r->placer) &&
              (placer_find(r->placer)->flags & PLACER_BASELINE))) {
            v->placer_peak_bytes = st->peak_bytes[d];
            v->placer_limit_bytes = st->limit_bytes[d];
        }
        v->busy_us = s->dev[d].busy_us;
        v->n_ops = s->dev[d].n_ops;
        v->oom = s->dev[d].oom;
        for (int k = 0; k < DB_MEM_KINDS; k++) {
            v->peak_kind_bytes[k] = s->peak_kind_bytes
                                        ? s->peak_kind_bytes[(size_t)d * MEM_KIND_N + (size_t)k]
                                        : DB_NULL_INT;
        }
        maxpeak = s->dev[d].peak_bytes > maxpeak ? s->dev[d].peak_bytes : maxpeak;
        n_oom += s->dev[d].oom;
    }
    r->max_peak_bytes = maxpeak;
    r->n_oom_devices = n_oom;
    for (size_t k = 0; k < s->links.n; k++) {
        nl += s->link_transfers[k] > 0;
    }
    if (nl && !(r->link = mem_calloc((size_t)nl, sizeof(*r->link)))) {
        return BAECHI_ENOMEM;
    }
    for (size_t k = 0; k < s->links.n; k++) {
        int32_t a, b;

        if (s->link_transfers[k] > 0) {
            sim_links_pair(&s->links, k, &a, &b);
            r->link[r->n_link++] =
                (struct db_link_rec){a, b, s->link_bytes[k], s->link_transfers[k]};
        }
    }
    if (s->n_oom > 0) {
        const struct sim_oom *o = &s->oom[0];
        char over[48];

        units_fmt_bytes(o->over_bytes, over, sizeof(over));
        rc = db_run_setf(&r->message,
                         "%d device%s out of memory; first: %s over by %s at op '%s' (%" PRId64
                         " µs)",
                         (int)n_oom, n_oom == 1 ? "" : "s", c->dev[o->device].name, over,
                         g->op_name[o->op], o->time_us);
        if (rc || (rc = db_run_set(&r->status, "oom")) != 0) {
            return rc;
        }
    } else if (db_run_set(&r->status, "ok")) {
        return BAECHI_ENOMEM;
    }
    if (store_placement && device_of) {
        if (!(r->device_of = mem_alloc_array((size_t)g->n_ops, sizeof(int32_t)))) {
            return BAECHI_ENOMEM;
        }
        memcpy(r->device_of, device_of, sizeof(int32_t) * (size_t)g->n_ops);
        r->n_place = g->n_ops;
    }
    return 0;
}

int sweep_fill_placer(struct db_run *r, const struct placement *pl, const struct placer_stats *st)
{
    r->placement_ms = st->placement_ms;
    r->algorithm_ms = st->algorithm_ms;
    r->estimate_us = st->estimate_us >= 0 ? st->estimate_us : DB_NULL_INT;
    r->lp_makespan_us = st->lp_makespan_us;
    if (st->lp_status[0] && db_run_set(&r->lp_status, st->lp_status)) {
        return BAECHI_ENOMEM;
    }
    if (st->lp_solver[0] && db_run_set(&r->lp_solver, st->lp_solver)) {
        return BAECHI_ENOMEM;
    }
    r->n_favourites = isnan(st->lp_makespan_us) ? DB_NULL_INT : st->n_favourites;
    r->n_nodes = st->n_nodes;
    r->n_groups = st->n_groups;
    return pl ? options_text(pl, &r->options) : 0;
}

void sweep_fill_options(struct db_run *r, const struct placer_options *opt)
{
    r->budget_ms = opt->budget_ms;
    r->refine = opt->refine;
    r->persistent_at_place = opt->persistent_at_place;
    r->fusion_check_disjoint = opt->fusion && opt->fusion_check_disjoint;
    r->lp_time_limit_s = opt->lp_time_limit_s;
}

/*
 * The content hash of the cluster the run was placed on, as a sweep computes
 * it: of the cluster as loaded.  `c` may be placer_world's cut and scaled
 * copy already (its devices, memory and comm model changed), so the cluster
 * is loaded again from its spec; when that fails (a library user's cluster
 * built in memory), out is "" and the run stores no hash.
 */
static int origin_cluster_hash(const struct sweep_origin *o, char out[HASH_HEX_SIZE])
{
    struct cluster c0;
    int rc;

    out[0] = '\0';
    if (!o->cluster_spec || cluster_load(&c0, o->cluster_spec) != 0) {
        err_clear();
        return 0;
    }
    rc = hash_cluster(&c0, out);
    cluster_release(&c0);
    return rc;
}

/* A placed run recorded outside a sweep (see sweep.h). */
int sweep_record_run(const char *dbpath, const struct sweep_origin *o, const struct workload *w,
                     const struct graph *g, const struct cluster *c, const struct placement *p,
                     const struct placer_stats *st, const struct sim_result *rb,
                     const struct sim_result *rt, int fail_rc, const char *msg)
{
    struct db_run r[2];
    char wl_hash[HASH_HEX_SIZE], cl_hash[HASH_HEX_SIZE];
    int rc = 0;

    db_run_init(&r[0]);
    db_run_init(&r[1]);
    CHECK(hash_workload(w, wl_hash));
    CHECK(origin_cluster_hash(o, cl_hash));
    for (int m = 0; m < 2; m++) {
        const struct sim_result *s = m == 0 ? rt : rb;
        struct db_run *x = &r[m];

        rc |= db_run_set_origin(x, w->name, o->workload_path, c->name, o->cluster_spec, o->placer);
        x->n_ops = g->n_ops;
        x->n_devices = o->opt->n_devices > 0 ? o->opt->n_devices : c->n_devices;
        rc |= db_run_set(&x->grouper, placer_grouper_name(strcmp(o->placer, "paper") == 0
                                                              ? PLACER_GROUPER_COPLACE
                                                              : o->opt->grouper));
        x->fusion = strcmp(o->placer, "paper") == 0 || o->opt->fusion;
        x->memory_fraction = o->opt->memory_fraction;
        x->comm_factor = o->opt->comm_factor;
        x->compute_factor = o->opt->compute_factor;
        x->sct_threshold = o->opt->sct_threshold;
        x->seed = (int64_t)o->opt->seed;
        sweep_fill_options(x, o->opt);
        rc |= db_run_set(&x->workload_hash, wl_hash);
        rc |= db_run_set(&x->cluster_hash, cl_hash[0] ? cl_hash : NULL);
        rc |= db_run_set(&x->sim_model, m == 0 ? "timed" : "baechi");
        if (rc) {
            rc = BAECHI_ENOMEM;
            goto cleanup;
        }
        if (s) {
            CHECK(sweep_fill_placer(x, p, st));
            CHECK(sweep_fill_sim(x, g, c, st, s, p->device_of, true));
        } else {
            CHECK(db_run_set(&x->status, fail_rc == BAECHI_EINFEASIBLE ? "infeasible" : "error"));
            CHECK(db_run_set(&x->message, msg));
        }
    }
    rc = db_store_runs(dbpath, r, 2);
cleanup:
    db_run_release(&r[0]);
    db_run_release(&r[1]);
    return rc;
}
