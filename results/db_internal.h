/*
 * db_internal.h - the parts of the results store (see db.h) and what they
 * share: the handle and its error reporting.
 *
 *   db.c         opening (migrations, read-only and immutable opens),
 *                transactions, failures with the system's reason
 *   db_insert.c  a run and its devices, links and placement, one
 *                transaction
 *   db_query.c   keys, queries with parameters, a stored placement, the
 *                integrity check
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_RESULTS_DB_INTERNAL_H
#define BAECHI_RESULTS_DB_INTERNAL_H

#include <sqlite3.h>
#include <stdbool.h>

struct db {
    sqlite3 *h;
    char *path;
    char *failed;    /* the last failure's message: a later COMMIT repeats it */
    bool failed_sys; /* it was the system's (err_set_system): exit 1, not 2 */
    sqlite3_stmt *ins_run, *ins_dev, *ins_link, *ins_place;
};

/*
 * The error code of SQLite's last failure on db: out of memory (SQLITE_NOMEM,
 * or no handle at all) is BAECHI_ENOMEM, exit 1, whatever the call; anything
 * else is `otherwise`.
 */
int db_sqlite_code(const struct db *db, int otherwise);
/* Reports SQLite's last message about `what` with the system's reason and
 * keeps it for db_commit (a rolled-back transaction's COMMIT says less). */
int db_sql_err(struct db *db, const char *what);
/* A persistent prepared statement; a failure reported as db_sql_err does. */
int db_prepare(struct db *db, sqlite3_stmt **st, const char *sql);

#endif
