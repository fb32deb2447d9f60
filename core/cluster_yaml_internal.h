/*
 * cluster_yaml_internal.h - the parts of the cluster file reader (see
 * cluster.h; the format with every rule is in docs/formats.md) and the
 * reader state they share.  The parts, one section of the file each:
 *
 *   cluster_yaml.c          the top-level keys, the value readers (strings,
 *                           numbers in a range, numbers with units), the
 *                           entry points
 *   cluster_yaml_devices.c  `devices`: one entry per device or a counted run
 *   cluster_yaml_comm.c     `comm`: the default model and per-pair overrides
 *   cluster_yaml_nodes.c    `nodes`: GPUs per node, intra/inter-node links,
 *                           tiers of the network above the nodes
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CORE_CLUSTER_YAML_INTERNAL_H
#define BAECHI_CORE_CLUSTER_YAML_INTERNAL_H

#include "core/cluster.h"
#include "core/limits.h"
#include "core/strmap.h"
#include "core/yio.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* deviation: a cluster may hold more devices than a placement or --devices
 * names (LIMIT_MAX_DEVICES): the 16,384-GPU presets place small graphs on a
 * few of them. */
#define CLUSTER_MAX_DEVICES 16384

/* A per-pair override as read; src/dst resolved once all devices are known. */
struct pair_raw {
    char *src, *dst; /* index or device name */
    int32_t src_line, src_col, dst_line, dst_col, line, col;
    double slope, intercept; /* NAN when absent */
};

struct cl_reader {
    struct yrd r;
    struct cluster *c;
    struct strmap by_name;
    struct strpool names;
    size_t alloc_dev;
    struct pair_raw *pair;
    size_t n_pair, alloc_pair;
    int64_t n_nodes;               /* `nodes: count`, 0 when absent */
    int32_t nodes_line, nodes_col; /* where `nodes` starts (messages) */
    struct comm_model *link;       /* the intra/inter model being read */
    double *link_eff;              /* and its collective efficiency */
    double link_bw;                /* its bandwidth, bytes/s; NAN when absent */
    bool link_per_node;            /* the link being read: `per: node` */
    bool inter_per_node;           /* inter_node's bandwidth is the node's, not a GPU's */
    const char *link_ctx;          /* "nodes: intra_node" or "nodes: inter_node" */
};

/* The range of a number (core/limits.h, docs/limits.md). */
struct range {
    double lo, hi;
    const char *unit; /* for the message: "µs", "" */
};

static const struct range r_speed = {LIMIT_SPEED_MIN, LIMIT_SPEED_MAX, ""};
static const struct range r_flops = {LIMIT_PEAK_FLOPS_MIN, LIMIT_PEAK_FLOPS_MAX, " FLOP/s"};
static const struct range r_bw = {LIMIT_BANDWIDTH_MIN, LIMIT_BANDWIDTH_MAX, " bytes/s"};
static const struct range r_launch = {0, LIMIT_LAUNCH_US_MAX, " µs"};
static const struct range r_slope = {0, LIMIT_SLOPE_MAX, " µs/byte"};
static const struct range r_icpt = {0, LIMIT_INTERCEPT_MAX, " µs"};
static const struct range r_eff = {0.01, 1, ""};
static const struct range r_oversub = {1, 64, ""};

/*
 * A number with an optional unit from `units` (suffix -> multiplier; the
 * empty suffix is the base unit).  "13.4e12", "989 TFLOPS", "616GB/s".
 */
struct unit {
    const char *suffix;
    double mult;
};

static const struct unit bw_units[] = {
    {"", 1},
    {"B/s", 1},
    {"kB/s", 1e3},
    {"KB/s", 1e3},
    {"MB/s", 1e6},
    {"GB/s", 1e9},
    {"TB/s", 1e12},
    {"KiB/s", 1024.0},
    {"MiB/s", 1024.0 * 1024},
    {"GiB/s", 1024.0 * 1024 * 1024},
    {"TiB/s", 1024.0 * 1024 * 1024 * 1024},
    /* bits, as NICs are sold (400 Gb/s InfiniBand NDR = 50e9 bytes/s) */
    {"Mb/s", 1e6 / 8},
    {"Gb/s", 1e9 / 8},
    {"Tb/s", 1e12 / 8},
};

/* Error about the current value of key r->key in `ctx` ("device 'gpu0'", "comm", ...). */
int cluster_yaml_value_err(struct cl_reader *rd, const char *ctx, const char *why);
/* A scalar string value (non-empty unless `optional`, where null means absent). */
int cluster_yaml_get_string(struct cl_reader *rd, const char *ctx, char **out, bool optional);
/* A plain number in `rg`. */
int cluster_yaml_get_number(struct cl_reader *rd, const char *ctx, double *out,
                            const struct range *rg);
/* A number with an optional unit from `units` in `rg`; `hint` is the message
 * when it is not one. */
int cluster_yaml_get_with_unit(struct cl_reader *rd, const char *ctx, const struct unit *units,
                               size_t n_units, const char *hint, const struct range *rg,
                               double *out);

/* The value of `devices` (cluster_yaml_devices.c). */
int cluster_yaml_read_devices(struct cl_reader *rd);
/* The value of `comm` (cluster_yaml_comm.c); its pairs resolved by
 * cluster_yaml_resolve_pairs once every device is known. */
int cluster_yaml_read_comm(struct cl_reader *rd);
int cluster_yaml_resolve_pairs(struct cl_reader *rd);
/* The value of `nodes` (cluster_yaml_nodes.c); cluster_yaml_finish_nodes
 * checks it against the devices and lays the nodes out. */
int cluster_yaml_read_nodes(struct cl_reader *rd);
int cluster_yaml_finish_nodes(struct cl_reader *rd);

#endif
