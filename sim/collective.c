/*
 * collective.c - the cost and links of a collective, and the readiness of
 * its ranks in the timed simulator (collective.h).  Planning one collective
 * of n ranks is O(n) (O(n * nodes) for the hierarchical one).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "sim/collective.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/checked.h"
#include "core/err.h"
#include "core/limits.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The slowest link seen: the largest slope (over the collective
 * efficiency) and the largest intercept. */
struct slowest {
    double slope_us_per_byte, intercept_us;
};

/*
 * The fat tree's uplinks (core/cluster.h, nodes: tiers): a pass that only
 * counts (counting) sums the flows each leaf group (pod) sends and receives
 * across its uplinks; a link that crosses them then runs at the NIC's rate
 * over div_leaf (a pod's: the larger of div_leaf and div_pod).  Empty
 * (n_leaf 0) on a flat fabric or one without oversubscription: there the
 * uplinks carry every NIC at full rate.
 */
struct fabric {
    double *out_leaf, *in_leaf, *out_pod, *in_pod; /* flows, in NICs */
    int32_t n_leaf, n_pod;
};

struct planner {
    const struct cluster *c;
    struct coll_plan *p;
    size_t alloc;
    bool counting;
    bool tree_rails; /* an all-reduce with `algo: tree` over nodes: trees on the rails */
    struct fabric fab;
    double div_leaf, div_pod;
};

static int32_t leaf_of(const struct cluster *c, int32_t d)
{
    return cluster_node_of(c, d) / c->nodes.nodes_per_leaf;
}

static int32_t pod_of(const struct cluster *c, int32_t d)
{
    return c->nodes.tiers >= 3 ? cluster_node_of(c, d) / c->nodes.nodes_per_pod : 0;
}

/* The NIC rate's divisor on link s -> d of the plan being built. */
static double fabric_div(const struct planner *pl, int32_t s, int32_t d)
{
    if (pl->fab.n_leaf == 0 || leaf_of(pl->c, s) == leaf_of(pl->c, d)) {
        return 1.0;
    }
    return pod_of(pl->c, s) != pod_of(pl->c, d) ? fmax(pl->div_leaf, pl->div_pod) : pl->div_leaf;
}

/* One flow of `w` NICs from s's group to d's across the uplinks. */
static void fabric_flow(struct planner *pl, int32_t s, int32_t d, double w)
{
    int32_t ls = leaf_of(pl->c, s), ld = leaf_of(pl->c, d);

    if (ls != ld) {
        pl->fab.out_leaf[ls] += w;
        pl->fab.in_leaf[ld] += w;
    }
    if (pod_of(pl->c, s) != pod_of(pl->c, d)) {
        pl->fab.out_pod[pod_of(pl->c, s)] += w;
        pl->fab.in_pod[pod_of(pl->c, d)] += w;
    }
}

/*
 * The divisors from the counts: a leaf group of L nodes x G NICs has L G / R
 * NICs' worth of uplinks, a pod of P nodes P G / R^2; flows share them
 * equally (ECMP spreading them evenly), each at most at its NIC's rate:
 *   div_leaf = max(1, max over leaf groups of flows x R / (L G)),
 *   div_pod  = max(1, max over pods of flows x R^2 / (P G)).
 */
static void fabric_divisors(struct planner *pl)
{
    const struct cluster_nodes *nd = &pl->c->nodes;
    const double r = nd->oversubscription, g = nd->gpus_per_node;
    const double cap_leaf = nd->nodes_per_leaf * g / r;
    const double cap_pod = nd->tiers >= 3 ? nd->nodes_per_pod * g / (r * r) : 1;

    pl->div_leaf = pl->div_pod = 1.0;
    for (int32_t i = 0; i < pl->fab.n_leaf; i++) {
        pl->div_leaf = fmax(pl->div_leaf, fmax(pl->fab.out_leaf[i], pl->fab.in_leaf[i]) / cap_leaf);
    }
    for (int32_t i = 0; nd->tiers >= 3 && i < pl->fab.n_pod; i++) {
        pl->div_pod = fmax(pl->div_pod, fmax(pl->fab.out_pod[i], pl->fab.in_pod[i]) / cap_pod);
    }
}

/* pl->fab for c: counters when the fabric is oversubscribed, else empty. */
static int fabric_init(struct planner *pl)
{
    const struct cluster_nodes *nd = &pl->c->nodes;
    int32_t nodes = cluster_n_nodes(pl->c);
    double *a;

    memset(&pl->fab, 0, sizeof(pl->fab));
    pl->div_leaf = pl->div_pod = 1.0;
    if (nd->gpus_per_node <= 0 || nd->tiers < 2 || !(nd->oversubscription > 1) ||
        nd->nodes_per_leaf <= 0) {
        return 0;
    }
    pl->fab.n_leaf = (nodes + nd->nodes_per_leaf - 1) / nd->nodes_per_leaf;
    pl->fab.n_pod = nd->tiers >= 3 && nd->nodes_per_pod > 0
                        ? (nodes + nd->nodes_per_pod - 1) / nd->nodes_per_pod
                        : 1;
    if (!(a = mem_calloc(2 * (size_t)(pl->fab.n_leaf + pl->fab.n_pod), sizeof(*a)))) {
        pl->fab.n_leaf = 0;
        return BAECHI_ENOMEM;
    }
    pl->fab.out_leaf = a;
    pl->fab.in_leaf = a + pl->fab.n_leaf;
    pl->fab.out_pod = a + 2 * pl->fab.n_leaf;
    pl->fab.in_pod = a + 2 * pl->fab.n_leaf + pl->fab.n_pod;
    return 0;
}

/*
 * An all-to-all's flows: each rank's NIC is busy for the whole inter-node
 * phase, the share of its off-node peers outside its leaf group (pod)
 * crossing the uplinks: rank group a of n ranks, g a node, sends
 * a (n - a) / (n - g) NICs' worth out (and as much in).
 */
static void fabric_all_to_all(struct planner *pl, const int32_t *devs, int32_t n, int32_t g)
{
    double *leaf = pl->fab.in_leaf, *pod = pl->fab.in_pod; /* ranks per group, then flows */

    for (int32_t i = 0; i < n; i++) {
        leaf[leaf_of(pl->c, devs[i])] += 1;
        pod[pod_of(pl->c, devs[i])] += 1;
    }
    for (int32_t i = 0; i < pl->fab.n_leaf; i++) {
        leaf[i] = pl->fab.out_leaf[i] = n > g ? leaf[i] * (n - leaf[i]) / (n - g) : 0;
    }
    for (int32_t i = 0; i < pl->fab.n_pod; i++) {
        pod[i] = pl->fab.out_pod[i] = n > g ? pod[i] * (n - pod[i]) / (n - g) : 0;
    }
}

/* Adds the ring over devs[0..k) (each to the next, the last to the first;
 * no link into position skip_dst), each link carrying `bytes`; links within
 * one device are free. */
/* Link s -> d (s != d) carrying `bytes`: counted (pl->counting) or added,
 * sl taking the slowest. */
static int link_add(struct planner *pl, int32_t s, int32_t d, double bytes, struct slowest *sl)
{
    struct comm_model m;
    struct coll_edge *e;
    double slope;

    if (pl->counting) {
        if (pl->fab.n_leaf > 0) {
            fabric_flow(pl, s, d, 1.0);
        }
        return 0;
    }
    m = cluster_comm_model(pl->c, s, d);
    /* the uplinks' share where the link leaves its leaf group */
    slope = m.slope_us_per_byte / cluster_coll_efficiency(pl->c, s, d) * fabric_div(pl, s, d);
    if (slope > sl->slope_us_per_byte) {
        sl->slope_us_per_byte = slope;
    }
    if (m.intercept_us > sl->intercept_us) {
        sl->intercept_us = m.intercept_us;
    }
    if (ARRAY_RESERVE(pl->p->edge, pl->alloc, (size_t)pl->p->n_edge + 1)) {
        return BAECHI_ENOMEM;
    }
    e = &pl->p->edge[pl->p->n_edge++];
    e->src = s;
    e->dst = d;
    e->bytes = (int64_t)nearbyint(bytes);
    return 0;
}

static int ring(struct planner *pl, const int32_t *devs, int32_t k, double bytes, int32_t skip_dst,
                struct slowest *sl)
{
    for (int32_t i = 0; k > 1 && i < k; i++) {
        int32_t s = devs[i], d = devs[(i + 1) % k];
        int rc;

        if (s == d || (i + 1) % k == skip_dst) {
            continue;
        }
        if ((rc = link_add(pl, s, d, bytes, sl)) != 0) {
            return rc;
        }
    }
    return 0;
}

/* A binary tree over devs[0..k) (rank i's parent (i - 1) / 2), each link
 * both ways carrying `bytes`: reduced up, broadcast down (NCCL's tree,
 * pipelined). */
static int tree(struct planner *pl, const int32_t *devs, int32_t k, double bytes,
                struct slowest *sl)
{
    for (int32_t i = 1; i < k; i++) {
        int32_t s = devs[i], d = devs[(i - 1) / 2];
        int rc;

        if (s != d && ((rc = link_add(pl, s, d, bytes, sl)) != 0 ||
                       (rc = link_add(pl, d, s, bytes, sl)) != 0)) {
            return rc;
        }
    }
    return 0;
}

/* Whether some link of the ring over devs[0..k) joins two devices. */
static bool any_link(const int32_t *devs, int32_t k)
{
    for (int32_t i = 1; i < k; i++) {
        if (devs[i] != devs[0]) {
            return true;
        }
    }
    return false;
}

/*
 * The closed forms (collective.h), all of them: one ring of n ranks over
 * links of (slope, intercept) `l`, and the hierarchy of m nodes of g ranks
 * with in-node links `in` and rails `x`.  Per-link bytes of the rings are
 * the bandwidth terms times the link's bandwidth (ring_bytes, hier_bytes).
 */
/* The bytes each rank of a ring sends, per byte of the collective (one
 * place for the ring's volume: its time and its per-link bytes both read
 * it); and the latency steps of the ring. */
static double ring_factor(enum coll_kind kind, double n)
{
    return kind == COLL_ALL_REDUCE  ? 2 * (n - 1) / n
           : kind == COLL_BROADCAST ? 1
                                    : (n - 1) / n; /* reduce-scatter, all-gather, all-to-all */
}

static double ring_steps(enum coll_kind kind, double n)
{
    return kind == COLL_ALL_REDUCE ? 2 * (n - 1) : n - 1;
}

static double ring_time_us(enum coll_kind kind, double n, double S, const struct slowest *l)
{
    return ring_factor(kind, n) * S * l->slope_us_per_byte + ring_steps(kind, n) * l->intercept_us;
}

static double ring_bytes(enum coll_kind kind, double n, double S)
{
    return ring_factor(kind, n) * S;
}

/* Bytes on each link of an in-node ring (rail = false) or of a rail of
 * len nodes (rail = true): the one place for the hierarchy's volumes, read
 * by its time (hier_time_us) and its per-link traffic. */
static double hier_bytes(enum coll_kind kind, bool rail, double len, double m, double g, double S)
{
    switch (kind) {
    case COLL_ALL_REDUCE:
        return rail ? 2 * (len - 1) / len * S / g : 2 * (g - 1) / g * S;
    case COLL_BROADCAST: /* in the node: scatter, then all-gather after the rails */
        return rail ? S / g : 2 * (g - 1) / g * S;
    case COLL_ALL_TO_ALL:
        return rail ? (len - 1) / len * S : (g - 1) / (m * g) * S;
    default: /* reduce-scatter, all-gather */
        return rail ? (len - 1) / len * S / g : (g - 1) / g * S;
    }
}

static double hier_time_us(enum coll_kind kind, double m, double g, double S,
                           const struct slowest *in, const struct slowest *x, bool tree_rails)
{
    double ai = in->intercept_us, ax = x->intercept_us, steps;

    if (tree_rails) { /* all-reduce, trees on the rails: 2 log2(m) steps of S/g */
        return 2 * (g - 1) * ai + 2 * ceil(log2(m)) * ax +
               fmax(hier_bytes(kind, false, m, m, g, S) * in->slope_us_per_byte,
                    2 * S / g * x->slope_us_per_byte);
    }
    switch (kind) {
    case COLL_ALL_REDUCE:
        steps = 2 * (g - 1) * ai + 2 * (m - 1) * ax;
        break;
    case COLL_BROADCAST:
        steps = 2 * (g - 1) * ai + (m - 1) * ax;
        break;
    case COLL_ALL_TO_ALL:
        steps = (g - 1) * ai + (m - 1) * g * ax;
        break;
    default: /* reduce-scatter, all-gather */
        steps = (g - 1) * ai + (m - 1) * ax;
        break;
    }
    return steps + fmax(hier_bytes(kind, false, m, m, g, S) * in->slope_us_per_byte,
                        hier_bytes(kind, true, m, m, g, S) * x->slope_us_per_byte);
}

/* The ranks' nodes, numbered by first appearance: node[i] in 0..*m-1, and
 * local[i] the rank's index in its node; *g the largest node group.
 * cnt (n) and map (cluster_n_nodes, all -1, left so) are scratch: O(n). */
static void group_by_node(const struct cluster *c, const int32_t *devs, int32_t n, int32_t *node,
                          int32_t *local, int32_t *first, int32_t *cnt, int32_t *map, int32_t *m,
                          int32_t *g)
{
    *m = 0;
    *g = 0;
    for (int32_t i = 0; i < n; i++) {
        int32_t cn = cluster_node_of(c, devs[i]), k = map[cn];

        if (k < 0) {
            k = map[cn] = *m;
            first[(*m)++] = i;
            cnt[k] = 0;
        }
        node[i] = k;
        local[i] = cnt[k]++;
        if (local[i] + 1 > *g) {
            *g = local[i] + 1;
        }
    }
    for (int32_t k = 0; k < *m; k++) {
        map[cluster_node_of(c, devs[first[k]])] = -1;
    }
}

/* The collective over the node hierarchy: the rings in each node and the
 * rails across nodes (local rank j of each node), their links held. */
static int hierarchical(struct planner *pl, const struct graph_coll *gc, const int32_t *devs,
                        int32_t n, int32_t *scratch)
{
    int32_t *node = scratch, *local = scratch + n, *first = scratch + 2 * n, *sub = scratch + 3 * n;
    int32_t *cnt = scratch + 4 * n, *map = scratch + 5 * n;
    struct slowest in = {0, 0}, x = {0, 0};
    const double S = (double)gc->bytes;
    int32_t m, g;
    double t;
    int rc;

    group_by_node(pl->c, devs, n, node, local, first, cnt, map, &m, &g);
    /* the ranks by node (first[k]: where node k's start), op order within */
    for (int32_t k = 0, at = 0; k < m; k++) {
        first[k] = at;
        at += cnt[k];
    }
    for (int32_t i = 0; i < n; i++) {
        sub[first[node[i]] + local[i]] = devs[i];
    }
    for (int32_t k = 0; k < m; k++) { /* the rings in each node */
        int32_t len = cnt[k];

        if ((rc = ring(pl, sub + first[k], len, hier_bytes(gc->kind, false, len, m, g, S), -1,
                       &in))) {
            return rc;
        }
    }
    for (int32_t j = 0; j < g; j++) { /* the rails */
        int32_t len = 0, skip = -1;

        for (int32_t i = 0; i < n; i++) {
            if (local[i] == j) {
                /* a broadcast's chains end before the root's node */
                skip = gc->kind == COLL_BROADCAST && node[i] == node[gc->root] ? len : skip;
                sub[len++] = devs[i];
            }
        }
        rc = pl->tree_rails
                 ? tree(pl, sub, len, S / g, &x)
                 : ring(pl, sub, len, hier_bytes(gc->kind, true, len, m, g, S), skip, &x);
        if (rc) {
            return rc;
        }
    }
    t = hier_time_us(gc->kind, m, g, S, &in, &x, pl->tree_rails);
    pl->p->time_us = (int64_t)fmin(nearbyint(t), (double)LIMIT_TIME_SAT_US);
    return 0;
}

/* A ring member's device and the device of the rank op it is a copy of. */
struct member {
    int32_t dev, rep;
};

static int cmp_member(const void *a, const void *b)
{
    const struct member *x = a, *y = b;

    return (x->dev > y->dev) - (x->dev < y->dev);
}

static int32_t rep_of(const struct member *m, int32_t n, int32_t dev)
{
    int32_t lo = 0, hi = n - 1;

    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;

        if (m[mid].dev < dev) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return n > 0 && m[lo].dev == dev ? m[lo].rep : dev;
}

/* Replica symmetry: each edge's endpoints as the rank ops' devices they are
 * copies of (whose engines they mirror: every copy runs the same schedule). */
static int mirror_edges(struct coll_plan *p, const int32_t *devs, const int32_t *rep, int32_t n)
{
    struct member *m = mem_alloc_array((size_t)n + 1, sizeof(*m));

    if (!m) {
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    for (int32_t i = 0; i < n; i++) {
        m[i] = (struct member){devs[i], rep[i]};
    }
    qsort(m, (size_t)n, sizeof(*m), cmp_member);
    for (int32_t k = 0; k < p->n_edge; k++) {
        p->edge[k].rep_src = rep_of(m, n, p->edge[k].src);
        p->edge[k].rep_dst = rep_of(m, n, p->edge[k].dst);
    }
    free(m);
    return 0;
}

/* The ring: rank op j's copies consecutive, copy k on its device + k x
 * stride (docs/symmetry.md); rep[i] the rank op's device.  *n their count. */
static int ring_members(const struct graph *g, const struct cluster *c, const int32_t *device_of,
                        int32_t ci, int32_t *devs, int32_t *rep)
{
    const struct graph_coll *gc = &g->coll[ci];
    int32_t i = 0;

    for (int32_t j = g->coll_start[ci]; j < g->coll_start[ci + 1]; j++) {
        const int32_t v = device_of[g->coll_op[j]];

        for (int32_t k = 0; k < g->coll_copies[j]; k++, i++) {
            devs[i] = v + k * gc->replica_stride;
            rep[i] = v;
            if (devs[i] >= c->n_devices) {
                return err_set(BAECHI_EINVAL,
                               "collective '%s': replica %d of its rank on device %d is device "
                               "%d, beyond the cluster's %d devices",
                               gc->id, (int)k, (int)v, (int)devs[i], (int)c->n_devices);
            }
        }
    }
    return 0;
}

int coll_plan_make(struct coll_plan *p, const struct graph *g, const struct cluster *c,
                   const int32_t *device_of, int32_t ci)
{
    const struct graph_coll *gc = &g->coll[ci];
    struct planner pl = {.c = c, .p = p};
    struct slowest sl = {0, 0};
    /* devs, then hierarchical's scratch: 5 n, then a map of the cluster's nodes, then the
     * rank op of each member (replica symmetry) */
    const size_t n_map = (size_t)cluster_n_nodes(c);
    int32_t n = 0, *devs = NULL, *rep, m = 1, gmax = 0;
    double S = (double)gc->bytes, t;
    int rc = 0;

    memset(p, 0, sizeof(*p));
    for (int32_t j = g->coll_start[ci]; j < g->coll_start[ci + 1]; j++) {
        n += g->coll_copies[j];
    }
    if (!(devs = mem_alloc_array((size_t)n * 7 + n_map + 1, sizeof(*devs)))) {
        return BAECHI_ENOMEM;
    }
    rep = devs + 6 * (size_t)n + n_map;
    CHECK(ring_members(g, c, device_of, ci, devs, rep));
    memset(devs + 6 * (size_t)n, 0xff, n_map * sizeof(*devs)); /* the map: -1 */
    p->algo = gc->algo;
    if (p->algo == COLL_ALGO_DEFAULT || p->algo == COLL_ALGO_HIERARCHICAL ||
        (p->algo == COLL_ALGO_TREE && gc->kind == COLL_ALL_REDUCE)) {
        group_by_node(c, devs, n, devs + n, devs + 2 * n, devs + 3 * n, devs + 4 * n, devs + 6 * n,
                      &m, &gmax);
        /* a tree all-reduce over nodes: in-node rings, trees on the rails */
        pl.tree_rails = p->algo == COLL_ALGO_TREE && m > 1;
        p->algo = p->algo == COLL_ALGO_TREE ? COLL_ALGO_TREE
                  : m > 1                   ? COLL_ALGO_HIERARCHICAL
                                            : COLL_ALGO_RING;
    }
    CHECK(fabric_init(&pl));
    if (pl.fab.n_leaf > 0 && any_link(devs, n)) {
        /* the flows across the uplinks first: the same rings, counted */
        pl.counting = true;
        if (gc->kind == COLL_ALL_TO_ALL && p->algo == COLL_ALGO_HIERARCHICAL) {
            fabric_all_to_all(&pl, devs, n, gmax);
        } else if (p->algo == COLL_ALGO_HIERARCHICAL || pl.tree_rails) {
            CHECK(hierarchical(&pl, gc, devs, n, devs + n));
        } else {
            CHECK(ring(&pl, devs, n, 0, gc->kind == COLL_BROADCAST ? gc->root : -1, &sl));
        }
        pl.counting = false;
        fabric_divisors(&pl);
        memset(&sl, 0, sizeof(sl));
    }
    if (!any_link(devs, n)) {
        p->time_us = 0; /* every rank on one device: nothing moves */
    } else if (p->algo == COLL_ALGO_HIERARCHICAL || pl.tree_rails) {
        CHECK(hierarchical(&pl, gc, devs, n, devs + n));
    } else {
        /* a broadcast's chain ends before the root: nothing flows into it */
        CHECK(ring(&pl, devs, n, ring_bytes(gc->kind, n, S),
                   gc->kind == COLL_BROADCAST ? gc->root : -1, &sl));
        if (p->algo == COLL_ALGO_TREE) {
            t = 2 * S * sl.slope_us_per_byte + 2 * ceil(log2((double)n)) * sl.intercept_us;
        } else {
            t = ring_time_us(gc->kind, (double)n, S, &sl);
        }
        p->time_us = (int64_t)fmin(nearbyint(t), (double)LIMIT_TIME_SAT_US);
    }
    if (p->time_us < 1) {
        p->time_us = 1; /* as an op's weight: at least 1 µs */
    }
    CHECK(mirror_edges(p, devs, rep, n));
cleanup:
    free(devs);
    free(pl.fab.out_leaf);
    if (rc) {
        coll_plan_release(p);
    }
    return rc;
}

void coll_plan_release(struct coll_plan *p)
{
    free(p->edge);
    memset(p, 0, sizeof(*p));
}

int coll_sim_init(struct coll_sim *cs, const struct graph *g)
{
    cs->g = g;
    cs->waiting = NULL;
    cs->ready = NULL;
    if (g->n_coll == 0) {
        return 0;
    }
    cs->waiting = mem_alloc_array((size_t)g->n_coll, sizeof(*cs->waiting));
    cs->ready = mem_calloc((size_t)g->n_ops, sizeof(*cs->ready));
    if (!cs->waiting || !cs->ready) {
        coll_sim_release(cs);
        return BAECHI_ENOMEM;
    }
    for (int32_t c = 0; c < g->n_coll; c++) {
        cs->waiting[c] = g->coll_start[c + 1] - g->coll_start[c];
    }
    return 0;
}

void coll_sim_release(struct coll_sim *cs)
{
    free(cs->waiting);
    free(cs->ready);
    cs->waiting = NULL;
    cs->ready = NULL;
}

bool coll_sim_rank_ready(struct coll_sim *cs, int32_t v)
{
    cs->ready[v] = 1;
    return --cs->waiting[cs->g->coll_of[v]] == 0;
}

static int64_t take(const int64_t *slot, int64_t st)
{
    return *slot > st ? *slot : st;
}

/* Edge k of p, a copy's device as its rank op's (whose engines it mirrors:
 * every copy runs the same schedule). */
static struct coll_edge edge_of(const struct coll_plan *p, int32_t k)
{
    struct coll_edge e = p->edge[k];

    e.src = e.rep_src;
    e.dst = e.rep_dst;
    return e;
}

size_t coll_sim_n_engines(const struct cluster *c, size_t n_links)
{
    const size_t nd = (size_t)c->n_devices;

    if (c->channel == CHANNEL_LINK) {
        return 2 * nd + n_links;
    }
    return c->nodes.gpus_per_node > 0 ? 4 * nd : 2 * nd;
}

size_t coll_sim_fabric_base(const struct cluster *c, int32_t src, int32_t dst)
{
    if (c->nodes.gpus_per_node > 0 && cluster_node_of(c, src) != cluster_node_of(c, dst)) {
        return 2 * (size_t)c->n_devices;
    }
    return 0;
}

/* The engines a collective holds (shared, duplex): its NIC engines when
 * any of its real edges (copies' included) crosses nodes, else its NVLink
 * engines.  By collective, not by edge: a data-parallel ring across nodes
 * is one communicator whichever of its hops stay inside a node, and every
 * replica then holds the same engines, as replica symmetry's mirrored
 * edges (whose ends may be one device) require. */
static size_t plan_fabric_base(const struct coll_plan *p, const struct cluster *c)
{
    for (int32_t k = 0; k < p->n_edge; k++) {
        size_t b = coll_sim_fabric_base(c, p->edge[k].src, p->edge[k].dst);

        if (b) {
            return b;
        }
    }
    return 0;
}

int64_t coll_sim_free_at(const struct coll_plan *p, const struct cluster *c, const int64_t *chan,
                         const struct sim_links *links, int64_t now_us)
{
    const enum channel_model m = c->channel;
    const int32_t nd = links->nd;
    const size_t base = m == CHANNEL_LINK ? 0 : plan_fabric_base(p, c);
    int64_t st = now_us;

    /* the start: every channel free */
    for (int32_t k = 0; k < p->n_edge; k++) {
        const struct coll_edge real = p->edge[k], mirror = edge_of(p, k);
        const struct coll_edge *e = m == CHANNEL_LINK ? &real : &mirror;

        if (m == CHANNEL_LINK) {
            st = take(&chan[sim_links_at(links, e->src, e->dst)], st);
        } else {
            const int64_t *f = chan + base;

            st = m == CHANNEL_DUPLEX ? take(&f[nd + e->dst], take(&f[e->src], st))
                                     : take(&f[e->dst], take(&f[e->src], st));
        }
    }
    return st;
}

int64_t coll_sim_take(const struct coll_plan *p, const struct cluster *c, int64_t *chan,
                      const struct sim_links *links, int64_t now_us)
{
    const enum channel_model m = c->channel;
    const int32_t nd = links->nd;
    const size_t base = m == CHANNEL_LINK ? 0 : plan_fabric_base(p, c);
    int64_t st = coll_sim_free_at(p, c, chan, links, now_us), end;

    end = sat_add_i64(st, p->time_us);
    for (int32_t k = 0; k < p->n_edge; k++) {
        const struct coll_edge real = p->edge[k], mirror = edge_of(p, k);
        const struct coll_edge *e = m == CHANNEL_LINK ? &real : &mirror;

        if (m == CHANNEL_LINK) {
            chan[sim_links_at(links, e->src, e->dst)] = end;
        } else {
            int64_t *f = chan + base;

            if (m == CHANNEL_DUPLEX) {
                f[e->src] = f[nd + e->dst] = end;
            } else {
                f[e->src] = f[e->dst] = end;
            }
        }
    }
    return st;
}

int coll_sim_stuck(const struct coll_sim *cs)
{
    const struct graph *g = cs->g;

    for (int32_t c = 0; c < g->n_coll; c++) {
        if (cs->waiting[c] == 0) {
            continue;
        }
        for (int32_t i = g->coll_start[c]; i < g->coll_start[c + 1]; i++) {
            int32_t v = g->coll_op[i];

            if (!cs->ready[v]) {
                return err_set(BAECHI_EINVAL,
                               "collective '%s' never started: its rank '%s' waits for inputs "
                               "that need another collective to finish first (ranks of "
                               "collectives that wait on each other deadlock)",
                               g->coll[c].id, g->op_name[v]);
            }
        }
    }
    return err_set(BAECHI_EINVAL, "the simulation could not run every op");
}
