/*
 * cluster_gen.c - `baechi cluster gen`: writes a cluster file of nodes x
 * GPUs with NVLink inside a node, one NIC per GPU (rail-optimised) and a
 * two- or three-tier fat tree between the nodes (docs/clusters.md).
 *
 * The file is YAML text the reader checks like any other (it is read back
 * before it is written, so gen never writes a file `-c` refuses).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "cli/cluster.h"

#include "cli/cmd.h"
#include "core/alloc.h"
#include "core/cluster.h"
#include "core/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Datasheet numbers per GPU kind (not measurements): memory, dense BF16
 * peak, memory bandwidth, NVLink per direction, the DGX NIC.  Sources: NVIDIA
 * H100 and H200 datasheets (SXM), A100 datasheet (SXM4 80GB; 600 GB/s NVLink
 * 3 in total = 300 GB/s per direction), DGX H100 user guide (8x ConnectX-7
 * 400 Gb/s), DGX A100 user guide (8x ConnectX-6 200 Gb/s HDR). */
struct gpu_kind {
    const char *name, *kind, *memory, *flops, *mem_bw;
    double nvlink_gbit, nic_gbit;
    double nvlink_eff; /* collectives' share of NVLink (docs/topology.md) */
};

static const struct gpu_kind gpu_kinds[] = {
    {"h100", "h100-sxm5-80gb", "80GB", "989TFLOPS", "3.35TB/s", 3600, 400, 0.8},
    {"h200", "h200-sxm-141gb", "141GB", "989TFLOPS", "4.8TB/s", 3600, 400, 0.8},
    {"a100", "a100-sxm4-80gb", "80GB", "312TFLOPS", "2.039TB/s", 2400, 200, 0.7},
};

struct gen_opts {
    const struct gpu_kind *gpu;
    const char *name, *out;
    long nodes, gpus, tiers, leaf, pod;
    double nvlink_gbit, nic_gbit, oversub;
};

static int gen_write(FILE *f, void *arg)
{
    const struct gen_opts *o = arg;

    fprintf(f,
            "# Written by 'baechi cluster gen'.  DATASHEET numbers, not measurements:\n"
            "# run 'baechi calibrate' on the real machines and use its output instead.\n"
            "format: 1\nname: %s\n"
            "description: >-\n  %ld nodes x %ld %s = %ld GPUs; NVLink %g Gb/s per GPU per\n"
            "  direction inside a node, one %g Gb/s NIC per GPU (rail-optimised)",
            o->name, o->nodes, o->gpus, o->gpu->kind, o->nodes * o->gpus, o->nvlink_gbit,
            o->nic_gbit);
    if (o->tiers >= 2) {
        fprintf(f, ",\n  %ld-tier fat tree, %ld nodes per leaf group, oversubscription %g:1",
                o->tiers, o->leaf, o->oversub);
    }
    fprintf(f,
            ".  Datasheet numbers;\n  latencies and collective efficiencies assumed "
            "(docs/clusters.md).\n"
            "source: >-\n  NVIDIA %s datasheet; NIC per the DGX user guide; latencies assumed.\n"
            "devices:\n  - name: gpu\n    count: %ld\n    kind: %s\n    memory: %s\n"
            "    speed: 1.0\n    peak_flops: %s\n    memory_bandwidth: %s\n"
            "comm:\n  slope_us_per_byte: %.17g\n  intercept_us: 10\n  channel: duplex\n"
            "  coll_efficiency: %g\n"
            "nodes:\n  count: %ld\n  gpus_per_node: %ld\n"
            "  intra_node: {bandwidth: %gGb/s, latency_us: 10}\n"
            "  inter_node: {bandwidth: %gGb/s, per: gpu, latency_us: 5, coll_efficiency: 0.9}\n",
            o->gpu->name, o->nodes * o->gpus, o->gpu->kind, o->gpu->memory, o->gpu->flops,
            o->gpu->mem_bw, 8e6 / (o->nvlink_gbit * 1e9), o->gpu->nvlink_eff, o->nodes, o->gpus,
            o->nvlink_gbit, o->nic_gbit);
    if (o->tiers >= 2) {
        fprintf(f, "  tiers: %ld\n  oversubscription: %g\n  nodes_per_leaf: %ld\n", o->tiers,
                o->oversub, o->leaf);
    }
    if (o->tiers >= 3) {
        fprintf(f, "  nodes_per_pod: %ld\n", o->pod);
    }
    return ferror(f) ? err_set(BAECHI_EIO, "write error") : 0;
}

static const char *const gen_usage[] = {
    "baechi cluster gen --nodes N [--gpus-per-node G] [--gpu KIND] [--tiers 2|3] "
    "[--oversubscription R] [-o FILE]",
    NULL,
};

enum {
    OPT_NODES = 256,
    OPT_GPUS,
    OPT_GPU,
    OPT_NVLINK,
    OPT_NIC,
    OPT_TIERS,
    OPT_OVERSUB,
    OPT_LEAF,
    OPT_POD,
    OPT_NAME,
};

static const struct cmd_opt gen_opts_tbl[] = {
    {"nodes", OPT_NODES, "N", "nodes (1..2048)"},
    {"gpus-per-node", OPT_GPUS, "G", "GPUs per node (1..64, default 8)"},
    {"gpu", OPT_GPU, "KIND", "h100 (default), h200 or a100: datasheet numbers"},
    {"nvlink-gbps", OPT_NVLINK, "X", "NVLink per GPU per direction, Gbit/s (h100: 3600)"},
    {"nic-gbps", OPT_NIC, "X", "each GPU's NIC, Gbit/s (h100: 400)"},
    {"tiers", OPT_TIERS, "T", "fat-tree tiers between the nodes: 2 or 3 (default: one switch)"},
    {"oversubscription", OPT_OVERSUB, "R", "down:up ratio of each upper tier, 1..64 (default 1)"},
    {"nodes-per-leaf", OPT_LEAF, "L", "nodes under one leaf group (default 32)"},
    {"nodes-per-pod", OPT_POD, "P", "nodes under one pod, 3 tiers (default 8 leaf groups)"},
    {"name", OPT_NAME, "NAME", "the cluster's name (default gen-NxG)"},
    {"output", 'o', "FILE", "write the cluster file here (default: standard output)"},
    CMD_OPT_END,
};

static int gen_check(const struct cmd_parser *p, struct gen_opts *o, char *name_buf, size_t len)
{
    struct cluster c;
    FILE *f;
    char *text = NULL;
    size_t size = 0;
    int rc;

    if (o->nodes == 0) {
        return cmd_usage_error(p, "--nodes is required");
    }
    if (o->tiers == 0 && (o->oversub != 1.0 || o->leaf || o->pod)) {
        return cmd_usage_error(p, "--oversubscription and --nodes-per-leaf/pod need --tiers");
    }
    o->leaf = o->tiers >= 2 && !o->leaf ? 32 : o->leaf;
    o->pod = o->tiers >= 3 && !o->pod ? 8 * o->leaf : o->pod;
    if (o->tiers >= 3 && o->pod % o->leaf != 0) {
        return cmd_usage_error(p, "--nodes-per-pod %ld is not a multiple of --nodes-per-leaf %ld",
                               o->pod, o->leaf);
    }
    if (o->nodes * o->gpus > 16384) {
        return cmd_usage_error(p, "%ld x %ld GPUs: at most 16384", o->nodes, o->gpus);
    }
    if (!o->name) {
        snprintf(name_buf, len, "gen-%ldx%ld", o->nodes, o->gpus);
        o->name = name_buf;
    }
    /* read it back: gen never writes a file the reader refuses */
    if (!(f = mem_open_memstream(&text, &size))) {
        return cmd_fail(BAECHI_ENOMEM); /* mem_open_memstream set the message */
    }
    rc = gen_write(f, o);
    fclose(f);
    if (!rc) {
        rc = cluster_read_yaml_string(&c, text, size, o->name);
        if (!rc) {
            cluster_release(&c);
        }
    }
    free(text);
    return rc ? cmd_fail(rc) : -1;
}

int cluster_cli_gen(int argc, char **argv)
{
    struct cmd_parser p = {argc, argv, argv[0], gen_usage, gen_opts_tbl, NULL, NULL};
    struct gen_opts o = {.gpu = &gpu_kinds[0], .out = "-", .gpus = 8, .oversub = 1.0};
    double nvlink = 0, nic = 0;
    char name_buf[64];
    int c, rc;

    while ((c = cmd_getopt(&p)) != -1) {
        switch (c) {
        case 'h':
            return EXIT_OK;
        case OPT_NODES:
            if (cmd_parse_int(&p, "--nodes", p.optarg, 1, 2048, &o.nodes)) {
                return EXIT_BADINPUT;
            }
            break;
        case OPT_GPUS:
            if (cmd_parse_int(&p, "--gpus-per-node", p.optarg, 1, 64, &o.gpus)) {
                return EXIT_BADINPUT;
            }
            break;
        case OPT_GPU:
            o.gpu = NULL;
            for (size_t i = 0; i < sizeof(gpu_kinds) / sizeof(gpu_kinds[0]); i++) {
                o.gpu = strcasecmp(gpu_kinds[i].name, p.optarg) == 0 ? &gpu_kinds[i] : o.gpu;
            }
            if (!o.gpu) {
                return cmd_usage_error(&p, "unknown --gpu '%s' (known: h100, h200, a100)",
                                       p.optarg);
            }
            break;
        case OPT_NVLINK:
            if (cmd_parse_double(&p, "--nvlink-gbps", p.optarg, 1, 1e6, &nvlink)) {
                return EXIT_BADINPUT;
            }
            break;
        case OPT_NIC:
            if (cmd_parse_double(&p, "--nic-gbps", p.optarg, 1, 1e6, &nic)) {
                return EXIT_BADINPUT;
            }
            break;
        case OPT_TIERS:
            if (cmd_parse_int(&p, "--tiers", p.optarg, 2, 3, &o.tiers)) {
                return EXIT_BADINPUT;
            }
            break;
        case OPT_OVERSUB:
            if (cmd_parse_double(&p, "--oversubscription", p.optarg, 1, 64, &o.oversub)) {
                return EXIT_BADINPUT;
            }
            break;
        case OPT_LEAF:
            if (cmd_parse_int(&p, "--nodes-per-leaf", p.optarg, 1, 2048, &o.leaf)) {
                return EXIT_BADINPUT;
            }
            break;
        case OPT_POD:
            if (cmd_parse_int(&p, "--nodes-per-pod", p.optarg, 1, 2048, &o.pod)) {
                return EXIT_BADINPUT;
            }
            break;
        case OPT_NAME:
            o.name = p.optarg;
            break;
        case 'o':
            o.out = p.optarg;
            break;
        default:
            return EXIT_BADINPUT;
        }
    }
    if (cmd_optind() < argc) {
        return cmd_usage_error(&p, "unexpected argument '%s'", argv[cmd_optind()]);
    }
    o.nvlink_gbit = nvlink > 0 ? nvlink : o.gpu->nvlink_gbit;
    o.nic_gbit = nic > 0 ? nic : o.gpu->nic_gbit;
    if ((rc = gen_check(&p, &o, name_buf, sizeof(name_buf))) >= 0) {
        return rc;
    }
    rc = cmd_write_file(o.out, gen_write, &o);
    return rc ? cmd_fail(rc) : EXIT_OK;
}
