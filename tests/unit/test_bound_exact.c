/*
 * test_bound_exact.c - the certified lower bound (placers/bound.h) against
 * the optimum over every placement and every schedule (exact_sched.h), not
 * only the timed simulator's list schedule per placement: thousands of
 * random small graphs, fixed seed, and hand-made cases of the scheduler.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include <criterion/criterion.h>

#include "core/err.h"
#include "core/workload_yaml.h"
#include "placers/bound.h"
#include "sim/sim.h"
#include "sim/trace.h"
#include "tests/unit/bound_cases.h"
#include "tests/unit/exact_sched.h"
#include "tests/unit/simtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Cases of the exhaustive check; fewer under the sanitizers (the slowest
 * job of `make check`), any number through EXACT_CASES (and another seed
 * through EXACT_SEED, a nonzero number). */
#ifdef BOUND_CASES_SANITIZED
#define EXACT_CASES_DEFAULT 150
#else
#define EXACT_CASES_DEFAULT 3000
#endif

static const struct exact_options strict_opts = {.memory = true, .received_bytes = true};

/* exact_sched_min, and the schedule it found checked (exact_sched_check). */
static void search_checked(const struct graph *g, const struct cluster *c, const int32_t *dev,
                           const struct exact_options *o, int64_t below_us, struct exact_result *r)
{
    cr_assert_eq(exact_sched_min(g, c, dev, o, below_us, r), 0, "%s", err_msg());
    if (r->best_us >= 0) {
        cr_assert_eq(exact_sched_check(g, c, dev, o, r), 0, "schedule of %lld µs: %s",
                     (long long)r->best_us, err_msg());
    }
}

/* The smallest makespan of any schedule of g placed by dev (-1: none fits). */
static int64_t exact_opt(const struct graph *g, const struct cluster *c, const int32_t *dev,
                         const struct exact_options *o)
{
    struct exact_result r;

    search_checked(g, c, dev, o, INT64_MAX, &r);
    return r.best_us;
}

/* The timed simulator's step of g placed by dev (-1: it ran out of memory),
 * its schedule into *sched when not NULL. */
static int64_t list_step(const struct graph *g, const struct cluster *c, const int32_t *dev,
                         struct exact_result *sched)
{
    struct trace t;
    struct sim_options so = {.model = SIM_MODEL_TIMED, .trace = sched ? &t : NULL};
    struct sim_result r;
    int64_t step;

    trace_init(&t, c->channel);
    cr_assert_eq(sim_run(g, c, dev, &so, &r), 0, "%s", err_msg());
    step = r.n_oom == 0 ? r.step_us : -1;
    if (sched) {
        sched->best_us = r.step_us;
        for (int32_t v = 0; v < g->n_ops; v++) {
            sched->op_start_us[v] = r.start_us[v];
        }
        cr_assert_leq(t.n_transfer, EXACT_MAX_ACTS);
        sched->n_xfers = (int32_t)t.n_transfer;
        for (size_t k = 0; k < t.n_transfer; k++) {
            sched->xfer[k] = (struct exact_xfer){.tensor = t.transfer[k].tensor,
                                                 .dst = t.transfer[k].dst,
                                                 .start_us = t.transfer[k].start_us};
        }
    }
    trace_release(&t);
    sim_result_release(&r);
    return step;
}

/* A -> B (1000 B) -> C and A -> D: on two devices, B and D on device 1. */
static const struct simtest_op fork_ops[] = {
    {"A", 10, "1000 1000", 0, 0, 0, NULL},
    {"B", 10, "1000", 0, 0, 1, "A:0"},
    {"C", 10, "", 0, 0, 1, "B:0"},
    {"D", 30, "", 0, 0, 0, "A:1"},
};

/* 1000 B -> 100 µs on a link */
#define SLOPE 0.1

Test(bound_exact, hand_checked_schedules)
{
    struct graph g;
    struct cluster c;
    int32_t dev[] = {0, 1, 1, 0};

    cr_assert_eq(simtest_graph(&g, fork_ops, 4), 0, "%s", err_msg());
    cr_assert_eq(simtest_cluster(&c, 2, 0, SLOPE, 0, CHANNEL_LINK), 0);
    /* A 0-10, A:0 crosses 10-110, B 110-120, C 120-130; D 10-40 */
    cr_expect_eq(exact_opt(&g, &c, dev, &strict_opts), 130);
    cr_expect_eq(list_step(&g, &c, dev, NULL), 130);
    /* all on device 0: 60 µs of compute in a row */
    dev[1] = dev[2] = 0;
    cr_expect_eq(exact_opt(&g, &c, dev, &strict_opts), 60);
    cluster_release(&c);
    graph_release(&g);
}

/* A feeds B and C on device 1, C feeds D on device 0 (5 µs per transfer). */
static const struct simtest_op critical_ops[] = {
    {"A", 1, "100 100", 0, 0, 1, NULL},
    {"B", 17, "", 0, 0, 1, "A:0"},
    {"C", 16, "100", 0, 0, 1, "A:1"},
    {"D", 19, "", 0, 0, 0, "C:0"},
};

/* B and C are ready at once: the list schedule takes B (the smaller
 * topological index) and D waits for C: 1 + 17 + 16 + 5 + 19 = 58.  C
 * first lets D run beside B: 1 + 16 + 5 + 19 = 41 (a random case of the
 * test below, made smaller). */
Test(bound_exact, list_order_misses_the_critical_path)
{
    struct graph g;
    struct cluster c;
    int32_t dev[] = {1, 1, 1, 0};

    cr_assert_eq(simtest_graph(&g, critical_ops, 4), 0, "%s", err_msg());
    cr_assert_eq(simtest_cluster(&c, 2, 0, 0.0, 5.0, CHANNEL_LINK), 0);
    cr_expect_eq(list_step(&g, &c, dev, NULL), 58);
    cr_expect_eq(exact_opt(&g, &c, dev, &strict_opts), 41);
    cluster_release(&c);
    graph_release(&g);
}

/*
 * Memory decides the order: A feeds B and C on its device; B's output
 * (1000 B) lives until D ends, C's (1000 B) until E ends.  With 2,500 B
 * the device cannot hold both outputs and A's 600, so one branch must end
 * before the other starts.  The simulator's order (B, C by topological
 * index, ready at once) runs out of memory; the exact search finds B, D,
 * C, E.
 */
static const struct simtest_op mem_ops[] = {
    {"A", 10, "600", 0, 0, 0, NULL},   {"B", 10, "1000", 0, 0, 0, "A:0"},
    {"C", 10, "1000", 0, 0, 0, "A:0"}, {"D", 10, "", 0, 0, 0, "B:0"},
    {"E", 10, "", 0, 0, 0, "C:0"},
};

Test(bound_exact, memory_orders_the_schedule)
{
    struct graph g;
    struct cluster c;
    int32_t dev[] = {0, 0, 0, 0, 0};
    struct exact_options loose = strict_opts;

    cr_assert_eq(simtest_graph(&g, mem_ops, 5), 0, "%s", err_msg());
    cr_assert_eq(simtest_cluster(&c, 1, 2500, SLOPE, 0, CHANNEL_LINK), 0);
    cr_expect_eq(list_step(&g, &c, dev, NULL), -1, "the list schedule fits?");
    cr_expect_eq(exact_opt(&g, &c, dev, &strict_opts), 50);
    /* 1,500 B: after A (600 held by B and C) no output of 1,000 fits */
    c.dev[0].mem_bytes = 1500;
    cr_expect_eq(exact_opt(&g, &c, dev, &strict_opts), -1);
    loose.memory = false;
    cr_expect_eq(exact_opt(&g, &c, dev, &loose), 50);
    cluster_release(&c);
    graph_release(&g);
}

/* A random case (bound_cases.h), asserted. */
static void draw_case(int k, uint64_t *s, int max_ops2, int max_ops3, struct graph *g,
                      struct cluster *c)
{
    cr_assert_eq(bound_case_draw(k, s, max_ops2, max_ops3, g, c), 0, "%s", err_msg());
}

/* The next placement (odometer); false after the last. */
static bool next_placement(int32_t *dev, int32_t n, int32_t nd)
{
    int32_t i = 0;

    while (i < n && ++dev[i] == nd) {
        dev[i++] = 0;
    }
    return i < n;
}

/* With identical devices a placement and its renumberings are the same
 * problem: only the one whose devices appear in order 0, 1, 2 counts. */
static bool canonical(const int32_t *dev, int32_t n, bool symmetric)
{
    int32_t seen = 0;

    for (int32_t v = 0; v < n && symmetric; v++) {
        if (dev[v] > seen) {
            return false;
        }
        seen += dev[v] == seen;
    }
    return true;
}

struct exact_counts {
    int cases, placements, feasible, list_fits, list_beaten, list_missed, violations, cross_fails,
        bound_tight, memory_wins, lp_wins, training_memory_wins;
    int64_t margin_us;
    int64_t nodes[3]; /* search nodes: list schedules found, optimum, bound */
    double margin_rel, ratio_sum;
};

/* An upper bound on any makespan the search finds (it never leaves every
 * resource idle): every op's compute at speed 1, every tensor sent to
 * every other device. */
static int64_t makespan_cap(const struct graph *g, const struct cluster *c)
{
    int64_t cap = 1;

    for (int32_t v = 0; v < g->n_ops; v++) {
        cap += g->weight_us[v];
    }
    for (int32_t t = 0; t < g->n_tensors; t++) {
        cap += cluster_comm_us(c, 0, 1, g->tensor_bytes[t]) * (c->n_devices - 1);
    }
    return cap;
}

/* The smallest list step over the placements, each cross-checked: the
 * search finds a schedule as short (the list schedule is one of those it
 * searches); -1 when every placement runs out of memory. */
static int64_t best_list_step(int k, const struct graph *g, const struct cluster *c, bool symmetric,
                              struct exact_counts *n)
{
    int32_t dev[EXACT_MAX_OPS] = {0};
    int64_t best = -1;

    do {
        struct exact_result r, sim;
        struct exact_options first = {
            .memory = true, .received_bytes = true, .first = true, .hint = &sim};
        int64_t step;

        if (!canonical(dev, g->n_ops, symmetric) || (step = list_step(g, c, dev, &sim)) < 0) {
            continue;
        }
        /* the simulator's schedule obeys the rules as the checker reads them */
        cr_assert_eq(exact_sched_check(g, c, dev, &strict_opts, &sim), 0,
                     "case %d: the list schedule: %s", k, err_msg());
        search_checked(g, c, dev, &first, step + 1, &r);
        n->nodes[0] += r.nodes;
        if (r.best_us < 0) {
            n->cross_fails++;
            cr_log_error("case %d: no schedule found as short as the list schedule's %lld µs", k,
                         (long long)step);
        }
        best = best < 0 || step < best ? step : best;
    } while (next_placement(dev, g->n_ops, c->n_devices));
    return best;
}

/* One case: the list schedules, the exact optimum, the bound's check. */
static void check_case(int k, const struct graph *g, const struct cluster *c,
                       const struct exact_options *relaxed, struct exact_counts *n)
{
    int32_t nd = c->n_devices, dev[EXACT_MAX_OPS] = {0};
    bool symmetric = c->dev[0].speed == c->dev[nd - 1].speed;
    int64_t best_list, opt = -1, below;
    struct bound_result b;

    cr_assert_eq(bound_compute(g, c, NULL, &b), 0, "%s", err_msg());
    best_list = best_list_step(k, g, c, symmetric, n);
    below = best_list >= 0 ? best_list + 1 : makespan_cap(g, c);
    do {
        struct exact_result r;

        if (!canonical(dev, g->n_ops, symmetric)) {
            continue;
        }
        n->placements++;
        /* the optimum: below the best so far */
        search_checked(g, c, dev, &strict_opts, below, &r);
        n->nodes[1] += r.nodes;
        if (r.best_us >= 0) {
            opt = r.best_us;
            below = opt;
        }
        /* the bound: no schedule under R1-R3 below it */
        cr_assert_eq(exact_sched_min(g, c, dev, relaxed, b.lower_bound_us, &r), 0, "%s", err_msg());
        n->nodes[2] += r.nodes;
        if (r.best_us >= 0) {
            n->violations++;
            cr_log_error("case %d (%d ops, %d devices, %s, mem %lld): a schedule of %lld µs, "
                         "bound %lld (simple %lld, memory %lld, lp %lld)",
                         k, g->n_ops, nd, cluster_channel_name(c->channel),
                         (long long)c->dev[0].mem_bytes, (long long)r.best_us,
                         (long long)b.lower_bound_us, (long long)b.simple_us,
                         (long long)b.memory_us, (long long)b.lp_us);
        }
    } while (next_placement(dev, g->n_ops, nd));
    n->cases++;
    cr_assert(best_list < 0 || (opt >= 0 && opt <= best_list), "case %d: optimum %lld, list %lld",
              k, (long long)opt, (long long)best_list);
    if (opt < 0) {
        return;
    }
    n->feasible++;
    n->bound_tight += b.lower_bound_us == opt;
    n->memory_wins += b.memory_us > b.simple_us;
    n->training_memory_wins += k % 4 == BOUND_CASE_TRAINING && b.memory_us > b.simple_us;
    n->lp_wins += b.lp_us > b.simple_us && b.lp_us > b.memory_us;
    n->ratio_sum += (double)opt / (double)(b.lower_bound_us > 0 ? b.lower_bound_us : 1);
    if (best_list < 0) {
        n->list_missed++; /* fits only by a better order */
        return;
    }
    n->list_fits++;
    if (opt < best_list) {
        n->list_beaten++;
        if (best_list - opt > n->margin_us) {
            n->margin_us = best_list - opt;
        }
        if ((double)(best_list - opt) / (double)best_list > n->margin_rel) {
            n->margin_rel = (double)(best_list - opt) / (double)best_list;
        }
    }
}

/*
 * Thousands of random cases (fixed seed), every placement and every
 * schedule: the bound never exceeds the optimum of the rules it states
 * (R1-R3: received copies take no bytes, the weaker reading, so the
 * stronger check), the search finds every list schedule's step or better,
 * and the counts say how often the list schedule missed the optimum.
 */
/* No .timeout (test_bound.c: the runner leaks its timer under LeakSanitizer). */
Test(bound_exact, never_above_the_optimum_of_every_schedule)
{
    static const struct exact_options relaxed = {.memory = true, .first = true};
    const char *env = getenv("EXACT_CASES"), *seed = getenv("EXACT_SEED");
    int n_cases = env ? atoi(env) : EXACT_CASES_DEFAULT;
    struct exact_counts n = {0};
    uint64_t s = seed ? strtoull(seed, NULL, 10) : 20261203;
    clock_t t0 = clock();

    for (int k = 0; k < n_cases; k++) {
        struct graph g;
        struct cluster c;

        draw_case(k, &s, 10, 7, &g, &c);
        check_case(k, &g, &c, &relaxed, &n);
        cluster_release(&c);
        graph_release(&g);
    }
    cr_log_info("bound_exact: %d cases (%d placements), %d feasible (%d by the list schedule, "
                "%d only by a better order), the optimum below the best list step in %d (by up "
                "to %lld µs, up to %.1f %%), bound = optimum in %d, mean optimum / bound %.3f, "
                "memory bound above simple in %d (%d training-shaped), LP above both in %d; search "
                "nodes: %lld finding "
                "the list schedules, %lld the optima, %lld the bound; "
                "%.2f s CPU",
                n.cases, n.placements, n.feasible, n.list_fits, n.list_missed, n.list_beaten,
                (long long)n.margin_us, 100.0 * n.margin_rel, n.bound_tight,
                n.feasible ? n.ratio_sum / n.feasible : 0.0, n.memory_wins, n.training_memory_wins,
                n.lp_wins, (long long)n.nodes[0], (long long)n.nodes[1], (long long)n.nodes[2],
                (double)(clock() - t0) / CLOCKS_PER_SEC);
    cr_expect_eq(n.violations, 0, "%d placements have a schedule below the bound", n.violations);
    cr_expect_eq(n.cross_fails, 0, "%d list schedules not found", n.cross_fails);
    cr_expect_gt(n.feasible, n_cases / 3, "only %d of %d cases feasible", n.feasible, n_cases);
    /* the bound's memory and LP parts were checked where they bind, and
     * the search does go beyond the list schedule */
    cr_expect_gt(n.memory_wins, 0, "the memory bound never bound");
    cr_expect_gt(n.training_memory_wins, 0, "the memory bound never bound a training-shaped case");
    cr_expect_gt(n.lp_wins, 0, "the LP never bound");
    cr_expect_gt(n.list_beaten, 0, "the list schedule was always optimal");
}

/*
 * The dominance rule (exact_sched.h) keeps an optimum: on smaller random
 * cases (<= 7 ops on 2 devices, <= 5 on 3), every placement's optimum is
 * the same with and without it, under both memory readings.
 */
Test(bound_exact, dominance_keeps_the_optimum)
{
    uint64_t s = 7771;
    int64_t nodes[2] = {0, 0};
    int placements = 0, differ = 0;

    for (int k = 0; k < EXACT_CASES_DEFAULT / 10; k++) {
        struct graph g;
        struct cluster c;
        int32_t dev[EXACT_MAX_OPS] = {0};

        draw_case(k, &s, 7, 5, &g, &c);
        do {
            struct exact_options o[2] = {strict_opts, strict_opts};
            struct exact_result r[2];
            int64_t cap = makespan_cap(&g, &c);

            o[1].no_dominance = true;
            if (k % 2) {
                o[0].received_bytes = o[1].received_bytes = false;
            }
            for (int i = 0; i < 2; i++) {
                search_checked(&g, &c, dev, &o[i], cap, &r[i]);
                nodes[i] += r[i].nodes;
            }
            placements++;
            if (r[0].best_us != r[1].best_us) {
                differ++;
                cr_log_error("case %d: optimum %lld with the dominance rule, %lld without", k,
                             (long long)r[0].best_us, (long long)r[1].best_us);
            }
        } while (next_placement(dev, g.n_ops, c.n_devices));
        cluster_release(&c);
        graph_release(&g);
    }
    cr_log_info("dominance: %d placements, %lld search nodes with the rule, %lld without",
                placements, (long long)nodes[0], (long long)nodes[1]);
    cr_expect_eq(differ, 0, "%d placements differ", differ);
}

/*
 * A training step in miniature (bound.h "cut volumes"): forward F1 F2, the
 * loss L, backward B2 B1, each B_i reading F_i's activation (50 B, 50 µs on
 * the link) and the gradient (4 B).  The four 500 B weights need two 1,100 B
 * devices.  The cheapest cut the windows force is the loss's (4 µs: bound
 * 54 before), but one cut there also sends both activations and the loss
 * on one link (104 µs, after F1, before B1: a step of 124), and every set
 * whose transfers beside its cuts fit in the step costs more: the bound is
 * 93; the optimum over every placement and schedule is
 * 104 (F1 B1 | F2 L B2: one activation there, the gradient back).
 */
static const char training_yaml[] =
    "format: 1\nname: train2\nops:\n"
    "  - {name: F1, type: Op, time_us: 10, outputs: [50], persistent: 500}\n"
    "  - {name: F2, type: Op, time_us: 10, outputs: [50], persistent: 500, inputs: [F1]}\n"
    "  - {name: L, type: Op, time_us: 10, outputs: [4], inputs: [F2]}\n"
    "  - {name: B2, type: Op, time_us: 10, outputs: [4], persistent: 500, inputs: [L, F2]}\n"
    "  - {name: B1, type: Op, time_us: 10, persistent: 500, inputs: [B2, F1]}\n";

Test(bound_exact, a_training_step_pays_the_activations_beside_its_cuts)
{
    struct workload w;
    struct graph g;
    struct cluster c;
    struct bound_result b;
    int32_t dev[EXACT_MAX_OPS] = {0};
    int64_t opt = -1;

    cr_assert_eq(workload_read_yaml_string(&w, training_yaml, strlen(training_yaml), "t.yaml"), 0,
                 "%s", err_msg());
    cr_assert_eq(graph_build(&g, &w), 0, "%s", err_msg());
    workload_release(&w);
    cr_assert_eq(simtest_cluster(&c, 2, 1100, 1.0, 0, CHANNEL_LINK), 0);
    cr_assert_eq(bound_compute(&g, &c, NULL, &b), 0, "%s", err_msg());
    do {
        int64_t o = exact_opt(&g, &c, dev, &strict_opts);

        opt = o >= 0 && (opt < 0 || o < opt) ? o : opt;
    } while (next_placement(dev, g.n_ops, c.n_devices));
    cr_expect_eq(b.simple_us, 50);
    cr_expect_eq(b.memory_us, 93, "memory bound %lld", (long long)b.memory_us);
    cr_expect_eq(b.lower_bound_us, 93);
    cr_expect_eq(opt, 104);
    cluster_release(&c);
    graph_release(&g);
}
