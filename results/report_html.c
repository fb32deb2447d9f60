/*
 * report_html.c - `baechi report --html DIR` (report.h): one static page of
 * a results database.  For each sweep: the paper-style tables, then every
 * figure that applies, each with its data; then every run, its identity
 * (hashes, specs, options, version) in a <details> element.  No script and
 * nothing from the network: the page works from a file:// URL, offline, as
 * it was written.  Every string that comes from the database is escaped.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "results/report.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"
#include "core/strbuf.h"
#include "core/file_out.h"
#include "core/version.h"
#include "results/plot.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Names from a query's first column (sweeps, workloads), in its order. */
struct names {
    char **v;
    int n;
    size_t alloc;
};

static void names_release(struct names *l)
{
    for (int i = 0; i < l->n; i++) {
        free(l->v[i]);
    }
    free(l->v);
    memset(l, 0, sizeof(*l));
}

/* db_row_fn: appends the row's first column (NULL as ""). */
static int names_add(void *ctx, int ncol, const char *const *cols, const char *const *vals)
{
    struct names *l = ctx;
    char *s;

    (void)ncol;
    (void)cols;
    if (ARRAY_RESERVE(l->v, l->alloc, (size_t)l->n + 1) ||
        !(s = mem_strdup(vals[0] ? vals[0] : ""))) {
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    l->v[l->n++] = s;
    return 0;
}

/* What the page is built from: the database, the user's conditions and
 * the directory written. */
struct html {
    struct db *db;
    const struct report_opts *o;
    const char *dir;
    struct names sweeps; /* the sweeps' names, in the order first stored */
    int64_t n_unswept;   /* runs of `baechi run --db`: no sweep */
    bool no_gnuplot;     /* said once: the figures are left out */
};

void report_html_text(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", out);
            break;
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        case '\'':
            fputs("&#39;", out);
            break;
        default:
            /* control characters: shown, never interpreted */
            if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t') {
                fprintf(out, "\\x%02x", (unsigned char)*s);
            } else {
                fputc(*s, out);
            }
        }
    }
}

int rtable_print_html(const struct rtable *t, FILE *out)
{
    if (t->title) {
        fputs("<h4>", out);
        report_html_text(out, t->title);
        fputs("</h4>\n", out);
    }
    fputs("<table>\n", out);
    for (int r = 0; r < t->nrow; r++) {
        fputs("<tr>", out);
        for (int c = 0; c < t->ncol; c++) {
            const char *s = t->cell[(size_t)r * (size_t)t->ncol + (size_t)c];

            char *end = NULL;

            if (r > 0 && s && *s) {
                (void)strtod(s, &end);
            }
            /* numbers right-aligned (the stylesheet's default), names left */
            fputs(r == 0 ? "<th>" : end && *end == '\0' ? "<td>" : "<td class=t>", out);
            report_html_text(out, s);
            fputs(r == 0 ? "</th>" : "</td>", out);
        }
        fputs("</tr>\n", out);
    }
    fputs("</table>\n", out);
    return ferror(out) ? err_set(BAECHI_EIO, "error writing the HTML report") : 0;
}

/* db_row_fn: the count of runs without a sweep. */
static int set_unswept(void *ctx, int ncol, const char *const *cols, const char *const *vals)
{
    (void)ncol;
    (void)cols;
    *(int64_t *)ctx = vals[0] ? strtoll(vals[0], NULL, 10) : 0;
    return 0;
}

/* base's conditions and key = value (a new filter: release it). */
static int filter_with(const struct rfilter *base, const char *key, const char *value,
                       struct rfilter *f)
{
    int rc = 0;

    rfilter_init(f);
    for (int i = 0; !rc && base && i < base->n; i++) {
        rc = rfilter_add(f, base->c[i].text);
    }
    return rc ? rc : rfilter_add_eq(f, key, value);
}

/* One figure into the page: drawn into DIR, or a note saying why not. */
static int figure(struct html *h, FILE *out, struct plot_opts *po, const char *file,
                  const char *caption)
{
    char png[4096], csv[4096];
    int rc;

    snprintf(png, sizeof(png), "%s/%s.png", h->dir, file);
    snprintf(csv, sizeof(csv), "%s/%s.csv", h->dir, file);
    po->out = h->no_gnuplot ? NULL : png;
    po->csv = csv;
    po->script = NULL;
    err_clear();
    rc = plot_make(h->db, po);
    if (rc == BAECHI_ENOMEM) {
        return rc;
    }
    if (rc == BAECHI_EUNSUPPORTED && !h->no_gnuplot) {
        /* no gnuplot: say so once, keep the data */
        h->no_gnuplot = true;
        fputs("<p class=note>gnuplot was not found when this page was written: the figures are "
              "left out, their data is linked.</p>\n",
              out);
        po->out = NULL;
        err_clear();
        rc = plot_make(h->db, po);
    }
    fputs("<figure>", out);
    if (rc == 0 && !h->no_gnuplot) {
        fprintf(out, "<img src=\"%s.png\" alt=\"", file);
        report_html_text(out, caption);
        fputs("\">", out);
    }
    fputs("<figcaption>", out);
    report_html_text(out, caption);
    if (rc == 0) {
        fprintf(out, " (<a href=\"%s.csv\">data</a>)", file);
    } else {
        fputs(": not drawn: ", out);
        report_html_text(out, err_msg());
    }
    fputs("</figcaption></figure>\n", out);
    return 0;
}

/* The workloads of a sweep stored at more than one memory fraction: a
 * step-vs-fraction figure each. */
static int memory_figures(struct html *h, FILE *out, const struct rfilter *f, int k)
{
    struct names wl = {0};
    struct rsql q;
    int rc;

    rsql_init(&q);
    CHECK(rsql_cat(&q, "SELECT " RESULTS_WORKLOAD_SQL " FROM runs r WHERE 1"));
    CHECK(rfilter_sql(f, &q));
    CHECK(rsql_cat(&q, " GROUP BY 1 HAVING COUNT(DISTINCT r.memory_fraction) > 1 "
                       "ORDER BY MIN(r.id)"));
    CHECK(db_query_params(h->db, q.sql, q.p, q.np, names_add, &wl));
    for (int i = 0; i < wl.n; i++) {
        struct plot_opts po = {.kind = "memory", .model = h->o->model};
        struct rfilter fw;
        char file[64], cap[512];

        snprintf(file, sizeof(file), "s%d-memory-%d", k, i);
        snprintf(cap, sizeof(cap), "memory: %s, %s", wl.v[i], plot_kind_summary("memory"));
        po.where = &fw;
        if (!(rc = filter_with(f, "workload", wl.v[i], &fw))) {
            rc = figure(h, out, &po, file, cap);
        }
        rfilter_release(&fw);
        CHECK(rc);
    }
cleanup:
    names_release(&wl);
    rsql_release(&q);
    return rc;
}

/* A sweep's section: tables, then figures. */
static int sweep_section(struct html *h, FILE *out, int k)
{
    static const char *const kinds[] = {"step", "placement-time", "peak", "gantt"};
    struct rfilter f;
    struct report_opts ro = *h->o;
    int rc;

    CHECK(filter_with(h->o->where, "sweep", h->sweeps.v[k], &f));
    fprintf(out, "<section id=\"sweep-%d\">\n<h2>Sweep ", k);
    report_html_text(out, h->sweeps.v[k]);
    fputs("</h2>\n", out);
    ro.where = &f;
    ro.format = REPORT_HTML;
    CHECK(report_paper(h->db, &ro, out));
    fputs("<h3>Figures</h3>\n", out);
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        struct plot_opts po = {.kind = kinds[i], .where = &f, .model = h->o->model};
        char file[64], cap[256];

        snprintf(file, sizeof(file), "s%d-%s", k, kinds[i]);
        snprintf(cap, sizeof(cap), "%s: %s", kinds[i], plot_kind_summary(kinds[i]));
        CHECK(figure(h, out, &po, file, cap));
    }
    CHECK(memory_figures(h, out, &f, k));
    fputs("</section>\n", out);
cleanup:
    rfilter_release(&f);
    return rc;
}

/* Runs, one row each, the identity one click away. */
static int run_row(void *ctx, int ncol, const char *const *names, const char *const *vals)
{
    FILE *out = ctx;

    fputs("<tr>", out);
    for (int c = 0; c < 10 && c < ncol; c++) {
        fputs("<td>", out);
        if (c == 0) {
            fprintf(out, "<details id=\"run-%s\"><summary>", vals[0] ? vals[0] : "");
        }
        report_html_text(out, vals[c] ? vals[c] : "");
        if (c == 0) {
            fputs("</summary><dl>", out);
            for (int d = 10; d < ncol; d++) {
                fputs("<dt>", out);
                report_html_text(out, names[d]);
                fputs("</dt><dd>", out);
                report_html_text(out, vals[d] ? vals[d] : "-");
                fputs("</dd>", out);
            }
            fputs("</dl></details>", out);
        }
        fputs("</td>", out);
    }
    fputs("</tr>\n", out);
    return ferror(out) ? err_set(BAECHI_EIO, "error writing the HTML report") : 0;
}

static int runs_section(struct html *h, FILE *out)
{
    struct rsql q;
    int rc;

    rsql_init(&q);
    fputs("<section id=\"runs\">\n<h2>Runs</h2>\n<p>Each run's identity (the workload's and "
          "the cluster's content hashes and specs, every option, the program's version) opens "
          "under its id.</p>\n<table>\n<tr><th>id</th><th>sweep</th><th>workload</th>"
          "<th>cluster</th><th>devices</th><th>configuration</th><th>memory fraction</th>"
          "<th>model</th><th>status</th><th>step (ms)</th></tr>\n",
          out);
    CHECK(rsql_cat(&q, "SELECT r.id, r.sweep, " RESULTS_WORKLOAD_SQL ", " RESULTS_CLUSTER_SQL
                       ", r.n_devices, " RESULTS_CONFIG_SQL ", r.memory_fraction, r.sim_model, "
                       "r.status, printf('%%.3f', r.step_us / 1000.0), r.workload_spec AS "
                       "\"workload spec\", r.workload_hash AS \"workload hash\", r.cluster_spec AS "
                       "\"cluster spec\", r.cluster_hash AS \"cluster hash\", r.options, r.seed, "
                       "r.repeat, r.message, r.max_peak_bytes AS \"largest peak (bytes)\", "
                       "r.placement_ms AS \"placement (ms)\", r.tool_version AS \"version\", "
                       "r.time, r.host FROM runs r WHERE 1"));
    CHECK(rfilter_sql(h->o->where, &q));
    if (h->o->model) {
        CHECK(rsql_cat(&q, " AND r.sim_model = "));
        CHECK(rsql_text(&q, h->o->model));
    }
    CHECK(rsql_cat(&q, " ORDER BY r.id"));
    CHECK(db_query_params(h->db, q.sql, q.p, q.np, run_row, out));
    fputs("</table>\n</section>\n", out);
cleanup:
    rsql_release(&q);
    return rc;
}

static int write_page(FILE *out, void *ctx)
{
    struct html *h = ctx;
    int rc = 0;

    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", out);
    fputs("baechi results: ", out);
    report_html_text(out, db_path(h->db));
    fputs("</title>\n<style>\nbody{font-family:sans-serif;margin:2em;max-width:80em}\n"
          "table{border-collapse:collapse;margin:0.5em 0 1.5em}\n"
          "td,th{border:1px solid #ccc;padding:0.2em 0.5em;text-align:right}\n"
          "th{background:#eee}\ntd.t{text-align:left}\nfigure{margin:1em 0}\nimg{max-width:100%}\n"
          ".note{color:#a60}\ndl{text-align:left;margin:0.3em 0}\ndt{font-weight:bold}\n"
          "</style>\n</head>\n<body>\n<h1>baechi results: ",
          out);
    report_html_text(out, db_path(h->db));
    fprintf(out,
            "</h1>\n<p>Written by baechi %s (<code>baechi report --html</code>). Tables and "
            "figures of the %s simulator model; each sweep in its own section.</p>\n<ul>\n",
            BAECHI_VERSION, h->o->model ? h->o->model : "timed");
    for (int k = 0; k < h->sweeps.n; k++) {
        fprintf(out, "<li><a href=\"#sweep-%d\">sweep ", k);
        report_html_text(out, h->sweeps.v[k]);
        fputs("</a></li>\n", out);
    }
    fputs("<li><a href=\"#runs\">every run, with its identity</a></li>\n</ul>\n", out);
    if (h->n_unswept > 0) {
        fprintf(out,
                "<p>%lld runs stored by <code>baechi run --db</code> belong to no sweep: they "
                "are listed under Runs, not tabulated.</p>\n",
                (long long)h->n_unswept);
    }
    for (int k = 0; !rc && k < h->sweeps.n; k++) {
        rc = sweep_section(h, out, k);
    }
    if (!rc) {
        rc = runs_section(h, out);
    }
    fputs("</body>\n</html>\n", out);
    return rc;
}

int report_html(struct db *db, const struct report_opts *o, const char *dir)
{
    struct html h = {.db = db, .o = o, .dir = dir};
    struct rsql q;
    struct stat sb;
    struct strbuf path = STRBUF_INIT;
    int rc;

    rsql_init(&q);

    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        rc = err_set(BAECHI_EIO, "cannot create directory '%s': %s", dir, strerror(errno));
        goto cleanup;
    }
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        rc = err_set(BAECHI_EINVAL, "--html '%s': exists and is not a directory", dir);
        goto cleanup;
    }
    CHECK(strbuf_addf(&path, "%s/index.html", dir)); /* a directory of any length */
    CHECK(rsql_cat(&q, "SELECT r.sweep FROM runs r WHERE r.sweep IS NOT NULL"));
    CHECK(rfilter_sql(o->where, &q));
    CHECK(rsql_cat(&q, " GROUP BY r.sweep ORDER BY MIN(r.id)"));
    CHECK(db_query_params(db, q.sql, q.p, q.np, names_add, &h.sweeps));
    rsql_release(&q);
    rsql_init(&q);
    CHECK(rsql_cat(&q, "SELECT COUNT(*) FROM runs r WHERE r.sweep IS NULL"));
    CHECK(rfilter_sql(o->where, &q));
    CHECK(db_query_params(db, q.sql, q.p, q.np, set_unswept, &h.n_unswept));
    if (h.sweeps.n == 0 && h.n_unswept == 0) {
        rc = err_set(BAECHI_EINVAL, "%s: no runs%s", db_path(db),
                     o->where && o->where->n ? " match the --where conditions" : "");
        goto cleanup;
    }
    CHECK(file_write_atomic(path.buf, write_page, &h));
cleanup:
    names_release(&h.sweeps);
    rsql_release(&q);
    strbuf_release(&path);
    return rc;
}
