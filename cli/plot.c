/*
 * plot.c - `baechi plot KIND --db F -o out.png|svg|pdf`: the plot
 * catalogue (results/plot.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "cli/cmd.h"
#include "cli/commands.h"
#include "core/err.h"
#include "results/db.h"
#include "results/plot.h"

#include <stdio.h>
#include <string.h>

static const char *const plot_usage[] = {
    "baechi plot <kind> [--db <F>] -o <out.png|svg|pdf> [--csv <data.csv>] [options]",
    "   or: baechi plot <kind> [--db <F>] --csv <data.csv>",
    "   or: baechi plot --list",
    NULL,
};

enum { PL_DB = 540, PL_CSV, PL_SCRIPT, PL_MODEL, PL_WORKLOAD, PL_RUN, PL_NORM, PL_LIST };

static const struct cmd_opt plot_opts[] = {
    {"db", PL_DB, "F", "the results database (default results.db)"},
    {"output", 'o', "F", "the figure: .png, .svg or .pdf (drawn by gnuplot)"},
    {"csv", PL_CSV, "F", "also write the plotted data as CSV (works without gnuplot)"},
    {"script", PL_SCRIPT, "F", "keep the generated gnuplot script in F"},
    {"model", PL_MODEL, "M", "runs of simulator model M: timed (default) or baechi"},
    {"workload", PL_WORKLOAD, "W", "memory: the workload (default: the first stored)"},
    {"run", PL_RUN, "ID", "peak, gantt: the run id (default: the latest simulated run)"},
    {"normalise", PL_NORM, "TO", "step: normalise to single (default), expert or none"},
    {"list", PL_LIST, NULL, "list the plot kinds"},
    CMD_OPT_END,
};

int cmd_plot(int argc, char **argv)
{
    struct cmd_parser cp = {
        .argc = argc, .argv = argv, .cmd = "plot", .usage = plot_usage, .opts = plot_opts};
    struct plot_opts po;
    const char *dbp = "results.db";
    struct db *db = NULL;
    int rc = 0, o;
    long v;

    memset(&po, 0, sizeof(po));
    po.model = "timed";
    while ((o = cmd_getopt(&cp)) != -1) {
        switch (o) {
        case 'h':
            return EXIT_OK;
        case PL_DB:
            dbp = cp.optarg;
            break;
        case 'o':
            po.out = cp.optarg;
            break;
        case PL_CSV:
            po.csv = cp.optarg;
            break;
        case PL_SCRIPT:
            po.script = cp.optarg;
            break;
        case PL_MODEL:
            if (strcmp(cp.optarg, "timed") != 0 && strcmp(cp.optarg, "baechi") != 0) {
                return cmd_usage_error(&cp, "unknown model '%s' (timed, baechi)", cp.optarg);
            }
            po.model = cp.optarg;
            break;
        case PL_WORKLOAD:
            po.workload = cp.optarg;
            break;
        case PL_RUN:
            if (cmd_parse_int(&cp, "--run", cp.optarg, 1, 0x7fffffffL, &v)) {
                return EXIT_BADINPUT;
            }
            po.run = v;
            break;
        case PL_NORM:
            if (strcmp(cp.optarg, "single") != 0 && strcmp(cp.optarg, "expert") != 0 &&
                strcmp(cp.optarg, "none") != 0) {
                return cmd_usage_error(&cp, "--normalise: '%s' is not single, expert or none",
                                       cp.optarg);
            }
            po.normalise = cp.optarg;
            break;
        case PL_LIST:
            for (const char *const *k = plot_kinds(); *k; k++) {
                printf("  %-15s %s\n", *k, plot_kind_summary(*k));
            }
            return EXIT_OK;
        default:
            return EXIT_BADINPUT;
        }
    }
    if (cmd_optind() != argc - 1) {
        return cmd_usage_error(&cp, "needs one plot kind (see --list)");
    }
    po.kind = argv[cmd_optind()];
    if (!plot_kind_summary(po.kind)) {
        return cmd_usage_error(&cp, "unknown plot kind '%s' (see --list)", po.kind);
    }
    if ((rc = db_open(&db, dbp, DB_READONLY)) == 0) {
        rc = plot_make(db, &po);
    }
    db_close(db);
    if (!rc && po.out) {
        fprintf(stderr, "baechi: wrote %s\n", po.out);
    }
    return rc ? cmd_fail(rc) : EXIT_OK;
}
