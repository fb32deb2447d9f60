/*
 * lp_solver.h - the LP solver of m-SCT's favourite-child LP and of the
 * bound's LP, as the options name it (`--lp-solver`; lp_solver.c).  The
 * solvers themselves, and the rule of `auto`, are lp_backend.h's.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_PLACERS_LP_SOLVER_H
#define BAECHI_PLACERS_LP_SOLVER_H

/* The LP solver of m-SCT's LP and the bound's LP (--lp-solver; placers/lp_backend.h). */
enum placer_lp_solver {
    PLACER_LP_AUTO = 0, /* GLPK for small LPs, CLP above (lp_backend.h) */
    PLACER_LP_GLPK = 1,
    PLACER_LP_CLP = 2,
    PLACER_LP_FLOW = 3 /* the first-order solver of lp_sct_flow.h: approximate, certified gap */
};

/* "auto", "glpk", "clp", "flow". */
const char *placer_lp_solver_name(enum placer_lp_solver s);
/* The solver named s into *out; BAECHI_EINVAL naming s otherwise. */
int placer_lp_solver_parse(const char *s, enum placer_lp_solver *out);

#endif
