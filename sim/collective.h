/*
 * collective.h - collectives in the timed simulator (beyond the original,
 * which has none; core/graph_coll.h says how a workload writes them).
 *
 * A collective of n rank ops starts when the last rank is ready (all ranks'
 * inputs arrived) and the channels it uses are free; all ranks start and end
 * together.  It runs on the communication engines of its devices, not on
 * their compute stream, so compute ops on the same devices overlap with it,
 * as NCCL kernels do.  While it runs it holds those channels (see
 * coll_sim_take) and its ranks' output and temp bytes (sim_timed.c).
 *
 * Cost (the closed forms live in collective.c, ring_time_us and
 * hier_time_us, and nowhere else), with S the collective's bytes, n its
 * ranks, and B, α the achieved bus bandwidth and the latency of the slowest
 * link the algorithm uses: B = coll_efficiency x (1 / slope), α = intercept
 * of the per-pair models of core/cluster.h (a `nodes` section fills them;
 * coll_efficiency, 1 unless the cluster file says, is nccl-tests' bus
 * bandwidth over the link's peak, docs/simulator.md).  In one node, a ring:
 *   all-reduce              2(n-1)/n·S/B + 2(n-1)·α
 *   reduce-scatter,
 *   all-gather, all-to-all  (n-1)/n·S/B + (n-1)·α        (all-to-all: on a switch)
 *   broadcast (pipelined)   S/B + (n-1)·α
 *   tree all-reduce         2·S/B + 2·⌈log2 n⌉·α          (pipelined up and down a tree)
 * (so S/B = S·2(n-1)/n / busbw for all-reduce, S·(n-1)/n / busbw for
 * reduce-scatter and all-gather: nccl-tests' definitions, its
 * doc/PERFORMANCE.md).  Across m > 1 nodes, g ranks a node, one NIC per
 * GPU: the hierarchy, the in-node phases on rings over the node's links
 * (B_in, α_in), the inter-node phase on g rails at once (local rank j of
 * each node in a ring over the NICs: B_x, α_x), each rail carrying 1/g of
 * the data.  NCCL pipelines chunks through the phases, so the slower link
 * class bounds the bandwidth term and the latencies add:
 *   all-reduce      2(g-1)α_in + 2(m-1)α_x + max(2(g-1)/g·S/B_in, 2(m-1)/m·S/(g·B_x))
 *                   (reduce-scatter in the node, all-reduce on the rails,
 *                   all-gather in the node)
 *   reduce-scatter,
 *   all-gather      (g-1)α_in + (m-1)α_x + max((g-1)/g·S/B_in, (m-1)/m·S/(g·B_x))
 *                   (half the all-reduce: the in-node and rail halves)
 *   broadcast       2(g-1)α_in + (m-1)α_x + max(2(g-1)/g·S/B_in, S/(g·B_x))
 *                   (scatter in the root's node, pipelined chains on the
 *                   rails, all-gather in each node)
 *   all-to-all      (g-1)α_in + (m-1)g·α_x + max((g-1)/(mg)·S/B_in, (m-1)/m·S/B_x)
 *                   (S/n to each rank: (m-1)/m·S leaves through the NIC)
 * With g = 1 each reduces to the ring over the NICs.  `algo: tree` on an
 * all-reduce over nodes: the in-node rings and a binary tree on each rail
 * (S/g up and down each link):
 *   2(g-1)α_in + 2⌈log2 m⌉α_x + max(2(g-1)/g·S/B_in, 2·S/(g·B_x)).
 * On a fat tree (nodes: tiers) a link that leaves its leaf group (pod) runs
 * at B_x / div, div = max(1, flows x R / (L G)) (pods: R^2 / (P G)), the
 * flows being the links of the plan that leave the group (all-to-all: its
 * NICs' off-group share); docs/topology.md.
 * The ring is the ranks in op order; the default algorithm is hierarchical
 * when the ranks span nodes, ring otherwise (`algo: ring` forces one flat
 * ring, at its slowest link; `algo: tree` the tree formula, over nodes
 * on the rails).  The links a
 * collective holds are its rings' and rails' (a broadcast's chains end
 * before the root).  Links between ranks on one device cost nothing; the
 * result is rounded to whole µs and at least 1 µs (as an op's weight).
 * Unequal node groups use the largest g.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_SIM_COLLECTIVE_H
#define BAECHI_SIM_COLLECTIVE_H

#include "core/cluster.h"
#include "core/graph.h"
#include "sim/sim_links.h"

#include <stdbool.h>
#include <stdint.h>

/* One link a collective uses and the bytes it carries there. */
struct coll_edge {
    int32_t src, dst;
    int64_t bytes;
    /* replica symmetry: the devices of the rank ops src and dst are copies
     * of (their engines stand for src's and dst's); src and dst otherwise */
    int32_t rep_src, rep_dst;
};

/* The plan of one collective: its time and links. */
struct coll_plan {
    enum coll_algo algo; /* the algorithm used (never DEFAULT) */
    int64_t time_us;
    struct coll_edge *edge; /* owned (mem_alloc); n_edge of them */
    int32_t n_edge;
};

/*
 * Plans collective ci of g on c with g's ranks placed by device_of.  *p is
 * initialised here; coll_plan_release frees it.  0 or BAECHI_ENOMEM.
 */
int coll_plan_make(struct coll_plan *p, const struct graph *g, const struct cluster *c,
                   const int32_t *device_of, int32_t ci);
void coll_plan_release(struct coll_plan *p);

/* The run-time state of a graph's collectives in one simulation. */
struct coll_sim {
    const struct graph *g;
    int32_t *waiting; /* per collective: ranks not ready yet */
    uint8_t *ready;   /* per op: 1 once a rank is ready (messages) */
};

int coll_sim_init(struct coll_sim *cs, const struct graph *g);
void coll_sim_release(struct coll_sim *cs);

/* Whether op v is a collective's rank. */
static inline bool coll_is_rank(const struct graph *g, int32_t v)
{
    return g->coll_of && g->coll_of[v] >= 0;
}

/* Rank op v is ready; true when it was its collective's last. */
bool coll_sim_rank_ready(struct coll_sim *cs, int32_t v);

/*
 * The timed model's engines (`chan`) for c's channel model, nd =
 * c->n_devices: shared, one per device [0, nd); duplex, send engines [0,
 * nd) then receive engines [nd, 2 nd); link, one per link of the result's
 * links (sim_links.h) from 0.  In a cluster with nodes (cluster.h:
 * gpus_per_node > 0) shared and duplex have these engines twice: the first
 * set (from 0) is each device's NVLink engines, for transfers to a device
 * of its own node, the second (from 2 nd) its NIC engines, for transfers
 * across nodes, so a device's intra-node and inter-node traffic (tensor-
 * and data-parallel collectives, as NCCL runs them on separate
 * communicators, streams and hardware) do not wait for each other.
 * deviation: the original's devices have one channel for all traffic.
 */
/* The size of chan for c, with n_links links (used by CHANNEL_LINK only). */
size_t coll_sim_n_engines(const struct cluster *c, size_t n_links);

/* The offset of the engines a transfer src -> dst takes (shared, duplex):
 * 0, or 2 nd for a transfer across nodes. */
size_t coll_sim_fabric_base(const struct cluster *c, int32_t src, int32_t dst);

/*
 * Takes the channels the plan uses from time now on for its time_us, in
 * the layout of `chan` above (links->nd devices),
 * and returns the start: the latest of now and their free times.  Shared
 * and duplex hold every participant's engines of the fabric each edge
 * crosses, link the plan's links.
 */
int64_t coll_sim_take(const struct coll_plan *p, const struct cluster *c, int64_t *chan,
                      const struct sim_links *links, int64_t now_us);

/* The start coll_sim_take would give, taking nothing. */
int64_t coll_sim_free_at(const struct coll_plan *p, const struct cluster *c, const int64_t *chan,
                         const struct sim_links *links, int64_t now_us);

/*
 * After a simulation that could not run every op: the first collective
 * still waiting, with a rank that never became ready, as a BAECHI_EINVAL
 * error (ranks of collectives that wait on each other's results deadlock).
 */
int coll_sim_stuck(const struct coll_sim *cs);

#endif
