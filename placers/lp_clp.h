/*
 * lp_clp.h - CLP behind a C interface: one call that builds, solves and
 * frees a CLP model, every C++ exception caught inside.  The solver lives
 * in the plugin baechi-clp.so (lp_clp.cpp, built when coinor-libclp-dev is
 * installed: mk/lp.mk), which lp_clp_load.c opens with dlopen on first use:
 * $BAECHI_CLP_PLUGIN if set, else baechi-clp.so beside the running program
 * or beside libbaechi.so, else ../lib/baechi/ (program) or baechi/
 * (library) from there (an install).  No plugin: CLP unavailable.  Beyond
 * the original.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_PLACERS_LP_CLP_H
#define BAECHI_PLACERS_LP_CLP_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Whether the CLP plugin loads (it is then loaded). */
bool lp_clp_available(void);

/* An LP in CLP's layout: column-major, bounds per column and row; a
 * missing bound is +-LP_CLP_INF.  Minimised.  The caller owns every array. */
#define LP_CLP_INF 1e30
struct lp_clp_problem {
    int n_rows, n_cols;
    const int *col_start; /* n_cols + 1 */
    const int *row_index; /* col_start[n_cols] entries */
    const double *value;  /* likewise */
    const double *col_lo, *col_hi, *obj;
    const double *row_lo, *row_hi;
};

enum lp_clp_status {
    LP_CLP_OPTIMAL = 0,
    LP_CLP_INFEASIBLE,
    LP_CLP_UNBOUNDED,
    LP_CLP_ITERATIONS, /* the iteration limit reached */
    LP_CLP_TIME,       /* the time limit reached */
    LP_CLP_FAILED      /* numerical trouble, or CLP's own error status */
};

struct lp_clp_result {
    enum lp_clp_status status;
    bool primal_feasible; /* the columns returned satisfy every row (also when stopped) */
    int64_t iterations;   /* simplex iterations (presolve's cleanup included) */
    double objective;
    bool out_of_memory; /* after a non-zero return: std::bad_alloc */
    char msg[160];      /* after a non-zero return: what CLP threw */
};

/*
 * Solves p with CLP's dual simplex after CLP's presolve, within
 * iteration_limit simplex iterations and time_limit_s seconds (0: none for
 * either), silently.  The columns into col_value[p->n_cols] (caller's).
 * Returns 0 when CLP ran (its verdict in r->status), -1 when it threw (the
 * exception is caught in the plugin, in C++: none crosses into C) or the
 * plugin does not load, with r->msg set.
 */
int lp_clp_solve(const struct lp_clp_problem *p, int64_t iteration_limit, double time_limit_s,
                 double *col_value, struct lp_clp_result *r);

/* The plugin's two entry points, the functions above (lp_clp.cpp). */
typedef int (*lp_clp_solve_fn)(const struct lp_clp_problem *p, int64_t iteration_limit,
                               double time_limit_s, double *col_value, struct lp_clp_result *r);
typedef int (*lp_clp_selftest_fn)(int what, struct lp_clp_result *r);

/* For tests: throws inside the shim's guard (what 0: std::bad_alloc, else
 * an int) and returns what the guard makes of it (-1, r->msg). */
int lp_clp_selftest_throw(int what, struct lp_clp_result *r);

#ifdef __cplusplus
}
#endif

#endif
