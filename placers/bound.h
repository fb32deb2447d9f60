/*
 * bound.h - a certified lower bound on the step time of any placement of a
 * graph on a cluster (beyond the original: Baechi reports no bound).
 *
 * What it bounds.  The bound is valid for the `timed` simulator model
 * (sim.h, SIM_MODEL_TIMED) and, more strongly, for every schedule of every
 * placement that obeys the timed model's rules:
 *
 *   (R1) a device runs one op at a time, op v taking
 *        cluster_compute_us(c, d, weight_us[v]) on device d;
 *   (R2) a consumer starts after its producer ends and, when they sit on
 *        different devices, after every tensor of their edge has crossed;
 *        the tensors of one edge all leave the same source for the same
 *        destination after the producer ends and every channel model
 *        serialises such transfers (shared: chan[src]; duplex: send[src];
 *        link: link[src][dst]), so the edge costs at least the sum of its
 *        tensors' transfer times;
 *   (R3) a placement counts only when it does not run out of memory: the
 *        persistent bytes of every op on a device are held from time 0 for
 *        the whole step; an op's temp bytes and its own outputs beyond the
 *        persistent ones are taken at its start, the temp freed at its
 *        end, the outputs when its last consumer ends (a sink keeps them).
 *
 * A step of the timed model is such a schedule, so the bound never exceeds
 * the smallest timed step over the placements that fit (the optimum).  A
 * transfer's time is taken as the smallest over the cluster's default model
 * and every device pair, so R2 holds for the `baechi` model's transfers as
 * well; R3 does not (that model holds an op's persistent bytes only from its
 * start), so the memory parts certify the timed model only.  When no
 * placement fits at all the bound is vacuous (any number is a lower bound
 * of an empty set); it stays finite.
 *
 * The bound is the largest of three, and `kind` names the one that gave it
 * (ties go to the simpler):
 *
 *   simple  max(critical path, Σ compute / Σ speed), the critical path at
 *           the fastest device's speed: sim_lower_bound_us, except that
 *           the speeds are the ones the rounded compute times give (that
 *           one, kept as old_simple_us, divides by the nominal speeds and
 *           can exceed the optimum on mixed speeds: bound.c work_bound).
 *   memory  a path P = L_0 -> ... -> L_k-1 whose ops cannot all sit on one
 *           device has at least m-1 cut edges: P's ops span >= m devices
 *           and a path visiting m devices crosses >= m-1 edges between
 *           devices.  "Cannot sit on one device": that device would hold
 *           Σ persist(P) for the whole step and, at the start of some L_i,
 *           temp(L_i) plus the own outputs (out - persist, less any output
 *           that may alias an input) of every u on P up to L_i that a
 *           consumer at or after L_i still needs (a descendant of L_i, or
 *           L_i: it ends after L_i starts), or that is a sink (kept), and
 *           that exceeds the largest limit.  m = max(2, the fewest devices
 *           whose limits hold Σ persist(P)).  By R1 and R2 the last op of P
 *           ends at >= Σ compute(P) + the m-1 cheapest edge transfers of P.
 *           Tried for a few paths (the compute-critical one, the ones
 *           heaviest in persistent and in output bytes, and mixes, and the
 *           compute-critical ones over only the edges dearer than a few
 *           thresholds, the transfer times on the compute-critical path:
 *           BOUND_DEAR_PATHS); any path gives a valid bound.
 *           Windows: the same holds for every run of consecutive ops of
 *           P (a window): one that cannot sit on one device holds a cut
 *           edge, so the cut edges of a placement form a set C that hits
 *           every such window, and the last op ends at >= Σ compute(P) +
 *           Σ_{t in C} cost(t), at least the cheapest such set (an
 *           interval hitting set: bound.c path_cut_cost).
 *           One cut and cut volumes (issue 22 items 6/7): the cut edges
 *           of P in a placement split P into parts, maximal runs of
 *           consecutive ops on one device, so two neighbouring parts sit on
 *           different devices A != B.  Every tensor that an op of the
 *           earlier part produces and an op of the later part reads is sent
 *           from A to B, once (one copy per receiving device), and all such
 *           transfers hold the same channel (R2: chan[A], send[A] or
 *           link[A][B]), so they run one after another; the first starts
 *           after its producer ends, at the earliest Σ compute of P up to
 *           that producer (P's ops run in order); the last ends before its
 *           reader starts, at the latest the step less Σ compute of P from
 *           that reader on.  So for any subset of those tensors, step >=
 *           compute(P up to its first producer) + Σ their transfer times +
 *           compute(P from its last reader).  With one cut (two parts,
 *           "one cut") the whole set is taken; between a first or a last
 *           part and its neighbour, the subsets by producer (the last cut)
 *           or by reader (the first cut); between two middle parts, Σ only.
 *           A training graph's critical path runs forward, the loss, and
 *           backward, and each backward op reads its forward op's saved
 *           activation: a cut at the (small) loss tensor sends every saved
 *           activation of the parts around it, which the cheapest-cut sum
 *           did not see.  The bound of P is then min over cut sets C that
 *           hit every window of max(compute(P) + Σ_{t in C} cost(t),
 *           max over C's neighbouring parts of their transfer bound).  For
 *           any x, every C either has a part pair whose transfers need > x
 *           (so its step is > x) or is one whose every pair needs <= x, so
 *           the bound is at least min(x, compute(P) + the cheapest such C):
 *           bound_cuts.c finds that cheapest C by a DP over the pairs of
 *           consecutive cuts (a pair's transfers need less as the earlier
 *           cut moves right and more as the later one does, so the allowed
 *           earlier cuts are a suffix, a suffix minimum), and bisects on x
 *           (to a relative 1/BOUND_CUTS_PRECISION, each x evaluated being a
 *           valid bound).  Not used: parts two or more apart (they may share
 *           a device, and then nothing crosses but their union must fit:
 *           a training path cut around the loss into three parts is charged
 *           only its cuts).
 *           Views (x-alias, beyond the first version): an output that shares
 *           an input's storage counts nothing of its own (on another device
 *           than its root it would count, but the device is not known), and
 *           a view V on the path whose root op U is on the path too keeps
 *           U's own outputs needed until V's consumers end (or the whole
 *           step when V has none), as the timed model holds a root's
 *           storage for the views on its device.  Why that is sound for a
 *           window L_i .. L_l that sits on one device: if L_l starts after
 *           U's own consumers' hold, then V (between U and L_l: V follows
 *           U, and U's consumers' hold reaches V's index) is in the window,
 *           so on U's device, so U's storage is held for V's consumers;
 *           chains of views follow by induction from the last view down.
 *   lp      the LP relaxation below, solved to optimality by GLPK's simplex
 *           within an iteration limit (work, never seconds), for graphs up
 *           to opt->lp_max_ops ops, and only when memory binds (the total
 *           persistent bytes exceed the largest device) or the speeds
 *           differ: otherwise x = 1/D, z = 0 gives exactly the simple
 *           bound.  Beyond, or when the limit is reached, it is skipped
 *           and the status says why.
 *
 * The LP (x[v][d] the share of op v on device d, S_v its start, z_e >= 0
 * the share of edge e = (u, v) that is cut, y[e][d] >= |x[u][d] - x[v][d]|,
 * t(v,d) = cluster_compute_us, comm_e the edge's transfer time, T the step):
 *
 *   minimise T
 *     Σ_d x[v][d] = 1                                   every op placed
 *     S_v - S_u - Σ_d t(u,d) x[u][d] - comm_e z_e >= 0   e = (u, v)   (R2)
 *     y[e][d] - x[u][d] + x[v][d] >= 0, y[e][d] + x[u][d] - x[v][d] >= 0
 *     2 z_e - Σ_d y[e][d] >= 0                          z_e >= half the
 *                                                       total variation
 *     T - S_v - Σ_d t(v,d) x[v][d] >= 0                 v a sink
 *     T - Σ_v t(v,d) x[v][d] >= 0                        per device (R1)
 *     Σ_v persist(v) x[v][d] <= limit(d)                 per device (R3)
 *     0 <= x <= 1, 0 <= z <= 1, S >= 0
 *
 * Every placement that fits and every schedule obeying R1-R3 is a point of
 * it (x the 0/1 placement, z_e = 1 exactly on cut edges, S the starts), so
 * the LP optimum is a lower bound.  The value GLPK returns is rounded down
 * after subtracting a relative 1e-6 and 1 µs, for the solver's tolerances.
 * Known limit: the relaxation is weak where memory is loose (x = 1/k on
 * every device and z = 0 is feasible), so it adds most where the memory
 * rows force ops apart.
 *
 * Complexity: simple and memory O(V·S + D·S + 16 (V + E + k log k) + T·M)
 * for S distinct device speeds, M link models (the distinct models of the
 * class pairs, "Device classes" below; D² when the classes are not
 * symmetric), paths of k ops and T tensors on them, one pass over the
 * cluster's pair table (D² entries, when it has one), plus the cut volumes on paths of at
 * most BOUND_CUTS_MAX_OPS ops where memory binds: O(k² + k·T_k) per step
 * of the bisection (about 10-20), T_k the path tensors read later on the
 * path; each distinct path once.  The LP has V·D + E·(D + 1) + V + 1 columns
 * (skipped above BOUND_LP_MAX_DEVICES devices).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_PLACERS_BOUND_H
#define BAECHI_PLACERS_BOUND_H

#include "core/cluster.h"
#include "core/graph.h"
#include "placers/lp_solver.h"

#include <stdbool.h>
#include <stdint.h>

enum bound_kind { BOUND_SIMPLE = 0, BOUND_MEMORY = 1, BOUND_LP = 2 };

/* Defaults: the LP up to this many ops, and this many simplex iterations
 * per row + column of the LP (the work limit).  CPU time of the LP on
 * layered synthetic graphs on 4 devices where memory binds: 100 ops 0.05 s,
 * 150 ops 0.2 s, 200 ops 2.4 s (the simplex grows fast: `run` and every
 * database row compute the bound). */
#define BOUND_LP_MAX_OPS_DEFAULT   150
#define BOUND_LP_ITERS_PER_ELEMENT 20

/* The LP only on clusters of at most this many devices (its columns grow
 * with ops x devices; m-ETF and m-SCT place on at most 64 too). */
#define BOUND_LP_MAX_DEVICES 64

/* The memory bound also tries this many paths restricted to dear edges. */
#define BOUND_DEAR_PATHS 8

/* The cut volumes (bound_cuts.c) on paths of at most this many ops (the DP
 * holds k² states), the bisection to a relative 1 / this. */
#define BOUND_CUTS_MAX_OPS   1000
#define BOUND_CUTS_PRECISION 1000

struct bound_options {
    bool lp;            /* try the LP (true by bound_options_init) */
    int32_t lp_max_ops; /* graphs above this skip the LP */
    /* PLACER_LP_AUTO by bound_options_init: by size (placers/lp_backend.h) */
    enum placer_lp_solver lp_solver;
};

void bound_options_init(struct bound_options *o);

struct bound_result {
    int64_t lower_bound_us; /* the largest of the three below */
    enum bound_kind kind;   /* which one it is */
    int64_t simple_us;      /* max(critical path, Σ compute / Σ speed), certified */
    int64_t old_simple_us;  /* sim_lower_bound_us: the same on nominal speeds */
    int64_t memory_us;      /* the memory-aware bound (>= simple_us) */
    int64_t lp_us;          /* the LP's, -1 when not solved (see lp_status) */
    int32_t min_devices;    /* devices the memory bound's path needs (1: fits one) */
    int32_t forced_cuts;    /* cut edges it charged on that path */
    char lp_status[64];     /* "optimal", "skipped: ...", "iteration limit", ... */
    char lp_solver[8];      /* the LP's solver, "glpk" or "clp"; "" when none ran */
};

/*
 * Computes every bound of g on c (the world: weights and memory limits as
 * simulated; a device limit <= 0 is unlimited) into r.  opt NULL: defaults.
 * Returns 0 or BAECHI_ENOMEM; a GLPK failure (fenced) only loses the LP's
 * bound, and lp_status says so.
 */
int bound_compute(const struct graph *g, const struct cluster *c, const struct bound_options *opt,
                  struct bound_result *r);

/* "simple", "memory", "lp". */
const char *bound_kind_name(enum bound_kind k);

/* The smallest transfer time of `bytes` between two different devices of
 * c, over the default model and every pair (µs). */
int64_t bound_comm_min_us(const struct cluster *c, int64_t bytes);

/*
 * Device classes (bound_classes.c; beyond the original).  Devices of one
 * class are alike in every number a placer or simulator reads (kind,
 * memory, speed, peak FLOP/s, memory bandwidth, launch time) and sit in one
 * node (the cluster file's `nodes`; one node without).  The classes are
 * symmetric when every ordered pair of devices s != d of classes (a, b)
 * has one link model: then the smallest transfer time of a tensor is the
 * smallest over the distinct models of the class pairs (2 on a multi-node
 * cluster: inside a node, between nodes), and the bound costs
 * O(tensors x models + devices) instead of O(tensors x devices²); the one
 * pass that checks symmetry reads each entry of the cluster's own pair table
 * once (none without one).  Not symmetric (a calibrated per-pair table,
 * more than BOUND_CLASSES_MAX classes): the per-pair path, as before.
 *
 * Uniform: symmetric, and the classes interchangeable (contiguous, one
 * size, alike devices, one model inside every class and one between any
 * two).  A permutation of the classes and of the devices inside each then
 * maps the cluster onto itself, so every placement that uses at most n
 * devices has an image of equal step on the first bound_classes_prefix(n)
 * devices: `auto` searches only those (auto.c).
 */
#define BOUND_CLASSES_MAX 1024 /* classes² entries: 8 MiB */

struct bound_classes {
    int32_t n_devices;    /* the first n_devices of the cluster */
    int32_t n_classes;    /* classes, numbered by their first device */
    int32_t *class_of;    /* n_devices */
    int32_t *first;       /* a class's first device */
    int32_t *size;        /* a class's devices */
    bool symmetric;       /* one link model per class pair (see above) */
    bool uniform;         /* interchangeable classes (see above) */
    int32_t n_links;      /* symmetric: the distinct link models of s != d */
    int32_t *link_src;    /* a pair with each model */
    int32_t *link_dst;    /* */
    int32_t n_speeds;     /* distinct device speeds */
    int32_t *speed_dev;   /* a device of each */
    int32_t *speed_count; /* how many devices have it */
};

/* The classes of the first n devices of c (n <= 0 or above: all) into k
 * (released by bound_classes_release, also after an error).  0 or
 * BAECHI_ENOMEM. */
int bound_classes_build(const struct cluster *c, int32_t n, struct bound_classes *k);
void bound_classes_release(struct bound_classes *k);

/* bound_comm_min_us by the class pairs' models (the per-pair loop when not
 * symmetric): the same number. */
int64_t bound_classes_comm_min_us(const struct bound_classes *k, const struct cluster *c,
                                  int64_t bytes);

/* Uniform: the fewest first devices that hold an image (above) of every
 * placement on at most n_used devices; otherwise k->n_devices. */
int32_t bound_classes_prefix(const struct bound_classes *k, int32_t n_used);

/* A copy of src's first n devices (1..n_devices) and their pair table into
 * dst (initialised here), without copying the whole table.  0 or
 * BAECHI_ENOMEM. */
int bound_classes_copy_prefix(struct cluster *dst, const struct cluster *src, int32_t n);

/* Internal to bound*.c: the LP bound into r->lp_us (-1 when not solved),
 * its status into r->lp_status and its solver into r->lp_solver.  0 or
 * BAECHI_ENOMEM. */
int bound_lp(const struct graph *g, const struct cluster *c, const struct bound_options *opt,
             struct bound_result *r);

/* Internal to bound*.c: a path of the memory bound and what bound_path_cuts
 * reads of it (all borrowed). */
struct bound_path {
    const struct graph *g;
    int32_t k;            /* ops on the path */
    const int32_t *pop;   /* the path, first to last op, k */
    const int32_t *win;   /* win[i]: the first j with pop[i..j] on no device (k: none), k + 1 */
    const int64_t *cost;  /* cost[t]: edge pop[t] -> pop[t+1]'s transfer time, k - 1 */
    const int64_t *vol;   /* vol[t]: the least step when t is the only cut, k - 1 */
    const int64_t *pre;   /* pre[i]: Σ compute of pop[0..i-1], k + 1 */
    const int64_t *tcomm; /* every tensor's transfer time (bound_comm_min_us) */
};

/* Internal to bound*.c: raises *lb_us (the path's bound so far, compute_us
 * plus the cheapest cut set) by the cut volumes (bound.h), the size of the
 * set that gave it into *n_cuts; when the cut volumes cannot reach floor_us
 * (a bound found elsewhere), only by less than they could (one evaluation:
 * the caller keeps its larger one).  Paths above BOUND_CUTS_MAX_OPS are
 * left as they are.  0 or BAECHI_ENOMEM. */
int bound_path_cuts(const struct bound_path *p, int64_t compute_us, int64_t floor_us,
                    int64_t *lb_us, int32_t *n_cuts);

#endif
