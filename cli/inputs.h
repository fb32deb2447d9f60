/*
 * inputs.h - what `baechi sim` and `baechi replay` load from their command
 * line (and the trace `sim` and `run` write): the workload file, the op graph built from it, the
 * cluster (a file or a preset name, optionally cut to its first K devices) and a placement (a file,
 * or "given": the workload's own device fields), checked against each other.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CLI_INPUTS_H
#define BAECHI_CLI_INPUTS_H

#include "cli/cmd.h"
#include "core/cluster.h"
#include "core/graph.h"
#include "core/placement.h"
#include "core/workload.h"
#include "sim/sim.h"

struct sim_inputs {
    struct workload w;
    struct graph g;
    struct cluster c;
    struct placement p;
    double memory_fraction; /* applied to c's devices (1 = none) */
};

/* Makes `in` safe to release (call before anything can fail). */
void sim_inputs_init(struct sim_inputs *in);
void sim_inputs_release(struct sim_inputs *in);

/*
 * Loads everything; k > 0 keeps the first k devices of the cluster (an error
 * when it has fewer).  Errors carry the file and position (BAECHI_EPARSE,
 * BAECHI_EIO, BAECHI_EINVAL for a placement that does not fit the cluster).
 *
 * The memory of every device is then scaled by `memory_fraction` when it is
 * > 0 (--memory-fraction), else by the fraction the placement was made for
 * (placement_memory_fraction), as `run` does (placer_world), so that `sim`
 * of a file `place` wrote gives `run`'s verdict.  Warnings (one line each,
 * err_warn): the fraction given overrides the placement's; the cluster's
 * content hash or the device count differ from what the placement was made
 * for; the workload's times were made for another device (inputs_warn_times).
 */
int sim_inputs_load(struct sim_inputs *in, const char *wpath, const char *cspec, const char *pspec,
                    int32_t k, double memory_fraction);

/*
 * Warns (one line, err_warn) when the workload's op times were made for a
 * device kind (its x-times device, else its reference_device) other than
 * the kind of the cluster's first device; compares the kind names up to
 * their first '-', case-insensitive ("h100" matches "h100-sxm5-80gb").
 * Nothing when either kind is unknown.
 */
void inputs_warn_times(const struct workload *w, const struct cluster *c);

/* Options `sim` and `replay` share for what they simulate. */
enum { SIM_INPUTS_OPT_PLACEMENT = 350, SIM_INPUTS_OPT_MEMFRAC };
#define SIM_INPUTS_PLACEMENT_OPTS                                                                  \
    {"placement", SIM_INPUTS_OPT_PLACEMENT, "F",                                                   \
     "the placement file to simulate ('given': the workload's device fields)"},                    \
        {"memory-fraction", SIM_INPUTS_OPT_MEMFRAC, "F",                                           \
         "each device keeps F of its memory, in (0, 1] (default: the fraction the placement "      \
         "was made for, else 1)"},                                                                 \
    {                                                                                              \
        "placer", 'p', "P", "only 'given' (= --placement given): to place, use 'baechi run -p P'"  \
    }

/*
 * The placement named by --placement (pl) or -p (placer).  -p is the placer
 * everywhere: `-p given` is the workload's own placement; any other placer
 * is a usage error pointing at `baechi run -p` and --placement; a value
 * that names no placer but an existing file is taken as a placement file
 * (what -p meant before --placement; unambiguous).  Sets *pspec, or prints
 * the message and returns 2.
 */
int sim_inputs_placement_arg(const struct cmd_parser *cp, const char *pl, const char *placer,
                             const char **pspec);

/* What `sim` and `replay` simulate, as given on the command line. */
struct sim_inputs_args {
    const char *wpath, *cspec, *pspec, *placer;
    double memory_fraction; /* --memory-fraction; 0 = the placement's */
    bool done;              /* set by sim_inputs_finish: `-c list` answered, exit 0 */
};

/*
 * Handles option c when it is one of those `sim` and `replay` share (-w,
 * -c, -p, --placement, --memory-fraction, -m into *model): 0 when handled, -1 when c is not
 * one of them, else the exit status (the message printed).
 */
int sim_inputs_option(struct cmd_parser *cp, int c, struct sim_inputs_args *a,
                      enum sim_model *model);

/*
 * After the options: no operand is left, the placement is resolved
 * (sim_inputs_placement_arg into a->pspec), and the workload, cluster and
 * placement are given.  0, or 2 with the message printed.  `-c list`
 * prints the cluster presets (cluster_cli_print_list) instead, sets a->done
 * and returns 0: the caller then exits 0.
 */
int sim_inputs_finish(struct cmd_parser *cp, struct sim_inputs_args *a);

/* Writes the Chrome trace t of a simulation of g on c to `path` ("-" =
 * stdout) through cmd_write_file: 0 or an error code. */
struct trace;
int sim_inputs_write_trace(const struct trace *t, const struct graph *g, const struct cluster *c,
                           const char *path);

#endif
