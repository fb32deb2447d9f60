/*
 * progress.h - `--progress[=WHEN]` of `baechi sim` and `baechi run`: one
 * line on stderr, redrawn in place (\r), with the ops the simulation has
 * ended of all and the simulated time reached (sim_options.progress; by
 * work, every SIM_PROGRESS_EVERY_OPS ops, so nothing on stdout and no result
 * changes).  Drawn when stderr is a terminal, or always with
 * --progress=always (issue 32 item 3).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CLI_PROGRESS_H
#define BAECHI_CLI_PROGRESS_H

#include "cli/cmd.h"
#include "sim/sim.h"

#include <stdbool.h>

/* The option row: {"progress", val, "[=WHEN]", help}. */
#define PROGRESS_CLI_HELP                                                                          \
    "a line on stderr with the ops simulated and the simulated time, redrawn as the timed "        \
    "model runs; WHEN auto (the default: when stderr is a terminal), always or never"

struct progress_cli {
    bool on;           /* draw */
    const char *label; /* "sim timed" */
};

/* --progress with p->optarg (NULL: auto) into *pc: 0, or 2 with the message
 * printed for a WHEN other than auto, always and never. */
int progress_cli_option(struct cmd_parser *p, struct progress_cli *pc);

/* Sets opt's progress callback to draw pc's line (when pc->on). */
void progress_cli_apply(struct progress_cli *pc, struct sim_options *opt);

#endif
