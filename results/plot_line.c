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
#include "results/report.h"

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
    const struct rmetric *y;
    struct scope sc;
    bool have_sc, any_inf, any_oom;
    struct rows r;  /* by value, config, x, y, status, runs */
    struct rows cf; /* the configurations */
    char **panels;  /* borrowed from r */
    int npanel;
    struct series *ser; /* npanel x cf.n */
    char title[1200];
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
    if (fclose(f) != 0) {
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
    const struct rmetric *y = rmetric_find(ys);

    if (!x || x->kind == 't' || !y || (o->by && (!by || by == x))) {
        return err_set(
            BAECHI_EINVAL,
            "plot %s: unknown %s '%s' (--x: devices, memory_fraction, comm_factor, "
            "compute_factor, n_ops, batch, seed; --y: step, peak, placement, bound_ratio; "
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
    return 0;
}

/* The scope and its rows: one per (panel, configuration, x). */
static int line_query(struct db *db, struct line_fig *L)
{
    const struct rdim *x = L->x, *by = L->by;
    const struct rdim *free_dims[4] = {NULL};
    char *sel = NULL, bysel[1024], tail[2400];
    int rc = 0, nf = 0;

    free_dims[nf++] = x;
    if (by) {
        free_dims[nf++] = by;
    }
    if (x == rdim_find("n_ops") || x == rdim_find("batch")) {
        /* graph size and batch are properties of the workload */
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
    if (mem_asprintf(&sel,
                     "%s, " RESULTS_CONFIG_SQL ", %s, AVG(CASE WHEN %d OR r.status IN ('ok','oom') "
                     "THEN %s END), CASE WHEN SUM(r.status = 'ok') > 0 THEN 'ok' WHEN SUM(r.status "
                     "= 'oom') > 0 THEN 'oom' WHEN SUM(r.status = 'infeasible') > 0 THEN "
                     "'infeasible' ELSE 'error' END, COUNT(*)",
                     bysel, x->sql, !L->y->needs_sim, L->y->sql) < 0) {
        sel = NULL;
        rc = err_set(BAECHI_ENOMEM, "out of memory");
        goto cleanup;
    }
    /* panels of memory fractions from ample to scarce, as the paper's figures */
    snprintf(tail, sizeof(tail), "AND %s IS NOT NULL GROUP BY 1, 2, 3 ORDER BY %s%s, 3", x->sql,
             by ? by->sql : "1", by == rdim_find("memory_fraction") ? " DESC" : "");
    CHECK(plot_query_in(db, sel, &L->sc.from, tail, &L->r));
    CHECK(plot_configs_of(db, &L->sc, &L->cf));
    CHECK(plot_distinct(&L->r, 0, &L->panels, &L->npanel));
    if (L->r.n == 0) {
        rc = err_set(BAECHI_EINVAL, "plot %s: no run has a value of %s", L->o->kind, x->name);
    }
cleanup:
    free(sel);
    return rc;
}

/* The tidy data: one row per (panel, configuration, x). */
static void line_csv(const struct line_fig *L, FILE *csv)
{
    const struct rows *r = &L->r;

    if (L->by) {
        fprintf(csv, "%s,", L->by->name);
    }
    fprintf(csv, "config,%s,%s,status,runs\n", L->x->name, L->y->column);
    for (int i = 0; i < r->n; i++) {
        if (L->by) {
            report_csv_field(csv, plot_cell(r, i, 0));
            fputc(',', csv);
        }
        report_csv_field(csv, plot_cell(r, i, 1));
        fprintf(csv, ",%s,%s,%s,%s\n", plot_cell(r, i, 2),
                plot_cell(r, i, 3) ? plot_cell(r, i, 3) : "NaN", plot_cell(r, i, 4),
                plot_cell(r, i, 5));
    }
}

/* The axes' settings. */
static void line_axes_gp(const struct line_fig *L, FILE *gp)
{
    const struct rdim *x = L->x;

    fprintf(gp, "%s\nset grid\nset xlabel ",
            L->npanel > 1 ? "set key below\nset bmargin 7" : "set key outside right top");
    plot_gp_quote(gp, x->label);
    fputs("\nset ylabel ", gp);
    plot_gp_quote(gp, L->y->label);
    fputc('\n', gp);
    if (x == rdim_find("n_ops")) {
        fputs("set logscale x\n", gp);
        if (strcmp(L->y->name, "placement") == 0) {
            fputs("set logscale y\n", gp);
        }
    } else if (x == rdim_find("devices")) {
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
            if (L->y->needs_sim && strcmp(st, "oom") == 0) {
                CHECK(sappend(&s->oom, &s->no, &s->ao, plot_cell(r, i, 2), plot_cell(r, i, 3)));
                L->any_oom = true;
            }
        } else if (L->y->needs_sim) {
            /* each configuration's marks on their own height: none hides another */
            char topc[32];
            snprintf(topc, sizeof(topc), "%.6g", strtod(top, NULL) * (1.0 + 0.03 * c));
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

    if (!(L->ser = mem_calloc((size_t)L->npanel * (size_t)ncf + 1, sizeof(*L->ser)))) {
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    for (int p = 0; p < L->npanel; p++) {
        double ymax = 0;
        char top[32];
        for (int i = 0; i < r->n; i++) {
            if (strcmp(plot_cell(r, i, 0), L->panels[p]) == 0 && plot_cell(r, i, 3)) {
                double v = strtod(plot_cell(r, i, 3), NULL);
                ymax = v > ymax ? v : ymax;
            }
        }
        snprintf(top, sizeof(top), "%.6g", ymax > 0 ? ymax * 1.08 : 1.0);
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

/* The plot command of panel p: a line per configuration, its marks. */
static void line_panel(const struct line_fig *L, int p, FILE *gp)
{
    bool first = true;

    for (int c = 0; c < L->cf.n; c++) {
        const struct series *s = &L->ser[p * L->cf.n + c];
        const char *name = plot_cell(&L->cf, c, 0);
        bool titled = false;
        if (s->d) {
            /* equal values stay visible: a marker per configuration, optimised
             * configurations dashed */
            fprintf(gp,
                    "%s$D_%d_%d using 1:2 with linespoints lw 2 pt %d ps 1.4 dt %d lc %d "
                    "title ",
                    first ? "" : ", \\\n     ", p, c, 4 + 2 * (c % 6), strchr(name, '+') ? 2 : 1,
                    c + 1);
            plot_gp_quote(gp, name);
            first = false;
            titled = true;
        }
        if (s->inf) {
            fprintf(gp, "%s$I_%d_%d using 1:2 with points pt 2 ps 2 lc %d ",
                    first ? "" : ", \\\n     ", p, c, c + 1);
            if (titled) {
                fputs("notitle", gp);
            } else {
                fputs("title ", gp);
                plot_gp_quote(gp, name);
            }
            first = false;
        }
        if (s->oom) {
            fprintf(gp, "%s$O_%d_%d using 1:2 with points pt 6 ps 2.5 lc %d notitle",
                    first ? "" : ", \\\n     ", p, c, c + 1);
            first = false;
        }
    }
    if (first) {
        fputs("NaN notitle", gp);
    }
    fputc('\n', gp);
}

/* Titles and the plot commands, a panel per value of --by. */
static void line_plots(struct line_fig *L, FILE *gp)
{
    bool any_inf = L->any_inf, any_oom = L->any_oom;

    snprintf(L->title, sizeof(L->title), "%s vs %s per placer configuration%s%s%s\n%s", L->y->label,
             L->x->label,
             any_inf ? (any_oom ? " (x at the top: infeasible; circled: out of memory)"
                                : " (x at the top: infeasible)")
                     : "",
             !any_inf && any_oom ? " (circled: out of memory)" : "", "", L->sc.fixed);
    if (L->npanel > 1) {
        fprintf(gp, "set multiplot layout 1,%d title ", L->npanel);
        plot_gp_quote(gp, L->title);
        fputs("\n", gp);
    }
    for (int p = 0; p < L->npanel; p++) {
        char ptitle[400];
        if (L->npanel > 1) {
            char *u;
            snprintf(ptitle, sizeof(ptitle), "%s %s", L->by->name, L->panels[p]);
            while ((u = strchr(ptitle, '_')) != NULL && u < ptitle + strlen(L->by->name)) {
                *u = ' ';
            }
        }
        fputs("set title ", gp);
        plot_gp_quote(gp, L->npanel > 1 ? ptitle : L->title);
        fputs("\nplot ", gp);
        line_panel(L, p, gp);
    }
    if (L->npanel > 1) {
        fputs("unset multiplot\n", gp);
    }
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
    line_plots(&L, gp);
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
