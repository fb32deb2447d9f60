/*
 * sweep.h - parameter sweeps: a sweep file (YAML) names lists of workloads,
 * clusters, device counts, placers, groupers, fusion on/off, memory
 * fractions, comm and compute factors, LP solvers, seeds and repeats; their cartesian
 * product is the set of points.  Each point is placed once and simulated
 * with every model listed, giving one run (row of `runs`) per model.
 *
 * The file format, the point key and the resume rule are in
 * docs/sweeps.md.  In short:
 *
 *   - a point's key is the canonical text of its parameters with the
 *     workload's and cluster's content hashes, so a point already stored in
 *     the database is skipped and a rerun after a crash finishes the rest;
 *     runs stored with status `error` are run again;
 *   - the coordinator alone writes the database, in batched transactions;
 *     workers (processes forked from it, or MPI ranks) compute points and
 *     send their runs back as bytes (db_run_serialize);
 *   - a failing point (error, infeasible, even a crashing worker) is a row
 *     with its status and message; the sweep goes on.
 *
 * Workload specs: a path to a workload YAML file (relative paths are
 * relative to the sweep file), or `gen:MODEL[?key=value&...]` for a model of
 * `baechi workload gen` generated in memory (keys: batch, seq, size, layers,
 * forward_only, device).  Cluster specs: a preset name or a path.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_RESULTS_SWEEP_H
#define BAECHI_RESULTS_SWEEP_H

#include "core/cluster.h"
#include "core/graph.h"
#include "core/workload.h"
#include "placers/placer.h"
#include "results/db.h"
#include "sim/sim.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A value of a list in the sweep file, with where it stands (messages). */
struct sweep_item {
    char *text; /* owned */
    int32_t line, col;
};

struct sweep_list {
    struct sweep_item *item;
    int32_t n;
    size_t alloc;
};

/* exclude: a point matching every given field is left out. */
struct sweep_exclude {
    char *workload, *cluster, *placer, *grouper, *fusion; /* NULL = any */
    enum placer_grouper grouper_v;                        /* grouper, parsed */
    bool fusion_v;                                        /* fusion, parsed */
};

struct sweep_spec {
    char *path; /* the sweep file (messages, relative paths) */
    char *dir;  /* its directory */
    char *name; /* `name:`, default: the file's base name */
    struct sweep_list workloads, clusters, placers;
    int32_t *devices; /* 0 = all of the cluster */
    int32_t n_devices;
    enum placer_grouper *groupers;
    int32_t n_groupers;
    bool *fusion;
    int32_t n_fusion;
    double *memory_fractions, *comm_factors, *compute_factors;
    int32_t n_memory_fractions, n_comm_factors, n_compute_factors;
    uint64_t *seeds;
    int32_t n_seeds;
    enum placer_lp_solver *lp_solvers; /* m-SCT's and auto's LP solver (default [auto]) */
    int32_t n_lp_solvers;
    int32_t repeats;
    /* placement time: the median of this many timed placements after one
     * untimed warm-up (1: one placement, timed as it runs) */
    int32_t placement_repeats;
    enum sim_model models[2];
    int32_t n_models;
    bool store_placement;
    double sct_threshold;
    double lp_time_limit_s;
    struct sweep_exclude *exclude;
    int32_t n_exclude;
};

/*
 * Parses a sweep file (text[0..len), `path` for messages and relative
 * paths).  Every error names path:line:col and the offending key or value.
 * Checks placers, groupers, models and numbers; that workload files exist
 * and gen: models are known; that clusters are presets or existing files.
 * `s` is initialised here; on failure it holds nothing.
 */
int sweep_spec_parse(struct sweep_spec *s, const char *text, size_t len, const char *path);
void sweep_spec_release(struct sweep_spec *s);

/* A loaded workload (its graph) or cluster, shared by all points. */
struct sweep_wl {
    const char *spec; /* as written (in the spec) */
    char *error;      /* load failure: every point with it is an `error` run */
    struct workload w;
    struct graph g;
    bool have_w, have_g;
    char hash[17];
    int32_t pinned_devices; /* every op has a `device`: the largest + 1 (a parallelised
                               graph's ranks); 0 otherwise.  `given` runs on these. */
};

struct sweep_cl {
    const char *spec;
    char *error;
    char *yaml; /* the cluster as YAML: re-read per point (truncate, scale) */
    size_t yaml_len;
    char *name;
    char *kind; /* the first device's kind (NULL: none): costmodel_warn_times */
    int32_t n_devices;
    char hash[17];
};

/* One point: indices into the spec's lists and the effective options. */
struct sweep_point {
    int32_t wl, cl, placer;
    int32_t repeat;
    struct placer_options opt; /* n_devices 0 = all */
    char *key;                 /* without the model; a run's key adds "|model=M" */
};

/* A prepared sweep: spec, loaded inputs, points. */
struct sweep {
    struct sweep_spec spec;
    struct sweep_wl *wl;
    struct sweep_cl *cl;
    struct sweep_point *point;
    int32_t n_points;
    char host[64];
};

/*
 * Parses the file, loads every workload and cluster once (a failure is kept
 * for its points, not returned) and expands the points in file order
 * (workloads outermost, then clusters, devices, placers, groupers, fusion,
 * memory fractions, comm factors, compute factors, LP solvers, seeds,
 * repeats), dropping excluded points and duplicates (a parameter that a
 * placer ignores is normalised: `paper` fixes grouper and fusion, only
 * `random` and `auto` use the seed, only m-SCT and `auto` the LP solver,
 * `given` on a workload whose every op is pinned runs on the devices they
 * name).  `sw` is initialised here.
 */
int sweep_prepare(struct sweep *sw, const char *text, size_t len, const char *path);

/*
 * The default cap on a sweep's runs (docs/sweeps.md "Limits"): 100,000 runs
 * take about 100 MB to expand and hours to run at the paper's model sizes,
 * far more than any study of the paper; a typo such as three lists of 1000
 * values (10^9 runs) is refused at once instead of filling the memory.
 */
#define SWEEP_MAX_RUNS_DEFAULT 100000

/*
 * The number of runs the grid of `s` expands to: the product of the lengths
 * of every list, repeats and the number of models, counted before
 * exclusions and duplicates are dropped.  Checked multiplication: false
 * when the product overflows int64 (*n_runs is then INT64_MAX).
 */
bool sweep_spec_runs(const struct sweep_spec *s, int64_t *n_runs);

/*
 * sweep_prepare with a cap on the runs (0: SWEEP_MAX_RUNS_DEFAULT), checked
 * with sweep_spec_runs after parsing and before any input is loaded or any
 * point expanded.  Over the cap: BAECHI_EINVAL, the message naming the
 * sweep file, the product (its factors) and the cap.  sweep_prepare is
 * sweep_prepare_limit with 0.
 */
int sweep_prepare_limit(struct sweep *sw, const char *text, size_t len, const char *path,
                        int64_t max_runs);
void sweep_release(struct sweep *sw);

/*
 * Computes point i: places it and simulates it with every model, and
 * appends the runs (n_models of them, each serialised) to `out`.  Never
 * fails for a point that fails (that is a run with its status); returns
 * BAECHI_ENOMEM only.
 */
int sweep_point_exec(const struct sweep *sw, int32_t i, struct db_buf *out);

/*
 * The points still to run against database `db`: *todo (malloc'ed, point
 * indices in order) and *n_todo.  Points whose runs all exist are done;
 * points with an `error` run have their runs deleted and are run again.
 */
int sweep_todo(const struct sweep *sw, struct db *db, int32_t **todo, int32_t *n_todo);

/*
 * Filling a run record (also used by `baechi run --db`): the placer's
 * statistics and options (pl may be NULL), then one simulation's metrics,
 * per-device and per-link rows, status ok or oom with a message, and the
 * placement when store_placement.  0 or BAECHI_ENOMEM.
 */
/* The options that change a result and have a column of their own (budget_ms, refine, ...). */
void sweep_fill_options(struct db_run *r, const struct placer_options *opt);
int sweep_fill_placer(struct db_run *r, const struct placement *pl, const struct placer_stats *st);
int sweep_fill_sim(struct db_run *r, const struct graph *g, const struct cluster *c,
                   const struct placer_stats *st, const struct sim_result *s,
                   const int32_t *device_of, bool store_placement);

/* Where a run recorded outside a sweep came from (`baechi run --db`, the
 * library's baechi_db_store): the paths as the user gave them, the placer
 * by name, its options. */
struct sweep_origin {
    const char *workload_path; /* as given; may be NULL */
    const char *cluster_spec;  /* file or preset as given; may be NULL */
    const char *placer;
    const struct placer_options *opt;
};

/*
 * Stores one placed run in database `dbpath`: one row per simulator model
 * (timed rt, then baechi rb), with the placement, in one transaction
 * (db_store_runs).  The rows carry the content hashes (core/hash.h) of w and
 * of the cluster loaded again from o->cluster_spec (c may be placer_world's
 * cut and scaled copy; a sweep hashes the cluster as loaded; no hash when
 * the spec does not load, e.g. a library user's cluster built in memory).  rb and rt NULL: the
 * placement failed, and the rows say so (status infeasible when fail_rc is BAECHI_EINFEASIBLE, else
 * error, with message msg).  0 or an error code.
 */
int sweep_record_run(const char *dbpath, const struct sweep_origin *o, const struct workload *w,
                     const struct graph *g, const struct cluster *c, const struct placement *p,
                     const struct placer_stats *st, const struct sim_result *rb,
                     const struct sim_result *rt, int fail_rc, const char *msg);

/* ------------------------------------------------------------ running */

/* Where a sweep stands, handed to the progress callback. */
struct sweep_progress {
    int32_t n_done, n_todo; /* points received, points to run */
    double points_per_s;    /* since the sink opened; 0 before the first */
    int64_t n_error;        /* error runs so far */
    bool final;             /* the last call: every point is in */
};

/*
 * Draws progress (the library never prints): called with `ctx` at most
 * every `every_s` seconds while points come in, and once more with
 * p->final set when the sweep ends.
 */
typedef void (*sweep_progress_fn)(void *ctx, const struct sweep_progress *p);

struct sweep_run_opts {
    int jobs;                   /* worker processes; 0 = number of online CPUs */
    sweep_progress_fn progress; /* NULL: no progress (the default) */
    void *progress_ctx;
    double progress_every_s; /* the least time between two calls */
    int batch;               /* runs per transaction, at most (default 256) */
    double batch_s;          /* commit at least this often (default 0.5 s) */
    double point_delay_s;    /* tests: each worker sleeps this long per point */
    int64_t max_runs;        /* the cap of sweep_prepare_limit (MPI); 0 = the default */
};

void sweep_run_opts_init(struct sweep_run_opts *o);

struct sweep_summary {
    int32_t n_points, n_skipped, n_run; /* all, already stored, run now */
    int64_t n_rows;                     /* runs inserted */
    int64_t n_ok, n_oom, n_infeasible, n_error;
    int64_t n_error_failed; /* of the errors, runs with no result: out of memory, a failed worker */
    int jobs;
    double wall_s;
};

/* Runs the todo points of `sw` with local worker processes into database `db_path`. */
int sweep_run_local(const struct sweep *sw, const char *db_path, const struct sweep_run_opts *o,
                    struct sweep_summary *sum);

/*
 * MPI (sweep_mpi.c, built with `make MPI=1`): every rank calls it with the
 * sweep file's path; rank 0 reads the file, broadcasts it, writes the
 * database and hands out points; the other ranks compute.  With one rank,
 * rank 0 computes too.  Without MPI in the build: BAECHI_EUNSUPPORTED.
 * *is_root tells the caller whether to print the summary.
 */
int sweep_run_mpi(int *argc, char ***argv, const char *sweep_path, const char *db_path,
                  const struct sweep_run_opts *o, struct sweep_summary *sum, bool *is_root);

/* --------------------------------------------- shared by the runners */

/* The coordinator's side: database, batch, progress (sweep.c). */
struct sweep_sink;

int sweep_sink_open(struct sweep_sink **out, const struct sweep *sw, const char *db_path,
                    const struct sweep_run_opts *o, struct sweep_summary *sum);
/* The todo list computed when the sink opened. */
void sweep_sink_todo(struct sweep_sink *k, const int32_t **todo, int32_t *n_todo);
/* Takes the runs of one point (bytes from sweep_point_exec). */
int sweep_sink_add(struct sweep_sink *k, const unsigned char *p, size_t len);
/* A point whose worker died: stores an `error` run per model with `why`. */
int sweep_sink_fail(struct sweep_sink *k, int32_t point, const char *why);
/* Commits when the batch is full or old (force: now); redraws progress. */
int sweep_sink_tick(struct sweep_sink *k, bool force);
/* Commits the rest, finishes the progress line, fills the summary, frees. */
int sweep_sink_close(struct sweep_sink *k);

#endif
