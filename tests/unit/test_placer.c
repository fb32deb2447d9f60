/*
 * test_placer.c - the placers (baechi-spec §2-§4, §6.1, §6.3, §13 T2-T5):
 * hand-checked vectors, the fast/reference identity of m-ETF, and
 * properties on seeded random DAGs.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include <criterion/criterion.h>

#include "core/err.h"
#include "placers/placer.h"
#include "placers/placer_internal.h"
#include "sim/sim.h"
#include "tests/unit/placer_fixture.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void place_ok(const char *placer, const struct graph *g, const struct cluster *c,
                     const struct placer_options *o, struct placement *p, struct placer_stats *st)
{
    int rc = placer_run(placer, g, c, o, "t", p, st);
    cr_assert_eq(rc, 0, "%s: %s", placer, err_msg());
}

Test(placer, t2_etf_all_on_device0_18us)
{
    struct graph g;
    struct cluster c;
    struct placer_options o;

    t2_setup(&g, &c);
    placer_options_init(&o);
    for (int impl = 0; impl < 2; impl++) {
        struct placement p;
        struct placer_stats st;
        o.impl = impl ? PLACER_IMPL_REFERENCE : PLACER_IMPL_FAST;
        place_ok("m-etf", &g, &c, &o, &p, &st);
        cr_expect_eq(st.estimate_us, 18, "impl %d: estimate %lld", impl, (long long)st.estimate_us);
        for (int v = 0; v < 3; v++) {
            cr_expect_eq(p.device_of[v], 0, "op %d on %d", v, p.device_of[v]);
        }
        placement_release(&p);
        placer_stats_release(&st);
    }
    cluster_release(&c);
    graph_release(&g);
}

Test(placer, t3_lp_optimum_and_favourites)
{
    struct graph g;
    struct cluster c;
    struct pgraph pg;
    struct lp_result r;
    int32_t fav[6], nfe, nf;

    t2_setup(&g, &c);
    ungrouped_pgraph(&pg, &g, &c);
    cr_assert_eq(pg.m, 3);
    cr_expect_eq(pg.ecomm[0], 7);
    cr_expect_eq(pg.ecomm[1], 7);
    cr_expect_eq(pg.ecomm[2], 4);
    cr_assert_eq(lp_favourite_child(&pg, 0, &r), 0, "%s", err_msg());
    cr_expect(fabs(r.x[0] - 1.0 / 9) < 1e-6, "x0 = %g", r.x[0]);
    cr_expect(fabs(r.x[1] - 8.0 / 9) < 1e-6, "x1 = %g", r.x[1]);
    cr_expect(fabs(r.x[2] - 1.0 / 9) < 1e-6, "x2 = %g", r.x[2]);
    cr_expect(fabs(r.makespan_us - 173.0 / 9) < 1e-6, "w* = %g", r.makespan_us);
    cr_expect_str_eq(r.status, "optimal");
    sct_assign_favourites(&pg, r.x, 0.1, fav, &nfe, &nf);
    cr_expect_eq(nfe, 0);
    cr_expect_eq(nf, 0);
    sct_assign_favourites(&pg, r.x, 0.5, fav, &nfe, &nf);
    cr_expect_eq(nfe, 2);
    cr_expect_eq(nf, 2);
    cr_expect_eq(fav[0], 1, "fav(A) = B");
    cr_expect_eq(fav[1], 2, "fav(B) = C");
    lp_result_release(&r);
    pgraph_release(&pg);
    cluster_release(&c);
    graph_release(&g);
}

Test(placer, t6_sct_rounding_half_to_even)
{
    /* x = θ exactly: round(0.5) = 0 -> favourite (§13 T6) */
    struct graph g;
    struct cluster c;
    struct pgraph pg;
    int32_t fav[6], nfe, nf;
    double x[3] = {0.25, 0.75, 0.26};

    t2_setup(&g, &c);
    ungrouped_pgraph(&pg, &g, &c);
    sct_assign_favourites(&pg, x, 0.25, fav, &nfe, &nf);
    cr_expect_eq(nfe, 1, "only x = 0.25 = θ rounds to 0");
    cr_expect_eq(fav[0], 1);
    pgraph_release(&pg);
    cluster_release(&c);
    graph_release(&g);
}

Test(placer, sct_equals_etf_without_favourites)
{
    struct graph g;
    struct cluster c;
    struct placer_options o;
    struct placement pe, ps;
    struct placer_stats se, ss;

    t2_setup(&g, &c);
    placer_options_init(&o);
    place_ok("m-etf", &g, &c, &o, &pe, &se);
    place_ok("m-sct", &g, &c, &o, &ps, &ss);
    cr_expect_eq(ss.n_favourites, 0);
    cr_expect_eq(ss.estimate_us, se.estimate_us);
    cr_expect_eq(memcmp(pe.device_of, ps.device_of, 3 * sizeof(int32_t)), 0);
    cr_expect(fabs(ss.lp_makespan_us - 173.0 / 9) < 1e-6);
    placement_release(&pe);
    placement_release(&ps);
    placer_stats_release(&se);
    placer_stats_release(&ss);
    cluster_release(&c);
    graph_release(&g);
}

Test(placer, t4_topo_uniform_3_plus_1)
{
    static const struct simtest_op ops[] = {
        {"a", 1, "10", 0, 0, -1, NULL},
        {"b", 1, "10", 0, 0, -1, "a"},
        {"c", 1, "10", 0, 0, -1, "b"},
        {"d", 1, "10", 0, 0, -1, "c"},
    };
    struct graph g;
    struct cluster c;
    struct placer_options o;
    struct placement p;
    struct placer_stats st;

    cr_assert_eq(simtest_graph(&g, ops, 4), 0);
    cr_assert_eq(simtest_cluster(&c, 2, 1000, 1, 0, CHANNEL_SHARED), 0);
    placer_options_init(&o);
    place_ok("m-topo", &g, &c, &o, &p, &st);
    cr_expect_eq(p.device_of[0], 0);
    cr_expect_eq(p.device_of[1], 0);
    cr_expect_eq(p.device_of[2], 0);
    cr_expect_eq(p.device_of[3], 1);
    cr_expect_eq(st.estimate_us, -1);
    placement_release(&p);
    placer_stats_release(&st);
    cluster_release(&c);
    graph_release(&g);
}

Test(placer, topo_nonuniform_leftover_is_infeasible)
{
    static const struct simtest_op ops[] = {
        {"a", 1, "500", 0, 600, -1, NULL},
        {"b", 1, "500", 0, 600, -1, "a"},
        {"c", 1, "500", 0, 600, -1, "b"},
    };
    struct graph g;
    struct cluster c;
    struct placer_options o;
    struct placement p;
    struct placer_stats st;

    err_set_quiet(1);
    cr_assert_eq(simtest_graph(&g, ops, 3), 0);
    cr_assert_eq(simtest_cluster(&c, 2, 1000, 1, 0, CHANNEL_SHARED), 0);
    placer_options_init(&o);
    cr_expect_eq(placer_run("m-topo-nonuniform", &g, &c, &o, "t", &p, &st), BAECHI_EINFEASIBLE);
    cr_expect(strstr(err_msg(), "'c'") != NULL, "%s", err_msg());
    placer_stats_release(&st);
    cluster_release(&c);
    graph_release(&g);
}

Test(placer, lp_glpk_error_is_a_code)
{
    err_set_quiet(1);
    cr_expect_eq(lp_selftest_error(), BAECHI_ESOLVER);
    cr_expect(strstr(err_msg(), "GLPK") != NULL, "%s", err_msg());
}

/* ------------------------------------------------------------------ groups */

struct gop {
    const char *name;
    const char *group; /* NULL = own */
    int64_t time_us, temp, persist;
    const char *outputs;
    const char *inputs;
};

static void gop_graph(struct graph *g, const struct gop *ops, int n)
{
    struct workload w;
    workload_init(&w);
    cr_assert_eq(workload_set_name(&w, "g"), 0);
    for (int i = 0; i < n; i++) {
        int32_t idx;
        const char *p;
        cr_assert_eq(workload_add_op(&w, ops[i].name, "Op", &idx), 0);
        w.op[idx].time_us = (double)ops[i].time_us;
        w.op[idx].temp = ops[i].temp;
        w.op[idx].persistent = ops[i].persist;
        if (ops[i].group) {
            cr_assert_eq(workload_set_group(&w, idx, ops[i].group), 0);
        }
        for (p = ops[i].outputs; p && *p;) {
            char *end;
            long long b = strtoll(p, &end, 10);
            if (end == p) {
                break;
            }
            cr_assert_eq(workload_add_output(&w, b), 0);
            p = end;
        }
        for (p = ops[i].inputs; p && *p; p++) {
            /* single-letter producers: "a" (port 0), "a1" (port 1), "^a" */
            int control = 0, port = 0;
            int32_t prod;
            char nm[2] = {0, 0};
            if (*p == ' ') {
                continue;
            }
            if (*p == '^') {
                control = 1;
                p++;
            }
            nm[0] = *p;
            if (p[1] >= '0' && p[1] <= '9') {
                port = p[1] - '0';
                p++;
            }
            prod = workload_find(&w, nm);
            cr_assert_geq(prod, 0, "producer %s", nm);
            cr_assert_eq(workload_add_input(&w, prod, control ? WL_PORT_CONTROL : port, 0, 0), 0);
        }
    }
    cr_assert_eq(workload_check(&w), 0, "%s", err_msg());
    cr_assert_eq(graph_build(g, &w), 0, "%s", err_msg());
    workload_release(&w);
}

/* group of op `name` after coplace; returns its representative name */
static const char *coplace_of(const struct graph *g, const int32_t *gr, const char **rep,
                              const char *name)
{
    return rep[gr[graph_find(g, name)]];
}

static void coplace(const struct gop *ops, int n, struct graph *g, int32_t *gr, const char **rep,
                    int32_t *ng)
{
    gop_graph(g, ops, n);
    cr_assert_eq(placer_group(g, PLACER_GROUPER_COPLACE, gr, ng, rep), 0);
}

Test(grouper, coplace_vectors)
{
    struct graph g;
    int32_t gr[8], ng;
    const char *rep[8];

    { /* a->b: merged */
        const struct gop o[] = {{"a", 0, 1, 0, 0, "1", ""}, {"b", 0, 1, 0, 0, "", "a"}};
        coplace(o, 2, &g, gr, rep, &ng);
        cr_expect_eq(ng, 1);
        graph_release(&g);
    }
    { /* a->c, b->c: all three */
        const struct gop o[] = {
            {"a", 0, 1, 0, 0, "1", ""}, {"b", 0, 1, 0, 0, "1", ""}, {"c", 0, 1, 0, 0, "", "a b"}};
        coplace(o, 3, &g, gr, rep, &ng);
        cr_expect_eq(ng, 1);
        cr_expect_str_eq(coplace_of(&g, gr, rep, "c"), "a");
        graph_release(&g);
    }
    { /* a->b->c: all */
        const struct gop o[] = {
            {"a", 0, 1, 0, 0, "1", ""}, {"b", 0, 1, 0, 0, "1", "a"}, {"c", 0, 1, 0, 0, "", "b"}};
        coplace(o, 3, &g, gr, rep, &ng);
        cr_expect_eq(ng, 1);
        graph_release(&g);
    }
    { /* a->b, a->c: nothing */
        const struct gop o[] = {
            {"a", 0, 1, 0, 0, "1", ""}, {"b", 0, 1, 0, 0, "", "a"}, {"c", 0, 1, 0, 0, "", "a"}};
        coplace(o, 3, &g, gr, rep, &ng);
        cr_expect_eq(ng, 3);
        graph_release(&g);
    }
    { /* a->b->c, a->d: {b, c} named b */
        const struct gop o[] = {{"a", 0, 1, 0, 0, "1", ""},
                                {"b", 0, 1, 0, 0, "1", "a"},
                                {"c", 0, 1, 0, 0, "", "b"},
                                {"d", 0, 1, 0, 0, "", "a"}};
        coplace(o, 4, &g, gr, rep, &ng);
        cr_expect_eq(ng, 3);
        cr_expect_str_eq(coplace_of(&g, gr, rep, "c"), "b");
        cr_expect_str_eq(coplace_of(&g, gr, rep, "a"), "a");
        cr_expect_str_eq(coplace_of(&g, gr, rep, "d"), "d");
        graph_release(&g);
    }
    { /* a->b->c, a->d, e->c: {b, c, e} named b */
        const struct gop o[] = {{"a", 0, 1, 0, 0, "1", ""},
                                {"b", 0, 1, 0, 0, "1", "a"},
                                {"e", 0, 1, 0, 0, "1", ""},
                                {"c", 0, 1, 0, 0, "", "b e"},
                                {"d", 0, 1, 0, 0, "", "a"}};
        coplace(o, 5, &g, gr, rep, &ng);
        cr_expect_eq(ng, 3);
        cr_expect_str_eq(coplace_of(&g, gr, rep, "e"), "b");
        cr_expect_str_eq(coplace_of(&g, gr, rep, "c"), "b");
        cr_expect_neq(gr[graph_find(&g, "a")], gr[graph_find(&g, "d")]);
        graph_release(&g);
    }
    { /* a control edge a->b: merged */
        const struct gop o[] = {{"a", 0, 1, 0, 0, "", ""}, {"b", 0, 1, 0, 0, "", "^a"}};
        coplace(o, 2, &g, gr, rep, &ng);
        cr_expect_eq(ng, 1);
        graph_release(&g);
    }
}

/* ------------------------------------------------------------------ fusion (§6.3) */

struct fused {
    struct graph g;
    struct pgraph in, out;
    int32_t map[16];
};

static void fuse(struct fused *f, const struct gop *ops, int n)
{
    struct cluster c;
    gop_graph(&f->g, ops, n);
    cr_assert_eq(simtest_cluster(&c, 1, 1000, 1.0, 0.0, CHANNEL_SHARED), 0);
    cr_assert_eq(pgraph_from_graph(&f->in, &f->g, &c, f->g.group, f->g.n_groups, 1.0, 1.0), 0);
    cr_assert_eq(pgraph_fuse(&f->in, false, &f->out, f->map), 0, "%s", err_msg());
    cluster_release(&c);
}

static void fused_release(struct fused *f)
{
    pgraph_release(&f->in);
    pgraph_release(&f->out);
    graph_release(&f->g);
}

static void expect_node(const struct fused *f, const char *op, int64_t w, int64_t temp,
                        int64_t persist, int64_t out)
{
    int32_t v = f->map[graph_find(&f->g, op)];
    cr_expect_eq(f->out.weight[v], w, "%s weight %lld", op, (long long)f->out.weight[v]);
    cr_expect_eq(f->out.temp[v], temp, "%s temp %lld", op, (long long)f->out.temp[v]);
    cr_expect_eq(f->out.persist[v], persist, "%s persist %lld", op, (long long)f->out.persist[v]);
    cr_expect_eq(f->out.out[v], out, "%s out %lld", op, (long long)f->out.out[v]);
}

Test(fusion, case1_chain_one_group)
{
    struct fused f;
    const struct gop o[] = {{"a", "g0", 2, 0, 5, "1", ""},
                            {"b", "g0", 3, 2, 0, "2", "a"},
                            {"c", "g0", 3, 4, 0, "", "b"}};
    fuse(&f, o, 3);
    cr_expect_eq(f.out.n, 1);
    cr_expect_eq(f.out.m, 0);
    expect_node(&f, "a", 8, 4, 5, 0);
    fused_release(&f);
}

Test(fusion, case2_c_in_other_group)
{
    struct fused f;
    const struct gop o[] = {{"a", "g0", 2, 0, 5, "1", ""},
                            {"b", "g0", 3, 2, 0, "2", "a"},
                            {"c", "g1", 3, 4, 0, "", "b"}};
    fuse(&f, o, 3);
    cr_expect_eq(f.out.n, 2);
    cr_expect_eq(f.out.m, 1);
    expect_node(&f, "a", 5, 2, 5, 2);
    expect_node(&f, "c", 3, 4, 0, 0);
    cr_expect_eq(f.out.ecomm[0], 2);
    fused_release(&f);
}

Test(fusion, case3_two_producers)
{
    struct fused f;
    const struct gop o[] = {{"a", "g0", 2, 0, 5, "1", ""},
                            {"b", "g1", 3, 2, 2, "2", ""},
                            {"c", "g0", 3, 4, 2, "", "a b"}};
    fuse(&f, o, 3);
    cr_expect_eq(f.out.n, 2);
    cr_expect_eq(f.out.m, 1);
    expect_node(&f, "a", 5, 4, 7, 0);
    cr_expect_eq(f.map[graph_find(&f.g, "c")], f.map[graph_find(&f.g, "a")]);
    cr_expect_eq(f.out.ecomm[0], 2);
    cr_expect_eq(f.out.src[0], f.map[graph_find(&f.g, "b")]);
    fused_release(&f);
}

Test(fusion, case4_all_one_group_b_survives)
{
    struct fused f;
    const struct gop o[] = {{"a", "g0", 2, 0, 5, "1", ""},
                            {"b", "g0", 3, 2, 3, "2", ""},
                            {"c", "g0", 3, 4, 2, "", "a b"}};
    fuse(&f, o, 3);
    cr_expect_eq(f.out.n, 1);
    expect_node(&f, "b", 8, 4, 10, 0);
    /* b is the survivor: its topo index is kept */
    cr_expect_eq(f.out.topo[0], f.g.topo[graph_find(&f.g, "b")]);
    fused_release(&f);
}

Test(fusion, case5_only_cd_fused)
{
    struct fused f;
    const struct gop o[] = {{"a", "g0", 1, 0, 0, "1", ""},
                            {"b", "g0", 1, 0, 0, "1", ""},
                            {"c", "g1", 2, 3, 1, "2", "a b"},
                            {"d", "g1", 2, 7, 2, "4", "c"},
                            {"e", "g0", 1, 0, 0, "", "d"}};
    fuse(&f, o, 5);
    cr_expect_eq(f.out.n, 4);
    cr_expect_eq(f.out.m, 3);
    expect_node(&f, "c", 4, 7, 3, 4);
    fused_release(&f);
}

Test(fusion, case6_two_ports)
{
    struct fused f;
    const struct gop o[] = {{"a", "g0", 2, 5, 6, "1 2", ""},
                            {"b", "g0", 3, 0, 2, "3", "a"},
                            {"c", "g1", 2, 7, 2, "1", "a1"},
                            {"d", "g1", 2, 0, 0, "", "b c"}};
    fuse(&f, o, 4);
    cr_expect_eq(f.out.n, 2);
    cr_expect_eq(f.out.m, 1);
    expect_node(&f, "a", 5, 5, 8, 5);
    expect_node(&f, "c", 4, 7, 2, 0);
    cr_expect_eq(f.out.ecomm[0], 5, "one edge carrying a:1 and b:0");
    cr_expect_eq(f.out.et_start[1] - f.out.et_start[0], 2);
    fused_release(&f);
}

Test(fusion, case7_no_fusion_when_both_degrees_above_one)
{
    struct fused f;
    /* a->b, a->c, d->b, c->d; a, b in g0; c, d in g1 (inputs may name later ops,
     * but file order is op order, so c and d come before b) */
    const struct gop o[] = {{"a", "g0", 1, 0, 0, "1", ""},
                            {"c", "g1", 2, 7, 2, "2", "a"},
                            {"d", "g1", 2, 0, 0, "3", "c"},
                            {"b", "g0", 1, 0, 0, "", "a d"}};
    fuse(&f, o, 4);
    cr_expect_eq(f.out.n, 3, "a->b stays: outdeg(a) = indeg(b) = 2");
    cr_expect_eq(f.out.m, 3);
    expect_node(&f, "c", 4, 7, 2, 3);
    cr_expect_neq(f.map[graph_find(&f.g, "a")], f.map[graph_find(&f.g, "b")]);
    fused_release(&f);
}

Test(fusion, disjoint_check_fuses_when_no_other_path)
{
    /* a->b with a->x, y->b, all in g0 except x, y: no other a~>b path */
    struct graph g;
    struct cluster c;
    struct pgraph in, out;
    int32_t map[8];
    const struct gop o[] = {{"a", "g0", 1, 0, 0, "1", ""},
                            {"y", "g1", 1, 0, 0, "1", ""},
                            {"b", "g0", 1, 0, 0, "", "a y"},
                            {"x", "g2", 1, 0, 0, "", "a"}};
    gop_graph(&g, o, 4);
    cr_assert_eq(simtest_cluster(&c, 1, 1000, 1.0, 0.0, CHANNEL_SHARED), 0);
    cr_assert_eq(pgraph_from_graph(&in, &g, &c, g.group, g.n_groups, 1.0, 1.0), 0);
    cr_assert_eq(pgraph_fuse(&in, false, &out, map), 0);
    cr_expect_eq(out.n, 4);
    pgraph_release(&out);
    cr_assert_eq(pgraph_fuse(&in, true, &out, map), 0);
    cr_expect_eq(out.n, 3);
    pgraph_release(&out);
    pgraph_release(&in);
    cluster_release(&c);
    graph_release(&g);
}

/* ------------------------------------------------------------------ random graphs */

/* A random DAG with colocation groups of up to 3 ops (some), persistent and temp memory. */
static void random_graph(struct graph *g, int n, uint64_t seed)
{
    struct workload w;
    uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 7;

    workload_init(&w);
    cr_assert_eq(workload_set_name(&w, "rand"), 0);
    for (int i = 0; i < n; i++) {
        char name[32], grp[32];
        int32_t idx;
        int nin = i == 0 ? 0 : 1 + (int)(simtest_rand(&s) % 3);
        snprintf(name, sizeof(name), "op%d", i);
        cr_assert_eq(workload_add_op(&w, name, "Op", &idx), 0);
        w.op[idx].time_us = (double)(1 + simtest_rand(&s) % 60);
        w.op[idx].temp = (int64_t)(simtest_rand(&s) % 3 == 0 ? simtest_rand(&s) % 3000 : 0);
        w.op[idx].persistent = (int64_t)(simtest_rand(&s) % 4 == 0 ? simtest_rand(&s) % 2000 : 0);
        if (simtest_rand(&s) % 3 == 0) {
            snprintf(grp, sizeof(grp), "g%d", (int)(simtest_rand(&s) % (uint64_t)(n / 3 + 1)));
            cr_assert_eq(workload_set_group(&w, idx, grp), 0);
        }
        cr_assert_eq(workload_add_output(&w, (int64_t)(simtest_rand(&s) % 60000)), 0);
        if (simtest_rand(&s) % 4 == 0) {
            cr_assert_eq(workload_add_output(&w, (int64_t)(simtest_rand(&s) % 30000)), 0);
        }
        for (int k = 0; k < nin; k++) {
            int32_t lo = i > 12 ? i - 12 : 0;
            int32_t prod = lo + (int32_t)(simtest_rand(&s) % (uint64_t)(i - lo));
            int32_t port = simtest_rand(&s) % 8 == 0
                               ? WL_PORT_CONTROL
                               : (int32_t)(simtest_rand(&s) % (uint64_t)w.op[prod].n_out);
            cr_assert_eq(workload_add_input(&w, prod, port, 0, 0), 0);
        }
    }
    cr_assert_eq(workload_check(&w), 0, "%s", err_msg());
    cr_assert_eq(graph_build(g, &w), 0, "%s", err_msg());
    workload_release(&w);
}

static int64_t total_mem(const struct graph *g)
{
    int64_t t = 0;
    for (int32_t v = 0; v < g->n_ops; v++) {
        t += g->out_bytes[v] + g->temp_bytes[v] + g->persist_bytes[v];
    }
    return t;
}

Test(placer, etf_fast_equals_reference_on_random_graphs)
{
    int checked = 0;
    err_set_quiet(1);
    for (uint64_t seed = 1; seed <= 40; seed++) {
        struct graph g;
        struct cluster c;
        int32_t D = 2 + (int32_t)(seed % 3);
        random_graph(&g, 40 + (int)(seed * 7 % 90), seed);
        /* ample, then tight memory (deadlocks and waits included) */
        for (int tight = 0; tight < 3; tight++) {
            int64_t mem = tight == 0 ? total_mem(&g) * 2 : total_mem(&g) / (tight == 1 ? 3 : 6);
            cr_assert_eq(simtest_cluster(&c, D, mem, 0.002, 20, CHANNEL_SHARED), 0);
            for (int variant = 0; variant < 4; variant++) {
                struct placer_options o;
                struct placement pf, pr;
                struct placer_stats sf, sr;
                int rf, rr;
                const char *name = variant & 1 ? "m-etf-reserve" : "m-etf";
                placer_options_init(&o);
                o.fusion = variant & 2;
                o.grouper = variant & 2 ? PLACER_GROUPER_COPLACE : PLACER_GROUPER_TF;
                rf = placer_run(name, &g, &c, &o, "r", &pf, &sf);
                o.impl = PLACER_IMPL_REFERENCE;
                rr = placer_run(name, &g, &c, &o, "r", &pr, &sr);
                cr_assert_eq(rf, rr, "seed %d tight %d variant %d: rc %d vs %d (%s)", (int)seed,
                             tight, variant, rf, rr, err_msg());
                if (rf == 0) {
                    cr_assert_eq(sf.estimate_us, sr.estimate_us, "seed %d: estimate %lld vs %lld",
                                 (int)seed, (long long)sf.estimate_us, (long long)sr.estimate_us);
                    cr_assert_eq(
                        memcmp(pf.device_of, pr.device_of, (size_t)g.n_ops * sizeof(int32_t)), 0,
                        "seed %d tight %d variant %d: device_of differs", (int)seed, tight,
                        variant);
                    placement_release(&pf);
                    placement_release(&pr);
                    checked++;
                }
                placer_stats_release(&sf);
                placer_stats_release(&sr);
            }
            cluster_release(&c);
        }
        graph_release(&g);
    }
    cr_expect_gt(checked, 100, "only %d feasible cases compared", checked);
}

static void write_mem(const struct placement *p, const struct graph *g, char **buf, size_t *len)
{
    FILE *f = open_memstream(buf, len);
    cr_assert_not_null(f);
    cr_assert_eq(placement_write_yaml(p, g, f), 0);
    fclose(f);
}

Test(placer, properties_on_random_graphs)
{
    static const char *const names[] = {"m-topo", "m-topo-nonuniform", "m-etf",  "m-etf-reserve",
                                        "m-sct",  "m-sct-reserve",     "single", "round-robin",
                                        "random"};
    int feasible = 0;

    err_set_quiet(1);
    for (uint64_t seed = 100; seed < 112; seed++) {
        struct graph g;
        struct cluster c;
        int32_t D = 2 + (int32_t)(seed % 3);
        int64_t lb;
        random_graph(&g, 60 + (int)(seed % 50), seed);
        cr_assert_eq(
            simtest_cluster(&c, D, total_mem(&g) / (seed % 2 ? 2 : 5), 0.002, 20, CHANNEL_SHARED),
            0);
        cr_assert_eq(sim_lower_bound_us(&g, &c, &lb), 0);
        for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
            struct placer_options o;
            struct placement p1, p2;
            struct placer_stats s1, s2;
            char *b1 = NULL, *b2 = NULL;
            size_t l1 = 0, l2 = 0;
            int rc;
            placer_options_init(&o);
            o.sct_threshold = seed % 3 == 0 ? 0.5 : 0.1;
            rc = placer_run(names[k], &g, &c, &o, "r", &p1, &s1);
            if (rc != 0) {
                cr_assert_eq(rc, BAECHI_EINFEASIBLE, "%s: %s", names[k], err_msg());
                cr_expect(strstr(names[k], "reserve") == NULL ||
                              strstr(err_msg(), "colocated op does not fit") == NULL,
                          "reserve stranded a group: %s", err_msg());
                placer_stats_release(&s1);
                continue;
            }
            feasible++;
            for (int32_t v = 0; v < g.n_ops; v++) {
                cr_assert(p1.device_of[v] >= 0 && p1.device_of[v] < D, "%s: op %d on %d", names[k],
                          v, p1.device_of[v]);
                for (int32_t u = 0; u < v; u++) {
                    if (g.group[u] == g.group[v]) {
                        cr_assert_eq(p1.device_of[u], p1.device_of[v], "%s: group split", names[k]);
                    }
                }
            }
            if (s1.estimate_us >= 0) {
                cr_expect_geq(s1.estimate_us, lb, "%s: estimate %lld < lower bound %lld", names[k],
                              (long long)s1.estimate_us, (long long)lb);
                for (int32_t d = 0; d < s1.n_devices; d++) {
                    cr_expect_leq(s1.peak_bytes[d], s1.limit_bytes[d], "%s: device %d peak",
                                  names[k], d);
                }
            }
            cr_assert_eq(placer_run(names[k], &g, &c, &o, "r", &p2, &s2), 0);
            write_mem(&p1, &g, &b1, &l1);
            write_mem(&p2, &g, &b2, &l2);
            cr_expect(l1 == l2 && memcmp(b1, b2, l1) == 0, "%s: placement files differ", names[k]);
            free(b1);
            free(b2);
            placement_release(&p1);
            placement_release(&p2);
            placer_stats_release(&s1);
            placer_stats_release(&s2);
        }
        cluster_release(&c);
        graph_release(&g);
    }
    cr_expect_gt(feasible, 40);
}

Test(placer, sct_urgent_candidates_respect_colocation)
{
    /* θ = 1: every edge is a favourite, so devices wait for favourites and
     * run urgent ops; with tight memory and groups, the urgent rule meets the
     * colocation filter (§4.4).  The deviation keeps every group whole and
     * within the placer's memory limit. */
    int ran = 0;
    err_set_quiet(1);
    for (uint64_t seed = 200; seed < 230; seed++) {
        struct graph g;
        struct cluster c;
        random_graph(&g, 50, seed);
        cr_assert_eq(simtest_cluster(&c, 3, total_mem(&g) / 4, 0.002, 20, CHANNEL_SHARED), 0);
        for (int r = 0; r < 2; r++) {
            struct placer_options o;
            struct placement p;
            struct placer_stats st;
            placer_options_init(&o);
            o.sct_threshold = 1.0;
            if (placer_run(r ? "m-sct-reserve" : "m-sct", &g, &c, &o, "r", &p, &st) == 0) {
                ran++;
                cr_expect_gt(st.n_favourites, 0);
                for (int32_t v = 0; v < g.n_ops; v++) {
                    for (int32_t u = 0; u < v; u++) {
                        if (g.group[u] == g.group[v]) {
                            cr_assert_eq(p.device_of[u], p.device_of[v]);
                        }
                    }
                }
                for (int32_t d = 0; d < st.n_devices; d++) {
                    cr_expect_leq(st.peak_bytes[d], st.limit_bytes[d]);
                }
                placement_release(&p);
            }
            placer_stats_release(&st);
        }
        cluster_release(&c);
        graph_release(&g);
    }
    cr_expect_gt(ran, 10);
}

Test(placer, registry_and_options)
{
    struct graph g;
    struct cluster c;
    struct placer_options o;
    struct placement p;
    struct placer_stats st;

    err_set_quiet(1);
    cr_expect_not_null(placer_find("m_sct_reserve"));
    cr_expect_null(placer_find("m-nope"));
    t2_setup(&g, &c);
    placer_options_init(&o);
    cr_expect_eq(placer_run("nope", &g, &c, &o, "t", &p, &st), BAECHI_EINVAL);
    o.n_devices = 3;
    cr_expect_eq(placer_run("m-etf", &g, &c, &o, "t", &p, &st), BAECHI_EINVAL);
    placer_options_init(&o);
    cr_expect_eq(placer_run("expert", &g, &c, &o, "t", &p, &st), BAECHI_EINVAL,
                 "no device fields: no expert placement");
    /* one device: everything on it */
    o.n_devices = 1;
    place_ok("m-sct", &g, &c, &o, &p, &st);
    cr_expect_eq(p.device_of[1], 0);
    cr_expect_eq(st.estimate_us, 18);
    placement_release(&p);
    placer_stats_release(&st);
    cluster_release(&c);
    graph_release(&g);
}

/* Issue 22: the LP's iteration limit counts every attempt's simplex
 * iterations and stops the same way each time; the optimum is unchanged
 * when the limit is not reached. */
Test(placer, lp_iteration_limit_is_work_and_deterministic)
{
    struct graph g;
    struct cluster c;
    struct pgraph pg;
    struct lp_result r0, r1, r2;
    struct lp_limits lim = {0, 0, PLACER_LP_AUTO};
    int32_t *grp;

    err_set_quiet(1);
    random_graph(&g, 300, 11);
    cr_assert_eq(simtest_cluster(&c, 4, 1000000000, T_SLOPE, T_INTERCEPT, CHANNEL_SHARED), 0);
    grp = calloc((size_t)g.n_ops, sizeof(int32_t));
    cr_assert_not_null(grp);
    for (int32_t v = 0; v < g.n_ops; v++) {
        grp[v] = v;
    }
    cr_assert_eq(pgraph_from_graph(&pg, &g, &c, grp, g.n_ops, 1.0, 1.0), 0);
    cr_assert_eq(lp_favourite_child_limited(&pg, &lim, &r0), 0, "%s", err_msg());
    cr_expect_str_eq(r0.status, "optimal");
    cr_assert_gt(r0.iterations, 20, "%lld iterations", (long long)r0.iterations);
    cr_expect_eq(r0.stopped, LP_STOP_NONE);

    lim.iteration_limit = r0.iterations / 2;
    for (int k = 0; k < 2; k++) {
        struct lp_result *r = k ? &r2 : &r1;
        cr_assert_eq(lp_favourite_child_limited(&pg, &lim, r), 0, "%s ret %d status %d it %lld",
                     err_msg(), r->glp_ret, r->glp_status, (long long)r->iterations);
        cr_expect_str_eq(r->status, "iteration limit (feasible)");
        cr_expect_eq(r->stopped, LP_STOP_ITERATIONS);
        cr_expect_eq(r->iterations, lim.iteration_limit);
        cr_expect_gt(r->makespan_us, r0.makespan_us + 1e-6, "stopped before the optimum");
    }
    cr_expect_eq(memcmp(r1.x, r2.x, (size_t)pg.m * sizeof(double)), 0, "the same basis twice");
    cr_expect_eq(r1.makespan_us, r2.makespan_us);
    lp_result_release(&r1);
    lp_result_release(&r2);

    lim.iteration_limit = r0.iterations; /* just enough */
    cr_assert_eq(lp_favourite_child_limited(&pg, &lim, &r1), 0, "%s", err_msg());
    cr_expect_str_eq(r1.status, "optimal");
    cr_expect_eq(memcmp(r0.x, r1.x, (size_t)pg.m * sizeof(double)), 0, "the same optimum");
    lp_result_release(&r1);

    lp_result_release(&r0);
    pgraph_release(&pg);
    free(grp);
    cluster_release(&c);
    graph_release(&g);
}

/* placer_world (issue 34 item 5): the world a placement is simulated in is
 * the cluster with the placement's options applied: the first n_devices
 * devices, memory x memory_fraction, every comm model x comm_factor (flat,
 * intra- and inter-node, per pair); a factor of 1 changes nothing. */
Test(placer, placer_world_applies_devices_memory_and_comm)
{
    struct cluster c, w;
    struct placer_options o;

    cluster_init(&c);
    cluster_init(&w);
    cr_assert_eq(cluster_load(&c, "dgx-h100-2x8"), 0, "%s", err_msg());
    cr_assert_eq(cluster_copy(&w, &c), 0);
    placer_options_init(&o);
    cr_assert_eq(placer_world(&w, &o), 0);
    cr_assert_eq(w.n_devices, c.n_devices, "the defaults keep every device");
    for (int32_t d = 0; d < c.n_devices; d++) {
        cr_assert_eq(w.dev[d].mem_bytes, c.dev[d].mem_bytes, "the defaults keep the memory");
    }
    cr_assert(w.comm.slope_us_per_byte == c.comm.slope_us_per_byte);
    cluster_release(&w);

    cluster_init(&w);
    cr_assert_eq(cluster_copy(&w, &c), 0);
    o.n_devices = 4;
    o.memory_fraction = 0.25;
    o.comm_factor = 3;
    cr_assert_eq(placer_world(&w, &o), 0, "%s", err_msg());
    cr_assert_eq(w.n_devices, 4);
    for (int32_t d = 0; d < 4; d++) {
        cr_assert_eq(w.dev[d].mem_bytes, c.dev[d].mem_bytes / 4, "device %d: %lld", (int)d,
                     (long long)w.dev[d].mem_bytes);
    }
    cr_assert_float_eq(w.comm.slope_us_per_byte, 3 * c.comm.slope_us_per_byte, 1e-18);
    cr_assert_float_eq(w.comm.intercept_us, 3 * c.comm.intercept_us, 1e-12);
    cr_assert_float_eq(w.nodes.intra.slope_us_per_byte, 3 * c.nodes.intra.slope_us_per_byte,
                       1e-18);
    cr_assert_float_eq(w.nodes.inter.intercept_us, 3 * c.nodes.inter.intercept_us, 1e-12);
    /* the transfer time the simulators use follows */
    cr_assert_geq(cluster_comm_us(&w, 0, 1, 1 << 20), 3 * cluster_comm_us(&c, 0, 1, 1 << 20) - 1);
    cluster_release(&w);
    cluster_release(&c);
}
