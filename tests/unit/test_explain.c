/*
 * test_explain.c - the live set at each device's peak (sim/explain.h): a
 * hand-checked graph where it is known by kind in both models, the
 * first over-limit allocation, and the kinds summing to the peak on random
 * graphs under both models.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include <criterion/criterion.h>

#include "core/err.h"
#include "core/graph.h"
#include "core/workload.h"
#include "core/workload_yaml.h"
#include "sim/explain.h"
#include "sim/sim.h"
#include "tests/unit/simtest.h"

#include <string.h>

/*
 * W (a variable: 1000 B persistent) -> A (200 B) -> B (300 B, 50 B temp)
 * -> G (a backward op reading B, A and the parameter P of 64 B).  W and A
 * on device 0, P, B and G on device 1: A crosses to device 1 once.
 *
 * timed, device 1: P's 64 B from time 0; the copy of A (200 B) from its
 * transfer's start; B's 300 + 50 B at B's start: 614 B, the peak (G's start
 * adds 40 B after the 50 B temp is gone: 604 B).
 * timed, device 0: 1000 B of W, then A's 200 B: 1200 B.
 * baechi: receivers hold nothing: device 1 peaks at 64 + 300 + 50 = 414 B.
 */
static const char yaml[] =
    "format: 1\nname: explain\nops:\n"
    "  - {name: W, type: VariableV2, time_us: 1, outputs: [1000], persistent: 1000}\n"
    "  - {name: A, type: MatMul, time_us: 10, outputs: [200], inputs: [W]}\n"
    "  - {name: P, type: VariableV2, time_us: 1, outputs: [64], persistent: 64}\n"
    "  - {name: B, type: Relu, time_us: 10, outputs: [300], temp: 50, inputs: [A]}\n"
    "  - {name: G, type: ReluGrad, phase: backward, time_us: 10, outputs: [40],"
    " inputs: [B, A, P]}\n";

static const int32_t device_of[] = {0, 0, 1, 1, 1};

static void build(struct workload *w, struct graph *g, struct cluster *c, int64_t mem)
{
    err_set_quiet(1);
    cr_assert_eq(workload_read_yaml_string(w, yaml, strlen(yaml), "explain.yaml"), 0, "%s",
                 err_msg());
    cr_assert_eq(graph_build(g, w), 0, "%s", err_msg());
    cr_assert_eq(graph_index_names(g), 0);
    cr_assert_eq(simtest_cluster(c, 2, mem, 0.01, 5, CHANNEL_DUPLEX), 0);
}

static void explain(const struct graph *g, const struct cluster *c, enum sim_model m,
                    struct sim_result *r, struct mem_explain *x)
{
    struct sim_options so = {.model = m, .trace = NULL};

    cr_assert_eq(sim_run(g, c, device_of, &so, r), 0, "%s", err_msg());
    cr_assert_eq(mem_explain_run(g, c, device_of, m, r, 20, x), 0, "%s", err_msg());
}

static void check_sums(const struct sim_result *r, const struct mem_explain *x)
{
    for (int32_t d = 0; d < r->n_devices; d++) {
        const struct mem_snapshot *s = &x->dev[d].peak;
        int64_t sum = 0, top = 0;

        cr_assert(s->valid);
        for (int k = 0; k < MEM_KIND_N; k++) {
            sum += s->kind_bytes[k];
        }
        for (int32_t i = 0; i < s->n_top; i++) {
            top += s->top[i].bytes;
            cr_assert(i == 0 || s->top[i - 1].bytes >= s->top[i].bytes, "not sorted");
        }
        cr_assert_eq(sum, r->dev[d].peak_bytes, "device %d: kinds sum to %lld, peak %lld", d,
                     (long long)sum, (long long)r->dev[d].peak_bytes);
        cr_assert_eq(s->total_bytes, r->dev[d].peak_bytes);
        if (s->n_top == s->n_live) {
            cr_assert_eq(top, sum);
        }
        cr_assert_eq(x->dev[d].oom.valid, r->dev[d].oom);
    }
}

Test(explain, timed_live_set_by_kind)
{
    struct workload w;
    struct graph g;
    struct cluster c;
    struct sim_result r;
    struct mem_explain x;
    const struct mem_snapshot *s1, *s0;

    build(&w, &g, &c, 1 << 20);
    sim_result_init(&r);
    explain(&g, &c, SIM_MODEL_TIMED, &r, &x);
    check_sums(&r, &x);
    s1 = &x.dev[1].peak;
    cr_assert_eq(s1->total_bytes, 614);
    cr_assert_eq(s1->kind_bytes[MEM_KIND_PARAMETERS], 64);
    cr_assert_eq(s1->kind_bytes[MEM_KIND_RECEIVED], 200);
    cr_assert_eq(s1->kind_bytes[MEM_KIND_SAVED], 300);
    cr_assert_eq(s1->kind_bytes[MEM_KIND_TEMP], 50);
    cr_assert_eq(s1->kind_bytes[MEM_KIND_GRADIENTS], 0);
    cr_assert_eq(s1->n_live, 4);
    cr_assert_eq(s1->at_op, graph_find(&g, "B"));
    cr_assert_eq(s1->time_us, r.start_us[graph_find(&g, "B")]);
    /* largest first: B's output, the copy of A, P, B's temp */
    cr_assert_eq(s1->top[0].op, graph_find(&g, "B"));
    cr_assert_eq(s1->top[0].bytes, 300);
    cr_assert_eq(s1->top[1].op, graph_find(&g, "A"));
    cr_assert_geq(s1->top[1].tensor, 0, "the copy names its tensor");
    cr_assert_eq(s1->top[1].kind, MEM_KIND_RECEIVED);
    cr_assert_eq(s1->top[1].since_us, r.end_us[graph_find(&g, "A")], "sent when A ends");
    cr_assert_eq(s1->top[2].kind, MEM_KIND_PARAMETERS);
    cr_assert_eq(s1->top[2].since_us, 0);
    s0 = &x.dev[0].peak;
    cr_assert_eq(s0->total_bytes, 1200);
    cr_assert_eq(s0->kind_bytes[MEM_KIND_PARAMETERS], 1000);
    cr_assert_eq(s0->kind_bytes[MEM_KIND_SAVED], 200, "A is read by the backward op G");
    mem_explain_release(&x);
    sim_result_release(&r);
    cluster_release(&c);
    graph_release(&g);
    workload_release(&w);
}

Test(explain, baechi_receivers_hold_nothing)
{
    struct workload w;
    struct graph g;
    struct cluster c;
    struct sim_result r;
    struct mem_explain x;

    build(&w, &g, &c, 1 << 20);
    sim_result_init(&r);
    explain(&g, &c, SIM_MODEL_BAECHI, &r, &x);
    check_sums(&r, &x);
    cr_assert_eq(x.dev[1].peak.total_bytes, 414);
    cr_assert_eq(x.dev[1].peak.kind_bytes[MEM_KIND_RECEIVED], 0);
    cr_assert_eq(x.dev[1].peak.kind_bytes[MEM_KIND_PARAMETERS], 64);
    cr_assert_eq(x.dev[0].peak.total_bytes, 1200);
    mem_explain_release(&x);
    sim_result_release(&r);
    cluster_release(&c);
    graph_release(&g);
    workload_release(&w);
}

Test(explain, first_over_limit_allocation)
{
    struct workload w;
    struct graph g;
    struct cluster c;
    struct sim_result r;
    struct mem_explain x;
    const struct mem_snapshot *o;

    /* 500 B per device: device 1 goes over when B starts (614 B). */
    build(&w, &g, &c, 500);
    sim_result_init(&r);
    explain(&g, &c, SIM_MODEL_TIMED, &r, &x);
    check_sums(&r, &x);
    cr_assert(r.dev[1].oom);
    o = &x.dev[1].oom;
    cr_assert(o->valid);
    cr_assert_eq(o->at_op, graph_find(&g, "B"));
    cr_assert_gt(o->total_bytes, 500);
    cr_assert_leq(o->total_bytes, 614);
    /* device 0 is over from W's 1000 B at time 0 */
    cr_assert(x.dev[0].oom.valid);
    cr_assert_eq(x.dev[0].oom.time_us, 0);
    cr_assert_eq(x.dev[0].oom.kind_bytes[MEM_KIND_PARAMETERS], 1000);
    mem_explain_release(&x);
    sim_result_release(&r);
    cluster_release(&c);
    graph_release(&g);
    workload_release(&w);
}

Test(explain, kinds_sum_to_the_peak_on_random_graphs)
{
    for (uint64_t seed = 1; seed <= 20; seed++) {
        struct graph g;
        struct cluster c;

        err_set_quiet(1);
        cr_assert_eq(simtest_random_graph(&g, 60, 3, seed), 0);
        cr_assert_eq(simtest_cluster(&c, 3, 3000, 0.01, 3, (enum channel_model)(seed % 3)), 0);
        for (int m = 0; m < 2; m++) {
            struct sim_options so = {.model = m ? SIM_MODEL_BAECHI : SIM_MODEL_TIMED};
            struct sim_result r;
            struct mem_explain x;
            int32_t *dev = malloc(sizeof(*dev) * (size_t)g.n_ops);

            for (int32_t v = 0; v < g.n_ops; v++) {
                dev[v] = (int32_t)((v * 7 + (int32_t)seed) % 3);
            }
            sim_result_init(&r);
            cr_assert_eq(sim_run(&g, &c, dev, &so, &r), 0, "%s", err_msg());
            cr_assert_eq(mem_explain_run(&g, &c, dev, so.model, &r, 5, &x), 0, "%s", err_msg());
            for (int32_t d = 0; d < 3; d++) {
                int64_t sum = 0;

                for (int k = 0; k < MEM_KIND_N; k++) {
                    sum += x.dev[d].peak.kind_bytes[k];
                }
                cr_assert_eq(sum, r.dev[d].peak_bytes, "seed %llu model %d device %d",
                             (unsigned long long)seed, m, d);
                cr_assert_eq(x.dev[d].oom.valid, r.dev[d].oom, "seed %llu",
                             (unsigned long long)seed);
                cr_assert_leq(x.dev[d].peak.n_top, 5);
            }
            mem_explain_release(&x);
            sim_result_release(&r);
            free(dev);
        }
        cluster_release(&c);
        graph_release(&g);
    }
}

/*
 * Shared storage (x-alias, core/graph.h): R (in place) and V (a view of R)
 * hold no bytes of their own on A's device, and A's 100 B stay until the
 * last reader of R or V ends; the baechi model keeps the original's rules.
 * On one device: A 100 + C 4 + D 4 = 108 B (300 B without the sharing).
 */
static const char alias_yaml[] =
    "format: 1\nname: alias\nops:\n"
    "  - {name: A, type: Conv2D, time_us: 10, outputs: [100]}\n"
    "  - {name: R, type: Relu, time_us: 5, outputs: [100], inputs: [A], x-alias: [0]}\n"
    "  - {name: V, type: Reshape, time_us: 1, outputs: [100], inputs: [R], x-alias: [0]}\n"
    "  - {name: C, type: MatMul, time_us: 5, outputs: [4], inputs: [V]}\n"
    "  - {name: D, type: MatMul, time_us: 5, outputs: [4], inputs: [C, A]}\n";

Test(explain, shared_storage_of_views_and_in_place_ops)
{
    static const int32_t one[] = {0, 0, 0, 0, 0}, split[] = {0, 1, 0, 1, 0};
    struct workload w;
    struct graph g;
    struct cluster c;
    struct sim_result r;
    struct sim_options so = {.model = SIM_MODEL_TIMED};
    struct mem_explain x;

    err_set_quiet(1);
    cr_assert_eq(workload_read_yaml_string(&w, alias_yaml, strlen(alias_yaml), "a.yaml"), 0, "%s",
                 err_msg());
    cr_assert_eq(graph_build(&g, &w), 0, "%s", err_msg());
    cr_assert_not_null(g.port_alias);
    cr_assert_eq(g.port_alias[g.port_start[2]], g.port_start[1], "V names R, its input");
    cr_assert_eq(simtest_cluster(&c, 2, 1 << 20, 0.01, 5, CHANNEL_DUPLEX), 0);
    sim_result_init(&r);
    cr_assert_eq(sim_run(&g, &c, one, &so, &r), 0, "%s", err_msg());
    cr_assert_eq(r.dev[0].peak_bytes, 108);
    cr_assert_eq(r.dev[0].final_bytes, 4, "the sink D keeps its output");
    cr_assert_eq(mem_explain_run(&g, &c, one, SIM_MODEL_TIMED, &r, 10, &x), 0, "%s", err_msg());
    cr_assert_eq(x.dev[0].peak.total_bytes, 108);
    cr_assert_eq(x.dev[0].peak.n_live, 3);
    mem_explain_release(&x);
    sim_result_release(&r);
    so.model = SIM_MODEL_BAECHI;
    cr_assert_eq(sim_run(&g, &c, one, &so, &r), 0, "%s", err_msg());
    cr_assert_eq(r.dev[0].peak_bytes, 300, "the original's rules: no sharing");
    sim_result_release(&r);
    /* R on another device: no sharing there, R and V hold their own bytes */
    so.model = SIM_MODEL_TIMED;
    cr_assert_eq(sim_run(&g, &c, split, &so, &r), 0, "%s", err_msg());
    cr_assert_eq(r.dev[1].peak_bytes, 200, "a copy of A and R's own 100 B");
    cr_assert_eq(sim_check(&g, &c, split, &r), 0, "%s", err_msg());
    sim_result_release(&r);
    cluster_release(&c);
    graph_release(&g);
    workload_release(&w);
}

Test(explain, bad_alias_is_a_parse_error)
{
    static const char bad[] = "format: 1\nname: b\nops:\n"
                              "  - {name: A, type: T, time_us: 1, outputs: [8]}\n"
                              "  - {name: B, type: T, time_us: 1, outputs: [8, 8], inputs: [A],"
                              " x-alias: [0]}\n";
    struct workload w;
    struct graph g;

    err_set_quiet(1);
    cr_assert_eq(workload_read_yaml_string(&w, bad, strlen(bad), "b.yaml"), 0, "%s", err_msg());
    cr_assert_eq(graph_build(&g, &w), BAECHI_EPARSE);
    cr_assert(strstr(err_msg(), "b.yaml:5") && strstr(err_msg(), "x-alias"), "%s", err_msg());
    graph_release(&g);
    workload_release(&w);
}
