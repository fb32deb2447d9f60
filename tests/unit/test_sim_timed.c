/*
 * test_sim_timed.c - the time-accurate model (sim.h SIM_MODEL_TIMED) on
 * hand-checked graphs, and both models on seeded random DAGs.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include <criterion/criterion.h>

#include "core/err.h"
#include "sim/sim.h"
#include "tests/unit/simtest.h"

#include <math.h>

/* 100 B -> 7 µs, 20 B -> 4 µs, 1000 B -> 41 µs */
#define SLOPE     0.0375
#define INTERCEPT 3.25

struct fx {
    struct graph g;
    struct cluster c;
    struct sim_result r;
};

static void run(struct fx *f, const struct simtest_op *ops, int n, int32_t n_dev, int64_t mem,
                enum sim_model model, enum channel_model ch)
{
    struct sim_options opt = {.model = model, .trace = NULL};

    cr_assert_eq(simtest_graph(&f->g, ops, n), 0, "graph: %s", err_msg());
    cr_assert_eq(simtest_cluster(&f->c, n_dev, mem, SLOPE, INTERCEPT, ch), 0, "%s", err_msg());
    cr_assert_eq(sim_run(&f->g, &f->c, f->g.given_device, &opt, &f->r), 0, "sim: %s", err_msg());
    cr_assert_eq(sim_check(&f->g, &f->c, f->g.given_device, &f->r), 0, "check: %s", err_msg());
}

static void done(struct fx *f)
{
    sim_result_release(&f->r);
    graph_release(&f->g);
    cluster_release(&f->c);
}

static const struct simtest_op t1_ops[] = {
    {"A", 10, "100", 50, 0, 0, NULL},
    {"B", 5, "20", 0, 0, 1, "A:0"},
    {"C", 3, "", 10, 0, 0, "A:0 B:0"},
};

/* T1 in time order: the received A:0 occupies dev1 from 10 until B ends at 22. */
Test(sim_timed, receiver_holds_tensor)
{
    struct fx f;

    run(&f, t1_ops, 3, 2, 1 << 20, SIM_MODEL_TIMED, CHANNEL_SHARED);
    cr_expect_eq(f.r.model, SIM_MODEL_TIMED);
    cr_expect_eq(f.r.step_us, 29, "step %lld", (long long)f.r.step_us);
    cr_expect_eq(f.r.start_us[1], 17);
    cr_expect_eq(f.r.start_us[2], 26);
    /* dev1: A:0 (100) from 10, + B's output 20 at 17 */
    cr_expect_eq(f.r.dev[1].peak_bytes, 120, "dev1 peak %lld", (long long)f.r.dev[1].peak_bytes);
    /* dev0: A 100 + 50 at 0 */
    cr_expect_eq(f.r.dev[0].peak_bytes, 150);
    cr_expect_eq(f.r.dev[0].final_bytes, 0);
    cr_expect_eq(f.r.dev[1].final_bytes, 0);
    cr_expect_eq(f.r.link_transfers[1], 1);
    cr_expect_eq(f.r.link_transfers[2], 1);
    cr_expect_eq(f.r.link_bytes[2], 20);
    done(&f);
}

/* Two opposite transfers at t=10: serial on a shared channel, overlapped on duplex engines. */
static const struct simtest_op cross_ops[] = {
    {"A", 10, "100", 0, 0, 0, NULL},
    {"C", 10, "100", 0, 0, 1, NULL},
    {"B", 1, "", 0, 0, 1, "A:0"},
    {"D", 1, "", 0, 0, 0, "C:0"},
};

Test(sim_timed, duplex_overlaps_shared_serialises)
{
    struct fx f;

    run(&f, cross_ops, 4, 2, 1 << 20, SIM_MODEL_TIMED, CHANNEL_SHARED);
    cr_expect_eq(f.r.start_us[2], 17); /* B */
    cr_expect_eq(f.r.start_us[3], 24); /* D waits for A:0 to clear both channels */
    cr_expect_eq(f.r.step_us, 25);
    done(&f);

    run(&f, cross_ops, 4, 2, 1 << 20, SIM_MODEL_TIMED, CHANNEL_DUPLEX);
    cr_expect_eq(f.r.start_us[2], 17);
    cr_expect_eq(f.r.start_us[3], 17);
    cr_expect_eq(f.r.step_us, 18);
    done(&f);
}

/* One sender, two receivers: a duplex send engine serialises, links do not. */
static const struct simtest_op fan_ops[] = {
    {"A", 10, "100 100", 0, 0, 0, NULL},
    {"B", 1, "", 0, 0, 1, "A:0"},
    {"C", 1, "", 0, 0, 2, "A:1"},
};

Test(sim_timed, link_differs_from_duplex)
{
    struct fx f;

    run(&f, fan_ops, 3, 3, 1 << 20, SIM_MODEL_TIMED, CHANNEL_DUPLEX);
    cr_expect_eq(f.r.start_us[1], 17);
    cr_expect_eq(f.r.start_us[2], 24);
    cr_expect_eq(f.r.step_us, 25);
    done(&f);

    run(&f, fan_ops, 3, 3, 1 << 20, SIM_MODEL_TIMED, CHANNEL_LINK);
    cr_expect_eq(f.r.start_us[1], 17);
    cr_expect_eq(f.r.start_us[2], 17);
    cr_expect_eq(f.r.step_us, 18);
    cr_expect_eq(f.r.link_transfers[0 * 3 + 1], 1);
    cr_expect_eq(f.r.link_transfers[0 * 3 + 2], 1);
    done(&f);
}

/* Per-pair comm models are honoured by the timed model. */
Test(sim_timed, pair_comm_model)
{
    struct fx f;
    struct sim_options opt = {.model = SIM_MODEL_TIMED};

    cr_assert_eq(simtest_graph(&f.g, fan_ops, 3), 0);
    cr_assert_eq(simtest_cluster(&f.c, 3, 1 << 20, SLOPE, INTERCEPT, CHANNEL_LINK), 0);
    f.c.pair = calloc(9, sizeof(*f.c.pair));
    cr_assert_not_null(f.c.pair);
    for (int i = 0; i < 9; i++) {
        f.c.pair[i].slope_us_per_byte = NAN;
    }
    f.c.pair[0 * 3 + 2] = (struct comm_model){0.0, 30.0};
    cr_assert_eq(cluster_comm_us(&f.c, 0, 2, 100), 30, "pair override not read");
    cr_assert_eq(sim_run(&f.g, &f.c, f.g.given_device, &opt, &f.r), 0, "%s", err_msg());
    cr_expect_eq(f.r.start_us[1], 17);
    cr_expect_eq(f.r.start_us[2], 40);
    done(&f);
}

Test(sim_timed, oom_reported_and_run_completes)
{
    struct fx f;

    run(&f, t1_ops, 3, 2, 110, SIM_MODEL_TIMED, CHANNEL_SHARED);
    cr_expect_eq(f.r.step_us, 29);
    cr_assert_eq(f.r.n_oom, 2);
    /* dev0: A's 150 B at 0 */
    cr_expect_eq(f.r.oom[0].device, 0);
    cr_expect_eq(f.r.oom[0].op, 0);
    cr_expect_eq(f.r.oom[0].time_us, 0);
    cr_expect_eq(f.r.oom[0].over_bytes, 40);
    /* dev1: A:0 (100) held, B's 20 at 17 */
    cr_expect_eq(f.r.oom[1].device, 1);
    cr_expect_eq(f.r.oom[1].op, 1);
    cr_expect_eq(f.r.oom[1].time_us, 17);
    cr_expect_eq(f.r.oom[1].over_bytes, 10);
    cr_expect(f.r.dev[0].oom && f.r.dev[1].oom);
    done(&f);
}

Test(sim_timed, temp_only_while_running)
{
    static const struct simtest_op ops[] = {
        {"A", 5, "10", 100, 0, 0, NULL},
        {"B", 5, "", 50, 0, 0, "A:0"},
    };
    struct fx f;

    run(&f, ops, 2, 1, 1 << 20, SIM_MODEL_TIMED, CHANNEL_SHARED);
    cr_expect_eq(f.r.dev[0].peak_bytes, 110, "peak %lld", (long long)f.r.dev[0].peak_bytes);
    cr_expect_eq(f.r.dev[0].final_bytes, 0);
    done(&f);
}

/* B's persistent bytes count from time 0, while A runs; the baechi model never sees them. */
Test(sim_timed, persistent_from_time_zero)
{
    static const struct simtest_op ops[] = {
        {"A", 10, "10", 100, 0, 0, NULL},
        {"B", 5, "", 0, 50, 0, "A:0"},
    };
    struct fx f;

    run(&f, ops, 2, 1, 1 << 20, SIM_MODEL_TIMED, CHANNEL_SHARED);
    cr_expect_eq(f.r.dev[0].peak_bytes, 160);
    cr_expect_eq(f.r.dev[0].final_bytes, 50);
    done(&f);
    run(&f, ops, 2, 1, 1 << 20, SIM_MODEL_BAECHI, CHANNEL_SHARED);
    cr_expect_eq(f.r.dev[0].peak_bytes, 110);
    done(&f);
}

/*
 * Y's output is freed at 43 when its remote consumer Yc ends, before X
 * starts at 101; the baechi model allocates X's output when X is popped
 * (ready at 0) and frees Y's only when Yc is popped (ready at 42), so it
 * holds both.
 */
static const struct simtest_op order_ops[] = {
    {"Y", 1, "1000", 0, 0, 0, NULL}, {"L", 100, "", 0, 0, 0, NULL},
    {"X", 1, "1000", 0, 0, 0, NULL}, {"Yc", 1, "", 0, 0, 1, "Y:0"},
    {"S", 1, "", 0, 0, 0, "^L X:0"},
};

Test(sim_timed, outputs_freed_at_last_consumer_end)
{
    struct fx f;

    run(&f, order_ops, 5, 2, 1 << 20, SIM_MODEL_TIMED, CHANNEL_SHARED);
    cr_expect_eq(f.r.start_us[2], 101);
    cr_expect_eq(f.r.end_us[3], 43);
    cr_expect_eq(f.r.dev[0].peak_bytes, 1000, "timed peak %lld", (long long)f.r.dev[0].peak_bytes);
    cr_expect_eq(f.r.dev[1].peak_bytes, 1000);
    cr_expect_eq(f.r.step_us, 103);
    done(&f);

    run(&f, order_ops, 5, 2, 1 << 20, SIM_MODEL_BAECHI, CHANNEL_SHARED);
    cr_expect_eq(f.r.dev[0].peak_bytes, 2000, "baechi peak %lld", (long long)f.r.dev[0].peak_bytes);
    cr_expect_eq(f.r.dev[1].peak_bytes, 0);
    cr_expect_eq(f.r.step_us, 103);
    done(&f);
}

/* A tensor read by two ops on one remote device crosses once and is held until both end. */
Test(sim_timed, received_once_freed_after_last_local_consumer)
{
    static const struct simtest_op ops[] = {
        {"A", 10, "100", 0, 0, 0, NULL},
        {"B", 5, "", 0, 0, 1, "A:0"},
        {"C", 5, "", 7, 0, 1, "A:0"},
    };
    struct fx f;

    run(&f, ops, 3, 2, 1 << 20, SIM_MODEL_TIMED, CHANNEL_DUPLEX);
    cr_expect_eq(f.r.link_transfers[1], 1);
    cr_expect_eq(f.r.start_us[1], 17);
    cr_expect_eq(f.r.start_us[2], 22);
    /* C's temp on top of the still-held 100 B */
    cr_expect_eq(f.r.dev[1].peak_bytes, 107);
    cr_expect_eq(f.r.dev[1].final_bytes, 0);
    cr_expect_eq(f.r.dev[0].final_bytes, 0);
    done(&f);
}

/* On one device the two models schedule identically (no transfers). */
Test(sim_timed, single_device_matches_baechi)
{
    for (uint64_t seed = 1; seed <= 5; seed++) {
        struct graph g;
        struct cluster c;
        struct sim_result a, b;
        struct sim_options ot = {.model = SIM_MODEL_TIMED}, ob = {.model = SIM_MODEL_BAECHI};
        int32_t *dev;

        cr_assert_eq(simtest_random_graph(&g, 300, 1, seed), 0, "%s", err_msg());
        cr_assert_eq(simtest_cluster(&c, 1, 1 << 30, SLOPE, INTERCEPT, CHANNEL_DUPLEX), 0);
        dev = calloc((size_t)g.n_ops, sizeof(*dev));
        cr_assert_not_null(dev);
        cr_assert_eq(sim_run(&g, &c, dev, &ot, &a), 0);
        cr_assert_eq(sim_run(&g, &c, dev, &ob, &b), 0);
        cr_expect_eq(a.step_us, b.step_us, "seed %llu: %lld vs %lld", (unsigned long long)seed,
                     (long long)a.step_us, (long long)b.step_us);
        for (int32_t v = 0; v < g.n_ops; v++) {
            cr_expect_eq(a.start_us[v], b.start_us[v], "seed %llu op %d", (unsigned long long)seed,
                         v);
        }
        free(dev);
        sim_result_release(&a);
        sim_result_release(&b);
        graph_release(&g);
        cluster_release(&c);
    }
}

/* Random DAGs, both models, every channel model: the checker passes. */
Test(sim_timed, random_dags_check)
{
    enum channel_model ms[] = {CHANNEL_SHARED, CHANNEL_DUPLEX, CHANNEL_LINK};

    for (uint64_t seed = 1; seed <= 8; seed++) {
        struct graph g;
        struct cluster c;
        int32_t nd = 1 + (int32_t)(seed % 4);

        cr_assert_eq(simtest_random_graph(&g, 400, nd, seed), 0, "%s", err_msg());
        for (int m = 0; m < 3; m++) {
            for (int model = 0; model < 2; model++) {
                struct sim_options opt = {.model = (enum sim_model)model};
                struct sim_result r;

                cr_assert_eq(simtest_cluster(&c, nd, 200000, SLOPE, INTERCEPT, ms[m]), 0);
                cr_assert_eq(sim_run(&g, &c, g.given_device, &opt, &r), 0, "%s", err_msg());
                cr_expect_eq(sim_check(&g, &c, g.given_device, &r), 0, "seed %llu %s/%s: %s",
                             (unsigned long long)seed, sim_model_name(opt.model),
                             cluster_channel_name(ms[m]), err_msg());
                cr_expect_geq(r.step_us, r.lower_bound_us);
                sim_result_release(&r);
                cluster_release(&c);
            }
        }
        graph_release(&g);
    }
}

/* The checker itself fails on broken results. */
Test(sim_timed, check_detects_inconsistency)
{
    struct fx f;

    run(&f, t1_ops, 3, 2, 1 << 20, SIM_MODEL_TIMED, CHANNEL_SHARED);
    f.r.start_us[2] = 5; /* C overlaps A on gpu0 and starts before its inputs */
    f.r.end_us[2] = 8;
    f.r.step_us = 22;
    cr_expect_eq(sim_check(&f.g, &f.c, f.g.given_device, &f.r), BAECHI_EINVAL);
    f.r.start_us[2] = 26;
    f.r.end_us[2] = 30; /* not start + compute */
    f.r.step_us = 30;
    cr_expect_eq(sim_check(&f.g, &f.c, f.g.given_device, &f.r), BAECHI_EINVAL);
    cr_expect(strstr(err_msg(), "'C'") != NULL, "%s", err_msg());
    done(&f);
}
