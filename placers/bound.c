/*
 * bound.c - the certified lower bound (bound.h): the simple and work
 * bounds, and the choice among them, the memory-aware path bound
 * (bound_path.c) and the LP's (bound_lp.c).  Beyond the original.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/bound.h"
#include "placers/bound_internal.h"

#include "core/alloc.h"
#include "core/checked.h"
#include "core/err.h"
#include "core/limits.h"
#include "sim/sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void bound_options_init(struct bound_options *o)
{
    o->lp = true;
    o->lp_max_ops = BOUND_LP_MAX_OPS_DEFAULT;
    o->lp_solver = PLACER_LP_AUTO;
}

const char *bound_kind_name(enum bound_kind k)
{
    switch (k) {
    case BOUND_MEMORY:
        return "memory";
    case BOUND_LP:
        return "lp";
    case BOUND_SIMPLE:
    default:
        return "simple";
    }
}

int64_t bound_comm_min_us(const struct cluster *c, int64_t bytes)
{
    int64_t best = cluster_comm_default_us(c, bytes);

    for (int32_t s = 0; s < c->n_devices; s++) {
        for (int32_t d = 0; d < c->n_devices; d++) {
            if (s != d) {
                int64_t t = cluster_comm_us(c, s, d, bytes);

                best = t < best ? t : best;
            }
        }
    }
    return best;
}

/*
 * Σ compute / Σ speed (the critical path comes from bound_memory), with the
 * speeds as the rounded compute times make them: device d runs op v for
 * t(v,d) >= r_d * weight(v), r_d = min over the ops of t(v,d) / weight(v),
 * so T >= load(d) gives Σ_d T / r_d >= Σ weight.  deviation (of
 * sim_lower_bound_us, kept as it is): that divides by the nominal speeds,
 * but cluster_compute_us rounds to the nearest µs (5 µs of work takes 2 µs
 * at speed 2), so on mixed speeds it can exceed the optimum (found by
 * tests/unit/test_bound.c).  With every speed 1 both are the same.
 */
static int work_bound(const struct graph *g, const struct cluster *c, const struct bound_classes *k,
                      int64_t *lb_us)
{
    /* r_d depends on d's speed alone: one per distinct speed, each counted
     * for its devices (the same sum, in the order of the speeds) */
    double *r = mem_alloc_array((size_t)k->n_speeds + 1, sizeof(*r));
    double total = 0, speed = 0, x;

    if (!r) {
        return err_set(BAECHI_ENOMEM, "out of memory for %d devices", c->n_devices);
    }
    for (int32_t i = 0; i < k->n_speeds; i++) {
        r[i] = INFINITY;
    }
    for (int32_t v = 0; v < g->n_ops; v++) {
        double w = g->weight_us[v] > 0 ? (double)g->weight_us[v] : 1;

        total += w;
        for (int32_t i = 0; i < k->n_speeds; i++) {
            double q = (double)cluster_compute_us(c, k->speed_dev[i], g->weight_us[v]) / w;

            r[i] = q < r[i] ? q : r[i];
        }
    }
    for (int32_t d = 0; d < c->n_devices && g->n_ops > 0; d++) {
        int32_t i = 0;

        while (k->speed_dev[i] != d && c->dev[k->speed_dev[i]].speed != c->dev[d].speed) {
            i++;
        }
        speed += 1.0 / r[i];
    }
    free(r);
    x = speed > 0 ? total / speed : 0;
    x = ceil(x - 1e-9 * x); /* a quotient that should be an integer may come out above */
    *lb_us = limit_sat_time_us(x);
    return 0;
}

int bound_compute(const struct graph *g, const struct cluster *c, const struct bound_options *opt,
                  struct bound_result *r)
{
    struct bound_options def;
    struct bound_classes k;
    int rc;

    if (!opt) {
        bound_options_init(&def);
        opt = &def;
    }
    memset(r, 0, sizeof(*r));
    r->lp_us = -1;
    r->kind = BOUND_SIMPLE;
    if ((rc = sim_lower_bound_us(g, c, &r->old_simple_us)) != 0) {
        return rc;
    }
    if ((rc = bound_classes_build(c, 0, &k)) != 0) {
        return rc;
    }
    rc = work_bound(g, c, &k, &r->simple_us);
    if (rc == 0) {
        rc = bound_memory(g, c, &k, r); /* the critical path into simple_us too */
    }
    bound_classes_release(&k);
    if (rc != 0) {
        return rc;
    }
    r->lower_bound_us = r->simple_us;
    if (r->memory_us > r->lower_bound_us) {
        r->lower_bound_us = r->memory_us;
        r->kind = BOUND_MEMORY;
    }
    if ((rc = bound_lp(g, c, opt, r)) != 0) {
        return rc;
    }
    if (r->lp_us > r->lower_bound_us) {
        r->lower_bound_us = r->lp_us;
        r->kind = BOUND_LP;
    }
    return 0;
}
