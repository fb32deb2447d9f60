/*
 * placer_fixture.h - the set-up the placer tests share (test_placer.c,
 * test_lp.c): the hand-checked three-op graph of baechi-spec §13 T2/T3, its
 * two-device cluster, and the algorithms' graph of a graph with one
 * colocation group per op.  Each helper asserts its own success.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_TESTS_UNIT_PLACER_FIXTURE_H
#define BAECHI_TESTS_UNIT_PLACER_FIXTURE_H

#include <criterion/criterion.h>

#include "core/err.h"
#include "placers/placer_internal.h"
#include "tests/unit/simtest.h"

#include <stdint.h>
#include <stdlib.h>

/* slope 0.0375 µs/B, intercept 3.25 µs: 100 B -> 7 µs, 20 B -> 4 µs (as in test_sim_baechi) */
#define T_SLOPE     0.0375
#define T_INTERCEPT 3.25

/* §13 T2/T3: A -> B, A -> C, B -> C; T3's LP optimum is unique. */
static const struct simtest_op t2_ops[] = {
    {"A", 10, "100", 50, 0, -1, NULL},
    {"B", 5, "20", 0, 0, -1, "A:0"},
    {"C", 3, "", 10, 0, -1, "A:0 B:0"},
};

/* g from the n ops, c two devices of 1 MB with the comm model above; errors quiet. */
static inline void fixture_graph(struct graph *g, struct cluster *c, const struct simtest_op *ops,
                                 int n)
{
    err_set_quiet(1);
    cr_assert_eq(simtest_graph(g, ops, n), 0, "%s", err_msg());
    cr_assert_eq(simtest_cluster(c, 2, 1000000, T_SLOPE, T_INTERCEPT, CHANNEL_SHARED), 0);
}

/* The T2 graph and its cluster. */
static inline void t2_setup(struct graph *g, struct cluster *c)
{
    fixture_graph(g, c, t2_ops, 3);
}

/* pg from g on c, one group per op, comm and compute unscaled. */
static inline void ungrouped_pgraph(struct pgraph *pg, const struct graph *g,
                                    const struct cluster *c)
{
    int32_t *grp = calloc((size_t)g->n_ops + 1, sizeof(int32_t));

    cr_assert_not_null(grp);
    for (int32_t v = 0; v < g->n_ops; v++) {
        grp[v] = v;
    }
    cr_assert_eq(pgraph_from_graph(pg, g, c, grp, g->n_ops, 1.0, 1.0), 0, "%s", err_msg());
    free(grp);
}

#endif
