/*
 * test_sim_links.c - the links a simulation keeps counters for
 * (sim/sim_links.h, issue 32): dense up to SIM_LINKS_DENSE_MAX devices;
 * above, exactly the distinct pairs of the cross-device edges, in (src,
 * dst) order, each found by sim_links_find, pairs never used not found;
 * and sim_run's traffic on such a cluster adds up to the edges' bytes.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include <criterion/criterion.h>

#include "core/err.h"
#include "sim/sim.h"
#include "sim/sim_links.h"
#include "tests/unit/simtest.h"

#include <stdlib.h>

Test(sim_links, dense_up_to_the_limit)
{
    struct sim_links l;
    int32_t s, d;

    cr_assert_eq(sim_links_init_dense(&l, 5), 0);
    cr_expect_eq(l.n, 25);
    cr_expect_eq(sim_links_find(&l, 3, 4), 19);
    sim_links_pair(&l, 19, &s, &d);
    cr_expect(s == 3 && d == 4);
    sim_links_release(&l);
}

/* Random graphs on 1,000 devices: the links are the distinct pairs. */
Test(sim_links, sparse_is_the_used_pairs)
{
    for (uint64_t seed = 1; seed <= 20; seed++) {
        struct graph g;
        struct cluster c;
        struct sim_links l;
        uint8_t *used;
        size_t n_used = 0;
        const int32_t nd = 1000;

        cr_assert_eq(simtest_random_graph(&g, 300, nd, seed), 0, "%s", err_msg());
        cr_assert_eq(simtest_cluster(&c, nd, 1 << 30, 1e-3, 5, CHANNEL_DUPLEX), 0);
        cr_assert_eq(sim_links_init_placed(&l, &g, &c, g.given_device), 0, "%s", err_msg());
        cr_assert_not_null(l.src, "1,000 devices: sparse");
        used = calloc((size_t)nd * nd, 1);
        cr_assert_not_null(used);
        for (int32_t e = 0; e < g.n_edges; e++) {
            int32_t a = g.given_device[g.edge_src[e]], b = g.given_device[g.edge_dst[e]];

            if (a != b && !used[(size_t)a * nd + b]) {
                used[(size_t)a * nd + b] = 1;
                n_used++;
            }
        }
        cr_expect_eq(l.n, n_used, "seed %llu", (unsigned long long)seed);
        for (size_t i = 0; i < l.n; i++) {
            int32_t s, d;

            sim_links_pair(&l, i, &s, &d);
            cr_expect(used[(size_t)s * nd + d], "seed %llu: %d -> %d", (unsigned long long)seed, s,
                      d);
            cr_expect_eq(sim_links_find(&l, s, d), (int64_t)i);
            if (i > 0) {
                cr_expect(l.src[i - 1] < s || (l.src[i - 1] == s && l.dst[i - 1] < d));
            }
        }
        for (int32_t s = 0; s < nd; s += 7) {
            for (int32_t d = 0; d < nd; d += 11) {
                cr_expect_eq(sim_links_find(&l, s, d) >= 0, used[(size_t)s * nd + d] != 0,
                             "seed %llu: %d -> %d", (unsigned long long)seed, s, d);
            }
        }
        free(used);
        sim_links_release(&l);
        cluster_release(&c);
        graph_release(&g);
    }
}

/* sim_run on 1,000 devices: each link's bytes are what its edges carry
 * once per (tensor, receiving device; a control edge once per producer and
 * device), in both models. */
Test(sim_links, sim_run_counts_on_the_used_pairs)
{
    struct graph g;
    struct cluster c;
    const int32_t nd = 1000;

    cr_assert_eq(simtest_random_graph(&g, 200, nd, 7), 0, "%s", err_msg());
    cr_assert_eq(simtest_cluster(&c, nd, 1LL << 40, 1e-3, 5, CHANNEL_LINK), 0);
    for (int m = 0; m < 2; m++) {
        struct sim_options opt = {.model = m ? SIM_MODEL_BAECHI : SIM_MODEL_TIMED};
        struct sim_result r;
        int64_t want = 0, got = 0;
        uint8_t *seen = calloc((size_t)g.n_ports + 1, (size_t)nd);
        uint8_t *seen_ctl = calloc((size_t)g.n_ops + 1, (size_t)nd); /* control: per producer */

        cr_assert(seen && seen_ctl);
        cr_assert_eq(sim_run(&g, &c, g.given_device, &opt, &r), 0, "%s", err_msg());
        cr_expect_not_null(r.links.src);
        for (int32_t e = 0; e < g.n_edges; e++) {
            int32_t b = g.given_device[g.edge_dst[e]];

            if (g.given_device[g.edge_src[e]] == b) {
                continue;
            }
            for (int32_t sl = g.et_start[e]; sl < g.et_start[e + 1]; sl++) {
                int32_t x = g.et_tensor[sl];

                uint8_t *k = x < g.n_ports ? &seen[(size_t)x * nd + b]
                                           : &seen_ctl[(size_t)g.edge_src[e] * nd + b];

                if (!*k) {
                    *k = 1;
                    want += g.tensor_bytes[x];
                }
            }
        }
        for (size_t i = 0; i < r.links.n; i++) {
            got += r.link_bytes[i];
        }
        cr_expect_eq(got, want, "model %d: %lld B on the links, the edges carry %lld B", m,
                     (long long)got, (long long)want);
        free(seen);
        free(seen_ctl);
        sim_result_release(&r);
    }
    cluster_release(&c);
    graph_release(&g);
}
