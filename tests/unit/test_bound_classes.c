/*
 * test_bound_classes.c - device classes (placers/bound.h, "Device
 * classes"): the classes' smallest transfer time is the per-pair loop's on
 * symmetric and non-symmetric clusters, the whole bound is the same by the
 * classes as by the per-pair path, and auto's prefix (issue 30 item 6).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include <criterion/criterion.h>

#include <math.h>

#include "core/alloc.h"
#include "core/err.h"
#include "placers/bound.h"
#include "tests/unit/simtest.h"

#define SLOPE     0.05
#define INTERCEPT 100.0

/* n devices of mem_bytes; gpn > 0: nodes of gpn GPUs, a wide link inside
 * (1e-3 µs/B + 50 µs) and a narrow one of less latency between (2e-2 µs/B
 * + 5 µs): small tensors cross nodes faster, large ones not, so each model
 * is the smallest for some sizes (the default one for none). */
static void make_cluster(struct cluster *c, int32_t n, int32_t gpn, int64_t mem_bytes)
{
    cr_assert_eq(simtest_cluster(c, n, mem_bytes, SLOPE, INTERCEPT, CHANNEL_DUPLEX), 0);
    if (gpn > 0) {
        c->nodes.gpus_per_node = gpn;
        c->nodes.intra = (struct comm_model){1e-3, 50};
        c->nodes.inter = (struct comm_model){2e-2, 5};
        cr_assert_eq(cluster_expand_nodes(c), 0, "%s", err_msg());
    }
}

static const int64_t sizes[] = {0, 1, 7, 100, 2500, 10000, 123457, 1000000, 1000000000LL};

static void expect_same_comm(const struct cluster *c, const char *what)
{
    struct bound_classes k;

    cr_assert_eq(bound_classes_build(c, 0, &k), 0, "%s", err_msg());
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        cr_expect_eq(bound_classes_comm_min_us(&k, c, sizes[i]), bound_comm_min_us(c, sizes[i]),
                     "%s: %lld bytes", what, (long long)sizes[i]);
    }
    bound_classes_release(&k);
}

Test(bound_classes, flat_cluster_is_one_class)
{
    struct cluster c;
    struct bound_classes k;

    make_cluster(&c, 8, 0, 1000);
    cr_assert_eq(bound_classes_build(&c, 0, &k), 0, "%s", err_msg());
    cr_expect_eq(k.n_classes, 1);
    cr_expect(k.symmetric);
    cr_expect(k.uniform);
    cr_expect_eq(k.n_speeds, 1);
    cr_expect_eq(bound_classes_prefix(&k, 3), 3);
    cr_expect_eq(bound_classes_prefix(&k, 100), 8);
    bound_classes_release(&k);
    expect_same_comm(&c, "flat");
    cluster_release(&c);
}

Test(bound_classes, nodes_are_classes)
{
    struct cluster c;
    struct bound_classes k;

    make_cluster(&c, 12, 4, 1000);
    cr_assert_eq(bound_classes_build(&c, 0, &k), 0, "%s", err_msg());
    cr_expect_eq(k.n_classes, 3);
    cr_expect(k.symmetric);
    cr_expect(k.uniform);
    cr_expect_eq(k.n_links, 2, "inside a node and between nodes: %d", k.n_links);
    /* 3 devices used: at most 3 nodes, 3 of each: 2 whole nodes + 3 */
    cr_expect_eq(bound_classes_prefix(&k, 3), 11);
    cr_expect_eq(bound_classes_prefix(&k, 2), 6);
    cr_expect_eq(bound_classes_prefix(&k, 1), 1);
    bound_classes_release(&k);
    /* the first 8 devices only: 2 nodes */
    cr_assert_eq(bound_classes_build(&c, 8, &k), 0, "%s", err_msg());
    cr_expect_eq(k.n_devices, 8);
    cr_expect_eq(k.n_classes, 2);
    bound_classes_release(&k);
    expect_same_comm(&c, "nodes");
    cluster_release(&c);
}

/* A cluster of nodes without the n x n table (above
 * CLUSTER_EXPAND_MAX_DEVICES the reader keeps none, issue 32): the pairs'
 * models come from the nodes, the classes are symmetric with both links
 * (before, the default model alone: the inter-node latency was missed). */
Test(bound_classes, nodes_without_a_pair_table)
{
    struct cluster c;
    struct bound_classes k;

    cr_assert_eq(simtest_cluster(&c, 16, 1000, SLOPE, INTERCEPT, CHANNEL_DUPLEX), 0);
    c.nodes.gpus_per_node = 4;
    c.nodes.intra = (struct comm_model){1e-3, 50};
    c.nodes.inter = (struct comm_model){2e-2, 5};
    cr_assert_null(c.pair);
    cr_assert_eq(bound_classes_build(&c, 0, &k), 0, "%s", err_msg());
    cr_expect_eq(k.n_classes, 4);
    cr_expect(k.symmetric);
    cr_expect(k.uniform);
    cr_expect_eq(k.n_links, 2, "inside a node and between nodes: %d", k.n_links);
    cr_expect_eq(bound_classes_prefix(&k, 2), 6);
    bound_classes_release(&k);
    expect_same_comm(&c, "nodes, no table");
    cluster_release(&c);
}

Test(bound_classes, one_pair_breaks_symmetry)
{
    struct cluster c;
    struct bound_classes k;

    make_cluster(&c, 8, 4, 1000);
    c.pair[1 * 8 + 6] = (struct comm_model){1e-4, 1}; /* one fast cross-node link */
    cr_assert_eq(bound_classes_build(&c, 0, &k), 0, "%s", err_msg());
    cr_expect(!k.symmetric);
    cr_expect(!k.uniform);
    cr_expect_eq(bound_classes_prefix(&k, 2), 8);
    bound_classes_release(&k);
    expect_same_comm(&c, "one pair");
    cluster_release(&c);
}

Test(bound_classes, mixed_devices_are_not_uniform)
{
    struct cluster c;
    struct bound_classes k;

    make_cluster(&c, 8, 4, 1000);
    c.dev[5].speed = 2.0;
    c.dev[2].mem_bytes = 500;
    cr_assert_eq(bound_classes_build(&c, 0, &k), 0, "%s", err_msg());
    cr_expect_eq(k.n_classes, 4);
    cr_expect_eq(k.n_speeds, 2);
    cr_expect(k.symmetric);
    cr_expect(!k.uniform);
    cr_expect_eq(bound_classes_prefix(&k, 2), 8);
    bound_classes_release(&k);
    expect_same_comm(&c, "mixed");
    cluster_release(&c);
}

/* Copies keep the first n devices and their pairs. */
Test(bound_classes, prefix_copy)
{
    struct cluster c, p;

    make_cluster(&c, 12, 4, 1000);
    cr_assert_eq(bound_classes_copy_prefix(&p, &c, 6), 0, "%s", err_msg());
    cr_expect_eq(p.n_devices, 6);
    cr_expect_eq(p.nodes.gpus_per_node, 4);
    for (int32_t s = 0; s < 6; s++) {
        for (int32_t d = 0; d < 6; d++) {
            cr_expect_eq(cluster_comm_us(&p, s, d, 12345), cluster_comm_us(&c, s, d, 12345));
        }
    }
    cluster_release(&p);
    cluster_release(&c);
}

static void expect_same_bound(const struct bound_result *a, const struct bound_result *b,
                              const char *what)
{
    cr_expect_eq(a->lower_bound_us, b->lower_bound_us, "%s: %lld vs %lld", what,
                 (long long)a->lower_bound_us, (long long)b->lower_bound_us);
    cr_expect_eq(a->kind, b->kind, "%s", what);
    cr_expect_eq(a->simple_us, b->simple_us, "%s", what);
    cr_expect_eq(a->memory_us, b->memory_us, "%s", what);
    cr_expect_eq(a->lp_us, b->lp_us, "%s", what);
    cr_expect_eq(a->min_devices, b->min_devices, "%s", what);
    cr_expect_eq(a->forced_cuts, b->forced_cuts, "%s", what);
}

/*
 * The whole bound by the classes (a symmetric cluster) equals the per-pair
 * path's (the same cluster with one pair set to a dearer model: no longer
 * symmetric, and no transfer gets cheaper), on random graphs whose memory
 * binds (so the memory bound and the LP take part), flat and in nodes,
 * with a faster node.
 */
Test(bound_classes, same_bound_as_per_pair)
{
    static const char *out_bytes[] = {"100", "4000", "200000"};
    int n_memory = 0, n_lp = 0;

    for (int shape = 0; shape < 3; shape++) {
        for (uint64_t seed = 1; seed <= 8; seed++) {
            struct graph g;
            struct cluster sym, ref;
            struct bound_result a, b;
            struct bound_classes k;
            char what[64];
            int32_t gpn = shape == 0 ? 0 : 3;

            snprintf(what, sizeof(what), "shape %d seed %llu", shape, (unsigned long long)seed);
            cr_assert_eq(simtest_dag2(&g, 12, seed, out_bytes[seed % 3], 50, 400), 0, "%s",
                         err_msg());
            make_cluster(&sym, 6, gpn, 900);
            if (shape == 2) {
                for (int32_t d = 3; d < 6; d++) {
                    sym.dev[d].speed = 1.5; /* the second node faster */
                }
            }
            cr_assert_eq(bound_classes_build(&sym, 0, &k), 0, "%s", err_msg());
            cr_assert(k.symmetric, "%s", what);
            bound_classes_release(&k);
            cr_assert_eq(cluster_copy(&ref, &sym), 0, "%s", err_msg());
            if (!ref.pair) {
                cr_assert_eq(cluster_expand_nodes(&ref), 0);
                ref.pair = mem_alloc_array(36, sizeof(*ref.pair));
                cr_assert(ref.pair);
                for (int i = 0; i < 36; i++) {
                    ref.pair[i] = (struct comm_model){NAN, NAN};
                }
            }
            ref.pair[0 * 6 + 4] = (struct comm_model){1.0, 1000}; /* dearer than any other */
            cr_assert_eq(bound_classes_build(&ref, 0, &k), 0, "%s", err_msg());
            cr_assert(!k.symmetric, "%s", what);
            bound_classes_release(&k);
            cr_assert_eq(bound_compute(&g, &sym, NULL, &a), 0, "%s", err_msg());
            cr_assert_eq(bound_compute(&g, &ref, NULL, &b), 0, "%s", err_msg());
            expect_same_bound(&a, &b, what);
            n_memory += a.memory_us > a.simple_us;
            n_lp += a.lp_us >= 0;
            cluster_release(&sym);
            cluster_release(&ref);
            graph_release(&g);
        }
    }
    cr_expect_gt(n_memory, 0, "the memory bound never took part");
    cr_expect_gt(n_lp, 0, "the LP never ran");
}
