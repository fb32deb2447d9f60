/*
 * db_insert.c - a run into the results store (see db.h): the run row, its
 * devices, links and placement in one transaction, the statements prepared
 * once per handle from the run record's field list (db_run.h).
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

/* ------------------------------------------------------------------ insert */

#define COUNT_(n)    +1
#define N_RUN_FIELDS (0 DB_RUN_FIELDS(COUNT_, COUNT_, COUNT_))

static int prepare_inserts(struct db *db)
{
    struct strbuf sql = STRBUF_INIT;
    int rc = 0;

    /* as many fields as DB_RUN_FIELDS grows to (a char[2048] once bounded
     * the statement, and a longer one wrote past it) */
    rc = strbuf_addstr(&sql, "INSERT OR IGNORE INTO runs (");
#define NAME_(f) rc = rc ? rc : strbuf_addstr(&sql, #f ",");
    DB_RUN_FIELDS(NAME_, NAME_, NAME_)
#undef NAME_
    if (rc == 0) {
        strbuf_setlen(&sql, sql.len - 1);
        rc = strbuf_addstr(&sql, ") VALUES (");
    }
    for (int i = 0; rc == 0 && i < N_RUN_FIELDS; i++) {
        rc = strbuf_addstr(&sql, i ? ",?" : "?");
    }
    if (rc == 0) {
        rc = strbuf_addch(&sql, ')');
    }
    if (rc == 0) {
        rc = db_prepare(db, &db->ins_run, sql.buf);
    }
    strbuf_release(&sql);
    if (rc != 0 ||
        (rc = db_prepare(db, &db->ins_dev,
                         "INSERT INTO devices VALUES "
                         "(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17)")) != 0 ||
        (rc = db_prepare(db, &db->ins_link, "INSERT INTO links VALUES (?1,?2,?3,?4,?5)")) != 0 ||
        (rc = db_prepare(db, &db->ins_place, "INSERT INTO placements VALUES (?1,?2)")) != 0) {
        return rc;
    }
    return 0;
}

static void bind_i64(sqlite3_stmt *st, int i, int64_t x)
{
    if (x == DB_NULL_INT) {
        sqlite3_bind_null(st, i);
    } else {
        sqlite3_bind_int64(st, i, x);
    }
}

static void bind_dbl(sqlite3_stmt *st, int i, double x)
{
    if (isnan(x)) {
        sqlite3_bind_null(st, i);
    } else {
        sqlite3_bind_double(st, i, x);
    }
}

static int step_done(struct db *db, sqlite3_stmt *st, const char *what)
{
    int s = sqlite3_step(st);
    int rc = s == SQLITE_DONE ? 0 : db_sql_err(db, what);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc;
}

int db_insert_run(struct db *db, const struct db_run *r, bool *inserted, int64_t *id)
{
    sqlite3_stmt *st;
    int64_t rid;
    int rc, i = 0;

    if (inserted) {
        *inserted = false;
    }
    if (!db->ins_run && (rc = prepare_inserts(db)) != 0) {
        return rc;
    }
    if (!r->workload || !r->cluster || !r->placer || !r->status) {
        return err_set(BAECHI_EINVAL, "run without workload, cluster, placer or status");
    }
    st = db->ins_run;
#define S_(f) sqlite3_bind_text(st, ++i, r->f, -1, SQLITE_STATIC);
#define I_(f) bind_i64(st, ++i, r->f);
#define D_(f) bind_dbl(st, ++i, r->f);
    DB_RUN_FIELDS(S_, I_, D_)
#undef S_
#undef I_
#undef D_
    if (!r->time) {
        sqlite3_bind_text(st, 3, "", -1, SQLITE_STATIC);
    }
    if (!r->tool_version) {
        sqlite3_bind_text(st, 4, db_tool_version(), -1, SQLITE_STATIC);
    }
    if ((rc = step_done(db, st, "cannot insert a run")) != 0) {
        return rc;
    }
    if (sqlite3_changes(db->h) == 0) {
        return 0; /* the key is stored already */
    }
    rid = sqlite3_last_insert_rowid(db->h);
    for (int32_t d = 0; d < r->n_dev; d++) {
        const struct db_device_rec *v = &r->dev[d];
        st = db->ins_dev;
        sqlite3_bind_int64(st, 1, rid);
        sqlite3_bind_int(st, 2, v->device);
        sqlite3_bind_text(st, 3, v->name, -1, SQLITE_STATIC);
        bind_i64(st, 4, v->peak_bytes);
        bind_i64(st, 5, v->limit_bytes);
        bind_i64(st, 6, v->placer_peak_bytes);
        bind_i64(st, 7, v->placer_limit_bytes);
        bind_i64(st, 8, v->busy_us);
        bind_i64(st, 9, v->n_ops);
        bind_i64(st, 10, v->oom);
        for (int k = 0; k < DB_MEM_KINDS; k++) {
            bind_i64(st, 11 + k, v->peak_kind_bytes[k]);
        }
        if ((rc = step_done(db, st, "cannot insert a device row")) != 0) {
            return rc;
        }
    }
    for (int32_t l = 0; l < r->n_link; l++) {
        st = db->ins_link;
        sqlite3_bind_int64(st, 1, rid);
        sqlite3_bind_int(st, 2, r->link[l].src);
        sqlite3_bind_int(st, 3, r->link[l].dst);
        sqlite3_bind_int64(st, 4, r->link[l].bytes);
        sqlite3_bind_int64(st, 5, r->link[l].transfers);
        if ((rc = step_done(db, st, "cannot insert a link row")) != 0) {
            return rc;
        }
    }
    if (r->n_place > 0 && r->device_of) {
        /* little-endian int32 regardless of the host */
        size_t n = (size_t)r->n_place;
        unsigned char *blob = mem_alloc_array(n, 4);
        if (!blob) {
            return BAECHI_ENOMEM;
        }
        for (size_t k = 0; k < n; k++) {
            uint32_t x = (uint32_t)r->device_of[k];
            blob[4 * k] = (unsigned char)x;
            blob[4 * k + 1] = (unsigned char)(x >> 8);
            blob[4 * k + 2] = (unsigned char)(x >> 16);
            blob[4 * k + 3] = (unsigned char)(x >> 24);
        }
        st = db->ins_place;
        sqlite3_bind_int64(st, 1, rid);
        sqlite3_bind_blob(st, 2, blob, (int)(4 * n), SQLITE_STATIC);
        rc = step_done(db, st, "cannot insert a placement");
        free(blob);
        if (rc) {
            return rc;
        }
    }
    if (inserted) {
        *inserted = true;
    }
    if (id) {
        *id = rid;
    }
    return 0;
}
