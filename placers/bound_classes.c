/*
 * bound_classes.c - device classes of a cluster (bound.h, "Device
 * classes"): devices alike in every number a placer or a simulator reads,
 * and the link models between the classes, so that work per tensor or per
 * trial need not visit every device pair.  Beyond the original.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/bound.h"

#include "core/alloc.h"
#include "core/err.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Two doubles alike (NAN alike NAN: an absent number). */
static bool same_num(double a, double b)
{
    return a == b || (isnan(a) && isnan(b));
}

/* Devices d and e alike in everything but their node and name. */
static bool same_device(const struct cluster *c, int32_t d, int32_t e)
{
    const struct cluster_device *x = &c->dev[d], *y = &c->dev[e];

    if ((x->kind == NULL) != (y->kind == NULL) || (x->kind && strcmp(x->kind, y->kind) != 0)) {
        return false;
    }
    return x->mem_bytes == y->mem_bytes && same_num(x->speed, y->speed) &&
           same_num(x->peak_flops, y->peak_flops) &&
           same_num(x->mem_bw_bytes_per_s, y->mem_bw_bytes_per_s) &&
           same_num(x->launch_us, y->launch_us);
}

static bool same_model(struct comm_model a, struct comm_model b)
{
    return a.slope_us_per_byte == b.slope_us_per_byte && a.intercept_us == b.intercept_us;
}

void bound_classes_release(struct bound_classes *k)
{
    free(k->class_of);
    free(k->first);
    free(k->size);
    free(k->link_src);
    free(k->link_dst);
    free(k->speed_dev);
    free(k->speed_count);
    memset(k, 0, sizeof(*k));
}

/* The classes: alike devices of one node (node 0 for all without nodes). */
static void assign_classes(const struct cluster *c, struct bound_classes *k)
{
    for (int32_t d = 0; d < k->n_devices; d++) {
        int32_t a = 0;

        for (; a < k->n_classes; a++) {
            int32_t f = k->first[a];

            if (cluster_node_of(c, f) == cluster_node_of(c, d) && same_device(c, f, d)) {
                break;
            }
        }
        if (a == k->n_classes) {
            k->first[a] = d;
            k->size[a] = 0;
            k->n_classes++;
        }
        k->class_of[d] = a;
        k->size[a]++;
    }
}

/* The distinct speeds, a device and a count of each. */
static void assign_speeds(const struct cluster *c, struct bound_classes *k)
{
    for (int32_t d = 0; d < k->n_devices; d++) {
        int32_t i = 0;

        while (i < k->n_speeds && !(c->dev[k->speed_dev[i]].speed == c->dev[d].speed)) {
            i++;
        }
        if (i == k->n_speeds) {
            k->speed_dev[i] = d;
            k->speed_count[i] = 0;
            k->n_speeds++;
        }
        k->speed_count[i]++;
    }
}

/*
 * Whether every ordered pair (s, d), s != d, of classes (a, b) has one link
 * model, the first pair seen of each (a, b) into rep (C x C, -1 none seen):
 * one pass over the pairs, each compared with its class pair's first.
 */
static bool check_links(const struct cluster *c, const struct bound_classes *k, int64_t *rep)
{
    int32_t nc = k->n_classes;

    for (size_t i = 0; i < (size_t)nc * (size_t)nc; i++) {
        rep[i] = -1;
    }
    for (int32_t s = 0; s < k->n_devices; s++) {
        int64_t *row = &rep[(size_t)k->class_of[s] * (size_t)nc];

        for (int32_t d = 0; d < k->n_devices; d++) {
            int64_t *r = &row[k->class_of[d]];

            if (s == d) {
                continue;
            }
            if (*r < 0) {
                *r = (int64_t)s * k->n_devices + d;
            } else if (!same_model(cluster_comm_model(c, s, d),
                                   cluster_comm_model(c, (int32_t)(*r / k->n_devices),
                                                      (int32_t)(*r % k->n_devices)))) {
                return false;
            }
        }
    }
    return true;
}

/* The distinct models of rep's pairs into k->link_src/dst. */
static void collect_links(const struct cluster *c, struct bound_classes *k, const int64_t *rep)
{
    size_t nn = (size_t)k->n_classes * (size_t)k->n_classes;

    for (size_t i = 0; i < nn; i++) {
        int32_t s, d, j = 0;

        if (rep[i] < 0) {
            continue;
        }
        s = (int32_t)(rep[i] / k->n_devices);
        d = (int32_t)(rep[i] % k->n_devices);
        while (j < k->n_links &&
               !same_model(cluster_comm_model(c, s, d),
                           cluster_comm_model(c, k->link_src[j], k->link_dst[j]))) {
            j++;
        }
        if (j == k->n_links) {
            k->link_src[j] = s;
            k->link_dst[j] = d;
            k->n_links++;
        }
    }
}

/*
 * Interchangeable classes: contiguous and of one size, alike devices, one
 * model inside every class and one between any two (rep from check_links).
 * Then a permutation of the classes and of the devices inside each maps
 * the cluster onto itself.
 */
static bool check_uniform(const struct cluster *c, const struct bound_classes *k,
                          const int64_t *rep)
{
    int32_t nc = k->n_classes, sz = k->size[0];
    int64_t in0 = rep[0], out0 = nc > 1 ? rep[1] : -1;

    for (int32_t d = 0; d < k->n_devices; d++) {
        if (k->class_of[d] != d / sz || !same_device(c, 0, d)) {
            return false;
        }
    }
    for (int32_t a = 0; a < nc; a++) {
        for (int32_t b = 0; b < nc; b++) {
            int64_t r = rep[(size_t)a * (size_t)nc + (size_t)b], r0 = a == b ? in0 : out0;

            if ((r < 0) != (r0 < 0)) {
                return false;
            }
            if (r >= 0 && !same_model(cluster_comm_model(c, (int32_t)(r / k->n_devices),
                                                         (int32_t)(r % k->n_devices)),
                                      cluster_comm_model(c, (int32_t)(r0 / k->n_devices),
                                                         (int32_t)(r0 % k->n_devices)))) {
                return false;
            }
        }
    }
    return true;
}

/*
 * The links of a cluster whose pair models come from its nodes on demand
 * (no n x n table: core/cluster.h, CLUSTER_EXPAND_MAX_DEVICES): a pair's
 * model is the node's intra model or the inter one, so the classes (inside
 * one node each) are symmetric by construction, with at most two link
 * models, and uniform when the devices are alike and fill whole nodes (each
 * class a node).  No pass over the pairs: O(classes).
 */
static int node_links(const struct cluster *c, struct bound_classes *k)
{
    const int32_t g = c->nodes.gpus_per_node;
    bool alike = true;

    if (!(k->link_src = mem_alloc_array(2, sizeof(int32_t))) ||
        !(k->link_dst = mem_alloc_array(2, sizeof(int32_t)))) {
        return BAECHI_ENOMEM;
    }
    k->symmetric = true;
    if (g > 1) { /* inside a node: devices 0 and 1 */
        k->link_src[k->n_links] = 0;
        k->link_dst[k->n_links++] = 1;
    }
    if (k->n_devices > g &&
        (g == 1 || !same_model(cluster_comm_model(c, 0, 1), cluster_comm_model(c, 0, g)))) {
        k->link_src[k->n_links] = 0; /* between nodes: node 0 to node 1 */
        k->link_dst[k->n_links++] = g;
    }
    for (int32_t d = 1; d < k->n_devices && alike; d++) {
        alike = same_device(c, 0, d);
    }
    k->uniform = alike && k->n_devices % g == 0;
    return 0;
}

int bound_classes_build(const struct cluster *c, int32_t n, struct bound_classes *k)
{
    size_t nd;
    int64_t *rep = NULL;
    int rc = 0;

    memset(k, 0, sizeof(*k));
    k->n_devices = n > 0 && n < c->n_devices ? n : c->n_devices;
    nd = (size_t)k->n_devices + 1;
    k->class_of = mem_alloc_array(nd, sizeof(int32_t));
    k->first = mem_alloc_array(nd, sizeof(int32_t));
    k->size = mem_alloc_array(nd, sizeof(int32_t));
    k->speed_dev = mem_alloc_array(nd, sizeof(int32_t));
    k->speed_count = mem_alloc_array(nd, sizeof(int32_t));
    if (!k->class_of || !k->first || !k->size || !k->speed_dev || !k->speed_count) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    assign_classes(c, k);
    assign_speeds(c, k);
    if (k->n_devices < 2) {
        k->symmetric = k->uniform = true; /* no pairs */
        goto cleanup;
    }
    if (!c->pair && c->nodes.gpus_per_node > 0) {
        rc = node_links(c, k); /* a large cluster's models from its nodes, no table */
        goto cleanup;
    }
    if (!c->pair) { /* every pair on the default model */
        k->symmetric = true;
        k->uniform = k->n_classes == 1;
        if (!(k->link_src = mem_alloc_array(1, sizeof(int32_t))) ||
            !(k->link_dst = mem_alloc_array(1, sizeof(int32_t)))) {
            rc = BAECHI_ENOMEM;
            goto cleanup;
        }
        k->link_src[0] = 0;
        k->link_dst[0] = 1;
        k->n_links = 1;
        goto cleanup;
    }
    if (k->n_classes > BOUND_CLASSES_MAX) {
        goto cleanup; /* not symmetric: the per-pair path */
    }
    rep = mem_alloc_array((size_t)k->n_classes * (size_t)k->n_classes, sizeof(*rep));
    k->link_src = mem_alloc_array((size_t)k->n_classes * (size_t)k->n_classes, sizeof(int32_t));
    k->link_dst = mem_alloc_array((size_t)k->n_classes * (size_t)k->n_classes, sizeof(int32_t));
    if (!rep || !k->link_src || !k->link_dst) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    if ((k->symmetric = check_links(c, k, rep))) {
        collect_links(c, k, rep);
        k->uniform = check_uniform(c, k, rep);
    }
cleanup:
    free(rep);
    if (rc) {
        bound_classes_release(k);
        err_set(rc, "out of memory for the classes of %d devices", (int)c->n_devices);
    }
    return rc;
}

int64_t bound_classes_comm_min_us(const struct bound_classes *k, const struct cluster *c,
                                  int64_t bytes)
{
    int64_t best;

    if (!k->symmetric) {
        return bound_comm_min_us(c, bytes);
    }
    best = cluster_comm_default_us(c, bytes);
    for (int32_t j = 0; j < k->n_links; j++) {
        int64_t t = cluster_comm_us(c, k->link_src[j], k->link_dst[j], bytes);

        best = t < best ? t : best;
    }
    return best;
}

int32_t bound_classes_prefix(const struct bound_classes *k, int32_t n_used)
{
    int32_t m, sz, p;

    if (!k->uniform || n_used >= k->n_devices) {
        return k->n_devices;
    }
    n_used = n_used < 1 ? 1 : n_used;
    sz = k->size[0];
    m = n_used < k->n_classes ? n_used : k->n_classes;
    /* m - 1 whole classes and the first min(n_used, sz) of the m-th:
     * every class used and every device used inside one mapped first. */
    p = (m - 1) * sz + (n_used < sz ? n_used : sz);
    return p < k->n_devices ? p : k->n_devices;
}

int bound_classes_copy_prefix(struct cluster *dst, const struct cluster *src, int32_t n)
{
    struct cluster head = *src;
    int rc;

    /* Copy the first n devices without the n x n pair table, then that
     * table's first n x n: the whole table may be far larger. */
    head.n_devices = n;
    head.pair = NULL;
    if ((rc = cluster_copy(dst, &head)) != 0) {
        return rc;
    }
    if (src->pair) {
        if (!(dst->pair = mem_alloc_array((size_t)n * (size_t)n, sizeof(*dst->pair)))) {
            cluster_release(dst);
            return err_set(BAECHI_ENOMEM, "out of memory copying %d devices of cluster '%s'",
                           (int)n, src->name ? src->name : "?");
        }
        for (int32_t s = 0; s < n; s++) {
            memcpy(&dst->pair[(size_t)s * (size_t)n],
                   &src->pair[(size_t)s * (size_t)src->n_devices], (size_t)n * sizeof(*dst->pair));
        }
    }
    return 0;
}
