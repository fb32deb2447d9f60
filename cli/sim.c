/*
 * sim.c - `baechi sim`: simulate one step of a placed graph and print
 * the metrics (text, or one JSON object with --json; keys in docs/json.md),
 * optionally writing a Chrome trace (Perfetto).
 *
 * Exit status 0 also when a device runs out of memory (a result), 2 for bad
 * input or usage.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "cli/cmd.h"
#include "cli/commands.h"
#include "cli/explain.h"
#include "cli/inputs.h"
#include "cli/pipeline_cli.h"
#include "cli/progress.h"
#include "core/cluster.h"
#include "core/err.h"
#include "core/limits.h"
#include "core/escape.h"
#include "core/graph.h"
#include "core/json_out.h"
#include "core/placement.h"
#include "core/units.h"
#include "core/workload.h"
#include "sim/sim.h"
#include "sim/symmetry.h"
#include "sim/trace.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const sim_usage[] = {
    "baechi sim -w <workload.yaml> -c <cluster> --placement <placement.yaml | given> "
    "[--model baechi | timed] [--trace <file.json>] [--json] [--explain-memory] [--devices <k>]",
    NULL,
};

enum { OPT_JSON = 256, OPT_EXPLAIN, OPT_PROGRESS };

static const struct cmd_opt sim_opts[] = {
    {"workload", 'w', "W", "the workload (YAML)"},
    {"cluster", 'c', "C", "a cluster file or preset name ('list' lists the presets)"},
    SIM_INPUTS_PLACEMENT_OPTS,
    {"model", 'm', "M", "'timed' (default, time-accurate) or 'baechi' (the original's)"},
    {"trace", 't', "F", "write a Chrome trace (JSON, opens in Perfetto) to F ('-' = stdout)"},
    {"json", OPT_JSON, NULL, "one JSON object with all metrics instead of text"},
    {"explain-memory", OPT_EXPLAIN, NULL,
     "what is live at each device's peak, by tensor and by kind (JSON: memory_explain)"},
    {"devices", 'k', "K", "use only the first K devices of the cluster"},
    {"progress", OPT_PROGRESS, "[=WHEN]", PROGRESS_CLI_HELP},
    PIPELINE_CLI_OPTS,
    CMD_OPT_END,
};

static const char *channel_used(const struct sim_result *r, const struct cluster *c)
{
    return cluster_channel_name(r->model == SIM_MODEL_BAECHI ? CHANNEL_SHARED : c->channel);
}

static const struct sim_oom *oom_of(const struct sim_result *r, int32_t d)
{
    for (int32_t i = 0; i < r->n_oom; i++) {
        if (r->oom[i].device == d) {
            return &r->oom[i];
        }
    }
    return NULL;
}

static void print_json(const struct sim_result *r, const struct graph *g, const struct cluster *c,
                       const struct workload *w, const struct placement *p, const char *pspec,
                       const struct mem_explain *x, const struct sim_symmetry *sym)
{
    int64_t tb = 0, tn = 0;
    bool first = true;

    fputs("{\"workload\": ", stdout);
    json_out_str(stdout, w->name);
    fputs(", \"cluster\": ", stdout);
    json_out_str(stdout, c->name);
    fputs(", \"placement\": ", stdout);
    json_out_str(stdout, pspec);
    fputs(", \"placer\": ", stdout);
    json_out_str(stdout, p->placer ? p->placer : (strcmp(pspec, "given") == 0 ? "given" : ""));
    printf(", \"model\": \"%s\", \"channel\": \"%s\", \"n_ops\": %d, \"n_edges\": %d, "
           "\"n_devices\": %d, \"step_us\": %" PRId64 ", \"lower_bound_us\": %" PRId64
           ", \"critical_path_us\": %" PRId64 ", \"total_compute_us\": %" PRId64
           ", \"oom\": %s, \"n_oom\": %d, \"devices\": [",
           sim_model_name(r->model), channel_used(r, c), g->n_ops, g->n_edges, r->n_devices,
           r->step_us, r->lower_bound_us, r->critical_path_us, r->total_compute_us,
           r->n_oom ? "true" : "false", r->n_oom);
    for (int32_t d = 0; d < r->n_devices; d++) {
        const struct sim_device_stats *s = &r->dev[d];
        const struct sim_oom *o = oom_of(r, d);

        printf("%s{\"id\": %d, \"name\": ", d ? ", " : "", d);
        json_out_str(stdout, c->dev[d].name);
        printf(", \"n_ops\": %d, \"busy_us\": %" PRId64 ", \"utilization\": %.4f, "
               "\"peak_bytes\": %" PRId64 ", \"limit_bytes\": %" PRId64
               ", \"final_bytes\": %" PRId64 ", \"oom\": %s",
               s->n_ops, s->busy_us, r->step_us ? (double)s->busy_us / (double)r->step_us : 0.0,
               s->peak_bytes, s->limit_bytes, s->final_bytes, s->oom ? "true" : "false");
        if (o) {
            printf(", \"oom_op\": ");
            json_out_str(stdout, g->op_name[o->op]);
            printf(", \"oom_time_us\": %" PRId64 ", \"oom_over_bytes\": %" PRId64, o->time_us,
                   o->over_bytes);
        }
        putchar('}');
    }
    fputs("], \"transfers\": [", stdout);
    for (size_t i = 0; i < r->links.n; i++) {
        int32_t a, b;

        if (!r->link_transfers[i]) {
            continue;
        }
        sim_links_pair(&r->links, i, &a, &b);
        printf("%s{\"src\": %d, \"dst\": %d, \"bytes\": %" PRId64 ", \"n_transfers\": %" PRId64 "}",
               first ? "" : ", ", a, b, r->link_bytes[i], r->link_transfers[i]);
        first = false;
        tb += r->link_bytes[i];
        tn += r->link_transfers[i];
    }
    printf("], \"transfer_bytes\": %" PRId64 ", \"n_transfers\": %" PRId64 ", \"options\": ", tb,
           tn);
    cmd_json_kv(stdout, p->options, p->n_options);
    fputs(", \"placement_stats\": ", stdout);
    cmd_json_kv(stdout, p->stats, p->n_stats);
    if (sim_symmetry_on(sym)) {
        printf(", \"symmetry\": {\"replicas\": %d, \"stride\": %d, \"devices\": %d, \"tp\": %d, "
               "\"classes\": %d}",
               (int)sym->replicas, (int)sym->stride, (int)sym->devices, (int)sym->tp,
               (int)sym->classes);
    }
    if (x) {
        fputs(", \"memory_explain\": ", stdout);
        explain_print_json(stdout, x, g, c);
    }
    fputs("}\n", stdout);
}

static void print_text(const struct sim_result *r, const struct graph *g, const struct cluster *c,
                       const struct workload *w, const struct placement *p, const char *pspec,
                       const struct sim_symmetry *sym)
{
    char a[48], b[48], e[48];
    int64_t tb = 0, tn = 0;

    printf("workload %s: %d ops, %d edges; cluster %s: %d devices; placement %s",
           escape_tmp(w->name), g->n_ops, g->n_edges, escape_tmp(c->name ? c->name : "?"),
           r->n_devices, escape_tmp(pspec));
    if (p->placer) {
        printf(" (placer %s)", escape_tmp(p->placer));
    }
    putchar('\n');
    if (r->model == SIM_MODEL_BAECHI) {
        printf("model          baechi (the original virtual scheduler, one shared channel per "
               "device)\n");
    } else {
        printf("model          timed (discrete events, %s channels)\n", channel_used(r, c));
    }
    units_fmt_us((double)r->step_us, a, sizeof(a));
    printf("step time      %s (%" PRId64 " µs)\n", a, r->step_us);
    if (sim_symmetry_on(sym)) {
        char line[SIM_SYMMETRY_DESCRIBE_MAX];

        sim_symmetry_describe(sym, line, sizeof(line));
        printf("symmetric      %s\n", line);
    }
    units_fmt_us((double)r->lower_bound_us, a, sizeof(a));
    units_fmt_us((double)r->critical_path_us, b, sizeof(b));
    printf("lower bound    %s (%" PRId64 " µs; critical path %s), step / bound %.3f\n", a,
           r->lower_bound_us, b,
           r->lower_bound_us ? (double)r->step_us / (double)r->lower_bound_us : 0.0);
    units_fmt_us((double)r->total_compute_us, a, sizeof(a));
    printf("total compute  %s\n", a);
    for (int32_t i = 0; i < p->n_stats; i++) {
        printf("placer stat    %s = %s\n", p->stats[i].key, p->stats[i].value);
    }
    printf("devices:\n");
    for (int32_t d = 0; d < r->n_devices; d++) {
        const struct sim_device_stats *s = &r->dev[d];
        const struct sim_oom *o = oom_of(r, d);

        units_fmt_us((double)s->busy_us, a, sizeof(a));
        units_fmt_bytes(s->peak_bytes, b, sizeof(b));
        units_fmt_bytes(s->limit_bytes, e, sizeof(e));
        printf("  %-10s %6d ops  busy %12s (%5.1f %%)  peak %12s of %12s (%5.1f %%)",
               escape_tmp(c->dev[d].name), s->n_ops, a,
               r->step_us ? 100.0 * (double)s->busy_us / (double)r->step_us : 0.0, b, e,
               s->limit_bytes > 0 ? 100.0 * (double)s->peak_bytes / (double)s->limit_bytes : 0.0);
        if (o) {
            units_fmt_bytes(o->over_bytes, a, sizeof(a));
            units_fmt_us((double)o->time_us, b, sizeof(b));
            printf("  OOM by %s at t=%s (op %s)", a, b, escape_tmp(g->op_name[o->op]));
        }
        putchar('\n');
    }
    printf("transfers:\n");
    for (size_t i = 0; i < r->links.n; i++) {
        int32_t x, y;

        if (!r->link_transfers[i]) {
            continue;
        }
        sim_links_pair(&r->links, i, &x, &y);
        units_fmt_bytes(r->link_bytes[i], a, sizeof(a));
        printf("  %-10s -> %-10s %12s in %" PRId64 " transfer%s\n", escape_tmp(c->dev[x].name),
               escape_tmp(c->dev[y].name), a, r->link_transfers[i],
               r->link_transfers[i] == 1 ? "" : "s");
        tb += r->link_bytes[i];
        tn += r->link_transfers[i];
    }
    units_fmt_bytes(tb, a, sizeof(a));
    printf("  total %s in %" PRId64 " transfer%s\n", a, tn, tn == 1 ? "" : "s");
    if (r->n_oom) {
        printf("out of memory on %d device%s\n", r->n_oom, r->n_oom == 1 ? "" : "s");
    }
}

int cmd_sim(int argc, char **argv)
{
    struct cmd_parser cp = {
        .argc = argc, .argv = argv, .cmd = "sim", .usage = sim_usage, .opts = sim_opts};
    struct sim_inputs_args a = {NULL, NULL, NULL, NULL, 0, false};
    const char *tpath = NULL;
    struct sim_options opt = {.model = SIM_MODEL_TIMED, .trace = NULL};
    struct sim_inputs in;
    struct sim_result r;
    struct trace t;
    struct mem_explain x;
    struct sim_symmetry sym = {1, 0, 0, 1, 1};
    struct pipeline_cli pipe;
    struct progress_cli progress = {false, "sim"};
    bool json = false, have_t = false, explain = false;
    long k = 0;
    int rc = 0, status = EXIT_OK, opt_c, r_opt;

    sim_inputs_init(&in);
    sim_result_init(&r);
    mem_explain_init(&x);
    pipeline_cli_init(&pipe);
    while ((opt_c = cmd_getopt(&cp)) != -1) {
        if ((r_opt = sim_inputs_option(&cp, opt_c, &a, &opt.model)) >= 0) {
            if (r_opt) {
                return r_opt;
            }
            continue;
        }
        switch (opt_c) {
        case 'h':
            return EXIT_OK;
        case '?':
            return EXIT_BADINPUT;
        case 't':
            tpath = cp.optarg;
            break;
        case OPT_JSON:
            json = true;
            break;
        case OPT_EXPLAIN:
            explain = true;
            break;
        case OPT_PROGRESS:
            if (progress_cli_option(&cp, &progress)) {
                return EXIT_BADINPUT;
            }
            break;
        case 'k':
            if (cmd_parse_int(&cp, "--devices", cp.optarg, 1, LIMIT_MAX_DEVICES, &k)) {
                return EXIT_BADINPUT;
            }
            break;
        default:
            if ((r_opt = pipeline_cli_option(&cp, opt_c, &pipe)) >= 0) {
                if (r_opt) {
                    return r_opt;
                }
                break;
            }
            return cmd_usage_error(&cp, "unexpected option");
        }
    }
    if ((rc = sim_inputs_finish(&cp, &a)) != 0 || a.done) {
        return rc;
    }
    {
        const struct cmd_file fin[] = {
            {a.wpath, "--workload"}, {a.cspec, "--cluster"}, {a.pspec, "--placement"}};
        const struct cmd_file fout[] = {{tpath, "--trace"}};

        if ((rc = cmd_check_files(fin, CMD_N(fin), fout, CMD_N(fout))) != 0) {
            return cmd_fail(rc);
        }
    }
    CHECK(sim_inputs_load(&in, a.wpath, a.cspec, a.pspec, (int32_t)k, a.memory_fraction));
    CHECK(pipeline_cli_apply(&pipe, &in.w, &in.g));
    if (tpath) {
        trace_init(&t, in.c.channel);
        have_t = true;
        opt.trace = &t;
    }
    CHECK(sim_symmetry_read(&in.w, &sym));
    CHECK(sim_symmetry_check(&sym, &in.g, &in.c, in.p.device_of));
    progress_cli_apply(&progress, &opt);
    CHECK(sim_run(&in.g, &in.c, in.p.device_of, &opt, &r));
    CHECK(sim_symmetry_expand(&sym, &r));
    sim_result_warn(&r, &in.g);
    if (explain) {
        CHECK(mem_explain_run(&in.g, &in.c, in.p.device_of, opt.model, &r, EXPLAIN_TOP, &x));
    }
    if (tpath && strcmp(tpath, "-") == 0) {
        /* the trace owns stdout */
    } else if (json) {
        print_json(&r, &in.g, &in.c, &in.w, &in.p, a.pspec, explain ? &x : NULL, &sym);
    } else {
        print_text(&r, &in.g, &in.c, &in.w, &in.p, a.pspec, &sym);
        if (explain) {
            explain_print_text(stdout, &x, &in.g, &in.c);
        }
    }
    if (tpath) {
        CHECK(sim_inputs_write_trace(&t, &in.g, &in.c, tpath));
        if (strcmp(tpath, "-") != 0 && !json) {
            printf("trace written to %s (open in https://ui.perfetto.dev)\n", tpath);
        }
    }

cleanup:
    if (rc) {
        status = cmd_fail(rc);
    }
    if (have_t) {
        trace_release(&t);
    }
    mem_explain_release(&x);
    sim_result_release(&r);
    sim_inputs_release(&in);
    return status;
}
