/*
 * cluster.h - the machine a graph is placed on: devices with memory limits
 * and speeds, and the communication model (baechi-spec §1.3, §1.6, §5).
 *
 * Communication time of a tensor of b bytes from device s to device d != s:
 *
 *     time_us = rint(slope_us_per_byte * b + intercept_us)     (ties to even)
 *
 * with the original defaults 0.0001754 µs/byte and 134 µs (the paper's PCIe
 * GPUs); the same device costs 0.  A cluster may override (slope, intercept)
 * per ordered pair, e.g. from calibration.  Rounding uses the default
 * floating-point rounding mode (nearbyint), as Python's round() does.
 *
 * Channel model, how concurrent transfers share the hardware (only the
 * `timed` simulator reads it; the `baechi` simulator and the placers always
 * use the original's single shared channel per device):
 *   CHANNEL_SHARED  one DMA channel per device, shared by sends and receives;
 *   CHANNEL_DUPLEX  a send engine and a receive engine per device (full duplex);
 *   CHANNEL_LINK    one channel per ordered device pair (a dedicated link).
 *
 * Cluster files (YAML) are read by cluster_read_yaml(); the format is in the
 * README ("Cluster file") and data/clusters/ holds presets.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CORE_CLUSTER_H
#define BAECHI_CORE_CLUSTER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define CLUSTER_FORMAT                    1
#define CLUSTER_DEFAULT_SLOPE_US_PER_BYTE 0.0001754
#define CLUSTER_DEFAULT_INTERCEPT_US      134.0

enum channel_model { CHANNEL_SHARED = 0, CHANNEL_DUPLEX = 1, CHANNEL_LINK = 2 };

struct cluster_device {
    char *name;                /* owned */
    char *kind;                /* device class (e.g. "h200"), NULL when absent; owned */
    int64_t mem_bytes;         /* memory limit */
    double speed;              /* compute speed relative to the reference device (default 1) */
    double peak_flops;         /* FLOP/s for the cost model; NAN when absent */
    double mem_bw_bytes_per_s; /* memory bandwidth for the cost model; NAN when absent */
    double launch_us;          /* per-op launch overhead for the cost model, µs; NAN when absent */
};

struct comm_model {
    double slope_us_per_byte;
    double intercept_us;
};

/*
 * Nodes of GPUs (a cluster file's `nodes` section; beyond the original,
 * which has one machine): devices d and e share a node iff d / gpus_per_node
 * == e / gpus_per_node.  The section expands to per-pair models
 * (cluster_expand_nodes), so whatever reads per-pair models (the timed
 * model's transfers, placers) works unchanged; the collectives of the timed
 * model also read the node structure (hierarchical all-reduce).
 */
struct cluster_nodes {
    int32_t gpus_per_node;   /* 0: no node structure (every device one node) */
    struct comm_model intra; /* a GPU's link to a GPU of its node; NAN slope: comm default */
    struct comm_model inter; /* a GPU's share of its node's NICs; NAN slope: comm default */
    double intra_coll_efficiency, inter_coll_efficiency; /* NAN: the cluster's */
    /* The fabric between the nodes' NICs (docs/clusters.md): 0 = one flat
     * switch (every NIC at full rate); 2 = a two-tier fat tree, leaf groups of
     * nodes_per_leaf nodes under a spine; 3 = three tiers, pods of
     * nodes_per_pod nodes under a core.  Each tier above the leaves is
     * oversubscribed by `oversubscription` (down : up bandwidth, >= 1). */
    int32_t tiers;
    int32_t nodes_per_leaf, nodes_per_pod;
    double oversubscription;
};

/* Clusters up to this many devices expand their node models into the n*n
 * per-pair table when read (what older readers of c->pair expect); larger
 * ones compute a pair's model from (node(s), node(d)) on demand, so no
 * structure of size devices^2 exists. */
#define CLUSTER_EXPAND_MAX_DEVICES 256

struct cluster {
    char *path;        /* file it came from, NULL for built-in ones (messages) */
    char *name;        /* owned */
    char *description; /* owned, may be NULL */
    char *source;      /* provenance, may be NULL */
    int32_t n_devices;
    struct cluster_device *dev;
    struct comm_model comm;  /* the default model for every pair */
    struct comm_model *pair; /* n*n overrides, row = src; NULL when none; NAN slope = default */
    enum channel_model channel;
    /* Collectives achieve this fraction of a link's bandwidth (nccl-tests'
     * bus bandwidth over the link's peak, sim/collective.h); 1 by default,
     * `coll_efficiency` in the comm section, overridden per node level. */
    double coll_efficiency;
    struct cluster_nodes nodes;
};

void cluster_init(struct cluster *c);
void cluster_release(struct cluster *c);

/* A deep copy of src into dst (initialised here); 0 or BAECHI_ENOMEM, dst
 * then released. */
int cluster_copy(struct cluster *dst, const struct cluster *src);

/*
 * Reads a cluster file.  Errors (BAECHI_EPARSE / BAECHI_EIO) name the file,
 * line, column and the offending key or value.  `c` is initialised here.
 */
int cluster_read_yaml(struct cluster *c, const char *path);

/* Same, from a buffer; `name` is used in messages. */
int cluster_read_yaml_string(struct cluster *c, const char *text, size_t len, const char *name);

/* Writes a cluster file that cluster_read_yaml() reads back identically. */
int cluster_write_yaml(const struct cluster *c, FILE *f);

/*
 * Loads `spec`: a path to a YAML file, or the name of a preset shipped with
 * the program ("paper-4gpu-pcie", ...), see cluster_preset_names().
 */
int cluster_load(struct cluster *c, const char *spec);

/* NULL-terminated list of built-in preset names. */
const char *const *cluster_preset_names(void);

/* Adds n identical devices (tests and generators). */
int cluster_add_devices(struct cluster *c, int32_t n, int64_t mem_bytes, double speed);

/* Keeps only the first k devices (the "device count" option); k in 1..n. */
int cluster_truncate(struct cluster *c, int32_t k);

/* Each device keeps (int64)(fraction * mem_bytes) of its memory (emulating
 * smaller GPUs); fraction in (0, 1]. */
void cluster_scale_memory(struct cluster *c, double fraction);

/* Multiplies slope and intercept (default and pairs) by `factor` (--comm-cost-factor). */
void cluster_scale_comm(struct cluster *c, double factor);

/* The (slope, intercept) for src -> dst: an explicit pair override, else
 * the node level's model (intra or inter) when the cluster has nodes, else
 * the default.  O(1), no table needed. */
struct comm_model cluster_comm_model(const struct cluster *c, int32_t src, int32_t dst);

/* The fraction of the src -> dst link's bandwidth a collective achieves:
 * the node level's coll_efficiency (intra or inter) when it has one, else
 * the cluster's. */
double cluster_coll_efficiency(const struct cluster *c, int32_t src, int32_t dst);

/* The node of device d (0 when the cluster has no nodes). */
int32_t cluster_node_of(const struct cluster *c, int32_t d);

/* The number of nodes (1 without nodes; the last one may be partial after cluster_truncate). */
int32_t cluster_n_nodes(const struct cluster *c);

/*
 * Sets the per-pair model of every ordered pair that has no override yet
 * from c->nodes: intra for pairs in one node, inter across nodes (a model
 * with a NAN slope leaves those pairs on the default).  Explicit `pairs`
 * win.  Does nothing without nodes.  0 or BAECHI_ENOMEM.
 */
int cluster_expand_nodes(struct cluster *c);

/* Transfer time of `bytes` from src to dst (0 when src == dst), µs. */
int64_t cluster_comm_us(const struct cluster *c, int32_t src, int32_t dst, int64_t bytes);

/* Transfer time with the default model, ignoring pairs (what the original uses). */
int64_t cluster_comm_default_us(const struct cluster *c, int64_t bytes);

/* Compute time on device d of an op whose reference time is weight_us: weight/speed, >= 1. */
int64_t cluster_compute_us(const struct cluster *c, int32_t d, int64_t weight_us);

/* Name of a channel model ("shared", ...). */
const char *cluster_channel_name(enum channel_model m);

/*
 * Parses a byte size: an integer, or a number with a suffix B, kB/KB, MB, GB,
 * TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024), e.g. "6.44GiB".
 * The result is truncated to whole bytes.  Returns 0 or BAECHI_EINVAL.
 */
int cluster_parse_bytes(const char *s, int64_t *out);

#endif
