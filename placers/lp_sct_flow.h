/*
 * lp_sct_flow.h - a first-order solver of m-SCT's favourite-child LP (lp.c)
 * that uses its structure, for LPs the simplex does not finish.
 *
 * The LP (Hanen-Munier's SCT relaxation, baechi-spec §4.1) in z = 1 - x:
 *
 *   minimise F(z) = the longest source-to-sink path with node lengths p_i
 *                   and edge lengths c_e (1 - z_e)
 *   over     P = { z in [0,1]^E : Σ_{e out of i} z_e <= 1,
 *                                 Σ_{e into j} z_e <= 1 }
 *
 * (s are the path lengths, w = F(z)).  F is convex, P the bipartite
 * matching polytope.  Nesterov's smoothing replaces the longest path by its
 * soft maximum F_mu (mu log Σ_paths exp(length / mu), a forward and a
 * backward log-sum-exp pass over the DAG), whose gradient is -c_e y_e with y
 * the unit edge flow of the Gibbs distribution over paths; accelerated
 * projected gradient steps (FISTA with backtracking and adaptive restart)
 * move z, the projection onto P is Dykstra's between the out-degree and the
 * in-degree simplices (a fixed number of rounds, then made feasible by
 * scaling), and mu shrinks geometrically.  Every count is fixed: the same
 * input gives the same z on every machine.
 *
 * Certificate: for any unit path flow y, F(z) >= Σ_v φ_v p_v + Σ_e y_e c_e
 * - Σ_e y_e c_e z_e (the flow's mean path length), so the LP's optimum is at
 * least that minus max_{z in P} Σ_e c_e y_e z_e, the maximum-weight bipartite
 * matching, which any dual (u, v >= 0) bounds from above by Σ u + Σ v +
 * Σ_e (c_e y_e - u_i - v_j)^+.  The best such lower bound over the run and
 * the exact F of the returned z bracket the LP's optimum: their relative
 * difference is the certified gap.
 *
 * Beyond the original, which solves the LP with MOSEK's interior point.
 * deviation: the returned x is an approximate optimum (the gap says how far
 * at most), not a vertex.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_PLACERS_LP_SCT_FLOW_H
#define BAECHI_PLACERS_LP_SCT_FLOW_H

#include "placers/placer_internal.h"

#include <stdint.h>

/* The gradient steps of one solve (each a few passes over the edges): the
 * work is this many times O(edges), whatever the graph. */
#define LP_SCT_FLOW_STEPS 600

struct lp_sct_flow_result {
    double makespan_us;  /* F(z) of the returned z: the LP value of a feasible point */
    double lower_us;     /* the certified lower bound of the LP's optimum */
    double gap;          /* (makespan_us - lower_us) / makespan_us, >= 0 */
    int64_t steps;       /* gradient steps taken */
    int64_t evaluations; /* smoothed evaluations (steps and their backtracking) */
};

/*
 * Solves m-SCT's LP over p approximately: x[e] (p->m entries, the caller's)
 * gets 1 - z_e of the best z found, *r its value and certificate.  steps:
 * the number of gradient steps (LP_SCT_FLOW_STEPS normally; tests use
 * fewer).  0, BAECHI_ENOMEM, or BAECHI_EINVAL when p has a cycle.  Time and
 * memory O(steps × (n + m)) and O(n + m).
 */
int lp_sct_flow_solve(const struct pgraph *p, int64_t steps, double *x,
                      struct lp_sct_flow_result *r);

/*
 * The LP of p by lp_sct_flow_solve into r (lp.c's result; r->x allocated
 * by the caller): makespan_us, iterations (the steps) and status ("flow:
 * gap G%").  0, BAECHI_ENOMEM or BAECHI_EINVAL.
 */
int lp_sct_flow_run(const struct pgraph *p, struct lp_result *r);

#endif
