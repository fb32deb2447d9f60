/*
 * test_pipeline_sched.c - the pipeline schedules of the timed simulator
 * (sim/sim_sched.c, core/pipeline.h) on a balanced chain of K stages with
 * negligible communication: the step is (M + K - 1)(f + b) for gpipe and
 * 1f1b, the interleaved bubble (K - 1)(f + b) / V (Megatron's formula),
 * and stage s holds the saved activations of min(M, K - s) micro-batches
 * under 1f1b, of M under gpipe.  Also the x-pipeline key.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include <criterion/criterion.h>

#include "core/err.h"
#include "core/pipeline.h"
#include "core/workload_yaml.h"
#include "sim/sim.h"
#include "tests/unit/simtest.h"
#include "workloads/train.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define K     4
#define J     2       /* ops a chunk */
#define OP_US 1200    /* forward µs of one op for the whole batch */
#define OUT_B 8000000 /* bytes of an op's output for the whole batch */

/* A chain of k*v chunks of J MatMuls, chunk c on device c mod k. */
static void chain(struct workload *w, int v)
{
    char text[16384];
    size_t n = 0;
    const char *prev = "x";
    char names[2][32];

    n +=
        (size_t)snprintf(text + n, sizeof(text) - n,
                         "format: 1\nname: chain\nops:\n"
                         "  - {name: x, type: Placeholder, time_us: 0, outputs: [%d], device: 0}\n",
                         OUT_B);
    for (int c = 0; c < K * v; c++) {
        for (int j = 0; j < J; j++) {
            char *me = names[(c * J + j) % 2];

            snprintf(me, 32, "c%d/op%d", c, j);
            n += (size_t)snprintf(text + n, sizeof(text) - n,
                                  "  - {name: %s, type: MatMul, time_us: %d, outputs: [%d], "
                                  "persistent: 4096, group: c%d, device: %d, inputs: [%s]}\n",
                                  me, OP_US, OUT_B, c, c % K, prev);
            prev = me;
        }
    }
    n += (size_t)snprintf(text + n, sizeof(text) - n,
                          "  - {name: loss, type: Loss, time_us: 0, outputs: [4], group: c%d, "
                          "device: %d, inputs: [%s]}\n",
                          K * v - 1, K - 1, prev);
    cr_assert_eq(workload_read_yaml_string(w, text, n, "chain.yaml"), 0, "%s", err_msg());
}

struct run {
    int64_t step_us;
    int64_t saved[K]; /* the most bytes of the saved kind each device held at once */
};

/* Tracks the saved kind's bytes per device and their maximum (a sim_mem_fn). */
struct saved_obs {
    const struct graph *g;
    const uint8_t *is_saved;
    int64_t now[K], max[K];
};

static void on_mem(void *ctx, int32_t d, int64_t t, int64_t delta, enum sim_mem_what what,
                   int32_t op, int32_t tensor, bool alloc)
{
    struct saved_obs *x = ctx;

    (void)t;
    (void)tensor;
    (void)alloc;
    if (sim_mem_kind(x->g, x->is_saved, what, op) == MEM_KIND_SAVED) {
        x->now[d] += delta;
        x->max[d] = x->now[d] > x->max[d] ? x->now[d] : x->max[d];
    }
}

/* The chain of v chunks a device, m micro-batches, simulated under o;
 * each optimizer update takes update_us (0: the synthesis's 1 µs). */
static struct run sim_upd(int v, int m, const struct pipeline_opts *o, int update_us)
{
    struct workload fwd, tr;
    struct train_opts to;
    struct graph g;
    struct cluster c;
    struct sim_result r;
    struct saved_obs x = {0};
    struct sim_mem_obs obs = {on_mem, &x};
    struct sim_options so = {.model = SIM_MODEL_TIMED, .mem_obs = &obs, .pipeline = o};
    struct run out;
    uint8_t *is_saved = NULL;

    chain(&fwd, v);
    train_opts_init(&to);
    to.micro_batches = m;
    cr_assert_eq(train_synthesize(&tr, &fwd, &to, NULL), 0, "%s", err_msg());
    for (int32_t i = 0; update_us > 0 && i < tr.n_ops; i++) {
        if (tr.op[i].phase == PHASE_UPDATE) {
            tr.op[i].time_us = update_us;
        }
    }
    cr_assert_eq(graph_build(&g, &tr), 0, "%s", err_msg());
    cr_assert_eq(simtest_cluster(&c, K, 1LL << 40, 1e-9, 0, CHANNEL_DUPLEX), 0, "%s", err_msg());
    cr_assert_eq(sim_saved_ops(&g, &is_saved), 0);
    x.g = &g;
    x.is_saved = is_saved;
    cr_assert_eq(sim_run(&g, &c, g.given_device, &so, &r), 0, "%s", err_msg());
    cr_assert_eq(sim_check(&g, &c, g.given_device, &r), 0, "%s", err_msg());
    out.step_us = r.step_us;
    for (int d = 0; d < K; d++) {
        out.saved[d] = x.max[d];
    }
    free(is_saved);
    sim_result_release(&r);
    cluster_release(&c);
    graph_release(&g);
    workload_release(&tr);
    workload_release(&fwd);
    return out;
}

static struct run sim(int v, int m, const struct pipeline_opts *o)
{
    return sim_upd(v, m, o, 0);
}

/* f + b of one micro-batch on one device (v chunks of J ops; backward 2x). */
static double fb_us(int v, int m)
{
    return 3.0 * v * J * OP_US / m;
}

static void check_step(enum pipeline_schedule s, int m)
{
    struct pipeline_opts o = {s, 1};
    struct run r = sim(1, m, &o);
    double want = (m + K - 1) * fb_us(1, m), err = (r.step_us - want) / want;

    cr_log_info("%s M=%d: step %lld us, (M + K - 1)(f + b) = %.0f us, %+.2f %%",
                pipeline_schedule_name(s), m, (long long)r.step_us, want, 100 * err);
    cr_expect(fabs(err) <= 0.02, "%s M=%d: step %lld us, want %.0f (%+.2f %%)",
              pipeline_schedule_name(s), m, (long long)r.step_us, want, 100 * err);
}

Test(pipeline_sched, gpipe_and_1f1b_step)
{
    for (int m = 1; m <= 16; m *= 2) {
        check_step(PIPELINE_GPIPE, m);
        check_step(PIPELINE_1F1B, m);
    }
}

Test(pipeline_sched, interleaved_bubble)
{
    const int v = 2, m = 8;
    struct pipeline_opts o = {PIPELINE_INTERLEAVED, v};
    struct pipeline_opts flat = {PIPELINE_1F1B, 1};
    struct run r = sim(v, m, &o), r1 = sim(v, m, &flat);
    double fb = fb_us(v, m), bubble = r.step_us - m * fb, want = (K - 1) * fb / v;
    double err = (bubble - want) / want;

    cr_log_info("interleaved V=%d M=%d: step %lld us, bubble %.0f us, (K - 1)(f + b)/V = %.0f us, "
                "%+.2f %%; 1f1b on the same placement %lld us",
                v, m, (long long)r.step_us, bubble, want, 100 * err, (long long)r1.step_us);
    cr_expect(fabs(err) <= 0.02, "bubble %.0f us, want %.0f (%+.2f %%)", bubble, want, 100 * err);
}

/*
 * Megatron steps the optimizer after the pipeline flush: a stage's updates
 * wait for all its backward (and so for the gradient it sends to the
 * previous stage).  With updates of u each (J a device), the step is
 * (M + K - 1)(f + b) + J u, so the bubble is (K - 1)/M of M(f + b) for
 * gpipe and 1f1b and (K - 1)/(V M) interleaved.  Updates that run between
 * a stage's last backward ops delay the gradient to the stage before it,
 * one update a stage: the bubble grows by (K - 1) u.
 */
static void check_flush(enum pipeline_schedule s, int v, int m)
{
    struct pipeline_opts o = {s, v};
    struct run r = sim_upd(v, m, &o, OP_US);
    double fb = fb_us(v, m), upd = (double)v * J * OP_US;
    double bubble = r.step_us - m * fb - upd, want = (K - 1) * fb / v;
    double err = (bubble - want) / want;

    cr_log_info("%s V=%d M=%d, updates %.0f us a device: step %lld us, bubble %.3f of M(f + b), "
                "(K - 1)/(V M) = %.3f, %+.2f %%",
                pipeline_schedule_name(s), v, m, upd, (long long)r.step_us, bubble / (m * fb),
                want / (m * fb), 100 * err);
    cr_expect(fabs(err) <= 0.02, "%s V=%d M=%d: bubble %.0f us, want %.0f (%+.2f %%)",
              pipeline_schedule_name(s), v, m, bubble, want, 100 * err);
}

Test(pipeline_sched, updates_wait_for_the_flush)
{
    for (int m = 4; m <= 8; m *= 2) {
        check_flush(PIPELINE_GPIPE, 1, m);
        check_flush(PIPELINE_1F1B, 1, m);
        check_flush(PIPELINE_INTERLEAVED, 2, m);
    }
}

/* Stage s holds min(M, K - s) micro-batches' saved activations under 1f1b, M under gpipe. */
Test(pipeline_sched, saved_activations_in_flight)
{
    const int m = 8;
    struct pipeline_opts f1 = {PIPELINE_1F1B, 1}, gp = {PIPELINE_GPIPE, 1};
    struct run one = sim(1, 1, &f1), r = sim(1, m, &f1), g = sim(1, m, &gp);
    int stages[2] = {0, K - 1};

    for (int i = 0; i < 2; i++) {
        int s = stages[i];
        double whole = (double)one.saved[s];
        double want = whole * (m < K - s ? m : K - s) / m;
        double e1 = (r.saved[s] - want) / want, eg = (g.saved[s] - whole) / whole;

        cr_log_info("stage %d: saved %lld B (1f1b), %lld B (gpipe), whole batch %lld B", s,
                    (long long)r.saved[s], (long long)g.saved[s], (long long)one.saved[s]);
        cr_expect(fabs(e1) <= 0.02, "stage %d 1f1b: %lld B, want %.0f (%+.2f %%)", s,
                  (long long)r.saved[s], want, 100 * e1);
        cr_expect(fabs(eg) <= 0.02, "stage %d gpipe: %lld B, want %.0f (%+.2f %%)", s,
                  (long long)g.saved[s], whole, 100 * eg);
    }
}

Test(pipeline_sched, key_round_trip_and_errors)
{
    struct workload w;
    struct pipeline_opts o = {PIPELINE_INTERLEAVED, 3}, back;
    bool found = true;
    static const char bad[] = "format: 1\nname: b\nx-pipeline: {schedule: zigzag}\nops:\n"
                              "  - {name: a, type: Placeholder, outputs: [4]}\n";

    workload_init(&w);
    cr_assert_eq(pipeline_opts_read(&w, &back, &found), 0);
    cr_expect(!found);
    cr_expect_eq(back.schedule, PIPELINE_1F1B, "the default is 1f1b");
    cr_expect_eq(back.virtual_stages, 1);
    cr_assert_eq(pipeline_opts_write(&w, &o), 0);
    cr_assert_eq(pipeline_opts_read(&w, &back, &found), 0, "%s", err_msg());
    cr_expect(found);
    cr_expect_eq(back.schedule, PIPELINE_INTERLEAVED);
    cr_expect_eq(back.virtual_stages, 3);
    workload_release(&w);

    err_set_quiet(1);
    cr_assert_eq(workload_read_yaml_string(&w, bad, strlen(bad), "b.yaml"), 0, "%s", err_msg());
    cr_expect_eq(pipeline_opts_read(&w, &back, NULL), BAECHI_EPARSE);
    cr_expect(strstr(err_msg(), "b.yaml") && strstr(err_msg(), "x-pipeline.schedule"), "%s",
              err_msg());
    workload_release(&w);
}
