/*
 * sweep_limit.c - the cap on a sweep's runs: the grid's size counted from
 * the parsed file, before any point is expanded or any workload loaded (a
 * 1000 x 1000 x 1000 grid used to grow past 6.5 GB in a dry run).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "results/sweep.h"

#include "core/err.h"
#include "results/sweep_internal.h"

#include <inttypes.h>
#include <stdio.h>

/* The grid's factors, in file order (the product's terms in messages). */
static int32_t grid_factors(const struct sweep_spec *s, int32_t size[13], const char *name[13])
{
    int32_t n = 0;

#define FACTOR(v, nm)                                                                              \
    do {                                                                                           \
        size[n] = (v);                                                                             \
        name[n++] = (nm);                                                                          \
    } while (0)
    FACTOR(s->workloads.n, "workloads");
    FACTOR(s->clusters.n, "clusters");
    FACTOR(s->n_devices, "devices");
    FACTOR(s->placers.n, "placers");
    FACTOR(s->n_groupers, "groupers");
    FACTOR(s->n_fusion, "fusion");
    FACTOR(s->n_memory_fractions, "memory_fractions");
    FACTOR(s->n_comm_factors, "comm_factors");
    FACTOR(s->n_compute_factors, "compute_factors");
    FACTOR(s->n_lp_solvers, "lp_solver");
    FACTOR(s->n_seeds, "seeds");
    FACTOR(s->repeats, "repeats");
    FACTOR(s->n_models, "models");
#undef FACTOR
    return n;
}

bool sweep_spec_runs(const struct sweep_spec *s, int64_t *n_runs)
{
    int32_t size[13];
    const char *name[13];
    int32_t n = grid_factors(s, size, name);
    int64_t p = 1;

    for (int32_t i = 0; i < n; i++) {
        if (size[i] <= 0) {
            *n_runs = 0;
            return true;
        }
    }
    for (int32_t i = 0; i < n; i++) {
        if (p > INT64_MAX / size[i]) {
            *n_runs = INT64_MAX;
            return false;
        }
        p *= size[i];
    }
    *n_runs = p;
    return true;
}

/* Refuses a grid of more than max_runs runs, before anything is expanded. */
int sweep_check_runs(const struct sweep_spec *s, int64_t max_runs)
{
    int32_t size[13];
    const char *name[13];
    int32_t n = grid_factors(s, size, name);
    char terms[512], total[48];
    size_t len = 0;
    int64_t runs;
    bool fits = sweep_spec_runs(s, &runs);

    if (fits && runs <= max_runs) {
        return 0;
    }
    terms[0] = '\0';
    for (int32_t i = 0; i < n; i++) {
        if (size[i] > 1 && len < sizeof(terms)) {
            len += (size_t)snprintf(terms + len, sizeof(terms) - len, "%s%d %s", len ? " x " : "",
                                    (int)size[i], name[i]);
        }
    }
    if (fits) {
        snprintf(total, sizeof(total), "%" PRId64, runs);
    } else {
        snprintf(total, sizeof(total), "more than %" PRId64, INT64_MAX);
    }
    return err_set(BAECHI_EINVAL,
                   "%s: the sweep has %s runs (%s), more than the cap of %" PRId64
                   " runs: shorten the lists, or raise the cap (baechi sweep --max-runs N)",
                   s->path, total, terms, max_runs);
}
