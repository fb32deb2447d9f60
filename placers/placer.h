/*
 * placer.h - one interface for every placement algorithm:
 *
 *     graph + cluster + options  ->  placement (device of every op) + statistics
 *
 * placer_run() runs the original pipeline (baechi-spec §0.2): the grouper
 * (`tf` or `coplace`, §6.1), optionally operator fusion (§6.3), the algorithm
 * on the (fused) graph with colocation as a hard constraint, and maps the
 * result back to every op of the graph.  The algorithms (§2-§4) and the
 * baselines are looked up by name in a registry (placer_find, placer_list).
 *
 * Units: time in integer µs, memory in bytes (the original's units).
 *
 * Errors: BAECHI_EINVAL (bad option, unknown placer), BAECHI_EINFEASIBLE (no
 * placement: m-TOPO leftover ops, ETF/SCT memory deadlock, a group that
 * cannot fit; err_msg() names the ops and the memory missing), BAECHI_ESOLVER
 * (GLPK failed; never an abort), BAECHI_ENOMEM.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_PLACERS_PLACER_H
#define BAECHI_PLACERS_PLACER_H

#include "core/cluster.h"
#include "core/graph.h"
#include "core/pipeline.h"
#include "core/placement.h"

#include <stdbool.h>
#include <stdint.h>

enum placer_grouper {
    PLACER_GROUPER_TF = 0,     /* the workload's colocation groups (§6.1 `tf`) */
    PLACER_GROUPER_COPLACE = 1 /* + an op with one consumer op joins its group (§6.1) */
};

/* Internal: which implementation of the ETF event loop to run (identical results). */
enum placer_impl {
    PLACER_IMPL_FAST = 0, /* incremental per-device heaps (default) */
    PLACER_IMPL_REFERENCE =
        1 /* the original's loop: every ready op, every device, every decision */
};

/* The LP solver of m-SCT's LP and the bound's LP (--lp-solver; placers/lp_backend.h). */
enum placer_lp_solver {
    PLACER_LP_AUTO = 0, /* GLPK for small LPs, CLP above (lp_backend.h) */
    PLACER_LP_GLPK = 1,
    PLACER_LP_CLP = 2
};

/* "auto", "glpk", "clp". */
const char *placer_lp_solver_name(enum placer_lp_solver s);
/* The solver named s into *out; BAECHI_EINVAL naming s otherwise. */
int placer_lp_solver_parse(const char *s, enum placer_lp_solver *out);

struct lp_memo;

struct placer_options {
    double memory_fraction; /* placer_memory_fraction: limit = (int64)(f * mem_bytes); 1.0 */
    double comm_factor;     /* multiplies slope and intercept of the comm model; 1.0 */
    double compute_factor;  /* weight' = (int64)(weight * f), at least 1; 1.0 */
    int32_t n_devices;      /* use the first K devices; 0 = all */
    enum placer_grouper grouper;
    bool fusion;                /* operator fusion (placer_type=fusion) */
    bool fusion_check_disjoint; /* fusion_check_disjoint_paths */
    double sct_threshold;       /* θ of m-SCT's rounding; 0.1 */
    double lp_time_limit_s;     /* GLPK wall-time limit; 0 = none; reached: m-ETF fallback */
    int64_t lp_iteration_limit; /* simplex iterations (work, deterministic); 0 = none */
    uint64_t seed;              /* `random`, `auto`, refine; PLACER_DEFAULT_SEED */
    bool persistent_at_place;   /* m-ETF/m-SCT: the SoCC'20 memory rule (§7.6); false = HEAD */
    enum placer_impl impl;      /* internal (tests): PLACER_IMPL_FAST */
    bool refine;                /* the other placers: then auto's local search (--refine) */
    int64_t budget_ms; /* `auto` and refine: search budget in units of simulated work, not wall time
                          (placers/auto_internal.h: AUTO_VISITS_PER_MS); PLACER_AUTO_BUDGET_MS */
    struct pipeline_opts pipeline; /* `pipeline`: the schedule the stages' memory follows;
                                      1f1b, 1 virtual stage (pipeline_opts_read) */
    /* m-SCT's and the bound's LP solver; PLACER_LP_AUTO */
    enum placer_lp_solver lp_solver;
    /* internal (auto's candidates): m-SCT's LP solutions shared between
     * placements (placers/lp_memo.h); NULL = solve each time */
    struct lp_memo *lp_memo;
};

/* The one default seed of `run`, `place`, sweeps (`seeds:`) and the library:
 * 1, the CLI's since the start (docs and tests were built with it). */
#define PLACER_DEFAULT_SEED 1

/* `auto`'s default budget: a 3,000-op graph is placed in about 2 s on a 2020s x86 core. */
#define PLACER_AUTO_BUDGET_MS 800
#define PLACER_AUTO_NAME      "auto"

/* The defaults above. */
void placer_options_init(struct placer_options *o);

/* The pipeline-partitioning placer (placers/pipeline_placer.c; beyond the original). */
#define PLACER_PIPELINE_NAME "pipeline"

/* The original README's configuration ("paper"): m-etf, fusion, coplace. */
#define PLACER_PAPER_NAME "paper"
void placer_options_paper(struct placer_options *o);

struct placer_stats {
    double placement_ms; /* grouping + fusion + algorithm + mapping back (wall clock) */
    double algorithm_ms; /* the algorithm alone (the original's `placement_time`) */
    int64_t estimate_us; /* the placer's own makespan estimate; -1 when it makes none */
    int32_t n_nodes;     /* nodes placed by the algorithm (after fusion) */
    int32_t n_edges;
    int32_t n_groups; /* colocation groups after the grouper */
    /* m-SCT only */
    double lp_makespan_us;     /* the LP relaxed makespan w*; NAN otherwise */
    char lp_status[32];        /* "optimal", "time limit", ...; "" otherwise */
    int32_t n_favourites;      /* nodes with a favourite child after assignment (§4.2) */
    int32_t n_favourite_edges; /* edges rounded to 0 */
    double lp_ms;              /* time spent in the LP (build + solve) */
    int64_t lp_iterations;     /* simplex iterations, every attempt (work, not time) */
    char lp_solver[8];         /* the solver that ran: "glpk", "clp"; "" when none */
    int32_t lp_rows, lp_cols;  /* the LP's size (0 when none was built) */
    int64_t lp_nonzeros;
    /* per device, the placer's own memory accounting (m-ETF/m-SCT; 0 otherwise) */
    int32_t n_devices;
    int64_t *peak_bytes;  /* n_devices, owned */
    int64_t *limit_bytes; /* n_devices, owned */
};

void placer_stats_init(struct placer_stats *s);
void placer_stats_release(struct placer_stats *s);

/* Flags of a registry entry. */
enum placer_flags {
    PLACER_ESTIMATES = 1 << 0,     /* makes its own makespan estimate */
    PLACER_BASELINE = 1 << 1,      /* not one of the paper's algorithms */
    PLACER_ALGORITHM = 1 << 2,     /* one of the paper's algorithms (§2-§4) by its own name */
    PLACER_MEMORY_RULE = 1 << 3,   /* m-ETF/m-SCT: honours persistent_at_place (§7.6) */
    PLACER_LP = 1 << 4,            /* m-SCT: solves the favourite-child LP (records its keys) */
    PLACER_SEEDED = 1 << 5,        /* its placement depends on the seed (records it) */
    PLACER_PAPER_OPTIONS = 1 << 6, /* runs under placer_options_paper (fusion + coplace) */
    PLACER_WHOLE = 1 << 7          /* runs the whole pipeline itself (no grouping, no record) */
};

/* What a registry row's function gets (placers/placer_internal.h). */
struct placer_call;

struct placer_desc {
    const char *name;    /* "m-etf", ... */
    const char *summary; /* one line */
    unsigned flags;
    /* places call->g into call->out (placer_run prepares the call) */
    int (*fn)(const struct placer_call *call);
};

/* The registry, NULL-name terminated, in display order. */
const struct placer_desc *placer_list(void);

/* Entry of `name` (also the original's spelling with '_': "m_etf"), or NULL. */
const struct placer_desc *placer_find(const char *name);

/*
 * Places graph g on cluster c with placer `name` ("paper" selects m-etf and
 * sets fusion + coplace in a copy of opt).  `out` is initialised here
 * (placement_init) and filled: device_of, meta (workload name from
 * `workload_name`, may be NULL), options and stats as strings.  `st` is
 * initialised here.  On failure `out` and `st` hold nothing to free.
 */
int placer_run(const char *name, const struct graph *g, const struct cluster *c,
               const struct placer_options *opt, const char *workload_name, struct placement *out,
               struct placer_stats *st);

/*
 * The world a placement is simulated in under the same options: keeps the
 * first n_devices devices of c, scales the comm model by comm_factor and
 * every device's memory by memory_fraction.  The fraction thus emulates
 * smaller GPUs for the simulators too (the original's --memory_fraction,
 * which TF applied to the real GPUs), so that a placement that ignores it
 * (single, round-robin, m-TOPO) shows up as out of memory.  Call it after
 * placer_run, which applies the fraction to the placer's own limits.
 */
int placer_world(struct cluster *c, const struct placer_options *opt);

/* weight_us[v] of g scaled by compute_factor (at least 1), into `out`
 * (g->n_ops entries). */
void placer_world_weights(const struct graph *g, const struct placer_options *opt, int64_t *out);

/*
 * The graph a simulation of `g0` under `opt` uses: *g a shallow copy of g0
 * whose weight_us are scaled by compute_factor when it is not 1, into a new
 * array in *weights (the caller frees it; NULL when unscaled).  0 or ENOMEM.
 */
int placer_world_graph(const struct graph *g0, const struct placer_options *opt, struct graph *g,
                       int64_t **weights);

/*
 * Colocation groups after grouper `grouper` (§6.1): group_of[op] in
 * 0..*n_groups-1, numbered by first appearance in op order; group_of holds
 * g->n_ops entries.  When rep_name is not NULL (g->n_ops entries, caller-
 * allocated), rep_name[k] is group k's name: the shortest member group name,
 * ties lexicographic (the original's representative), pointing into g's pool.
 */
int placer_group(const struct graph *g, enum placer_grouper grouper, int32_t *group_of,
                 int32_t *n_groups, const char **rep_name);

/* "tf" / "coplace" -> grouper; 0 or BAECHI_EINVAL. */
int placer_grouper_parse(const char *s, enum placer_grouper *gr);
const char *placer_grouper_name(enum placer_grouper gr);

#endif
