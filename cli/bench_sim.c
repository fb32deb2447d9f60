/*
 * bench_sim.c - `baechi bench sim`: the simulator's speed against a stored
 * baseline (make bench).  Both models on GNMT-v2 (the workload's own
 * placement, paper-4gpu-pcie) and on a 1,000,000-op chain (seed 42, every
 * op on device 0 of 8 x 16 GiB), each the median of repeated sim_run calls,
 * as ms and events/s (an event: an op run or a tensor transfer).  With
 * --baseline (default data/bench/baseline.json in a source tree), each
 * figure is divided by the one every stored build measured, so a
 * regression shows as a ratio below 1.  Nothing is asserted: the machine's
 * load moves the times; the baseline file also keeps instruction counts.
 *
 * The baseline is JSON read as YAML (JSON is a subset) with core/yio.h:
 * {"machine": "...", "builds": [{"build": "...", "<figure>": events/s, ...}]}
 * where <figure> is gnmt_baechi, gnmt_timed, chain_1m_baechi or
 * chain_1m_timed; other keys are ignored.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "cli/bench_clock.h"
#include "cli/cmd.h"
#include "cli/commands.h"
#include "core/alloc.h"
#include "core/cluster.h"
#include "core/err.h"
#include "core/graph.h"
#include "core/placement.h"
#include "core/workload_yaml.h"
#include "core/yio.h"
#include "sim/sim.h"
#include "workloads/gen_synthetic.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BENCH_SIM_FIGURES  4
#define BENCH_SIM_MAX_REPS 101

static const char *const figure_names[BENCH_SIM_FIGURES] = {"gnmt_baechi", "gnmt_timed",
                                                            "chain_1m_baechi", "chain_1m_timed"};

int bench_sim_times(const struct graph *g, const struct cluster *c, const int32_t *dev,
                    enum sim_model m, int reps, double *t_ms, double *events)
{
    struct sim_options opt = {.model = m};

    for (int r = 0; r < reps; r++) {
        struct sim_result res;
        double t0 = bench_now_ms();
        int rc = sim_run(g, c, dev, &opt, &res);

        t_ms[r] = bench_now_ms() - t0;
        if (rc) {
            return rc;
        }
        *events = g->n_ops;
        for (size_t i = 0; i < res.links.n; i++) {
            *events += (double)res.link_transfers[i];
        }
        sim_result_release(&res);
    }
    return 0;
}

/* Median ms of `reps` runs of model m into *ms; the events of one run into *events. */
static int time_sim(const struct graph *g, const struct cluster *c, const int32_t *dev,
                    enum sim_model m, int reps, double *ms, double *events)
{
    double t[BENCH_SIM_MAX_REPS];
    int rc = bench_sim_times(g, c, dev, m, reps, t, events);

    if (rc) {
        return rc;
    }
    qsort(t, (size_t)reps, sizeof(*t), bench_cmp_double);
    *ms = t[reps / 2];
    return 0;
}

/* Figures 0-1: GNMT with its own placement. */
static int bench_gnmt(const char *path, int reps, double *ms, double *ev)
{
    struct workload w;
    struct graph g;
    struct placement p;
    struct cluster c;
    int rc;

    if ((rc = workload_read_yaml(&w, path)) != 0) {
        return rc;
    }
    rc = graph_build(&g, &w);
    workload_release(&w);
    if (rc) {
        return rc;
    }
    if ((rc = cluster_load(&c, "paper-4gpu-pcie")) == 0) {
        if ((rc = placement_init(&p, g.n_ops)) == 0 && (rc = placement_from_given(&p, &g)) == 0) {
            rc = time_sim(&g, &c, p.device_of, SIM_MODEL_BAECHI, reps, &ms[0], &ev[0]);
            if (!rc) {
                rc = time_sim(&g, &c, p.device_of, SIM_MODEL_TIMED, reps, &ms[1], &ev[1]);
            }
        }
        placement_release(&p);
        cluster_release(&c);
    }
    graph_release(&g);
    return rc;
}

/* Figures 2-3: the 1M-op chain on one device. */
static int bench_chain(int reps, double *ms, double *ev)
{
    struct synth_opts o;
    struct workload w;
    struct graph g;
    struct cluster c;
    int32_t *dev = NULL;
    int rc;

    synth_opts_init(&o);
    o.shape = SYNTH_CHAIN;
    o.n_ops = 1000000;
    o.seed = 42;
    workload_init(&w);
    if ((rc = gen_synthetic(&w, &o)) != 0) {
        workload_release(&w);
        return rc;
    }
    rc = graph_build(&g, &w);
    workload_release(&w);
    if (rc) {
        return rc;
    }
    cluster_init(&c);
    if ((rc = cluster_add_devices(&c, 8, (int64_t)16 << 30, 1.0)) == 0) {
        if (!(dev = mem_calloc((size_t)g.n_ops, sizeof(*dev)))) {
            rc = BAECHI_ENOMEM;
        } else if ((rc = time_sim(&g, &c, dev, SIM_MODEL_BAECHI, reps, &ms[2], &ev[2])) == 0) {
            rc = time_sim(&g, &c, dev, SIM_MODEL_TIMED, reps, &ms[3], &ev[3]);
        }
    }
    free(dev);
    cluster_release(&c);
    graph_release(&g);
    return rc;
}

/* One build of the baseline: figure i's events/s into eps[i] (0 when absent). */
static void baseline_build(const struct yval *b, const char **name, double *eps)
{
    *name = "?";
    for (int i = 0; i < BENCH_SIM_FIGURES; i++) {
        eps[i] = 0;
    }
    for (int32_t k = 0; b->kind == YVAL_MAP && k < b->n; k++) {
        const struct yval *v = &b->items[k];

        if (v->kind != YVAL_SCALAR) {
            continue;
        }
        if (strcmp(b->keys[k], "build") == 0) {
            *name = v->scalar;
        }
        for (int i = 0; i < BENCH_SIM_FIGURES; i++) {
            if (strcmp(b->keys[k], figure_names[i]) == 0) {
                eps[i] = strtod(v->scalar, NULL);
            }
        }
    }
}

/* The baseline's "builds" list into *builds (released by the caller). */
static int read_baseline(const char *path, struct yval *builds)
{
    char *text = NULL;
    size_t len = 0;
    struct yrd r;
    int rc;

    if ((rc = yio_read_file(path, &text, &len)) != 0) {
        return rc;
    }
    if ((rc = yrd_open(&r, text, len, path)) == 0 && (rc = yrd_begin(&r)) == 0) {
        while ((rc = yrd_key(&r)) == 0) {
            bool want = strcmp(r.key, "builds") == 0 && builds->kind != YVAL_SEQ;

            if ((rc = yrd_next(&r)) != 0 ||
                (rc = want ? yrd_yval(&r, builds) : yrd_skip(&r)) != 0) {
                break;
            }
        }
        rc = rc == YRD_END ? 0 : rc;
    }
    yrd_close(&r);
    free(text);
    if (!rc && builds->kind != YVAL_SEQ) {
        rc = err_set(BAECHI_EPARSE, "%s: expected \"builds\": [ ... ]", path);
    }
    return rc;
}

/* Prints each stored build's figures and this run's ratio to them. */
static void print_baseline(const char *path, const struct yval *builds, const double *eps_now)
{
    printf("\nagainst %s (this run / stored; below 1 = slower than that build):\n", path);
    for (int32_t k = 0; k < builds->n; k++) {
        const char *name;
        double eps[BENCH_SIM_FIGURES];

        baseline_build(&builds->items[k], &name, eps);
        printf("  %s\n", name);
        for (int i = 0; i < BENCH_SIM_FIGURES; i++) {
            if (eps[i] > 0) {
                printf("    %-16s stored %8.2f M events/s   now %8.2f   ratio %.2f\n",
                       figure_names[i], eps[i] / 1e6, eps_now[i] / 1e6, eps_now[i] / eps[i]);
            }
        }
    }
}

static const char *const bench_sim_usage[] = {
    "baechi bench sim [--baseline <file.json>] [--reps <n>] [--gnmt <workload.yaml>]",
    NULL,
};

enum { OPT_BASELINE = 256, OPT_REPS, OPT_GNMT_FILE };

static const struct cmd_opt bench_sim_opts[] = {
    {"baseline", OPT_BASELINE, "FILE",
     "compare with the builds stored in FILE (default: data/bench/baseline.json in a source tree; "
     "'none' skips)"},
    {"reps", OPT_REPS, "N", "runs per figure on GNMT (default 51; the 1M chain runs 5)"},
    {"gnmt", OPT_GNMT_FILE, "FILE", "the GNMT workload (default: the shipped one)"},
    CMD_OPT_END,
};

int cmd_bench_sim(int argc, char **argv)
{
    struct cmd_parser p = {argc, argv, argv[0], bench_sim_usage, bench_sim_opts, NULL, NULL};
    char gnmt_buf[4096], base_buf[4096];
    const char *gnmt =
        cmd_data_path("workloads/gnmt_v2/gnmt_v2_b128_fwd.yaml", gnmt_buf, sizeof(gnmt_buf));
    const char *baseline = cmd_data_path("bench/baseline.json", base_buf, sizeof(base_buf));
    double ms[BENCH_SIM_FIGURES], ev[BENCH_SIM_FIGURES], eps[BENCH_SIM_FIGURES];
    struct yval builds = {0};
    int reps = 51, c, rc;
    bool given = false;

    while ((c = cmd_getopt(&p)) != -1) {
        switch (c) {
        case 'h':
            return 0;
        case OPT_BASELINE:
            baseline = p.optarg;
            given = true;
            break;
        case OPT_REPS:
            reps = atoi(p.optarg);
            if (reps < 1 || reps > BENCH_SIM_MAX_REPS) {
                fprintf(stderr, "baechi bench sim: --reps: expected 1 .. %d, got '%s'\n",
                        BENCH_SIM_MAX_REPS, p.optarg);
                return EXIT_BADINPUT;
            }
            break;
        case OPT_GNMT_FILE:
            gnmt = p.optarg;
            break;
        default:
            return EXIT_BADINPUT;
        }
    }
    if (!given && access(baseline, R_OK) != 0) {
        baseline = "none"; /* an installation without the source tree's file */
    }
    if (strcmp(baseline, "none") != 0 && (rc = read_baseline(baseline, &builds)) != 0) {
        yval_release(&builds);
        return cmd_fail(rc);
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if ((rc = bench_gnmt(gnmt, reps, ms, ev)) != 0 || (rc = bench_chain(5, ms, ev)) != 0) {
        yval_release(&builds);
        return cmd_fail(rc);
    }
    printf("simulator speed (median of %d runs on GNMT, 5 on the 1M-op chain):\n", reps);
    for (int i = 0; i < BENCH_SIM_FIGURES; i++) {
        eps[i] = ms[i] > 0 ? ev[i] / (ms[i] / 1e3) : 0;
        printf("  %-16s %10.3f ms  %9.0f events  %8.2f M events/s\n", figure_names[i], ms[i], ev[i],
               eps[i] / 1e6);
    }
    if (builds.kind == YVAL_SEQ) {
        print_baseline(baseline, &builds, eps);
    }
    yval_release(&builds);
    return 0;
}
