/*
 * clp-probe.cpp - one CLP method on an LP read from a free-MPS file (written
 * by `BAECHI_LP_WRITE_MPS=FILE baechi place ... -p m-sct --lp-solver glpk`):
 * status, iterations, objective and the solve's CPU seconds on one line.
 * A measuring tool for docs/limits.md ("m-SCT's LP"), not part of baechi.
 *
 *   clp-probe FILE.mps dual|primal|idiot|sprint|barrier [log level]
 *
 * Every method runs after CLP's presolve with perturbation 50, as the
 * plugin (placers/lp_clp.cpp) does; "dual" is the plugin's own solve.
 */
#include <coin/ClpSimplex.hpp>
#include <coin/ClpSolve.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

int main(int argc, char **argv)
{
    ClpSimplex m;
    ClpSolve how;
    const char *method = argc > 2 ? argv[2] : "dual";
    clock_t t0;

    if (argc < 3) {
        std::fprintf(stderr, "usage: clp-probe FILE.mps dual|primal|idiot|sprint|barrier [log]\n");
        return 2;
    }
    m.setLogLevel(argc > 3 ? std::atoi(argv[3]) : 0);
    if (m.readMps(argv[1], true) != 0) {
        std::fprintf(stderr, "clp-probe: cannot read %s\n", argv[1]);
        return 1;
    }
    m.setPerturbation(50);
    how.setPresolveType(ClpSolve::presolveOn);
    if (!std::strcmp(method, "dual")) {
        how.setSolveType(ClpSolve::useDual);
    } else if (!std::strcmp(method, "primal")) {
        how.setSolveType(ClpSolve::usePrimal);
    } else if (!std::strcmp(method, "idiot")) { /* idiot crash, then primal */
        how.setSolveType(ClpSolve::usePrimalorSprint);
        how.setSpecialOption(1, 2);
    } else if (!std::strcmp(method, "sprint")) { /* sprint (sifting), then primal */
        how.setSolveType(ClpSolve::usePrimalorSprint);
        how.setSpecialOption(1, 11);
    } else if (!std::strcmp(method, "barrier")) { /* barrier, then crossover to a vertex */
        how.setSolveType(ClpSolve::useBarrier);
    } else {
        std::fprintf(stderr, "clp-probe: unknown method %s\n", method);
        return 2;
    }
    t0 = clock();
    m.initialSolve(how);
    std::printf("clp %s: status %d, %d iterations, objective %.9f, %.2f CPU s\n", method,
                m.status(), m.numberIterations(), m.objectiveValue(),
                (double)(clock() - t0) / CLOCKS_PER_SEC);
    return 0;
}
