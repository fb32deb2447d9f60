/*
 * test_sim_kinds.c - memory by kind at each device's peak
 * (sim_result.peak_kind_bytes), kept inline by the models: a plain run and a
 * run with an observer (the slow path) give the kinds a reference computes
 * from the observer's events (the per-event tracker the simulator had
 * before), on random graphs with forward, backward and update ops, under
 * both models and the three channel models.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include <criterion/criterion.h>

#include "core/err.h"
#include "core/graph.h"
#include "sim/sim.h"
#include "tests/unit/simtest.h"

#include <string.h>

#define N_DEV 3

/* The reference: every event, a snapshot at every new peak. */
struct ref_kinds {
    const struct graph *g;
    const uint8_t *saved;
    int64_t cur[N_DEV][MEM_KIND_N];
    int64_t used[N_DEV], best[N_DEV];
    int64_t peak[N_DEV][MEM_KIND_N];
};

static void ref_event(void *ctx, int32_t d, int64_t time_us, int64_t delta, enum sim_mem_what what,
                      int32_t op, int32_t tensor, bool alloc)
{
    struct ref_kinds *k = ctx;

    (void)time_us;
    (void)tensor;
    k->cur[d][sim_mem_kind(k->g, k->saved, what, op)] += delta;
    k->used[d] += delta;
    if (alloc && k->used[d] > k->best[d]) {
        k->best[d] = k->used[d];
        memcpy(k->peak[d], k->cur[d], sizeof(k->cur[d]));
    }
}

/* Forward ops first, then backward, the last few update: backward ops read
 * forward outputs (the "saved" kind), update ops own optimizer bytes. */
static void set_phases(struct graph *g)
{
    for (int32_t i = 0; i < g->n_ops; i++) {
        int32_t v = g->topo_op[i];

        g->phase[v] = i < g->n_ops / 2        ? PHASE_FORWARD
                      : i < g->n_ops * 9 / 10 ? PHASE_BACKWARD
                                              : PHASE_UPDATE;
    }
}

Test(sim_kinds, plain_and_observed_runs_match_the_per_event_reference)
{
    bool seen[MEM_KIND_N] = {false};

    err_set_quiet(1);
    for (uint64_t seed = 1; seed <= 30; seed++) {
        struct graph g;
        struct cluster c;
        int32_t dev[80];
        uint8_t *saved = NULL;

        cr_assert_eq(simtest_random_graph(&g, 80, N_DEV, seed), 0);
        cr_assert_leq(g.n_ops, 80);
        if (seed % 2) {
            set_phases(&g);
        }
        cr_assert_eq(sim_saved_ops(&g, &saved), 0);
        cr_assert_eq(simtest_cluster(&c, N_DEV, 1 << 20, 0.01, 3, (enum channel_model)(seed % 3)),
                     0);
        for (int32_t v = 0; v < g.n_ops; v++) {
            dev[v] = (int32_t)((v * 7 + (int32_t)seed) % N_DEV);
        }
        for (int m = 0; m < 2; m++) {
            struct ref_kinds ref = {.g = &g, .saved = saved};
            struct sim_mem_obs obs = {ref_event, &ref};
            struct sim_options plain = {.model = m ? SIM_MODEL_BAECHI : SIM_MODEL_TIMED};
            struct sim_options observed = {.model = plain.model, .mem_obs = &obs};
            struct sim_result r1, r2;

            cr_assert_eq(sim_run(&g, &c, dev, &plain, &r1), 0, "%s", err_msg());
            cr_assert_eq(sim_run(&g, &c, dev, &observed, &r2), 0, "%s", err_msg());
            cr_assert_eq(r1.step_us, r2.step_us);
            for (int32_t d = 0; d < N_DEV; d++) {
                cr_assert_eq(ref.best[d], r1.dev[d].peak_bytes);
                for (int k = 0; k < MEM_KIND_N; k++) {
                    size_t i = (size_t)d * MEM_KIND_N + (size_t)k;

                    cr_assert_eq(r1.peak_kind_bytes[i], ref.peak[d][k],
                                 "seed %llu model %d device %d kind %s: plain %lld, reference "
                                 "%lld",
                                 (unsigned long long)seed, m, d, mem_kind_name((enum mem_kind)k),
                                 (long long)r1.peak_kind_bytes[i], (long long)ref.peak[d][k]);
                    cr_assert_eq(r2.peak_kind_bytes[i], ref.peak[d][k],
                                 "seed %llu model %d device %d kind %s: observed",
                                 (unsigned long long)seed, m, d, mem_kind_name((enum mem_kind)k));
                    seen[k] |= ref.peak[d][k] != 0;
                }
            }
            sim_result_release(&r1);
            sim_result_release(&r2);
        }
        free(saved);
        cluster_release(&c);
        graph_release(&g);
    }
    /* every kind was at some peak: the comparison compared something */
    for (int k = 0; k < MEM_KIND_N; k++) {
        cr_assert(seen[k], "kind %s never at a peak", mem_kind_name((enum mem_kind)k));
    }
}
