/*
 * plot_line.c - the memory, scaling and line figures (plot.h): a metric against
 * a swept dimension, a line per placer configuration, panels by a dimension.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "results/plot_internal.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"
#include "core/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct series {
    char *d, *inf, *oom; /* datablock bodies: "x y" lines */
    size_t nd, ni, no, ad, ai, ao;
};

/* One line figure as it is built. */
struct line_fig {
    const struct plot_opts *o;
    const struct rdim *x, *by;
    const struct rdim *lines; /* --lines, NULL: a line per configuration */
    const char *line_sql;     /* what a line is (RESULTS_CONFIG_SQL or lines->sql) */
    const struct rmetric *y;
    struct scope sc;
    bool have_sc, any_inf, any_oom;
    bool any_oom_else; /* a per-device metric's point whose run is over on another device */
    struct rows r;     /* by value, config, x, y, status, runs, limit (GiB; NULL: none) */
    struct rows cf;    /* the configurations (the values of --lines) */
    char **panels;     /* borrowed from r */
    int npanel;
    struct series *ser; /* npanel x cf.n */
    double top;         /* the infeasible band starts here (above every panel's data) */
    bool any_limit;     /* a memory metric: a limit line per panel ($L_p) */
};

/* Appends "x y\n"; a value that is no plain number is quoted (it cannot end the block). */
static int sappend(char **buf, size_t *n, size_t *alloc, const char *x, const char *y)
{
    char *line = NULL;
    size_t len = 0, need;
    FILE *f = mem_open_memstream(&line, &len);

    if (!f) {
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    plot_gp_datum(f, x);
    fputc(' ', f);
    plot_gp_datum(f, y);
    fputc('\n', f);
    if (fclose(f) != 0 || !line) { /* !line: fclose's realloc failed */
        free(line);
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    need = len;
    if (ARRAY_RESERVE(*buf, *alloc, *n + need + 1)) {
        free(line);
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    memcpy(*buf + *n, line, need + 1);
    *n += need;
    free(line);
    return 0;
}

/* The axes: --x, --y and --by, else the kind's defaults. */
static int line_axes(struct line_fig *L)
{
    const struct plot_opts *o = L->o;
    bool mem = strcmp(o->kind, "memory") == 0, scaling = strcmp(o->kind, "scaling") == 0;
    const char *xs = o->x ? o->x : mem ? "memory_fraction" : scaling ? "n_ops" : "devices";
    const char *ys = o->y ? o->y : scaling ? "placement" : "step";
    const struct rdim *x = rdim_find(xs), *by = o->by ? rdim_find(o->by) : NULL;
    const struct rdim *lines = o->lines ? rdim_find(o->lines) : NULL;
    const struct rmetric *y = rmetric_find(ys);

    if (o->lines && (!lines || lines == x || lines == by)) {
        return err_set(BAECHI_EINVAL,
                       "plot %s: --lines '%s' is %s (any --where key but the x and --by "
                       "dimensions)",
                       o->kind, o->lines, !lines ? "no dimension" : "the x or --by dimension");
    }

    if (!x || x->kind == 't' || !y || (o->by && (!by || by == x))) {
        return err_set(BAECHI_EINVAL,
                       "plot %s: unknown %s '%s' (--x: devices, memory_fraction, comm_factor, "
                       "compute_factor, n_ops, batch, seed, micro_batches; --y: step, peak, peak0, "
                       "placement, bound_ratio; "
                       "--by: any --where key but the x dimension)",
                       o->kind,
                       !x || x->kind == 't' ? "--x"
                       : !y                 ? "--y"
                                            : "--by",
                       !x || x->kind == 't' ? xs
                       : !y                 ? ys
                                            : o->by);
    }
    L->x = x;
    L->y = y;
    L->by = by;
    L->lines = lines;
    L->line_sql = lines ? lines->sql : RESULTS_CONFIG_SQL;
    return 0;
}

static bool same(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* Puts v (malloc'ed copy) into row i's value column. */
static int set_value(struct rows *r, int i, const char *v)
{
    char **cell = &r->v[(size_t)i * (size_t)r->ncol + 3];
    char *copy = mem_strdup(v);

    if (!copy) {
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    free(*cell);
    *cell = copy;
    return 0;
}

/*
 * --stat median: the value of each (panel, configuration, x) becomes the
 * median of its runs' values instead of their mean (the runs counted and
 * the status stay).  The values come sorted from SQLite; an even count
 * takes the mean of the middle two.  A median is robust to the one slow
 * repeat that a shared machine gives a timing.
 */
static int line_median(struct db *db, struct line_fig *L, const char *bysel)
{
    struct rows v = {0};
    struct strbuf tail = STRBUF_INIT;
    char *sel = NULL;
    int rc = 0;

    if (mem_asprintf(&sel, "%s, %s, %s, %s", bysel, L->line_sql, L->x->sql, L->y->sql) < 0) {
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    CHECK(strbuf_addf(&tail,
                      "AND %s IS NOT NULL AND (%d OR r.status IN ('ok','oom')) AND %s "
                      "IS NOT NULL ORDER BY 1, 2, 3, 4",
                      L->x->sql, !L->y->needs_sim, L->y->sql));
    CHECK(plot_query_in(db, sel, &L->sc.from, tail.buf, &v));
    for (int a = 0, b; a < v.n; a = b) {
        char buf[64];
        const char *m;
        int n;
        for (b = a + 1; b < v.n && same(plot_cell(&v, b, 0), plot_cell(&v, a, 0)) &&
                        same(plot_cell(&v, b, 1), plot_cell(&v, a, 1)) &&
                        same(plot_cell(&v, b, 2), plot_cell(&v, a, 2));
             b++) {
        }
        n = b - a;
        m = plot_cell(&v, a + (n - 1) / 2, 3);
        if (n % 2 == 0) {
            snprintf(buf, sizeof(buf), "%.15g",
                     (strtod(m, NULL) + strtod(plot_cell(&v, a + n / 2, 3), NULL)) / 2);
            m = buf;
        }
        for (int i = 0; i < L->r.n; i++) {
            if (same(plot_cell(&L->r, i, 0), plot_cell(&v, a, 0)) &&
                same(plot_cell(&L->r, i, 1), plot_cell(&v, a, 1)) &&
                same(plot_cell(&L->r, i, 2), plot_cell(&v, a, 2))) {
                CHECK(set_value(&L->r, i, m));
                break;
            }
        }
    }
cleanup:
    free(sel);
    strbuf_release(&tail);
    plot_rows_release(&v);
    return rc;
}

/*
 * The memory a memory metric is held against, in GiB, per group of runs:
 * the simulated device's memory (memory_fraction x its memory, as the
 * simulators see it), the smallest device's for the largest peak, device
 * 0's for its own; "NULL" for another metric (issue 33 item 3: the peak
 * figures had no limit line).
 */
static const char *line_limit_sql(const struct rmetric *y)
{
    if (strcmp(y->name, "peak") == 0) {
        return "MIN((SELECT MIN(d.limit_bytes) FROM devices d WHERE d.run_id = r.id)) / "
               "1073741824.0";
    }
    if (strcmp(y->name, "peak0") == 0) {
        return "MIN((SELECT d.limit_bytes FROM devices d WHERE d.run_id = r.id AND d.device = "
               "0)) / 1073741824.0";
    }
    return "NULL";
}

/* The scope and its rows: one per (panel, configuration, x). */
static int line_query(struct db *db, struct line_fig *L)
{
    const struct rdim *x = L->x, *by = L->by;
    const struct rdim *free_dims[5] = {NULL};
    char *sel = NULL, bysel[1024];
    struct strbuf tail = STRBUF_INIT, ltail = STRBUF_INIT;
    int rc = 0, nf = 0;

    free_dims[nf++] = x;
    if (by) {
        free_dims[nf++] = by;
    }
    if (L->lines) {
        free_dims[nf++] = L->lines;
    }
    if (x == rdim_find("n_ops") || x == rdim_find("batch") || x == rdim_find("micro_batches") ||
        L->lines == rdim_find("micro_batches") || L->lines == rdim_find("pipeline") ||
        L->lines == rdim_find("workload") || L->lines == rdim_find("strategy")) {
        /* graph size, batch, micro-batches, pipeline and strategy are properties of the workload */
        free_dims[nf++] = rdim_find("workload");
    }
    CHECK(plot_scope_build(db, L->o, free_dims, ", or draw one panel per value with --by DIM",
                           &L->sc));
    L->have_sc = true;
    if (by) {
        plot_dim_select(by, bysel, sizeof(bysel));
    } else {
        snprintf(bysel, sizeof(bysel), "''");
    }
    /* a per-device metric circles a point only when its device is over;
     * a memory metric brings the memory it is held against (column 6) */
    if (mem_asprintf(&sel,
                     "%s, %s, %s, AVG(CASE WHEN %d OR r.status IN ('ok','oom') "
                     "THEN %s END), CASE WHEN SUM(r.status = 'ok') > 0 THEN 'ok' WHEN SUM(r.status "
                     "= 'oom' AND coalesce(%s, 1)) > 0 THEN 'oom' WHEN SUM(r.status = 'oom') > 0 "
                     "THEN 'oom-elsewhere' WHEN SUM(r.status = 'infeasible') > 0 THEN "
                     "'infeasible' ELSE 'error' END, COUNT(*), %s",
                     bysel, L->line_sql, x->sql, !L->y->needs_sim, L->y->sql,
                     L->y->oom_sql ? L->y->oom_sql : "1", line_limit_sql(L->y)) < 0) {
        sel = NULL;
        rc = err_set(BAECHI_ENOMEM, "out of memory");
        goto cleanup;
    }
    /* panels of memory fractions from ample to scarce, as the paper's figures */
    CHECK(strbuf_addf(
        &tail, "AND %s IS NOT NULL AND %s IS NOT NULL GROUP BY 1, 2, 3 ORDER BY %s%s, 3", x->sql,
        L->line_sql, by ? by->sql : "1", by == rdim_find("memory_fraction") ? " DESC" : ""));
    CHECK(plot_query_in(db, sel, &L->sc.from, tail.buf, &L->r));
    if (L->o->stat && strcmp(L->o->stat, "median") == 0) {
        CHECK(line_median(db, L, bysel));
    }
    if (L->lines) {
        CHECK(strbuf_addf(&ltail, "AND %s IS NOT NULL AND %s IS NOT NULL GROUP BY 1 ORDER BY 1",
                          L->line_sql, x->sql));
        CHECK(plot_query_in(db, L->line_sql, &L->sc.from, ltail.buf, &L->cf));
    } else {
        CHECK(plot_configs_of(db, &L->sc, &L->cf));
    }
    for (int i = 0; i < L->r.n; i++) {
        L->any_limit |= plot_cell(&L->r, i, 6) != NULL;
    }
    CHECK(plot_distinct(&L->r, 0, &L->panels, &L->npanel));
    if (L->r.n == 0) {
        rc = err_set(BAECHI_EINVAL, "plot %s: no run has a value of %s", L->o->kind, x->name);
    }
cleanup:
    free(sel);
    strbuf_release(&tail);
    strbuf_release(&ltail);
    return rc;
}

/* The tidy data: one row per (panel, configuration, x). */
static void line_csv(const struct line_fig *L, FILE *csv)
{
    const struct rows *r = &L->r;

    if (L->by) {
        fprintf(csv, "%s,", L->by->name);
    }
    fprintf(csv, "%s,%s,%s,status,runs%s\n", L->lines ? L->lines->name : "config", L->x->name,
            L->y->column, L->any_limit ? ",limit_gib" : "");
    for (int i = 0; i < r->n; i++) {
        if (L->by) {
            plot_csv_name(csv, plot_cell(r, i, 0));
            fputc(',', csv);
        }
        for (int c = 1; c <= (L->any_limit ? 6 : 5); c++) {
            fputs(c > 1 ? "," : "", csv);
            plot_csv_name(csv,
                          (c == 3 || c == 6) && !plot_cell(r, i, c) ? "NaN" : plot_cell(r, i, c));
        }
        fputc('\n', csv);
    }
}

/* A graph size as a short label, two significant digits: 999 -> "1k",
 * 29995 -> "30k", 999958 -> "1M". */
static void ops_label(double v, char *buf, size_t size)
{
    char tmp[32];
    double r;

    snprintf(tmp, sizeof(tmp), "%.2g", v);
    r = strtod(tmp, NULL);
    if (r >= 1e6) {
        snprintf(buf, size, "%gM", r / 1e6);
    } else if (r >= 1e3) {
        snprintf(buf, size, "%gk", r / 1e3);
    } else {
        snprintf(buf, size, "%g", r);
    }
}

/* The axes' settings. */
/* A tic at each distinct x of the data (at most 12; else gnuplot's own),
 * labelled as a graph size (ops) or as the number itself. */
static void data_xtics(const struct line_fig *L, FILE *gp, bool ops)
{
    char lab[32];
    int nx = 0;

    for (int i = 0; i < L->r.n; i++) {
        bool seen = false;
        for (int k = 0; k < i && !seen; k++) {
            seen = same(plot_cell(&L->r, k, 2), plot_cell(&L->r, i, 2));
        }
        nx += !seen && plot_cell(&L->r, i, 2);
    }
    if (nx == 0 || nx > 12) {
        return;
    }
    for (int i = 0, first = 1; i < L->r.n; i++) {
        bool seen = false;
        for (int k = 0; k < i && !seen; k++) {
            seen = same(plot_cell(&L->r, k, 2), plot_cell(&L->r, i, 2));
        }
        if (seen || !plot_cell(&L->r, i, 2) || !isfinite(strtod(plot_cell(&L->r, i, 2), NULL))) {
            continue;
        }
        if (ops) {
            ops_label(strtod(plot_cell(&L->r, i, 2), NULL), lab, sizeof(lab));
        } else {
            snprintf(lab, sizeof(lab), "%g", strtod(plot_cell(&L->r, i, 2), NULL));
        }
        /* the position as a number: a cell of the database is no script text */
        fputs(first ? "set xtics (" : ", ", gp);
        plot_gp_quote(gp, lab);
        fprintf(gp, " %.17g", strtod(plot_cell(&L->r, i, 2), NULL));
        first = 0;
    }
    fputs(")\n", gp);
}

static void line_axes_gp(const struct line_fig *L, FILE *gp)
{
    const struct rdim *x = L->x;

    fputs("set grid\nset xlabel ", gp);
    plot_gp_quote(gp, x->label);
    fputs("\nset ylabel ", gp);
    plot_gp_quote(gp, L->y->label);
    fputc('\n', gp);
    if (x == rdim_find("n_ops")) {
        /* a tic at each size (rounded in its label: sizes are counted
         * after pruning), the range fitted to the data */
        fputs("set logscale x\nset autoscale xfix\nset offsets graph 0.03, graph 0.03, 0, 0\n", gp);
        data_xtics(L, gp, true);
        if (strcmp(L->y->name, "placement") == 0) {
            fputs("set logscale y\n", gp);
        }
    } else if (x == rdim_find("memory_fraction")) {
        /* the scarce fractions, where the placers part, spread out; a tic
         * at each fraction of the data (a log axis would label only 1) */
        fputs("set logscale x\nset autoscale xfix\nset offsets graph 0.03, graph 0.03, 0, 0\n", gp);
        data_xtics(L, gp, false);
    } else if (x == rdim_find("devices") || x == rdim_find("micro_batches")) {
        fputs("set logscale x 2\nset xtics 2\nset offsets graph 0.05, graph 0.05, 0, 0\n", gp);
    } else {
        fputs("set offsets graph 0.05, graph 0.05, 0, 0\n", gp);
    }
    if (!(x == rdim_find("n_ops") && strcmp(L->y->name, "placement") == 0)) {
        fputs("set yrange [0:*]\n", gp);
    }
}

/* The series of panel p, configuration c, into s; infeasible marks at height top. */
static int line_series(struct line_fig *L, int p, int c, const char *top, struct series *s)
{
    const struct rows *r = &L->r;
    int rc = 0;

    for (int i = 0; i < r->n; i++) {
        const char *st = plot_cell(r, i, 4);
        if (strcmp(plot_cell(r, i, 0), L->panels[p]) != 0 ||
            strcmp(plot_cell(r, i, 1), plot_cell(&L->cf, c, 0)) != 0) {
            continue;
        }
        if (plot_cell(r, i, 3)) {
            CHECK(sappend(&s->d, &s->nd, &s->ad, plot_cell(r, i, 2), plot_cell(r, i, 3)));
            L->any_oom_else |= strcmp(st, "oom-elsewhere") == 0;
            if (L->y->needs_sim && strcmp(st, "oom") == 0) {
                CHECK(sappend(&s->oom, &s->no, &s->ao, plot_cell(r, i, 2), plot_cell(r, i, 3)));
                L->any_oom = true;
            }
        } else if (L->y->needs_sim) {
            /* a band above the data, a row per configuration: the marks are
             * no values, and none hides another */
            char topc[32];
            snprintf(topc, sizeof(topc), "%.6g",
                     strtod(top, NULL) * (1.0 + 0.06 * (c + 1) / (L->cf.n + 1.0)));
            CHECK(sappend(&s->inf, &s->ni, &s->ai, plot_cell(r, i, 2), topc));
            L->any_inf = true;
        }
    }
cleanup:
    return rc;
}

/* The inline data blocks $D_p_c (values), $I_p_c (infeasible), $O_p_c (out of memory). */
static int line_blocks(struct line_fig *L, FILE *gp)
{
    const struct rows *r = &L->r;
    int rc = 0, ncf = L->cf.n;
    char top[32];

    if (!(L->ser = mem_calloc((size_t)L->npanel * (size_t)ncf + 1, sizeof(*L->ser)))) {
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    {
        /* one band for every panel (they share the y range): above the
         * largest value of all of them */
        double ymax = 0;
        for (int i = 0; i < r->n; i++) {
            /* the limit too: a band below it would hide the limit line */
            for (int col = 3; col <= 6; col += 3) {
                double v = plot_cell(r, i, col) ? strtod(plot_cell(r, i, col), NULL) : 0;
                ymax = v > ymax ? v : ymax;
            }
        }
        snprintf(top, sizeof(top), "%.6g", ymax > 0 ? ymax * 1.1 : 1.0);
        L->top = strtod(top, NULL);
    }
    for (int p = 0; p < L->npanel && L->any_limit; p++) {
        /* the limit at each x of the panel (the same for every line there) */
        fprintf(gp, "$L_%d << EOD\n", p);
        for (int i = 0; i < r->n; i++) {
            bool seen = false;
            for (int k = 0; k < i && !seen; k++) {
                seen = same(plot_cell(r, k, 0), plot_cell(r, i, 0)) &&
                       same(plot_cell(r, k, 2), plot_cell(r, i, 2)) && plot_cell(r, k, 6);
            }
            if (!seen && plot_cell(r, i, 6) && strcmp(plot_cell(r, i, 0), L->panels[p]) == 0) {
                fprintf(gp, "%.17g %.17g\n", strtod(plot_cell(r, i, 2), NULL),
                        strtod(plot_cell(r, i, 6), NULL));
            }
        }
        fputs("EOD\n", gp);
    }
    for (int p = 0; p < L->npanel; p++) {
        for (int c = 0; c < ncf; c++) {
            struct series *s = &L->ser[p * ncf + c];
            CHECK(line_series(L, p, c, top, s));
            fprintf(gp, "$D_%d_%d << EOD\n%sEOD\n$I_%d_%d << EOD\n%sEOD\n$O_%d_%d << EOD\n%sEOD\n",
                    p, c, s->d ? s->d : "", p, c, s->inf ? s->inf : "", p, c, s->oom ? s->oom : "");
        }
    }
cleanup:
    return rc;
}

/* Whether two infeasible-mark blocks mark the same x values (their heights
 * differ by design: a row of the band per configuration). */
static bool same_xs(const char *a, const char *b)
{
    if (!a || !b) {
        return a == b;
    }
    while (*a && *b) {
        size_t la = strcspn(a, " "), lb = strcspn(b, " ");
        if (la != lb || strncmp(a, b, la) != 0) {
            return false;
        }
        a += strcspn(a, "\n");
        b += strcspn(b, "\n");
        a += *a == '\n';
        b += *b == '\n';
    }
    return *a == *b;
}

/* Series c of panel p draws what an earlier series of the panel draws (the
 * same values, out-of-memory marks and infeasible points): the index of the
 * first such, else -1. */
static int line_twin_of(const struct line_fig *L, int p, int c)
{
    const struct series *s = &L->ser[p * L->cf.n + c];

    for (int k = 0; s->d && k < c; k++) {
        const struct series *t = &L->ser[p * L->cf.n + k];
        if (same(t->d, s->d) && same_xs(t->inf, s->inf) && same(t->oom, s->oom)) {
            return k;
        }
    }
    return -1;
}

/* The legend of series c: its name, and " = <name>" for each later series
 * that draws the same (issue 33 item 3: such a line hid under the other). */
static void line_legend(const struct line_fig *L, int p, int c, const char *name, char *buf,
                        size_t size)
{
    snprintf(buf, size, "%s", name);
    for (int k = c + 1; k < L->cf.n; k++) {
        if (line_twin_of(L, p, k) == c) {
            size_t n = strlen(buf);
            snprintf(buf + n, size - n, " = %s", plot_cell(&L->cf, k, 0));
        }
    }
}

/* The plot command of panel p: a line per configuration, its marks; a
 * series that draws what an earlier one draws is merged into its legend
 * ("A = B"), and each later line is thinner, with smaller markers, so that
 * one that coincides with an earlier one over a stretch leaves the earlier
 * one visible around it. */
static void line_panel(const struct line_fig *L, int p, FILE *gp)
{
    bool first = true;
    int ndraw = 0, k = 0;

    for (int c = 0; c < L->cf.n; c++) {
        ndraw += line_twin_of(L, p, c) < 0;
    }
    for (int c = 0; c < L->cf.n; c++) {
        const struct series *s = &L->ser[p * L->cf.n + c];
        const char *name = plot_cell(&L->cf, c, 0), *rgb;
        char legend[300], merged[600];
        double f = ndraw > 1 ? (double)(ndraw - 1 - k) / (ndraw - 1) : 1.0;
        bool titled = false;
        int pt, dt;
        if (line_twin_of(L, p, c) >= 0) {
            continue; /* drawn by its twin, named in its legend */
        }
        k++;
        plot_config_style(name, &rgb, &pt, &dt);
        if (L->lines && !plot_config_known(name)) {
            /* values of a dimension: a colour and marker each, dashed past a
             * '+'; the palette's own names (placers, parallel layouts) keep
             * theirs, in this figure as in every other */
            plot_series_style(c, &rgb, &pt);
        }
        if (L->x == rdim_find("n_ops")) {
            double cmax = 0, amax = 0;
            for (int i = 0; i < L->r.n; i++) {
                double v = plot_cell(&L->r, i, 3) ? strtod(plot_cell(&L->r, i, 2), NULL) : 0;
                amax = v > amax ? v : amax;
                if (strcmp(plot_cell(&L->r, i, 1), name) == 0) {
                    cmax = v > cmax ? v : cmax;
                }
            }
            if (cmax > 0 && cmax < amax) {
                /* a placer given only the smaller graphs says so */
                char lab[32];
                ops_label(cmax, lab, sizeof(lab));
                snprintf(legend, sizeof(legend), "%s (up to %s ops)", name, lab);
                name = legend;
            }
        }
        line_legend(L, p, c, name, merged, sizeof(merged));
        if (s->d) {
            /* equal values stay visible: a marker per configuration, optimised
             * configurations dashed, the earlier lines wider */
            fprintf(gp,
                    "%s$D_%d_%d using 1:2 with linespoints lw %.2f pt %d ps %.2f dt %d lc rgb "
                    "'%s' title ",
                    first ? "" : ", \\\n     ", p, c, 1.5 + 2.0 * f, pt, 1.0 + 0.9 * f, dt, rgb);
            plot_gp_quote(gp, merged);
            first = false;
            titled = true;
        }
        if (s->inf) {
            fprintf(gp, "%s$I_%d_%d using 1:2 with points pt %d ps 1.6 lc rgb '%s' ",
                    first ? "" : ", \\\n     ", p, c, pt, rgb);
            if (titled) {
                fputs("notitle", gp);
            } else {
                fputs("title ", gp);
                plot_gp_quote(gp, merged);
            }
            first = false;
        }
    }
    for (int c = 0; c < L->cf.n; c++) {
        /* out of memory: a black ring, over every line (a wide line or a
         * large marker drawn later hid a ring in the series' colour) */
        if (L->ser[p * L->cf.n + c].oom && line_twin_of(L, p, c) < 0) {
            fprintf(gp,
                    "%s$O_%d_%d using 1:2 with points pt 6 ps 3.2 lw 1.5 lc rgb '#000000' "
                    "notitle",
                    first ? "" : ", \\\n     ", p, c);
            first = false;
        }
    }
    if (L->any_limit) {
        /* the memory the peaks are held against */
        fprintf(gp,
                "%s$L_%d using 1:2 with lines lw 1.5 dt 2 lc rgb '#444444' title 'device memory "
                "(limit)'",
                first ? "" : ", \\\n     ", p);
        first = false;
    }
    if (first) {
        fputs("NaN notitle", gp);
    }
    fputc('\n', gp);
}

/* Titles and the plot commands, a panel per value of --by. */
static int line_plots(struct line_fig *L, FILE *gp)
{
    bool any_inf = L->any_inf, any_oom = L->any_oom;
    struct strbuf title = STRBUF_INIT, ptitle = STRBUF_INIT;
    int entries = 0, rc = 0;

    if (any_inf && !(L->x == rdim_find("n_ops") && strcmp(L->y->name, "placement") == 0)) {
        /* the infeasible marks live in a band of their own above the data,
         * named on the right axis (a label inside the band covered its
         * marks; on the left one, a tic) */
        fprintf(gp,
                "set yrange [0:%.6g]\nset y2range [0:%.6g]\nset arrow from graph 0, first %.6g to "
                "graph 1, first %.6g nohead dt 3 lc rgb '#888888'\nset y2tics ('infeasible' %.6g) "
                "scale 0\n",
                L->top * 1.07, L->top * 1.07, L->top * 0.99, L->top * 0.99, L->top * 1.035);
    }
    /* the legend: right of a single panel; below panels, at most two
     * columns, the margin as high as its rows (it covered the x label) */
    for (int p = 0; p < L->npanel; p++) {
        int n = L->any_limit;
        for (int c = 0; c < L->cf.n; c++) {
            const struct series *s = &L->ser[p * L->cf.n + c];
            n += line_twin_of(L, p, c) < 0 && (s->d || s->inf);
        }
        entries = n > entries ? n : entries;
    }
    if (L->npanel > 1) {
        /* a column when the panels are narrow: a row per entry at worst */
        fprintf(gp, "set key below horizontal maxcols 2\nset bmargin %d\n", 5 + entries);
    } else {
        fputs("set key outside right top\n", gp);
    }

    CHECK(strbuf_addf(
        &title, "%s vs %s per %s%s%s%s%s%s\n%s", L->y->label, L->x->label,
        L->lines ? L->lines->label : "placer configuration",
        L->o->stat && strcmp(L->o->stat, "median") == 0 ? ", medians of the runs" : "",
        any_inf || any_oom || L->any_oom_else ? "\n" : "",
        any_inf ? (any_oom ? "(band at the top: infeasible; circled: out of memory)"
                           : "(band at the top: infeasible)")
                : "",
        !any_inf && any_oom ? "(circled: out of memory)" : "",
        L->any_oom_else ? " (some runs out of memory on another device)" : "", L->sc.fixed));
    if (L->npanel > 1) {
        fprintf(gp, "set multiplot layout 1,%d title ", L->npanel);
        plot_gp_quote(gp, title.buf);
        fputs("\n", gp);
    }
    for (int p = 0; p < L->npanel; p++) {
        if (L->npanel > 1) {
            char *u;
            strbuf_reset(&ptitle);
            CHECK(strbuf_addf(&ptitle, "%s %s", L->by->name, L->panels[p]));
            while ((u = strchr(ptitle.buf, '_')) != NULL && u < ptitle.buf + strlen(L->by->name)) {
                *u = ' ';
            }
        }
        fputs("set title ", gp);
        plot_gp_quote(gp, L->npanel > 1 ? ptitle.buf : title.buf);
        fputs("\nplot ", gp);
        line_panel(L, p, gp);
    }
    if (L->npanel > 1) {
        fputs("unset multiplot\n", gp);
    }
cleanup:
    strbuf_release(&ptitle);
    strbuf_release(&title);
    return rc;
}

int plot_data_line(struct db *db, const struct plot_opts *o, FILE *csv, FILE *gp)
{
    struct line_fig L = {.o = o};
    int rc = 0;

    CHECK(line_axes(&L));
    CHECK(line_query(db, &L));
    line_csv(&L, csv);
    line_axes_gp(&L, gp);
    CHECK(line_blocks(&L, gp));
    CHECK(line_plots(&L, gp));
cleanup:
    for (int i = 0; L.ser && i < L.npanel * L.cf.n; i++) {
        free(L.ser[i].d);
        free(L.ser[i].inf);
        free(L.ser[i].oom);
    }
    free(L.ser);
    free(L.panels);
    if (L.have_sc) {
        plot_scope_release(&L.sc);
    }
    plot_rows_release(&L.r);
    plot_rows_release(&L.cf);
    return rc;
}
