/*
 * place.c - `baechi place`: run a placer on a workload and cluster and
 * write the placement file; also the option handling `baechi run` shares.
 *
 * Exit status: 0, 2 bad input or usage, 3 infeasible placement (the message
 * names the ops and the memory missing).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "cli/cluster.h"
#include "cli/cmd.h"
#include "cli/commands.h"
#include "cli/inputs.h"
#include "cli/place.h"
#include "core/err.h"
#include "core/limits.h"
#include "core/graph.h"
#include "core/json_out.h"
#include "core/placement.h"
#include "core/units.h"
#include "core/workload.h"
#include "core/workload_yaml.h"
#include "placers/placer.h"
#include "sim/symmetry.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void place_cli_init(struct place_cli *pc)
{
    memset(pc, 0, sizeof(*pc));
    placer_options_init(&pc->opt);
}

/* The options that set a number of struct placer_options, and their ranges. */
static const struct place_double_opt {
    int opt;
    const char *name;
    double lo, hi;
    size_t offset;
} place_double_opts[] = {
    {PLACE_OPT_MEMFRAC, "--memory-fraction", LIMIT_FRACTION_MIN, LIMIT_FRACTION_MAX,
     offsetof(struct placer_options, memory_fraction)},
    {PLACE_OPT_COMM, "--comm-factor", 0, LIMIT_FACTOR_MAX,
     offsetof(struct placer_options, comm_factor)},
    {PLACE_OPT_COMPUTE, "--compute-factor", LIMIT_FRACTION_MIN, LIMIT_FACTOR_MAX,
     offsetof(struct placer_options, compute_factor)},
    {PLACE_OPT_THRESHOLD, "--threshold", LIMIT_THRESHOLD_MIN, LIMIT_THRESHOLD_MAX,
     offsetof(struct placer_options, sct_threshold)},
    {PLACE_OPT_LPLIMIT, "--lp-time-limit", 0, LIMIT_LP_TIME_MAX_S,
     offsetof(struct placer_options, lp_time_limit_s)},
};

int place_cli_option(struct cmd_parser *cp, int c, struct place_cli *pc)
{
    long k;
    double f;

    for (size_t i = 0; i < sizeof(place_double_opts) / sizeof(place_double_opts[0]); i++) {
        const struct place_double_opt *d = &place_double_opts[i];

        if (d->opt == c) {
            if (cmd_parse_double(cp, d->name, cp->optarg, d->lo, d->hi, &f)) {
                return EXIT_BADINPUT;
            }
            *(double *)((char *)&pc->opt + d->offset) = f;
            return 0;
        }
    }
    switch (c) {
    case 'w':
        pc->wpath = cp->optarg;
        return 0;
    case 'c':
        pc->cspec = cp->optarg;
        return 0;
    case 'p':
        pc->placer = cp->optarg;
        return 0;
    case PLACE_OPT_LIST:
        pc->list = true;
        return 0;
    case PLACE_OPT_GROUPER:
        if (placer_grouper_parse(cp->optarg, &pc->opt.grouper)) {
            return cmd_usage_error(cp, "%s", err_msg());
        }
        return 0;
    case PLACE_OPT_FUSION:
        pc->opt.fusion = true;
        return 0;
    case PLACE_OPT_DISJOINT:
        pc->opt.fusion = true;
        pc->opt.fusion_check_disjoint = true;
        return 0;
    case 'k':
        if (cmd_parse_int(cp, "--devices", cp->optarg, 1, LIMIT_MAX_DEVICES, &k)) {
            return EXIT_BADINPUT;
        }
        pc->opt.n_devices = (int32_t)k;
        return 0;
    case PLACE_OPT_SEED:
        if (cmd_parse_int(cp, "--seed", cp->optarg, 0, LIMIT_SEED_MAX, &k)) {
            return EXIT_BADINPUT;
        }
        pc->opt.seed = (uint64_t)k;
        return 0;
    case PLACE_OPT_REFINE:
        pc->opt.refine = true;
        return 0;
    case PLACE_OPT_BUDGET:
        if (cmd_parse_int(cp, "--budget-ms", cp->optarg, 0, 100000000L, &k)) {
            return EXIT_BADINPUT;
        }
        pc->opt.budget_ms = k;
        return 0;
    case PLACE_OPT_LPITERS:
        if (cmd_parse_int(cp, "--lp-iteration-limit", cp->optarg, 0, LIMIT_LP_ITERS_MAX, &k)) {
            return EXIT_BADINPUT;
        }
        pc->opt.lp_iteration_limit = k;
        return 0;
    case PLACE_OPT_LPSOLVER:
        if (placer_lp_solver_parse(cp->optarg, &pc->opt.lp_solver)) {
            return cmd_usage_error(cp, "%s", err_msg());
        }
        return 0;
    case PLACE_OPT_PERSIST:
        pc->opt.persistent_at_place = true;
        return 0;
    case PLACE_OPT_PAPER:
        pc->placer = PLACER_PAPER_NAME;
        return 0;
    case PLACE_OPT_IMPL:
        if (strcmp(cp->optarg, "fast") == 0) {
            pc->opt.impl = PLACER_IMPL_FAST;
        } else if (strcmp(cp->optarg, "reference") == 0) {
            pc->opt.impl = PLACER_IMPL_REFERENCE;
        } else {
            return cmd_usage_error(cp, "--impl must be 'fast' or 'reference', not '%s'",
                                   cp->optarg);
        }
        return 0;
    default:
        return cmd_usage_error(cp, "unexpected option");
    }
}

void place_cli_print_list(FILE *f)
{
    fprintf(f, "placers:\n");
    for (const struct placer_desc *d = placer_list(); d->name; d++) {
        fprintf(f, "  %-18s %s\n", d->name, d->summary);
    }
}

int place_cli_check(struct cmd_parser *cp, const struct place_cli *pc)
{
    if (!pc->wpath || !pc->cspec || !pc->placer) {
        return cmd_usage_error(cp, "%s is required",
                               !pc->wpath   ? "--workload"
                               : !pc->cspec ? "--cluster"
                                            : "--placer");
    }
    if (!placer_find(pc->placer)) {
        const char *names[64];
        size_t n = 0;

        for (const struct placer_desc *d = placer_list(); d->name && n + 1 < 64; d++) {
            names[n++] = d->name;
        }
        names[n] = NULL;
        fprintf(stderr, "baechi %s: unknown placer '%s'\n", cp->cmd, pc->placer);
        cmd_print_suggestion(stderr, "placer", pc->placer, names);
        fprintf(stderr, "See 'baechi place --list'.\n");
        return EXIT_BADINPUT;
    }
    return cmd_check_cluster(cp, pc->cspec);
}

/* A placer option the chosen placer never reads: exit 2 naming the option,
 * the placer and those that read it (issue 33 item 2: `-p m-etf --threshold
 * 0.5` placed as if it were not there).  Compared with the defaults, so that
 * a default value given explicitly passes. */
static int place_cli_check_reads(struct cmd_parser *cp, const struct place_cli *pc)
{
    const struct placer_desc *d = placer_find(pc->placer);
    const struct placer_options *o = &pc->opt;
    struct placer_options def;
    unsigned f = d->flags;
    bool whole = f & PLACER_WHOLE, lp = f & PLACER_LP;
    const char *opt = NULL, *readers = NULL;

    placer_options_init(&def);
    if (o->sct_threshold != def.sct_threshold && !lp && !whole) {
        opt = "--threshold", readers = "m-sct, m-sct-reserve and auto";
    } else if (o->lp_time_limit_s != def.lp_time_limit_s && !lp) {
        opt = "--lp-time-limit", readers = "m-sct and m-sct-reserve (auto shares its LPs by "
                                           "--lp-iteration-limit)";
    } else if (o->lp_iteration_limit != def.lp_iteration_limit && !lp && !whole) {
        opt = "--lp-iteration-limit", readers = "m-sct, m-sct-reserve and auto";
    } else if (o->seed != def.seed && !(f & PLACER_SEEDED) && !whole && !o->refine) {
        opt = "--seed", readers = "random, auto and --refine";
    } else if (o->budget_ms != def.budget_ms && !whole && !o->refine) {
        opt = "--budget-ms", readers = "auto and --refine";
    } else if (o->persistent_at_place && !(f & PLACER_MEMORY_RULE)) {
        opt = "--persistent-at-place", readers = "m-etf, m-sct, their -reserve forms and paper";
    } else if (o->impl != def.impl && (!(f & PLACER_MEMORY_RULE) || lp)) {
        opt = "--impl", readers = "m-etf, m-etf-reserve and paper";
    } else if ((whole || (f & PLACER_PAPER_OPTIONS)) &&
               (o->grouper != def.grouper || o->fusion != def.fusion)) {
        opt = o->fusion != def.fusion ? "--fusion" : "--grouper";
        readers = "any placer but paper (always fusion + coplace) and auto (its own per candidate)";
    }
    if (opt) {
        return cmd_usage_error(cp, "%s is not read by placer '%s' (read by: %s)", opt, d->name,
                               readers);
    }
    return 0;
}

void place_job_init(struct place_job *j)
{
    memset(j, 0, sizeof(*j));
    placer_stats_init(&j->st);
}

void place_job_release(struct place_job *j)
{
    placer_stats_release(&j->st);
    placement_release(&j->p);
    if (j->have_c) {
        cluster_release(&j->c);
    }
    graph_release(&j->g);
    if (j->have_w) {
        workload_release(&j->w);
    }
}

int place_job_run(struct place_job *j, const struct place_cli *pc)
{
    struct placer_options opt; /* with the workload's pipeline schedule */
    int rc;

    if ((rc = workload_read_yaml(&j->w, pc->wpath)) != 0) {
        workload_release(&j->w);
        return rc;
    }
    j->have_w = true;
    if ((rc = graph_build(&j->g, &j->w)) != 0) {
        return rc;
    }
    if ((rc = cluster_load(&j->c, pc->cspec)) != 0) {
        return rc;
    }
    j->have_c = true;
    inputs_warn_times(&j->w, &j->c);
    {
        struct sim_symmetry sym;

        /* a placer's own placement of one replica stands for nothing */
        if ((rc = sim_symmetry_read(&j->w, &sym)) != 0) {
            return rc;
        }
        if (sim_symmetry_on(&sym) && strcmp(pc->placer, "given") != 0) {
            return err_set(BAECHI_EINVAL,
                           "not symmetric: '%s' is replica 0 of %d (parallelize --symmetric) and "
                           "runs on its given placement; -p %s would place its ops anywhere: use "
                           "-p given, or the exact workload",
                           j->w.name, (int)sym.replicas, pc->placer);
        }
    }
    opt = pc->opt;
    if ((rc = pipeline_opts_read(&j->w, &opt.pipeline, NULL)) != 0 ||
        (rc = placer_run(pc->placer, &j->g, &j->c, &opt, j->w.name, &j->p, &j->st)) != 0) {
        return rc;
    }
    /* placer_run recorded the world it was made for (placer_world_record) */
    return 0;
}

void place_job_print_infeasible_json(const struct place_job *j, const char *placer)
{
    cmd_json_placement_head(j->w.name, j->c.name, placer);
    fputs(", \"feasible\": false, \"reason\": ", stdout);
    json_out_str(stdout, err_msg());
    fputs("}\n", stdout);
}

struct placement_out {
    const struct placement *p;
    const struct graph *g;
};

static int write_placement(FILE *f, void *ctx)
{
    const struct placement_out *po = ctx;

    return placement_write_yaml(po->p, po->g, f);
}

int place_cli_write_placement(const char *path, const struct placement *p, const struct graph *g)
{
    struct placement_out po = {p, g};

    return cmd_write_file(path, write_placement, &po);
}

int place_cli_finish(struct cmd_parser *cp, struct place_cli *pc, bool *done)
{
    int rc;

    *done = true;
    if (cmd_optind() < cp->argc) {
        return cmd_usage_error(cp, "unexpected argument '%s'", cp->argv[cmd_optind()]);
    }
    if (pc->cspec && strcmp(pc->cspec, CLUSTER_CLI_LIST) == 0) {
        return cluster_cli_print_list(stdout, false);
    }
    if (pc->list || (pc->placer && strcmp(pc->placer, "list") == 0)) {
        place_cli_print_list(stdout);
        return EXIT_OK;
    }
    if ((rc = place_cli_check(cp, pc)) != 0 || (rc = place_cli_check_reads(cp, pc)) != 0) {
        return rc;
    }
    *done = false;
    return 0;
}

int place_cli_parse(struct cmd_parser *cp, struct place_cli *pc, place_cli_extra_fn extra,
                    void *ctx, bool *done)
{
    int o, r;

    *done = true;
    while ((o = cmd_getopt(cp)) != -1) {
        if (o == 'h') {
            return EXIT_OK;
        }
        if (o == '?') {
            return EXIT_BADINPUT;
        }
        if (extra && (r = extra(cp, o, ctx)) >= 0) {
            if (r != 0) {
                return r;
            }
            continue;
        }
        if ((r = place_cli_option(cp, o, pc)) != 0) {
            return r;
        }
    }
    return place_cli_finish(cp, pc, done);
}

static const char *const place_usage[] = {
    "baechi place -w <workload.yaml> -c <cluster> -p <placer> [options] [-o <placement.yaml>]",
    "baechi place -w <workload.yaml> -c <cluster> -p <placer> [options] --json [-o "
    "<placement.yaml>]",
    "baechi place --list",
    NULL,
};

static const struct cmd_opt place_opts[] = {
    PLACE_CLI_OPTS,
    {"output", 'o', "F", "write the placement file to F (default: stdout; with --json: none)"},
    {"json", PLACE_OPT_JSON, NULL, "what was placed as one JSON object on stdout (docs/json.md)"},
    CMD_OPT_END,
};

static void print_json(const struct workload *w, const struct graph *g, const struct cluster *c,
                       const struct placement *p, const struct placer_stats *st, const char *out)
{
    int32_t nd = st->n_devices;

    cmd_json_placement_head(w->name, c->name, p->placer);
    fputs(", \"feasible\": true, \"output\": ", stdout);
    if (out) {
        json_out_str(stdout, out);
    } else {
        fputs("null", stdout);
    }
    fputs(", \"options\": ", stdout);
    cmd_json_kv(stdout, p->options, p->n_options);
    fputs(", \"placement_stats\": ", stdout);
    cmd_json_kv(stdout, p->stats, p->n_stats);
    printf(", \"n_ops\": %d, \"n_nodes\": %d, \"n_groups\": %d, \"n_devices\": %d, "
           "\"placement_ms\": %.3f, \"algorithm_ms\": %.3f, \"estimate_us\": ",
           g->n_ops, st->n_nodes, st->n_groups, nd, st->placement_ms, st->algorithm_ms);
    if (st->estimate_us >= 0) {
        printf("%" PRId64, st->estimate_us);
    } else {
        fputs("null", stdout);
    }
    fputs(", \"devices\": [", stdout);
    for (int32_t d = 0; d < nd; d++) {
        int32_t n = 0;

        for (int32_t v = 0; v < g->n_ops; v++) {
            n += p->device_of[v] == d;
        }
        printf("%s{\"id\": %d, \"name\": ", d ? ", " : "", (int)d);
        json_out_str(stdout, d < c->n_devices ? c->dev[d].name : "");
        printf(", \"n_ops\": %d, \"peak_bytes\": %" PRId64 ", \"limit_bytes\": %" PRId64 "}", n,
               st->peak_bytes ? st->peak_bytes[d] : 0, st->limit_bytes ? st->limit_bytes[d] : 0);
    }
    fputs("]}\n", stdout);
}

struct place_extra {
    const char *out;
    bool json;
};

static int place_extra_option(struct cmd_parser *cp, int c, void *ctx)
{
    struct place_extra *x = ctx;

    if (c == 'o') {
        x->out = cp->optarg;
        return 0;
    }
    if (c == PLACE_OPT_JSON) {
        x->json = true;
        return 0;
    }
    return -1;
}

int cmd_place(int argc, char **argv)
{
    struct cmd_parser cp = {
        .argc = argc, .argv = argv, .cmd = "place", .usage = place_usage, .opts = place_opts};
    struct place_cli pc;
    struct place_extra x = {NULL, false};
    struct place_job j;
    bool done;
    int rc = 0, status = EXIT_OK;

    place_cli_init(&pc);
    if ((rc = place_cli_parse(&cp, &pc, place_extra_option, &x, &done)) != 0 || done) {
        return rc;
    }
    if (x.json && x.out && strcmp(x.out, "-") == 0) {
        return cmd_usage_error(&cp, "--json prints on stdout: write the placement with -o <file>");
    }
    if (!x.json && !x.out) {
        x.out = "-";
    }
    if (x.out) {
        const struct cmd_file in[] = {{pc.wpath, "--workload"}, {pc.cspec, "--cluster"}};
        const struct cmd_file out[] = {{x.out, "-o"}};

        if ((rc = cmd_check_files(in, CMD_N(in), out, CMD_N(out))) != 0) {
            return cmd_fail(rc);
        }
    }
    place_job_init(&j);
    rc = place_job_run(&j, &pc);
    if (rc == BAECHI_EINFEASIBLE && x.json) {
        /* a result, reported once, on stdout */
        place_job_print_infeasible_json(&j, pc.placer);
        rc = 0;
        status = EXIT_INFEASIBLE;
        goto cleanup;
    }
    if (rc) {
        goto cleanup;
    }
    if (x.out) {
        CHECK(place_cli_write_placement(x.out, &j.p, &j.g));
    }
    if (x.json) {
        print_json(&j.w, &j.g, &j.c, &j.p, &j.st, x.out);
    } else {
        char a[48];
        units_fmt_us(j.st.placement_ms * 1000.0, a, sizeof(a));
        fprintf(stderr, "baechi: placed %d ops (%d nodes, %d groups) with %s", j.g.n_ops,
                j.st.n_nodes, j.st.n_groups, j.p.placer);
        if (strncmp(j.st.lp_status, "fallback: ", 10) == 0) {
            /* m-sct placed with m-ETF's rule: say whose placement it is */
            fprintf(stderr, " (%s: m-ETF's placement)", j.st.lp_status);
        }
        fprintf(stderr, " in %s%s", a,
                pc.opt.impl == PLACER_IMPL_REFERENCE ? " (m-ETF's reference event loop)" : "");
        if (j.st.estimate_us >= 0) {
            units_fmt_us((double)j.st.estimate_us, a, sizeof(a));
            fprintf(stderr, "; estimated step %s", a);
        }
        fputc('\n', stderr);
    }
cleanup:
    if (rc) {
        status = cmd_fail(rc);
    }
    place_job_release(&j);
    return status;
}
