/*
 * db.c - `baechi db schema | query | check` and `baechi report`: the
 * results database from the command line (results/db.h, results/report.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "cli/cmd.h"
#include "cli/commands.h"
#include "core/err.h"
#include "core/escape.h"
#include "results/db.h"
#include "results/filter.h"
#include "results/report.h"

#include <stdio.h>
#include <string.h>

enum {
    DB_OPT_DB = 520,
    DB_OPT_FORMAT,
    DB_OPT_MODEL,
    DB_OPT_SWEEP,
    DB_OPT_WHERE,
    DB_OPT_JSON,
    DB_OPT_HTML
};

#define DB_OPT_ROW                                                                                 \
    {                                                                                              \
        "db", DB_OPT_DB, "F", "the results database (default results.db)"                          \
    }
#define FORMAT_OPT_ROW                                                                             \
    {                                                                                              \
        "format", DB_OPT_FORMAT, "FMT", "table (default), csv, markdown or json"                   \
    }
#define WHERE_OPT_ROW                                                                              \
    {                                                                                              \
        "where", DB_OPT_WHERE, "K=V",                                                              \
            "only runs with K=V[,V...] (or !=, <, <=, >, >=); K: workload, cluster, placer, "      \
            "config, grouper, fusion, devices, memory_fraction, comm_factor, compute_factor, "     \
            "n_ops, batch, seed, sweep, model, status; repeatable"                                 \
    }
#define JSON_OPT_ROW                                                                               \
    {                                                                                              \
        "json", DB_OPT_JSON, NULL, "the same as --format json"                                     \
    }

static const char *const schema_usage[] = {"baechi db schema", NULL};
static const char *const query_usage[] = {
    "baechi db query [--db <F>] [--format table|csv|markdown|json] [--where K=V]... <SQL>", NULL};
static const char *const check_usage[] = {"baechi db check [--db <F>]", NULL};
static const char *const report_usage[] = {
    "baechi report [--db <F>] [--format table|markdown] [--model timed|baechi] [--where K=V]...",
    "baechi report [--db <F>] --format csv|json [--where K=V]...   (one row per run)",
    "baechi report [--db <F>] --html <DIR> [--model timed|baechi] [--where K=V]...   (a static "
    "page: tables, every figure, every run's identity)",
    NULL};

static const struct cmd_opt schema_opts[] = {CMD_OPT_END};
static const struct cmd_opt query_opts[] = {DB_OPT_ROW, FORMAT_OPT_ROW, JSON_OPT_ROW, WHERE_OPT_ROW,
                                            CMD_OPT_END};
static const struct cmd_opt check_opts[] = {DB_OPT_ROW, CMD_OPT_END};
static const struct cmd_opt report_opts[] = {
    DB_OPT_ROW,
    FORMAT_OPT_ROW,
    JSON_OPT_ROW,
    {"model", DB_OPT_MODEL, "M",
     "runs of simulator model M: timed or baechi (default: timed for the tables, both for csv "
     "and json)"},
    WHERE_OPT_ROW,
    {"sweep", DB_OPT_SWEEP, "NAME", "the same as --where sweep=NAME"},
    {"html", DB_OPT_HTML, "DIR",
     "write DIR/index.html: per sweep the tables and every figure (PNG, data as CSV), then "
     "every run with its identity; one static page, no script (created if missing)"},
    CMD_OPT_END,
};

struct db_cli {
    const char *db, *model, *html;
    struct rfilter where;
    enum report_format format;
};

/* Parses the options; returns -1 to go on, else the exit status. */
static int parse(struct cmd_parser *cp, struct db_cli *c)
{
    int o;

    c->db = "results.db";
    c->model = NULL;
    c->html = NULL;
    rfilter_init(&c->where);
    c->format = REPORT_TABLE;
    while ((o = cmd_getopt(cp)) != -1) {
        switch (o) {
        case 'h':
            return EXIT_OK;
        case DB_OPT_DB:
            c->db = cp->optarg;
            break;
        case DB_OPT_FORMAT:
            if (report_format_parse(cp->optarg, &c->format)) {
                return cmd_usage_error(cp, "%s", err_msg());
            }
            break;
        case DB_OPT_MODEL:
            if (strcmp(cp->optarg, "timed") != 0 && strcmp(cp->optarg, "baechi") != 0) {
                return cmd_usage_error(cp, "unknown model '%s' (timed, baechi)", cp->optarg);
            }
            c->model = cp->optarg;
            break;
        case DB_OPT_SWEEP:
            if (rfilter_add_eq(&c->where, "sweep", cp->optarg)) {
                return cmd_usage_error(cp, "%s", err_msg());
            }
            break;
        case DB_OPT_WHERE:
            if (rfilter_add(&c->where, cp->optarg)) {
                return cmd_usage_error(cp, "%s", err_msg());
            }
            break;
        case DB_OPT_JSON:
            c->format = REPORT_JSON;
            break;
        case DB_OPT_HTML:
            c->html = cp->optarg;
            break;
        default:
            return EXIT_BADINPUT;
        }
    }
    return -1;
}

static int db_schema_cmd(int argc, char **argv)
{
    struct cmd_parser cp = {
        .argc = argc, .argv = argv, .cmd = "db schema", .usage = schema_usage, .opts = schema_opts};
    struct db_cli c;
    int r = parse(&cp, &c);

    rfilter_release(&c.where);
    if (r >= 0) {
        return r;
    }
    if (cmd_optind() < argc) {
        return cmd_usage_error(&cp, "unexpected argument '%s'", argv[cmd_optind()]);
    }
    printf("-- PRAGMA user_version = %d\n", DB_SCHEMA_VERSION);
    for (const char *const *q = db_schema_sql(); *q; q++) {
        fputs(*q, stdout);
    }
    return EXIT_OK;
}

static int db_query_cmd(int argc, char **argv)
{
    struct cmd_parser cp = {
        .argc = argc, .argv = argv, .cmd = "db query", .usage = query_usage, .opts = query_opts};
    struct db_cli c;
    struct db *db = NULL;
    int r = parse(&cp, &c), rc;

    if (r >= 0) {
        rfilter_release(&c.where);
        return r;
    }
    if (cmd_optind() != argc - 1) {
        rfilter_release(&c.where);
        return cmd_usage_error(&cp, "needs one SQL statement");
    }
    if ((rc = db_open(&db, c.db, DB_READONLY)) == 0) {
        rc = report_query(db, argv[cmd_optind()], &c.where, c.format, stdout);
    }
    db_close(db);
    rfilter_release(&c.where);
    return rc ? cmd_fail(rc) : EXIT_OK;
}

static int db_check_cmd(int argc, char **argv)
{
    struct cmd_parser cp = {
        .argc = argc, .argv = argv, .cmd = "db check", .usage = check_usage, .opts = check_opts};
    struct db_cli c;
    struct db *db = NULL;
    char buf[256];
    int r = parse(&cp, &c), rc, v = 0;

    rfilter_release(&c.where);
    if (r >= 0) {
        return r;
    }
    if (cmd_optind() < argc) {
        return cmd_usage_error(&cp, "unexpected argument '%s'", argv[cmd_optind()]);
    }
    if ((rc = db_open(&db, c.db, DB_READONLY)) == 0 && (rc = db_schema_version(db, &v)) == 0 &&
        (rc = db_integrity_check(db, buf, sizeof(buf))) == 0) {
        printf("%s: schema version %d, integrity %s\n", escape_tmp(c.db), v, escape_tmp(buf));
        if (strcmp(buf, "ok") != 0) {
            rc = err_set(BAECHI_EIO, "%s: integrity check failed: %s", c.db, buf);
        }
    }
    db_close(db);
    return rc ? cmd_fail(rc) : EXIT_OK;
}

static const struct cmd_struct db_verbs[] = {
    {"schema", db_schema_cmd, "print the database schema (SQL, with comments)"},
    {"query", db_query_cmd, "run one SQL statement, print the rows as a table"},
    {"check", db_check_cmd, "schema version and PRAGMA integrity_check"},
    {NULL, NULL, NULL},
};

int cmd_db(int argc, char **argv)
{
    return cmd_dispatch("db", db_verbs, argc, argv);
}

int cmd_report(int argc, char **argv)
{
    struct cmd_parser cp = {
        .argc = argc, .argv = argv, .cmd = "report", .usage = report_usage, .opts = report_opts};
    struct db_cli c;
    struct report_opts ro;
    struct db *db = NULL;
    int r = parse(&cp, &c), rc;

    if (r >= 0) {
        rfilter_release(&c.where);
        return r;
    }
    if (cmd_optind() < argc) {
        rfilter_release(&c.where);
        return cmd_usage_error(&cp, "unexpected argument '%s'", argv[cmd_optind()]);
    }
    if (c.html && c.format != REPORT_TABLE) {
        rfilter_release(&c.where);
        return cmd_usage_error(&cp, "--html writes a page: it takes no --format or --json");
    }
    ro.model = c.model;
    ro.where = &c.where;
    ro.format = c.format;
    if ((rc = db_open(&db, c.db, DB_READONLY)) == 0) {
        if (c.html) {
            if ((rc = report_html(db, &ro, c.html)) == 0) {
                fprintf(stderr, "baechi: wrote %s/index.html\n", escape_tmp(c.html));
            }
        } else {
            rc = c.format == REPORT_CSV || c.format == REPORT_JSON ? report_runs(db, &ro, stdout)
                                                                   : report_paper(db, &ro, stdout);
        }
    }
    db_close(db);
    rfilter_release(&c.where);
    return rc ? cmd_fail(rc) : EXIT_OK;
}
