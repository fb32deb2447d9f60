/*
 * pipeline_cli.c - --schedule and --virtual-stages of run and sim
 * (pipeline_cli.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "cli/pipeline_cli.h"

#include "core/err.h"

void pipeline_cli_init(struct pipeline_cli *pc)
{
    pc->set = false;
    pc->have_schedule = false;
    pipeline_opts_init(&pc->o);
    pc->o.virtual_stages = 0; /* 0: not given */
}

int pipeline_cli_option(struct cmd_parser *cp, int c, struct pipeline_cli *pc)
{
    long v;

    switch (c) {
    case PIPELINE_CLI_SCHEDULE:
        if (pipeline_schedule_parse(cp->optarg, &pc->o.schedule)) {
            return cmd_usage_error(cp, "--schedule: %s", err_msg());
        }
        pc->have_schedule = pc->set = true;
        return 0;
    case PIPELINE_CLI_VSTAGES:
        if (cmd_parse_int(cp, "--virtual-stages", cp->optarg, 1, PIPELINE_VIRTUAL_STAGES_MAX, &v)) {
            return EXIT_BADINPUT;
        }
        pc->o.virtual_stages = (int32_t)v;
        pc->set = true;
        return 0;
    default:
        return -1;
    }
}

int pipeline_cli_apply(const struct pipeline_cli *pc, struct workload *w, struct graph *g)
{
    struct pipeline_opts o = g->pipeline;
    int rc;

    if (!pc->set || !g->micro_batch) {
        return 0;
    }
    if (pc->have_schedule) {
        o.schedule = pc->o.schedule;
        /* another schedule than the file's: one virtual stage unless given */
        o.virtual_stages = 1;
    }
    if (pc->o.virtual_stages > 0) {
        o.virtual_stages = pc->o.virtual_stages;
    }
    if ((rc = pipeline_opts_check(&o)) != 0) {
        return rc;
    }
    g->pipeline = o;
    return pipeline_opts_write(w, &o);
}
