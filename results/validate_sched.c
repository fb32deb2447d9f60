/*
 * validate_sched.c - the checks of `baechi validate` that time things:
 * pipeline bubbles and micro-batches in flight under GPipe, 1F1B and the
 * interleaved schedule (Narayanan et al. SC'21, §2.2), and the bus
 * bandwidth of the collective model by nccl-tests' definitions
 * (doc/PERFORMANCE.md).  The references and the measurements are described
 * in validate.c's registry.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/cluster.h"
#include "core/err.h"
#include "core/graph.h"
#include "core/workload_yaml.h"
#include "results/validate_internal.h"
#include "sim/collective.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PP_STAGES 4
#define PP_MICRO  8

/*
 * GPT of 16 layers in PP_STAGES x v stages, m micro-batches of a batch of
 * 8, simulated under schedule s; with v > 1 stage c runs on GPU c mod
 * PP_STAGES (Megatron's interleaved chunks).
 */
static int pipeline_run(enum pipeline_schedule s, int v, int m, struct validate_sim *r)
{
    struct gen_opts g;
    struct parallel_opts o;
    struct pipeline_opts pl = {s, v};
    struct workload w;
    int rc;

    validate_gpt_opts(&g, 16, 1024, 16, 1024, 1024, PP_MICRO);
    g.train.micro_batches = m;
    g.train.pipeline = pl;
    parallel_opts_init(&o);
    o.pp = PP_STAGES * v;
    if ((rc = validate_gpt(&w, &g, &o))) {
        return rc;
    }
    for (int32_t i = 0; i < w.n_ops; i++) {
        w.op[i].device = w.op[i].device >= 0 ? w.op[i].device % PP_STAGES : 0;
    }
    rc = validate_simulate(&w, &pl, r);
    workload_release(&w);
    return rc;
}

/*
 * The bubble over the ideal time m(f + b) of the busiest stage: the step,
 * less stage 0's updates (the last to run: they follow its last backward),
 * less that ideal time, over it (validate.c's doc).
 */
static double bubble(const struct validate_sim *r)
{
    double ideal = 0;

    for (int d = 0; d < PP_STAGES; d++) {
        double fb = (double)(r->busy_us[d] - r->update_us[d]);

        ideal = fb > ideal ? fb : ideal;
    }
    return ((double)(r->step_us - r->update_us[0]) - ideal) / ideal;
}

int validate_check_pipeline(struct validate_rows *out)
{
    static const char *const src = "Narayanan et al. SC'21, §2.2";
    const double p = PP_STAGES, m = PP_MICRO;
    struct validate_sim gp, f1, il, one;
    struct pipeline_opts whole = {PIPELINE_1F1B, 1};
    int rc;

    if ((rc = pipeline_run(PIPELINE_GPIPE, 1, PP_MICRO, &gp)) ||
        (rc = pipeline_run(PIPELINE_1F1B, 1, PP_MICRO, &f1)) ||
        (rc = pipeline_run(PIPELINE_INTERLEAVED, 2, PP_MICRO, &il)) ||
        (rc = pipeline_run(whole.schedule, 1, 1, &one))) {
        return rc;
    }
    if ((rc = validate_add(out, "pipeline", "GPipe bubble, p = 4, m = 8", src, (p - 1) / m,
                           bubble(&gp), "of m(f+b)",
                           "(step - updates0 - m(f+b)) / m(f+b), busiest GPU, GPT l 16 --pp 4")) ||
        (rc = validate_add(out, "pipeline", "1F1B bubble, p = 4, m = 8", src, (p - 1) / m,
                           bubble(&f1), "of m(f+b)",
                           "(step - updates0 - m(f+b)) / m(f+b), busiest GPU, GPT l 16 --pp 4")) ||
        (rc = validate_add(
             out, "pipeline", "interleaved bubble, p = 4, v = 2, m = 8", src, (p - 1) / (2 * m),
             bubble(&il), "of m(f+b)",
             "(step - updates0 - m(f+b)) / m(f+b), busiest GPU, 8 chunks of 2 layers")) ||
        (rc = validate_add(out, "pipeline", "GPipe micro-batches in flight on stage 0", src, m,
                           (double)gp.saved0_bytes * m / (double)one.saved0_bytes, "micro-batches",
                           "GPU 0's most saved bytes over 1/m of the whole batch's")) ||
        (rc = validate_add(out, "pipeline", "1F1B micro-batches in flight on stage 0", src, p,
                           (double)f1.saved0_bytes * m / (double)one.saved0_bytes, "micro-batches",
                           "GPU 0's most saved bytes over 1/m of the whole batch's"))) {
        return rc;
    }
    return 0;
}

/* 2 x 8 H100 SXM as dgx-h100-2x8, with 8 x 200 Gb/s NICs a node (the log's machine). */
static const char cluster_200g[] =
    "format: 1\nname: h100-2x8-200g\n"
    "devices:\n  - {name: gpu, count: 16, memory: 80GB}\n"
    "comm: {slope_us_per_byte: 2.2222222222222222e-6, intercept_us: 10, channel: duplex, "
    "coll_efficiency: 0.8}\n"
    "nodes:\n  count: 2\n  gpus_per_node: 8\n"
    "  intra_node: {bandwidth: 450GB/s, latency_us: 10}\n"
    "  inter_node: {bandwidth: 200Gb/s, per: gpu, latency_us: 5, coll_efficiency: 0.9}\n";

#define COLL_BYTES (8LL << 30)

/* The time of one collective `kind` of COLL_BYTES over GPUs 0 .. n-1 of c. */
static int coll_time_us(const struct cluster *c, const char *kind, int n, double *t_us)
{
    char text[8192];
    size_t len = 0;
    struct workload w;
    struct graph g;
    struct coll_plan p;
    int rc;

    len += (size_t)snprintf(text, sizeof(text), "format: 1\nname: coll\nops:\n");
    for (int i = 0; i < n && len < sizeof(text); i++) {
        len += (size_t)snprintf(text + len, sizeof(text) - len,
                                "  - {name: p%d, type: Grad, time_us: 1, outputs: [%lld], "
                                "device: %d}\n"
                                "  - {name: c%d, type: Coll, time_us: 0, outputs: [%lld], "
                                "inputs: [\"p%d:0\"], device: %d, "
                                "x-collective: {id: x, kind: %s, bytes: %lld}}\n",
                                i, COLL_BYTES, i, i, COLL_BYTES, i, i, kind, COLL_BYTES);
    }
    if (len >= sizeof(text)) {
        return err_set(BAECHI_EINVAL, "collective workload too long");
    }
    if ((rc = workload_read_yaml_string(&w, text, len, "collective.yaml"))) {
        return rc;
    }
    rc = graph_build(&g, &w);
    workload_release(&w);
    if (rc) {
        return rc;
    }
    if ((rc = coll_plan_make(&p, &g, c, g.given_device, 0)) == 0) {
        *t_us = (double)p.time_us;
        coll_plan_release(&p);
    }
    graph_release(&g);
    return rc;
}

/* busbw in GB/s by nccl-tests' definition. */
static double busbw_gb_s(const char *kind, int n, double t_us)
{
    double algbw = (double)COLL_BYTES / (t_us * 1e-6);

    return algbw * (strcmp(kind, "all-reduce") == 0 ? 2.0 : 1.0) * (n - 1) / n / 1e9;
}

static int nccl_rows(struct validate_rows *out, const struct cluster *c, int n, double ref,
                     const char *where, const char *source, const char *note)
{
    static const char *const kinds[] = {"all-reduce", "reduce-scatter", "all-gather"};
    int rc;

    for (int k = 0; k < 3; k++) {
        double t;
        char cs[96];

        if ((rc = coll_time_us(c, kinds[k], n, &t))) {
            return rc;
        }
        snprintf(cs, sizeof(cs), "%s busbw, %s, 8 GiB", kinds[k], where);
        if ((rc = validate_add(out, "nccl-busbw", cs, source, ref, busbw_gb_s(kinds[k], n, t),
                               "GB/s", note))) {
            return rc;
        }
    }
    return 0;
}

int validate_check_nccl(struct validate_rows *out)
{
    struct cluster c;
    struct comm_model cm;
    double ref;
    int rc;

    if ((rc = cluster_load(&c, VALIDATE_CLUSTER))) {
        return rc;
    }
    cm = cluster_comm_model(&c, 0, 1);
    ref = cluster_coll_efficiency(&c, 0, 1) / cm.slope_us_per_byte * 1e6 / 1e9;
    rc = nccl_rows(out, &c, 8, ref, "8 GPUs in a node (dgx-h100-8)",
                   "nccl-tests doc/PERFORMANCE.md; preset's coll_efficiency x NVLink",
                   "busbw = S/t x 2(n-1)/n (all-reduce), x (n-1)/n; t from sim/collective.c");
    cluster_release(&c);
    if (rc) {
        return rc;
    }
    if ((rc = cluster_read_yaml_string(&c, cluster_200g, strlen(cluster_200g),
                                       "h100-2x8-200g.yaml"))) {
        return rc;
    }
    rc = nccl_rows(out, &c, 16, 338.8, "2 x 8 H100, 8 x 200 Gb/s NICs a node",
                   "nccl-tests all_reduce_perf log, 2 x 8 H100 (docs/simulator.md)",
                   "dgx-h100-2x8's numbers with 200 Gb/s NICs; busbw by nccl-tests' definitions");
    cluster_release(&c);
    return rc;
}
