/*
 * report.c - table printer and the paper-style tables (report.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "results/report.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"
#include "core/escape.h"
#include "core/json_out.h"
#include "results/filter.h"

#include <ctype.h>

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

int report_format_parse(const char *s, enum report_format *f)
{
    if (strcmp(s, "table") == 0) {
        *f = REPORT_TABLE;
    } else if (strcmp(s, "csv") == 0) {
        *f = REPORT_CSV;
    } else if (strcmp(s, "markdown") == 0 || strcmp(s, "md") == 0) {
        *f = REPORT_MARKDOWN;
    } else if (strcmp(s, "json") == 0) {
        *f = REPORT_JSON;
    } else {
        return err_set(BAECHI_EINVAL, "unknown format '%s' (table, csv, markdown, json)", s);
    }
    return 0;
}

int rtable_init(struct rtable *t, const char *title, int ncol)
{
    memset(t, 0, sizeof(*t));
    t->ncol = ncol;
    if (title && !(t->title = mem_strdup(title))) {
        return BAECHI_ENOMEM;
    }
    return 0;
}

void rtable_release(struct rtable *t)
{
    for (size_t i = 0; i < (size_t)t->nrow * (size_t)t->ncol; i++) {
        free(t->cell[i]);
    }
    free(t->cell);
    free(t->title);
    memset(t, 0, sizeof(*t));
}

int rtable_add(struct rtable *t, const char *const *cells)
{
    size_t base = (size_t)t->nrow * (size_t)t->ncol;

    if (ARRAY_RESERVE(t->cell, t->alloc, base + (size_t)t->ncol)) {
        return BAECHI_ENOMEM;
    }
    /* all NULL first: a failed copy leaves a row that rtable_release frees */
    memset(&t->cell[base], 0, (size_t)t->ncol * sizeof(*t->cell));
    for (int c = 0; c < t->ncol; c++) {
        if (cells[c] && !(t->cell[base + (size_t)c] = mem_strdup(cells[c]))) {
            t->nrow++;
            return BAECHI_ENOMEM;
        }
    }
    t->nrow++;
    return 0;
}

/* Display width of UTF-8 text (code points). */
static int width(const char *s)
{
    int w = 0;
    for (; s && *s; s++) {
        w += ((unsigned char)*s & 0xc0) != 0x80;
    }
    return w;
}

static bool numeric(const char *s)
{
    char *e;
    if (!s || !*s) {
        return false;
    }
    (void)strtod(s, &e);
    return *e == '\0' || *e == 'x' || *e == '%';
}

void report_csv_field(FILE *out, const char *s)
{
    if (s && strpbrk(s, ",\"\n\r")) {
        fputc('"', out);
        for (; *s; s++) {
            if (*s == '"') {
                fputc('"', out);
            }
            fputc(*s, out);
        }
        fputc('"', out);
    } else if (s) {
        fputs(s, out);
    }
}

/*
 * s as a table or Markdown shows it (NULL: as it is, or out of memory when
 * *enomem): control characters escaped (core/escape.h), so that a name
 * cannot break a row or drive the terminal; in Markdown also '|' as "\|",
 * which would split the cell.
 */
static char *display(const char *s, bool md, bool *enomem)
{
    size_t n = s ? strlen(s) : 0;
    char *buf, *md_buf;

    if (!s || (!escape_needed(s) && !(md && strchr(s, '|')))) {
        return NULL;
    }
    /* at most 4 bytes for one (\xNN) */
    if (!(buf = mem_alloc(4 * n + 1))) {
        *enomem = true;
        return NULL;
    }
    escape_name(s, buf, 4 * n + 1);
    if (!md || !strchr(buf, '|')) {
        return buf;
    }
    if (!(md_buf = mem_alloc(2 * strlen(buf) + 1))) {
        free(buf);
        *enomem = true;
        return NULL;
    }
    n = 0;
    for (const char *p = buf; *p; p++) {
        if (*p == '|') {
            md_buf[n++] = '\\';
        }
        md_buf[n++] = *p;
    }
    md_buf[n] = '\0';
    free(buf);
    return md_buf;
}

int rtable_print(const struct rtable *t, enum report_format f, FILE *out)
{
    if (f == REPORT_HTML) {
        return rtable_print_html(t, out);
    }
    size_t ncell = (size_t)t->nrow * (size_t)t->ncol;
    int *w = mem_calloc((size_t)t->ncol + 1, sizeof(int));
    char **shown = mem_calloc(ncell + 1, sizeof(char *)), *title = NULL;
    bool enomem = !w || !shown, md = f == REPORT_MARKDOWN;

    for (size_t i = 0; f != REPORT_CSV && !enomem && i < ncell; i++) {
        shown[i] = display(t->cell[i], md, &enomem);
    }
    if (!enomem && f != REPORT_CSV && t->title) {
        title = display(t->title, false, &enomem);
    }
    if (enomem) {
        for (size_t i = 0; shown && i < ncell; i++) {
            free(shown[i]);
        }
        free(shown);
        free(w);
        return BAECHI_ENOMEM;
    }
    if (t->title && f != REPORT_CSV) {
        fprintf(out, md ? "### %s\n\n" : "%s\n", title ? title : t->title);
    }
    for (int r = 0; r < t->nrow; r++) {
        for (int c = 0; c < t->ncol; c++) {
            size_t i = (size_t)r * (size_t)t->ncol + (size_t)c;
            int x = width(shown[i] ? shown[i] : t->cell[i]);
            w[c] = x > w[c] ? x : w[c];
        }
    }
    for (int r = 0; r < t->nrow; r++) {
        for (int c = 0; c < t->ncol; c++) {
            size_t i = (size_t)r * (size_t)t->ncol + (size_t)c;
            const char *s = shown[i] ? shown[i] : t->cell[i];
            int pad = w[c] - width(s);
            if (f == REPORT_CSV) {
                if (c) {
                    fputc(',', out);
                }
                report_csv_field(out, s);
                continue;
            }
            if (f == REPORT_MARKDOWN) {
                fputs(c ? " | " : "| ", out);
            } else if (c) {
                fputs("  ", out);
            }
            if (r > 0 && numeric(s)) {
                fprintf(out, "%*s%s", pad, "", s);
            } else {
                fprintf(out, "%s%*s", s ? s : "",
                        (f == REPORT_MARKDOWN || c + 1 < t->ncol) ? pad : 0, "");
            }
        }
        fputs(f == REPORT_MARKDOWN ? " |\n" : "\n", out);
        if (r == 0 && f != REPORT_CSV) {
            for (int c = 0; c < t->ncol; c++) {
                if (f == REPORT_MARKDOWN) {
                    fputs(c ? " | " : "| ", out);
                } else if (c) {
                    fputs("  ", out);
                }
                for (int k = 0; k < w[c]; k++) {
                    fputc('-', out);
                }
            }
            fputs(f == REPORT_MARKDOWN ? " |\n" : "\n", out);
        }
    }
    if (f != REPORT_CSV) {
        fputc('\n', out);
    }
    for (size_t i = 0; i < ncell; i++) {
        free(shown[i]);
    }
    free(shown);
    free(title);
    free(w);
    return 0;
}

static int add_query_row(void *ctx, int ncol, const char *const *names, const char *const *vals)
{
    struct rtable *t = ctx;
    int rc;

    if (t->nrow == 0) {
        t->ncol = ncol;
        if ((rc = rtable_add(t, names)) != 0) {
            return rc;
        }
    }
    return rtable_add(t, vals);
}

static int emit_query(struct db *db, const char *sql, const struct db_param *p, int np,
                      enum report_format f, FILE *out, const char *const *empty_cols);

/* Skips blanks and SQL comments. */
static const char *sql_skip(const char *s)
{
    for (;;) {
        while (isspace((unsigned char)*s)) {
            s++;
        }
        if (s[0] == '-' && s[1] == '-') {
            s += strcspn(s, "\n");
        } else if (s[0] == '/' && s[1] == '*' && strstr(s + 2, "*/")) {
            s = strstr(s + 2, "*/") + 2;
        } else {
            return s;
        }
    }
}

int report_query(struct db *db, const char *sql, const struct rfilter *where, enum report_format f,
                 FILE *out)
{
    struct rtable t;
    struct rsql q, base;
    int rc = 0;

    rsql_init(&q);
    rsql_init(&base);
    if (where && where->n) {
        /* the statement sees only the selected runs: a CTE named runs shadows the table */
        const char *s = sql_skip(sql);
        bool with = strncasecmp(s, "with", 4) == 0 && !isalnum((unsigned char)s[4]);
        bool rec = false;
        if (with) {
            s = sql_skip(s + 4);
            rec = strncasecmp(s, "recursive", 9) == 0 && !isalnum((unsigned char)s[9]);
            s = rec ? s + 9 : s;
        }
        CHECK(rsql_cat(&base, "FROM main.runs r WHERE 1 = 1"));
        CHECK(rfilter_check(db, where, &base));
        CHECK(rsql_cat(&q, "WITH %sruns AS (SELECT r.* ", rec ? "RECURSIVE " : ""));
        CHECK(rsql_append(&q, &base));
        CHECK(rfilter_sql(where, &q));
        CHECK(rsql_cat(&q, ")%s %s", with ? "," : "", with ? s : sql));
    } else {
        CHECK(rsql_cat(&q, "%s", sql));
    }
    if (f == REPORT_JSON || f == REPORT_CSV) {
        CHECK(emit_query(db, q.sql, q.p, q.np, f, out, NULL));
        goto cleanup;
    }
    CHECK(rtable_init(&t, NULL, 0));
    rc = db_query_params(db, q.sql, q.p, q.np, add_query_row, &t);
    if (!rc && t.nrow > 0) {
        rc = rtable_print(&t, f, out);
    }
    rtable_release(&t);
cleanup:
    rsql_release(&q);
    rsql_release(&base);
    return rc;
}

/* ------------------------------------------------------------ paper tables */

/* One cell of the workload x placer matrix. */
struct cell {
    double step_us, placement_ms, peak_bytes;
    char status[32];
    bool have;
};

struct matrix {
    char **row, **col; /* workloads, placer labels */
    int nrow, ncol;
    struct {
        int r, k;
        struct cell v;
    } * ent;
    int nent;
    size_t alloc_ent, alloc_row, alloc_col;
};

static int find_or_add(char ***list, int *n, size_t *alloc, const char *s)
{
    for (int i = 0; i < *n; i++) {
        if (strcmp((*list)[i], s) == 0) {
            return i;
        }
    }
    if (ARRAY_RESERVE(*list, *alloc, (size_t)*n + 1) || !((*list)[*n] = mem_strdup(s))) {
        return -1;
    }
    return (*n)++;
}

static void matrix_release(struct matrix *m)
{
    for (int i = 0; i < m->nrow; i++) {
        free(m->row[i]);
    }
    for (int i = 0; i < m->ncol; i++) {
        free(m->col[i]);
    }
    free(m->row);
    free(m->col);
    free(m->ent);
    memset(m, 0, sizeof(*m));
}

static const struct cell *matrix_get(const struct matrix *m, int r, int k)
{
    for (int i = 0; i < m->nent; i++) {
        if (m->ent[i].r == r && m->ent[i].k == k) {
            return &m->ent[i].v;
        }
    }
    return NULL;
}

static double num(const char *s)
{
    return s ? strtod(s, NULL) : NAN;
}

/* Columns: row key, column key, step_us, placement_ms, peak_bytes, statuses. */
static int matrix_row(void *ctx, int ncol, const char *const *names, const char *const *v)
{
    struct matrix *m = ctx;
    int r, k;

    (void)names;
    (void)ncol;
    r = find_or_add(&m->row, &m->nrow, &m->alloc_row, v[0] ? v[0] : "?");
    k = find_or_add(&m->col, &m->ncol, &m->alloc_col, v[1] ? v[1] : "?");
    if (r < 0 || k < 0 || ARRAY_RESERVE(m->ent, m->alloc_ent, (size_t)m->nent + 1)) {
        return BAECHI_ENOMEM;
    }
    m->ent[m->nent].r = r;
    m->ent[m->nent].k = k;
    m->ent[m->nent].v.step_us = num(v[2]);
    m->ent[m->nent].v.placement_ms = num(v[3]);
    m->ent[m->nent].v.peak_bytes = num(v[4]);
    snprintf(m->ent[m->nent].v.status, sizeof(m->ent[m->nent].v.status), "%s", v[5] ? v[5] : "");
    m->ent[m->nent].v.have = true;
    m->nent++;
    return 0;
}

static int add_column(void *ctx, int ncol, const char *const *names, const char *const *v)
{
    struct matrix *m = ctx;

    (void)ncol;
    (void)names;
    return find_or_add(&m->col, &m->ncol, &m->alloc_col, v[0] ? v[0] : "?") < 0 ? BAECHI_ENOMEM : 0;
}

enum what { W_STEP, W_NORM_SINGLE, W_NORM_EXPERT, W_PLACE, W_PEAK };

/* Splits a row key "a\tb\tc" into up to nkey cells (pointers into copy). */
static void split_key(char *copy, const char **cells, int nkey)
{
    for (int i = 0; i < nkey; i++) {
        char *tab = copy ? strchr(copy, '\t') : NULL;
        cells[i] = copy;
        if (tab) {
            *tab = '\0';
            copy = tab + 1;
        } else {
            copy = NULL;
        }
    }
}

static int print_matrix(const struct matrix *m, enum what w, const char *title,
                        const char *const *keys, int nkey, enum report_format f, FILE *out)
{
    struct rtable t;
    const char **cells = mem_calloc((size_t)m->ncol + (size_t)nkey + 1, sizeof(char *));
    char(*buf)[48] = mem_calloc((size_t)m->ncol + 1, sizeof(*buf));
    char *key = NULL;
    int rc = 0, ref = -1;
    bool any = false;

    if (!cells || !buf) {
        free(cells);
        free(buf);
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    if (w == W_NORM_SINGLE || w == W_NORM_EXPERT) {
        for (int k = 0; k < m->ncol; k++) {
            if (strcmp(m->col[k], w == W_NORM_SINGLE ? "single" : "expert") == 0) {
                ref = k;
            }
        }
        if (ref < 0) {
            goto cleanup;
        }
    }
    CHECK(rtable_init(&t, title, m->ncol + nkey));
    for (int k = 0; k < nkey; k++) {
        cells[k] = keys[k];
    }
    for (int k = 0; k < m->ncol; k++) {
        cells[k + nkey] = m->col[k];
    }
    rc = rtable_add(&t, cells);
    for (int r = 0; !rc && r < m->nrow; r++) {
        const struct cell *rc_ = ref >= 0 ? matrix_get(m, r, ref) : NULL;
        double base = rc_ && strstr(rc_->status, "ok") ? rc_->step_us : NAN;
        free(key);
        if (!(key = mem_strdup(m->row[r]))) {
            rc = err_set(BAECHI_ENOMEM, "out of memory");
            break;
        }
        split_key(key, cells, nkey);
        for (int k = 0; k < m->ncol; k++) {
            const struct cell *c = matrix_get(m, r, k);
            bool ran = c && (strstr(c->status, "ok") || strstr(c->status, "oom"));
            cells[k + nkey] = buf[k];
            buf[k][0] = '\0';
            if (!c) {
                continue;
            }
            if (w == W_PLACE && !isnan(c->placement_ms)) {
                snprintf(buf[k], sizeof(buf[k]), "%.3f", c->placement_ms);
            } else if (w == W_PLACE) {
                snprintf(buf[k], sizeof(buf[k]), "-");
            } else if (!ran) {
                snprintf(buf[k], sizeof(buf[k]), "%s", c->status);
            } else if (w == W_STEP) {
                snprintf(buf[k], sizeof(buf[k]), "%.3f%s", c->step_us / 1000.0,
                         strstr(c->status, "oom") ? " (oom)" : "");
            } else if (w == W_PEAK) {
                snprintf(buf[k], sizeof(buf[k]), "%.3f%s", c->peak_bytes / (1024.0 * 1024 * 1024),
                         strstr(c->status, "oom") ? " (oom)" : "");
            } else if (!isnan(base) && base > 0) {
                snprintf(buf[k], sizeof(buf[k]), "%.3f", c->step_us / base);
            } else {
                snprintf(buf[k], sizeof(buf[k]), "-");
            }
            any = true;
        }
        rc = rtable_add(&t, cells);
    }
    if (!rc && any) {
        rc = rtable_print(&t, f, out);
    }
    rtable_release(&t);
cleanup:
    free(key);
    free(cells);
    free(buf);
    return rc;
}

/* The runs a report shows: the model (unless NULL), then --where. */
static int report_scope(struct db *db, const struct report_opts *o, const char *model,
                        struct rsql *from)
{
    struct rsql base;
    int rc = 0;

    rsql_init(&base);
    CHECK(rsql_cat(&base, "FROM runs r WHERE 1 = 1"));
    if (model) {
        CHECK(rsql_cat(&base, " AND r.sim_model = "));
        CHECK(rsql_text(&base, model));
    }
    CHECK(rfilter_check(db, o->where, &base));
    CHECK(rsql_append(from, &base));
    CHECK(rfilter_sql(o->where, from));
cleanup:
    rsql_release(&base);
    return rc;
}

static int count_rows(void *ctx, int ncol, const char *const *names, const char *const *vals)
{
    (void)ncol;
    (void)names;
    (void)vals;
    (*(int *)ctx)++;
    return 0;
}

int report_paper(struct db *db, const struct report_opts *o, FILE *out)
{
    static const char *const dims[] = {
        "workload", "cluster", "devices", "memory_fraction", "comm_factor", "compute_factor", NULL};
    /* the tables show one model: --model, or the one --where names, or timed */
    const struct rcond *mc = rfilter_get(o->where, "model");
    const char *model = o->model                                          ? o->model
                        : mc && strcmp(mc->op, "=") == 0 && mc->nval == 1 ? mc->val[0]
                                                                          : "timed";
    const char *keys[8];
    struct matrix m;
    struct rsql from, q;
    char title[400], key_sql[4096] = "";
    int rc = 0, nkey = 0;

    memset(&m, 0, sizeof(m));
    rsql_init(&from);
    rsql_init(&q);
    CHECK(report_scope(db, o, model, &from));
    /* a row per value of every swept dimension that varies: nothing is averaged but repeats */
    for (int i = 0; dims[i]; i++) {
        const struct rdim *d = rdim_find(dims[i]);
        struct rsql c;
        int n = 0;
        rsql_init(&c);
        if (!(rc = rsql_cat(&c, "SELECT DISTINCT %s ", d->sql)) && !(rc = rsql_append(&c, &from))) {
            rc = db_query_params(db, c.sql, c.p, c.np, count_rows, &n);
        }
        rsql_release(&c);
        if (rc) {
            goto cleanup;
        }
        if (n > 1 || i == 0) {
            size_t len = strlen(key_sql);
            if (d->kind == 'r') {
                snprintf(key_sql + len, sizeof(key_sql) - len, "%sprintf('%%g', %s)",
                         nkey ? " || char(9) || " : "", d->sql);
            } else {
                /* a tab inside a name as \t (as the table shows it): the tab
                 * separates the keys */
                snprintf(key_sql + len, sizeof(key_sql) - len,
                         "%sreplace(coalesce(%s, ''), char(9), '\\t')",
                         nkey ? " || char(9) || " : "", d->sql);
            }
            keys[nkey++] = d->name;
        }
    }
    CHECK(rsql_cat(&q,
                   "SELECT %s, " RESULTS_CONFIG_SQL
                   ", AVG(CASE WHEN r.status IN ('ok','oom') THEN r.step_us END), "
                   "AVG(r.placement_ms), MAX(r.max_peak_bytes), group_concat(DISTINCT r.status) ",
                   key_sql));
    CHECK(rsql_append(&q, &from));
    /* workloads in the order they were run; within one, the dimensions in order */
    CHECK(rsql_cat(&q, " GROUP BY 1, 2 ORDER BY (SELECT MIN(q.id) FROM runs q WHERE q.workload = "
                       "r.workload), r.cluster, r.n_devices, r.memory_fraction DESC, "
                       "r.comm_factor, r.compute_factor, MIN(r.id)"));
    {
        /* columns: the placer configurations in the order they were run */
        struct rsql c;
        rsql_init(&c);
        if (!(rc = rsql_cat(&c, "SELECT " RESULTS_CONFIG_SQL " ")) &&
            !(rc = rsql_append(&c, &from)) &&
            !(rc = rsql_cat(&c, " GROUP BY 1 ORDER BY " RESULTS_CONFIG_ORDER_SQL))) {
            rc = db_query_params(db, c.sql, c.p, c.np, add_column, &m);
        }
        rsql_release(&c);
        if (rc) {
            goto cleanup;
        }
    }
    CHECK(db_query_params(db, q.sql, q.p, q.np, matrix_row, &m));
    CHECK(results_note_collisions(db, &from));
    if (m.nrow == 0) {
        fprintf(out, "no runs with the %s simulator model%s\n", escape_tmp(model),
                o->where && o->where->n ? " match the --where conditions" : "");
        goto cleanup;
    }
    snprintf(title, sizeof(title),
             "Step time (ms), %s simulator: a row per %s%s%s (oom: ran out of memory)", model,
             nkey > 1 ? "value of every swept dimension that varies (" : "workload",
             nkey > 1 ? "workload" : "", nkey > 1 ? ", ...)" : "");
    CHECK(print_matrix(&m, W_STEP, title, keys, nkey, o->format, out));
    CHECK(print_matrix(&m, W_NORM_SINGLE, "Step time normalised to single-GPU (x)", keys, nkey,
                       o->format, out));
    CHECK(print_matrix(&m, W_NORM_EXPERT, "Step time normalised to expert (x)", keys, nkey,
                       o->format, out));
    CHECK(print_matrix(&m, W_PLACE, "Placement time (ms)", keys, nkey, o->format, out));
    CHECK(
        print_matrix(&m, W_PEAK, "Peak memory, largest device (GiB)", keys, nkey, o->format, out));
cleanup:
    matrix_release(&m);
    rsql_release(&from);
    rsql_release(&q);
    return rc;
}

/* ------------------------------------------------------------ tidy tables */

struct emit {
    enum report_format f;
    FILE *out;
    int nrow;
    bool header; /* the column names of an empty result were written */
};

static void json_value(FILE *out, const char *name, const char *v, int type)
{
    if (!v || type == DB_VALUE_NULL) {
        fputs("null", out);
    } else if (strcmp(name, "fusion") == 0 && type == DB_VALUE_INT) {
        fputs(strcmp(v, "0") ? "true" : "false", out);
    } else if (type == DB_VALUE_INT || type == DB_VALUE_REAL) {
        double d = strtod(v, NULL);
        if (isfinite(d)) {
            fputs(v, out);
        } else {
            fputs("null", out);
        }
    } else {
        json_out_str(out, v);
    }
}

static int emit_row(void *ctx, int ncol, const char *const *names, const char *const *vals,
                    const int *types)
{
    struct emit *e = ctx;
    bool header_only = vals == NULL;

    if (e->f == REPORT_JSON) {
        if (e->nrow == 0) {
            fputs("{\"columns\": [", e->out);
            for (int c = 0; c < ncol; c++) {
                fputs(c ? ", " : "", e->out);
                json_out_str(e->out, names[c]);
            }
            fputs("],\n \"rows\": [", e->out);
            if (header_only) {
                e->header = true;
                return 0;
            }
            fputc('\n', e->out);
        }
        fputs(e->nrow ? ",\n  {" : "  {", e->out);
        for (int c = 0; c < ncol; c++) {
            fputs(c ? ", " : "", e->out);
            json_out_str(e->out, names[c]);
            fputs(": ", e->out);
            json_value(e->out, names[c], vals[c], types[c]);
        }
        fputc('}', e->out);
    } else {
        if (e->nrow == 0) {
            for (int c = 0; c < ncol; c++) {
                if (c) {
                    fputc(',', e->out);
                }
                report_csv_field(e->out, names[c]);
            }
            fputc('\n', e->out);
            if (header_only) {
                e->header = true;
                return 0;
            }
        }
        for (int c = 0; c < ncol; c++) {
            if (c) {
                fputc(',', e->out);
            }
            report_csv_field(e->out, vals[c]);
        }
        fputc('\n', e->out);
    }
    e->nrow++;
    return 0;
}

/* JSON or CSV of a query's rows; with no rows, the column names alone. */
static int emit_query(struct db *db, const char *sql, const struct db_param *p, int np,
                      enum report_format f, FILE *out, const char *const *empty_cols)
{
    struct emit e = {.f = f, .out = out, .nrow = 0};
    int rc = db_query_typed(db, sql, p, np, emit_row, &e);

    if (rc) {
        return rc;
    }
    if (e.nrow == 0 && e.header) {
        /* the columns came from the statement */
    } else if (e.nrow == 0 && f == REPORT_JSON) {
        fputs("{\"columns\": [", out);
        for (int c = 0; empty_cols && empty_cols[c]; c++) {
            fputs(c ? ", " : "", out);
            json_out_str(out, empty_cols[c]);
        }
        fputs("],\n \"rows\": [", out);
    } else if (e.nrow == 0) {
        for (int c = 0; empty_cols && empty_cols[c]; c++) {
            fprintf(out, "%s%s", c ? "," : "", empty_cols[c]);
        }
        if (empty_cols && empty_cols[0]) {
            fputc('\n', out);
        }
    }
    if (f == REPORT_JSON) {
        fputs("\n]}\n", out);
    }
    return 0;
}

/* The columns of the tidy table: one row per run (docs/results.md). */
#define TIDY_COLUMNS(X)                                                                            \
    X("id", "r.id")                                                                                \
    X("sweep", "r.sweep")                                                                          \
    X("workload", "r.workload")                                                                    \
    X("cluster", "r.cluster")                                                                      \
    X("devices", "r.n_devices")                                                                    \
    X("placer", "r.placer")                                                                        \
    X("grouper", "r.grouper")                                                                      \
    X("fusion", "r.fusion")                                                                        \
    X("config", RESULTS_CONFIG_SQL)                                                                \
    X("memory_fraction", "r.memory_fraction")                                                      \
    X("comm_factor", "r.comm_factor")                                                              \
    X("compute_factor", "r.compute_factor")                                                        \
    X("seed", "r.seed")                                                                            \
    X("repeat", "r.repeat")                                                                        \
    X("model", "r.sim_model")                                                                      \
    X("n_ops", "r.n_ops")                                                                          \
    X("status", "r.status")                                                                        \
    X("step_us", "r.step_us")                                                                      \
    X("lower_bound_us", "r.lower_bound_us")                                                        \
    X("bound_ratio", "CAST(r.step_us AS REAL) / NULLIF(r.lower_bound_us, 0)")                      \
    X("estimate_us", "r.estimate_us")                                                              \
    X("placement_ms", "r.placement_ms")                                                            \
    X("algorithm_ms", "r.algorithm_ms")                                                            \
    X("max_peak_bytes", "r.max_peak_bytes")                                                        \
    X("n_oom_devices", "r.n_oom_devices")                                                          \
    X("message", "r.message")                                                                      \
    X("workload_hash", "r.workload_hash")                                                          \
    X("cluster_hash", "r.cluster_hash")

#define TIDY_NAME_(n, e)   n,
#define TIDY_SELECT_(n, e) ", " e " AS " n

const char *const *report_tidy_columns(void)
{
    static const char *const cols[] = {TIDY_COLUMNS(TIDY_NAME_) NULL};
    return cols;
}

int report_runs(struct db *db, const struct report_opts *o, FILE *out)
{
    struct rsql q, from;
    int rc = 0;

    rsql_init(&q);
    rsql_init(&from);
    CHECK(report_scope(db, o, o->model, &from));
    /* [2]: past the first ", " of the column list */
    CHECK(rsql_cat(&q, "SELECT %s ", &(TIDY_COLUMNS(TIDY_SELECT_))[2]));
    CHECK(rsql_append(&q, &from));
    CHECK(rsql_cat(&q, " ORDER BY r.id"));
    CHECK(emit_query(db, q.sql, q.p, q.np, o->format, out, report_tidy_columns()));
cleanup:
    rsql_release(&q);
    rsql_release(&from);
    return rc;
}
