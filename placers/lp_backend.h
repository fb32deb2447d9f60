/*
 * lp_backend.h - the LP solvers behind m-SCT's favourite-child LP (lp.c)
 * and the certified bound's LP (bound_lp.c): GLPK (linked always) and
 * COIN-OR CLP (the plugin baechi-clp.so, lp_clp.h, when it loads), and the
 * rule that picks one for `--lp-solver auto` (lp_solver.c).
 *
 * Beyond the original, which solves its LP with one solver (MOSEK).
 * deviation: `auto` keeps GLPK up to LP_SOLVER_AUTO_MAX_GLPK_NONZEROS
 * non-zeros, where it is fast and the reference comparisons were made with
 * it, and takes CLP's dual simplex above (docs/limits.md, "Two solvers",
 * has the timings that set the rule).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_PLACERS_LP_BACKEND_H
#define BAECHI_PLACERS_LP_BACKEND_H

#include "placers/lp_clp.h"
#include "placers/lp_solver.h"

#include <stdbool.h>
#include <stdint.h>

/*
 * `auto`'s rule: the largest LP (in constraint-matrix non-zeros) that stays
 * with GLPK.  Every reference LP lies below (the largest, t209's fused GNMT
 * training graph at seq 80, has 66,905; the 3k-op layered graph 44,142),
 * the 10k-op layered graph (148,171) above; docs/limits.md has the timings.
 */
#define LP_SOLVER_AUTO_MAX_GLPK_NONZEROS 100000

/*
 * `auto`'s budget for CLP (lp.c): an LP above GLPK's size that CLP's dual
 * simplex does not solve within LP_SOLVER_AUTO_CLP_ITERS_PER_ROW_PCT % of
 * its rows in iterations goes to the flow solver (lp_sct_flow.h).  Work,
 * not time: the same LP takes the same route on every machine.  The layered
 * graphs on dgx-h100-8 solve within 64 % (10k ops: 30,471 of 48,154 rows;
 * 30k ops: 92,147 of 144,828); the 10k-op one on paper-4gpu-pcie does not
 * finish (docs/limits.md, "m-SCT's LP").
 */
#define LP_SOLVER_AUTO_CLP_ITERS_PER_ROW_PCT 75

/* The budget above for an LP of n_rows rows (at least 1 iteration). */
int64_t lp_auto_clp_budget(int32_t n_rows);

/*
 * The solver for an LP of `nonzeros` non-zeros under the user's choice
 * `want`: GLPK or CLP, never AUTO (CLP under AUTO: within the budget above,
 * then the flow solver).  AUTO: the rule above, GLPK when CLP is
 * not built in.  An explicit choice is returned as it is (the caller
 * reports a CLP that is not built in).
 */
enum placer_lp_solver lp_solver_choose(enum placer_lp_solver want, int64_t nonzeros);

#endif
