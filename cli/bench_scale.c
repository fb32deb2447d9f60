/*
 * bench_scale.c - `baechi bench scale`: the work of `run` beyond `sim` at
 * cluster scale (issue 30 item 6's target: `run` on a dp=512 graph within 3x
 * of `sim`).  A small GPT training step (2 layers, d 64, no dropout: the
 * graph of tests/cli/t790) in D-way data parallelism on D H100s in nodes of
 * 8, placed as parallelize pins it; timed: the timed simulation alone (what
 * `sim` does) and the certified bound (what `run` adds), medians of REPS.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "cli/bench_clock.h"
#include "cli/cmd.h"
#include "cli/commands.h"
#include "core/cluster.h"
#include "core/err.h"
#include "core/graph.h"
#include "core/placement.h"
#include "placers/bound.h"
#include "sim/sim.h"
#include "workloads/gen.h"
#include "workloads/parallel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCALE_MAX_REPS 32

/* D H100s in nodes of 8 with a DGX's links (as tests/cli/lib.sh nodes_cluster). */
static int scale_cluster(struct cluster *c, int32_t d)
{
    char yaml[1024];

    snprintf(yaml, sizeof(yaml),
             "format: 1\nname: dgx-%d\ndevices:\n  - {name: gpu, count: %d, kind: h100, "
             "memory: 80GB}\ncomm: {slope_us_per_byte: 2.2222222222222222e-6, intercept_us: 10, "
             "channel: duplex}\nnodes:\n  gpus_per_node: 8\n  intra_node: {bandwidth: 450GB/s, "
             "latency_us: 10}\n  inter_node: {bandwidth: 400Gb/s, per: gpu, latency_us: 5}\n",
             (int)d, (int)d);
    return cluster_read_yaml_string(c, yaml, strlen(yaml), "bench scale");
}

/* The dp-way GPT step as a graph and its pinned placement. */
static int scale_graph(int32_t dp, struct graph *g, struct placement *p)
{
    struct gen_opts o;
    struct parallel_opts po;
    struct workload w, par;
    int rc;

    gen_opts_init(&o);
    o.layers = 2;
    o.d_model = 64;
    o.heads = 4;
    o.vocab = 100;
    o.batch = 4;
    o.seq = 8;
    o.dropout = 0;
    o.device = "h100";
    parallel_opts_init(&po);
    po.dp = dp;
    if ((rc = gen_model(&w, "gpt", &o, NULL))) {
        return rc;
    }
    rc = parallel_apply(&par, &w, &po);
    workload_release(&w);
    if (rc) {
        return rc;
    }
    if (!(rc = graph_build(g, &par)) && (rc = placement_init(p, g->n_ops)) == 0) {
        rc = placement_from_given(p, g);
    }
    workload_release(&par);
    return rc;
}

static int scale_one(int32_t dp, int reps)
{
    double t_sim[SCALE_MAX_REPS], t_bound[SCALE_MAX_REPS];
    int64_t step_us = 0;
    struct sim_options so = {.model = SIM_MODEL_TIMED, .trace = NULL};
    struct bound_options bo;
    struct cluster c;
    struct graph g;
    struct placement p;
    int rc;

    memset(&g, 0, sizeof(g));
    memset(&p, 0, sizeof(p));
    cluster_init(&c);
    if ((rc = scale_cluster(&c, dp)) || (rc = scale_graph(dp, &g, &p))) {
        goto done;
    }
    bound_options_init(&bo);
    for (int r = 0; r < reps && !rc; r++) {
        struct sim_result res;
        struct bound_result br;
        double t0 = bench_cpu_ms();

        rc = sim_run(&g, &c, p.device_of, &so, &res);
        t_sim[r] = bench_cpu_ms() - t0;
        step_us = rc ? 0 : res.step_us;
        sim_result_release(&res);
        t0 = bench_cpu_ms();
        rc = rc ? rc : bound_compute(&g, &c, &bo, &br);
        t_bound[r] = bench_cpu_ms() - t0;
    }
    if (!rc) {
        double s = bench_median(t_sim, reps), b = bench_median(t_bound, reps);

        printf("  dp %4d on %4d GPUs (%6d ops, step %lld us)  sim %8.1f ms CPU  bound %8.1f ms "
               "CPU  run/sim %.2fx\n",
               (int)dp, (int)dp, (int)g.n_ops, (long long)step_us, s, b, (s + b) / s);
    }
done:
    placement_release(&p);
    graph_release(&g);
    cluster_release(&c);
    return rc;
}

static const char *const scale_usage[] = {"baechi bench scale [--quick]", NULL};
enum { SCALE_OPT_QUICK = 600 };
static const struct cmd_opt scale_opts[] = {
    {"quick", SCALE_OPT_QUICK, NULL, "dp 64 and 256 only, 3 repetitions"},
    CMD_OPT_END,
};

int cmd_bench_scale(int argc, char **argv)
{
    struct cmd_parser p = {argc, argv, "bench scale", scale_usage, scale_opts, NULL, NULL};
    static const int32_t dps[] = {64, 256, 512};
    int quick = 0, c, rc = 0;

    while ((c = cmd_getopt(&p)) != -1) {
        switch (c) {
        case 'h':
            return 0;
        case SCALE_OPT_QUICK:
            quick = 1;
            break;
        default:
            return EXIT_BADINPUT;
        }
    }
    printf("baechi bench scale: run (timed simulation + certified bound) vs sim, CPU time, "
           "medians\n");
    for (size_t i = 0; i < sizeof(dps) / sizeof(dps[0]) - (quick ? 1 : 0) && !rc; i++) {
        rc = scale_one(dps[i], quick ? 3 : 5);
    }
    return rc ? cmd_fail(rc) : 0;
}
