/*
 * progress.c - `--progress[=WHEN]`: the simulation's progress line on
 * stderr (progress.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "cli/progress.h"

#include "core/units.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

int progress_cli_option(struct cmd_parser *p, struct progress_cli *pc)
{
    const char *when = p->optarg ? p->optarg : "auto";

    if (strcmp(when, "auto") == 0) {
        pc->on = isatty(2) == 1; /* quiet into a file or a pipe */
    } else if (strcmp(when, "always") == 0 || strcmp(when, "never") == 0) {
        pc->on = when[0] == 'a';
    } else {
        return cmd_usage_error(p, "--progress=%s: expected auto, always or never", when);
    }
    return 0;
}

/* The line: redrawn in place, ended by a newline when the run has ended. */
static void draw(void *ctx, int32_t ops_ended, int32_t n_ops, int64_t now_us, bool done)
{
    const struct progress_cli *pc = ctx;
    char t[32];

    units_fmt_us((double)now_us, t, sizeof(t));
    fprintf(stderr, "\r%s: %d / %d ops (%.0f %%), simulated %s%s", pc->label, (int)ops_ended,
            (int)n_ops, n_ops ? 100.0 * ops_ended / n_ops : 100.0, t, done ? "\n" : "");
    fflush(stderr);
}

void progress_cli_apply(struct progress_cli *pc, struct sim_options *opt)
{
    opt->progress = pc->on ? draw : NULL;
    opt->progress_ctx = pc;
}
