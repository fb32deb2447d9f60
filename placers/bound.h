/*
 * bound.h - a certified lower bound on the step time of any placement of a
 * graph on a cluster (beyond the original: Baechi reports no bound).
 *
 * Valid for the `timed` simulator model and for every schedule of every
 * placement that obeys its rules: one op at a time per device (R1),
 * consumers after their producers and their edges' transfers (R2), and
 * only placements that do not run out of memory (R3).  It never exceeds the
 * smallest timed step over the placements that fit.  It is the largest of
 * three, and `kind` names the one that gave it (ties go to the simpler):
 *
 *   simple  max(critical path, Σ compute / Σ speed) at the speeds the
 *           rounded compute times give;
 *   memory  a few paths whose ops cannot all sit on one device, charged
 *           their forced cut edges and the cut volumes (bound_cuts.c);
 *   lp      an LP relaxation of placement and schedule (bound_lp.c), on
 *           small graphs where memory binds or speeds differ.
 *
 * The argument that each is a lower bound, the LP itself and the
 * complexity are in docs/bound.md.
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
 * per row + column of the LP (the work limit).  The simplex grows fast with
 * the graph, and `run` and every database row compute the bound
 * (docs/bound.md, "Limits and their cost"). */
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
 * plus the cheapest cut set) by the cut volumes (docs/bound.md), the size of the
 * set that gave it into *n_cuts; when the cut volumes cannot reach floor_us
 * (a bound found elsewhere), only by less than they could (one evaluation:
 * the caller keeps its larger one).  Paths above BOUND_CUTS_MAX_OPS are
 * left as they are.  0 or BAECHI_ENOMEM. */
int bound_path_cuts(const struct bound_path *p, int64_t compute_us, int64_t floor_us,
                    int64_t *lb_us, int32_t *n_cuts);

#endif
