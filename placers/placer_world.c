/*
 * placer_world.c - the world of a placement (placer_world.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/placer_world.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/hash.h"
#include "core/limits.h"

#include <stdlib.h>

int placer_world(struct cluster *c, const struct placer_options *opt)
{
    int rc;

    if (opt->n_devices > 0 && opt->n_devices < c->n_devices &&
        (rc = cluster_truncate(c, opt->n_devices))) {
        return rc;
    }
    if (opt->comm_factor != 1.0) {
        cluster_scale_comm(c, opt->comm_factor);
    }
    if (opt->memory_fraction != 1.0) {
        cluster_scale_memory(c, opt->memory_fraction);
    }
    return 0;
}

void placer_world_weights(const struct graph *g, const struct placer_options *opt, int64_t *out)
{
    for (int32_t v = 0; v < g->n_ops; v++) {
        int64_t w = limit_sat_time_us((double)g->weight_us[v] * opt->compute_factor);

        out[v] = opt->compute_factor == 1.0 ? g->weight_us[v] : (w <= 0 ? 1 : w);
    }
}

int placer_world_graph(const struct graph *g0, const struct placer_options *opt, struct graph *g,
                       int64_t **weights)
{
    *g = *g0;
    *weights = NULL;
    if (opt->compute_factor == 1.0) {
        return 0;
    }
    if (!(*weights = mem_alloc_array((size_t)g0->n_ops + 1, sizeof(**weights)))) {
        return BAECHI_ENOMEM;
    }
    placer_world_weights(g0, opt, *weights);
    g->weight_us = *weights;
    return 0;
}

int placer_world_record(struct placement *pl, const struct cluster *c,
                        const struct placer_options *opt)
{
    char hex[HASH_HEX_SIZE];
    int32_t n = opt->n_devices > 0 && opt->n_devices < c->n_devices ? opt->n_devices : c->n_devices;
    int rc;

    if ((rc = hash_cluster(c, hex)) != 0) {
        return rc;
    }
    return placement_set_made_for(pl, hex, n, opt->memory_fraction);
}
