/*
 * test_pipeline_placer.c - the `pipeline` placer: PipeDream's partitioning
 * programme (placers/pipeline_plan.c) against a brute force over every
 * contiguous split, its memory constraint and infeasible path, and the
 * placer through placer_run (contiguous stages, the error message).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include <criterion/criterion.h>

#include "core/err.h"
#include "core/rng.h"
#include "core/workload_yaml.h"
#include "placers/pipeline_plan.h"
#include "placers/placer.h"
#include "tests/unit/simtest.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAXN 10
#define MAXS 5

/* recv(i, j) = cut[i] (i > 0) + cut[j] (j < n): activations from the left,
 * gradients from the right. */
struct cuts {
    int32_t n;
    int64_t cut[MAXN + 1];
};

static int cut_row(void *arg, int32_t i, int64_t *recv)
{
    const struct cuts *c = arg;

    for (int32_t j = i + 1; j <= c->n; j++) {
        recv[j - i - 1] = (i > 0 ? c->cut[i] : 0) + (j < c->n ? c->cut[j] : 0);
    }
    return 0;
}

struct fixture {
    int64_t compute[MAXN], persist[MAXN], saved[MAXN], work[MAXN];
    double speed[MAXS];
    int64_t limit[MAXS], in_flight[MAXS];
    struct cuts cuts;
    struct pipeline_chain ch;
    struct pipeline_stages st;
};

static void fixture_init(struct fixture *f, int32_t n, int32_t s)
{
    memset(f, 0, sizeof(*f));
    f->cuts.n = n;
    f->ch = (struct pipeline_chain){n, f->compute, f->persist, f->saved, f->work, NULL, NULL};
    f->st = (struct pipeline_stages){s, f->speed, f->limit, f->in_flight};
    for (int32_t k = 0; k < s; k++) {
        f->speed[k] = 1.0;
        f->limit[k] = INT64_MAX / 4;
        f->in_flight[k] = 1;
    }
}

/* Best bottleneck over every split of the chain into S non-empty stages by
 * enumeration (the same stage cost formula, written out again); -1 when none
 * fits. */
static int64_t brute_force(const struct fixture *f)
{
    int32_t n = f->ch.n, S = f->st.n_stages, start[MAXS + 1];
    int64_t best = -1;

    /* the S - 1 inner cuts as a bit mask over positions 1 .. n-1 */
    for (uint32_t mask = 0; mask < (1u << (n - 1)); mask++) {
        int32_t k = 0;
        int64_t worst = 0;
        bool fits = true;

        if (__builtin_popcount(mask) != S - 1) {
            continue;
        }
        start[k++] = 0;
        for (int32_t p = 1; p < n; p++) {
            if (mask & (1u << (p - 1))) {
                start[k++] = p;
            }
        }
        start[S] = n;
        for (int32_t s = 0; s < S; s++) {
            int64_t comp = 0, pers = 0, sav = 0, wk = 0, t, mem;
            int32_t a = start[s], b = start[s + 1];

            for (int32_t u = a; u < b; u++) {
                comp += f->compute[u];
                pers += f->persist[u];
                sav += f->saved[u];
                wk = f->work[u] > wk ? f->work[u] : wk;
            }
            mem = pers + f->in_flight[s] * sav + wk;
            fits &= mem <= f->limit[s];
            t = (int64_t)nearbyint((double)comp / f->speed[s]) + (a > 0 ? f->cuts.cut[a] : 0) +
                (b < n ? f->cuts.cut[b] : 0);
            worst = t > worst ? t : worst;
        }
        if (fits && (best < 0 || worst < best)) {
            best = worst;
        }
    }
    return best;
}

Test(pipeline_placer, equal_layers_equal_stages)
{
    for (int32_t S = 1; S <= 4; S++) {
        for (int32_t L = 1; L <= 2; L++) {
            struct fixture f;
            struct pipeline_plan p;

            fixture_init(&f, S * L, S);
            for (int32_t u = 0; u < S * L; u++) {
                f.compute[u] = 100;
            }
            cr_assert_eq(pipeline_plan_solve(&f.ch, &f.st, &p), 0, "%s", err_msg());
            for (int32_t s = 0; s <= S; s++) {
                cr_expect_eq(p.start[s], s * L, "S %d L %d: stage %d starts at %d", S, L, s,
                             p.start[s]);
            }
            cr_expect_eq(p.bottleneck_us, 100 * L);
            pipeline_plan_release(&p);
        }
    }
}

Test(pipeline_placer, random_chains_match_brute_force)
{
    uint64_t rng = 20240521;
    int diffs = 0, infeasible = 0, cases = 0;

    err_set_quiet(1);
    for (int c = 0; c < 3000; c++) {
        int32_t n = 1 + (int32_t)(rng_next(&rng) % MAXN);
        int32_t S = 1 + (int32_t)(rng_next(&rng) % (n < MAXS ? n : MAXS));
        struct fixture f;
        struct pipeline_plan p;
        int64_t want;
        int rc;

        fixture_init(&f, n, S);
        if (c % 2) {
            f.ch.recv_row = cut_row;
            f.ch.recv_arg = &f.cuts;
        }
        for (int32_t u = 0; u <= n; u++) {
            f.cuts.cut[u] = (int64_t)(rng_next(&rng) % 40);
        }
        for (int32_t u = 0; u < n; u++) {
            f.compute[u] = (int64_t)(rng_next(&rng) % 100);
            f.persist[u] = (int64_t)(rng_next(&rng) % 50);
            f.saved[u] = (int64_t)(rng_next(&rng) % 20);
            f.work[u] = (int64_t)(rng_next(&rng) % 30);
        }
        for (int32_t s = 0; s < S; s++) {
            f.speed[s] = 0.5 + (double)(rng_next(&rng) % 4) * 0.5;
            f.in_flight[s] = 1 + (int64_t)(rng_next(&rng) % 4);
            f.limit[s] = 60 + (int64_t)(rng_next(&rng) % 300);
        }
        if (!f.ch.recv_row) {
            memset(f.cuts.cut, 0, sizeof(f.cuts.cut));
        }
        want = brute_force(&f);
        rc = pipeline_plan_solve(&f.ch, &f.st, &p);
        cases++;
        if (want < 0) {
            infeasible++;
            diffs += rc != BAECHI_EINFEASIBLE;
            continue;
        }
        if (rc != 0 || p.bottleneck_us != want) {
            diffs++;
            cr_log_error("case %d: n %d S %d: dp %lld (rc %d), brute force %lld", c, (int)n, (int)S,
                         rc ? -1LL : (long long)p.bottleneck_us, rc, (long long)want);
        }
        if (rc == 0) {
            for (int32_t s = 0; s < S; s++) {
                cr_expect_lt(p.start[s], p.start[s + 1], "stage %d empty", s);
                cr_expect_leq(p.mem_bytes[s], f.limit[s]);
            }
            pipeline_plan_release(&p);
        }
    }
    cr_expect_eq(diffs, 0, "%d of %d cases differ from the brute force", diffs, cases);
    /* both kinds of cases were drawn */
    cr_expect_gt(infeasible, 100, "only %d infeasible cases", infeasible);
    cr_expect_lt(infeasible, cases - 1000, "only %d feasible cases", cases - infeasible);
}

Test(pipeline_placer, memory_forces_a_slower_split)
{
    struct fixture f;
    struct pipeline_plan p;

    fixture_init(&f, 4, 2);
    for (int32_t u = 0; u < 4; u++) {
        f.compute[u] = 10;
        f.persist[u] = u < 2 ? 60 : 1;
    }
    cr_assert_eq(pipeline_plan_solve(&f.ch, &f.st, &p), 0);
    cr_expect_eq(p.start[1], 2, "time-optimal split at 2, not %d", p.start[1]);
    cr_expect_eq(p.bottleneck_us, 20);
    pipeline_plan_release(&p);
    /* 100 bytes per device: units 0 and 1 (120 bytes) cannot share stage 0 */
    f.limit[0] = f.limit[1] = 100;
    cr_assert_eq(pipeline_plan_solve(&f.ch, &f.st, &p), 0);
    cr_expect_eq(p.start[1], 1, "split at %d", p.start[1]);
    cr_expect_eq(p.bottleneck_us, 30);
    cr_expect_eq(p.mem_bytes[0], 60);
    cr_expect_eq(p.mem_bytes[1], 62);
    pipeline_plan_release(&p);
    /* saved activations times the in-flight micro-batches count too: 3 in
     * flight on stage 1 do not fit 2 + 3 x 60 bytes in 150, 1 does */
    f.limit[0] = INT64_MAX / 4;
    f.limit[1] = 150;
    f.saved[2] = f.saved[3] = 30;
    f.in_flight[1] = 3;
    cr_assert_eq(pipeline_plan_solve(&f.ch, &f.st, &p), 0);
    cr_expect_eq(p.start[1], 3, "3 in flight: split at %d", p.start[1]);
    cr_expect_eq(p.mem_bytes[1], 91);
    pipeline_plan_release(&p);
    f.in_flight[1] = 1;
    cr_assert_eq(pipeline_plan_solve(&f.ch, &f.st, &p), 0);
    cr_expect_eq(p.start[1], 2, "1 in flight: split at %d", p.start[1]);
    pipeline_plan_release(&p);
}

Test(pipeline_placer, infeasible_reported)
{
    struct fixture f;
    struct pipeline_plan p;

    fixture_init(&f, 3, 2);
    for (int32_t u = 0; u < 3; u++) {
        f.compute[u] = 10;
        f.persist[u] = 60;
    }
    f.limit[0] = f.limit[1] = 100;
    cr_expect_eq(pipeline_plan_solve(&f.ch, &f.st, &p), BAECHI_EINFEASIBLE);
    cr_expect_null(p.start);
    err_set_quiet(1);
    f.st.n_stages = 4;
    cr_expect_eq(pipeline_plan_solve(&f.ch, &f.st, &p), BAECHI_EINVAL);
}

/* A chain of 6 layers A..F (backward ops colocated) and a data source. */
static const struct simtest_op chain_ops[] = {
    {"in", 1, "1000", 0, 0, -1, NULL},     {"A", 100, "1000", 0, 500, -1, "in:0"},
    {"B", 100, "1000", 0, 500, -1, "A:0"}, {"C", 100, "1000", 0, 500, -1, "B:0"},
    {"D", 100, "1000", 0, 500, -1, "C:0"}, {"E", 100, "1000", 0, 500, -1, "D:0"},
    {"F", 100, "1000", 0, 500, -1, "E:0"},
};

Test(pipeline_placer, placer_run_contiguous_and_infeasible)
{
    struct graph g;
    struct cluster c;
    struct placer_options o;
    struct placement pl;
    struct placer_stats st;
    int rc;

    err_set_quiet(1);
    cr_assert_eq(simtest_graph(&g, chain_ops, 7), 0, "%s", err_msg());
    cr_assert_eq(simtest_cluster(&c, 3, 1000000, 0.0001, 1, CHANNEL_DUPLEX), 0);
    placer_options_init(&o);
    rc = placer_run(PLACER_PIPELINE_NAME, &g, &c, &o, "t", &pl, &st);
    cr_assert_eq(rc, 0, "%s", err_msg());
    /* in, A, B | C, D | E, F: two layers of 100 µs per device */
    {
        static const int32_t want[7] = {0, 0, 0, 1, 1, 2, 2};
        for (int32_t v = 0; v < 7; v++) {
            cr_expect_eq(pl.device_of[v], want[v], "%s on %d", g.op_name[v], pl.device_of[v]);
        }
    }
    cr_expect_gt(st.estimate_us, 0);
    placement_release(&pl);
    placer_stats_release(&st);
    /* interleaved, 2 virtual stages: 6 chunks, chunk c on device c mod 3 */
    o.pipeline = (struct pipeline_opts){PIPELINE_INTERLEAVED, 2};
    cr_assert_eq(placer_run(PLACER_PIPELINE_NAME, &g, &c, &o, "t", &pl, &st), 0, "%s", err_msg());
    {
        static const int32_t want[7] = {0, 0, 1, 2, 0, 1, 2};
        for (int32_t v = 0; v < 7; v++) {
            cr_expect_eq(pl.device_of[v], want[v], "interleaved: %s on %d", g.op_name[v],
                         pl.device_of[v]);
        }
    }
    placement_release(&pl);
    placer_stats_release(&st);
    /* a bad schedule is refused */
    o.pipeline = (struct pipeline_opts){PIPELINE_1F1B, 2};
    cr_expect_eq(placer_run(PLACER_PIPELINE_NAME, &g, &c, &o, "t", &pl, &st), BAECHI_EINVAL);
    o.pipeline = (struct pipeline_opts){PIPELINE_1F1B, 1};
    /* 1,200 bytes of memory per device: the 7 layers (500 persistent + 1,000
     * output each) cannot fit */
    o.memory_fraction = 0.0012;
    rc = placer_run(PLACER_PIPELINE_NAME, &g, &c, &o, "t", &pl, &st);
    cr_expect_eq(rc, BAECHI_EINFEASIBLE);
    cr_expect(strstr(err_msg(), "pipeline: no split of 7 layers into 3 contiguous stages") != NULL,
              "%s", err_msg());
    cluster_release(&c);
    graph_release(&g);
}

/* Three layers with their gradient ops; g3's gradient to layer 2 is large
 * (201 µs to send), the other tensors cost 1 µs. */
static const char bwd_yaml[] =
    "format: 1\nname: bwd\nops:\n"
    "- {name: f1, type: MatMul, time_us: 100, outputs: [8], group: L1}\n"
    "- {name: f2, type: MatMul, time_us: 100, outputs: [8], group: L2, inputs: [\"f1:0\"]}\n"
    "- {name: f3, type: MatMul, time_us: 100, outputs: [8], group: L3, inputs: [\"f2:0\"]}\n"
    "- {name: g3, type: MatMulGrad, time_us: 100, outputs: [2000000], group: L3, phase: "
    "backward, inputs: [\"f3:0\"]}\n"
    "- {name: g2, type: MatMulGrad, time_us: 100, outputs: [8], group: L2, phase: backward, "
    "inputs: [\"g3:0\", \"f2:0\"]}\n"
    "- {name: g1, type: MatMulGrad, time_us: 100, outputs: [8], group: L1, phase: backward, "
    "inputs: [\"g2:0\", \"f1:0\"]}\n";

Test(pipeline_placer, transfers_both_ways)
{
    struct workload w;
    struct graph g;
    struct cluster c;
    struct placer_options o;
    struct placement pl;
    struct placer_stats st;

    err_set_quiet(1);
    cr_assert_eq(workload_read_yaml_string(&w, bwd_yaml, sizeof(bwd_yaml) - 1, "bwd"), 0, "%s",
                 err_msg());
    cr_assert_eq(graph_build(&g, &w), 0, "%s", err_msg());
    cr_assert_eq(simtest_cluster(&c, 2, 1000000000, 0.0001, 1, CHANNEL_DUPLEX), 0);
    placer_options_init(&o);
    cr_assert_eq(placer_run(PLACER_PIPELINE_NAME, &g, &c, &o, "t", &pl, &st), 0, "%s", err_msg());
    /* L1 | L2 L3: 400 + 1 µs on stage 1 (g3 -> g2 stays inside); L1 L2 | L3
     * would take 400 + 201 on stage 0 */
    for (int32_t v = 0; v < g.n_ops; v++) {
        int want = strcmp(g.op_name[v], "f1") == 0 || strcmp(g.op_name[v], "g1") == 0 ? 0 : 1;
        cr_expect_eq(pl.device_of[v], want, "%s on %d", g.op_name[v], pl.device_of[v]);
    }
    /* (M + K - 1) x bottleneck / M with M = 1, K = 2 */
    cr_expect_eq(st.estimate_us, 2 * 401, "estimate %lld", (long long)st.estimate_us);
    placement_release(&pl);
    placer_stats_release(&st);
    cluster_release(&c);
    graph_release(&g);
    workload_release(&w);
}

/* An op of a group without forward op goes with its forward producer's layer. */
Test(pipeline_placer, group_without_forward_follows_its_producer)
{
    static const char extra[] = "- {name: acc, type: AddN, time_us: 1, outputs: [8], group: "
                                "X, phase: backward, inputs: [\"g2:0\", \"f2:0\"]}\n";
    char yaml[sizeof(bwd_yaml) + sizeof(extra)];
    struct workload w;
    struct graph g;
    struct cluster c;
    struct placer_options o;
    struct placement pl;
    struct placer_stats st;
    int32_t acc, f2;

    err_set_quiet(1);
    snprintf(yaml, sizeof(yaml), "%s%s", bwd_yaml, extra);
    cr_assert_eq(workload_read_yaml_string(&w, yaml, strlen(yaml), "acc"), 0, "%s", err_msg());
    cr_assert_eq(graph_build(&g, &w), 0, "%s", err_msg());
    cr_assert_eq(simtest_cluster(&c, 2, 1000000000, 0.0001, 1, CHANNEL_DUPLEX), 0);
    placer_options_init(&o);
    cr_assert_eq(placer_run(PLACER_PIPELINE_NAME, &g, &c, &o, "t", &pl, &st), 0, "%s", err_msg());
    acc = graph_find(&g, "acc");
    f2 = graph_find(&g, "f2");
    cr_assert(acc >= 0 && f2 >= 0);
    cr_expect_eq(pl.device_of[f2], 1);
    cr_expect_eq(pl.device_of[acc], pl.device_of[f2], "acc on %d", pl.device_of[acc]);
    placement_release(&pl);
    placer_stats_release(&st);
    cluster_release(&c);
    graph_release(&g);
    workload_release(&w);
}
