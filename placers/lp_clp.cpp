/*
 * lp_clp.cpp - the CLP plugin (build/baechi-clp.so): COIN-OR CLP's dual
 * simplex behind one extern "C" call, loaded with dlopen by lp_clp_load.c
 * (lp_clp.h) only when an LP goes to CLP, so that no other command loads
 * libstdc++ and CLP's libraries (their static constructors allocate before
 * main: tests/cli/t770 fails every allocation in turn).  The suite's only
 * C++ file outside calibrate/.
 *
 * Why C++ and not CLP's C interface (Clp_C_Interface.h): that interface
 * lets every exception through (CLP 1.17's Clp_C_Interface.cpp has no
 * try), and an exception that reaches C code terminates the process.  Here
 * every call into CLP sits inside one try: std::bad_alloc becomes
 * out_of_memory, a CoinError its message, anything else "unknown
 * exception"; the model is freed on every path (its destructor).
 *
 * The allocations are CLP's own (operator new): core/alloc.h cannot see
 * them, but each failure comes back as an error with a message.  Without
 * HAVE_CLP (a build without coinor-libclp-dev, the CUDA and fuzz builds)
 * the plugin is not built and CLP is unavailable.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/lp_clp.h"

#ifndef HAVE_CLP
#error "lp_clp.cpp is the CLP plugin: built only with HAVE_CLP (mk/lp.mk)"
#endif

#include <climits>
#include <cstdio>
#include <cstring>
#include <new>

#include <coin/ClpSimplex.hpp>
#include <coin/ClpSolve.hpp>
#include <coin/CoinError.hpp>

/* CLP's status and secondary status as ours (ClpModel.hpp: 0 optimal, 1
 * primal infeasible, 2 dual infeasible, 3 stopped, secondary 9: on time). */
static enum lp_clp_status clp_status(const ClpSimplex &m)
{
    switch (m.status()) {
    case 0:
        return LP_CLP_OPTIMAL;
    case 1:
        return LP_CLP_INFEASIBLE;
    case 2:
        return LP_CLP_UNBOUNDED;
    case 3:
        return m.secondaryStatus() == 9 ? LP_CLP_TIME : LP_CLP_ITERATIONS;
    default:
        return LP_CLP_FAILED;
    }
}

static void clp_run(const struct lp_clp_problem *p, int64_t iteration_limit, double time_limit_s,
                    double *col_value, struct lp_clp_result *r)
{
    ClpSimplex m;
    ClpSolve how;

    m.setLogLevel(0); /* a library never prints */
    /* the clp program's default (ClpMain.cpp), not the library's 100: on
     * the 10k-op layered graph's LP 30,471 dual iterations instead of 46,599 */
    m.setPerturbation(50);
    m.loadProblem(p->n_cols, p->n_rows, p->col_start, p->row_index, p->value, p->col_lo, p->col_hi,
                  p->obj, p->row_lo, p->row_hi);
    if (iteration_limit > 0) {
        m.setMaximumIterations(iteration_limit > INT_MAX ? INT_MAX : (int)iteration_limit);
    }
    if (time_limit_s > 0) {
        m.setMaximumSeconds(time_limit_s);
    }
    how.setSolveType(ClpSolve::useDual);
    how.setPresolveType(ClpSolve::presolveOn);
    m.initialSolve(how);
    r->status = clp_status(m);
    r->iterations = m.numberIterations();
    r->objective = m.objectiveValue();
    r->primal_feasible = r->status == LP_CLP_OPTIMAL || (m.numberPrimalInfeasibilities() == 0 &&
                                                         m.sumPrimalInfeasibilities() <= 1e-7);
    std::memcpy(col_value, m.getColSolution(), sizeof(double) * (size_t)p->n_cols);
}

/* Runs f() with every exception caught: 0, or -1 with r->msg set. */
template <typename F> static int clp_guarded(F f, struct lp_clp_result *r)
{
    try {
        f();
        return 0;
    } catch (const std::bad_alloc &) {
        r->out_of_memory = true;
        std::snprintf(r->msg, sizeof(r->msg), "out of memory inside CLP");
    } catch (const CoinError &e) {
        std::snprintf(r->msg, sizeof(r->msg), "CLP error in %s: %s", e.methodName().c_str(),
                      e.message().c_str());
    } catch (...) {
        std::snprintf(r->msg, sizeof(r->msg), "CLP threw an unknown exception");
    }
    return -1;
}

extern "C" int lp_clp_plugin_solve(const struct lp_clp_problem *p, int64_t iteration_limit,
                                   double time_limit_s, double *col_value, struct lp_clp_result *r)
{
    std::memset(r, 0, sizeof(*r));
    r->status = LP_CLP_FAILED;
    return clp_guarded([&] { clp_run(p, iteration_limit, time_limit_s, col_value, r); }, r);
}

extern "C" int lp_clp_plugin_selftest_throw(int what, struct lp_clp_result *r)
{
    std::memset(r, 0, sizeof(*r));
    r->status = LP_CLP_FAILED;
    return clp_guarded(
        [what] {
            if (what == 0) {
                throw std::bad_alloc();
            }
            throw what; /* anything that is not an exception class */
        },
        r);
}
