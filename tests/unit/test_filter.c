/*
 * test_filter.c - --where conditions, their SQL (values bound, never
 * spliced), name checks with did-you-mean, dimensions and metrics.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/err.h"
#include "results/db.h"
#include "core/strdist.h"
#include "results/filter.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

Test(filter, edit_distance_and_suggestions)
{
    const char *names[] = {"m-etf", "m-sct", "m-topo", "gnmt_v2_b128_fwd"};

    cr_assert_eq(strdist("m-eft", "m-etf"), 1, "a transposition costs 1");
    cr_assert_eq(strdist("", "abc"), 3);
    cr_assert_eq(strdist("kitten", "sitting"), 3);
    cr_assert_eq(strdist("STEP", "step"), 0, "case does not count");
    cr_assert_str_eq(results_suggest("m-eft", names, 4), "m-etf");
    cr_assert_str_eq(results_suggest("gnmt", names, 4), "gnmt_v2_b128_fwd");
    cr_assert_null(results_suggest("resnet", names, 4));
}

Test(filter, parse_and_sql)
{
    struct rfilter f;
    struct rsql q;

    rfilter_init(&f);
    cr_assert_eq(rfilter_add(&f, "placer=m-etf,m-sct"), 0, "%s", err_msg());
    cr_assert_eq(rfilter_add(&f, "fraction>=0.5"), 0, "%s", err_msg());
    cr_assert_eq(rfilter_add(&f, "fusion!=true"), 0, "%s", err_msg());
    cr_assert_eq(rfilter_add_eq(&f, "workload", "a,b'c"), 0, "%s", err_msg());
    cr_assert_eq(f.n, 4);
    cr_assert_eq(f.c[0].nval, 2);
    cr_assert_str_eq(f.c[1].dim->name, "memory_fraction", "an alias");
    cr_assert_eq(f.c[3].nval, 1, "add_eq keeps a comma");
    cr_assert_not_null(rfilter_get(&f, "fusion"));
    cr_assert_null(rfilter_get(&f, "devices"));
    rsql_init(&q);
    cr_assert_eq(rfilter_sql(&f, &q), 0);
    cr_assert_str_eq(q.sql,
                     " AND (r.placer = ? OR r.placer = ?) AND (r.memory_fraction >= ?)"
                     " AND NOT (r.fusion = ?) AND ((r.workload = ? OR " RESULTS_WORKLOAD_SQL
                     " = ?))",
                     "a workload matches its name or its label name@hash");
    cr_assert_eq(q.np, 6);
    cr_assert_str_eq(q.p[1].s, "m-sct");
    cr_assert_eq(q.p[2].type, DB_PARAM_REAL);
    cr_assert_float_eq(q.p[2].d, 0.5, 1e-12);
    cr_assert_float_eq(q.p[3].d, 1.0, 1e-12, "true is 1");
    cr_assert_str_eq(q.p[4].s, "a,b'c", "a value stays a bound parameter");
    cr_assert_str_eq(q.p[5].s, "a,b'c");
    cr_assert_null(strstr(q.sql, "b'c"), "no value spliced into the SQL");
    rsql_release(&q);
    rfilter_release(&f);
}

Test(filter, bad_expressions)
{
    struct rfilter f;

    rfilter_init(&f);
    cr_assert_eq(rfilter_add(&f, "devcies=4"), BAECHI_EINVAL);
    cr_assert(strstr(err_msg(), "unknown key 'devcies'; did you mean 'devices'?"), "%s", err_msg());
    cr_assert_eq(rfilter_add(&f, "devices"), BAECHI_EINVAL);
    cr_assert(strstr(err_msg(), "expected KEY=VALUE"), "%s", err_msg());
    cr_assert_eq(rfilter_add(&f, "devices=four"), BAECHI_EINVAL);
    cr_assert(strstr(err_msg(), "devices takes a number, not 'four'"), "%s", err_msg());
    cr_assert_eq(rfilter_add(&f, "placer<m-etf"), BAECHI_EINVAL);
    cr_assert(strstr(err_msg(), "compares only numeric keys"), "%s", err_msg());
    cr_assert_eq(rfilter_add(&f, "fusion=maybe"), BAECHI_EINVAL);
    cr_assert_eq(rfilter_add(&f, "placer=m-etf,"), BAECHI_EINVAL);
    cr_assert(strstr(err_msg(), "an empty value"), "%s", err_msg());
    cr_assert_eq(f.n, 0, "nothing added on error");
    rfilter_release(&f);
}

Test(filter, dimensions_and_metrics)
{
    cr_assert_not_null(rdim_find("devices"));
    cr_assert_eq(rdim_find("n_devices"), rdim_find("devices"));
    cr_assert_eq(rdim_find("ops"), rdim_find("n_ops"));
    cr_assert_not_null(rdim_find("batch"));
    cr_assert_null(rdim_find("batch_size"));
    cr_assert_not_null(rmetric_find("bound_ratio"));
    cr_assert_eq(rmetric_find("step_ms"), rmetric_find("step"));
    cr_assert_null(rmetric_find("speed"));
}

static void add_run(struct db *db, const char *workload, const char *placer, int devices)
{
    struct db_run r;
    bool ins;

    db_run_init(&r);
    cr_assert_eq(db_run_set(&r.time, "2026-01-01T00:00:00.000Z"), 0);
    cr_assert_eq(db_run_set(&r.tool_version, "test"), 0);
    cr_assert_eq(db_run_set(&r.workload, workload), 0);
    cr_assert_eq(db_run_set(&r.cluster, "c"), 0);
    cr_assert_eq(db_run_set(&r.placer, placer), 0);
    cr_assert_eq(db_run_set(&r.status, "ok"), 0);
    cr_assert_eq(db_run_set(&r.sim_model, "timed"), 0);
    r.n_devices = devices;
    r.step_us = 1000 * devices;
    cr_assert_eq(db_insert_run(db, &r, &ins, NULL), 0, "%s", err_msg());
    db_run_release(&r);
}

static int count_fn(void *ctx, int ncol, const char *const *names, const char *const *vals)
{
    (void)ncol;
    (void)names;
    *(int *)ctx = atoi(vals[0]);
    return 0;
}

Test(filter, check_against_database)
{
    struct db *db;
    struct rfilter f;
    struct rsql scope, q;
    char path[64];
    int n = -1;

    snprintf(path, sizeof(path), "/tmp/baechi-test-filter-%d.db", (int)getpid());
    unlink(path);
    cr_assert_eq(db_open(&db, path, 0), 0);
    cr_assert_eq(db_begin(db), 0);
    add_run(db, "gnmt_v2_b128_fwd", "m-etf", 2);
    add_run(db, "gnmt_v2_b128_fwd", "m-etf", 4);
    add_run(db, "inception", "m-sct", 4);
    cr_assert_eq(db_commit(db), 0);
    rsql_init(&scope);
    cr_assert_eq(rsql_cat(&scope, "FROM runs r WHERE r.sim_model = "), 0);
    cr_assert_eq(rsql_text(&scope, "timed"), 0);
    rfilter_init(&f);
    cr_assert_eq(rfilter_add(&f, "placer=m-eft"), 0);
    cr_assert_eq(rfilter_check(db, &f, &scope), BAECHI_EINVAL);
    cr_assert(strstr(err_msg(), "no run has placer 'm-eft'; did you mean 'm-etf'? (stored: "
                                "m-etf, m-sct)"),
              "%s", err_msg());
    rfilter_release(&f);
    rfilter_init(&f);
    cr_assert_eq(rfilter_add(&f, "devices=3"), 0);
    cr_assert_eq(rfilter_check(db, &f, &scope), BAECHI_EINVAL);
    cr_assert(strstr(err_msg(), "no run has devices '3'"), "%s", err_msg());
    rfilter_release(&f);
    /* a value that exists: checked, then selects */
    rfilter_init(&f);
    cr_assert_eq(rfilter_add(&f, "workload=gnmt_v2_b128_fwd"), 0);
    cr_assert_eq(rfilter_add(&f, "devices>2"), 0);
    cr_assert_eq(rfilter_check(db, &f, &scope), 0, "%s", err_msg());
    rsql_init(&q);
    cr_assert_eq(rsql_cat(&q, "SELECT COUNT(*) "), 0);
    cr_assert_eq(rsql_append(&q, &scope), 0);
    cr_assert_eq(rfilter_sql(&f, &q), 0);
    cr_assert_eq(db_query_params(db, q.sql, q.p, q.np, count_fn, &n), 0, "%s", err_msg());
    cr_assert_eq(n, 1);
    rsql_release(&q);
    rfilter_release(&f);
    rsql_release(&scope);
    db_close(db);
    unlink(path);
}

/* Keys and values past the old buffers (char key[64], char expr[256]):
 * a long key is unknown, not "no key" (issue 34 item 3), and a long value
 * keeps its whole text for the messages. */
Test(filter, long_keys_and_values)
{
    struct rfilter f;
    char expr[400], value[300];

    rfilter_init(&f);
    memset(expr, 'k', 80);
    strcpy(expr + 80, "=1");
    cr_assert_neq(rfilter_add(&f, expr), 0);
    cr_expect(strstr(err_msg(), "unknown key 'kkkk") != NULL, "%s", err_msg());
    memset(value, 'v', sizeof(value) - 1);
    value[sizeof(value) - 1] = '\0';
    cr_assert_eq(rfilter_add_eq(&f, "workload", value), 0, "%s", err_msg());
    cr_assert_eq(f.n, 1);
    cr_expect_eq(strlen(f.c[0].text), strlen("workload=") + strlen(value));
    rfilter_release(&f);
}
