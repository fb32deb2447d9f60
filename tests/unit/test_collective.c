/*
 * test_collective.c - collectives in the timed simulator (sim/collective.h)
 * and their reading from workloads (core/graph_coll.h): the analytic costs
 * of ring, tree and hierarchical algorithms (every kind over nodes, with
 * rails and the achieved bus bandwidth) within 2 %, overlap with
 * compute, channels and memory held, deadlock and bad-input messages.
 */
#include <criterion/criterion.h>

#include "core/err.h"
#include "core/graph.h"
#include "core/workload.h"
#include "core/workload_yaml.h"
#include "sim/sim.h"
#include "tests/unit/simtest.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define S_BYTES 100000000LL /* 100 MB */
#define SLOPE   1e-4        /* 10 GB/s */
#define ALPHA   20.0        /* µs */

struct fixture {
    struct workload w;
    struct graph g;
    struct cluster c;
    struct sim_result r;
    char yaml[32768];
    size_t len;
    long long bytes; /* of the next ranks(); S_BYTES when 0 */
};

static void add(struct fixture *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(struct fixture *f, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    f->len += (size_t)vsnprintf(f->yaml + f->len, sizeof(f->yaml) - f->len, fmt, ap);
    va_end(ap);
    cr_assert_lt(f->len, sizeof(f->yaml));
}

/* Per rank i on device dev[i]: p<i> (produce_us) -> c<i> (the collective) -> u<i>. */
static void ranks(struct fixture *f, const char *id, const char *kind, int n, const int *dev,
                  const char *extra, int64_t produce_us)
{
    long long S = f->bytes ? f->bytes : S_BYTES;

    for (int i = 0; i < n; i++) {
        add(f, "  - {name: %s/p%d, type: Grad, time_us: %lld, outputs: [%lld], device: %d}\n", id,
            i, (long long)produce_us, S, dev[i]);
        add(f,
            "  - {name: %s/c%d, type: Coll, time_us: 0, outputs: [%lld], inputs: [\"%s/p%d:0\"], "
            "device: %d, x-collective: {id: %s, kind: %s, bytes: %lld%s}}\n",
            id, i, S, id, i, dev[i], id, kind, S, extra);
        add(f, "  - {name: %s/u%d, type: Upd, time_us: 1, inputs: [\"%s/c%d:0\"], device: %d}\n",
            id, i, id, i, dev[i]);
    }
}

static void start(struct fixture *f)
{
    f->len = 0;
    add(f, "format: 1\nname: coll\nops:\n");
}

/* Builds and runs the timed model with the given devices. */
static void run(struct fixture *f, int n_devices, enum channel_model ch)
{
    struct sim_options so = {.model = SIM_MODEL_TIMED};

    err_set_quiet(1);
    cr_assert_eq(workload_read_yaml_string(&f->w, f->yaml, f->len, "coll.yaml"), 0, "%s\n%s",
                 err_msg(), f->yaml);
    cr_assert_eq(graph_build(&f->g, &f->w), 0, "%s", err_msg());
    if (f->c.n_devices == 0) {
        cr_assert_eq(simtest_cluster(&f->c, n_devices, 1LL << 40, SLOPE, ALPHA, ch), 0);
    }
    cr_assert_eq(sim_run(&f->g, &f->c, f->g.given_device, &so, &f->r), 0, "%s", err_msg());
    cr_assert_eq(sim_check(&f->g, &f->c, f->g.given_device, &f->r), 0, "%s", err_msg());
}

static void release(struct fixture *f)
{
    sim_result_release(&f->r);
    graph_release(&f->g);
    workload_release(&f->w);
    cluster_release(&f->c);
}

static int32_t op(const struct fixture *f, const char *name)
{
    int32_t v = graph_find(&f->g, name);

    cr_assert_geq(v, 0, "no op %s", name);
    return v;
}

/* Every rank of `id` starts at start_us and runs within 2 % of want_us. */
static void expect_time(const struct fixture *f, const char *id, int n, int64_t start_us,
                        double want_us)
{
    char name[64];
    int64_t first_end = -1;

    for (int i = 0; i < n; i++) {
        int32_t v;
        double got;

        snprintf(name, sizeof(name), "%s/c%d", id, i);
        v = op(f, name);
        got = (double)(f->r.end_us[v] - f->r.start_us[v]);
        cr_expect_eq(f->r.start_us[v], start_us, "%s starts at %lld, not %lld", name,
                     (long long)f->r.start_us[v], (long long)start_us);
        cr_expect(fabs(got - want_us) <= 0.02 * want_us, "%s: %g µs, want %g µs (2 %%)", name, got,
                  want_us);
        if (first_end < 0) {
            first_end = f->r.end_us[v];
        }
        cr_expect_eq(f->r.end_us[v], first_end, "ranks end together");
    }
}

static const int dev8[] = {0, 1, 2, 3, 4, 5, 6, 7};

Test(collective, ring_all_reduce)
{
    for (int n = 2; n <= 8; n *= 2) {
        struct fixture f = {0};

        start(&f);
        ranks(&f, "ar", "all-reduce", n, dev8, "", 50);
        run(&f, n, CHANNEL_DUPLEX);
        expect_time(&f, "ar", n, 50, 2.0 * (n - 1) / n * S_BYTES * SLOPE + 2.0 * (n - 1) * ALPHA);
        /* each ring link carries 2(n-1)/n S */
        cr_expect_eq(f.r.link_bytes[0 * n + 1], (int64_t)(2.0 * (n - 1) / n * S_BYTES));
        cr_expect_eq(f.r.link_transfers[(n - 1) * n + 0], 1);
        release(&f);
    }
}

Test(collective, reduce_scatter_all_gather_broadcast_all_to_all)
{
    static const char *const kinds[] = {"reduce-scatter", "all-gather", "all-to-all", "broadcast"};

    for (int k = 0; k < 4; k++) {
        struct fixture f = {0};
        int n = 4;
        double want = k < 3 ? (n - 1.0) / n * S_BYTES * SLOPE + (n - 1.0) * ALPHA
                            : S_BYTES * SLOPE + (n - 1.0) * ALPHA;

        start(&f);
        ranks(&f, "x", kinds[k], n, dev8, k == 3 ? ", root: 2" : "", 50);
        run(&f, n, CHANNEL_DUPLEX);
        expect_time(&f, "x", n, 50, want);
        if (k == 3) { /* nothing flows into the root */
            cr_expect_eq(f.r.link_bytes[1 * n + 2], 0);
            cr_expect_eq(f.r.link_bytes[2 * n + 3], S_BYTES);
        }
        release(&f);
    }
}

Test(collective, tree_all_reduce)
{
    struct fixture f = {0};

    start(&f);
    ranks(&f, "t", "all-reduce", 8, dev8, ", algo: tree", 50);
    run(&f, 8, CHANNEL_DUPLEX);
    expect_time(&f, "t", 8, 50, 2.0 * S_BYTES * SLOPE + 2.0 * 3 * ALPHA);
    release(&f);
}

/* 2 nodes x 4 GPUs: 1 GB/s + 5 µs in a node, 0.1 GB/s + 50 µs across;
 * collectives achieve 0.8 of the in-node links, 0.5 of the NICs. */
#define EFF_IN 0.8
#define EFF_X  0.5
static void two_nodes(struct cluster *c)
{
    cr_assert_eq(simtest_cluster(c, 8, 1LL << 40, SLOPE, ALPHA, CHANNEL_DUPLEX), 0);
    c->nodes.gpus_per_node = 4;
    c->nodes.intra = (struct comm_model){1e-3, 5};
    c->nodes.inter = (struct comm_model){1e-2, 50};
    c->coll_efficiency = EFF_IN;
    c->nodes.inter_coll_efficiency = EFF_X;
    cr_assert_eq(cluster_expand_nodes(c), 0);
}

/*
 * The closed form of each collective over m nodes of g ranks (one NIC per
 * GPU: the inter-node phase runs on g rails at once, each with 1/g of the
 * data; phases pipelined, so the slower link class bounds the bandwidth
 * term and the latencies add).  bi, bx: S over the achieved in-node and
 * NIC bandwidths.
 */
static double hier_want(const char *kind, double S, double g, double m, double si, double ai,
                        double sx, double ax)
{
    double bi = S * si, bx = S * sx;

    if (strcmp(kind, "all-reduce") == 0) {
        return 2 * (g - 1) * ai + 2 * (m - 1) * ax +
               fmax(2 * (g - 1) / g * bi, 2 * (m - 1) / m * bx / g);
    }
    if (strcmp(kind, "broadcast") == 0) { /* scatter, rails, all-gather */
        return 2 * (g - 1) * ai + (m - 1) * ax + fmax(2 * (g - 1) / g * bi, bx / g);
    }
    if (strcmp(kind, "all-to-all") == 0) { /* S/n to each rank: (m-1)/m S over the NIC */
        return (g - 1) * ai + (m - 1) * g * ax + fmax((g - 1) / (m * g) * bi, (m - 1) / m * bx);
    }
    return (g - 1) * ai + (m - 1) * ax + fmax((g - 1) / g * bi, (m - 1) / m * bx / g);
}

Test(collective, hierarchical_every_kind_two_nodes)
{
    static const char *const kinds[] = {"all-reduce", "reduce-scatter", "all-gather", "broadcast",
                                        "all-to-all"};
    const double si = 1e-3 / EFF_IN, sx = 1e-2 / EFF_X;

    for (int k = 0; k < 5; k++) {
        for (long long S = 1000; S <= S_BYTES; S *= 100000) { /* latency, bandwidth */
            struct fixture f = {.bytes = S};

            two_nodes(&f.c);
            start(&f);
            ranks(&f, "h", kinds[k], 8, dev8, k == 3 ? ", root: 5" : "", 50);
            run(&f, 8, CHANNEL_DUPLEX);
            cr_log_info("%s S=%lld: want %.0f us", kinds[k], S,
                        hier_want(kinds[k], (double)S, 4, 2, si, 5, sx, 50));
            expect_time(&f, "h", 8, 50, hier_want(kinds[k], (double)S, 4, 2, si, 5, sx, 50));
            release(&f);
        }
    }
}

/* The links a hierarchical all-reduce holds: rings in each node carrying
 * 2(g-1)/g S, and g rails across the nodes carrying 2(m-1)/m S/g each. */
Test(collective, hierarchical_links_and_rails)
{
    struct fixture f = {0};

    two_nodes(&f.c);
    start(&f);
    ranks(&f, "h", "all-reduce", 8, dev8, "", 50);
    run(&f, 8, CHANNEL_DUPLEX);
    cr_expect_eq(f.r.link_bytes[0 * 8 + 1], (int64_t)(2.0 * 3 / 4 * S_BYTES));
    cr_expect_eq(f.r.link_bytes[7 * 8 + 4], (int64_t)(2.0 * 3 / 4 * S_BYTES));
    for (int j = 0; j < 4; j++) { /* rail j: GPU j of each node */
        cr_expect_eq(f.r.link_bytes[j * 8 + 4 + j], S_BYTES / 4, "rail %d", j);
        cr_expect_eq(f.r.link_bytes[(4 + j) * 8 + j], S_BYTES / 4, "rail %d", j);
    }
    cr_expect_eq(f.r.link_bytes[0 * 8 + 5], 0, "no link but the rails crosses the nodes");
    release(&f);

    /* a broadcast from rank 5 (node 1): nothing flows into the root's node on the rails */
    two_nodes(&f.c);
    start(&f);
    ranks(&f, "b", "broadcast", 8, dev8, ", root: 5", 50);
    run(&f, 8, CHANNEL_DUPLEX);
    cr_expect_eq(f.r.link_bytes[1 * 8 + 5], 0);
    cr_expect_eq(f.r.link_bytes[5 * 8 + 1], S_BYTES / 4);
    release(&f);
}

Test(collective, hierarchical_all_reduce_two_nodes)
{
    struct fixture f = {0};
    const double S = (double)S_BYTES;

    /* forced ring: the slowest link is the NIC */
    two_nodes(&f.c);
    start(&f);
    ranks(&f, "r", "all-reduce", 8, dev8, ", algo: ring", 50);
    run(&f, 8, CHANNEL_DUPLEX);
    expect_time(&f, "r", 8, 50, 2.0 * 7 / 8 * S * 1e-2 / EFF_X + 2.0 * 7 * 50);
    release(&f);

    /* within one node the default is a ring over the intra-node links */
    two_nodes(&f.c);
    start(&f);
    ranks(&f, "i", "all-reduce", 4, dev8 + 4, "", 50);
    run(&f, 8, CHANNEL_DUPLEX);
    expect_time(&f, "i", 4, 50, 2.0 * 3 / 4 * S * 1e-3 / EFF_IN + 2.0 * 3 * 5);
    release(&f);

    /* one rank a node: the rail is the ring */
    two_nodes(&f.c);
    start(&f);
    {
        static const int one_each[] = {2, 6};

        ranks(&f, "o", "all-reduce", 2, one_each, "", 50);
    }
    run(&f, 8, CHANNEL_DUPLEX);
    expect_time(&f, "o", 2, 50, 2.0 / 2 * S * 1e-2 / EFF_X + 2.0 * 50);
    release(&f);
}

/*
 * On the dgx-h100-2x8 preset (NVLink 450 GB/s at 0.8, one 400 Gb/s NIC per
 * GPU at 0.9): an all-gather or a reduce-scatter of S bytes over the 16
 * GPUs takes half an all-reduce of S (which is the two), and each matches
 * the nccl-tests bus bandwidth it implies.
 */
Test(collective, all_gather_is_half_an_all_reduce_on_dgx_h100_2x8)
{
    static const int dev16[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    static const char *const kinds[] = {"all-reduce", "all-gather", "reduce-scatter"};
    double t[3];

    for (int k = 0; k < 3; k++) {
        struct fixture f = {.bytes = 1LL << 30};
        int32_t v;

        cr_assert_eq(cluster_load(&f.c, "dgx-h100-2x8"), 0, "%s", err_msg());
        start(&f);
        ranks(&f, "x", kinds[k], 16, dev16, "", 50);
        run(&f, 16, CHANNEL_DUPLEX);
        v = op(&f, "x/c0");
        t[k] = (double)(f.r.end_us[v] - f.r.start_us[v]);
        release(&f);
    }
    cr_log_info("dgx-h100-2x8, 1 GiB: all-reduce %.0f us, all-gather %.0f us, reduce-scatter "
                "%.0f us",
                t[0], t[1], t[2]);
    /* NVLink-bound: 2 (g-1)/g S / (0.8 x 450 GB/s) + 2 (g-1) 10 µs + 2 (m-1) 5 µs */
    cr_expect(fabs(t[0] - (1.75 * (1 << 30) / 360e3 + 150)) <= 2, "all-reduce %g us", t[0]);
    cr_expect(fabs(t[1] - t[0] / 2) <= 1, "all-gather %g us, all-reduce %g us", t[1], t[0]);
    cr_expect(fabs(t[2] - t[0] / 2) <= 1, "reduce-scatter %g us, all-reduce %g us", t[2], t[0]);
}

/*
 * Against a measurement: a public nccl-tests log (all_reduce_perf, 2 nodes
 * x 8 H100 SXM, 8 x 200 Gb/s NICs a node, 16 ranks) reports 338.8 GB/s bus
 * bandwidth at 8 GiB.  The hierarchy with the presets' efficiencies (0.8 x
 * 450 GB/s NVLink, 0.9 x 25 GB/s a NIC) gives busbw = S/t x 2(n-1)/n within
 * 2 % of it (the NICs bound it: phases run one after another would give
 * 180 GB/s).
 */
Test(collective, all_reduce_busbw_two_h100_nodes_200g)
{
    static const int dev16[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    struct fixture f = {.bytes = 8LL << 30};
    double busbw;
    int32_t v;

    cr_assert_eq(simtest_cluster(&f.c, 16, 1LL << 40, SLOPE, ALPHA, CHANNEL_DUPLEX), 0);
    f.c.nodes.gpus_per_node = 8;
    f.c.nodes.intra = (struct comm_model){1e6 / 450e9, 10};
    f.c.nodes.inter = (struct comm_model){1e6 / 25e9, 5};
    f.c.coll_efficiency = 0.8;
    f.c.nodes.inter_coll_efficiency = 0.9;
    cr_assert_eq(cluster_expand_nodes(&f.c), 0);
    start(&f);
    ranks(&f, "x", "all-reduce", 16, dev16, "", 50);
    run(&f, 16, CHANNEL_DUPLEX);
    v = op(&f, "x/c0");
    busbw = (double)f.bytes / (double)(f.r.end_us[v] - f.r.start_us[v]) * 1e6 * 2 * 15 / 16;
    cr_log_info("2 x 8 H100, 8 x 200 Gb/s: all-reduce busbw %.1f GB/s (nccl-tests 338.8)",
                busbw / 1e9);
    cr_expect(fabs(busbw / 338.8e9 - 1) <= 0.02, "busbw %.1f GB/s", busbw / 1e9);
    release(&f);
}

/* coll_efficiency in a cluster file: read, used per node level, written back. */
Test(collective, efficiency_in_the_cluster_file)
{
    static const char text[] =
        "format: 1\nname: e\ndevices:\n  - {name: g, count: 4, memory: 1GB}\n"
        "comm: {slope_us_per_byte: 0.001, intercept_us: 1, coll_efficiency: 0.75}\n"
        "nodes: {gpus_per_node: 2, intra_node: {bandwidth: 1GB/s, latency_us: 1},\n"
        "        inter_node: {bandwidth: 0.1GB/s, latency_us: 1, coll_efficiency: 0.5}}\n";
    struct cluster c, back;
    char *buf = NULL;
    size_t len = 0;
    FILE *f;

    err_set_quiet(1);
    cr_assert_eq(cluster_read_yaml_string(&c, text, strlen(text), "e.yaml"), 0, "%s", err_msg());
    cr_expect_eq(cluster_coll_efficiency(&c, 0, 1), 0.75);
    cr_expect_eq(cluster_coll_efficiency(&c, 0, 2), 0.5);
    cr_assert(f = open_memstream(&buf, &len));
    cr_assert_eq(cluster_write_yaml(&c, f), 0);
    fclose(f);
    cr_assert_eq(cluster_read_yaml_string(&back, buf, len, "back.yaml"), 0, "%s\n%s", err_msg(),
                 buf);
    cr_expect_eq(back.coll_efficiency, 0.75, "%s", buf);
    cr_expect_eq(back.nodes.inter_coll_efficiency, 0.5, "%s", buf);
    cr_expect(isnan(back.nodes.intra_coll_efficiency));
    free(buf);
    cluster_release(&back);
    cluster_release(&c);

    /* out of range */
    {
        static const char bad[] = "format: 1\nname: e\ndevices:\n  - {name: g, memory: 1GB}\n"
                                  "comm: {coll_efficiency: 1.5}\n";

        cr_expect_eq(cluster_read_yaml_string(&c, bad, strlen(bad), "bad.yaml"), BAECHI_EPARSE);
        cr_expect(strstr(err_msg(), "bad.yaml:5") && strstr(err_msg(), "coll_efficiency"), "%s",
                  err_msg());
    }
}

/* A long compute op on a participant is not delayed by the collective, nor
 * the collective by it (NCCL kernels overlap compute on other streams). */
Test(collective, overlaps_compute)
{
    struct fixture f = {0};
    int32_t x, c0;

    start(&f);
    ranks(&f, "ar", "all-reduce", 2, dev8, "", 50);
    add(&f, "  - {name: X, type: MatMul, time_us: 100000, inputs: [\"ar/p0:0\"], device: 0}\n");
    run(&f, 2, CHANNEL_DUPLEX);
    x = op(&f, "X");
    c0 = op(&f, "ar/c0");
    cr_expect_eq(f.r.start_us[x], 50);
    cr_expect_eq(f.r.end_us[x], 50 + 100000);
    expect_time(&f, "ar", 2, 50, 2.0 / 2 * S_BYTES * SLOPE + 2.0 * ALPHA);
    cr_expect_lt(f.r.end_us[c0], f.r.end_us[x]);
    /* the collective is not compute */
    cr_expect_eq(f.r.dev[0].busy_us, 50 + 100000 + 1);
    release(&f);
}

/* Two collectives over the same devices, ready together: the second waits
 * for the channels; each holds its ranks' output buffers while it runs. */
Test(collective, holds_channels_and_memory)
{
    struct fixture f = {0};
    double t = 2.0 / 2 * S_BYTES * SLOPE + 2.0 * ALPHA;
    int32_t a, b;

    start(&f);
    ranks(&f, "a", "all-reduce", 2, dev8, "", 50);
    ranks(&f, "b", "all-reduce", 2, dev8, "", 50);
    run(&f, 2, CHANNEL_DUPLEX);
    a = op(&f, "a/c0");
    b = op(&f, "b/c0");
    cr_expect_eq(f.r.start_us[b], f.r.end_us[a], "b starts at %lld, a ends at %lld",
                 (long long)f.r.start_us[b], (long long)f.r.end_us[a]);
    expect_time(&f, "a", 2, 50, t);
    /* at a's run: a/p0 and b/p0 (inputs) + a/c0's output = 3 S on device 0 */
    cr_expect_eq(f.r.dev[0].peak_bytes, 3 * S_BYTES);
    release(&f);
}

Test(collective, deadlock_is_an_error)
{
    struct fixture f = {0};
    struct sim_options so = {.model = SIM_MODEL_TIMED};
    int rc;

    start(&f);
    /* x1 needs y0's result and y1 needs x0's: neither collective can start */
    add(&f, "  - {name: x0, type: C, outputs: [8], device: 0, x-collective: {id: X, kind: "
            "all-reduce, bytes: 8}}\n"
            "  - {name: y0, type: C, outputs: [8], device: 0, x-collective: {id: Y, kind: "
            "all-reduce, bytes: 8}}\n"
            "  - {name: x1, type: C, outputs: [8], inputs: [y0], device: 1, x-collective: {id: X, "
            "kind: all-reduce, bytes: 8}}\n"
            "  - {name: y1, type: C, outputs: [8], inputs: [x0], device: 1, x-collective: {id: Y, "
            "kind: all-reduce, bytes: 8}}\n");
    err_set_quiet(1);
    cr_assert_eq(workload_read_yaml_string(&f.w, f.yaml, f.len, "d.yaml"), 0, "%s", err_msg());
    cr_assert_eq(graph_build(&f.g, &f.w), 0, "%s", err_msg());
    cr_assert_eq(f.g.n_coll, 2);
    cr_assert_eq(simtest_cluster(&f.c, 2, 1LL << 30, SLOPE, ALPHA, CHANNEL_DUPLEX), 0);
    rc = sim_run(&f.g, &f.c, f.g.given_device, &so, &f.r);
    cr_expect_eq(rc, BAECHI_EINVAL);
    cr_expect(strstr(err_msg(), "collective 'X' never started: its rank 'x1' waits"), "%s",
              err_msg());
    /* the baechi model (the original's scheduler) runs ranks as ordinary ops */
    so.model = SIM_MODEL_BAECHI;
    sim_result_release(&f.r);
    cr_expect_eq(sim_run(&f.g, &f.c, f.g.given_device, &so, &f.r), 0, "%s", err_msg());
    cr_expect_eq(sim_check(&f.g, &f.c, f.g.given_device, &f.r), 0, "%s", err_msg());
    release(&f);
}

static void expect_bad(const char *ops, const char *needle)
{
    struct workload w;
    struct graph g;
    char yaml[2048];
    int rc;

    snprintf(yaml, sizeof(yaml),
             "format: 1\nname: bad\nops:\n  - {name: a, type: A, outputs: [8]}\n%s", ops);
    err_set_quiet(1);
    cr_assert_eq(workload_read_yaml_string(&w, yaml, strlen(yaml), "b.yaml"), 0, "%s", err_msg());
    rc = graph_build(&g, &w);
    cr_expect_eq(rc, BAECHI_EPARSE, "rc %d for %s", rc, ops);
    cr_expect(strstr(err_msg(), needle), "message '%s' lacks '%s'", err_msg(), needle);
    if (rc == 0) {
        graph_release(&g);
    }
    workload_release(&w);
}

#define RANK(x) "  - {name: r, type: C, inputs: [a], x-collective: " x "}\n"

Test(collective, bad_inputs)
{
    expect_bad(RANK("5"), "b.yaml:5:5: op 'r': x-collective: expected a mapping");
    expect_bad(RANK("{id: c, kind: all-sum, bytes: 8}"),
               "b.yaml:5:5: op 'r': x-collective: kind: expected all-reduce, reduce-scatter, "
               "all-gather, broadcast or all-to-all, got all-sum");
    expect_bad(RANK("{id: c, kind: broadcast, bytes: -8}"), "bytes: expected an integer >= 0");
    expect_bad(RANK("{kind: broadcast, bytes: 8}"), "missing required key 'id'");
    expect_bad(RANK("{id: c, kind: broadcast}"), "missing required key 'bytes'");
    expect_bad(RANK("{id: c, kind: broadcast, bytes: 8, algo: star}"),
               "algo: expected ring, tree or hierarchical, got star");
    expect_bad(RANK("{id: c, kind: broadcast, bytes: 8, peers: 2}"), "unknown key 'peers'");
    expect_bad(RANK("{id: c, kind: broadcast, bytes: 8, root: 1}"),
               "root 1 out of range: collective 'c' has 1 rank");
    expect_bad("  - {name: r, type: C, inputs: [a], x-collective: {id: c, kind: all-reduce, bytes: "
               "8}}\n  - {name: s, type: C, inputs: [a], x-collective: {id: c, kind: all-reduce, "
               "bytes: 9}}\n",
               "b.yaml:6:5: op 's': x-collective: bytes differs from the first rank of collective "
               "'c' (op 'r')");
}

/* Small buffers: the latency terms dominate (a wrong count of steps shows). */
Test(collective, latency_terms)
{
    static const char *const kinds[] = {"all-reduce", "reduce-scatter", "all-gather",
                                        "broadcast",  "all-to-all",     "all-reduce"};
    const int n = 8;
    const double S = 1000;

    for (int k = 0; k < 6; k++) {
        struct fixture f = {.bytes = 1000};
        double want = k == 0   ? 2.0 * (n - 1) / n * S * SLOPE + 2.0 * (n - 1) * ALPHA
                      : k == 3 ? S * SLOPE + (n - 1.0) * ALPHA
                      : k == 5 ? 2.0 * S * SLOPE + 2.0 * 3 * ALPHA /* tree: 2 log2(8) steps */
                               : (n - 1.0) / n * S * SLOPE + (n - 1.0) * ALPHA;

        start(&f);
        ranks(&f, "l", kinds[k], n, dev8, k == 5 ? ", algo: tree" : "", 50);
        run(&f, n, CHANNEL_DUPLEX);
        expect_time(&f, "l", n, 50, want);
        release(&f);
    }
}

/* Per-link channels: rings 0->1->2->0 and 0->2->1->0 share no link and run
 * together; with duplex engines or shared channels (every device's engines
 * in both) the second waits for the first. */
Test(collective, channel_models)
{
    static const int fwd[] = {0, 1, 2}, rev[] = {0, 2, 1};
    const enum channel_model m[] = {CHANNEL_LINK, CHANNEL_DUPLEX, CHANNEL_SHARED};

    for (int k = 0; k < 3; k++) {
        struct fixture f = {0};
        int32_t a, b;

        start(&f);
        ranks(&f, "a", "all-gather", 3, fwd, "", 50);
        ranks(&f, "b", "all-gather", 3, rev, "", 50);
        run(&f, 3, m[k]);
        a = op(&f, "a/c0");
        b = op(&f, "b/c0");
        cr_expect_eq(f.r.start_us[a], 50);
        /* b's producers run after a's on the same devices: ready at 100 */
        cr_expect_eq(f.r.start_us[b], k == 0 ? 100 : f.r.end_us[a], "%s: b starts at %lld",
                     cluster_channel_name(m[k]), (long long)f.r.start_us[b]);
        release(&f);
    }
}

/* Replica symmetry (docs/symmetry.md): rank ops with `replicas: R, stride:
 * S` are planned as the explicit group, copy k of a rank on its device + k
 * S, a rank's copies consecutive in the ring: same time, same links. */
Test(collective, replicas_stand_for_their_group)
{
    static const char *const kinds[] = {"all-reduce", "reduce-scatter", "all-gather", "all-to-all"};
    static const int one[] = {0}, two[] = {0, 1}, expl2[] = {0, 2, 4, 6, 1, 3, 5, 7};

    for (int k = 0; k < 4; k++) {
        for (int shape = 0; shape < 2; shape++) {
            struct fixture e = {0}, s = {0};
            int32_t ve, vs;

            two_nodes(&e.c);
            start(&e);
            ranks(&e, "h", kinds[k], 8, shape ? expl2 : dev8, "", 50);
            run(&e, 8, CHANNEL_DUPLEX);
            two_nodes(&s.c);
            start(&s);
            ranks(&s, "h", kinds[k], shape ? 2 : 1, shape ? two : one,
                  shape ? ", replicas: 4, stride: 2" : ", replicas: 8, stride: 1", 50);
            run(&s, 8, CHANNEL_DUPLEX);
            ve = op(&e, "h/c0");
            vs = op(&s, "h/c0");
            cr_expect_eq(s.r.start_us[vs], e.r.start_us[ve], "%s shape %d", kinds[k], shape);
            cr_expect_eq(s.r.end_us[vs], e.r.end_us[ve], "%s shape %d: %lld vs %lld", kinds[k],
                         shape, (long long)s.r.end_us[vs], (long long)e.r.end_us[ve]);
            for (int i = 0; i < 64; i++) {
                cr_expect_eq(s.r.link_bytes[i], e.r.link_bytes[i], "%s shape %d link %d -> %d",
                             kinds[k], shape, i / 8, i % 8);
            }
            release(&e);
            release(&s);
        }
    }
}

/* A representative per class (docs/symmetry.md): the rank ops of one
 * collective may stand for different counts (7 and 1 copies, stride 1; 3
 * and 1, stride 2): planned as the explicit group in the same ring order. */
static void two_ranks(struct fixture *f, const char *kind, int d0, int c0, int d1, int stride)
{
    long long S = f->bytes ? f->bytes : S_BYTES;
    const int dev[2] = {d0, d1}, copies[2] = {c0, 1};

    for (int i = 0; i < 2; i++) {
        add(f, "  - {name: h/p%d, type: Grad, time_us: 50, outputs: [%lld], device: %d}\n", i, S,
            dev[i]);
        add(f,
            "  - {name: h/c%d, type: Coll, time_us: 0, outputs: [%lld], inputs: [\"h/p%d:0\"], "
            "device: %d, x-collective: {id: h, kind: %s, bytes: %lld, replicas: %d, stride: "
            "%d}}\n",
            i, S, i, dev[i], kind, S, copies[i], stride);
        add(f, "  - {name: h/u%d, type: Upd, time_us: 1, inputs: [\"h/c%d:0\"], device: %d}\n", i,
            i, dev[i]);
    }
}

Test(collective, uneven_copies_stand_for_their_group)
{
    static const char *const kinds[] = {"all-reduce", "reduce-scatter", "all-gather", "all-to-all"};
    static const int even[] = {0, 2, 4, 6};

    for (int k = 0; k < 4; k++) {
        for (int shape = 0; shape < 2; shape++) {
            struct fixture e = {0}, s = {0};
            int32_t ve, vs;

            two_nodes(&e.c);
            start(&e);
            ranks(&e, "h", kinds[k], shape ? 4 : 8, shape ? even : dev8, "", 50);
            run(&e, 8, CHANNEL_DUPLEX);
            two_nodes(&s.c);
            start(&s);
            if (shape) {
                two_ranks(&s, kinds[k], 0, 3, 6, 2);
            } else {
                two_ranks(&s, kinds[k], 0, 7, 7, 1);
            }
            run(&s, 8, CHANNEL_DUPLEX);
            ve = op(&e, "h/c0");
            vs = op(&s, "h/c0");
            cr_expect_eq(s.r.end_us[vs], e.r.end_us[ve], "%s shape %d: %lld vs %lld", kinds[k],
                         shape, (long long)s.r.end_us[vs], (long long)e.r.end_us[ve]);
            cr_expect_eq(s.r.end_us[op(&s, "h/c1")], e.r.end_us[ve], "%s shape %d", kinds[k],
                         shape);
            for (int i = 0; i < 64; i++) {
                cr_expect_eq(s.r.link_bytes[i], e.r.link_bytes[i], "%s shape %d link %d -> %d",
                             kinds[k], shape, i / 8, i % 8);
            }
            release(&e);
            release(&s);
        }
    }
}

/* A replica beyond the cluster is an error naming the collective. */
Test(collective, replicas_beyond_the_cluster)
{
    struct fixture f = {0};
    struct sim_options so = {.model = SIM_MODEL_TIMED};
    static const int one[] = {0};

    start(&f);
    ranks(&f, "h", "all-reduce", 1, one, ", replicas: 8, stride: 2", 50);
    err_set_quiet(1);
    cr_assert_eq(workload_read_yaml_string(&f.w, f.yaml, f.len, "coll.yaml"), 0);
    cr_assert_eq(graph_build(&f.g, &f.w), 0);
    cr_assert_eq(simtest_cluster(&f.c, 8, 1LL << 40, SLOPE, ALPHA, CHANNEL_DUPLEX), 0);
    cr_expect_eq(sim_run(&f.g, &f.c, f.g.given_device, &so, &f.r), BAECHI_EINVAL);
    cr_expect(strstr(err_msg(), "collective 'h': replica 4 of its rank on device 0 is device 8, "
                                "beyond the cluster's 8 devices") != NULL,
              "%s", err_msg());
    release(&f);
}
