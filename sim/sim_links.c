/*
 * sim_links.c - the device pairs a simulation keeps counters for
 * (sim_links.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "sim/sim_links.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"
#include "sim/collective.h"

#include <stdlib.h>
#include <string.h>

int sim_links_init_dense(struct sim_links *l, int32_t nd)
{
    memset(l, 0, sizeof(*l));
    l->nd = nd;
    l->n = (size_t)nd * (size_t)nd;
    return 0;
}

void sim_links_release(struct sim_links *l)
{
    free(l->src);
    free(l->dst);
    free(l->slot);
    memset(l, 0, sizeof(*l));
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/* Appends key s * nd + d to *keys (s != d). */
static int key_add(uint64_t **keys, size_t *n, size_t *alloc, int32_t nd, int32_t s, int32_t d)
{
    if (*n == *alloc && ARRAY_RESERVE(*keys, *alloc, *n + 1)) {
        return BAECHI_ENOMEM;
    }
    (*keys)[(*n)++] = (uint64_t)s * (uint64_t)nd + (uint64_t)d;
    return 0;
}

/* The keys of every pair g's traffic uses, unsorted, with repeats. */
static int keys_collect(const struct graph *g, const struct cluster *c, const int32_t *device_of,
                        uint64_t **keys, size_t *n, size_t *alloc)
{
    const int32_t nd = c->n_devices;
    int rc;

    for (int32_t e = 0; e < g->n_edges; e++) {
        int32_t a = device_of[g->edge_src[e]], b = device_of[g->edge_dst[e]];

        if (a != b && (rc = key_add(keys, n, alloc, nd, a, b)) != 0) {
            return rc;
        }
    }
    for (int32_t ci = 0; g->coll_of && ci < g->n_coll; ci++) {
        struct coll_plan p;

        if ((rc = coll_plan_make(&p, g, c, device_of, ci)) != 0) {
            return rc;
        }
        for (int32_t k = 0; k < p.n_edge && !rc; k++) {
            rc = key_add(keys, n, alloc, nd, p.edge[k].src, p.edge[k].dst);
        }
        coll_plan_release(&p);
        if (rc) {
            return rc;
        }
    }
    return 0;
}

int sim_links_init_placed(struct sim_links *l, const struct graph *g, const struct cluster *c,
                          const int32_t *device_of)
{
    const int32_t nd = c->n_devices;
    uint64_t *keys = NULL;
    size_t n = 0, alloc = 0, u = 0, slots = 2;
    int bits = 1, rc;

    if (nd <= SIM_LINKS_DENSE_MAX) {
        return sim_links_init_dense(l, nd);
    }
    memset(l, 0, sizeof(*l));
    l->nd = nd;
    if ((rc = keys_collect(g, c, device_of, &keys, &n, &alloc)) != 0) {
        goto fail;
    }
    if (n) {
        qsort(keys, n, sizeof(*keys), cmp_u64);
    }
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || keys[i] != keys[i - 1]) {
            keys[u++] = keys[i];
        }
    }
    while (slots < 2 * u + 2) {
        slots *= 2;
        bits++;
    }
    l->n = u;
    l->shift = 64 - bits;
    l->src = mem_alloc_array(u + 1, sizeof(*l->src));
    l->dst = mem_alloc_array(u + 1, sizeof(*l->dst));
    l->slot = mem_alloc_array(slots, sizeof(*l->slot));
    if (!l->src || !l->dst || !l->slot) {
        rc = BAECHI_ENOMEM;
        goto fail;
    }
    memset(l->slot, 0xff, slots * sizeof(*l->slot)); /* -1: empty */
    for (size_t i = 0; i < u; i++) {
        uint64_t h;

        l->src[i] = (int32_t)(keys[i] / (uint64_t)nd);
        l->dst[i] = (int32_t)(keys[i] % (uint64_t)nd);
        for (h = sim_links_hash_(l, l->src[i], l->dst[i]); l->slot[h] >= 0;
             h = (h + 1) & (slots - 1)) {
        }
        l->slot[h] = (int32_t)i;
    }
    free(keys);
    return 0;

fail:
    free(keys);
    sim_links_release(l);
    return rc;
}

size_t sim_links_at(const struct sim_links *l, int32_t s, int32_t d)
{
    int64_t i = sim_links_find(l, s, d);

    if (i < 0) {
        BUG("link %d -> %d is not among the %zu the placement uses", s, d, l->n);
    }
    return (size_t)i;
}
