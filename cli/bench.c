/*
 * bench.c - `baechi bench`: the suite's own speed (make bench).  Times are
 * medians over repeated runs on this machine; nothing is asserted here
 * (speed is measured by benchmarks, never by timed tests).
 *
 * Workloads: the GNMT-v2 profile shipped in data/workloads/, and seeded
 * synthetic layered DAGs (workloads/gen_synthetic.h) of 10k, 100k and 1M ops.
 * For each: load (YAML), graph build (pruning, CSR, topological sort), both
 * simulator models (median time and events/s, where an event is an op run or
 * a tensor transfer), and every placer's placement time (wall clock of
 * placer_run: grouping, fusion, algorithm and mapping back; the LP included).
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
#include "placers/placer.h"
#include "sim/sim.h"
#include "workloads/gen_synthetic.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define BENCH_MAX_REPS 64

static long peak_rss_kib(void)
{
    struct rusage ru;

    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static void report(const char *what, const char *workload, double *t, int reps, double events)
{
    double med = bench_median(t, reps);

    printf("  %-28s %-26s median %10.3f ms  (min %.3f, max %.3f, %d runs)", what, workload, med,
           t[0], t[reps - 1], reps);
    if (events > 0 && med > 0) {
        printf("  %.2f M events/s", events / (med * 1e3));
    }
    printf("\n");
}

/* Round-robin by colocation group: a placement with real traffic. */
static void place_round_robin(const struct graph *g, int32_t k, int32_t *dev)
{
    for (int32_t u = 0; u < g->n_ops; u++) {
        dev[u] = g->group[u] % k;
    }
}

static int bench_sim(const struct graph *g, const struct cluster *c, const int32_t *dev,
                     const char *name, int reps)
{
    for (int m = 0; m < 2; m++) {
        const enum sim_model model = m == 0 ? SIM_MODEL_BAECHI : SIM_MODEL_TIMED;
        double t[BENCH_MAX_REPS];
        double events = 0;
        char what[64];
        int rc = bench_sim_times(g, c, dev, model, reps, t, &events);

        if (rc) {
            return rc;
        }
        snprintf(what, sizeof(what), "simulate (%s)", sim_model_name(model));
        report(what, name, t, reps, events);
    }
    return 0;
}

/*
 * Times placer `name` on g (median of `reps`).  An infeasible result is
 * reported as such (it is a result of the setting, not a failure).
 */
static int bench_placer(const char *name, const struct graph *g, const struct cluster *c,
                        const struct placer_options *opt, const char *label, int reps)
{
    double t[BENCH_MAX_REPS];
    int64_t estimate = -1;
    char what[64];

    for (int r = 0; r < reps; r++) {
        struct placement p;
        struct placer_stats st;
        double t0 = bench_now_ms();
        int rc = placer_run(name, g, c, opt, NULL, &p, &st);

        t[r] = bench_now_ms() - t0;
        if (rc == BAECHI_EINFEASIBLE || rc == BAECHI_EINVAL) {
            /* A result of the setting (infeasible), or a placer that does
             * not apply to it (`given` with fewer devices than the model's
             * own placement uses). */
            printf("  place %-22s %-26s %s: %s\n", name, label,
                   rc == BAECHI_EINFEASIBLE ? "infeasible" : "not applicable", err_msg());
            return 0;
        }
        if (rc) {
            return rc;
        }
        estimate = st.estimate_us;
        placement_release(&p);
        placer_stats_release(&st);
    }
    snprintf(what, sizeof(what), "place %s", name);
    report(what, label, t, reps, 0);
    if (estimate >= 0) {
        printf("  %-28s %-26s estimate %.3f ms\n", "", "", (double)estimate / 1e3);
    }
    return 0;
}

static int bench_placers(const struct graph *g, const struct cluster *c, double fraction, int32_t k,
                         const char *label, int reps)
{
    struct placer_options opt;
    int rc = 0;

    for (const struct placer_desc *d = placer_list(); d->name && !rc; d++) {
        placer_options_init(&opt);
        opt.memory_fraction = fraction;
        opt.n_devices = k;
        /* auto runs every other placer and ~2,400 simulations of GNMT: 3 runs */
        rc = bench_placer(d->name, g, c, &opt, label,
                          strcmp(d->name, PLACER_AUTO_NAME) == 0 ? (reps > 3 ? 3 : reps)
                          : strcmp(d->name, "m-sct") == 0 || strcmp(d->name, "m-sct-reserve") == 0
                              ? (reps > 5 ? 5 : reps)
                              : reps);
    }
    return rc;
}

static int bench_gnmt(const char *path, const struct cluster *c, int reps)
{
    double t_load[BENCH_MAX_REPS], t_build[BENCH_MAX_REPS];
    struct workload w;
    struct graph g;
    struct placement p;
    int rc;

    for (int r = 0; r < reps; r++) {
        double t0 = bench_now_ms();

        if ((rc = workload_read_yaml(&w, path))) {
            return rc;
        }
        t_load[r] = bench_now_ms() - t0;
        t0 = bench_now_ms();
        if ((rc = graph_build(&g, &w))) {
            workload_release(&w);
            return rc;
        }
        t_build[r] = bench_now_ms() - t0;
        if (r + 1 < reps) {
            graph_release(&g);
        }
        workload_release(&w);
    }
    printf("GNMT-v2 (%d ops after pruning, %d edges; %s)\n", g.n_ops, g.n_edges, path);
    report("load (YAML)", "gnmt", t_load, reps, 0);
    report("graph build + topo sort", "gnmt", t_build, reps, 0);
    if ((rc = placement_init(&p, g.n_ops)) || (rc = placement_from_given(&p, &g))) {
        graph_release(&g);
        placement_release(&p);
        return rc;
    }
    rc = bench_sim(&g, c, p.device_of, "gnmt, given placement", reps);
    placement_release(&p);
    if (!rc) {
        rc = bench_placers(&g, c, 1.0, 4, "gnmt, 4 x 6.44 GiB", reps);
    }
    /* Tight memory: 2 devices with 30% of 6.44 GiB (1.93 GiB) for the
     * placer: GNMT's ~1.9 GiB working set fits only when spread, and the
     * non-uniform m-TOPO fails (its quirky admission test, spec §2.3). */
    if (!rc) {
        rc = bench_placers(&g, c, 0.3, 2, "gnmt, 2 x 1.93 GiB (tight)", reps);
    }
    graph_release(&g);
    return rc;
}

static int bench_synthetic(int32_t n, const struct cluster *c, int reps, int do_yaml)
{
    double t_gen[BENCH_MAX_REPS], t_build[BENCH_MAX_REPS], t_load[BENCH_MAX_REPS];
    double t_cp[BENCH_MAX_REPS];
    struct synth_opts o;
    struct workload w;
    struct graph g;
    int32_t *dev = NULL;
    char name[64];
    int rc = 0;

    synth_opts_init(&o);
    o.n_ops = n;
    o.seed = 42;
    o.fan_in = 3;
    snprintf(name, sizeof(name), "layered %dk", n / 1000);
    for (int r = 0; r < reps; r++) {
        double t0 = bench_now_ms();

        workload_init(&w);
        if ((rc = gen_synthetic(&w, &o))) {
            workload_release(&w);
            return rc;
        }
        t_gen[r] = bench_now_ms() - t0;
        t0 = bench_now_ms();
        if ((rc = graph_build(&g, &w))) {
            workload_release(&w);
            return rc;
        }
        t_build[r] = bench_now_ms() - t0;
        if (do_yaml && r == 0) {
            char tmp[] = "/tmp/baechi-bench-XXXXXX";
            int fd = mkstemp(tmp);
            FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

            if (!f) {
                workload_release(&w);
                graph_release(&g);
                return err_set(BAECHI_EIO, "cannot create a temporary file");
            }
            rc = workload_write_yaml(&w, f);
            fclose(f);
            for (int k = 0; k < reps && !rc; k++) {
                struct workload w2;
                double t1 = bench_now_ms();

                rc = workload_read_yaml(&w2, tmp);
                t_load[k] = bench_now_ms() - t1;
                if (!rc) {
                    workload_release(&w2);
                }
            }
            unlink(tmp);
            if (rc) {
                workload_release(&w);
                graph_release(&g);
                return rc;
            }
        }
        workload_release(&w);
        if (r + 1 < reps) {
            graph_release(&g);
        }
    }
    for (int r = 0; r < reps; r++) {
        double t0 = bench_now_ms();
        int64_t cp;

        if ((rc = graph_critical_path_us(&g, &cp))) {
            graph_release(&g);
            return rc;
        }
        t_cp[r] = bench_now_ms() - t0;
    }
    printf("synthetic layered DAG, %d ops, %d edges (seed 42, fan-in 3)\n", g.n_ops, g.n_edges);
    report("generate", name, t_gen, reps, 0);
    if (do_yaml) {
        report("load (YAML)", name, t_load, reps, 0);
    }
    report("graph build + topo sort", name, t_build, reps, 0);
    report("critical path", name, t_cp, reps, 0);
    dev = mem_alloc((size_t)g.n_ops * sizeof(*dev));
    if (!dev) {
        graph_release(&g);
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    place_round_robin(&g, c->n_devices, dev);
    rc = bench_sim(&g, c, dev, name, reps);
    free(dev);
    if (!rc && n <= 100000) {
        struct placer_options opt;
        static const char *const names[] = {"m-topo", "m-etf", "m-sct"};

        placer_options_init(&opt);
        /* The LP of this 10k-op graph on the bench's 8 uniform devices is
         * hard for both solvers (many minutes), so m-SCT (at 10k ops only)
         * gets a limit that counts work: 10,000 simplex iterations (about
         * 4 s here; the LP is not feasible by then, so the row times the
         * LP's 10,000 iterations and m-SCT's recorded fallback to m-ETF).
         * Not a time limit: that made the row depend on the load (a loaded
         * machine stopped the LP at another point). */
        opt.lp_iteration_limit = 10000;
        for (int i = 0; i < 3 && !rc; i++) {
            if (i == 2 && n > 10000) {
                continue;
            }
            rc = bench_placer(names[i], &g, c, &opt, name, i == 2 ? 1 : (reps > 3 ? 3 : reps));
        }
    }
    graph_release(&g);
    return rc;
}

static const char *const bench_usage[] = {
    "baechi bench [--quick] [--gnmt <workload.yaml>]",
    "baechi bench placement [options]   (every placer's step on issue 10's cells; see --help)",
    "baechi bench scaling --db FILE [options]   (placement time vs graph size; see --help)",
    "baechi bench sim [options]   (the simulator's events/s against data/bench/baseline.json)",
    "baechi bench scale [--quick]   (run's bound against sim at dp 64-512 on as many GPUs)",
    NULL,
};

enum { OPT_QUICK = 256, OPT_GNMT };

static const struct cmd_opt bench_opts[] = {
    {"quick", OPT_QUICK, NULL, "fewer repetitions and no 1M-op graph"},
    {"gnmt", OPT_GNMT, "FILE",
     "the GNMT workload (default: data/workloads/gnmt_v2/... in a source tree, else the "
     "installed copy under $BAECHI_DATADIR or share/baechi)"},
    CMD_OPT_END,
};

int cmd_bench(int argc, char **argv)
{
    struct cmd_parser p = {argc, argv, argv[0], bench_usage, bench_opts, NULL, NULL};
    char gnmt_buf[4096];
    const char *gnmt =
        cmd_data_path("workloads/gnmt_v2/gnmt_v2_b128_fwd.yaml", gnmt_buf, sizeof(gnmt_buf));
    struct cluster c4, c8;
    int quick = 0, c, rc;

    if (argc > 1 && strcmp(argv[1], "placement") == 0) {
        return cmd_bench_placement(argc - 1, argv + 1);
    }
    if (argc > 1 && strcmp(argv[1], "scaling") == 0) {
        return cmd_bench_scaling(argc - 1, argv + 1);
    }
    if (argc > 1 && strcmp(argv[1], "sim") == 0) {
        return cmd_bench_sim(argc - 1, argv + 1);
    }
    if (argc > 1 && strcmp(argv[1], "scale") == 0) {
        return cmd_bench_scale(argc - 1, argv + 1);
    }
    while ((c = cmd_getopt(&p)) != -1) {
        switch (c) {
        case 'h':
            return 0;
        case OPT_QUICK:
            quick = 1;
            break;
        case OPT_GNMT:
            gnmt = p.optarg;
            break;
        default:
            return EXIT_BADINPUT;
        }
    }
    if ((rc = cluster_load(&c4, "paper-4gpu-pcie"))) {
        return cmd_fail(rc);
    }
    cluster_init(&c8);
    if ((rc = cluster_add_devices(&c8, 8, (int64_t)16 << 30, 1.0))) {
        cluster_release(&c4);
        return cmd_fail(rc);
    }
    setvbuf(stdout, NULL, _IOLBF, 0); /* progress shows while it runs */
    printf("baechi bench: medians over repeated runs (this machine: %ld cores); %s\n\n",
           sysconf(_SC_NPROCESSORS_ONLN),
           quick ? "--quick: 5, 3 and 3 repetitions, no 1M-op graph"
                 : "21, 11 and 5 repetitions, then the 1M-op graph");
    rc = bench_gnmt(gnmt, &c4, quick ? 5 : 21);
    if (!rc) {
        printf("\n");
        rc = bench_synthetic(10000, &c8, quick ? 3 : 11, 1);
    }
    if (!rc) {
        printf("\n");
        rc = bench_synthetic(100000, &c8, quick ? 3 : 5, 1);
    }
    if (!rc && !quick) {
        printf("\n");
        rc = bench_synthetic(1000000, &c8, 3, 0);
        printf("  peak RSS of the process after the 1M-op runs: %.1f MiB\n",
               (double)peak_rss_kib() / 1024.0);
    }
    cluster_release(&c4);
    cluster_release(&c8);
    return rc ? cmd_fail(rc) : 0;
}
