/*
 * test_cluster.c - cluster files and presets (core/cluster_yaml.c) and byte
 * sizes (cluster_parse_bytes): the shipped presets, round trips, and every
 * validation rule with its file:line:col message.
 */
#include "core/cluster.h"
#include "core/err.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *write_to_string(const struct cluster *c, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);

    cr_assert_not_null(f);
    cr_assert_eq(cluster_write_yaml(c, f), 0, "%s", err_msg());
    fclose(f);
    return buf;
}

static bool same_double(double a, double b)
{
    return (isnan(a) && isnan(b)) || a == b;
}

static void assert_same_cluster(const struct cluster *a, const struct cluster *b)
{
    cr_assert_str_eq(a->name, b->name);
    cr_assert((!a->description && !b->description) || strcmp(a->description, b->description) == 0);
    cr_assert((!a->source && !b->source) || strcmp(a->source, b->source) == 0);
    cr_assert_eq(a->n_devices, b->n_devices);
    for (int32_t i = 0; i < a->n_devices; i++) {
        cr_assert_str_eq(a->dev[i].name, b->dev[i].name);
        cr_assert((!a->dev[i].kind && !b->dev[i].kind) ||
                  strcmp(a->dev[i].kind, b->dev[i].kind) == 0);
        cr_assert_eq(a->dev[i].mem_bytes, b->dev[i].mem_bytes);
        cr_assert_eq(a->dev[i].speed, b->dev[i].speed);
        cr_assert(same_double(a->dev[i].peak_flops, b->dev[i].peak_flops));
        cr_assert(same_double(a->dev[i].mem_bw_bytes_per_s, b->dev[i].mem_bw_bytes_per_s));
        cr_assert(same_double(a->dev[i].launch_us, b->dev[i].launch_us));
    }
    cr_assert_eq(a->comm.slope_us_per_byte, b->comm.slope_us_per_byte);
    cr_assert_eq(a->comm.intercept_us, b->comm.intercept_us);
    cr_assert_eq(a->channel, b->channel);
    cr_assert_eq(!a->pair, !b->pair);
    if (a->pair) {
        for (int32_t i = 0; i < a->n_devices * a->n_devices; i++) {
            cr_assert(same_double(a->pair[i].slope_us_per_byte, b->pair[i].slope_us_per_byte));
            cr_assert(same_double(a->pair[i].intercept_us, b->pair[i].intercept_us));
        }
    }
}

static void round_trip(const struct cluster *a)
{
    struct cluster b, c;
    char *t1, *t2;
    size_t n1, n2;

    t1 = write_to_string(a, &n1);
    cr_assert_eq(cluster_read_yaml_string(&b, t1, n1, "w.yaml"), 0, "%s\n%s", err_msg(), t1);
    assert_same_cluster(a, &b);
    t2 = write_to_string(&b, &n2);
    cr_assert_eq(n1, n2);
    cr_assert_eq(memcmp(t1, t2, n1), 0);
    cr_assert_eq(cluster_read_yaml_string(&c, t2, n2, "w2.yaml"), 0, "%s", err_msg());
    assert_same_cluster(a, &c);
    free(t1);
    free(t2);
    cluster_release(&b);
    cluster_release(&c);
}

Test(cluster, presets_listed_and_load)
{
    const char *const *names = cluster_preset_names();
    int n = 0;

    for (; names[n]; n++) {
        struct cluster c;

        cr_assert_eq(cluster_load(&c, names[n]), 0, "%s: %s", names[n], err_msg());
        cr_assert_str_eq(c.name, names[n]);
        cr_assert_not_null(c.description);
        cr_assert_null(c.path);
        round_trip(&c);
        cluster_release(&c);
    }
    cr_assert_geq(n, 3);
}

Test(cluster, paper_preset)
{
    struct cluster c;

    cr_assert_eq(cluster_load(&c, "paper-4gpu-pcie"), 0, "%s", err_msg());
    cr_assert_eq(c.n_devices, 4);
    cr_assert_str_eq(c.dev[0].name, "gpu0");
    cr_assert_str_eq(c.dev[3].name, "gpu3");
    cr_assert_eq(c.dev[2].mem_bytes, (int64_t)(6.44 * 1024 * 1024 * 1024));
    cr_assert_eq(c.dev[1].speed, 1.0);
    cr_assert(isnan(c.dev[0].peak_flops));
    cr_assert_eq(c.comm.slope_us_per_byte, 0.0001754);
    cr_assert_eq(c.comm.intercept_us, 134);
    cr_assert_eq(c.channel, CHANNEL_DUPLEX);
    cr_assert_null(c.pair);
    cluster_release(&c);
}

Test(cluster, nvlink_presets)
{
    struct cluster c;

    cr_assert_eq(cluster_load(&c, "dgx-h100-8"), 0, "%s", err_msg());
    cr_assert_eq(c.n_devices, 8);
    cr_assert_eq(c.dev[7].mem_bytes, 80000000000LL);
    /* rates come from the device table of its kind (workloads/devices.c) */
    cr_assert(isnan(c.dev[0].peak_flops));
    cr_assert(isnan(c.dev[0].mem_bw_bytes_per_s));
    cr_assert_str_eq(c.dev[0].kind, "h100-sxm5-80gb");
    cr_assert(fabs(c.comm.slope_us_per_byte - 1 / 450e3) < 1e-18);
    cr_assert_eq(c.comm.intercept_us, 10);
    cluster_release(&c);
    cr_assert_eq(cluster_load(&c, "hgx-h200-8"), 0, "%s", err_msg());
    cr_assert_eq(c.dev[0].mem_bytes, 141000000000LL);
    cr_assert_str_eq(c.dev[0].kind, "h200-sxm-141gb");
    cluster_release(&c);
}

Test(cluster, load_file_and_unknown)
{
    struct cluster c;

    cr_assert_eq(cluster_load(&c, "data/clusters/paper-4gpu-pcie.yaml"), 0, "%s", err_msg());
    cr_assert_str_eq(c.path, "data/clusters/paper-4gpu-pcie.yaml");
    cluster_release(&c);
    cr_assert_eq(cluster_load(&c, "paper-9gpu"), BAECHI_EINVAL);
    cr_assert(strstr(err_msg(), "'paper-9gpu'"), "%s", err_msg());
    cr_assert(strstr(err_msg(), "paper-4gpu-pcie"), "%s", err_msg());
    cr_assert(strstr(err_msg(), "dgx-h100-8"), "%s", err_msg());
    cluster_release(&c);
    cr_assert_eq(cluster_read_yaml(&c, "tests/data/none.yaml"), BAECHI_EIO);
    cr_assert(strstr(err_msg(), "none.yaml"), "%s", err_msg());
    cluster_release(&c);
}

Test(cluster, full_file_and_pairs)
{
    static const char text[] =
        "format: 1\nname: t\ndescription: d\nsource: s\n"
        "devices:\n"
        "  - {name: a, kind: k1, memory: 1000, speed: 2, peak_flops: 1.5 TFLOPS,"
        " memory_bandwidth: 1GiB/s, launch_us: 4.5}\n"
        "  - {name: b, count: 2, memory: 2kB, x-note: 1}\n"
        "comm:\n  slope_us_per_byte: 0.5\n  intercept_us: 3\n  channel: link\n"
        "  pairs:\n"
        "    - {src: 0, dst: 2, slope_us_per_byte: 0.25}\n"
        "    - {src: b1, dst: a, intercept_us: 7}\n"
        "    - {src: a, dst: b0, slope_us_per_byte: 0.125, intercept_us: 0}\n"
        "x-calibration: {date: today}\n";
    struct cluster c;

    cr_assert_eq(cluster_read_yaml_string(&c, text, strlen(text), "t.yaml"), 0, "%s", err_msg());
    cr_assert_eq(c.n_devices, 3);
    cr_assert_str_eq(c.dev[1].name, "b0");
    cr_assert_str_eq(c.dev[2].name, "b1");
    cr_assert_eq(c.dev[2].mem_bytes, 2000);
    cr_assert_eq(c.dev[0].speed, 2);
    cr_assert_eq(c.dev[0].peak_flops, 1.5e12);
    cr_assert_eq(c.dev[0].mem_bw_bytes_per_s, 1073741824.0);
    cr_assert_eq(c.dev[0].launch_us, 4.5);
    cr_assert(isnan(c.dev[1].launch_us));
    cr_assert_null(c.dev[1].kind);
    cr_assert_eq(c.channel, CHANNEL_LINK);
    cr_assert_not_null(c.pair);
    cr_assert_eq(cluster_comm_model(&c, 0, 2).slope_us_per_byte, 0.25);
    cr_assert_eq(cluster_comm_model(&c, 0, 2).intercept_us, 3); /* default */
    cr_assert_eq(cluster_comm_model(&c, 2, 0).slope_us_per_byte, 0.5);
    cr_assert_eq(cluster_comm_model(&c, 2, 0).intercept_us, 7);
    cr_assert_eq(cluster_comm_model(&c, 0, 1).slope_us_per_byte, 0.125);
    cr_assert_eq(cluster_comm_model(&c, 1, 0).slope_us_per_byte, 0.5); /* no override */
    cr_assert_eq(cluster_comm_us(&c, 0, 2, 100), 28);
    round_trip(&c);
    cluster_release(&c);
}

Test(cluster, defaults)
{
    static const char text[] = "format: 1\nname: t\ndevices:\n  - {name: g, memory: 16GiB}\n";
    struct cluster c;

    cr_assert_eq(cluster_read_yaml_string(&c, text, strlen(text), "t.yaml"), 0, "%s", err_msg());
    cr_assert_eq(c.n_devices, 1);
    cr_assert_str_eq(c.dev[0].name, "g");
    cr_assert_eq(c.dev[0].mem_bytes, 16LL << 30);
    cr_assert_eq(c.dev[0].speed, 1.0);
    cr_assert_eq(c.comm.slope_us_per_byte, CLUSTER_DEFAULT_SLOPE_US_PER_BYTE);
    cr_assert_eq(c.comm.intercept_us, CLUSTER_DEFAULT_INTERCEPT_US);
    cr_assert_eq(c.channel, CHANNEL_DUPLEX);
    cluster_release(&c);
}

static void expect_err(const char *text, const char *needle)
{
    struct cluster c;
    int rc = cluster_read_yaml_string(&c, text, strlen(text), "c.yaml");

    cr_assert_eq(rc, BAECHI_EPARSE, "rc %d for:\n%s\nmessage: %s", rc, text, err_msg());
    cr_assert(strstr(err_msg(), needle), "message '%s' lacks '%s'", err_msg(), needle);
    cr_assert_eq(strncmp(err_msg(), "c.yaml", 6), 0, "%s", err_msg());
    cluster_release(&c);
}

#define CHDR "format: 1\nname: t\n"
#define DEV1 "devices:\n  - {name: g, memory: 1GiB}\n"

Test(cluster, errors)
{
    expect_err("", "c.yaml: empty file");
    expect_err("[1]\n", "c.yaml:1:1: top level must be a mapping");
    expect_err("name: t\n" DEV1, "c.yaml:1:1: missing required key 'format'");
    expect_err("format: 3\n", "c.yaml:1:9: unsupported cluster format '3'");
    expect_err("format: 1\n" DEV1, "missing required key 'name'");
    expect_err(CHDR, "missing required key 'devices'");
    expect_err(CHDR "devices: []\n", "c.yaml:3:10: devices: the list is empty");
    expect_err(CHDR "devcies: []\n", "c.yaml:3:1: unknown key 'devcies'");
    expect_err(CHDR DEV1 "name: u\n", "c.yaml:5:1: duplicate key 'name'");
    expect_err(CHDR "devices:\n  - {memory: 1GiB}\n",
               "c.yaml:4:5: device #1: missing required key 'name'");
    expect_err(CHDR "devices:\n  - {name: g}\n", "device 'g': missing required key 'memory'");
    expect_err(CHDR "devices:\n  - {name: g, memory: 0}\n",
               "c.yaml:4:23: device 'g': memory: must be > 0");
    expect_err(CHDR "devices:\n  - {name: g, memory: -1GiB}\n", "memory: must not be negative");
    expect_err(CHDR "devices:\n  - {name: g, memory: 16GB/s}\n",
               "c.yaml:4:23: device 'g': memory: unknown unit");
    expect_err(CHDR "devices:\n  - {name: g, memory: lots}\n", "memory: 'lots' is not a byte size");
    expect_err(CHDR "devices:\n  - {name: g, memory: 1e30}\n", "does not fit in 64 bits");
    expect_err(CHDR "devices:\n  - {name: g, memory: 1GiB, speed: 0}\n",
               "device 'g': speed: must be in [1e-06, 1e+06]");
    /* issue 13: a speed of 1e-300 made every step take 0 µs */
    expect_err(CHDR "devices:\n  - {name: g, memory: 1GiB, speed: 1e-300}\n",
               "c.yaml:4:36: device 'g': speed: must be in [1e-06, 1e+06], got '1e-300'");
    expect_err(CHDR "devices:\n  - {name: g, memory: 1GiB, speed: .nan}\n",
               "speed: must be a finite number");
    expect_err(CHDR "devices:\n  - {name: g, memory: 1GiB, peak_flops: 5 furlongs}\n",
               "peak_flops: expected FLOP/s");
    expect_err(CHDR "devices:\n  - {name: g, memory: 1GiB, memory_bandwidth: 5GB}\n",
               "memory_bandwidth: expected bytes/s");
    expect_err(CHDR "devices:\n  - {name: g, memory: 1GiB, count: 0}\n",
               "count: must be between 1 and 4096");
    expect_err(CHDR "devices:\n  - {name: g, memory: 1GiB, colour: red}\n",
               "c.yaml:4:29: device 'g': unknown key 'colour'");
    expect_err(CHDR "devices:\n  - {name: g, memory: 1GiB}\n  - {name: g, memory: 1GiB}\n",
               "c.yaml:5:5: duplicate device name 'g'");
    expect_err(CHDR
               "devices:\n  - {name: g, count: 2, memory: 1GiB}\n  - {name: g1, memory: 1GiB}\n",
               "duplicate device name 'g1'");
    expect_err(CHDR DEV1 "comm: {channel: bus}\n",
               "c.yaml:5:17: comm: channel: expected shared, duplex or link, got 'bus'");
    expect_err(CHDR DEV1 "comm: {slope_us_per_byte: -1}\n",
               "comm: slope_us_per_byte: must not be negative");
    expect_err(CHDR DEV1 "comm: {intercept: 3}\n", "comm: unknown key 'intercept'");
    expect_err(CHDR DEV1 "comm: 5\n", "comm: expected a mapping");
    expect_err(CHDR DEV1 "comm: {pairs: [{src: 0, dst: 1, intercept_us: 1}]}\n",
               "c.yaml:5:30: comm: pairs: dst 1 out of range (the cluster has 1 device: 0..0)");
    expect_err(CHDR DEV1 "comm: {pairs: [{src: 0, dst: 0, intercept_us: 1}]}\n",
               "src and dst are the same device");
    expect_err(CHDR DEV1 "comm: {pairs: [{src: gpu9, dst: 0, intercept_us: 1}]}\n",
               "src 'gpu9' is not a device index or name");
    expect_err(CHDR DEV1 "comm: {pairs: [{src: 0, intercept_us: 1}]}\n",
               "missing required key 'dst'");
    expect_err(CHDR DEV1 "comm: {pairs: [{src: 0, dst: 1}]}\n",
               "needs slope_us_per_byte and/or intercept_us");
    expect_err(CHDR "devices:\n  - {name: g, count: 2, memory: 1GiB}\ncomm: {pairs: [{src: 0, dst: "
                    "1, intercept_us: 1}, {src: g0, dst: g1, intercept_us: 2}]}\n",
               "duplicate override for 0 -> 1");
}

Test(cluster, parse_bytes)
{
    int64_t v;

    cr_assert_eq(cluster_parse_bytes("6.44GiB", &v), 0);
    cr_assert_eq(v, (int64_t)(6.44 * 1073741824.0));
    cr_assert_eq(cluster_parse_bytes("16GiB", &v), 0);
    cr_assert_eq(v, 17179869184LL);
    cr_assert_eq(cluster_parse_bytes("80GB", &v), 0);
    cr_assert_eq(v, 80000000000LL);
    cr_assert_eq(cluster_parse_bytes("8e9", &v), 0);
    cr_assert_eq(v, 8000000000LL);
    cr_assert_eq(cluster_parse_bytes("512", &v), 0);
    cr_assert_eq(v, 512);
    cr_assert_eq(cluster_parse_bytes("1 MiB", &v), 0);
    cr_assert_eq(v, 1048576);
    cr_assert_eq(cluster_parse_bytes("2kB", &v), 0);
    cr_assert_eq(v, 2000);
    cr_assert_eq(cluster_parse_bytes("1.5B", &v), 0);
    cr_assert_eq(v, 1);
    cr_assert_eq(cluster_parse_bytes("16 gigs", &v), BAECHI_EINVAL);
    cr_assert(strstr(err_msg(), "unknown unit"), "%s", err_msg());
    cr_assert_eq(cluster_parse_bytes("-1GiB", &v), BAECHI_EINVAL);
    cr_assert_eq(cluster_parse_bytes("GiB", &v), BAECHI_EINVAL);
    cr_assert_eq(cluster_parse_bytes("nan", &v), BAECHI_EINVAL);
    cr_assert_eq(cluster_parse_bytes("1e30", &v), BAECHI_EINVAL);
    cr_assert(strstr(err_msg(), "64 bits"), "%s", err_msg());
}

/* issue 13, items 5 and 6: times and memory never wrap or collapse to 0. */
Test(cluster, saturated_arithmetic)
{
    struct cluster c;

    cluster_init(&c);
    cr_assert_eq(cluster_add_devices(&c, 2, INT64_MAX, 1.0), 0);
    cluster_scale_memory(&c, 1e9);
    cr_expect_eq(c.dev[0].mem_bytes, INT64_MAX);
    c.dev[0].speed = 1e-300; /* built in code, past the reader's range */
    cr_expect_gt(cluster_compute_us(&c, 0, 10), 1000000);
    cr_expect_gt(cluster_compute_us(&c, 0, 1000000000000000LL), 0);
    c.dev[1].speed = 1e300;
    cr_expect_eq(cluster_compute_us(&c, 1, 10), 1);
    c.comm.slope_us_per_byte = 1e300;
    cr_expect_gt(cluster_comm_us(&c, 0, 1, INT64_MAX), 0);
    cluster_release(&c);
}

/* ---- nodes of GPUs (issue 23) ---- */

/* The presets that predate nodes read as before: no nodes, no pairs. */
Test(cluster, old_presets_unchanged_by_nodes)
{
    static const char *const old[] = {"dgx-h100-8", "hgx-h200-8", "paper-2gpu-pcie",
                                      "paper-4gpu-pcie"};

    for (size_t i = 0; i < sizeof(old) / sizeof(old[0]); i++) {
        struct cluster c;

        cr_assert_eq(cluster_load(&c, old[i]), 0, "%s: %s", old[i], err_msg());
        cr_assert_eq(c.nodes.gpus_per_node, 0, "%s", old[i]);
        cr_assert_null(c.pair, "%s", old[i]);
        cr_assert_eq(cluster_n_nodes(&c), 1);
        cr_assert_eq(cluster_node_of(&c, c.n_devices - 1), 0);
        cluster_release(&c);
    }
}

Test(cluster, node_presets)
{
    struct cluster c;

    cr_assert_eq(cluster_load(&c, "dgx-h100-2x8"), 0, "%s", err_msg());
    cr_assert_eq(c.n_devices, 16);
    cr_assert_eq(c.nodes.gpus_per_node, 8);
    cr_assert_eq(cluster_n_nodes(&c), 2);
    cr_assert_eq(cluster_node_of(&c, 7), 0);
    cr_assert_eq(cluster_node_of(&c, 8), 1);
    /* NVLink 450 GB/s + 10 µs in a node; 400 Gb/s = 50 GB/s + 5 µs across */
    cr_assert_eq(cluster_comm_us(&c, 0, 7, 450000000), 1000 + 10);
    cr_assert_eq(cluster_comm_us(&c, 7, 8, 50000000), 1000 + 5);
    cr_assert_eq(cluster_comm_us(&c, 15, 0, 50000000), 1000 + 5);
    cluster_release(&c);
    cr_assert_eq(cluster_load(&c, "dgx-h100-4x8"), 0, "%s", err_msg());
    cr_assert_eq(cluster_n_nodes(&c), 4);
    cr_assert_eq(cluster_comm_us(&c, 31, 24, 450000000), 1010);
    cr_assert_eq(cluster_comm_us(&c, 31, 0, 50000000), 1005);
    cluster_release(&c);
    /* per node: the 100 Gb/s NIC is shared by 4 GPUs, 3.125 GB/s each */
    cr_assert_eq(cluster_load(&c, "pcie-2x4"), 0, "%s", err_msg());
    cr_assert_eq(cluster_comm_us(&c, 0, 4, 3125000), 1000 + 10);
    cr_assert_eq(cluster_comm_us(&c, 0, 3, 32000000), 1000 + 15);
    cluster_release(&c);
}

/* A nodes section is the same as writing its pairs by hand; explicit pairs win. */
Test(cluster, nodes_expand_to_pairs)
{
    static const char nodes[] =
        CHDR "devices:\n  - {name: g, count: 4, memory: 1GiB}\n"
             "comm: {slope_us_per_byte: 0.5, intercept_us: 7,\n"
             "       pairs: [{src: 0, dst: 1, slope_us_per_byte: 9, intercept_us: 9}]}\n"
             "nodes:\n  gpus_per_node: 2\n  count: 2\n"
             "  intra_node: {slope_us_per_byte: 0.001, intercept_us: 1}\n"
             "  inter_node: {bandwidth: 1MB/s, per: node}\n";
    struct cluster c;

    cr_assert_eq(cluster_read_yaml_string(&c, nodes, strlen(nodes), "n.yaml"), 0, "%s", err_msg());
    cr_assert_eq(cluster_comm_us(&c, 0, 1, 1000), 9009); /* the explicit pair */
    cr_assert_eq(cluster_comm_us(&c, 1, 0, 1000), 2);    /* intra */
    cr_assert_eq(cluster_comm_us(&c, 2, 3, 1000), 2);
    /* inter: 1 MB/s per node = 0.5 MB/s per GPU = 2 µs/byte; intercept from comm */
    cr_assert_eq(cluster_comm_us(&c, 1, 2, 1000), 2007);
    cr_assert_eq(cluster_comm_us(&c, 3, 0, 1000), 2007);
    round_trip(&c);
    cr_assert_eq(cluster_truncate(&c, 3), 0);
    cr_assert_eq(cluster_comm_us(&c, 1, 2, 1000), 2007);
    round_trip(&c);
    cluster_release(&c);
}

Test(cluster, nodes_errors)
{
    expect_err(CHDR DEV1 "nodes: {gpus_per_node: 2}\n",
               "c.yaml:5:8: nodes: 1 device do not split into nodes of gpus_per_node = 2");
    expect_err(CHDR "devices:\n  - {name: g, count: 4, memory: 1GiB}\n"
                    "nodes: {gpus_per_node: 2, count: 3}\n",
               "c.yaml:5:8: nodes: count 3 x gpus_per_node 2 = 6 devices, but the cluster has 4");
    expect_err(CHDR DEV1 "nodes: {count: 1}\n",
               "c.yaml:5:8: nodes: missing required key 'gpus_per_node'");
    expect_err(CHDR DEV1 "nodes: {gpus_per_node: 0}\n",
               "c.yaml:5:24: nodes: gpus_per_node: expected a count in 1..16384");
    expect_err(CHDR DEV1 "nodes: {gpus_per_node: 1, racks: 2}\n",
               "c.yaml:5:27: nodes: unknown key 'racks'");
    expect_err(CHDR DEV1 "nodes: {gpus_per_node: 1, inter_node: {bandwidth: 5 furlongs}}\n",
               "c.yaml:5:51: nodes: inter_node: bandwidth: expected bytes/s");
    expect_err(CHDR DEV1 "nodes: {gpus_per_node: 1, inter_node: {bandwidth: 1GB/s, per: rack}}\n",
               "c.yaml:5:63: nodes: inter_node: per: expected gpu or node, got 'rack'");
    expect_err(CHDR DEV1 "nodes: {gpus_per_node: 1, intra_node: {bandwidth: 1GB/s, per: gpu}}\n",
               "nodes: intra_node: unknown key 'per'");
    expect_err(CHDR DEV1 "nodes: {gpus_per_node: 1, intra_node: {latency_us: 3}}\n",
               "c.yaml:5:39: nodes: intra_node: missing required key 'bandwidth'");
    expect_err(CHDR DEV1 "nodes: {gpus_per_node: 1, intra_node: {bandwidth: 1GB/s, "
                         "slope_us_per_byte: 1}}\n",
               "give bandwidth or slope_us_per_byte, not both");
    expect_err(CHDR DEV1 "nodes: [2]\n", "c.yaml:5:8: nodes: expected a mapping");
}

/* A device name longer than the old char ctx[300]: the messages name the
 * whole device (issue 34 item 3). */
Test(cluster, long_device_name_in_messages)
{
    const char *tails[] = {", memory: 1GiB, colour: red}\n", ", memory: -1}\n",
                           ", memory: 1GiB, speed: 0}\n"};
    const char *wants[] = {"': unknown key 'colour'", "': memory: must not be negative",
                           "': speed: must be in"};
    char name[500], text[700], want[600];

    memset(name, 'd', sizeof(name) - 1);
    name[sizeof(name) - 1] = '\0';
    for (int i = 0; i < 3; i++) {
        snprintf(text, sizeof(text), CHDR "devices:\n  - {name: %s%s", name, tails[i]);
        snprintf(want, sizeof(want), "device '%s%s", name, wants[i]);
        expect_err(text, want);
    }
}
