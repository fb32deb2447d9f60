/*
 * db_query.c - reading the results store (see db.h): the stored keys,
 * queries (one statement, read-only, with parameters and typed columns), a
 * stored placement, the integrity check.
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

/* ------------------------------------------------------------------ queries */

int db_each_key(struct db *db, db_key_fn fn, void *ctx)
{
    sqlite3_stmt *st = NULL;
    int rc = 0, s;

    if (sqlite3_prepare_v2(db->h, "SELECT key, status FROM runs WHERE key IS NOT NULL", -1, &st,
                           NULL) != SQLITE_OK) {
        return db_sql_err(db, "cannot list the stored points");
    }
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        const char *key = (const char *)sqlite3_column_text(st, 0);
        const char *status = (const char *)sqlite3_column_text(st, 1);

        if ((!key || (!status && sqlite3_column_type(st, 1) != SQLITE_NULL)) &&
            sqlite3_errcode(db->h) == SQLITE_NOMEM) {
            rc = err_set(BAECHI_ENOMEM, "%s: out of memory listing the stored points", db->path);
            break;
        }
        if ((rc = fn(ctx, key, status)) != 0) {
            break;
        }
    }
    if (!rc && s != SQLITE_DONE) {
        rc = db_sql_err(db, "cannot list the stored points");
    }
    sqlite3_finalize(st);
    return rc;
}

int db_delete_key(struct db *db, const char *key)
{
    sqlite3_stmt *st = NULL;
    int rc;

    if (sqlite3_prepare_v2(db->h, "DELETE FROM runs WHERE key = ?1", -1, &st, NULL) != SQLITE_OK) {
        return db_sql_err(db, "cannot delete a run");
    }
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    rc = sqlite3_step(st) == SQLITE_DONE ? 0 : db_sql_err(db, "cannot delete a run");
    sqlite3_finalize(st);
    return rc;
}

/* Past blanks, comments and empty statements (";"): what may follow the one statement. */
static const char *skip_blank(const char *p)
{
    for (;;) {
        if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' || *p == '\v' ||
            *p == ';') {
            p++;
        } else if (p[0] == '-' && p[1] == '-') {
            p += strcspn(p, "\n");
        } else if (p[0] == '/' && p[1] == '*') {
            const char *e = strstr(p + 2, "*/");
            if (!e) {
                return p + strlen(p); /* SQLite ends an open comment at the end */
            }
            p = e + 2;
        } else {
            return p;
        }
    }
}

/* The one query loop: parameters bound in order, rows to fn or typed fn. */
static int query_loop(struct db *db, const char *sql, const struct db_param *p, int np,
                      db_row_fn fn, db_row_typed_fn tfn, void *ctx)
{
    sqlite3_stmt *st = NULL;
    const char **names = NULL, **vals = NULL;
    int *types = NULL;
    int rc = 0, s, n;
    long nrows = 0;

    const char *tail = sql, *rest;

    do { /* past empty statements (";") */
        if (sqlite3_prepare_v2(db->h, tail, -1, &st, &tail) != SQLITE_OK) {
            return err_set(db_sqlite_code(db, BAECHI_EINVAL), "query: %s", sqlite3_errmsg(db->h));
        }
    } while (!st && *(rest = skip_blank(tail)));
    if (!st) {
        return 0; /* empty statement */
    }
    if (*(rest = skip_blank(tail))) {
        /* sqlite3_exec would run them all: one statement, one result */
        rc = err_set(BAECHI_EINVAL,
                     "query: one SQL statement expected, and more follows the first: '%.60s%s'",
                     rest, strlen(rest) > 60 ? "..." : "");
        sqlite3_finalize(st);
        return rc;
    }
    for (int i = 0; i < np && i < sqlite3_bind_parameter_count(st); i++) {
        switch (p[i].type) {
        case DB_PARAM_TEXT:
            if (p[i].s) {
                sqlite3_bind_text(st, i + 1, p[i].s, -1, SQLITE_STATIC);
            }
            break;
        case DB_PARAM_REAL:
            sqlite3_bind_double(st, i + 1, p[i].d);
            break;
        default:
            sqlite3_bind_int64(st, i + 1, p[i].i);
            break;
        }
    }
    n = sqlite3_column_count(st);
    names = mem_calloc((size_t)n + 1, sizeof(*names));
    vals = mem_calloc((size_t)n + 1, sizeof(*vals));
    types = mem_calloc((size_t)n + 1, sizeof(*types));
    if (!names || !vals || !types) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    for (int i = 0; i < n; i++) {
        names[i] = sqlite3_column_name(st, i);
    }
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        for (int i = 0; i < n; i++) {
            int t = sqlite3_column_type(st, i);
            types[i] = t == SQLITE_INTEGER ? DB_VALUE_INT
                       : t == SQLITE_FLOAT ? DB_VALUE_REAL
                       : t == SQLITE_NULL  ? DB_VALUE_NULL
                                           : DB_VALUE_TEXT;
            vals[i] = (const char *)sqlite3_column_text(st, i);
            /* NULL for a value that is not NULL: SQLite could not convert
             * it (out of memory); the row is not to be read as a NULL */
            if (!vals[i] && t != SQLITE_NULL && sqlite3_errcode(db->h) == SQLITE_NOMEM) {
                rc = err_set(BAECHI_ENOMEM, "query: out of memory");
                goto cleanup;
            }
        }
        if (fn && (rc = fn(ctx, n, names, vals)) != 0) {
            goto cleanup;
        }
        if (tfn && (rc = tfn(ctx, n, names, vals, types)) != 0) {
            goto cleanup;
        }
        nrows++;
    }
    if (s != SQLITE_DONE) {
        rc = err_set(db_sqlite_code(db, BAECHI_EINVAL), "query: %s", sqlite3_errmsg(db->h));
    } else if (tfn && nrows == 0) {
        rc = tfn(ctx, n, names, NULL, NULL); /* the columns of an empty result */
    }
cleanup:
    free(names);
    free(vals);
    free(types);
    sqlite3_finalize(st);
    return rc;
}

int db_query1(struct db *db, const char *sql, const char *arg, db_row_fn fn, void *ctx)
{
    struct db_param p = {.type = DB_PARAM_TEXT, .s = arg};

    return query_loop(db, sql, &p, arg ? 1 : 0, fn, NULL, ctx);
}

int db_query(struct db *db, const char *sql, db_row_fn fn, void *ctx)
{
    return query_loop(db, sql, NULL, 0, fn, NULL, ctx);
}

int db_query_params(struct db *db, const char *sql, const struct db_param *p, int np, db_row_fn fn,
                    void *ctx)
{
    return query_loop(db, sql, p, np, fn, NULL, ctx);
}

int db_query_typed(struct db *db, const char *sql, const struct db_param *p, int np,
                   db_row_typed_fn fn, void *ctx)
{
    return query_loop(db, sql, p, np, NULL, fn, ctx);
}

int db_load_placement(struct db *db, int64_t id, int32_t **device_of, int32_t *n)
{
    sqlite3_stmt *st = NULL;
    int rc = 0, s;

    *device_of = NULL;
    *n = 0;
    if (sqlite3_prepare_v2(db->h, "SELECT device_of FROM placements WHERE run_id = ?1", -1, &st,
                           NULL) != SQLITE_OK) {
        return db_sql_err(db, "cannot read a placement");
    }
    sqlite3_bind_int64(st, 1, id);
    s = sqlite3_step(st);
    if (s == SQLITE_ROW) {
        const unsigned char *b = sqlite3_column_blob(st, 0);
        size_t len = (size_t)sqlite3_column_bytes(st, 0) / 4;
        if (len > 0 && !(*device_of = mem_alloc_array(len, sizeof(int32_t)))) {
            rc = BAECHI_ENOMEM;
        }
        for (size_t k = 0; !rc && k < len; k++) {
            (*device_of)[k] =
                (int32_t)((uint32_t)b[4 * k] | (uint32_t)b[4 * k + 1] << 8 |
                          (uint32_t)b[4 * k + 2] << 16 | (uint32_t)b[4 * k + 3] << 24);
        }
        if (!rc) {
            *n = (int32_t)len;
        }
    } else if (s != SQLITE_DONE) {
        rc = db_sql_err(db, "cannot read a placement");
    }
    sqlite3_finalize(st);
    return rc;
}

int db_integrity_check(struct db *db, char *buf, size_t size)
{
    sqlite3_stmt *st = NULL;
    int rc = 0;

    if (sqlite3_prepare_v2(db->h, "PRAGMA integrity_check", -1, &st, NULL) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW) {
        rc = db_sql_err(db, "integrity check failed to run");
    } else {
        const char *text = (const char *)sqlite3_column_text(st, 0);

        if (!text) {
            rc = err_set(BAECHI_ENOMEM, "%s: out of memory checking its integrity", db->path);
        } else {
            snprintf(buf, size, "%s", text);
        }
    }
    sqlite3_finalize(st);
    return rc;
}
