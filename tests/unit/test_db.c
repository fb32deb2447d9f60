/*
 * test_db.c - the results store: schema, inserts, keys, encoding, versions.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/err.h"
#include "results/db.h"
#include "results/report.h"

#include <criterion/criterion.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[64];

static void tmpdb(void)
{
    snprintf(path, sizeof(path), "/tmp/baechi-test-db-%d.db", (int)getpid());
    unlink(path);
}

static void fill(struct db_run *r, const char *key)
{
    db_run_init(r);
    cr_assert_eq(db_run_set(&r->key, key), 0);
    db_run_set(&r->workload, "w");
    db_run_set(&r->cluster, "c");
    db_run_set(&r->placer, "m-etf");
    db_run_set(&r->status, "ok");
    db_run_set(&r->time, "2026-01-01T00:00:00.000Z");
    r->step_us = 1234;
    r->memory_fraction = 0.5;
    r->n_dev = 2;
    r->dev = calloc(2, sizeof(*r->dev));
    for (int d = 0; d < 2; d++) {
        r->dev[d].device = d;
        r->dev[d].name = strdup(d ? "gpu1" : "gpu0");
        r->dev[d].peak_bytes = 100 + d;
        r->dev[d].limit_bytes = 1000;
        r->dev[d].placer_peak_bytes = DB_NULL_INT;
        r->dev[d].placer_limit_bytes = DB_NULL_INT;
    }
    r->n_link = 1;
    r->link = calloc(1, sizeof(*r->link));
    r->link[0] = (struct db_link_rec){0, 1, 4096, 3};
    r->n_place = 3;
    r->device_of = calloc(3, sizeof(int32_t));
    r->device_of[1] = 1;
    r->device_of[2] = 70000;
}

static int count_row(void *ctx, int n, const char *const *names, const char *const *v)
{
    (void)n;
    (void)names;
    *(long *)ctx = strtol(v[0], NULL, 10);
    return 0;
}

static long count(struct db *db, const char *sql)
{
    long n = -1;
    cr_assert_eq(db_query(db, sql, count_row, &n), 0, "%s", sql);
    return n;
}

Test(db, schema_insert_duplicate_key_ignored)
{
    struct db *db;
    struct db_run r;
    bool ins;
    int64_t id;
    int v;
    char buf[64];
    int32_t *p, n;

    tmpdb();
    cr_assert_eq(db_open(&db, path, 0), 0);
    cr_assert_eq(db_schema_version(db, &v), 0);
    cr_assert_eq(v, DB_SCHEMA_VERSION);
    fill(&r, "k1");
    cr_assert_eq(db_begin(db), 0);
    cr_assert_eq(db_insert_run(db, &r, &ins, &id), 0);
    cr_assert(ins);
    cr_assert_eq(db_insert_run(db, &r, &ins, NULL), 0);
    cr_assert(!ins, "a stored key is skipped");
    cr_assert_eq(db_commit(db), 0);
    cr_assert_eq(count(db, "SELECT count(*) FROM runs"), 1);
    cr_assert_eq(count(db, "SELECT count(*) FROM devices"), 2);
    cr_assert_eq(count(db, "SELECT bytes FROM links"), 4096);
    cr_assert_eq(count(db, "SELECT count(*) FROM runs WHERE estimate_us IS NULL"), 1);
    cr_assert_eq(count(db, "SELECT count(*) FROM runs WHERE tool_version <> ''"), 1);
    cr_assert_eq(db_load_placement(db, id, &p, &n), 0);
    cr_assert_eq(n, 3);
    cr_assert_eq(p[1], 1);
    cr_assert_eq(p[2], 70000);
    free(p);
    cr_assert_eq(db_delete_key(db, "k1"), 0);
    cr_assert_eq(count(db, "SELECT count(*) FROM devices"), 0, "child rows cascade");
    cr_assert_eq(db_integrity_check(db, buf, sizeof(buf)), 0);
    cr_assert_str_eq(buf, "ok");
    db_run_release(&r);
    db_close(db);
    unlink(path);
}

Test(db, rollback_leaves_no_half_run)
{
    struct db *db;
    struct db_run r;

    tmpdb();
    cr_assert_eq(db_open(&db, path, 0), 0);
    fill(&r, "k2");
    cr_assert_eq(db_begin(db), 0);
    cr_assert_eq(db_insert_run(db, &r, NULL, NULL), 0);
    db_rollback(db);
    cr_assert_eq(count(db, "SELECT count(*) FROM runs"), 0);
    cr_assert_eq(count(db, "SELECT count(*) FROM devices"), 0);
    db_run_release(&r);
    db_close(db);
    unlink(path);
}

Test(db, serialize_round_trip)
{
    struct db_run r, s;
    struct db_buf b = {0};
    size_t pos = 0;

    fill(&r, "k3");
    r.lp_makespan_us = NAN;
    cr_assert_eq(db_run_serialize(&r, &b), 0);
    cr_assert_eq(db_run_deserialize(&s, b.p, b.len, &pos), 0);
    cr_assert_eq(pos, b.len);
    cr_assert_str_eq(s.key, "k3");
    cr_assert_eq(s.step_us, 1234);
    cr_assert(isnan(s.lp_makespan_us));
    cr_assert_null(s.message);
    cr_assert_eq(s.n_dev, 2);
    cr_assert_str_eq(s.dev[1].name, "gpu1");
    cr_assert_eq(s.link[0].transfers, 3);
    cr_assert_eq(s.device_of[2], 70000);
    db_run_release(&s);
    pos = 0;
    cr_assert_neq(db_run_deserialize(&s, b.p, b.len - 5, &pos), 0, "a cut record is refused");
    free(b.p);
    db_run_release(&r);
}

Test(db, newer_schema_refused_and_readonly_missing)
{
    struct db *db;
    sqlite3 *h;

    tmpdb();
    cr_assert_eq(sqlite3_open(path, &h), SQLITE_OK);
    sqlite3_exec(h, "PRAGMA user_version = 99", NULL, NULL, NULL);
    sqlite3_close(h);
    cr_assert_eq(db_open(&db, path, 0), BAECHI_EUNSUPPORTED);
    unlink(path);
    cr_assert_neq(db_open(&db, "/nonexistent/dir/x.db", DB_READONLY), 0);
}

Test(db, report_formats)
{
    struct rtable t;
    const char *h[] = {"a", "b"}, *r1[] = {"x,y", "1.5"};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    enum report_format fm;

    cr_assert_eq(rtable_init(&t, "T", 2), 0);
    rtable_add(&t, h);
    rtable_add(&t, r1);
    rtable_print(&t, REPORT_CSV, f);
    rtable_print(&t, REPORT_MARKDOWN, f);
    fclose(f);
    cr_assert(strstr(buf, "a,b\n\"x,y\",1.5\n"), "%s", buf);
    cr_assert(strstr(buf, "### T\n\n| a   | b   |\n| --- | --- |\n| x,y | 1.5 |\n"), "%s", buf);
    cr_assert_eq(report_format_parse("md", &fm), 0);
    cr_assert_eq(fm, REPORT_MARKDOWN);
    cr_assert_neq(report_format_parse("xml", &fm), 0);
    free(buf);
    rtable_release(&t);
}

static int ignore_row(void *ctx, int ncol, const char *const *names, const char *const *vals)
{
    (void)ctx;
    (void)ncol;
    (void)names;
    (void)vals;
    return 0;
}

Test(db, query_refuses_a_second_statement)
{
    struct db *db;

    tmpdb();
    cr_assert_eq(db_open(&db, path, 0), 0);
    cr_assert_eq(db_query(db, "SELECT 1; garbage", ignore_row, NULL), BAECHI_EINVAL);
    cr_assert(strstr(err_msg(), "more follows the first: 'garbage'"), "%s", err_msg());
    cr_assert_eq(db_query(db, "SELECT 1; DELETE FROM runs", ignore_row, NULL), BAECHI_EINVAL);
    /* blanks, comments and empty statements may follow */
    cr_assert_eq(db_query(db, "SELECT 1 ; ;\n -- done\n /* really */ ", ignore_row, NULL), 0, "%s",
                 err_msg());
    cr_assert_eq(db_query(db, "; SELECT 1", ignore_row, NULL), 0, "%s", err_msg());
    cr_assert_eq(db_query(db, "", ignore_row, NULL), 0, "%s", err_msg());
    db_close(db);
    unlink(path);
}

Test(db, commit_after_a_full_database_names_the_cause)
{
    struct db *db;
    int rc = 0, i;

    tmpdb();
    cr_assert_eq(db_open(&db, path, 0), 0);
    /* a full disk, as SQLite sees it: no page beyond the schema's */
    cr_assert_eq(db_query(db, "PRAGMA max_page_count = 8", ignore_row, NULL), 0, "%s", err_msg());
    cr_assert_eq(db_begin(db), 0);
    for (i = 0; i < 1000 && !rc; i++) {
        struct db_run r;
        char key[32];

        snprintf(key, sizeof(key), "k%d", i);
        fill(&r, key);
        rc = db_insert_run(db, &r, NULL, NULL);
        db_run_release(&r);
    }
    cr_assert_eq(rc, BAECHI_EIO, "1000 runs fit in 8 pages?");
    cr_assert(strstr(err_msg(), "database or disk is full"), "%s", err_msg());
    cr_assert_neq(db_commit(db), 0);
    cr_assert(strstr(err_msg(), path), "%s", err_msg());
    cr_assert(strstr(err_msg(), "database or disk is full"), "%s", err_msg());
    cr_assert_null(strstr(err_msg(), "no transaction"), "%s", err_msg());
    db_close(db);
    unlink(path);
}
