/*
 * bound_cases.h - the random small cases of the certified lower bound's
 * exhaustive tests (placers/bound.h; tests/unit/test_bound.c against the
 * timed simulator's optimum, test_bound_exact.c against the optimum of
 * every schedule): one generator, so both check the same kinds of graph.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_TESTS_UNIT_BOUND_CASES_H
#define BAECHI_TESTS_UNIT_BOUND_CASES_H

#include "core/cluster.h"
#include "core/graph.h"

#include <stdint.h>

/*
 * BOUND_CASES_SANITIZED: defined in a sanitized build.  The exhaustive
 * checks run fewer cases there (a prefix of the same sequence: the same
 * code paths under ASan and UBSan, at a quarter to a twentieth of the cost;
 * the plain build runs them all).
 */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define BOUND_CASES_SANITIZED 1
#endif
#endif
#if (defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)) &&                             \
    !defined(BOUND_CASES_SANITIZED)
#define BOUND_CASES_SANITIZED 1
#endif

/* The shapes bound_case_draw cycles through, by case number k. */
enum bound_case_shape {
    BOUND_CASE_RANDOM = 0,   /* simtest_random_graph: k even */
    BOUND_CASE_CHAIN = 1,    /* bound_case_chain: k = 1 mod 4 */
    BOUND_CASE_TRAINING = 3, /* bound_case_training: k = 3 mod 4 */
};

/*
 * A chain of n ops with random costs (1-60 µs, temp < 300 B, one output
 * < 3,000 B), some skip edges and control inputs: long paths, where memory
 * forces cuts.  0 or the graph_build error.
 */
int bound_case_chain(struct graph *g, int n, uint64_t *s);

/*
 * A training-shaped graph of n >= 3 ops: a forward chain F1 .. Fm, a loss
 * L, the mirrored backward chain Bm .. B1 (B_i after B_i+1), each B_i
 * reading F_i's activation (the tensor F_i+1 reads: a saved activation)
 * and F_i's second output (its weights, read on both sides), and, when n
 * is even, an update op U after B1 that reads F1's weights.  Random costs,
 * the backward ops about twice the forward ones; the loss's tensors small.
 * 0 or the graph_build error.
 */
int bound_case_training(struct graph *g, int n, uint64_t *s);

/*
 * Case k of the exhaustive checks (draws from *s): a graph of the shape k
 * selects (enum bound_case_shape) with 3 .. max_ops2 ops on 2 devices or
 * 3 .. max_ops3 on 3, persistent bytes on most ops, a memory limit around
 * them (a share of the persistent bytes plus room for temp and outputs;
 * one case in 8 unlimited), comm costs in the range of compute, any
 * channel model, one case in 4 with a faster device 0.  0 or an error.
 */
int bound_case_draw(int k, uint64_t *s, int max_ops2, int max_ops3, struct graph *g,
                    struct cluster *c);

#endif
