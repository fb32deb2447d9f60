/*
 * Unit tests: the incremental re-simulation's cutoffs (sim/sim_incr.h) are
 * lower bounds.  A trial whose cutoff lies one microsecond above its true
 * step must never be cut, whatever bound the trial uses (the tail of the
 * ops after it at the fastest speed, the base placement's tail with its
 * transfers once every moved op has started, a device's remaining work,
 * the checkpoint prefix), and must then equal the full simulation.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/err.h"
#include "sim/sim.h"
#include "sim/sim_incr.h"
#include "simtest.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { INCR_OPS = 60, INCR_DEVICES = 3, INCR_TRIALS = 300 };

/* A random DAG of n ops, two inputs each, with sizeable transfers. */
static void incr_dag(struct graph *g, int n, uint64_t s)
{
    cr_assert(n <= INCR_OPS);
    err_set_quiet(1);
    cr_assert_eq(simtest_dag2(g, n, s, "4000", 0, 0), 0, "%s", err_msg());
}

Test(sim_incr, a_cutoff_above_the_true_step_never_cuts)
{
    int64_t trials = 0, resumed_cut_checks = 0;

    for (uint64_t seed = 1; seed <= 6; seed++) {
        struct graph g;
        struct cluster c;
        struct sim_incr *in = NULL;
        struct sim_result base, full, r;
        struct sim_options so = {.model = SIM_MODEL_TIMED, .trace = NULL};
        int32_t dev[INCR_OPS], trial[INCR_OPS];
        uint64_t s = seed * 7919, visits;
        bool cut;

        incr_dag(&g, INCR_OPS, seed);
        cr_assert_eq(simtest_cluster(&c, INCR_DEVICES, 0, 0.005, 10, CHANNEL_DUPLEX), 0);
        sim_result_init(&base);
        sim_result_init(&full);
        sim_result_init(&r);
        for (int32_t v = 0; v < g.n_ops; v++) {
            dev[v] = (int32_t)(simtest_rand(&s) % INCR_DEVICES);
        }
        cr_assert_eq(sim_incr_new(&g, &c, &in), 0, "%s", err_msg());
        cr_assert_eq(sim_incr_base(in, dev, &base, &visits), 0, "%s", err_msg());
        for (int t = 0; t < INCR_TRIALS; t++) {
            int moves = 1 + (int)(simtest_rand(&s) % 3);

            memcpy(trial, dev, sizeof(trial));
            for (int m = 0; m < moves; m++) {
                trial[simtest_rand(&s) % (uint64_t)g.n_ops] =
                    (int32_t)(simtest_rand(&s) % INCR_DEVICES);
            }
            sim_result_release(&full);
            cr_assert_eq(sim_run(&g, &c, trial, &so, &full), 0, "%s", err_msg());
            cr_assert_eq(sim_incr_run(in, trial, full.step_us + 1, &r, &cut, &visits), 0, "%s",
                         err_msg());
            cr_expect(!cut, "seed %llu trial %d: cut at a cutoff above its step %lld",
                      (unsigned long long)seed, t, (long long)full.step_us);
            if (!cut) {
                cr_expect_eq(r.step_us, full.step_us, "seed %llu trial %d",
                             (unsigned long long)seed, t);
                for (int32_t v = 0; v < g.n_ops; v++) {
                    cr_expect_eq(r.end_us[v], full.end_us[v], "seed %llu trial %d op %d",
                                 (unsigned long long)seed, t, v);
                }
            }
            /* at the true step itself every trial ends cut or at that step */
            cr_assert_eq(sim_incr_run(in, trial, full.step_us, &r, &cut, &visits), 0);
            cr_expect(cut || r.step_us == full.step_us);
            resumed_cut_checks += cut;
            trials++;
            if (full.step_us < base.step_us) {
                /* the better trial becomes the base, as in the search */
                memcpy(dev, trial, sizeof(dev));
                cr_assert_eq(sim_incr_base(in, dev, &base, &visits), 0, "%s", err_msg());
            }
        }
        sim_incr_free(in);
        sim_result_release(&base);
        sim_result_release(&full);
        sim_result_release(&r);
        cluster_release(&c);
        graph_release(&g);
    }
    cr_expect_gt(resumed_cut_checks, trials / 2, "the bounds fired in %lld of %lld trials",
                 (long long)resumed_cut_checks, (long long)trials);
}

/*
 * The running ops' ends kept beside the event queue (sim_timed_internal.h,
 * up to TIMED_END_SLOTS_MAX devices) give the same run as ends queued as
 * events (more devices): the same placement on 3 devices of a 3-device
 * cluster and of a 17-device one (the others idle), ends in ties included
 * (compute times that are multiples of 10 µs, zero-time ops).
 */
Test(sim_incr, ends_beside_the_queue_equal_ends_in_the_queue)
{
    int64_t ties = 0;

    for (uint64_t seed = 1; seed <= 20; seed++) {
        struct simtest_op ops[INCR_OPS];
        char names[INCR_OPS][8], inputs[INCR_OPS][32];
        struct graph g;
        struct cluster few, many;
        struct sim_result a, b;
        struct sim_options so = {.model = SIM_MODEL_TIMED, .trace = NULL};
        int32_t dev[INCR_OPS];
        uint64_t s = seed;

        for (int i = 0; i < INCR_OPS; i++) {
            snprintf(names[i], sizeof(names[i]), "n%d", i);
            inputs[i][0] = '\0';
            if (i > 0) {
                snprintf(inputs[i], sizeof(inputs[i]), "n%d:0 n%d:0",
                         (int)(simtest_rand(&s) % (uint64_t)i),
                         (int)(simtest_rand(&s) % (uint64_t)i));
            }
            ops[i] = (struct simtest_op){names[i], 10 * (int64_t)(simtest_rand(&s) % 3),
                                         "3000",   (int64_t)(simtest_rand(&s) % 2000),
                                         0,        -1,
                                         inputs[i]};
        }
        err_set_quiet(1);
        cr_assert_eq(simtest_graph(&g, ops, INCR_OPS), 0, "%s", err_msg());
        cr_assert_eq(simtest_cluster(&few, 3, 1 << 20, 0, 10, CHANNEL_DUPLEX), 0);
        cr_assert_eq(simtest_cluster(&many, 17, 1 << 20, 0, 10, CHANNEL_DUPLEX), 0);
        for (int32_t v = 0; v < g.n_ops; v++) {
            dev[v] = (int32_t)(simtest_rand(&s) % 3);
        }
        cr_assert_eq(sim_run(&g, &few, dev, &so, &a), 0, "%s", err_msg());
        cr_assert_eq(sim_run(&g, &many, dev, &so, &b), 0, "%s", err_msg());
        cr_expect_eq(a.step_us, b.step_us, "seed %llu", (unsigned long long)seed);
        for (int32_t v = 0; v < g.n_ops; v++) {
            cr_expect_eq(a.start_us[v], b.start_us[v], "seed %llu op %d", (unsigned long long)seed,
                         v);
            for (int32_t w = 0; w < v; w++) {
                ties += a.end_us[w] == a.end_us[v] && dev[w] != dev[v];
            }
        }
        for (int32_t d = 0; d < 3; d++) {
            cr_expect_eq(a.dev[d].peak_bytes, b.dev[d].peak_bytes, "seed %llu device %d",
                         (unsigned long long)seed, d);
        }
        sim_result_release(&a);
        sim_result_release(&b);
        cluster_release(&few);
        cluster_release(&many);
        graph_release(&g);
    }
    cr_expect_gt(ties, 100, "only %lld ends tie across devices", (long long)ties);
}
