/*
 * plot.c - `baechi plot KIND --db F -o out.png|svg|pdf`: the plot
 * catalogue (results/plot.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "cli/cmd.h"
#include "cli/commands.h"
#include "core/err.h"
#include "core/escape.h"
#include "results/db.h"
#include "results/filter.h"
#include "results/plot.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const char *const plot_usage[] = {
    "baechi plot <kind> [--db <F>] -o <out.png|svg|pdf> [--csv <data.csv>] [--where K=V]... "
    "[options]",
    "baechi plot line --x <dim> --y <metric> [--by <dim>] [--where K=V]... -o <out.png>",
    "baechi plot <kind> [--db <F>] --csv <data.csv>",
    "baechi plot --list",
    NULL,
};

enum {
    PL_DB = 540,
    PL_CSV,
    PL_SCRIPT,
    PL_MODEL,
    PL_WORKLOAD,
    PL_RUN,
    PL_NORM,
    PL_LIST,
    PL_WHERE,
    PL_X,
    PL_Y,
    PL_BY,
    PL_STAT,
    PL_LINES
};

static const struct cmd_opt plot_opts[] = {
    {"db", PL_DB, "F", "the results database (default results.db)"},
    {"output", 'o', "F", "the figure: .png, .svg or .pdf (drawn by gnuplot)"},
    {"csv", PL_CSV, "F", "also write the plotted data as CSV (works without gnuplot)"},
    {"script", PL_SCRIPT, "F", "keep the generated gnuplot script in F"},
    {"model", PL_MODEL, "M", "runs of simulator model M: timed (default) or baechi"},
    {"where", PL_WHERE, "K=V",
     "only runs with K=V[,V...] (or !=, <, <=, >, >=); K: workload, cluster, placer, config, "
     "grouper, fusion, devices, memory_fraction, comm_factor, compute_factor, n_ops, batch, seed, "
     "micro_batches, pipeline, strategy, sweep, "
     "status; repeatable"},
    {"workload", PL_WORKLOAD, "W", "the same as --where workload=W"},
    {"x", PL_X, "DIM",
     "line: the x axis: devices (default), memory_fraction, comm_factor, compute_factor, n_ops, "
     "batch, micro_batches"},
    {"y", PL_Y, "METRIC",
     "line: step (default, ms), peak (GiB), peak0 (device 0, GiB), placement (ms), bound_ratio"},
    {"by", PL_BY, "DIM", "line: one panel per value of DIM (e.g. memory_fraction)"},
    {"lines", PL_LINES, "DIM",
     "line: a line per value of DIM (e.g. pipeline) instead of per placer configuration "
     "(select one configuration with --where)"},
    {"stat", PL_STAT, "S", "line kinds: a point is the mean (default) or the median of its runs"},
    {"run", PL_RUN, "ID",
     "peak, gantt: the run id (default: the paper's configuration on the first workload at the "
     "largest memory fraction)"},
    {"normalise", PL_NORM, "TO", "step: normalise to single (default), expert or none"},
    {"list", PL_LIST, NULL, "list the plot kinds"},
    CMD_OPT_END,
};

/* The options that only some kinds read, given to another: exit 2 naming
 * the option and the kinds that read it, else 0. */
static int plot_kind_opts_check(struct cmd_parser *cp, const struct plot_opts *po)
{
    const char *k = po->kind;

    if (po->lines && strcmp(k, "line") != 0) {
        return cmd_usage_error(cp, "--lines is for plot line, not '%s'", k);
    }
    if ((po->x || po->y || po->by || po->stat) && strcmp(k, "line") != 0 &&
        strcmp(k, "memory") != 0 && strcmp(k, "scaling") != 0) {
        return cmd_usage_error(cp,
                               "--x, --y, --by and --stat are for the line kinds (line, memory, "
                               "scaling), not '%s'",
                               k);
    }
    /* issue 33 item 2: --run and --normalise were accepted by every kind */
    if (po->run > 0 && strcmp(k, "peak") != 0 && strcmp(k, "gantt") != 0 &&
        strcmp(k, "memory-timeline") != 0) {
        return cmd_usage_error(cp,
                               "--run is for the one-run kinds (peak, gantt, memory-timeline), "
                               "not '%s'",
                               k);
    }
    if (po->normalise && strcmp(k, "step") != 0) {
        return cmd_usage_error(cp, "--normalise is for plot step, not '%s'", k);
    }
    return 0;
}

int cmd_plot(int argc, char **argv)
{
    struct cmd_parser cp = {
        .argc = argc, .argv = argv, .cmd = "plot", .usage = plot_usage, .opts = plot_opts};
    struct plot_opts po;
    struct rfilter where;
    bool model_given = false;
    const char *dbp = "results.db";
    struct db *db = NULL;
    int rc = 0, o;
    long v;

    memset(&po, 0, sizeof(po));
    rfilter_init(&where);
    po.model = "timed";
    po.where = &where;
    while ((o = cmd_getopt(&cp)) != -1) {
        switch (o) {
        case 'h':
            rc = EXIT_OK;
            goto done;
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
                rc = cmd_usage_error(&cp, "unknown model '%s' (timed, baechi)", cp.optarg);
                goto done;
            }
            po.model = cp.optarg;
            model_given = true;
            break;
        case PL_WORKLOAD:
            if (rfilter_add_eq(&where, "workload", cp.optarg)) {
                rc = cmd_usage_error(&cp, "%s", err_msg());
                goto done;
            }
            break;
        case PL_WHERE:
            if (rfilter_add(&where, cp.optarg)) {
                rc = cmd_usage_error(&cp, "%s", err_msg());
                goto done;
            }
            break;
        case PL_X:
            po.x = cp.optarg;
            break;
        case PL_Y:
            po.y = cp.optarg;
            break;
        case PL_BY:
            po.by = cp.optarg;
            break;
        case PL_LINES:
            po.lines = cp.optarg;
            break;
        case PL_STAT:
            if (strcmp(cp.optarg, "mean") != 0 && strcmp(cp.optarg, "median") != 0) {
                rc = cmd_usage_error(&cp, "--stat: '%s' is not mean or median", cp.optarg);
                goto done;
            }
            po.stat = cp.optarg;
            break;
        case PL_RUN:
            if (cmd_parse_int(&cp, "--run", cp.optarg, 1, 0x7fffffffL, &v)) {
                rc = EXIT_BADINPUT;
                goto done;
            }
            po.run = v;
            break;
        case PL_NORM:
            if (strcmp(cp.optarg, "single") != 0 && strcmp(cp.optarg, "expert") != 0 &&
                strcmp(cp.optarg, "none") != 0) {
                rc = cmd_usage_error(&cp, "--normalise: '%s' is not single, expert or none",
                                     cp.optarg);
                goto done;
            }
            po.normalise = cp.optarg;
            break;
        case PL_LIST:
            for (const char *const *k = plot_kinds(); *k; k++) {
                printf("  %-15s %s\n", *k, plot_kind_summary(*k));
            }
            rc = EXIT_OK;
            goto done;
        default:
            rc = EXIT_BADINPUT;
            goto done;
        }
    }
    if (cmd_optind() != argc - 1) {
        rc = cmd_usage_error(&cp, "needs one plot kind (see --list)");
        goto done;
    }
    {
        /* --where model=M chooses the model as --model does */
        const struct rcond *mc = rfilter_get(&where, "model");
        if (mc && strcmp(mc->op, "=") == 0 && mc->nval == 1 && !model_given) {
            po.model = mc->val[0];
        }
    }
    po.kind = argv[cmd_optind()];
    if (!plot_kind_summary(po.kind)) {
        const char *sug = results_suggest(po.kind, plot_kinds(), 7);
        rc = cmd_usage_error(&cp, "unknown plot kind '%s'%s%s%s (see --list)", po.kind,
                             sug ? "; did you mean '" : "", sug ? sug : "", sug ? "'?" : "");
        goto done;
    }
    if ((rc = plot_kind_opts_check(&cp, &po)) != 0) {
        goto done;
    }
    {
        const struct cmd_file in[] = {{dbp, "--db"}};
        const struct cmd_file out[] = {{po.out, "-o"}, {po.csv, "--csv"}, {po.script, "--script"}};

        rc = cmd_check_files(in, CMD_N(in), out, CMD_N(out));
    }
    if (!rc && (rc = db_open(&db, dbp, DB_READONLY)) == 0) {
        rc = plot_make(db, &po);
    }
    db_close(db);
    if (!rc && po.out) {
        /* the name as the user sees it: control characters escaped */
        fputs("baechi: wrote ", stderr);
        escape_fputs(po.out, stderr);
        fputc('\n', stderr);
    }
    rc = rc ? cmd_fail(rc) : EXIT_OK;
done:
    rfilter_release(&where);
    return rc;
}
