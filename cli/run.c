/*
 * run.c - `baechi run`: place, then simulate the placement with both
 * simulator models (the original's virtual scheduler `baechi` and the
 * time-accurate `timed`), and print one summary (or one JSON object).
 *
 * The comm and compute factors and the memory fraction change the world,
 * not only the placer's view: the simulations use the scaled costs and
 * check memory against the scaled devices (placer_world).
 *
 * Exit status: 0 (also when a simulated device runs out of memory: a
 * result), 2 bad input or usage, 3 infeasible placement.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "cli/cmd.h"
#include "cli/commands.h"
#include "cli/explain.h"
#include "cli/inputs.h"
#include "cli/pipeline_cli.h"
#include "cli/place.h"
#include "cli/progress.h"
#include "core/alloc.h"
#include "core/err.h"
#include "core/escape.h"
#include "core/graph.h"
#include "core/json_out.h"
#include "core/placement.h"
#include "core/units.h"
#include "core/workload.h"
#include "placers/bound.h"
#include "placers/placer.h"
#include "results/db.h"
#include "results/sweep.h"
#include "sim/sim.h"
#include "sim/symmetry.h"
#include "sim/trace.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const run_usage[] = {
    "baechi run -w <workload.yaml> -c <cluster> -p <placer> [options] [--json] [--trace <F> "
    "[--trace-model timed|baechi]] [--db <results.db>]",
    NULL,
};

enum {
    RUN_OPT_JSON = 400,
    RUN_OPT_TRACE,
    RUN_OPT_TRACE_MODEL,
    RUN_OPT_DB,
    RUN_OPT_EXPLAIN,
    RUN_OPT_MODEL,
    RUN_OPT_PROGRESS
};

static const struct cmd_opt run_opts[] = {
    PLACE_CLI_OPTS,
    {"json", RUN_OPT_JSON, NULL, "one JSON object instead of text"},
    {"explain-memory", RUN_OPT_EXPLAIN, NULL,
     "what is live at each device's peak in both models (JSON: memory_explain)"},
    {"trace", RUN_OPT_TRACE, "F", "write a Chrome trace (Perfetto) of one simulation to F"},
    {"trace-model", RUN_OPT_TRACE_MODEL, "M",
     "the simulation --trace records: timed (default) or baechi"},
    {"db", RUN_OPT_DB, "F", "record the run (both models, the placement) in results database F"},
    {"model", RUN_OPT_MODEL, "M",
     "the model whose verdict (fits or not) the run states: timed (default; what sweeps, "
     "reports and figures use) or baechi (the original's scheduler)"},
    {"progress", RUN_OPT_PROGRESS, "[=WHEN]", PROGRESS_CLI_HELP},
    PIPELINE_CLI_OPTS,
    CMD_OPT_END,
};

/*
 * One verdict per run, from one model (issue 33): the fullest device, and
 * whether every device's peak is within its limit.  The other model's
 * numbers are shown beside, as that model's.
 */
struct run_verdict {
    enum sim_model model;
    int32_t fullest;    /* device with the highest peak / limit */
    int32_t worst;      /* device most over its limit (-1: none over) */
    int32_t n_over;     /* devices over their limit */
    int64_t over_bytes; /* worst's peak - limit */
};

static void run_verdict_of(const struct sim_result *r, struct run_verdict *v)
{
    double best = -1;

    v->model = r->model;
    v->fullest = 0;
    v->worst = -1;
    v->n_over = 0;
    v->over_bytes = 0;
    for (int32_t d = 0; d < r->n_devices; d++) {
        const struct sim_device_stats *s = &r->dev[d];
        double f = s->limit_bytes > 0 ? (double)s->peak_bytes / (double)s->limit_bytes : 0;
        int64_t over = s->peak_bytes - s->limit_bytes;

        if (f > best) {
            best = f;
            v->fullest = d;
        }
        if (s->oom) {
            v->n_over++;
            if (over > v->over_bytes || v->worst < 0) {
                v->over_bytes = over;
                v->worst = d;
            }
        }
    }
}

static void print_verdict_text(const struct run_verdict *v, const struct sim_result *r,
                               const struct cluster *c)
{
    char a[48], b[48];

    if (v->n_over == 0) {
        const struct sim_device_stats *s = &r->dev[v->fullest];

        units_fmt_bytes(s->peak_bytes, a, sizeof(a));
        units_fmt_bytes(s->limit_bytes, b, sizeof(b));
        printf("verdict        fits (%s model): %s of %s on the fullest GPU (%s)\n",
               sim_model_name(v->model), a, b, escape_tmp(c->dev[v->fullest].name));
        return;
    }
    units_fmt_bytes(v->over_bytes, a, sizeof(a));
    units_fmt_bytes(r->dev[v->worst].limit_bytes, b, sizeof(b));
    printf("verdict        does not fit (%s model): %s needs %s more than its %s",
           sim_model_name(v->model), escape_tmp(c->dev[v->worst].name), a, b);
    if (v->n_over > 1) {
        printf("; %d of %d GPUs are over their memory", (int)v->n_over, (int)r->n_devices);
    }
    putchar('\n');
}

static void print_verdict_json(const struct run_verdict *v, const struct sim_result *r)
{
    const struct sim_device_stats *s = &r->dev[v->fullest];

    printf(", \"verdict\": {\"model\": \"%s\", \"fits\": %s, \"fullest_device\": %d, "
           "\"fullest_peak_bytes\": %" PRId64 ", \"fullest_limit_bytes\": %" PRId64
           ", \"n_devices_over\": %d, \"worst_device\": ",
           sim_model_name(v->model), v->n_over ? "false" : "true", (int)v->fullest, s->peak_bytes,
           s->limit_bytes, (int)v->n_over);
    if (v->worst >= 0) {
        printf("%d, \"over_bytes\": %" PRId64 "}", (int)v->worst, v->over_bytes);
    } else {
        fputs("null, \"over_bytes\": 0}", stdout);
    }
}

static void json_model(const struct sim_result *r, const struct cluster *c)
{
    printf("{\"step_us\": %" PRId64 ", \"oom\": %s, \"n_oom\": %d, \"channel\": \"%s\", "
           "\"devices\": [",
           r->step_us, r->n_oom ? "true" : "false", r->n_oom,
           cluster_channel_name(r->model == SIM_MODEL_BAECHI ? CHANNEL_SHARED : c->channel));
    for (int32_t d = 0; d < r->n_devices; d++) {
        const struct sim_device_stats *s = &r->dev[d];
        printf("%s{\"id\": %d, \"name\": ", d ? ", " : "", (int)d);
        json_out_str(stdout, c->dev[d].name);
        printf(", \"n_ops\": %d, \"busy_us\": %" PRId64 ", \"utilization\": %.4f, "
               "\"peak_bytes\": %" PRId64 ", \"limit_bytes\": %" PRId64
               ", \"final_bytes\": %" PRId64 ", \"oom\": %s}",
               s->n_ops, s->busy_us, r->step_us ? (double)s->busy_us / (double)r->step_us : 0.0,
               s->peak_bytes, s->limit_bytes, s->final_bytes, s->oom ? "true" : "false");
    }
    fputs("]}", stdout);
}

static void print_json(const struct workload *w, const struct graph *g, const struct cluster *c,
                       const struct placement *p, const struct placer_stats *st,
                       const struct bound_result *bd, const struct sim_result *rb,
                       const struct sim_result *rt, const struct mem_explain *xb,
                       const struct mem_explain *xt, enum sim_model vm,
                       const struct sim_symmetry *sym)
{
    struct run_verdict v;

    cmd_json_placement_head(w->name, c->name, p->placer);
    fputs(", \"feasible\": true, \"options\": ", stdout);
    cmd_json_kv(stdout, p->options, p->n_options);
    fputs(", \"placement_stats\": ", stdout);
    cmd_json_kv(stdout, p->stats, p->n_stats);
    printf(", \"n_ops\": %d, \"n_nodes\": %d, \"n_groups\": %d, \"n_devices\": %d, "
           "\"placement_ms\": %.3f, \"algorithm_ms\": %.3f, \"estimate_us\": ",
           g->n_ops, st->n_nodes, st->n_groups, rb->n_devices, st->placement_ms, st->algorithm_ms);
    if (st->estimate_us >= 0) {
        printf("%" PRId64, st->estimate_us);
    } else {
        fputs("null", stdout);
    }
    printf(", \"lower_bound_us\": %" PRId64 ", \"lower_bound_kind\": \"%s\"", bd->lower_bound_us,
           bound_kind_name(bd->kind));
    printf(", \"simple_lower_bound_us\": %" PRId64 ", \"bound\": {\"simple_us\": %" PRId64
           ", \"memory_us\": %" PRId64 ", \"lp_us\": ",
           rb->lower_bound_us, bd->simple_us, bd->memory_us);
    if (bd->lp_us >= 0) {
        printf("%" PRId64, bd->lp_us);
    } else {
        fputs("null", stdout);
    }
    fputs(", \"lp_status\": ", stdout);
    json_out_str(stdout, bd->lp_status);
    fputs(", \"lp_solver\": ", stdout);
    json_out_str(stdout, bd->lp_solver);
    printf(", \"min_devices\": %d, \"forced_cuts\": %d}", bd->min_devices, bd->forced_cuts);
    printf(", \"critical_path_us\": %" PRId64 ", \"total_compute_us\": %" PRId64,
           rb->critical_path_us, rb->total_compute_us);
    printf(", \"bound_ratio\": %.6f",
           bd->lower_bound_us > 0 ? (double)rt->step_us / (double)bd->lower_bound_us : 0.0);
    if (!isnan(st->lp_makespan_us)) {
        printf(", \"lp\": {\"makespan_us\": %.6f, \"status\": ", st->lp_makespan_us);
        json_out_str(stdout, st->lp_status);
        fputs(", \"solver\": ", stdout);
        json_out_str(stdout, st->lp_solver);
        printf(", \"n_favourite_children\": %d, \"n_favourite_edges\": %d, \"lp_ms\": %.3f",
               st->n_favourites, st->n_favourite_edges, st->lp_ms);
        printf(", \"iterations\": %" PRId64 ", \"rows\": %d, \"cols\": %d, \"nonzeros\": %" PRId64
               "}",
               st->lp_iterations, st->lp_rows, st->lp_cols, st->lp_nonzeros);
    }
    fputs(", \"placer_memory\": [", stdout);
    for (int32_t d = 0; d < st->n_devices; d++) {
        printf("%s{\"id\": %d, \"peak_bytes\": %" PRId64 ", \"limit_bytes\": %" PRId64 "}",
               d ? ", " : "", (int)d, st->peak_bytes[d], st->limit_bytes[d]);
    }
    fputs("]", stdout);
    run_verdict_of(vm == SIM_MODEL_BAECHI ? rb : rt, &v);
    print_verdict_json(&v, vm == SIM_MODEL_BAECHI ? rb : rt);
    fputs(", \"sim\": {\"baechi\": ", stdout);
    json_model(rb, c);
    fputs(", \"timed\": ", stdout);
    json_model(rt, c);
    fputc('}', stdout);
    if (xb && xt) {
        fputs(", \"memory_explain\": {\"baechi\": ", stdout);
        explain_print_json(stdout, xb, g, c);
        fputs(", \"timed\": ", stdout);
        explain_print_json(stdout, xt, g, c);
        fputc('}', stdout);
    }
    if (sim_symmetry_on(sym)) {
        printf(", \"symmetry\": {\"replicas\": %d, \"stride\": %d, \"devices\": %d, \"tp\": %d, "
               "\"classes\": %d}",
               (int)sym->replicas, (int)sym->stride, (int)sym->devices, (int)sym->tp,
               (int)sym->classes);
    }
    fputs("}\n", stdout);
}

static void print_text(const struct workload *w, const struct graph *g, const struct cluster *c,
                       const struct placement *p, const struct placer_stats *st,
                       const struct bound_result *bd, const struct sim_result *rb,
                       const struct sim_result *rt, enum sim_model vm)
{
    enum sim_model om = vm == SIM_MODEL_BAECHI ? SIM_MODEL_TIMED : SIM_MODEL_BAECHI;
    struct run_verdict v;
    char a[48], b[48], e[48], f[48];

    printf("workload %s: %d ops; cluster %s: %d devices; placer %s\n", escape_tmp(w->name),
           g->n_ops, escape_tmp(c->name ? c->name : "?"), rb->n_devices, escape_tmp(p->placer));
    printf("options        ");
    for (int32_t i = 0; i < p->n_options; i++) {
        printf("%s%s=%s", i ? ", " : "", escape_tmp(p->options[i].key),
               escape_tmp(p->options[i].value));
    }
    putchar('\n');
    units_fmt_us(st->placement_ms * 1000.0, a, sizeof(a));
    units_fmt_us(st->algorithm_ms * 1000.0, b, sizeof(b));
    printf("placement      %s (algorithm %s); %d nodes placed, %d colocation groups\n", a, b,
           st->n_nodes, st->n_groups);
    if (!isnan(st->lp_makespan_us)) {
        units_fmt_us(st->lp_makespan_us, a, sizeof(a));
        units_fmt_us(st->lp_ms * 1000.0, b, sizeof(b));
        printf("LP             relaxed makespan %s, %s, %d favourite children, solved in %s\n", a,
               st->lp_status, st->n_favourites, b);
    } else if (strncmp(st->lp_status, "fallback: ", 10) == 0) {
        printf("LP             none: %s, the placement is m-ETF's\n", st->lp_status);
    }
    if (st->estimate_us >= 0) {
        units_fmt_us((double)st->estimate_us, a, sizeof(a));
        printf("placer estimate %s (%" PRId64 " µs)\n", a, st->estimate_us);
    } else {
        printf("placer estimate none (this placer does not simulate time)\n");
    }
    units_fmt_us((double)rb->step_us, a, sizeof(a));
    printf("step (baechi)  %s (%" PRId64 " µs), the original's virtual scheduler\n", a,
           rb->step_us);
    units_fmt_us((double)rt->step_us, a, sizeof(a));
    printf("step (timed)   %s (%" PRId64 " µs), time-accurate, %s channels\n", a, rt->step_us,
           cluster_channel_name(c->channel));
    units_fmt_us((double)bd->lower_bound_us, a, sizeof(a));
    units_fmt_us((double)rb->lower_bound_us, e, sizeof(e));
    units_fmt_us((double)rb->critical_path_us, b, sizeof(b));
    printf("lower bound    %s (%s; simple %s, critical path %s); timed step / lower bound = "
           "%.3f\n",
           a, bound_kind_name(bd->kind), e, b,
           bd->lower_bound_us > 0 ? (double)rt->step_us / (double)bd->lower_bound_us : 0.0);
    run_verdict_of(vm == SIM_MODEL_BAECHI ? rb : rt, &v);
    print_verdict_text(&v, vm == SIM_MODEL_BAECHI ? rb : rt, c);
    printf("memory (peak per GPU of the %s model, the verdict's; the %s model's peak beside it "
           "for comparison; limit = device memory; placer's own accounting vs its limit):\n",
           sim_model_name(vm), sim_model_name(om));
    for (int32_t d = 0; d < rb->n_devices; d++) {
        const struct sim_result *rv = vm == SIM_MODEL_BAECHI ? rb : rt;
        const struct sim_result *ro = vm == SIM_MODEL_BAECHI ? rt : rb;

        units_fmt_bytes(rv->dev[d].peak_bytes, a, sizeof(a));
        units_fmt_bytes(ro->dev[d].peak_bytes, b, sizeof(b));
        units_fmt_bytes(rv->dev[d].limit_bytes, e, sizeof(e));
        printf("  %-10s %6d ops  peak %11s of %11s%s  (%s model %s)", escape_tmp(c->dev[d].name),
               rv->dev[d].n_ops, a, e, rv->dev[d].oom ? "  OUT OF MEMORY" : "", sim_model_name(om),
               b);
        if (d < st->n_devices && st->peak_bytes && (st->peak_bytes[d] > 0)) {
            units_fmt_bytes(st->peak_bytes[d], a, sizeof(a));
            units_fmt_bytes(st->limit_bytes[d], f, sizeof(f));
            printf("  (placer %s of %s)", a, f);
        }
        putchar('\n');
    }
}

/* The options of `run` beyond PLACE_CLI_OPTS. */
struct run_extra {
    const char *tpath, *dbpath;
    bool json, explain;
    enum sim_model trace_model;
    enum sim_model verdict_model; /* --model */
    struct pipeline_cli pipe;
    struct sim_symmetry sym; /* the workload's replica symmetry (docs/symmetry.md) */
    struct progress_cli progress;
};

static int run_extra_option(struct cmd_parser *cp, int c, void *ctx)
{
    struct run_extra *x = ctx;

    switch (c) {
    case RUN_OPT_JSON:
        x->json = true;
        return 0;
    case RUN_OPT_TRACE:
        x->tpath = cp->optarg;
        return 0;
    case RUN_OPT_TRACE_MODEL:
        if (sim_model_parse(cp->optarg, &x->trace_model)) {
            return cmd_usage_error(cp, "%s", err_msg());
        }
        return 0;
    case RUN_OPT_DB:
        x->dbpath = cp->optarg;
        return 0;
    case RUN_OPT_EXPLAIN:
        x->explain = true;
        return 0;
    case RUN_OPT_MODEL:
        if (sim_model_parse(cp->optarg, &x->verdict_model)) {
            return cmd_usage_error(cp, "%s", err_msg());
        }
        return 0;
    case RUN_OPT_PROGRESS:
        return progress_cli_option(cp, &x->progress);
    default:
        return pipeline_cli_option(cp, c, &x->pipe);
    }
}

/* An infeasible placement is a result, reported once: on stdout, in the output's format. */
static int run_report_infeasible(const struct run_extra *x, const struct sweep_origin *origin,
                                 struct place_job *j, const char *placer, int place_rc)
{
    if (x->json) {
        place_job_print_infeasible_json(j, placer);
    } else {
        printf("placement infeasible with %s: %s\n", placer, err_msg());
    }
    if (x->dbpath) {
        char *msg = mem_strdup(err_msg());
        int r2 = sweep_record_run(x->dbpath, origin, &j->w, &j->g, &j->c, &j->p, &j->st, NULL, NULL,
                                  place_rc, msg ? msg : "");
        free(msg);
        return r2;
    }
    return 0;
}

/* Simulates the placement with both models; the trace (when *have_t) records x->trace_model's. */
static int run_simulate(struct run_extra *x, struct place_job *j, struct trace *t, bool *have_t,
                        struct sim_result *rb, struct sim_result *rt)
{
    struct sim_options so = {.model = SIM_MODEL_BAECHI, .trace = NULL};
    int rc;

    if (x->tpath) {
        trace_init(t, j->c.channel);
        *have_t = true;
    }
    so.trace = x->tpath && x->trace_model == SIM_MODEL_BAECHI ? t : NULL;
    if ((rc = sim_symmetry_check(&x->sym, &j->g, &j->c, j->p.device_of)) ||
        (rc = sim_run(&j->g, &j->c, j->p.device_of, &so, rb)) ||
        (rc = sim_symmetry_expand(&x->sym, rb))) {
        return rc;
    }
    so.model = SIM_MODEL_TIMED;
    so.trace = x->tpath && x->trace_model == SIM_MODEL_TIMED ? t : NULL;
    progress_cli_apply(&x->progress, &so); /* the timed model's line */
    if ((rc = sim_run(&j->g, &j->c, j->p.device_of, &so, rt)) == 0 &&
        (rc = sim_symmetry_expand(&x->sym, rt)) == 0) {
        sim_result_warn(rt, &j->g);
    }
    return rc;
}

int cmd_run(int argc, char **argv)
{
    struct cmd_parser cp = {
        .argc = argc, .argv = argv, .cmd = "run", .usage = run_usage, .opts = run_opts};
    struct place_cli pc;
    struct run_extra x = {.trace_model = SIM_MODEL_TIMED,
                          .verdict_model = SIM_MODEL_TIMED,
                          .sym = {1, 0, 0, 1, 1},
                          .progress = {false, "run: timed"}};
    struct place_job j;
    struct sim_result rb, rt;
    struct bound_result bd;
    struct bound_options bo;
    struct trace t;
    struct mem_explain xb, xt;
    struct sweep_origin origin;
    bool have_t = false, done;
    int rc = 0, status = EXIT_OK;

    place_cli_init(&pc);
    pipeline_cli_init(&x.pipe);
    if ((rc = place_cli_parse(&cp, &pc, run_extra_option, &x, &done)) != 0 || done) {
        return rc;
    }
    if (x.trace_model != SIM_MODEL_TIMED && !x.tpath) { /* issue 33 item 2: it was ignored */
        return cmd_usage_error(&cp, "--trace-model chooses the simulation --trace records: "
                                    "give --trace F");
    }
    origin = (struct sweep_origin){pc.wpath, pc.cspec, pc.placer, &pc.opt};
    {
        const struct cmd_file in[] = {{pc.wpath, "--workload"}, {pc.cspec, "--cluster"}};
        const struct cmd_file out[] = {{x.tpath, "--trace"}, {x.dbpath, "--db"}};

        if ((rc = cmd_check_files(in, CMD_N(in), out, CMD_N(out))) != 0) {
            return cmd_fail(rc);
        }
    }
    place_job_init(&j);
    sim_result_init(&rb);
    sim_result_init(&rt);
    mem_explain_init(&xb);
    mem_explain_init(&xt);
    rc = place_job_run(&j, &pc);
    if (rc == BAECHI_EINFEASIBLE) {
        CHECK(run_report_infeasible(&x, &origin, &j, pc.placer, rc));
        status = EXIT_INFEASIBLE;
        goto cleanup;
    }
    if (rc) {
        goto cleanup;
    }
    CHECK(placer_world(&j.c, &pc.opt));
    placer_world_weights(&j.g, &pc.opt, j.g.weight_us); /* g is ours: scale in place */
    CHECK(pipeline_cli_apply(&x.pipe, &j.w, &j.g));
    CHECK(sim_symmetry_read(&j.w, &x.sym));
    CHECK(run_simulate(&x, &j, &t, &have_t, &rb, &rt));
    bound_options_init(&bo);
    bo.lp_solver = pc.opt.lp_solver; /* --lp-solver: the bound's LP too */
    CHECK(bound_compute(&j.g, &j.c, &bo, &bd));
    if (x.explain) {
        CHECK(mem_explain_run(&j.g, &j.c, j.p.device_of, SIM_MODEL_BAECHI, &rb, EXPLAIN_TOP, &xb));
        CHECK(mem_explain_run(&j.g, &j.c, j.p.device_of, SIM_MODEL_TIMED, &rt, EXPLAIN_TOP, &xt));
    }
    if (x.dbpath) {
        CHECK(
            sweep_record_run(x.dbpath, &origin, &j.w, &j.g, &j.c, &j.p, &j.st, &rb, &rt, 0, NULL));
    }
    if (x.json) {
        print_json(&j.w, &j.g, &j.c, &j.p, &j.st, &bd, &rb, &rt, x.explain ? &xb : NULL,
                   x.explain ? &xt : NULL, x.verdict_model, &x.sym);
    } else {
        print_text(&j.w, &j.g, &j.c, &j.p, &j.st, &bd, &rb, &rt, x.verdict_model);
        if (pc.opt.impl == PLACER_IMPL_REFERENCE) { /* the same placement: say which loop ran */
            printf("implementation m-ETF's reference event loop (--impl reference)\n");
        }
        if (sim_symmetry_on(&x.sym)) {
            char line[SIM_SYMMETRY_DESCRIBE_MAX];

            sim_symmetry_describe(&x.sym, line, sizeof(line));
            printf("symmetric      %s\n", line);
        }
        if (x.explain) {
            explain_print_text(stdout, &xt, &j.g, &j.c);
            explain_print_text(stdout, &xb, &j.g, &j.c);
        }
    }
    if (x.tpath) {
        rc = sim_inputs_write_trace(&t, &j.g, &j.c, x.tpath);
    }
cleanup:
    if (rc) {
        status = cmd_fail(rc);
    }
    if (have_t) {
        trace_release(&t);
    }
    sim_result_release(&rb);
    sim_result_release(&rt);
    mem_explain_release(&xb);
    mem_explain_release(&xt);
    place_job_release(&j);
    return status;
}
