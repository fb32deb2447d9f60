/*
 * db.c - the results store on SQLite (db.h): opening, migrations,
 * transactions and failures with their reasons.  Inserts are db_insert.c,
 * queries db_query.c; the schema's text is db_schema.c; a run record and
 * its byte encoding are db_run.c.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "results/db.h"
#include "results/db_internal.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"
#include "core/strbuf.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>

#ifndef BAECHI_GIT_VERSION
#define BAECHI_GIT_VERSION "unknown"
#endif

/* ------------------------------------------------------------------ helpers */

const char *db_tool_version(void)
{
    return BAECHI_GIT_VERSION;
}

int db_store_runs(const char *path, const struct db_run *runs, int n)
{
    struct db *db = NULL;
    int rc;

    if ((rc = db_open(&db, path, 0)) || (rc = db_begin(db))) {
        db_close(db);
        return rc;
    }
    for (int i = 0; i < n; i++) {
        if ((rc = db_insert_run(db, &runs[i], NULL, NULL)) != 0) {
            db_rollback(db);
            db_close(db);
            return rc;
        }
    }
    rc = db_commit(db);
    db_close(db);
    return rc;
}

int db_run_set_origin(struct db_run *r, const char *workload_name, const char *workload_path,
                      const char *cluster_name, const char *cluster_spec, const char *placer)
{
    char now[40], host[64] = "?";
    int rc = 0;

    db_now_iso(now, sizeof(now));
    if (gethostname(host, sizeof(host) - 1) != 0) {
        snprintf(host, sizeof(host), "?");
    }
    rc |= db_run_set(&r->time, now);
    rc |= db_run_set(&r->tool_version, db_tool_version());
    rc |= db_run_set(&r->host, host);
    rc |= db_run_set(&r->workload, workload_name ? workload_name : workload_path);
    rc |= db_run_set(&r->workload_spec, workload_path);
    rc |= db_run_set(&r->cluster, cluster_name ? cluster_name : cluster_spec);
    rc |= db_run_set(&r->cluster_spec, cluster_spec);
    rc |= db_run_set(&r->placer, placer);
    return rc ? BAECHI_ENOMEM : 0;
}

void db_now_iso(char *buf, size_t size)
{
    struct timeval tv;
    struct tm tm;

    gettimeofday(&tv, NULL);
    gmtime_r(&tv.tv_sec, &tm);
    snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(tv.tv_usec / 1000));
}

static char *dir_of(const char *path);

/*
 * The errno behind SQLite's last failure.  Where it cannot open or create a
 * file (the database, its -wal), it retries read-only and keeps that
 * attempt's ENOENT: when the directory exists but refuses writing, the
 * reason is the directory's (EROFS, a read-only file system; EACCES).
 */
static int db_errno(struct db *db)
{
    int code = sqlite3_errcode(db->h) & 0xff, e = sqlite3_system_errno(db->h);
    char *dir;

    if ((code == SQLITE_CANTOPEN || code == SQLITE_READONLY) && (e == 0 || e == ENOENT) &&
        (dir = dir_of(db->path)) != NULL) {
        if (access(dir, F_OK) == 0 && access(dir, W_OK) != 0) {
            e = errno;
        }
        free(dir);
    }
    return e;
}

/* The operating system's reason for a failed read or write (", No space left
 * on device"), empty for other errors: SQLite's own text ("disk I/O error")
 * does not say which. */
static const char *os_reason(struct db *db, char *buf, size_t size)
{
    int code = sqlite3_errcode(db->h) & 0xff, e = db_errno(db);

    buf[0] = '\0';
    if (e != 0 && (code == SQLITE_IOERR || code == SQLITE_FULL || code == SQLITE_CANTOPEN ||
                   code == SQLITE_READONLY)) {
        snprintf(buf, size, " (%s)", strerror(e));
    }
    return buf;
}

/*
 * The error code of SQLite's last failure on db: out of memory
 * (SQLITE_NOMEM, or no handle at all) is BAECHI_ENOMEM, exit 1, whatever
 * the call; anything else is `otherwise` (issue 30 item 7: a failed
 * allocation inside SQLite was an I/O error or a bad query, exit 2).
 */
int db_sqlite_code(const struct db *db, int otherwise)
{
    return !db->h || sqlite3_errcode(db->h) == SQLITE_NOMEM ? BAECHI_ENOMEM : otherwise;
}

/* Reports msg and keeps it: SQLite rolls a transaction back on a full disk
 * or an I/O error, and the COMMIT that follows would only say "no
 * transaction is active" (db_commit repeats this instead). */
/* A full disk, an I/O error or a read-only file system: the machine's
 * failure, not the input's (err_set_system). */
static bool db_failure_is_system(struct db *db)
{
    int code = sqlite3_errcode(db->h) & 0xff, e = db_errno(db);

    return code == SQLITE_FULL || code == SQLITE_IOERR ||
           ((code == SQLITE_CANTOPEN || code == SQLITE_READONLY) && e != 0 &&
            err_errno_is_system(e));
}

static int db_fail(struct db *db, const char *what, const char *msg)
{
    char os[128];
    bool sys = db_failure_is_system(db);
    int code = db_sqlite_code(db, BAECHI_EIO), rc;

    if (what) {
        rc = err_set(code, "%s: %s: %s%s", db->path, what, msg, os_reason(db, os, sizeof(os)));
    } else {
        rc = err_set(code, "%s: %s%s", db->path, msg, os_reason(db, os, sizeof(os)));
    }
    if (sys) {
        err_set_system();
    }
    free(db->failed);
    db->failed = mem_strdup(err_msg());
    db->failed_sys = sys;
    return rc;
}

int db_sql_err(struct db *db, const char *what)
{
    return db_fail(db, what, sqlite3_errmsg(db->h));
}

static int exec(struct db *db, const char *sql)
{
    char *msg = NULL;

    if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
        int rc = db_fail(db, NULL, msg ? msg : sqlite3_errmsg(db->h));
        sqlite3_free(msg);
        return rc;
    }
    return 0;
}

/* ------------------------------------------------------------------ open */

static int user_version(struct db *db, int *v)
{
    sqlite3_stmt *st = NULL;
    int rc = 0;

    if (sqlite3_prepare_v2(db->h, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW) {
        rc = db_sql_err(db, "cannot read the schema version");
    } else {
        *v = sqlite3_column_int(st, 0);
    }
    sqlite3_finalize(st);
    return rc;
}

int db_schema_version(struct db *db, int *version)
{
    return user_version(db, version);
}

static int migrate(struct db *db)
{
    int v, rc;
    char sql[64];

    /* BEGIN IMMEDIATE first: two processes creating one database wait for each other */
    if ((rc = exec(db, "BEGIN IMMEDIATE")) != 0) {
        return rc;
    }
    if ((rc = user_version(db, &v)) != 0) {
        goto fail;
    }
    if (v > DB_SCHEMA_VERSION) {
        rc = err_set(BAECHI_EUNSUPPORTED,
                     "%s: schema version %d is newer than this baechi's (%d): upgrade baechi",
                     db->path, v, DB_SCHEMA_VERSION);
        goto fail;
    }
    for (; v < DB_SCHEMA_VERSION; v++) {
        for (const char *const *q = db_schema_migration(v); *q; q++) {
            if ((rc = exec(db, *q)) != 0) {
                err_wrap(rc, "migrating from schema version %d", v);
                goto fail;
            }
        }
    }
    snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", DB_SCHEMA_VERSION);
    if ((rc = exec(db, sql)) != 0 || (rc = exec(db, "COMMIT")) != 0) {
        goto fail;
    }
    return 0;
fail:
    sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

int db_prepare(struct db *db, sqlite3_stmt **st, const char *sql)
{
    if (sqlite3_prepare_v3(db->h, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK) {
        return db_sql_err(db, "cannot db_prepare a statement");
    }
    return 0;
}

/*
 * A read-only open on a read-only directory or file system: SQLite cannot
 * create the WAL index (-shm) there, and the first read fails with
 * SQLITE_CANTOPEN or SQLITE_READONLY ("attempt to write a readonly
 * database").  Without a write-ahead log holding data nobody can be
 * writing (a writer needs that directory too), so the file is complete and
 * is read as immutable (no locks, no -shm).  With one, its pages are not in
 * the file yet: refuse, naming why.
 */
static int reopen_immutable(struct db *db)
{
    char *wal = NULL, *uri = NULL;
    struct stat st;
    size_t n = 0, len = strlen(db->path);
    int rc = 0;
    static const char hex[] = "0123456789ABCDEF";

    if (mem_asprintf(&wal, "%s-wal", db->path) < 0) {
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    if (stat(wal, &st) == 0 && st.st_size > 0) {
        rc = err_set(BAECHI_EIO,
                     "%s: cannot read it in a read-only directory: its write-ahead log %s holds "
                     "runs not yet in the file (a writer is running or was killed); read it "
                     "where its directory is writable",
                     db->path, wal);
        goto cleanup;
    }
    /* file:///abs or file:rel, every byte but [A-Za-z0-9/._~-] percent-encoded */
    if (!(uri = mem_alloc_array(3 * len + 32, 1))) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    n += (size_t)sprintf(uri, db->path[0] == '/' ? "file://" : "file:");
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)db->path[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            strchr("/._~-", c)) {
            uri[n++] = (char)c;
        } else {
            uri[n++] = '%';
            uri[n++] = hex[c >> 4];
            uri[n++] = hex[c & 15];
        }
    }
    sprintf(uri + n, "?immutable=1");
    sqlite3_close(db->h);
    db->h = NULL;
    if (sqlite3_open_v2(uri, &db->h, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
                        NULL) != SQLITE_OK) {
        rc = err_set(db_sqlite_code(db, BAECHI_EIO), "cannot open database '%s': %s", db->path,
                     db->h ? sqlite3_errmsg(db->h) : "out of memory");
    }
cleanup:
    free(wal);
    free(uri);
    return rc;
}

/*
 * How a reader opens the database.  A read-only SQLite connection to a
 * database in WAL mode creates its -wal and -shm files but may not remove
 * them when it closes, so every `report`, `plot` or `db query` left both
 * beside the database.  Where the file and its directory are writable the
 * reader opens it read-write under `PRAGMA query_only` (nothing it runs can
 * write), and SQLite removes both files when the last connection closes;
 * elsewhere it opens read-only (then reopen_immutable()).
 */
/* The directory of path (malloc'ed; "." for a bare name), NULL when out of memory. */
static char *dir_of(const char *path)
{
    char *dir = mem_alloc_array(strlen(path) + 2, 1), *slash;

    if (!dir) {
        return NULL;
    }
    strcpy(dir, path);
    slash = strrchr(dir, '/');
    if (!slash) {
        strcpy(dir, ".");
    } else if (slash == dir) {
        dir[1] = '\0';
    } else {
        *slash = '\0';
    }
    return dir;
}

static int reader_open_flags(const char *path)
{
    char *dir = dir_of(path);
    int rw;

    if (!dir) {
        return SQLITE_OPEN_READONLY;
    }
    rw = access(path, R_OK | W_OK) == 0 && access(dir, W_OK | X_OK) == 0;
    free(dir);
    return rw ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY;
}

/*
 * A database that cannot be opened, with the system's reason.  Creating one
 * in a read-only directory, SQLite retries read-only and keeps that
 * attempt's ENOENT ("unable to open database file"): where the file is
 * missing and its directory exists but refuses writing, the reason is the
 * directory's (EROFS: a read-only file system, exit 1; EACCES).
 */
static int open_fail(struct db *db, const char *path, int oflags)
{
    const char *msg;
    char *dir;
    int e;

    if (!db->h) {
        return err_set(BAECHI_ENOMEM, "cannot open database '%s': out of memory", path);
    }
    msg = sqlite3_errmsg(db->h);
    e = sqlite3_system_errno(db->h);
    if ((oflags & SQLITE_OPEN_CREATE) && (e == 0 || e == ENOENT) && access(path, F_OK) != 0 &&
        (dir = dir_of(path)) != NULL) {
        if (access(dir, F_OK) == 0 && access(dir, W_OK) != 0) {
            e = errno;
        }
        free(dir);
    }
    if (e != 0) {
        return err_set_io(e, "cannot open database '%s': %s", path, msg);
    }
    return err_set(BAECHI_EIO, "cannot open database '%s': %s", path, msg);
}

const char *db_path(const struct db *db)
{
    return db->path;
}

int db_open(struct db **out, const char *path, unsigned flags)
{
    struct db *db;
    int rc = 0, v = 0;
    int oflags = (flags & DB_READONLY) ? reader_open_flags(path)
                                       : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;

    *out = NULL;
    if (!(db = mem_calloc(1, sizeof(*db)))) {
        return BAECHI_ENOMEM;
    }
    if (!(db->path = mem_strdup(path))) {
        free(db);
        return BAECHI_ENOMEM;
    }
    if (sqlite3_open_v2(path, &db->h, oflags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        rc = db_sqlite_code(db, BAECHI_EIO) == BAECHI_ENOMEM
                 ? err_set(BAECHI_ENOMEM, "cannot open database '%s': out of memory", path)
                 : open_fail(db, path, oflags);
        goto fail;
    }
    sqlite3_busy_timeout(db->h, 60000);
    if (!(flags & DB_READONLY)) {
        /* Switching to WAL needs an exclusive lock, and SQLite reports
         * SQLITE_BUSY at once (without the busy handler) when another
         * process is creating the same database: retry for a while. */
        for (int tries = 0; tries < 3000; tries++) {
            int src = sqlite3_exec(db->h, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);

            if (src != SQLITE_BUSY && src != SQLITE_LOCKED) {
                break;
            }
            sqlite3_sleep(10);
        }
        if ((rc = exec(db, "PRAGMA journal_mode = WAL")) != 0 ||
            (rc = exec(db, "PRAGMA synchronous = NORMAL")) != 0) {
            if (!err_is_system()) {
                err_wrap(rc, "'%s' is not a usable database", path);
            }
            goto fail;
        }
    }
    if ((rc = exec(db, "PRAGMA foreign_keys = ON")) != 0) {
        goto fail;
    }
    /* a reader opened read-write writes nothing: SQL that would is refused */
    if ((flags & DB_READONLY) && (oflags & SQLITE_OPEN_READWRITE) &&
        (rc = exec(db, "PRAGMA query_only = ON")) != 0) {
        goto fail;
    }
    if ((rc = user_version(db, &v)) != 0 && (flags & DB_READONLY) &&
        (sqlite3_errcode(db->h) == SQLITE_CANTOPEN || sqlite3_errcode(db->h) == SQLITE_READONLY)) {
        if ((rc = reopen_immutable(db)) != 0) {
            goto fail;
        }
        rc = user_version(db, &v);
    }
    if (rc) {
        /* only a file SQLite does not recognise is "not a database"; a
         * locked, unreadable or missing one says what SQLite said */
        if (sqlite3_errcode(db->h) == SQLITE_NOTADB) {
            err_wrap(rc, "'%s' is not a baechi results database", path);
        }
        goto fail;
    }
    if (flags & DB_READONLY) {
        if (v != DB_SCHEMA_VERSION) {
            rc = err_set(v > DB_SCHEMA_VERSION ? BAECHI_EUNSUPPORTED : BAECHI_EIO,
                         "%s: schema version %d, this baechi reads %d%s", path, v,
                         DB_SCHEMA_VERSION, v == 0 ? " (empty or not a results database)" : "");
            goto fail;
        }
    } else if (v != DB_SCHEMA_VERSION && (rc = migrate(db)) != 0) {
        goto fail;
    }
    *out = db;
    return 0;
fail:
    db_close(db);
    return rc;
}

void db_close(struct db *db)
{
    if (!db) {
        return;
    }
    sqlite3_finalize(db->ins_run);
    sqlite3_finalize(db->ins_dev);
    sqlite3_finalize(db->ins_link);
    sqlite3_finalize(db->ins_place);
    sqlite3_close(db->h);
    free(db->path);
    free(db->failed);
    free(db);
}

int db_begin(struct db *db)
{
    free(db->failed);
    db->failed = NULL;
    return exec(db, "BEGIN IMMEDIATE");
}

int db_commit(struct db *db)
{
    if (sqlite3_get_autocommit(db->h)) {
        /* rolled back by SQLite after a failed statement: name that failure */
        if (db->failed) {
            err_set(BAECHI_EIO, "%s", db->failed);
            if (db->failed_sys) {
                err_set_system();
            }
            return BAECHI_EIO;
        }
        return err_set(BAECHI_EIO, "%s: cannot commit: no transaction is active", db->path);
    }
    return exec(db, "COMMIT");
}

void db_rollback(struct db *db)
{
    sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
}
