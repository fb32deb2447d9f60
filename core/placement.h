/*
 * placement.h - a placement: op -> device, plus who made it and how.
 *
 * The placement file (YAML) names ops, so it stays valid for any reading of
 * the same workload:
 *
 *   format: 1
 *   workload: gnmt_v2_b128_fwd
 *   cluster: paper-4gpu-pcie
 *   cluster_hash: 0123456789abcdef   # optional: hash_cluster() of the cluster as loaded
 *   n_devices: 4                     # optional: the first n devices were used
 *   memory_fraction: 0.2             # optional: each device kept this share of memory
 *   placer: m-etf
 *   options: {grouper: coplace, fusion: true}     # free-form scalars
 *   stats: {placement_ms: 12.5, estimate_us: 81234}
 *   devices:
 *     op_name: 0
 *     ...
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CORE_PLACEMENT_H
#define BAECHI_CORE_PLACEMENT_H

#include "core/cluster.h"
#include "core/graph.h"

#include <stdio.h>

#define PLACEMENT_FORMAT 1

/* A key: value pair of options or statistics (both strings; printed as given). */
struct placement_kv {
    char *key;
    char *value;
};

struct placement {
    int32_t n_ops;      /* = graph.n_ops */
    int32_t *device_of; /* op id -> device id */
    char *workload;     /* workload name, may be NULL */
    char *cluster;      /* cluster name, may be NULL */
    char *placer;       /* who made it ("m-etf", "given", ...), may be NULL */
    /* What it was made for (written when known, so `sim` sees the same world): */
    char *cluster_hash;     /* hash_cluster() of the cluster before truncation; NULL = unknown */
    int32_t n_devices;      /* devices used (the first n of the cluster); 0 = unknown */
    double memory_fraction; /* each device's memory was scaled by this; 0 = unknown */
    struct placement_kv *options;
    int32_t n_options;
    struct placement_kv *stats;
    int32_t n_stats;
};

/* Allocates device_of for n ops, all -1. */
int placement_init(struct placement *p, int32_t n_ops);
void placement_release(struct placement *p);

int placement_set_meta(struct placement *p, const char *workload, const char *cluster,
                       const char *placer);
/*
 * Records the world the placement was made for (cluster_hash may be NULL,
 * n_devices 0 and memory_fraction 0 for unknown).
 */
int placement_set_made_for(struct placement *p, const char *cluster_hash, int32_t n_devices,
                           double memory_fraction);

/*
 * The memory fraction the placement was made for: its memory_fraction key,
 * else (files written before that key) its `memory_fraction` option when it
 * is a number in (0, 1], else 0 (unknown).
 */
double placement_memory_fraction(const struct placement *p);

int placement_add_option(struct placement *p, const char *key, const char *value);
int placement_add_stat(struct placement *p, const char *key, const char *value);

/*
 * The workload's own `device` fields.  An op without one takes, in this
 * order: the device given to another op of its colocation group (the first in
 * op order); else the device of its first producer (in-edge order, producers
 * resolved first, so this is the nearest placed producer up the graph), and
 * the whole group then follows it; else device 0.
 */
int placement_from_given(struct placement *p, const struct graph *g);

/*
 * Checks that every op has a device in 0..n_devices-1 (message names the op
 * and the device) and that colocation groups are not split (a warning only:
 * hand-made placements may split them).
 */
int placement_check(const struct placement *p, const struct graph *g, const struct cluster *c);

/*
 * Reads a placement file for graph g, built from the workload `w` (may be
 * NULL).  Every op of g must be named; names of ops that graph_build pruned
 * as dangling are accepted and ignored when `w` is given (without it every
 * name not in g is an error); other unknown names are an error
 * (file:line:col).  `p` is initialised here and released again on failure.
 */
int placement_read_yaml_workload(struct placement *p, const struct graph *g,
                                 const struct workload *w, const char *path);
int placement_read_yaml_string(struct placement *p, const struct graph *g, const struct workload *w,
                               const char *text, size_t len, const char *name);

/*
 * How placement_read_yaml_mode reads (the others read AUTO): AUTO, the
 * writer's devices lines without libyaml's events where the file has the
 * writer's layout, else (and on any error) all by libyaml, so verdicts and
 * messages are libyaml's (BAECHI_YAML_FAST=0 in the environment makes AUTO
 * LIBYAML); LIBYAML, all by libyaml; FAST, the fast lines or BAECHI_EPARSE
 * without a message when they are not taken (for tests).
 */
enum placement_read_mode {
    PLACEMENT_READ_AUTO,
    PLACEMENT_READ_LIBYAML,
    PLACEMENT_READ_FAST,
};

int placement_read_yaml_mode(struct placement *p, const struct graph *g, const struct workload *w,
                             const char *text, size_t len, const char *name,
                             enum placement_read_mode mode);

/* Writes the file; ops in op id order; deterministic (byte-identical for equal input). */
int placement_write_yaml(const struct placement *p, const struct graph *g, FILE *f);

#endif
