/*
 * report.c - table printer and the paper-style tables (report.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "results/report.h"

#include "core/array.h"
#include "core/err.h"

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
    } else {
        return err_set(BAECHI_EINVAL, "unknown format '%s' (table, csv, markdown)", s);
    }
    return 0;
}

int rtable_init(struct rtable *t, const char *title, int ncol)
{
    memset(t, 0, sizeof(*t));
    t->ncol = ncol;
    if (title && !(t->title = array_strdup(title))) {
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
    for (int c = 0; c < t->ncol; c++) {
        t->cell[base + (size_t)c] = NULL;
        if (cells[c] && !(t->cell[base + (size_t)c] = array_strdup(cells[c]))) {
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

static void csv_cell(const char *s, FILE *out)
{
    if (s && strpbrk(s, ",\"\n")) {
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

void rtable_print(const struct rtable *t, enum report_format f, FILE *out)
{
    int *w = calloc((size_t)t->ncol + 1, sizeof(int));

    if (!w) {
        return;
    }
    if (t->title && f != REPORT_CSV) {
        fprintf(out, f == REPORT_MARKDOWN ? "### %s\n\n" : "%s\n", t->title);
    }
    for (int r = 0; r < t->nrow; r++) {
        for (int c = 0; c < t->ncol; c++) {
            int x = width(t->cell[(size_t)r * (size_t)t->ncol + (size_t)c]);
            w[c] = x > w[c] ? x : w[c];
        }
    }
    for (int r = 0; r < t->nrow; r++) {
        for (int c = 0; c < t->ncol; c++) {
            const char *s = t->cell[(size_t)r * (size_t)t->ncol + (size_t)c];
            int pad = w[c] - width(s);
            if (f == REPORT_CSV) {
                if (c) {
                    fputc(',', out);
                }
                csv_cell(s, out);
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
    free(w);
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

int report_query(struct db *db, const char *sql, enum report_format f, FILE *out)
{
    struct rtable t;
    int rc;

    if ((rc = rtable_init(&t, NULL, 0)) != 0) {
        return rc;
    }
    rc = db_query(db, sql, add_query_row, &t);
    if (!rc && t.nrow > 0) {
        rtable_print(&t, f, out);
    }
    rtable_release(&t);
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
    if (ARRAY_RESERVE(*list, *alloc, (size_t)*n + 1) || !((*list)[*n] = array_strdup(s))) {
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

enum what { W_STEP, W_NORM_SINGLE, W_NORM_EXPERT, W_PLACE, W_PEAK };

static int print_matrix(const struct matrix *m, enum what w, const char *title, const char *corner,
                        enum report_format f, FILE *out)
{
    struct rtable t;
    const char **cells = calloc((size_t)m->ncol + 1, sizeof(char *));
    char(*buf)[48] = calloc((size_t)m->ncol + 1, sizeof(*buf));
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
    CHECK(rtable_init(&t, title, m->ncol + 1));
    cells[0] = corner;
    for (int k = 0; k < m->ncol; k++) {
        cells[k + 1] = m->col[k];
    }
    rc = rtable_add(&t, cells);
    for (int r = 0; !rc && r < m->nrow; r++) {
        const struct cell *rc_ = ref >= 0 ? matrix_get(m, r, ref) : NULL;
        double base = rc_ && strstr(rc_->status, "ok") ? rc_->step_us : NAN;
        cells[0] = m->row[r];
        for (int k = 0; k < m->ncol; k++) {
            const struct cell *c = matrix_get(m, r, k);
            bool ran = c && (strstr(c->status, "ok") || strstr(c->status, "oom"));
            cells[k + 1] = buf[k];
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
        rtable_print(&t, f, out);
    }
    rtable_release(&t);
cleanup:
    free(cells);
    free(buf);
    return rc;
}

/* WHERE clause of the runs a report shows. */
static const char base_where[] =
    " FROM runs r WHERE sim_model = ?1 AND comm_factor = 1 AND compute_factor = 1 ";

int report_paper(struct db *db, const struct report_opts *o, FILE *out)
{
    struct matrix m;
    char *sql = NULL, *sweepq = NULL;
    int rc = 0;
    char title[160];

    memset(&m, 0, sizeof(m));
    if (o->sweep) {
        char *q = strchr(o->sweep, '\'');
        if (q) {
            return err_set(BAECHI_EINVAL, "sweep name with a quote: '%s'", o->sweep);
        }
        if (asprintf(&sweepq, " AND sweep = '%s' ", o->sweep) < 0) {
            return err_set(BAECHI_ENOMEM, "out of memory");
        }
    }
    /* the largest memory fraction of each workload: the "memory suffices" runs */
    if (asprintf(&sql,
                 "SELECT workload, " REPORT_LABEL_SQL ", "
                 "AVG(CASE WHEN status IN ('ok','oom') THEN step_us END), AVG(placement_ms), "
                 "MAX(max_peak_bytes), group_concat(DISTINCT status) %s %s "
                 "AND memory_fraction = (SELECT MAX(memory_fraction) FROM runs q "
                 "WHERE q.workload = r.workload AND q.sim_model = r.sim_model) "
                 "GROUP BY 1, 2 ORDER BY MIN(id)",
                 base_where, sweepq ? sweepq : "") < 0) {
        rc = err_set(BAECHI_ENOMEM, "out of memory");
        goto cleanup;
    }
    CHECK(db_query1(db, sql, o->model, matrix_row, &m));
    if (m.nrow == 0) {
        fprintf(out, "no runs with the %s simulator model (comm and compute factors 1)\n",
                o->model);
        goto cleanup;
    }
    snprintf(title, sizeof(title), "Step time (ms), %s simulator, largest memory fraction",
             o->model);
    CHECK(print_matrix(&m, W_STEP, title, "workload", o->format, out));
    CHECK(print_matrix(&m, W_NORM_SINGLE, "Step time normalised to single-GPU (x)", "workload",
                       o->format, out));
    CHECK(print_matrix(&m, W_NORM_EXPERT, "Step time normalised to expert (x)", "workload",
                       o->format, out));
    CHECK(print_matrix(&m, W_PLACE, "Placement time (ms)", "workload", o->format, out));
    CHECK(
        print_matrix(&m, W_PEAK, "Peak memory, largest device (GiB)", "workload", o->format, out));
    /* the insufficient-memory experiment, one table per workload */
    for (int r = 0; r < m.nrow; r++) {
        struct matrix f;
        char *q = NULL;
        int nfrac;
        memset(&f, 0, sizeof(f));
        if (strchr(m.row[r], '\'')) {
            continue;
        }
        if (asprintf(&q,
                     "SELECT printf('%%g', memory_fraction), " REPORT_LABEL_SQL ", "
                     "AVG(CASE WHEN status IN ('ok','oom') THEN step_us END), AVG(placement_ms), "
                     "MAX(max_peak_bytes), group_concat(DISTINCT status) %s %s "
                     "AND workload = '%s' GROUP BY 1, 2 ORDER BY memory_fraction DESC, MIN(id)",
                     base_where, sweepq ? sweepq : "", m.row[r]) < 0) {
            rc = err_set(BAECHI_ENOMEM, "out of memory");
            goto cleanup;
        }
        rc = db_query1(db, q, o->model, matrix_row, &f);
        free(q);
        nfrac = f.nrow;
        if (!rc && nfrac > 1) {
            snprintf(title, sizeof(title), "%s: step time (ms) by memory fraction", m.row[r]);
            rc = print_matrix(&f, W_STEP, title, "memory fraction", o->format, out);
        }
        matrix_release(&f);
        if (rc) {
            goto cleanup;
        }
    }
cleanup:
    matrix_release(&m);
    free(sql);
    free(sweepq);
    return rc;
}
