/*
 * bench_placement.c - `baechi bench placement`: the quality of every placer
 * on the cells of issue 10 (workload x cluster x memory fraction), with the
 * `auto` placer's contract checked on each: feasible wherever any placer
 * gives a placement the timed simulator runs without running out of memory,
 * never out of memory itself (either model), never slower than the best
 * other placer.
 *
 * Each placer runs through placer_run with the cell's memory fraction; its
 * placement is simulated with both models on the same world (placer_world).
 * A placer's step is the timed model's; "inf" = the placer found no
 * placement, "OOM" = the timed simulation ran out of memory.
 *
 * Placement times are the CPU time of the placing thread (one run each, so
 * that the load of a shared machine does not show in them); everything else
 * is deterministic.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "cli/cmd.h"
#include "cli/commands.h"
#include "core/alloc.h"
#include "core/cluster.h"
#include "core/err.h"
#include "core/graph.h"
#include "core/placement.h"
#include "core/workload.h"
#include "core/workload_yaml.h"
#include "placers/bound.h"
#include "placers/placer.h"
#include "sim/sim.h"
#include "workloads/costmodel.h"
#include "workloads/gen.h"
#include "workloads/onnx_import.h"
#include "workloads/train.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Command-line bounds: --fractions values, --workload repeats (more than
 * the table's workloads would only repeat them). */
#define BP_MAX_FRAC      16
#define BP_MAX_WORKLOADS 16

struct bp_workload {
    const char *label;
    const char *kind; /* "yaml", "gen", "onnx" */
    const char *what; /* file or model name */
    const char *size; /* gen: size preset */
    int batch;
    const char *device; /* cost model */
    const char *cluster;
};

static const struct bp_workload bp_workloads[] = {
    {"gnmt-fwd", "yaml", "data/workloads/gnmt_v2/gnmt_v2_b128_fwd.yaml", NULL, 0, NULL,
     "paper-4gpu-pcie"},
    {"inception-v3", "gen", "inception-v3", NULL, 64, "rtx2080", "paper-4gpu-pcie"},
    {"transformer", "gen", "transformer", "base", 64, "v100", "paper-4gpu-pcie"},
    {"resnet50", "onnx", "tests/data/onnx/resnet50.onnx", NULL, 32, "v100", "paper-4gpu-pcie"},
    {"mobilenet-v2", "onnx", "tests/data/onnx/mobilenet_v2.onnx", NULL, 32, "v100",
     "paper-4gpu-pcie"},
    {"gpt-medium", "gen", "gpt", "medium", 8, "h100", "dgx-h100-8"},
    {"gpt-2.7b", "gen", "gpt", "2.7b", 8, "h100", "dgx-h100-8"},
    {"densenet-121", "onnx", "tests/data/onnx/densenet121.onnx", NULL, 32, "v100",
     "paper-4gpu-pcie"},
    {NULL, NULL, NULL, NULL, 0, NULL, NULL},
};

static const double bp_default_fractions[] = {1, 0.5, 0.3, 0.2, 0.1, 0.05};

/* The faithful placers (the paper's algorithms), for the summary. */
static bool is_faithful(const char *name)
{
    return strncmp(name, "m-", 2) == 0 || strcmp(name, PLACER_PAPER_NAME) == 0;
}

/* CPU time of this thread: the machine may be shared, and a placer uses one core. */
static double thread_cpu_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int bp_load(const struct bp_workload *b, struct workload *w)
{
    struct costmodel cm;
    int rc;

    if (strcmp(b->kind, "yaml") == 0) {
        return workload_read_yaml(w, b->what);
    }
    if (strcmp(b->kind, "gen") == 0) {
        struct gen_opts o;

        gen_opts_init(&o);
        o.batch = b->batch;
        o.size = b->size;
        o.device = b->device;
        return gen_model(w, b->what, &o, NULL);
    }
    {
        struct onnx_import_opts io = {0};
        struct onnx_import_stats st;
        struct train_opts to;
        struct workload fwd;

        if (access(b->what, R_OK) != 0) {
            return err_set(BAECHI_EIO, "%s: not found (export it with scripts/export-onnx.py)",
                           b->what);
        }
        io.batch = b->batch;
        train_opts_init(&to);
        if ((rc = costmodel_preset(&cm, b->device)) != 0) {
            return rc;
        }
        if ((rc = onnx_import(&fwd, b->what, &io, &st)) != 0) {
            return rc;
        }
        rc = train_synthesize(w, &fwd, &to, NULL);
        workload_release(&fwd);
        if (rc == 0 && (rc = costmodel_apply(&cm, w, 0, NULL)) != 0) {
            workload_release(w);
        }
        return rc;
    }
}

enum bp_outcome { BP_OK, BP_INFEASIBLE, BP_OOM, BP_ERROR };

struct bp_cell {
    enum bp_outcome out;
    int64_t step_us;
    bool oom_baechi;
    double place_ms;
    int64_t lower_us;     /* auto only: the certified bound (placers/bound.h) */
    int64_t old_lower_us; /* max(critical path, Σ compute / devices) */
    enum bound_kind kind;
};

/* One placer on one cell: place, then both models on the world. */
static int bp_run(const char *placer, const struct graph *g0, const struct cluster *c0,
                  const struct placer_options *opt, struct bp_cell *cell)
{
    struct placement p;
    struct placer_stats st;
    struct cluster cw;
    struct graph gw;
    int64_t *weights = NULL;
    struct sim_result rt, rb;
    struct sim_options so = {.model = SIM_MODEL_TIMED, .trace = NULL};
    double t0 = thread_cpu_ms();
    int rc;

    memset(cell, 0, sizeof(*cell));
    rc = placer_run(placer, g0, c0, opt, NULL, &p, &st);
    cell->place_ms = thread_cpu_ms() - t0;
    if (rc == BAECHI_EINFEASIBLE || rc == BAECHI_ESOLVER || rc == BAECHI_EINVAL) {
        cell->out = rc == BAECHI_EINFEASIBLE ? BP_INFEASIBLE : BP_ERROR;
        return 0;
    }
    if (rc) {
        return rc;
    }
    placer_stats_release(&st);
    sim_result_init(&rt);
    sim_result_init(&rb);
    if ((rc = cluster_copy(&cw, c0)) != 0) {
        placement_release(&p);
        return rc;
    }
    if ((rc = placer_world(&cw, opt)) == 0 &&
        (rc = placer_world_graph(g0, opt, &gw, &weights)) == 0 &&
        (rc = sim_run(&gw, &cw, p.device_of, &so, &rt)) == 0) {
        so.model = SIM_MODEL_BAECHI;
        rc = sim_run(&gw, &cw, p.device_of, &so, &rb);
    }
    if (rc == 0) {
        cell->out = rt.n_oom ? BP_OOM : BP_OK;
        cell->step_us = rt.step_us;
        cell->oom_baechi = rb.n_oom > 0;
        cell->old_lower_us = rt.lower_bound_us;
    }
    if (rc == 0 && strcmp(placer, PLACER_AUTO_NAME) == 0) {
        struct bound_result bd;

        if ((rc = bound_compute(&gw, &cw, NULL, &bd)) == 0) {
            cell->lower_us = bd.lower_bound_us;
            cell->kind = bd.kind;
        }
    }
    sim_result_release(&rt);
    sim_result_release(&rb);
    free(weights);
    cluster_release(&cw);
    placement_release(&p);
    return rc;
}

static const char *short_name(const char *n)
{
    static const char *const from[] = {"m-topo-nonuniform", "m-etf-reserve", "m-sct-reserve",
                                       "round-robin"};
    static const char *const to[] = {"m-topo-nu", "m-etf-r", "m-sct-r", "rr"};
    for (size_t i = 0; i < sizeof(from) / sizeof(from[0]); i++) {
        if (strcmp(n, from[i]) == 0) {
            return to[i];
        }
    }
    return n;
}

static void cell_str(const struct bp_cell *c, char *buf, size_t n)
{
    switch (c->out) {
    case BP_OK:
        snprintf(buf, n, "%.1f", (double)c->step_us / 1e3);
        break;
    case BP_OOM:
        snprintf(buf, n, "OOM");
        break;
    case BP_INFEASIBLE:
        snprintf(buf, n, "inf");
        break;
    default:
        snprintf(buf, n, "err");
        break;
    }
}

struct bp_summary {
    int cells, any_ok, auto_ok_where_any, auto_ok, auto_oom, auto_le_best, auto_ok_no_paper;
    int paper_ok, paper_fail_any;
    double log_paper, log_faithful, log_bound, log_old_bound;
    int n_faithful, n_bound;
    double max_place_ms_small;
};

static const char *const bp_usage[] = {
    "baechi bench placement [--workload LABEL]... [--fractions F,F,...] [--budget-ms MS] "
    "[--markdown]",
    NULL,
};

enum { BP_OPT_WORKLOAD = 256, BP_OPT_FRACTIONS, BP_OPT_BUDGET, BP_OPT_MARKDOWN };

static const struct cmd_opt bp_opts[] = {
    {"workload", BP_OPT_WORKLOAD, "LABEL",
     "only this workload (repeatable): gnmt-fwd, inception-v3, transformer, resnet50, "
     "mobilenet-v2, gpt-medium, gpt-2.7b, densenet-121"},
    {"fractions", BP_OPT_FRACTIONS, "LIST", "memory fractions (default 1,0.5,0.3,0.2,0.1,0.05)"},
    {"budget-ms", BP_OPT_BUDGET, "MS", "auto's search budget (default: auto's default)"},
    {"markdown", BP_OPT_MARKDOWN, NULL, "print the table as Markdown"},
    CMD_OPT_END,
};

static int parse_fractions(struct cmd_parser *p, const char *s, double *f, int *n)
{
    char buf[256];
    char *save = NULL;

    if (strlen(s) >= sizeof(buf)) {
        return cmd_usage_error(p, "--fractions: list too long");
    }
    strcpy(buf, s);
    *n = 0;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (*n == BP_MAX_FRAC) {
            return cmd_usage_error(p, "--fractions: at most %d values", BP_MAX_FRAC);
        }
        if (cmd_parse_double(p, "--fractions", tok, 1e-6, 1e6, &f[*n])) {
            return EXIT_BADINPUT;
        }
        (*n)++;
    }
    return *n ? 0 : cmd_usage_error(p, "--fractions: empty list");
}

struct bp_args {
    const char *only[BP_MAX_WORKLOADS];
    int n_only, n_frac;
    double frac[BP_MAX_FRAC];
    int64_t budget; /* -1: auto's default */
    bool md;
};

/* The options into a; *stop with the exit status when the command ends here
 * (help, or a usage error). */
static int bp_parse(struct cmd_parser *p, struct bp_args *a, bool *stop)
{
    long v;
    int o, rc;

    memset(a, 0, sizeof(*a));
    a->n_frac = (int)(sizeof(bp_default_fractions) / sizeof(bp_default_fractions[0]));
    memcpy(a->frac, bp_default_fractions, sizeof(bp_default_fractions));
    a->budget = -1;
    *stop = true;
    while ((o = cmd_getopt(p)) != -1) {
        switch (o) {
        case 'h':
            return 0;
        case BP_OPT_WORKLOAD:
            if (a->n_only == BP_MAX_WORKLOADS) {
                return cmd_usage_error(p, "--workload: at most %d", BP_MAX_WORKLOADS);
            }
            a->only[a->n_only++] = p->optarg;
            break;
        case BP_OPT_FRACTIONS:
            if ((rc = parse_fractions(p, p->optarg, a->frac, &a->n_frac)) != 0) {
                return rc;
            }
            break;
        case BP_OPT_BUDGET:
            if (cmd_parse_int(p, "--budget-ms", p->optarg, 0, 100000000L, &v)) {
                return EXIT_BADINPUT;
            }
            a->budget = v;
            break;
        case BP_OPT_MARKDOWN:
            a->md = true;
            break;
        default:
            return EXIT_BADINPUT;
        }
    }
    if (cmd_optind() < p->argc) {
        return cmd_usage_error(p, "unexpected argument '%s'", p->argv[cmd_optind()]);
    }
    for (int i = 0; i < a->n_only; i++) {
        bool found = false;
        for (const struct bp_workload *b = bp_workloads; b->label; b++) {
            found |= strcmp(b->label, a->only[i]) == 0;
        }
        if (!found) {
            return cmd_usage_error(p, "unknown workload '%s' (see --help)", a->only[i]);
        }
    }
    *stop = false;
    return 0;
}

/* The table's columns: every registered placer but `given` (= expert),
 * then auto; sized by the registry. */
struct bp_columns {
    const char **names;
    int n, i_auto, i_paper; /* i_paper: -1 when the registry has no paper placer */
};

static int bp_columns_init(struct bp_columns *c)
{
    int n_reg = 0;

    memset(c, 0, sizeof(*c));
    c->i_paper = -1;
    for (const struct placer_desc *d = placer_list(); d->name; d++) {
        n_reg++;
    }
    if (!(c->names = mem_calloc((size_t)n_reg + 1, sizeof(*c->names)))) {
        return err_set(BAECHI_ENOMEM, "out of memory for %d placer names", n_reg + 1);
    }
    for (const struct placer_desc *d = placer_list(); d->name; d++) {
        if (strcmp(d->name, "given") == 0) {
            continue; /* = expert */
        }
        if (strcmp(d->name, PLACER_AUTO_NAME) == 0) {
            continue; /* last column */
        }
        if (strcmp(d->name, PLACER_PAPER_NAME) == 0) {
            c->i_paper = c->n;
        }
        c->names[c->n++] = d->name;
    }
    c->i_auto = c->n;
    c->names[c->n++] = PLACER_AUTO_NAME;
    return 0;
}

static void bp_print_header(const struct bp_columns *cols, bool md, int64_t budget_ms)
{
    struct placer_options def;

    placer_options_init(&def);
    printf("baechi bench placement: timed step per placer in ms (inf = no placement, OOM = the "
           "timed simulation runs out of memory); auto: its step / the certified lower bound "
           "(ratio), / the old bound max(critical path, compute / devices) (old), the bound's "
           "kind, and placement time (CPU s); auto's budget %lld ms of simulated work%s\n\n",
           (long long)(budget_ms >= 0 ? budget_ms : def.budget_ms),
           budget_ms >= 0 ? " (--budget-ms)" : "");
    printf(md ? "| workload | ops | mem | " : "%-14s %5s %5s ", "workload", "ops", "mem");
    for (int i = 0; i < cols->n; i++) {
        printf(md ? "%s | " : "%9s ", short_name(cols->names[i]));
    }
    printf(md ? "ratio | old | kind | auto cpu s | check |\n" : "%6s %6s %6s %7s  %s\n", "ratio",
           "old", "kind", "cpu s", "check");
    if (md) {
        printf("|---|--:|--:|");
        for (int i = 0; i < cols->n; i++) {
            printf("--:|");
        }
        printf("--:|--:|---|--:|---|\n");
    }
}

/* The best timed steps of one cell's placers (auto excluded); -1 when none. */
struct bp_best {
    int64_t all_us, faithful_us;
    bool any;
};

/* Every placer on one cell (g, c at fraction frac) into cell[]. */
static int bp_run_cell(const struct bp_args *a, const struct bp_columns *cols,
                       const struct graph *g, const struct cluster *c, double frac,
                       struct bp_cell *cell, struct bp_best *best)
{
    struct placer_options opt;
    int rc = 0;

    best->all_us = best->faithful_us = -1;
    best->any = false;
    for (int i = 0; i < cols->n && !rc; i++) {
        placer_options_init(&opt);
        opt.memory_fraction = frac;
        if (a->budget >= 0) {
            opt.budget_ms = a->budget;
        }
        if (strcmp(cols->names[i], "expert") == 0) {
            bool given = false;
            for (int32_t v2 = 0; v2 < g->n_ops && !given; v2++) {
                given = g->given_device[v2] >= 0;
            }
            if (!given) {
                memset(&cell[i], 0, sizeof(cell[i]));
                cell[i].out = BP_ERROR;
                continue;
            }
        }
        rc = bp_run(cols->names[i], g, c, &opt, &cell[i]);
        if (!rc && i != cols->i_auto && cell[i].out == BP_OK) {
            best->any = true;
            if (best->all_us < 0 || cell[i].step_us < best->all_us) {
                best->all_us = cell[i].step_us;
            }
            if (is_faithful(cols->names[i]) &&
                (best->faithful_us < 0 || cell[i].step_us < best->faithful_us)) {
                best->faithful_us = cell[i].step_us;
            }
        }
    }
    return rc;
}

/* One cell into the summary; auto's contract check into check. */
static void bp_tally(const struct bp_columns *cols, const struct bp_cell *cell,
                     const struct bp_best *bb, int32_t n_ops, struct bp_summary *sum, char *check,
                     size_t size)
{
    const struct bp_cell *a = &cell[cols->i_auto];
    bool a_ok = a->out == BP_OK && !a->oom_baechi, any = bb->any;
    bool have_paper = cols->i_paper >= 0;
    bool paper_ok = have_paper && cell[cols->i_paper].out == BP_OK;
    int64_t best = bb->all_us;

    sum->cells++;
    sum->any_ok += any;
    sum->auto_ok += a_ok;
    sum->auto_ok_where_any += any && a_ok;
    sum->auto_oom += a->out == BP_OOM || (a->out == BP_OK && a->oom_baechi);
    if (any && a_ok && a->step_us <= best) {
        sum->auto_le_best++;
    }
    if (a_ok && paper_ok) {
        sum->paper_ok++;
        sum->log_paper += log((double)cell[cols->i_paper].step_us / (double)a->step_us);
    }
    if (have_paper && !paper_ok && any) {
        sum->paper_fail_any++;
        sum->auto_ok_no_paper += a_ok;
    }
    if (a_ok && bb->faithful_us > 0) {
        sum->n_faithful++;
        sum->log_faithful += log((double)bb->faithful_us / (double)a->step_us);
    }
    if (a_ok && a->lower_us > 0 && a->old_lower_us > 0) {
        sum->n_bound++;
        sum->log_bound += log((double)a->step_us / (double)a->lower_us);
        sum->log_old_bound += log((double)a->step_us / (double)a->old_lower_us);
    }
    if (n_ops <= 3000 && a->place_ms > sum->max_place_ms_small) {
        sum->max_place_ms_small = a->place_ms;
    }
    if (any && !a_ok) {
        snprintf(check, size, "FAIL: auto %s where a placer fits",
                 a->out == BP_OK ? "OOM (baechi)" : "infeasible");
    } else if (a->out == BP_OOM || (a->out == BP_OK && a->oom_baechi)) {
        snprintf(check, size, "FAIL: auto OOM");
    } else if (any && a->step_us > best) {
        snprintf(check, size, "FAIL: auto %.1f > best %.1f ms", (double)a->step_us / 1e3,
                 (double)best / 1e3);
    } else {
        snprintf(check, size, "ok");
    }
}

static void bp_print_row(const struct bp_columns *cols, const struct bp_cell *cell, bool md,
                         const char *label, int32_t n_ops, double frac, const char *check)
{
    const struct bp_cell *a = &cell[cols->i_auto];
    char s[32];

    printf(md ? "| %s | %d | %g | " : "%-14s %5d %5g ", label, (int)n_ops, frac);
    for (int i = 0; i < cols->n; i++) {
        if (cell[i].out == BP_ERROR && strcmp(cols->names[i], "expert") == 0) {
            snprintf(s, sizeof(s), "-");
        } else {
            cell_str(&cell[i], s, sizeof(s));
        }
        printf(md ? "%s | " : "%9s ", s);
    }
    if (a->out == BP_OK && a->lower_us > 0 && a->old_lower_us > 0) {
        printf(md ? "%.3f | %.3f | %s | " : "%6.3f %6.3f %6s ",
               (double)a->step_us / (double)a->lower_us,
               (double)a->step_us / (double)a->old_lower_us, bound_kind_name(a->kind));
    } else {
        printf(md ? "- | - | - | " : "%6s %6s %6s ", "-", "-", "-");
    }
    printf(md ? "%.2f | %s |\n" : "%7.2f  %s\n", a->place_ms / 1e3, check);
}

/* The rows of workload b (one per fraction); a missing file is a skip. */
static int bp_workload_rows(const struct bp_args *a, const struct bp_columns *cols,
                            const struct bp_workload *b, struct bp_cell *cell,
                            struct bp_summary *sum)
{
    struct workload w;
    struct graph g;
    struct cluster c;
    int rc;

    if ((rc = bp_load(b, &w)) != 0) {
        if (rc == BAECHI_EIO) {
            printf("%s: skipped: %s\n", b->label, err_msg());
            return 0;
        }
        return rc;
    }
    rc = graph_build(&g, &w);
    workload_release(&w);
    if (rc) {
        return rc;
    }
    if ((rc = cluster_load(&c, b->cluster)) != 0) {
        graph_release(&g);
        return rc;
    }
    for (int f = 0; f < a->n_frac && !rc; f++) {
        struct bp_best bb;
        char check[128] = "";

        if ((rc = bp_run_cell(a, cols, &g, &c, a->frac[f], cell, &bb)) != 0) {
            break;
        }
        bp_tally(cols, cell, &bb, g.n_ops, sum, check, sizeof(check));
        bp_print_row(cols, cell, a->md, b->label, g.n_ops, a->frac[f], check);
    }
    cluster_release(&c);
    graph_release(&g);
    return rc;
}

static void bp_print_summary(const struct bp_summary *sum)
{
    printf("\nsummary over %d cells:\n", sum->cells);
    printf("  auto feasible where any placer is (non-OOM): %d / %d\n", sum->auto_ok_where_any,
           sum->any_ok);
    printf("  auto feasible: %d cells; auto out of memory (either model): %d cells\n", sum->auto_ok,
           sum->auto_oom);
    printf("  auto <= the best other placer (timed): %d / %d\n", sum->auto_le_best, sum->any_ok);
    printf("  geometric-mean speed-up of auto over paper (cells where paper fits): %.3fx over "
           "%d cells\n",
           sum->paper_ok ? exp(sum->log_paper / sum->paper_ok) : NAN, sum->paper_ok);
    printf("  where paper fails but a placer fits: auto feasible in %d / %d cells\n",
           sum->auto_ok_no_paper, sum->paper_fail_any);
    printf("  geometric-mean speed-up of auto over the best faithful placer: %.3fx over %d cells\n",
           sum->n_faithful ? exp(sum->log_faithful / sum->n_faithful) : NAN, sum->n_faithful);
    printf("  geometric mean of auto's step / the certified lower bound: %.3f (/ the old bound: "
           "%.3f) over %d cells\n",
           sum->n_bound ? exp(sum->log_bound / sum->n_bound) : NAN,
           sum->n_bound ? exp(sum->log_old_bound / sum->n_bound) : NAN, sum->n_bound);
    printf("  auto's longest placement (graphs <= 3,000 ops): %.2f s of CPU\n",
           sum->max_place_ms_small / 1e3);
}

int cmd_bench_placement(int argc, char **argv)
{
    struct cmd_parser p = {argc, argv, "bench placement", bp_usage, bp_opts, NULL, NULL};
    struct bp_args a;
    struct bp_columns cols;
    struct bp_cell *cell = NULL;
    struct bp_summary sum;
    bool stop;
    int rc;

    if ((rc = bp_parse(&p, &a, &stop)) != 0 || stop) {
        return rc;
    }
    if ((rc = bp_columns_init(&cols)) != 0) {
        return cmd_fail(rc);
    }
    if (!(cell = mem_calloc((size_t)cols.n, sizeof(*cell)))) {
        free(cols.names);
        return cmd_fail(err_set(BAECHI_ENOMEM, "out of memory for %d cells", cols.n));
    }
    memset(&sum, 0, sizeof(sum));
    setvbuf(stdout, NULL, _IOLBF, 0);
    bp_print_header(&cols, a.md, a.budget);
    for (const struct bp_workload *b = bp_workloads; b->label && !rc; b++) {
        bool selected = a.n_only == 0;

        for (int i = 0; i < a.n_only; i++) {
            selected |= strcmp(b->label, a.only[i]) == 0;
        }
        if (selected) {
            rc = bp_workload_rows(&a, &cols, b, cell, &sum);
        }
    }
    free(cell);
    free(cols.names);
    if (rc) {
        return cmd_fail(rc);
    }
    bp_print_summary(&sum);
    return 0;
}
