/*
 * baselines.c - placements that are not the paper's algorithms, for
 * comparison: `single`, `round-robin`, `random`, `given`, `expert`.
 *
 *   single       every op on device 0 (running out of memory is a result of
 *                the simulation, not an error here);
 *   round-robin  colocation groups in the order of their first op in topo
 *                order, dealt to devices 0, 1, ..., K-1, 0, ...;
 *   random       each colocation group on a device drawn uniformly with
 *                splitmix64(seed) (core/rng.h; groups in id order; same seed, same result);
 *   given        the workload's `device` fields, with placement_from_given's
 *                rule for ops without one (the first given device of the
 *                op's group, else its first producer's device, else 0);
 *   expert       the model's hand-made placement: for GNMT the workload's
 *                `device` fields ARE that placement, so `expert` = `given`
 *                when at least one op has a `device` field, else an error.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/placer_internal.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/rng.h"

#include <stdlib.h>
#include <string.h>

int baseline_place(const char *name, const struct graph *g, const int32_t *group_of,
                   int32_t n_groups, int32_t n_dev, uint64_t seed, struct placement *pl)
{
    int32_t *gdev = NULL;
    int rc = 0;

    if (strcmp(name, "given") == 0 || strcmp(name, "expert") == 0) {
        bool any = false;
        for (int32_t v = 0; v < g->n_ops; v++) {
            any |= g->given_device[v] >= 0;
        }
        if (!any && strcmp(name, "expert") == 0) {
            return err_set(BAECHI_EINVAL, "placer 'expert': this workload defines no expert "
                                          "placement (no op has a `device` field)");
        }
        if ((rc = placement_from_given(pl, g)) != 0) {
            return rc;
        }
        for (int32_t v = 0; v < g->n_ops; v++) {
            if (pl->device_of[v] < 0 || pl->device_of[v] >= n_dev) {
                return err_set(BAECHI_EINVAL,
                               "placer '%s': op '%s' is given device %d but the cluster has %d "
                               "device%s in use",
                               name, g->op_name[v], (int)pl->device_of[v], (int)n_dev,
                               n_dev == 1 ? "" : "s");
            }
        }
        return 0;
    }
    gdev = mem_alloc_array((size_t)n_groups + 1, sizeof(int32_t));
    if (!gdev) {
        return BAECHI_ENOMEM;
    }
    for (int32_t k = 0; k < n_groups; k++) {
        gdev[k] = -1;
    }
    if (strcmp(name, "single") == 0) {
        for (int32_t k = 0; k < n_groups; k++) {
            gdev[k] = 0;
        }
    } else if (strcmp(name, "round-robin") == 0) {
        int32_t next = 0;
        for (int32_t i = 0; i < g->n_ops; i++) {
            int32_t k = group_of[g->topo_op[i]];
            if (gdev[k] < 0) {
                gdev[k] = next;
                next = (next + 1) % n_dev;
            }
        }
    } else if (strcmp(name, "random") == 0) {
        uint64_t st = seed;
        for (int32_t k = 0; k < n_groups; k++) {
            gdev[k] = (int32_t)(rng_next(&st) % (uint64_t)n_dev);
        }
    } else {
        free(gdev);
        return err_set(BAECHI_EINVAL, "unknown baseline placer '%s'", name);
    }
    for (int32_t v = 0; v < g->n_ops; v++) {
        pl->device_of[v] = gdev[group_of[v]];
    }
    free(gdev);
    return 0;
}
