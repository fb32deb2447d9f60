/*
 * test_auto_polish.c - the phases around `auto`'s local search
 * (placers/auto_polish.c): the stage seeds find the optimum of a chain that
 * fits no one device (the optimum is the certified bound there), the
 * phases never leave the placement worse than their start, and they are
 * deterministic.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include <criterion/criterion.h>

#include "core/err.h"
#include "placers/auto_polish.h"
#include "placers/bound.h"
#include "sim/sim.h"
#include "tests/unit/simtest.h"

#include <string.h>

#define CHAIN_OPS 12

/*
 * A chain of 12 ops of 100 µs, each holding 1,000 persistent bytes and
 * sending 1,000 bytes to the next (40.75 µs at 0.0375 µs/B + 3.25 µs).
 * Devices of 7,500 bytes: at most 7 ops fit one device, so the optimum is
 * two contiguous stages and one transfer, 1,241 µs, which is also what the
 * certified bound proves (the memory bound: one forced cut).
 */
static void chain_build(struct graph *g, struct cluster *c, int32_t n_dev)
{
    struct simtest_op ops[CHAIN_OPS];
    char names[CHAIN_OPS][8], inputs[CHAIN_OPS][8];

    for (int i = 0; i < CHAIN_OPS; i++) {
        snprintf(names[i], sizeof(names[i]), "c%d", i);
        snprintf(inputs[i], sizeof(inputs[i]), "c%d", i - 1);
        ops[i] = (struct simtest_op){names[i], 100, "1000", 0, 1000, 0, i > 0 ? inputs[i] : ""};
    }
    err_set_quiet(1);
    cr_assert_eq(simtest_graph(g, ops, CHAIN_OPS), 0, "%s", err_msg());
    cr_assert_eq(simtest_cluster(c, n_dev, 7500, 0.0375, 3.25, CHANNEL_DUPLEX), 0);
}

/* The phases from placement dev (changed to the result); the step before. */
static int64_t polish(const struct graph *g, const struct cluster *c, int64_t budget_ms,
                      int32_t *dev, struct auto_polish_stats *st, int64_t *after_us)
{
    int32_t tf_of[CHAIN_OPS];
    struct auto_ctx s;
    int64_t before;

    for (int32_t v = 0; v < g->n_ops; v++) {
        tf_of[v] = v;
    }
    cr_assert_eq(auto_ctx_init(&s, g, c, tf_of, g->n_ops, budget_ms, 1), 0, "%s", err_msg());
    cr_assert_eq(auto_start_from(&s, dev), 0, "%s", err_msg());
    before = auto_score_feasible(&s.best_score) ? s.best_score.step_us : INT64_MAX;
    cr_assert_eq(auto_polish_run(&s, st), 0, "%s", err_msg());
    cr_assert(auto_score_feasible(&s.best_score), "the result does not fit");
    *after_us = s.best_score.step_us;
    memcpy(dev, s.best, (size_t)g->n_ops * sizeof(int32_t));
    auto_ctx_release(&s);
    return before;
}

Test(auto_polish, stage_seed_reaches_the_optimum_of_a_chain)
{
    struct graph g;
    struct cluster c;
    struct bound_result b;
    int64_t before;
    struct auto_polish_stats st;
    int32_t dev[CHAIN_OPS];
    int64_t after;

    chain_build(&g, &c, 3);
    for (int32_t v = 0; v < CHAIN_OPS; v++) {
        dev[v] = v % 3; /* every edge cut */
    }
    /* no budget: nothing new is judged, the start stays */
    before = polish(&g, &c, 0, dev, &st, &after);
    cr_expect_eq(before, after, "a zero budget changed the step");
    cr_expect_eq(st.seed_stages, 0);
    for (int32_t v = 0; v < CHAIN_OPS; v++) {
        dev[v] = v % 3;
    }
    cr_assert_eq(bound_compute(&g, &c, NULL, &b), 0, "%s", err_msg());
    cr_assert_eq(b.lower_bound_us, 1241, "the bound: %lld", (long long)b.lower_bound_us);
    before = polish(&g, &c, 1, dev, &st, &after);
    cr_expect_gt(before, b.lower_bound_us, "the start is already optimal");
    cr_expect_eq(st.seed_stages, 2, "the kept seed has %d stages", st.seed_stages);
    cr_expect_eq(after, b.lower_bound_us, "step %lld, optimum %lld", (long long)after,
                 (long long)b.lower_bound_us);
    for (int32_t v = 1; v < CHAIN_OPS; v++) {
        cr_expect(dev[v] >= dev[v - 1], "not two contiguous stages at op %d", v);
    }
    cluster_release(&c);
    graph_release(&g);
}

Test(auto_polish, never_worse_than_its_start_and_deterministic)
{
    struct graph g;
    struct cluster c;
    uint64_t r = 42;

    chain_build(&g, &c, 3);
    for (int k = 0; k < 20; k++) {
        int32_t dev[CHAIN_OPS], dev2[CHAIN_OPS];
        struct auto_polish_stats st, st2;
        int64_t before, after, after2;

        for (int32_t v = 0; v < CHAIN_OPS; v++) {
            dev[v] = (int32_t)(simtest_rand(&r) % 3);
        }
        memcpy(dev2, dev, sizeof(dev));
        before = polish(&g, &c, 1, dev, &st, &after);
        cr_expect_leq(after, before, "start %lld, after %lld", (long long)before, (long long)after);
        polish(&g, &c, 1, dev2, &st2, &after2);
        cr_expect_eq(after, after2, "the same start gave %lld and %lld", (long long)after,
                     (long long)after2);
        cr_expect_eq(memcmp(dev, dev2, sizeof(dev)), 0, "the same start gave two placements");
    }
    cluster_release(&c);
    graph_release(&g);
}
