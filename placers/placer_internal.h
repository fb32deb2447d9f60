/*
 * placer_internal.h - what the placers share and nothing outside placers/
 * uses: the compact graph the algorithms run on (`struct pgraph`), its
 * construction from a struct graph, operator fusion, the favourite-child LP
 * and the algorithm entry points.
 *
 * A pgraph is the original's op graph as the algorithms see it (baechi-spec
 * §1, §1.7): integer weights (µs), per-edge tensor lists with their
 * communication costs already rounded (ties to even), Σ output bytes, temp,
 * persistent, one colocation group per node, and the topological index used
 * as the universal tie-breaker.  Edge ids are source-major: the out-edges of
 * u are out_start[u] .. out_start[u+1]-1 in adjacency order; in-edges
 * (in_edge[in_start[v] ..]) are ordered by producer id.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_PLACERS_PLACER_INTERNAL_H
#define BAECHI_PLACERS_PLACER_INTERNAL_H

#include "core/cluster.h"
#include "core/graph.h"
#include "core/placement.h"
#include "placers/placer_options.h"

#include <stdbool.h>
#include <stdint.h>

/* The registry's rows flagged PLACER_ALGORITHM: the paper's six algorithms,
 * first in placer_list() (auto's candidate table is sized by it; a unit test
 * counts them). */
enum { PLACER_N_ALGORITHMS = 6 };

struct placer_desc; /* a registry row (placer.h) */

/* What placer_run hands a registry row's function: the graph grouped by the
 * options' grouper (group_of, n_groups; none for PLACER_WHOLE rows), the
 * devices used and their memory limits; it fills out->device_of and st. */
struct placer_call {
    const struct placer_desc *desc;
    const struct graph *g;
    const struct cluster *c;
    const struct placer_options *opt;
    const int32_t *group_of;
    int32_t n_groups;
    int32_t n_dev;
    const int64_t *limit; /* n_dev, bytes */
    struct placement *out;
    struct placer_stats *st;
};

/* Adds key = the formatted value to pl's statistics (stat) or options.
 * Values longer than 127 bytes are cut.  BAECHI_ENOMEM. */
int placer_add_kv(struct placement *pl, bool stat, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

struct pgraph {
    int32_t n, m;
    int64_t *weight;    /* µs, >= 1 */
    int64_t *temp;      /* bytes */
    int64_t *persist;   /* bytes */
    int64_t *out;       /* Σ output bytes */
    int32_t *group;     /* 0..n_groups-1 */
    int32_t *topo;      /* tie-break index (inherited by fused nodes, may not be topological) */
    int32_t *out_start; /* n+1 */
    int32_t *in_start;  /* n+1 */
    int32_t *in_edge;   /* m */
    int32_t *src, *dst; /* m */
    int64_t *ecomm;     /* m: Σ comm of the edge's tensors (µs) */
    int32_t *et_start;  /* m+1 */
    int32_t *et_tensor; /* tensors of each edge (global tensor ids of the source graph) */
    int32_t n_tensors;  /* tensor id space */
    int64_t *tcomm;     /* n_tensors: comm cost of each tensor (µs) */
    int64_t *tbytes;    /* n_tensors */
    int32_t n_groups;
    int32_t *group_start; /* n_groups+1 */
    int32_t *group_node;  /* members in node order */
    /* group infos (§1.7) */
    int64_t *g_temp_max, *g_out_max, *g_persist_sum, *g_out_sum;
};

void pgraph_release(struct pgraph *p);

/*
 * Builds the algorithms' graph from g with groups group_of (n_groups), the
 * cluster's default comm model scaled by comm_factor and weights scaled by
 * compute_factor.
 */
int pgraph_from_graph(struct pgraph *p, const struct graph *g, const struct cluster *c,
                      const int32_t *group_of, int32_t n_groups, double comm_factor,
                      double compute_factor);

/* Fills the group arrays and infos from p->group (called by builders). */
int pgraph_finish_groups(struct pgraph *p);

/*
 * Operator fusion (§6.3): a new pgraph `out` and map[old node] = new node.
 * check_disjoint = fusion_check_disjoint_paths.
 */
int pgraph_fuse(const struct pgraph *in, bool check_disjoint, struct pgraph *out, int32_t *map);

/* Comm cost as the original: rint(slope * b + intercept) (ties to even). */
int64_t placer_comm_us(double slope, double intercept, int64_t bytes);

/* ---- the favourite-child LP (lp.c, §4.1) ---- */
/* Why the simplex stopped before the optimum: a limit, or not at all. */
enum lp_stop { LP_STOP_NONE = 0, LP_STOP_ITERATIONS, LP_STOP_TIME };

struct lp_result {
    double *x;          /* m values of x_e */
    double makespan_us; /* w* */
    char status[32];
    int glp_ret, glp_status;      /* glp_simplex's return code and glp_get_status */
    bool out_of_memory;           /* after BAECHI_ESOLVER: GLPK's allocator failed */
    enum lp_stop stopped;         /* a limit was reached (also after BAECHI_ESOLVER) */
    int64_t iterations;           /* simplex iterations of every attempt together */
    enum placer_lp_solver solver; /* the solver that ran (GLPK or CLP) */
    int32_t n_rows, n_cols;       /* the LP's size */
    int64_t nonzeros;
};

/* The LP's limits; 0 = none.  The iteration limit counts the simplex
 * iterations of all attempts together (work: the result never depends on
 * the machine's speed).  The time limit is wall time: reaching it is
 * always BAECHI_ESOLVER (stopped = LP_STOP_TIME), never a result. */
struct lp_limits {
    double time_limit_s;
    int64_t iteration_limit;
    enum placer_lp_solver solver; /* PLACER_LP_AUTO: by size (lp_backend.h) */
};
/*
 * Builds and solves the LP with GLPK's primal simplex (a vertex solution),
 * or CLP's dual simplex (also a vertex) as lp_limits.solver and its size
 * choose (lp_backend.h; lp_result.solver says which ran).
 * time_limit_s <= 0: none; reached: BAECHI_ESOLVER (r->stopped = LP_STOP_TIME).  GLPK is fenced:
 * any GLPK failure is BAECHI_ESOLVER with a message, never an abort; r->out_of_memory tells whether
 * it was GLPK's memory (a failed malloc or its memory limit, see lp.c) or CLP's (std::bad_alloc,
 * caught in lp_clp.cpp).  A CLP asked for but not built in: BAECHI_ESOLVER too.  BAECHI_ENOMEM: an
 * allocation of this function failed.  r->x is allocated here.
 */
int lp_favourite_child(const struct pgraph *p, double time_limit_s, struct lp_result *r);
/* The same under limits: "iteration limit (feasible)" in r->status when the
 * iteration limit stops the simplex at a feasible basis (x and w of that
 * basis, the same on every machine); BAECHI_ESOLVER with r->stopped set when
 * a limit is reached without one, or the time limit at all. */
int lp_favourite_child_limited(const struct pgraph *p, const struct lp_limits *lim,
                               struct lp_result *r);
void lp_result_release(struct lp_result *r);
/* The LP's non-zeros for p (what lp_solver_choose decides by), before building it. */
int64_t lp_favourite_child_nonzeros(const struct pgraph *p);

/*
 * Rounds x and assigns favourite children (§4.2): fav[node] = child or -1.
 * Python's round() (half to even) of x - theta + 0.5.  fav must hold 2 * p->n
 * entries (the second half is scratch).  Returns the number of
 * favourite edges in *n_fav_edges and nodes with a favourite in *n_fav.
 */
/* For tests: provokes a GLPK error inside the fence (returns BAECHI_ESOLVER). */
int lp_selftest_error(void);

void sct_assign_favourites(const struct pgraph *p, const double *x, double theta, int32_t *fav,
                           int32_t *n_fav_edges, int32_t *n_fav);

/* ---- algorithms: fill device_of[p->n]; st gets estimate and peaks ---- */
struct palgo_ctx {
    const struct pgraph *p;
    int32_t n_dev;
    const int64_t *limit; /* n_dev, bytes */
    const struct placer_options *opt;
    /* name of node v for messages (an op name; a fused node's first op) */
    const char *(*name)(const void *arg, int32_t v);
    const void *name_arg;
};

int m_topo_place(const struct palgo_ctx *x, bool uniform, int32_t *device_of,
                 struct placer_stats *st);
int m_etf_place(const struct palgo_ctx *x, bool reserve, int32_t *device_of,
                struct placer_stats *st);
int m_sct_place(const struct palgo_ctx *x, bool reserve, int32_t *device_of,
                struct placer_stats *st);

/*
 * The `pipeline` placer (pipeline_placer.c): the groups group_of (n_groups)
 * cut into contiguous stages on the first n_dev devices (limits `limit`),
 * into pl->device_of; st gets the estimate, the stages' memory as peaks and
 * n_nodes = the layers of the chain.  BAECHI_EINFEASIBLE with the layer
 * that needs most memory when no split fits, BAECHI_EINVAL (bad schedule).
 */
int pipeline_place(const struct graph *g, const struct cluster *c, const struct placer_options *opt,
                   const int32_t *group_of, int32_t n_groups, int32_t n_dev, const int64_t *limit,
                   struct placement *pl, struct placer_stats *st);

/*
 * The baselines (baselines.c): `single`, `round-robin`, `random`, `given`,
 * `expert` on the unfused graph, into pl->device_of (pl initialised).
 */
int baseline_place(const char *name, const struct graph *g, const int32_t *group_of,
                   int32_t n_groups, int32_t n_dev, uint64_t seed, struct placement *pl);

#endif
