/*
 * symmetry.c - reading, checking and expanding replica symmetry
 * (symmetry.h, docs/symmetry.md).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "sim/symmetry.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/yio.h"

#include <math.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

int sim_symmetry_read(const struct workload *w, struct sim_symmetry *s)
{
    s->replicas = 1;
    s->stride = 0;
    s->devices = 0;
    s->tp = 1;
    s->classes = 1;
    for (int32_t i = 0; i < w->n_top_ext; i++) {
        const struct yval *v = &w->top_ext[i].val;
        int64_t x[5] = {0, 0, 0, 1, 1};

        if (strcmp(w->top_ext[i].key, "x-symmetry") != 0) {
            continue;
        }
        for (int32_t k = 0; v->kind == YVAL_MAP && k < v->n; k++) {
            const struct yval *e = &v->items[k];
            int j = strcmp(v->keys[k], "replicas") == 0  ? 0
                    : strcmp(v->keys[k], "stride") == 0  ? 1
                    : strcmp(v->keys[k], "devices") == 0 ? 2
                    : strcmp(v->keys[k], "tp") == 0      ? 3
                    : strcmp(v->keys[k], "classes") == 0 ? 4
                                                         : -1;

            if (j >= 0 && (e->kind != YVAL_SCALAR || !e->scalar ||
                           yio_parse_size(e->scalar, &x[j]) || x[j] > INT32_MAX)) {
                x[j] = 0;
            }
        }
        if (x[0] < 1 || x[1] < 1 || x[2] < 1 || x[2] % (x[0] * x[1]) != 0 ||
            (x[3] != 1 && x[3] != x[1]) || (x[4] != 1 && x[4] != 4)) {
            return err_set(BAECHI_EPARSE,
                           "workload '%s': x-symmetry: expected {replicas: D >= 1, stride: T >= "
                           "1, devices: N, a multiple of D x T[, tp: 1 or T][, classes: 1 or 4]}",
                           w->name ? w->name : "?");
        }
        s->replicas = (int32_t)x[0];
        s->stride = (int32_t)x[1];
        s->devices = (int32_t)x[2];
        if (x[3] > 1 && x[4] != 4) {
            return err_set(BAECHI_EPARSE,
                           "workload '%s': x-symmetry: tp: %d needs classes: 4 (a file of an "
                           "earlier version of --symmetric): parallelise it again",
                           w->name ? w->name : "?", (int)x[3]);
        }
        s->tp = (int32_t)x[3];
        s->classes = (int32_t)x[4];
    }
    return 0;
}

bool sim_symmetry_on(const struct sim_symmetry *s)
{
    return s->replicas > 1 || s->tp > 1;
}

int32_t sim_symmetry_stage_reps(const struct sim_symmetry *s)
{
    if (s->classes != 4) {
        return s->stride / s->tp;
    }
    return (s->replicas > 1 ? 2 : 1) * (s->tp > 1 ? 2 : s->stride);
}

void sim_symmetry_describe(const struct sim_symmetry *s, char *buf, size_t n)
{
    if (s->classes == 4) {
        char reps[64], tps[32];

        if (s->replicas > 1) {
            snprintf(reps, sizeof(reps), "replicas 0 and %d of %d", (int)s->replicas - 1,
                     (int)s->replicas);
        } else {
            snprintf(reps, sizeof(reps), "one replica");
        }
        snprintf(tps, sizeof(tps), "%s", s->tp > 1 ? "TP ranks 0 and T-1" : "every TP rank");
        snprintf(buf, n,
                 "%d of %d ranks a stage simulated (%s, %s; TP collectives over all %d ranks, DP "
                 "collectives over all %d replicas); each device shows its class's "
                 "representative's",
                 (int)sim_symmetry_stage_reps(s), (int)(s->stride * s->replicas), reps, tps,
                 (int)s->stride, (int)s->replicas);
        return;
    }
    snprintf(buf, n,
             "replica 0 of %d simulated (its DP collectives over all %d replicas); all "
             "replicas identical: each device shows its replica-0 device's",
             (int)s->replicas, (int)s->replicas);
}

/* Device u's replica-0 device (its TP rank kept). */
static int32_t dp_rep(const struct sim_symmetry *s, int32_t u)
{
    return s->replicas > 1 ? u - s->stride * (u / s->stride % s->replicas) : u;
}

int32_t sim_symmetry_rep(const struct sim_symmetry *s, int32_t u)
{
    int32_t v = dp_rep(s, u), t = u % s->stride, d = u / s->stride % s->replicas;

    if (s->classes == 4 && d == s->replicas - 1) {
        v = u; /* the last replica represents itself */
    }
    if (s->tp > 1 && !(s->classes == 4 && t == s->tp - 1)) {
        v -= t; /* TP rank 0 represents ranks 0..T-2 (with classes 4), else all */
    }
    return v;
}

static bool same_device(const struct cluster_device *a, const struct cluster_device *b)
{
    return a->mem_bytes == b->mem_bytes && a->speed == b->speed &&
           ((!a->kind && !b->kind) || (a->kind && b->kind && strcmp(a->kind, b->kind) == 0));
}

/* The relation of devices a, b the collectives and transfers read. */
struct pair_key {
    double slope, intercept, eff;
    bool node, leaf, pod;
};

static struct pair_key pair_of(const struct cluster *c, int32_t a, int32_t b)
{
    const struct cluster_nodes *nd = &c->nodes;
    struct comm_model m = cluster_comm_model(c, a, b);
    int32_t na = cluster_node_of(c, a), nb = cluster_node_of(c, b);
    struct pair_key k = {m.slope_us_per_byte,
                         m.intercept_us,
                         cluster_coll_efficiency(c, a, b),
                         na == nb,
                         true,
                         true};

    if (nd->nodes_per_leaf > 0) {
        k.leaf = na / nd->nodes_per_leaf == nb / nd->nodes_per_leaf;
    }
    if (nd->nodes_per_pod > 0) {
        k.pod = na / nd->nodes_per_pod == nb / nd->nodes_per_pod;
    }
    return k;
}

static bool same_pair(struct pair_key x, struct pair_key y)
{
    return x.slope == y.slope && x.intercept == y.intercept && x.eff == y.eff && x.node == y.node &&
           x.leaf == y.leaf && x.pod == y.pod;
}

/* Replica 0's devices into *out (*n of them); with `tp`, only its TP rank-0
 * devices (one a stage). */
static int rep_devices(const struct sim_symmetry *s, bool tp, int32_t **out, int32_t *n)
{
    int32_t k = 0;

    *n = s->devices / s->replicas / (tp ? s->tp : 1);
    if (!(*out = mem_alloc_array((size_t)*n + 1, sizeof(**out)))) {
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    for (int32_t u = 0; u < s->devices; u++) {
        if (dp_rep(s, u) == u && (!tp || u % s->tp == 0)) {
            (*out)[k++] = u;
        }
    }
    return 0;
}

static int check_pairs(const struct sim_symmetry *s, const struct cluster *c, const int32_t *rep,
                       int32_t n)
{
    for (int32_t r = 1; r < s->replicas; r++) {
        const int32_t off = r * s->stride;

        for (int32_t i = 0; i < n; i++) {
            if (!same_device(&c->dev[rep[i]], &c->dev[rep[i] + off])) {
                return err_set(BAECHI_EINVAL,
                               "not symmetric: device %d (replica %d) differs from its replica-0 "
                               "device %d in memory, speed or kind (a heterogeneous cluster); "
                               "simulate the exact workload (parallelize without --symmetric)",
                               (int)(rep[i] + off), (int)r, (int)rep[i]);
            }
            for (int32_t j = 0; j < n; j++) {
                if (i != j && !same_pair(pair_of(c, rep[i], rep[j]),
                                         pair_of(c, rep[i] + off, rep[j] + off))) {
                    return err_set(BAECHI_EINVAL,
                                   "not symmetric: the link %d -> %d of replica %d differs from "
                                   "its replica-0 link %d -> %d (bandwidth, latency, node, leaf "
                                   "group or pod); simulate the exact workload (parallelize "
                                   "without --symmetric)",
                                   (int)(rep[i] + off), (int)(rep[j] + off), (int)r, (int)rep[i],
                                   (int)rep[j]);
                }
            }
        }
    }
    return 0;
}

static int tp_refuse(const char *what, int32_t a, int32_t b, int32_t ra, int32_t rb)
{
    return err_set(BAECHI_EINVAL,
                   "not symmetric: the %s %d -> %d differs from its TP rank-0 %s %d -> %d "
                   "(bandwidth, latency, node, leaf group or pod); simulate the exact workload "
                   "(parallelize without --symmetric)",
                   what, (int)a, (int)b, what, (int)ra, (int)rb);
}

/* TP symmetry: each TP rank t of the n representatives rep[] runs as rank 0
 * (its device, its links to the other representatives' rank t, the pairs
 * of its data-parallel group). */
static int check_tp(const struct sim_symmetry *s, const struct cluster *c, const int32_t *rep,
                    int32_t n)
{
    const int32_t T = s->tp, D = s->replicas;

    for (int32_t t = 1; t < T; t++) {
        for (int32_t i = 0; i < n; i++) {
            if (!same_device(&c->dev[rep[i]], &c->dev[rep[i] + t])) {
                return err_set(BAECHI_EINVAL,
                               "not symmetric: device %d (TP rank %d) differs from its TP "
                               "rank-0 device %d in memory, speed or kind (a heterogeneous "
                               "cluster); simulate the exact workload (parallelize without "
                               "--symmetric)",
                               (int)(rep[i] + t), (int)t, (int)rep[i]);
            }
            for (int32_t j = 0; j < n; j++) {
                if (i != j &&
                    !same_pair(pair_of(c, rep[i], rep[j]), pair_of(c, rep[i] + t, rep[j] + t))) {
                    return tp_refuse("link", rep[i] + t, rep[j] + t, rep[i], rep[j]);
                }
            }
            /* the DP group of rank t: O(D^2) pairs, P x T x D^2 in all */
            for (int32_t a = 0; a < D; a++) {
                for (int32_t b = 0; b < D; b++) {
                    int32_t u = rep[i] + a * s->stride, v = rep[i] + b * s->stride;

                    if (a != b && !same_pair(pair_of(c, u, v), pair_of(c, u + t, v + t))) {
                        return tp_refuse("data-parallel link", u + t, v + t, u, v);
                    }
                }
            }
        }
    }
    return 0;
}

int sim_symmetry_check(const struct sim_symmetry *s, const struct graph *g, const struct cluster *c,
                       const int32_t *device_of)
{
    int32_t *rep = NULL, n = 0;
    int rc = 0;

    if (!sim_symmetry_on(s)) {
        return 0;
    }
    if (c->n_devices < s->devices) {
        return err_set(BAECHI_EINVAL,
                       "not symmetric: the workload's %d replicas need %d devices, the cluster "
                       "'%s' has %d",
                       (int)s->replicas, (int)s->devices, c->name ? c->name : "?",
                       (int)c->n_devices);
    }
    for (int32_t v = 0; v < g->n_ops; v++) {
        if (sim_symmetry_rep(s, device_of[v]) != device_of[v] || device_of[v] >= s->devices) {
            return err_set(BAECHI_EINVAL,
                           "not symmetric: op '%s' is on device %d, outside replica 0 (a "
                           "placer's own placement); simulate the symmetric workload with its "
                           "given placement, or the exact one",
                           g->op_name[v], (int)device_of[v]);
        }
    }
    if (s->replicas > 1) {
        CHECK(rep_devices(s, false, &rep, &n));
        CHECK(check_pairs(s, c, rep, n));
        free(rep);
        rep = NULL;
    }
    if (s->tp > 1) {
        CHECK(rep_devices(s, true, &rep, &n));
        CHECK(check_tp(s, c, rep, n));
    }
cleanup:
    free(rep);
    return rc;
}

int sim_symmetry_expand(const struct sim_symmetry *s, struct sim_result *r)
{
    const int32_t nd = s->devices < r->n_devices ? s->devices : r->n_devices;
    struct sim_oom *oom;
    int32_t n = r->n_oom, m = 0;

    if (!sim_symmetry_on(s)) {
        return 0;
    }
    if (n > 0) {
        /* each represented device gets its representative's entries, in
         * device order: O(N x n_oom), n_oom at most one per representative */
        for (int32_t u = 0; u < nd; u++) {
            for (int32_t i = 0; i < n; i++) {
                m += r->oom[i].device == sim_symmetry_rep(s, u);
            }
        }
        if (!(oom = mem_alloc_array((size_t)m + 1, sizeof(*oom)))) {
            return err_set(BAECHI_ENOMEM, "out of memory");
        }
        m = 0;
        for (int32_t u = 0; u < nd; u++) {
            for (int32_t i = 0; i < n; i++) {
                if (r->oom[i].device == sim_symmetry_rep(s, u)) {
                    oom[m] = r->oom[i];
                    oom[m++].device = u;
                }
            }
        }
        free(r->oom);
        r->oom = oom;
        r->n_oom = m;
    }
    for (int32_t u = 0; u < nd; u++) {
        int32_t v = sim_symmetry_rep(s, u);

        if (v == u) {
            continue;
        }
        r->dev[u] = r->dev[v];
        if (r->peak_kind_bytes) {
            memcpy(r->peak_kind_bytes + (size_t)u * MEM_KIND_N,
                   r->peak_kind_bytes + (size_t)v * MEM_KIND_N,
                   MEM_KIND_N * sizeof(*r->peak_kind_bytes));
        }
    }
    return 0;
}
