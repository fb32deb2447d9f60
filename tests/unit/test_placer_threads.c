/*
 * test_placer_threads.c - placers from several threads at once (the
 * library's handles are documented as usable from different threads): two
 * different workloads placed concurrently with m-topo, m-etf and auto give
 * the placements (and return codes) of a sequential run.  m-TOPO once
 * sorted through a file-level pointer, so two threads raced (issue 20).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include <criterion/criterion.h>

#include "core/cluster.h"
#include "core/err.h"
#include "core/graph.h"
#include "core/placement.h"
#include "core/workload.h"
#include "placers/placer.h"
#include "workloads/gen_synthetic.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { N_WORKLOADS = 2, N_PLACERS = 3, N_JOBS = N_WORKLOADS * N_PLACERS, ROUNDS = 3 };

static const char *const placers[N_PLACERS] = {"m-topo", "m-etf", "auto"};

struct job {
    const struct graph *g;
    const struct cluster *c;
    const char *placer;
    int rc;
    int32_t *dev; /* n_ops, or NULL when rc != 0 */
};

static void job_place(struct job *j)
{
    struct placer_options o;
    struct placement pl;
    struct placer_stats st;

    placer_options_init(&o);
    o.memory_fraction = 0.5;
    o.budget_ms = 5; /* auto: a short search, still counted in work, not time */
    j->dev = NULL;
    j->rc = placer_run(j->placer, j->g, j->c, &o, NULL, &pl, &st);
    if (j->rc == 0) {
        j->dev = malloc((size_t)j->g->n_ops * sizeof(int32_t));
        if (j->dev) {
            memcpy(j->dev, pl.device_of, (size_t)j->g->n_ops * sizeof(int32_t));
        }
        placement_release(&pl);
        placer_stats_release(&st);
    }
}

static void *job_thread(void *arg)
{
    struct job *jobs = arg;

    for (int r = 0; r < ROUNDS; r++) {
        job_place(&jobs[r]);
    }
    return NULL;
}

static void build(struct graph *g, enum synth_shape shape, uint64_t seed)
{
    struct synth_opts o;
    struct workload w;

    synth_opts_init(&o);
    o.shape = shape;
    o.n_ops = 120;
    o.seed = seed;
    o.group_size = 2;
    workload_init(&w);
    cr_assert_eq(gen_synthetic(&w, &o), 0, "%s", err_msg());
    cr_assert_eq(graph_build(g, &w), 0, "%s", err_msg());
    workload_release(&w);
}

Test(placer_threads, concurrent_placements_equal_sequential, .timeout = 120)
{
    struct graph g[N_WORKLOADS];
    struct cluster c;
    struct job seq[N_JOBS], par[N_JOBS][ROUNDS];
    pthread_t th[N_JOBS];

    build(&g[0], SYNTH_LAYERED, 1);
    build(&g[1], SYNTH_RANDOM, 2);
    cr_assert_eq(cluster_load(&c, "paper-4gpu-pcie"), 0, "%s", err_msg());
    for (int k = 0; k < N_JOBS; k++) {
        seq[k] = (struct job){&g[k / N_PLACERS], &c, placers[k % N_PLACERS], 0, NULL};
        job_place(&seq[k]);
        for (int r = 0; r < ROUNDS; r++) {
            par[k][r] = seq[k];
        }
    }
    for (int k = 0; k < N_JOBS; k++) {
        cr_assert_eq(pthread_create(&th[k], NULL, job_thread, par[k]), 0);
    }
    for (int k = 0; k < N_JOBS; k++) {
        cr_assert_eq(pthread_join(th[k], NULL), 0);
    }
    for (int k = 0; k < N_JOBS; k++) {
        for (int r = 0; r < ROUNDS; r++) {
            const struct job *a = &seq[k], *b = &par[k][r];

            cr_assert_eq(b->rc, a->rc, "%s on workload %d, round %d: rc %d, sequential %d",
                         a->placer, k / N_PLACERS, r, b->rc, a->rc);
            if (a->rc == 0) {
                cr_assert(a->dev && b->dev);
                cr_assert_arr_eq(b->dev, a->dev, (size_t)a->g->n_ops * sizeof(int32_t),
                                 "%s on workload %d, round %d: another placement", a->placer,
                                 k / N_PLACERS, r);
            }
            free(par[k][r].dev);
        }
        free(seq[k].dev);
    }
    cluster_release(&c);
    graph_release(&g[0]);
    graph_release(&g[1]);
}
