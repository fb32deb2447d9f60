/*
 * workload_annotate.c - `baechi workload annotate`: measured per-op times
 * from a profiler trace (calibrate/annotate.h does the matching).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "calibrate/annotate.h"
#include "cli/cmd.h"
#include "cli/commands.h"
#include "core/err.h"
#include "core/escape.h"
#include "core/workload_yaml.h"

#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------------
 * `baechi workload annotate`
 * ---------------------------------------------------------------------- */
static const char *const annotate_usage[] = {
    "baechi workload annotate <workload.yaml> --profile <trace.json> [-o <out.yaml>]",
    NULL,
};

static const struct cmd_opt annotate_opts[] = {
    {"profile", 'P', "<trace.json>", "PyTorch profiler Chrome trace (JSON)"},
    {"output", 'o', "<file>", "annotated workload (default '-': stdout)"},
    {"max-unmatched", 'u', "<n>", "names of unmatched ops to list (default 20)"},
    CMD_OPT_END,
};

static int write_workload(FILE *f, void *ctx)
{
    return workload_write_yaml(ctx, f);
}

int cmd_workload_annotate(int argc, char **argv)
{
    struct cmd_parser p = {argc, argv, "workload annotate", annotate_usage, annotate_opts,
                           NULL, NULL};
    const char *profile = NULL, *out = "-", *wpath = NULL;
    struct workload w;
    struct annotate_report rep;
    long max_list = 20;
    FILE *info;
    int c, rc = 0, status = EXIT_OK;

    memset(&rep, 0, sizeof(rep));
    while ((c = cmd_getopt(&p)) != -1) {
        switch (c) {
        case 'h':
            return EXIT_OK;
        case '?':
            return EXIT_BADINPUT;
        case 'P':
            profile = p.optarg;
            break;
        case 'o':
            out = p.optarg;
            break;
        case 'u':
            if (cmd_parse_int(&p, "--max-unmatched", p.optarg, 0, 1000000, &max_list)) {
                return EXIT_BADINPUT;
            }
            break;
        default:
            return EXIT_BADINPUT;
        }
    }
    if (cmd_optind() < p.argc) {
        if (wpath || cmd_optind() + 1 < p.argc) {
            return cmd_usage_error(&p, "exactly one workload file, please (got '%s' and '%s')",
                                   wpath ? wpath : p.argv[cmd_optind()],
                                   p.argv[wpath ? cmd_optind() : cmd_optind() + 1]);
        }
        wpath = p.argv[cmd_optind()];
    }
    if (!wpath) {
        return cmd_usage_error(&p, "a workload file is required");
    }
    if (!profile) {
        return cmd_usage_error(&p, "--profile is required");
    }
    {
        const struct cmd_file in[] = {{wpath, "the workload"}, {profile, "--profile"}};
        const struct cmd_file outs[] = {{out, "-o"}};

        if ((rc = cmd_check_files(in, CMD_N(in), outs, CMD_N(outs))) != 0) {
            return cmd_fail(rc);
        }
    }
    if ((rc = workload_read_yaml(&w, wpath)) != 0) {
        workload_release(&w);
        return cmd_fail(rc);
    }
    CHECK(annotate_profile(&w, profile, &rep));
    CHECK(cmd_write_file(out, write_workload, &w));
    info = strcmp(out, "-") == 0 ? stderr : stdout;
    fprintf(info,
            "annotate: %d of %d ops timed from %s (%d by GPU annotation, %d by host event name, "
            "%d by type order); %d events, %d on the GPU\n",
            (int)rep.n_matched, (int)rep.n_ops, profile, (int)rep.by_rule[ANNOTATE_GPU_NAME],
            (int)rep.by_rule[ANNOTATE_HOST_NAME], (int)rep.by_rule[ANNOTATE_TYPE],
            (int)rep.n_events, (int)rep.n_gpu_events);
    if (rep.n_matched < rep.n_ops) {
        int32_t n_un = rep.n_ops - rep.n_matched;

        fprintf(info, "annotate: %d unmatched ops keep their time_us:", (int)n_un);
        for (int32_t i = 0; i < n_un && i < max_list; i++) {
            fprintf(info, " %s", escape_tmp(w.op[rep.unmatched[i]].name));
        }
        fprintf(info, "%s\n", n_un > max_list ? " ..." : "");
    }
cleanup:
    if (rc) {
        status = cmd_fail(rc);
    }
    annotate_report_release(&rep);
    workload_release(&w);
    return status;
}
