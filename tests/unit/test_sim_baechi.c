/*
 * test_sim_baechi.c - the original virtual scheduler (baechi-spec §5,
 * §13 T1) on hand-checked graphs.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include <criterion/criterion.h>

#include "core/err.h"
#include "sim/sim.h"
#include "tests/unit/simtest.h"

/* slope 0.0375 µs/B, intercept 3.25 µs: 100 B -> 7 µs, 20 B -> 4 µs, 4 B -> 3 µs */
#define T1_SLOPE     0.0375
#define T1_INTERCEPT 3.25

static const struct simtest_op t1_ops[] = {
    {"A", 10, "100", 50, 0, 0, NULL},
    {"B", 5, "20", 0, 0, 1, "A:0"},
    {"C", 3, "", 10, 0, 0, "A:0 B:0"},
};

static void run(const struct simtest_op *ops, int n, int32_t n_dev, int64_t mem,
                enum sim_model model, enum channel_model ch, struct graph *g, struct cluster *c,
                struct sim_result *r)
{
    struct sim_options opt = {.model = model, .trace = NULL};

    cr_assert_eq(simtest_graph(g, ops, n), 0, "graph: %s", err_msg());
    cr_assert_eq(simtest_cluster(c, n_dev, mem, T1_SLOPE, T1_INTERCEPT, ch), 0, "%s", err_msg());
    cr_assert_eq(sim_run(g, c, g->given_device, &opt, r), 0, "sim: %s", err_msg());
    cr_assert_eq(sim_check(g, c, g->given_device, r), 0, "check: %s", err_msg());
}

Test(sim_baechi, t1_spec_vector)
{
    struct graph g;
    struct cluster c;
    struct sim_result r;

    run(t1_ops, 3, 2, 1 << 20, SIM_MODEL_BAECHI, CHANNEL_DUPLEX, &g, &c, &r);
    cr_assert_eq(cluster_comm_default_us(&c, 100), 7);
    cr_assert_eq(cluster_comm_default_us(&c, 20), 4);
    cr_expect_eq(r.model, SIM_MODEL_BAECHI);
    cr_expect_eq(r.step_us, 29, "makespan %lld", (long long)r.step_us);
    cr_expect_eq(r.start_us[0], 0);
    cr_expect_eq(r.end_us[0], 10);
    cr_expect_eq(r.start_us[1], 17);
    cr_expect_eq(r.end_us[1], 22);
    cr_expect_eq(r.start_us[2], 26);
    cr_expect_eq(r.end_us[2], 29);
    cr_expect_eq(r.dev[0].peak_bytes, 150);
    cr_expect_eq(r.dev[1].peak_bytes, 20);
    cr_expect_eq(r.dev[0].final_bytes, 0);
    cr_expect_eq(r.dev[1].final_bytes, 0);
    cr_expect_eq(r.dev[0].n_ops, 2);
    cr_expect_eq(r.dev[1].n_ops, 1);
    cr_expect_eq(r.dev[0].busy_us, 13);
    cr_expect_eq(r.dev[1].busy_us, 5);
    cr_expect_eq(r.link_bytes[0 * 2 + 1], 100);
    cr_expect_eq(r.link_bytes[1 * 2 + 0], 20);
    cr_expect_eq(r.link_transfers[0 * 2 + 1], 1);
    cr_expect_eq(r.link_transfers[1 * 2 + 0], 1);
    cr_expect_eq(r.total_compute_us, 18);
    cr_expect_eq(r.critical_path_us, 18);
    cr_expect_eq(r.lower_bound_us, 18);
    cr_expect_eq(r.n_oom, 0);
    cr_expect(!r.dev[0].oom && !r.dev[1].oom);
    sim_result_release(&r);
    graph_release(&g);
    cluster_release(&c);
}

/* The baechi model ignores the cluster's channel model: T1 is the same on all. */
Test(sim_baechi, channel_model_ignored)
{
    enum channel_model ms[] = {CHANNEL_SHARED, CHANNEL_DUPLEX, CHANNEL_LINK};

    for (int i = 0; i < 3; i++) {
        struct graph g;
        struct cluster c;
        struct sim_result r;

        run(t1_ops, 3, 2, 1 << 20, SIM_MODEL_BAECHI, ms[i], &g, &c, &r);
        cr_expect_eq(r.step_us, 29);
        sim_result_release(&r);
        graph_release(&g);
        cluster_release(&c);
    }
}

/* A control edge across devices is a 4-byte tensor: comm rint(3.4) = 3 µs. */
Test(sim_baechi, control_edge)
{
    static const struct simtest_op ops[] = {
        {"A", 10, "100", 0, 0, 0, NULL},
        {"B", 5, "", 0, 0, 1, "^A"},
    };
    struct graph g;
    struct cluster c;
    struct sim_result r;

    run(ops, 2, 2, 1 << 20, SIM_MODEL_BAECHI, CHANNEL_SHARED, &g, &c, &r);
    cr_expect_eq(r.start_us[1], 13, "B starts at %lld", (long long)r.start_us[1]);
    cr_expect_eq(r.step_us, 18);
    cr_expect_eq(r.link_bytes[1], GRAPH_CONTROL_BYTES);
    cr_expect_eq(r.link_transfers[1], 1);
    /* A's output is freed when B (its last consumer) is popped */
    cr_expect_eq(r.dev[0].final_bytes, 0);
    cr_expect_eq(r.dev[0].peak_bytes, 100);
    sim_result_release(&r);
    graph_release(&g);
    cluster_release(&c);
}

/* One tensor read by two ops on the same remote device crosses once. */
Test(sim_baechi, tensor_sent_once_per_device)
{
    static const struct simtest_op ops[] = {
        {"A", 10, "100", 0, 0, 0, NULL},
        {"B", 5, "", 0, 0, 1, "A:0"},
        {"C", 5, "", 0, 0, 1, "A:0"},
    };
    struct graph g;
    struct cluster c;
    struct sim_result r;

    run(ops, 3, 2, 1 << 20, SIM_MODEL_BAECHI, CHANNEL_SHARED, &g, &c, &r);
    cr_expect_eq(r.link_transfers[1], 1, "%lld transfers", (long long)r.link_transfers[1]);
    cr_expect_eq(r.link_bytes[1], 100);
    /* both ready at 17; sent twice, C would be ready at 24 */
    cr_expect_eq(r.start_us[1], 17);
    cr_expect_eq(r.start_us[2], 22);
    cr_expect_eq(r.step_us, 27);
    sim_result_release(&r);
    graph_release(&g);
    cluster_release(&c);
}

/* Sends and receives share one channel per device, FCFS in commit order. */
Test(sim_baechi, shared_channel_serialises)
{
    static const struct simtest_op ops[] = {
        {"A", 10, "100 100", 0, 0, 0, NULL},
        {"B", 1, "", 0, 0, 1, "A:0 A:1"},
    };
    struct graph g;
    struct cluster c;
    struct sim_result r;

    run(ops, 2, 2, 1 << 20, SIM_MODEL_BAECHI, CHANNEL_LINK, &g, &c, &r);
    /* A:0 10-17, A:1 17-24 on the same channel */
    cr_expect_eq(r.start_us[1], 24);
    cr_expect_eq(r.link_transfers[1], 2);
    cr_expect_eq(r.link_bytes[1], 200);
    sim_result_release(&r);
    graph_release(&g);
    cluster_release(&c);
}

/* Persistent bytes stay after the outputs are freed; sinks keep their outputs. */
Test(sim_baechi, persistent_and_sink_residual)
{
    static const struct simtest_op ops[] = {
        {"V", 2, "64", 0, 64, 0, NULL},
        {"M", 3, "40", 8, 0, 0, "V:0"},
        {"S", 1, "30", 0, 0, 0, "M:0"},
    };
    struct graph g;
    struct cluster c;
    struct sim_result r;

    run(ops, 3, 1, 1 << 20, SIM_MODEL_BAECHI, CHANNEL_SHARED, &g, &c, &r);
    /* V 64; M +40 +8 = 112 peak; M pop frees V: += 64 - 64; S +30 = 134; S frees M: -40 */
    cr_expect_eq(r.dev[0].peak_bytes, 134, "peak %lld", (long long)r.dev[0].peak_bytes);
    cr_expect_eq(r.dev[0].final_bytes, 64 + 30);
    sim_result_release(&r);
    graph_release(&g);
    cluster_release(&c);
}

/* Out of memory is a result: the first over-limit allocation per device. */
Test(sim_baechi, oom_is_a_result)
{
    struct graph g;
    struct cluster c;
    struct sim_result r;

    run(t1_ops, 3, 2, 120, SIM_MODEL_BAECHI, CHANNEL_SHARED, &g, &c, &r);
    cr_expect_eq(r.step_us, 29);
    cr_assert_eq(r.n_oom, 1);
    cr_expect_eq(r.oom[0].device, 0);
    cr_expect_eq(r.oom[0].op, 0);
    cr_expect_eq(r.oom[0].time_us, 0);
    cr_expect_eq(r.oom[0].over_bytes, 30);
    cr_expect(r.dev[0].oom);
    cr_expect(!r.dev[1].oom);
    sim_result_release(&r);
    graph_release(&g);
    cluster_release(&c);
}

Test(sim_baechi, bad_placement_rejected)
{
    struct graph g;
    struct cluster c;
    struct sim_result r;
    struct sim_options opt = {.model = SIM_MODEL_BAECHI};
    int32_t dev[3] = {0, 2, 0};

    cr_assert_eq(simtest_graph(&g, t1_ops, 3), 0);
    cr_assert_eq(simtest_cluster(&c, 2, 1000, T1_SLOPE, T1_INTERCEPT, CHANNEL_SHARED), 0);
    cr_expect_eq(sim_run(&g, &c, dev, &opt, &r), BAECHI_EINVAL);
    cr_expect(strstr(err_msg(), "'B'") != NULL, "message: %s", err_msg());
    cr_expect_null(r.start_us);
    sim_result_release(&r);
    graph_release(&g);
    cluster_release(&c);
}

Test(sim_baechi, model_names)
{
    enum sim_model m = SIM_MODEL_TIMED;

    cr_expect_eq(sim_model_parse("baechi", &m), 0);
    cr_expect_eq(m, SIM_MODEL_BAECHI);
    cr_expect_eq(sim_model_parse("timed", &m), 0);
    cr_expect_eq(m, SIM_MODEL_TIMED);
    cr_expect_eq(sim_model_parse("fast", &m), BAECHI_EINVAL);
    cr_expect_str_eq(sim_model_name(SIM_MODEL_BAECHI), "baechi");
    cr_expect_str_eq(sim_model_name(SIM_MODEL_TIMED), "timed");
}
