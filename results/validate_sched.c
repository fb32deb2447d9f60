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
#include "core/strbuf.h"
#include "core/graph.h"
#include "core/workload_yaml.h"
#include "results/validate_internal.h"
#include "sim/collective.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PP_STAGES 4
#define PP_MICRO  8

/* Whether colocation group g is one of the GPT's layers ("h<l>/..." after the rank's "r<k>/"). */
static bool in_layer(const char *g)
{
    for (const char *c = g; c; c = strchr(c, '/') ? strchr(c, '/') + 1 : NULL) {
        if (c[0] == 'h' && c[1] >= '0' && c[1] <= '9') {
            return true;
        }
    }
    return false;
}

/*
 * GPT of 16 layers in PP_STAGES x v stages, m micro-batches of a batch of
 * 8, simulated under schedule s on cluster c (NULL: VALIDATE_CLUSTER); with
 * v > 1 stage c runs on GPU c mod PP_STAGES (Megatron's interleaved chunks).
 * layers_only: the ops outside the layers (inputs, embedding, final
 * LayerNorm, LM head, loss) take no time, so that every chunk does the same
 * work, as the bubble formulas assume (validate.c's doc).
 */
static int pipeline_run(enum pipeline_schedule s, int v, int m, const struct cluster *c,
                        bool layers_only, struct validate_sim *r)
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
        if (layers_only && w.op[i].phase != PHASE_UPDATE && !in_layer(workload_group(&w, i))) {
            w.op[i].time_us = 0;
        }
    }
    rc = validate_simulate(&w, c, &pl, r);
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

/* VALIDATE_CLUSTER with free transfers between GPUs: the formulas count
 * compute only (the paper's t_f and t_b). */
static int load_free_transfers(struct cluster *c)
{
    int rc = cluster_load(c, VALIDATE_CLUSTER);
    size_t nn = (size_t)c->n_devices * (size_t)c->n_devices;

    if (rc) {
        return rc;
    }
    c->comm.slope_us_per_byte = c->comm.intercept_us = 0;
    c->nodes.intra = c->nodes.inter = c->comm;
    for (size_t k = 0; c->pair && k < nn; k++) {
        c->pair[k] = c->comm;
    }
    return 0;
}

/* A bubble row: the paper's case b and, in the note, the whole model's. */
static int bubble_row(struct validate_rows *out, const char *case_name, double ref,
                      const struct validate_sim *b, const struct validate_sim *whole,
                      const char *layout)
{
    char note[256];

    snprintf(note, sizeof(note),
             "(step - updates0 - m(f+b)) / m(f+b), busiest GPU, GPT l 16 %s, layers only, free "
             "transfers; with the embedding, head and NVLink transfers %.4f",
             layout, bubble(whole));
    return validate_add(out, "pipeline", case_name, "Narayanan et al. SC'21, §2.2", ref, bubble(b),
                        "of m(f+b)", note);
}

int validate_check_pipeline(struct validate_rows *out)
{
    static const char *const src = "Narayanan et al. SC'21, §2.2";
    static const enum pipeline_schedule sched[3] = {PIPELINE_GPIPE, PIPELINE_1F1B,
                                                    PIPELINE_INTERLEAVED};
    const double p = PP_STAGES, m = PP_MICRO;
    struct validate_sim run[3], whole[3], one;
    struct cluster free_c;
    int rc;

    if ((rc = load_free_transfers(&free_c))) {
        return rc;
    }
    for (int k = 0; k < 3 && rc == 0; k++) {
        int v = sched[k] == PIPELINE_INTERLEAVED ? 2 : 1;

        if ((rc = pipeline_run(sched[k], v, PP_MICRO, &free_c, true, &run[k])) == 0) {
            rc = pipeline_run(sched[k], v, PP_MICRO, NULL, false, &whole[k]);
        }
    }
    if (rc) {
        goto cleanup;
    }
    CHECK(pipeline_run(PIPELINE_1F1B, 1, 1, &free_c, true, &one));
    CHECK(bubble_row(out, "GPipe bubble, p = 4, m = 8", (p - 1) / m, &run[0], &whole[0], "--pp 4"));
    CHECK(bubble_row(out, "1F1B bubble, p = 4, m = 8", (p - 1) / m, &run[1], &whole[1], "--pp 4"));
    CHECK(bubble_row(out, "interleaved bubble, p = 4, v = 2, m = 8", (p - 1) / (2 * m), &run[2],
                     &whole[2], "in 8 chunks of 2 layers"));
    CHECK(validate_add(out, "pipeline", "GPipe micro-batches in flight on stage 0", src, m,
                       (double)run[0].saved0_bytes * m / (double)one.saved0_bytes, "micro-batches",
                       "GPU 0's most saved bytes over 1/m of the whole batch's"));
    CHECK(validate_add(out, "pipeline", "1F1B micro-batches in flight on stage 0", src, p,
                       (double)run[1].saved0_bytes * m / (double)one.saved0_bytes, "micro-batches",
                       "GPU 0's most saved bytes over 1/m of the whole batch's"));
cleanup:
    cluster_release(&free_c);
    return rc;
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
    struct strbuf text = STRBUF_INIT;
    struct workload w;
    struct graph g;
    struct coll_plan p;
    int rc;

    /* any number of GPUs (a char[8192] held 35) */
    rc = strbuf_addstr(&text, "format: 1\nname: coll\nops:\n");
    for (int i = 0; i < n && rc == 0; i++) {
        rc = strbuf_addf(&text,
                         "  - {name: p%d, type: Grad, time_us: 1, outputs: [%lld], "
                         "device: %d}\n"
                         "  - {name: c%d, type: Coll, time_us: 0, outputs: [%lld], "
                         "inputs: [\"p%d:0\"], device: %d, "
                         "x-collective: {id: x, kind: %s, bytes: %lld}}\n",
                         i, COLL_BYTES, i, i, COLL_BYTES, i, i, kind, COLL_BYTES);
    }
    if (rc == 0) {
        rc = workload_read_yaml_string(&w, text.buf, text.len, "collective.yaml");
    }
    strbuf_release(&text);
    if (rc) {
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

/* busbw in GB/s by nccl-tests' definition (its PERFORMANCE.md), written
 * here on its own and not read from sim/collective.c's ring volume: the row
 * checks that volume against the reference, which a shared factor would
 * cancel. */
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
