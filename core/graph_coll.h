/*
 * graph_coll.h - collective ops in a graph (beyond the original, which has
 * none): the `x-collective` key of a workload op (docs/formats.md,
 * "Collectives").  A collective is one op per participating rank, all with
 * the same `x-collective.id`; the n ops sharing an id are its ranks, in op
 * (file) order.  graph_build() reads them into g->coll; the timed simulator
 * runs them (sim/collective.h), the placers place rank ops as any op.
 *
 *   x-collective: {id: ddp/b3, kind: all-reduce, bytes: 104857600,
 *                  root: 0, algo: ring}         # root and algo optional
 *
 * bytes = S: all-reduce and broadcast: the buffer each rank holds;
 * reduce-scatter: the input per rank (each gets S/n); all-gather: the output
 * per rank (each contributes S/n); all-to-all: what each rank sends in all.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CORE_GRAPH_COLL_H
#define BAECHI_CORE_GRAPH_COLL_H

#include <stdint.h>

/* The extension key of a collective's rank op. */
#define GRAPH_COLL_KEY "x-collective"

enum coll_kind {
    COLL_ALL_REDUCE = 0,
    COLL_REDUCE_SCATTER,
    COLL_ALL_GATHER,
    COLL_BROADCAST,
    COLL_ALL_TO_ALL,
};

/* DEFAULT: ring within one node, hierarchical (rings in the nodes, rails across
 * them) when the ranks span nodes; the costs are sim/collective.h's. */
enum coll_algo { COLL_ALGO_DEFAULT = 0, COLL_ALGO_RING, COLL_ALGO_TREE, COLL_ALGO_HIERARCHICAL };

struct graph_coll {
    const char *id; /* in the graph's pool */
    enum coll_kind kind;
    enum coll_algo algo;
    int64_t bytes; /* S */
    int32_t root;  /* broadcast: the root's rank (0..n-1); 0 otherwise */
    /* Replica symmetry (docs/symmetry.md): each rank op stands for `replicas`
     * ranks, copy k on device (its device) + k x replica_stride, copies of one
     * rank consecutive in the ring; 1 and 0 unless the op says
     * `replicas: R, stride: S` (what `parallelize --symmetric` writes).
     * replicas is the most any rank op stands for; the rank ops of one
     * collective may stand for different counts (g->coll_copies), with one
     * stride. */
    int32_t replicas;
    int32_t replica_stride;
};

/* "all-reduce", ... / "ring", ... */
const char *coll_kind_name(enum coll_kind k);
const char *coll_algo_name(enum coll_algo a);

#endif
