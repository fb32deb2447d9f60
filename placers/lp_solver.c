/*
 * lp_solver.c - which LP solver runs: the names of --lp-solver and the rule
 * of `auto` (lp_backend.h).  Beyond the original.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/lp_solver.h"

#include "placers/lp_backend.h"

#include "core/err.h"

#include <string.h>

static const char *const lp_solver_names[] = {"auto", "glpk", "clp", "flow"};

const char *placer_lp_solver_name(enum placer_lp_solver s)
{
    return (unsigned)s < sizeof(lp_solver_names) / sizeof(lp_solver_names[0]) ? lp_solver_names[s]
                                                                              : "?";
}

int placer_lp_solver_parse(const char *s, enum placer_lp_solver *out)
{
    for (unsigned i = 0; i < sizeof(lp_solver_names) / sizeof(lp_solver_names[0]); i++) {
        if (strcmp(s, lp_solver_names[i]) == 0) {
            *out = (enum placer_lp_solver)i;
            return 0;
        }
    }
    return err_set(BAECHI_EINVAL, "unknown LP solver '%s' (expected glpk, clp, flow or auto)", s);
}

/*
 * deviation: the original solves with one solver.  GLPK's simplex stays
 * below the threshold, where it takes at most about a second and where
 * every reference comparison (tests/cli/t350, t209, t208, the golden
 * outputs) was made, so those stay bit for bit; above it CLP's dual
 * simplex is the faster (the 10k-op layered graph: 2.3 s of CPU against
 * GLPK's 4.7 s; docs/limits.md).
 */
enum placer_lp_solver lp_solver_choose(enum placer_lp_solver want, int64_t nonzeros)
{
    if (want != PLACER_LP_AUTO) {
        return want;
    }
    return nonzeros > LP_SOLVER_AUTO_MAX_GLPK_NONZEROS && lp_clp_available() ? PLACER_LP_CLP
                                                                             : PLACER_LP_GLPK;
}

int64_t lp_auto_clp_budget(int32_t n_rows)
{
    int64_t b = (int64_t)n_rows * LP_SOLVER_AUTO_CLP_ITERS_PER_ROW_PCT / 100;

    return b > 0 ? b : 1;
}
