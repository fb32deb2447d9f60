/*
 * db.h - the results store: one SQLite database per study (the only SQLite
 * user of the suite).  Every run of `baechi run --db` and every point of a
 * sweep becomes one row of `runs`, with its per-device statistics in
 * `devices`, its per-link traffic in `links` and, optionally, the placement
 * itself in `placements`.  The schema is db_schema_sql() (docs/results.md).
 *
 * Concurrency: the database is opened in WAL mode with a busy timeout, so
 * several processes (two sweeps, a report while a sweep runs) may use it at
 * once; writers wait for each other instead of failing.
 *
 * Atomicity: a run and its child rows are inserted inside one transaction
 * (db_begin/db_commit around one or more db_insert_run); a killed process
 * leaves no half run.  A sweep commits batches of runs at once (the
 * database must not be the bottleneck); a batch is all or nothing.
 *
 * Versioning: PRAGMA user_version holds the schema version (DB_SCHEMA_VERSION).
 * db_open() creates a new database at the current version, upgrades an older
 * one step by step (the migrations array in db.c: version v -> v+1, each in
 * one transaction) and refuses a newer one.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_RESULTS_DB_H
#define BAECHI_RESULTS_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DB_SCHEMA_VERSION 5

/* Columns peak_<kind>_bytes of `devices` (schema version 2). */
#define DB_MEM_KINDS 7

/* "No value" of an integer field of struct db_run (stored as NULL). */
#define DB_NULL_INT INT64_MIN

struct db; /* an open database (opaque) */

enum db_status { DB_STATUS_OK = 0, DB_STATUS_OOM, DB_STATUS_INFEASIBLE, DB_STATUS_ERROR };

/* "ok", "oom", "infeasible", "error". */
const char *db_status_name(enum db_status s);

struct db_device_rec {
    int32_t device;
    char *name;                                    /* owned */
    int64_t peak_bytes, limit_bytes;               /* simulated peak vs device memory */
    int64_t placer_peak_bytes, placer_limit_bytes; /* placer's accounting; DB_NULL_INT if none */
    int64_t busy_us;
    int64_t n_ops;
    int64_t oom; /* 0 / 1 */
    /* the peak by kind, in sim/sim.h's enum mem_kind order (parameters,
     * optimizer, gradients, saved, activations, received, temp);
     * DB_NULL_INT when unknown */
    int64_t peak_kind_bytes[DB_MEM_KINDS];
};

struct db_link_rec {
    int32_t src, dst;
    int64_t bytes, transfers;
};

/*
 * The columns of `runs` as an X-macro: S(text), I(integer), D(real).  The
 * same list drives the INSERT, the (de)serialisation between sweep workers
 * and the coordinator, and the tests.  Integers equal to DB_NULL_INT,
 * reals that are NaN and NULL strings are stored as NULL.
 */
#define DB_RUN_FIELDS(S, I, D)                                                                     \
    S(key)                                                                                         \
    S(sweep)                                                                                       \
    S(time)                                                                                        \
    S(tool_version)                                                                                \
    S(host)                                                                                        \
    S(workload)                                                                                    \
    S(workload_spec)                                                                               \
    S(workload_hash)                                                                               \
    I(n_ops)                                                                                       \
    S(cluster)                                                                                     \
    S(cluster_spec)                                                                                \
    S(cluster_hash)                                                                                \
    I(n_devices)                                                                                   \
    S(placer)                                                                                      \
    S(grouper)                                                                                     \
    I(fusion)                                                                                      \
    D(memory_fraction)                                                                             \
    D(comm_factor)                                                                                 \
    D(compute_factor)                                                                              \
    D(sct_threshold)                                                                               \
    I(seed)                                                                                        \
    I(budget_ms)                                                                                   \
    I(refine)                                                                                      \
    I(persistent_at_place)                                                                         \
    I(fusion_check_disjoint)                                                                       \
    D(lp_time_limit_s)                                                                             \
    I(repeat)                                                                                      \
    S(options)                                                                                     \
    S(sim_model)                                                                                   \
    S(status)                                                                                      \
    S(message)                                                                                     \
    D(placement_ms)                                                                                \
    D(algorithm_ms)                                                                                \
    I(estimate_us)                                                                                 \
    I(step_us)                                                                                     \
    I(lower_bound_us)                                                                              \
    S(lower_bound_kind)                                                                            \
    I(simple_lower_bound_us)                                                                       \
    I(critical_path_us)                                                                            \
    I(total_compute_us)                                                                            \
    D(lp_makespan_us)                                                                              \
    S(lp_status)                                                                                   \
    S(lp_solver)                                                                                   \
    I(n_favourites)                                                                                \
    I(n_nodes)                                                                                     \
    I(n_groups)                                                                                    \
    I(max_peak_bytes)                                                                              \
    I(n_oom_devices)

#define DB_FIELD_S_(name) char *name;
#define DB_FIELD_I_(name) int64_t name;
#define DB_FIELD_D_(name) double name;

/* One run: the row of `runs` plus its child rows.  Owns every pointer. */
struct db_run {
    DB_RUN_FIELDS(DB_FIELD_S_, DB_FIELD_I_, DB_FIELD_D_)
    struct db_device_rec *dev;
    int32_t n_dev;
    struct db_link_rec *link; /* only pairs with traffic */
    int32_t n_link;
    int32_t *device_of; /* the placement (optional, NULL): n_place entries */
    int32_t n_place;
};

/* Every string NULL, integers DB_NULL_INT, reals NaN, no child rows. */
void db_run_init(struct db_run *r);
void db_run_release(struct db_run *r);

/* Sets a string field: frees the old value, copies s (NULL allowed).  0 or ENOMEM. */
int db_run_set(char **field, const char *s);

/* printf into a string field. */
int db_run_setf(char **field, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends its bytes to a buffer, and reads them back (workers -> coordinator). */
struct db_buf {
    unsigned char *p;
    size_t len, alloc;
};
int db_run_serialize(const struct db_run *r, struct db_buf *b);
/* Reads one run at *pos (advanced); `r` is initialised here.  BAECHI_EPARSE when short. */
int db_run_deserialize(struct db_run *r, const unsigned char *p, size_t len, size_t *pos);

/* The tool's version ("git describe" at build time, or the release). */
const char *db_tool_version(void);

/*
 * Where a run outside a sweep comes from (`baechi run --db`, `replay --db`):
 * sets time (now), tool_version, host (this machine), workload (its name,
 * else its path), workload_spec, cluster (its name, else the spec),
 * cluster_spec and placer.  0 or BAECHI_ENOMEM.
 */
int db_run_set_origin(struct db_run *r, const char *workload_name, const char *workload_path,
                      const char *cluster_name, const char *cluster_spec, const char *placer);

/* Current time, ISO 8601 UTC with milliseconds, into buf (>= 32 bytes). */
void db_now_iso(char *buf, size_t size);

enum db_open_flags {
    DB_READONLY = 1 << 0 /* do not create or migrate; fail if missing */
};

/*
 * Opens (creating when missing) the database at `path`, sets WAL mode, a
 * busy timeout of 60 s and foreign keys, and brings the schema to
 * DB_SCHEMA_VERSION.  Errors: BAECHI_EIO (cannot open, not a database),
 * BAECHI_EUNSUPPORTED (schema newer than this program).
 */
int db_open(struct db **out, const char *path, unsigned flags);
void db_close(struct db *db);

/* The path db was opened with (owned by db): where a re-simulation looks
 * for the files of runs stored with relative paths. */
const char *db_path(const struct db *db);

/*
 * The schema of the current version, as SQL with comments (`baechi db
 * schema`): NULL-terminated statements, to be printed one after the other.
 */
const char *const *db_schema_sql(void);
/* The SQL that brings a database from version v to v + 1 (0 <= v <
 * DB_SCHEMA_VERSION), NULL-terminated (db_schema.c). */
const char *const *db_schema_migration(int v);

/* The database's schema version (PRAGMA user_version). */
int db_schema_version(struct db *db, int *version);

/* Transactions.  db_begin takes the write lock at once (BEGIN IMMEDIATE). */
int db_begin(struct db *db);
int db_commit(struct db *db);
void db_rollback(struct db *db);

/*
 * Inserts a run and its child rows (call between db_begin and db_commit).
 * With a key that is already stored the run is skipped: *inserted = false
 * (INSERT OR IGNORE; two sweeps on one database never duplicate a point).
 * id (may be NULL) receives the new row id.
 */
int db_insert_run(struct db *db, const struct db_run *r, bool *inserted, int64_t *id);

/*
 * Opens the database at `path` and stores runs[0..n) in one transaction
 * (all or none), then closes it: what `run --db` and `replay --db` do.
 */
int db_store_runs(const char *path, const struct db_run *runs, int n);

/* Calls fn(ctx, key, status) for every stored run with a key. */
typedef int (*db_key_fn)(void *ctx, const char *key, const char *status);
int db_each_key(struct db *db, db_key_fn fn, void *ctx);

/* Deletes the run with `key` (and its child rows); nothing if absent. */
int db_delete_key(struct db *db, const char *key);

/*
 * Runs `sql` (one statement; bound parameters none) and calls fn for every
 * row with the column names and the values as text (NULL for SQL NULL).
 * fn returns 0 to go on.  A syntax error: BAECHI_EINVAL with SQLite's message.
 */
typedef int (*db_row_fn)(void *ctx, int ncol, const char *const *names, const char *const *vals);
int db_query(struct db *db, const char *sql, db_row_fn fn, void *ctx);

/* Same with one text parameter bound to ?1 (may be NULL). */
int db_query1(struct db *db, const char *sql, const char *arg, db_row_fn fn, void *ctx);

/* A bound parameter of db_query_params (text NULL binds SQL NULL). */
enum db_param_type { DB_PARAM_TEXT = 0, DB_PARAM_REAL, DB_PARAM_INT };
struct db_param {
    enum db_param_type type;
    const char *s;
    double d;
    int64_t i;
};

/* Same with np parameters bound to ?1..?np in order. */
int db_query_params(struct db *db, const char *sql, const struct db_param *p, int np, db_row_fn fn,
                    void *ctx);

/* Same, and fn also sees each value's SQLite storage class (JSON output keeps numbers).
 * With no row, fn is called once with vals and types NULL (the column names). */
enum db_value_type { DB_VALUE_NULL = 0, DB_VALUE_INT, DB_VALUE_REAL, DB_VALUE_TEXT };
typedef int (*db_row_typed_fn)(void *ctx, int ncol, const char *const *names,
                               const char *const *vals, const int *types);
int db_query_typed(struct db *db, const char *sql, const struct db_param *p, int np,
                   db_row_typed_fn fn, void *ctx);

/* The placement stored for run `id`: *device_of malloc'ed (NULL, n 0 when none). */
int db_load_placement(struct db *db, int64_t id, int32_t **device_of, int32_t *n);

/* PRAGMA integrity_check; "ok" in buf when sound. */
int db_integrity_check(struct db *db, char *buf, size_t size);

#endif
