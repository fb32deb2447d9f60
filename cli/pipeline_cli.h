/*
 * pipeline_cli.h - the simulators' --schedule and --virtual-stages (run,
 * sim): override the pipeline schedule a micro-batched workload names in
 * its x-pipeline key (core/pipeline.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CLI_PIPELINE_CLI_H
#define BAECHI_CLI_PIPELINE_CLI_H

#include "cli/cmd.h"
#include "core/graph.h"
#include "core/pipeline.h"
#include "core/workload.h"

#include <stdbool.h>

enum { PIPELINE_CLI_SCHEDULE = 640, PIPELINE_CLI_VSTAGES };

#define PIPELINE_CLI_OPTS                                                                          \
    {"schedule", PIPELINE_CLI_SCHEDULE, "S",                                                       \
     "micro-batched graphs, timed model: the pipeline schedule, gpipe | 1f1b | interleaved "       \
     "(default the workload's x-pipeline, else 1f1b)"},                                            \
    {                                                                                              \
        "virtual-stages", PIPELINE_CLI_VSTAGES, "V",                                               \
            "with --schedule interleaved: V chunks of layers per device (default 1)"               \
    }

struct pipeline_cli {
    bool set; /* an option was given */
    bool have_schedule;
    struct pipeline_opts o;
};

void pipeline_cli_init(struct pipeline_cli *pc);

/* Option c into pc: 0 handled, -1 not one of PIPELINE_CLI_OPTS, else the
 * exit status of a bad value (message printed). */
int pipeline_cli_option(struct cmd_parser *cp, int c, struct pipeline_cli *pc);

/*
 * Applies the options to the loaded workload and its graph (both the
 * caller's): the graph's schedule, and the workload's x-pipeline so that a
 * recorded run names what it simulated.  --virtual-stages alone keeps the
 * workload's schedule.  Nothing when no option was given or the graph has
 * no micro-batches.  0, BAECHI_EINVAL (message set) or BAECHI_ENOMEM.
 */
int pipeline_cli_apply(const struct pipeline_cli *pc, struct workload *w, struct graph *g);

#endif
