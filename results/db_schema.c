/*
 * db_schema.c - the results database's schema (db.h): each version's SQL,
 * the migrations from one version to the next, and the whole text that
 * `baechi db schema` prints.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "results/db.h"

#include <pthread.h>
#include <stddef.h>

/* ------------------------------------------------------------------ schema */

/*
 * Version 1.  Every quantity carries its unit in the column name (µs, ms,
 * bytes).  Keep this text and docs/results.md in step.
 */
static const char *const schema_v1[] = {
    "-- baechi results database, schema version 1 (PRAGMA user_version = 1)\n"
    "-- One row per simulated run: a placement of a workload on a cluster,\n"
    "-- simulated with one simulator model.\n"
    "CREATE TABLE runs (\n"
    "    id               INTEGER PRIMARY KEY,\n"
    "    key              TEXT UNIQUE,    -- sweep point key (resume); NULL for baechi run\n"
    "    sweep            TEXT,           -- sweep name; NULL for baechi run\n"
    "    time             TEXT NOT NULL,  -- when it ran, ISO 8601 UTC\n"
    "    tool_version     TEXT NOT NULL,  -- git describe of the program\n"
    "    host             TEXT,           -- machine (MPI sweeps: the rank's host)\n"
    "    workload         TEXT NOT NULL,  -- workload name\n"
    "    workload_spec    TEXT,           -- path or gen:MODEL?k=v as given\n"
    "    workload_hash    TEXT,           -- FNV-1a 64 of the workload's canonical YAML\n"
    "    n_ops            INTEGER,        -- ops after pruning\n"
    "    cluster          TEXT NOT NULL,  -- cluster name\n"
    "    cluster_spec     TEXT,           -- path or preset name as given\n"
    "    cluster_hash     TEXT,           -- FNV-1a 64 of the cluster's YAML\n"
    "    n_devices        INTEGER,        -- devices used\n"
    "    placer           TEXT NOT NULL,  -- m-etf, m-sct, m-topo, paper, single, ...\n"
    "    grouper          TEXT,           -- tf | coplace (effective)\n"
    "    fusion           INTEGER,        -- 0 / 1 (effective)\n"
    "    memory_fraction  REAL,           -- each device has this share of its memory\n"
    "    comm_factor      REAL,           -- communication cost multiplier\n"
    "    compute_factor   REAL,           -- compute time multiplier\n"
    "    sct_threshold    REAL,           -- m-SCT rounding threshold\n"
    "    seed             INTEGER,        -- random placer seed (0 when unused)\n"
    "    repeat           INTEGER,        -- repeat index of the sweep\n"
    "    options          TEXT,           -- every placer option, k=v, comma separated\n"
    "    sim_model        TEXT,           -- timed | baechi\n"
    "    status           TEXT NOT NULL CHECK (status IN ('ok','oom','infeasible','error')),\n"
    "    message          TEXT,           -- why, for oom / infeasible / error\n"
    "    placement_ms     REAL,           -- wall clock of the whole placement\n"
    "    algorithm_ms     REAL,           -- the algorithm alone\n"
    "    estimate_us      INTEGER,        -- the placer's own makespan estimate\n"
    "    step_us          INTEGER,        -- simulated step time\n"
    "    lower_bound_us   INTEGER,        -- max(critical path, compute / devices)\n"
    "    critical_path_us INTEGER,\n"
    "    total_compute_us INTEGER,\n"
    "    lp_makespan_us   REAL,           -- m-SCT: LP relaxed makespan\n"
    "    lp_status        TEXT,           -- m-SCT: GLPK status\n"
    "    n_favourites     INTEGER,        -- m-SCT: favourite children\n"
    "    n_nodes          INTEGER,        -- nodes the algorithm placed (after fusion)\n"
    "    n_groups         INTEGER,        -- colocation groups\n"
    "    max_peak_bytes   INTEGER,        -- largest simulated peak over devices\n"
    "    n_oom_devices    INTEGER         -- devices over their memory\n"
    ");\n",
    "CREATE INDEX runs_by_config ON runs (workload, placer, memory_fraction);\n",
    "-- Per device of a run (absent for infeasible and error runs).\n"
    "CREATE TABLE devices (\n"
    "    run_id             INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
    "    device             INTEGER NOT NULL,\n"
    "    name               TEXT,\n"
    "    peak_bytes         INTEGER,   -- simulated peak memory\n"
    "    limit_bytes        INTEGER,   -- the device's memory\n"
    "    placer_peak_bytes  INTEGER,   -- the placer's own accounting (m-ETF/m-SCT)\n"
    "    placer_limit_bytes INTEGER,   -- the placer's limit (memory_fraction x memory)\n"
    "    busy_us            INTEGER,   -- compute time run on the device\n"
    "    n_ops              INTEGER,\n"
    "    oom                INTEGER,   -- 1 when peak_bytes > limit_bytes\n"
    "    PRIMARY KEY (run_id, device)\n"
    ") WITHOUT ROWID;\n",
    "-- Traffic per ordered device pair with at least one transfer.\n"
    "CREATE TABLE links (\n"
    "    run_id    INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
    "    src       INTEGER NOT NULL,\n"
    "    dst       INTEGER NOT NULL,\n"
    "    bytes     INTEGER,\n"
    "    transfers INTEGER,\n"
    "    PRIMARY KEY (run_id, src, dst)\n"
    ") WITHOUT ROWID;\n",
    "-- The placement (optional): device id of op i as little-endian int32 at 4*i.\n"
    "CREATE TABLE placements (\n"
    "    run_id    INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,\n"
    "    device_of BLOB NOT NULL\n"
    ");\n",
    NULL};

/*
 * Version 2: what made up each device's peak, by kind (sim/sim.h enum
 * mem_kind; NULL in rows stored before).
 */
#define KIND_COLUMN(k) "ALTER TABLE devices ADD COLUMN peak_" k "_bytes INTEGER;\n"
static const char *const schema_v2[] = {
    "-- version 2: the peak by kind (parameters, optimizer state, gradients, activations\n"
    "-- saved for backward, other activations, received copies, temp)\n" KIND_COLUMN("parameters"),
    KIND_COLUMN("optimizer"),
    KIND_COLUMN("gradients"),
    KIND_COLUMN("saved"),
    KIND_COLUMN("activations"),
    KIND_COLUMN("received"),
    KIND_COLUMN("temp"),
    NULL};
#undef KIND_COLUMN

/*
 * Version 3: a run is identified by what it ran.  The options that change a
 * result and had no column (they were only in `options`, and only for runs
 * that placed), and the indexes that let a query tell same-named workloads
 * and clusters apart by content cheaply (results/filter.h,
 * RESULTS_WORKLOAD_SQL: a name with two hashes is shown as name@hash).
 * Rows stored before keep NULL in the new columns; their hashes stay as
 * stored (sweeps hashed the canonical YAML already; `run --db` stored NULL).
 */
static const char *const schema_v3[] = {
    "-- version 3: every option that changes a result, and same-named inputs told apart\n"
    "ALTER TABLE runs ADD COLUMN budget_ms INTEGER;       -- auto and --refine: search budget\n",
    "ALTER TABLE runs ADD COLUMN refine INTEGER;          -- 0 / 1: auto's local search after\n",
    "ALTER TABLE runs ADD COLUMN persistent_at_place INTEGER; -- 0 / 1: m-ETF/m-SCT SoCC'20 rule\n",
    "ALTER TABLE runs ADD COLUMN fusion_check_disjoint INTEGER; -- 0 / 1: fusion's path check\n",
    "ALTER TABLE runs ADD COLUMN lp_time_limit_s REAL;    -- m-SCT: GLPK time limit (0 none)\n",
    "CREATE INDEX runs_by_workload_hash ON runs (workload, workload_hash);\n",
    "CREATE INDEX runs_by_cluster_hash ON runs (cluster, cluster_hash);\n",
    NULL};

/*
 * Version 4: the certified lower bound (placers/bound.h): lower_bound_us
 * is now the largest of the simple, memory-aware and LP bounds, which one
 * in lower_bound_kind, the old max(critical path, compute / devices) in
 * simple_lower_bound_us.  Rows stored before keep NULL in both.
 */
static const char *const schema_v4[] = {
    "-- version 4: the certified lower bound and its kind\n"
    "ALTER TABLE runs ADD COLUMN lower_bound_kind TEXT;      -- simple | memory | lp\n",
    "ALTER TABLE runs ADD COLUMN simple_lower_bound_us INTEGER; -- max(critical path, compute / "
    "devices)\n",
    NULL};

/*
 * Version 5: the solver of m-SCT's LP (--lp-solver, placers/lp_backend.h),
 * beside lp_status.  Rows stored before keep NULL.
 */
static const char *const schema_v5[] = {
    "-- version 5: the LP's solver\n"
    "ALTER TABLE runs ADD COLUMN lp_solver TEXT;             -- m-SCT: glpk | clp\n",
    NULL};

/*
 * migrations[v] brings a database from version v to v + 1.  Version 0 is an
 * empty database.  To change the schema: add the step here (ALTER TABLE ...),
 * bump DB_SCHEMA_VERSION, update schema text and docs/results.md.
 */
static const char *const *const migrations[DB_SCHEMA_VERSION] = {schema_v1, schema_v2, schema_v3,
                                                                 schema_v4, schema_v5};

/* The versions in order, filled once (scripts/check-statics.sh allows it). */
static const char *schema_all[32];
static pthread_once_t schema_once = PTHREAD_ONCE_INIT;

static void schema_fill(void)
{
    size_t n = 0;

    for (int v = 0; v < DB_SCHEMA_VERSION; v++) {
        for (const char *const *q = migrations[v];
             *q && n + 1 < sizeof(schema_all) / sizeof(*schema_all); q++) {
            schema_all[n++] = *q;
        }
    }
}

const char *const *db_schema_migration(int v)
{
    return migrations[v];
}

const char *const *db_schema_sql(void)
{
    pthread_once(&schema_once, schema_fill);
    return schema_all;
}
