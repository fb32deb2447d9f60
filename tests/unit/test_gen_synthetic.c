/*
 * test_gen_synthetic.c - the seeded synthetic DAG generator: valid graphs,
 * the requested sizes, determinism.
 */
#include "core/err.h"
#include "core/graph.h"
#include "workloads/gen_synthetic.h"

#include <criterion/criterion.h>
#include <string.h>

static void build(enum synth_shape shape, int32_t n, uint64_t seed, struct workload *w,
                  struct graph *g)
{
    struct synth_opts o;

    synth_opts_init(&o);
    o.shape = shape;
    o.n_ops = n;
    o.seed = seed;
    workload_init(w);
    cr_assert_eq(gen_synthetic(w, &o), 0, "%s", err_msg());
    cr_assert_eq(workload_check(w), 0, "%s", err_msg());
    cr_assert_eq(graph_build(g, w), 0, "%s", err_msg());
    cr_assert_eq(graph_check(g), 0, "%s", err_msg());
}

Test(gen_synthetic, every_shape_is_a_valid_dag)
{
    for (int s = 0; s < 4; s++) {
        struct workload w;
        struct graph g;

        build((enum synth_shape)s, 500, 7, &w, &g);
        cr_assert_eq(w.n_ops, 500);
        cr_assert(g.n_edges > 0);
        graph_release(&g);
        workload_release(&w);
    }
}

Test(gen_synthetic, layered_fan_in_gives_three_edges_per_op)
{
    struct workload w;
    struct graph g;

    build(SYNTH_LAYERED, 10000, 1, &w, &g);
    cr_assert_eq(g.n_ops + g.n_pruned, 10000);
    /* All but the first layer (100 ops) read 3 distinct producers. */
    cr_assert_eq(g.n_edges, 3 * (10000 - 100));
    graph_release(&g);
    workload_release(&w);
}

Test(gen_synthetic, chain_has_no_parallelism)
{
    struct workload w;
    struct graph g;

    int64_t cp = -1;

    build(SYNTH_CHAIN, 100, 3, &w, &g);
    cr_assert_eq(graph_critical_path_us(&g, &cp), 0);
    cr_assert_eq(cp, graph_total_compute_us(&g));
    graph_release(&g);
    workload_release(&w);
}

Test(gen_synthetic, same_seed_same_graph_other_seed_other_graph)
{
    struct workload a, b, c;
    struct graph ga, gb, gc;
    bool differ = false;

    build(SYNTH_RANDOM, 300, 11, &a, &ga);
    build(SYNTH_RANDOM, 300, 11, &b, &gb);
    build(SYNTH_RANDOM, 300, 12, &c, &gc);
    cr_assert_eq(ga.n_edges, gb.n_edges);
    for (int32_t e = 0; e < ga.n_edges; e++) {
        cr_assert_eq(ga.edge_src[e], gb.edge_src[e]);
        cr_assert_eq(ga.edge_dst[e], gb.edge_dst[e]);
    }
    for (int32_t u = 0; u < ga.n_ops; u++) {
        cr_assert_eq(ga.weight_us[u], gb.weight_us[u]);
        differ |= ga.weight_us[u] != gc.weight_us[u];
    }
    cr_assert(differ);
    graph_release(&ga);
    graph_release(&gb);
    graph_release(&gc);
    workload_release(&a);
    workload_release(&b);
    workload_release(&c);
}

Test(gen_synthetic, bad_options_rejected)
{
    struct synth_opts o;
    struct workload w;
    enum synth_shape s;

    synth_opts_init(&o);
    o.n_ops = 1;
    workload_init(&w);
    cr_assert_eq(gen_synthetic(&w, &o), BAECHI_EINVAL);
    workload_release(&w);
    cr_assert_eq(synth_shape_parse("tree", &s), BAECHI_EINVAL);
    cr_assert(strstr(err_msg(), "tree"));
    cr_assert_eq(synth_shape_parse("fork-join", &s), 0);
    cr_assert_eq(s, SYNTH_FORK_JOIN);
}
