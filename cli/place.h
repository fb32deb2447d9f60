/*
 * place.h - the command-line options `baechi place` and `baechi run`
 * share (one table, one parser).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CLI_PLACE_H
#define BAECHI_CLI_PLACE_H

#include "cli/cmd.h"
#include "core/cluster.h"
#include "core/graph.h"
#include "core/workload.h"
#include "placers/placer.h"

#include <stdbool.h>
#include <stdio.h>

enum {
    PLACE_OPT_LIST = 300,
    PLACE_OPT_GROUPER,
    PLACE_OPT_FUSION,
    PLACE_OPT_DISJOINT,
    PLACE_OPT_MEMFRAC,
    PLACE_OPT_COMM,
    PLACE_OPT_COMPUTE,
    PLACE_OPT_THRESHOLD,
    PLACE_OPT_LPLIMIT,
    PLACE_OPT_SEED,
    PLACE_OPT_PERSIST,
    PLACE_OPT_PAPER,
    PLACE_OPT_IMPL,
    PLACE_OPT_BUDGET,
    PLACE_OPT_REFINE,
    PLACE_OPT_JSON,
    PLACE_OPT_LPITERS,
    PLACE_OPT_LPSOLVER
};

#define PLACE_CLI_OPTS                                                                             \
    {"workload", 'w', "W", "the workload (YAML)"},                                                 \
        {"cluster", 'c', "C", "a cluster file or preset name ('list' lists the presets)"},         \
        {"placer", 'p', "P", "the placer (m-etf, m-sct, m-topo, paper, ...; 'list' lists them)"},  \
        {"list", PLACE_OPT_LIST, NULL, "list the placers"},                                        \
        {"paper", PLACE_OPT_PAPER, NULL, "the paper configuration: m-etf + fusion + coplace"},     \
        {"grouper", PLACE_OPT_GROUPER, "G", "colocation grouper: tf (default) or coplace"},        \
        {"fusion", PLACE_OPT_FUSION, NULL, "operator fusion inside colocation groups"},            \
        {"fusion-check-disjoint", PLACE_OPT_DISJOINT, NULL,                                        \
         "fusion also contracts edges with no other path (implies --fusion)"},                     \
        {"memory-fraction", PLACE_OPT_MEMFRAC, "F",                                                \
         "the placer sees F x each device's memory (default 1)"},                                  \
        {"comm-factor", PLACE_OPT_COMM, "F", "multiply communication costs by F (default 1)"},     \
        {"compute-factor", PLACE_OPT_COMPUTE, "F", "multiply compute times by F (default 1)"},     \
        {"devices", 'k', "K", "use only the first K devices of the cluster"},                      \
        {"threshold", PLACE_OPT_THRESHOLD, "T", "m-SCT rounding threshold (default 0.1)"},         \
        {"lp-time-limit", PLACE_OPT_LPLIMIT, "S",                                                  \
         "m-SCT: GLPK wall-time limit in seconds (0 = none); reached: m-ETF's placement, "         \
         "recorded as 'fallback: m-etf (time limit)'"},                                            \
        {"lp-iteration-limit", PLACE_OPT_LPITERS, "N",                                             \
         "m-SCT: at most N simplex iterations (0 = none); counts work, so the result never "       \
         "depends on the machine's speed"},                                                        \
        {"lp-solver", PLACE_OPT_LPSOLVER, "S",                                                     \
         "m-SCT and the bound: LP solver glpk, clp, flow (m-SCT only) or auto (default: GLPK "     \
         "up to 100,000 non-zeros, CLP above within an iteration budget, then flow)"},             \
        {"seed", PLACE_OPT_SEED, "S", "seed of the random and auto placers (default 1)"},          \
        {"refine", PLACE_OPT_REFINE, NULL,                                                         \
         "then improve the placement by auto's local search (--budget-ms, --seed)"},               \
        {"budget-ms", PLACE_OPT_BUDGET, "MS",                                                      \
         "auto: search budget (default 800); counts simulations, not wall time "                   \
         "(1 ms = 20,000 simulated op/edge visits), so results do not depend on machine load"},    \
        {"persistent-at-place", PLACE_OPT_PERSIST, NULL,                                           \
         "m-ETF/m-SCT: charge persistent bytes when a group is placed (SoCC'20 rule)"},            \
    {                                                                                              \
        "impl", PLACE_OPT_IMPL, "I", "internal: m-etf event loop, fast (default) or reference"     \
    }

struct place_cli {
    const char *wpath, *cspec, *placer;
    bool list;
    struct placer_options opt;
};

void place_cli_init(struct place_cli *pc);

/* Handles option c of PLACE_CLI_OPTS; 0 when handled, else the exit status (2). */
int place_cli_option(struct cmd_parser *cp, int c, struct place_cli *pc);

/* Required options present and the placer known; 0 or 2 (message printed). */
int place_cli_check(struct cmd_parser *cp, const struct place_cli *pc);

void place_cli_print_list(FILE *f);

/* After the options: no operand is left, `--list` / `-p list` prints the
 * placers (then *done), the required options are there.  Returns the exit
 * status when *done or on a usage error (printed), else 0. */
int place_cli_finish(struct cmd_parser *cp, struct place_cli *pc, bool *done);

/* A command's own option c: 0 handled, -1 not its option, else the exit status (printed). */
typedef int (*place_cli_extra_fn)(struct cmd_parser *cp, int c, void *ctx);

/*
 * Parses the command line: the options of PLACE_CLI_OPTS into pc, the
 * command's own options through `extra` (may be NULL), then
 * place_cli_finish.  Returns the exit status when *done (help, the placer
 * list, a usage error: printed), else 0.
 */
int place_cli_parse(struct cmd_parser *cp, struct place_cli *pc, place_cli_extra_fn extra,
                    void *ctx, bool *done);

/* Writes placement p of g as YAML to `path` ("-" = stdout), whole or not at
 * all (cmd_write_file): 0, or an error code with the message set. */
int place_cli_write_placement(const char *path, const struct placement *p, const struct graph *g);

/* What `place` and `run` load and compute. */
struct place_job {
    struct workload w;
    struct graph g;
    struct cluster c;
    struct placement p;
    struct placer_stats st;
    bool have_w, have_c;
};

void place_job_init(struct place_job *j);
void place_job_release(struct place_job *j);

/*
 * Reads the workload, builds the graph, loads the cluster and runs the
 * placer.  0, BAECHI_EINFEASIBLE (a result: err_msg() says why) or an error.
 */
int place_job_run(struct place_job *j, const struct place_cli *pc);

/* The one JSON object (stdout) of an infeasible placement (err_msg() is the reason). */
void place_job_print_infeasible_json(const struct place_job *j, const char *placer);

#endif
