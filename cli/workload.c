/*
 * workload.c - `baechi workload <verb>`: the verb table, and `info`.
 * Other verbs (gen, import, train, annotate) live in their own files and
 * are listed in workload_verbs[] below.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "cli/cmd.h"
#include "cli/commands.h"
#include "cli/workload.h"
#include "core/err.h"
#include "core/escape.h"
#include "core/json_out.h"
#include "core/graph.h"
#include "core/units.h"
#include "core/workload.h"
#include "core/workload_yaml.h"
#include "workloads/costmodel.h"
#include "workloads/gen_params.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const info_usage[] = {
    "baechi workload info <workload.yaml> [--devices K] [--json]",
    NULL,
};

enum { OPT_JSON = 256 };

static const struct cmd_opt info_opts[] = {
    {"devices", 'k', "K", "lower bound for K devices (default: 1, 2, 4 and 8)"},
    {"json", OPT_JSON, NULL, "one JSON object instead of text"},
    CMD_OPT_END,
};

static void print_lb(const struct graph *g, int32_t k, int64_t cp, int64_t total)
{
    char a[32], b[32], c[32];
    int64_t avg = (total + k - 1) / k;
    int64_t lb = cp > avg ? cp : avg;

    units_fmt_us((double)lb, a, sizeof(a));
    units_fmt_us((double)cp, b, sizeof(b));
    units_fmt_us((double)avg, c, sizeof(c));
    (void)g;
    printf("  lower bound, %2d device%s  %s = max(critical path %s, Σ compute / %d = %s)\n", k,
           k == 1 ? " " : "s", a, b, k, c);
}

static int workload_info(const char *path, int32_t k, bool json)
{
    struct workload w;
    struct graph g;
    struct graph_mem_totals mem;
    int64_t total, cp;
    int32_t n_control = 0, n_given = 0, max_dev = -1, n_refs, n_unprofiled = 0;
    double time_us_sum = 0;
    int32_t phases[3] = {0, 0, 0};
    int rc;

    memset(&g, 0, sizeof(g));
    if ((rc = workload_read_yaml(&w, path))) {
        return cmd_fail(rc);
    }
    if ((rc = graph_build(&g, &w))) {
        workload_release(&w);
        return cmd_fail(rc);
    }
    total = graph_total_compute_us(&g);
    if ((rc = graph_critical_path_us(&g, &cp))) {
        graph_release(&g);
        workload_release(&w);
        return cmd_fail(rc);
    }
    graph_mem_totals(&g, &mem);
    n_refs = g.et_start[g.n_edges];
    for (int32_t i = 0; i < n_refs; i++) {
        n_control += graph_tensor_is_control(&g, g.et_tensor[i]);
    }
    for (int32_t u = 0; u < g.n_ops; u++) {
        double t = w.op[g.wl_index[u]].time_us;

        if (isnan(t)) {
            n_unprofiled++;
        } else {
            time_us_sum += t;
        }
        phases[g.phase[u] < 3 ? g.phase[u] : 0]++;
        if (g.given_device[u] >= 0) {
            n_given++;
            if (g.given_device[u] > max_dev) {
                max_dev = g.given_device[u];
            }
        }
    }
    if (json) {
        fputs("{\"workload\": ", stdout);
        json_out_str(stdout, w.name);
        printf(", \"n_ops_in_file\": %d, \"n_ops\": %d, \"n_pruned\": %d, "
               "\"n_edges\": %d, \"n_tensor_refs\": %d, \"n_control_edges\": %d, "
               "\"n_tensors\": %d, \"n_groups\": %d, "
               "\"total_compute_us\": %" PRId64 ", \"measured_compute_us\": %.17g, "
               "\"n_unprofiled_ops\": %d, \"critical_path_us\": %" PRId64 ", "
               "\"persistent_bytes\": %" PRId64 ", \"output_bytes\": %" PRId64
               ", \"temp_bytes\": %" PRId64 ", \"temp_max_bytes\": %" PRId64 ", "
               "\"phases\": {\"forward\": %d, \"backward\": %d, \"update\": %d}, "
               "\"n_given_device_ops\": %d, \"lower_bounds\": [",
               w.n_ops, g.n_ops, g.n_pruned, g.n_edges, n_refs, n_control, g.n_ports, g.n_groups,
               total, time_us_sum, n_unprofiled, cp, mem.persistent, mem.outputs, mem.temp,
               mem.temp_max, phases[0], phases[1], phases[2], n_given);
        for (int32_t kk = 1, first = 1; kk <= 8; kk *= 2) {
            int32_t kd = k > 0 ? k : kk;
            int64_t avg = (total + kd - 1) / kd;

            printf("%s{\"n_devices\": %d, \"lower_bound_us\": %" PRId64 "}", first ? "" : ", ", kd,
                   cp > avg ? cp : avg);
            first = 0;
            if (k > 0) {
                break;
            }
        }
        printf("]}\n");
    } else {
        char a[32], b[32], c[32], d[32];

        printf("workload %s (%s)\n", escape_tmp(w.name), escape_tmp(path));
        if (w.description) {
            const char *nl = strchr(w.description, '\n');
            int len = nl ? (int)(nl - w.description) : (int)strlen(w.description);
            char first[168];

            snprintf(first, sizeof(first), "%.*s", len > 160 ? 160 : len, w.description);
            printf("  %s%s\n", escape_tmp(first), len > 160 ? "..." : "");
        }
        printf("  ops          %d (%d in the file, %d dangling pruned)\n", g.n_ops, w.n_ops,
               g.n_pruned);
        printf("  edges        %d (%d tensor references, %d control dependencies)\n", g.n_edges,
               n_refs, n_control);
        printf("  tensors      %d output ports\n", g.n_ports);
        printf("  groups       %d colocation groups\n", g.n_groups);
        printf("  phases       %d forward, %d backward, %d update\n", phases[0], phases[1],
               phases[2]);
        units_fmt_us((double)total, a, sizeof(a));
        units_fmt_us((double)cp, b, sizeof(b));
        units_fmt_us(time_us_sum, c, sizeof(c));
        printf("  Σ compute    %s (%" PRId64
               " µs: Σ time_us %s, the file's times, estimates unless "
               "measured; %d ops without time_us at 1 µs each, as the original)\n",
               a, total, c, n_unprofiled);
        printf("  critical path %s (%" PRId64 " µs), parallelism %.2f\n", b, cp,
               cp ? (double)total / (double)cp : 0.0);
        units_fmt_bytes(mem.persistent, a, sizeof(a));
        units_fmt_bytes(mem.outputs, b, sizeof(b));
        units_fmt_bytes(mem.temp, c, sizeof(c));
        units_fmt_bytes(mem.temp_max, d, sizeof(d));
        printf("  memory       persistent %s, sum of op outputs %s (not a peak), temp %s (largest "
               "%s)\n",
               a, b, c, d);
        if (n_given) {
            printf("  given placement  %d ops have a device (0..%d)\n", n_given, max_dev);
        }
        if (k > 0) {
            print_lb(&g, k, cp, total);
        } else {
            for (int32_t kk = 1; kk <= 8; kk *= 2) {
                print_lb(&g, kk, cp, total);
            }
        }
    }
    graph_release(&g);
    workload_release(&w);
    return 0;
}

static int cmd_workload_info(int argc, char **argv)
{
    struct cmd_parser p = {argc, argv, argv[0], info_usage, info_opts, NULL, NULL};
    long k = 0;
    bool json = false;
    int c;

    while ((c = cmd_getopt(&p)) != -1) {
        switch (c) {
        case 'h':
            return 0;
        case 'k':
            if (cmd_parse_int(&p, "--devices", p.optarg, 1, 4096, &k)) {
                return EXIT_BADINPUT;
            }
            break;
        case OPT_JSON:
            json = true;
            break;
        default:
            return EXIT_BADINPUT;
        }
    }
    if (cmd_optind() != argc - 1) {
        return cmd_usage_error(&p, "expected one workload file");
    }
    return workload_info(argv[cmd_optind()], (int32_t)k, json);
}

static const struct cmd_struct workload_verbs[] = {
    {"info", cmd_workload_info, "sizes, Σ compute, critical path, memory, lower bound"},
    {"gen", cmd_workload_gen, "generate a model (inception-v3, gnmt, transformer, gpt) or a DAG"},
    {"train", cmd_workload_train, "forward graph -> training graph (backward, updates)"},
    {"import", cmd_workload_import, "ONNX model -> workload (optionally with training graph)"},
    {"annotate", cmd_workload_annotate, "per-op times from a PyTorch profiler trace (JSON)"},
    {"ops", cmd_workload_ops, "the table of op semantics (what backward saves, views, ...)"},
    {"parallelize", cmd_workload_parallelize,
     "training graph -> DP (DDP, ZeRO) x TP (Megatron) x PP over D x T x P devices"},
    {NULL, NULL, NULL},
};

int cmd_workload(int argc, char **argv)
{
    return cmd_dispatch("workload", workload_verbs, argc, argv);
}

void workload_cli_table_opts(struct cmd_opt *t, int *n, unsigned uses)
{
    const struct gen_param *rows = gen_params();

    for (int i = 0; rows[i].name; i++) {
        if ((rows[i].uses & uses) == uses) {
            t[(*n)++] =
                (struct cmd_opt){rows[i].name, WORKLOAD_OPT_TABLE + i, rows[i].arg, rows[i].help};
        }
    }
}

/* The table's row of option c when it has every bit of `uses`, else NULL. */
static const struct gen_param *table_row(int c, unsigned uses)
{
    const struct gen_param *rows = gen_params();

    for (int i = 0; rows[i].name; i++) {
        if (c == WORKLOAD_OPT_TABLE + i) {
            return (rows[i].uses & uses) == uses ? &rows[i] : NULL;
        }
    }
    return NULL;
}

const char *workload_cli_train_flag(int c)
{
    const struct gen_param *row = table_row(c, GEN_PARAM_SYNTHESIS);

    return row ? row->name : NULL;
}

int workload_cli_table_option(struct cmd_parser *p, const char *flag, struct gen_spec *spec)
{
    return gen_spec_set(spec, flag + 2, p->optarg && flag ? p->optarg : "true")
               ? cmd_usage_error(p, "%s: %s", flag, err_msg())
               : 0;
}

/* Option c of the rows with `uses` into spec by the table: 0, 2 (printed),
 * -1 not one of them. */
static int table_row_option(struct cmd_parser *p, int c, unsigned uses, struct gen_spec *spec)
{
    const struct gen_param *row = table_row(c, uses);

    if (!row) {
        return -1;
    }
    return gen_spec_set(spec, row->name, row->type == GEN_PARAM_FLAG ? "true" : p->optarg)
               ? cmd_usage_error(p, "--%s: %s", row->name, err_msg())
               : 0;
}

int workload_cli_train_option(struct cmd_parser *p, int c, struct train_opts *o)
{
    struct gen_spec spec;
    int rc;

    /* the bounds and words of the one parameter table (workloads/gen_params.c) */
    gen_spec_init(&spec, GEN_SOURCE_MODEL, "gpt");
    spec.gen.train = *o;
    if ((rc = table_row_option(p, c, GEN_PARAM_SYNTHESIS, &spec)) == 0) {
        *o = spec.gen.train;
    }
    return rc;
}

int workload_cli_parallel_option(struct cmd_parser *p, int c, struct parallel_opts *o)
{
    struct gen_spec spec;
    int rc;

    gen_spec_init(&spec, GEN_SOURCE_MODEL, "gpt");
    spec.par = *o;
    if ((rc = table_row_option(p, c, GEN_PARAM_PARALLEL, &spec)) == 0) {
        *o = spec.par;
    }
    return rc;
}

int workload_cli_train_check(struct cmd_parser *p, const struct train_opts *o)
{
    return train_opts_check(o) ? cmd_usage_error(p, "%s", err_msg()) : 0;
}

static int write_workload(FILE *f, void *w)
{
    return workload_write_yaml(w, f);
}

int workload_cli_finish(struct cmd_parser *p, const char *what, const char *out, const char *device,
                        struct costmodel *cm, struct strbuf *kind)
{
    char role[64];
    int rc;

    if (cmd_optind() != p->argc - 1) {
        return cmd_usage_error(p, "expected one %s file", what);
    }
    snprintf(role, sizeof(role), "the %s", what);
    {
        const struct cmd_file in[] = {{p->argv[cmd_optind()], role}, {device, "--device"}};
        const struct cmd_file outs[] = {{out, "-o"}};

        if ((rc = cmd_check_files(in, CMD_N(in), outs, CMD_N(outs))) != 0) {
            return cmd_fail(rc);
        }
    }
    if (device && (rc = costmodel_from_spec(cm, device, kind)) != 0) {
        /* a bad --device is the user's (exit 2); out of memory is not */
        return rc == BAECHI_ENOMEM ? cmd_fail(rc) : cmd_usage_error(p, "%s", err_msg());
    }
    return 0;
}

int workload_cli_write(const struct workload *w, const char *path)
{
    int rc = cmd_write_file(path, write_workload, (void *)w);

    return rc ? cmd_fail(rc) : 0;
}
