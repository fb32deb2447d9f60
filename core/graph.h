/*
 * graph.h - the op graph every algorithm works on (shared by all parts).
 *
 * Built once from a workload by graph_build(), then frozen.  Ops, edges and
 * tensors are integer ids with one flat array per field; adjacency is CSR in
 * both directions (docs/style.md §5).  The construction follows the
 * original system exactly (baechi-spec §1.2-§1.5, §8.2), because every
 * placer's tie-breaking depends on it:
 *
 *   - ops keep file order; dangling ops (no in-edge and no out-edge) are
 *     pruned and the survivors renumbered 0..n_ops-1 in the same order;
 *   - one edge per (producer, consumer) pair carrying the list of DISTINCT
 *     tensors on it, in first-seen input order (a tensor read twice by one op
 *     counts once); a control dependency "^u" is its own 4-byte tensor;
 *   - edge ids are source-major: the out-edges of op u are exactly the edge
 *     ids out_start[u] .. out_start[u+1]-1, ordered by consumer id (a fused
 *     graph has its own order, see `fused`);
 *     in-edges of v (in_edge[in_start[v] .. in_start[v+1]-1]) are ordered by
 *     producer id;
 *   - topo[] is FIFO Kahn's order: the initial queue is the in-degree-0 ops in
 *     id order, successors are visited in out-edge order.  It is the
 *     universal tie-breaker of every priority queue.
 *
 * Costs stay cluster-independent here: the communication time of a tensor
 * comes from the cluster (cluster_comm_us), the compute time of an op on a
 * device from cluster_compute_us(weight_us).
 *
 * Memory: about 80 bytes per op + 16 per edge + 12 per tensor reference,
 * plus names; a 1,000,000-op, 3,000,000-edge graph takes ~200 MB.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CORE_GRAPH_H
#define BAECHI_CORE_GRAPH_H

#include "core/graph_coll.h"
#include "core/pipeline.h"
#include "core/strmap.h"
#include "core/workload.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Bytes of a control-dependency tensor (baechi-spec §1.4). */
#define GRAPH_CONTROL_BYTES 4

struct graph {
    int32_t n_ops;
    int32_t n_edges;
    int32_t n_ports;   /* data output ports of all ops */
    int32_t n_tensors; /* n_ports + n_ops: data tensors, then one control tensor per op */
    int32_t n_groups;
    int32_t n_pruned; /* dangling ops dropped by graph_build */
    bool fused;       /* made by operator fusion: out-edge order is the fusion's
                         (baechi-spec §6.3) and topo[] is inherited, so it may not be
                         a valid topological order (a kept quirk); graph_check relaxes */

    /* --- per op, ids 0..n_ops-1 --- */
    int32_t *wl_index;    /* op -> index in the workload it came from */
    const char **op_name; /* in `pool` */
    const char **op_type; /* in `pool` */
    int64_t *
        weight_us; /* compute time as the original uses it: int(time_us), and 1 if <= 0 or absent */
    double *flops; /* NAN when unknown */
    double *mem_bytes;      /* bytes read + written; NAN when unknown */
    int64_t *temp_bytes;    /* scratch while running */
    int64_t *persist_bytes; /* persistent */
    int64_t *out_bytes;     /* sum of output ports (each clamped to >= 0) */
    int32_t *port_start;    /* n_ops+1: ports of op u are port_start[u] .. port_start[u+1]-1 */
    int64_t *port_bytes;    /* n_ports */
    int32_t *port_alias;    /* n_ports: the port whose storage p shares (x-alias), -1; NULL: none */
    int32_t *group;         /* op -> group id */
    uint8_t *phase;         /* enum op_phase */
    int32_t *micro_batch;   /* the op's micro-batch (x-micro-batch), -1 none; NULL: no op has one */
    struct pipeline_opts pipeline; /* the workload's x-pipeline (core/pipeline.h), default 1f1b */
    int32_t *given_device;         /* the workload's `device`, -1 when absent */
    int32_t *topo;                 /* op -> topological position */
    int32_t *topo_op;              /* topological position -> op */

    /* --- adjacency (CSR) --- */
    int32_t *out_start; /* n_ops+1; out-edge ids of u = out_start[u] .. out_start[u+1]-1 */
    int32_t *in_start;  /* n_ops+1 */
    int32_t *in_edge;   /* n_edges: in-edge ids of v, by producer id */
    int32_t *edge_src;  /* n_edges */
    int32_t *edge_dst;  /* n_edges */
    int32_t
        *et_start; /* n_edges+1: tensors of edge e = et_tensor[et_start[e] .. et_start[e+1]-1] */
    int32_t *et_tensor;

    /* --- tensors: id p < n_ports is port p; id n_ports + u is "^u" --- */
    int32_t *tensor_op;    /* producer */
    int64_t *tensor_bytes; /* bytes; GRAPH_CONTROL_BYTES for control tensors */

    /* --- colocation groups, numbered by first appearance in op order --- */
    const char **group_name; /* in `pool` */
    int32_t *group_start; /* n_groups+1: members = group_op[group_start[g] .. group_start[g+1]-1] */
    int32_t *group_op;    /* members in op id order */

    /* --- collectives (x-collective, core/graph_coll.h); all NULL / 0 when none --- */
    int32_t n_coll;
    struct graph_coll *coll; /* n_coll, numbered by first rank op */
    int32_t *coll_of;        /* op -> collective, -1 for other ops */
    int32_t *coll_start;     /* n_coll+1: ranks = coll_op[coll_start[c] .. coll_start[c+1]-1] */
    int32_t *coll_op;        /* rank ops in op id order (rank r = the r-th) */
    int32_t *coll_copies;    /* per coll_op entry: the ranks it stands for (x-collective
                              * replicas, 1 without; docs/symmetry.md) */

    struct strpool pool;
    struct strmap by_name; /* op name -> op id, built on first graph_find */
};

/* The extension key of an op's micro-batch (workloads/train.h) and its range. */
#define GRAPH_MICRO_BATCH_KEY   "x-micro-batch"
#define GRAPH_MAX_MICRO_BATCHES 1024
/* The extension key of outputs that share an input's storage (in-place ops,
 * views): a list, per output port, of an index into the op's inputs or -1. */
#define GRAPH_ALIAS_KEY "x-alias"

/*
 * Reads the collectives (x-collective) of g's ops from w into g->coll ...
 * (graph_coll.c; called by graph_build).  Errors name the op's file:line:col:
 * a malformed key, an unknown kind or algo, ranks of one id that disagree on
 * kind, bytes, algo or root, a root out of range.  0, BAECHI_EPARSE, ENOMEM.
 */
int graph_read_collectives(struct graph *g, const struct workload *w);

/*
 * Derives the graph from a checked workload (workload_check() passed).
 * Rejects a cycle with a message naming its ops (file:line:col of the first)
 * and sums of sizes that overflow 64 bits (BAECHI_EPARSE).  A control input
 * "^u" next to a data input from the same u is dropped: the data edge already
 * orders them (deviation: the original asserts; TF removes such duplicates).
 * `g` must not be initialised by the caller; on failure it is left empty.
 */
int graph_build(struct graph *g, const struct workload *w);

/* Frees everything; accepts a zeroed or released graph. */
void graph_release(struct graph *g);

/*
 * Builds the name -> op index (done lazily by graph_find; call it first when
 * several threads will look names up).  Returns 0 or BAECHI_ENOMEM.
 */
int graph_index_names(struct graph *g);

/* Op id of `name`, or -1 (also for ops pruned as dangling). */
int32_t graph_find(const struct graph *g, const char *name);

static inline int32_t graph_out_degree(const struct graph *g, int32_t u)
{
    return g->out_start[u + 1] - g->out_start[u];
}

static inline int32_t graph_in_degree(const struct graph *g, int32_t v)
{
    return g->in_start[v + 1] - g->in_start[v];
}

static inline bool graph_tensor_is_control(const struct graph *g, int32_t t)
{
    return t >= g->n_ports;
}

/* Port number of tensor t, or -1 for a control tensor. */
static inline int32_t graph_tensor_port(const struct graph *g, int32_t t)
{
    return t >= g->n_ports ? -1 : t - g->port_start[g->tensor_op[t]];
}

/* Writes "producer:port" or "^producer" into buf. */
void graph_tensor_name(const struct graph *g, int32_t t, char *buf, size_t size);

/* Writes the same name to f as a JSON string, whole at any length. */
void graph_tensor_name_json(const struct graph *g, int32_t t, FILE *f);

/* Σ weight_us over all ops (µs). */
int64_t graph_total_compute_us(const struct graph *g);

/*
 * Longest path by weight_us, communication ignored, into *cp_us (µs).
 * O(V + E).  0, or BAECHI_ENOMEM (then *cp_us = 0).
 */
int graph_critical_path_us(const struct graph *g, int64_t *cp_us);

/* Memory totals (bytes). */
struct graph_mem_totals {
    int64_t persistent;
    int64_t outputs;
    int64_t temp;
    int64_t temp_max;
};
void graph_mem_totals(const struct graph *g, struct graph_mem_totals *t);

/*
 * Consistency checker for tests (lua ltests.c style): CSR bounds, edge order
 * rules, topological order valid, every tensor on an edge produced by the
 * edge's source.  Returns 0 or BAECHI_EINVAL with what is wrong.
 */
int graph_check(const struct graph *g);

#endif
