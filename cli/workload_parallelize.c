/*
 * workload_parallelize.c - `baechi workload parallelize`: a training graph
 * -> the step over D x T x P devices with DDP/ZeRO, Megatron tensor and
 * pipeline parallelism (workloads/parallel.h), and its placement; the
 * options it shares with `workload gen` (the parameter table's rows of
 * GEN_PARAM_PARALLEL: workload_cli_table_opts).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "cli/cmd.h"
#include "cli/place.h"
#include "cli/workload.h"
#include "core/alloc.h"
#include "core/err.h"
#include "core/graph.h"
#include "core/placement.h"
#include "core/units.h"
#include "core/workload.h"
#include "core/workload_yaml.h"
#include "workloads/gen_params.h"
#include "workloads/parallel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const parallelize_usage[] = {
    "baechi workload parallelize <train.yaml> [--dp D] [--tp T [--sp]] [--pp P] [--zero 0|1|2|3] "
    "[--pp-balance layers|time] [--bucket-mb MB] [--mixed-precision [--fp32-main-grads]] "
    "[-o <out.yaml>] "
    "[--placement-out <placement.yaml>]",
    NULL,
};

enum { OPT_PLACEMENT_OUT = 700 };

/* Fills t (GEN_PARAMS_MAX + 3 rows): -o, --placement-out, and the parallelism
 * options of the parameter table (their help written there once). */
static void parallelize_opts(struct cmd_opt *t)
{
    int n = 0;

    t[n++] = (struct cmd_opt){"output", 'o', "FILE",
                              "write the parallelised workload here (default: standard output)"};
    t[n++] = (struct cmd_opt){"placement-out", OPT_PLACEMENT_OUT, "FILE",
                              "also write its placement (rank r = t + T x (d + D x p): TP "
                              "innermost, then DP, then PP)"};
    workload_cli_table_opts(t, &n, GEN_PARAM_PARALLEL);
    t[n] = (struct cmd_opt)CMD_OPT_END;
}

/* The placement the graph's `device` fields give (every op has one). */
static int write_placement_file(const struct workload *w, const char *path)
{
    struct graph g;
    struct placement p;
    int rc;

    memset(&g, 0, sizeof(g));
    memset(&p, 0, sizeof(p));
    if (!(rc = graph_build(&g, w)) && !(rc = placement_init(&p, g.n_ops)) &&
        !(rc = placement_from_given(&p, &g)) &&
        !(rc = placement_set_meta(&p, w->name, NULL, "parallel"))) {
        rc = place_cli_write_placement(path, &p, &g);
    }
    placement_release(&p);
    graph_release(&g);
    return rc;
}

int workload_cli_parallel_summary(const struct workload *w, const struct parallel_opts *o, FILE *f)
{
    int32_t n = o->dp * o->tp * o->pp;
    struct parallel_device *dev = mem_calloc((size_t)n, sizeof(*dev));
    char a[32], b[32], c[32];

    if (!dev) {
        return cmd_fail(err_set(BAECHI_ENOMEM, "out of memory"));
    }
    parallel_summarize(w, n, dev);
    fprintf(f, "%s: %d devices (dp %d, tp %d, pp %d, zero %d)\n", w->name, (int)n, (int)o->dp,
            (int)o->tp, (int)o->pp, (int)o->zero);
    if (o->symmetric) {
        fprintf(f,
                "  symmetric: %d of %d ranks a stage written (replicas 0 and D-1, %s), each "
                "standing for its class (docs/symmetry.md)\n",
                (int)parallel_ranks_written(o), (int)(o->dp * o->tp),
                parallel_tp_symmetric(o) ? "TP ranks 0 and T-1" : "every TP rank");
    }
    for (int32_t r = 0; r < n; r++) {
        if (!parallel_rank_written(o, r)) {
            continue;
        }
        units_fmt_bytes(dev[r].param_bytes, a, sizeof(a));
        units_fmt_bytes(dev[r].grad_bytes, b, sizeof(b));
        units_fmt_bytes(dev[r].optimizer_bytes, c, sizeof(c));
        fprintf(f,
                "  device %d: parameters %s, gradient buckets %s, optimizer state %s, %.4g GFLOP, "
                "%d collective ops\n",
                (int)r, a, b, c, dev[r].flops / 1e9, (int)dev[r].n_collective_ops);
    }
    free(dev);
    return 0;
}

int workload_cli_parallel_check(struct cmd_parser *p, const struct parallel_opts *o)
{
    return parallel_opts_check(o) ? cmd_usage_error(p, "%s", err_msg()) : 0;
}

int cmd_workload_parallelize(int argc, char **argv)
{
    struct cmd_opt table[GEN_PARAMS_MAX + 3];
    struct cmd_parser p = {argc, argv, argv[0], parallelize_usage, table, NULL, NULL};
    struct parallel_opts o;
    struct workload in, out;
    const char *path = "-", *placement = NULL;
    int c, rc;

    parallelize_opts(table);
    parallel_opts_init(&o);
    while ((c = cmd_getopt(&p)) != -1) {
        switch (c) {
        case 'h':
            return 0;
        case 'o':
            path = p.optarg;
            break;
        case OPT_PLACEMENT_OUT:
            placement = p.optarg;
            break;
        default:
            if (workload_cli_parallel_option(&p, c, &o) != 0) {
                return EXIT_BADINPUT;
            }
            break;
        }
    }
    if (cmd_optind() != argc - 1) {
        return cmd_usage_error(&p, "expected one training workload file");
    }
    if ((rc = workload_cli_parallel_check(&p, &o)) != 0) {
        return rc;
    }
    {
        const struct cmd_file fin[] = {{argv[cmd_optind()], "the workload"}};
        const struct cmd_file fout[] = {{path, "-o"}, {placement, "--placement-out"}};

        if ((rc = cmd_check_files(fin, CMD_N(fin), fout, CMD_N(fout))) != 0) {
            return cmd_fail(rc);
        }
    }
    if ((rc = workload_read_yaml(&in, argv[cmd_optind()]))) {
        workload_release(&in);
        return cmd_fail(rc);
    }
    if ((rc = parallel_apply(&out, &in, &o))) {
        const char *f = argv[cmd_optind()];

        workload_release(&in);
        /* a message that names a place in the file (file:line:col) has its path */
        if (strncmp(err_msg(), f, strlen(f)) == 0) {
            return cmd_fail(rc);
        }
        return cmd_fail(err_wrap(rc, "%s", f));
    }
    workload_release(&in);
    if (!(rc = workload_cli_write(&out, path)) && placement &&
        (rc = write_placement_file(&out, placement))) {
        rc = cmd_fail(rc);
    }
    if (!rc) {
        rc = workload_cli_parallel_summary(&out, &o, strcmp(path, "-") == 0 ? stderr : stdout);
    }
    workload_release(&out);
    return rc;
}
