/*
 * placer_options.h - what every placer takes and gives back: the options
 * (struct placer_options: memory fraction, cost factors, devices, grouper,
 * fusion, m-SCT's LP, seed, `auto`'s budget, ...) with their defaults, and
 * the statistics of a placement (struct placer_stats).  The algorithms
 * read these; the registry and placer_run() are placer.h's.
 *
 * Units: time in integer µs, memory in bytes (the original's units).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_PLACERS_PLACER_OPTIONS_H
#define BAECHI_PLACERS_PLACER_OPTIONS_H

#include "core/pipeline.h"
#include "placers/grouper.h"
#include "placers/lp_solver.h"

#include <stdbool.h>
#include <stdint.h>

/* Internal: which implementation of the ETF event loop to run (identical results). */
enum placer_impl {
    PLACER_IMPL_FAST = 0, /* incremental per-device heaps (default) */
    PLACER_IMPL_REFERENCE =
        1 /* the original's loop: every ready op, every device, every decision */
};

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

/* `auto`'s default budget (docs/auto.md: what it costs, `make bench`). */
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

#endif
