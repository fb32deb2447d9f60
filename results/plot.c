/*
 * plot.c - the plot catalogue (plot.h): queries into CSV, generated gnuplot
 * scripts, gnuplot run as a child process.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "results/plot.h"

#include "core/array.h"
#include "core/err.h"
#include "placers/placer.h"
#include "results/filter.h"
#include "results/report.h"
#include "results/sweep.h"
#include "sim/sim.h"
#include "sim/trace.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const kinds[] = {"step",    "placement-time", "memory",          "peak", "gantt",
                                    "scaling", "line",           "memory-timeline", NULL};
static const char *const summaries[] = {
    "step time per workload and placer, grouped bars, normalised (the paper's main figure)",
    "placement time per workload and placer, log scale",
    "step time vs memory fraction per placer (one workload); infeasible points marked",
    "per-device peak memory against the limit for one run",
    "timeline of one simulated step: compute and transfers per device",
    "placement time vs graph size, log-log, per placer configuration",
    "any metric (--y) against any swept dimension (--x), a line per placer configuration, "
    "optionally one panel per value of --by",
    "memory of each device over one simulated step, stacked by kind, with the limit and the peak",
    NULL};

const char *const *plot_kinds(void)
{
    return kinds;
}

const char *plot_kind_summary(const char *kind)
{
    for (int i = 0; kinds[i]; i++) {
        if (strcmp(kinds[i], kind) == 0) {
            return summaries[i];
        }
    }
    return NULL;
}

/* ------------------------------------------------------------ data */

/* A long table collected from a query: rows of text cells. */
struct rows {
    char **v; /* n * ncol */
    int ncol, n;
    size_t alloc;
};

static int rows_add(void *ctx, int ncol, const char *const *names, const char *const *vals)
{
    struct rows *r = ctx;

    (void)names;
    r->ncol = ncol;
    if (ARRAY_RESERVE(r->v, r->alloc, (size_t)(r->n + 1) * (size_t)ncol)) {
        return BAECHI_ENOMEM;
    }
    for (int c = 0; c < ncol; c++) {
        r->v[(size_t)r->n * (size_t)ncol + (size_t)c] = NULL;
        if (vals[c] && !(r->v[(size_t)r->n * (size_t)ncol + (size_t)c] = array_strdup(vals[c]))) {
            r->n++;
            return BAECHI_ENOMEM;
        }
    }
    r->n++;
    return 0;
}

static void rows_release(struct rows *r)
{
    for (size_t i = 0; i < (size_t)r->n * (size_t)r->ncol; i++) {
        free(r->v[i]);
    }
    free(r->v);
    memset(r, 0, sizeof(*r));
}

static const char *cell(const struct rows *r, int i, int c)
{
    return r->v[(size_t)i * (size_t)r->ncol + (size_t)c];
}

/* Distinct values of column c in order of appearance, as a space-separated list for gnuplot. */
static int distinct(const struct rows *r, int c, char ***out, int *n)
{
    *out = NULL;
    *n = 0;
    for (int i = 0; i < r->n; i++) {
        const char *s = cell(r, i, c) ? cell(r, i, c) : "?";
        bool seen = false;
        for (int k = 0; k < *n; k++) {
            seen |= strcmp((*out)[k], s) == 0;
        }
        if (!seen) {
            char **a = realloc(*out, sizeof(char *) * (size_t)(*n + 1));
            if (!a) {
                return err_set(BAECHI_ENOMEM, "out of memory");
            }
            *out = a;
            (*out)[(*n)++] = (char *)s; /* borrowed from r */
        }
    }
    return 0;
}

static void csv_field(FILE *f, const char *s)
{
    if (s && strpbrk(s, ",\"\n")) {
        fputc('"', f);
        for (; *s; s++) {
            if (*s == '"') {
                fputc('"', f);
            }
            fputc(*s, f);
        }
        fputc('"', f);
    } else {
        fputs(s ? s : "", f);
    }
}

/* gnuplot string literal (single quotes doubled). */
static void gp_str(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; s && *s; s++) {
        if (*s == '\'') {
            fputc('\'', f);
        }
        fputc(*s, f);
    }
    fputc('\'', f);
}

static const char *model_of(const struct plot_opts *o)
{
    return o->model ? o->model : "timed";
}

/* ------------------------------------------------------------ scope */

/* gnuplot double-quoted string: '\n' in s becomes a line break of the title. */
static void gp_qstr(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        if (*s == '\n') {
            fputs("\\n", f);
        } else {
            if (*s == '"' || *s == '\\') {
                fputc('\\', f);
            }
            fputc(*s, f);
        }
    }
    fputc('"', f);
}

static int query(struct db *db, const struct rsql *q, struct rows *r)
{
    return db_query_params(db, q->sql, q->p, q->np, rows_add, r);
}

/* SELECT <select> <from> <tail>: the rows, with the scope's parameters bound. */
static int query_in(struct db *db, const char *select, const struct rsql *from, const char *tail,
                    struct rows *r)
{
    struct rsql q;
    int rc = 0;

    rsql_init(&q);
    CHECK(rsql_cat(&q, "SELECT %s ", select));
    CHECK(rsql_append(&q, from));
    CHECK(rsql_cat(&q, " %s", tail ? tail : ""));
    CHECK(query(db, &q, r));
cleanup:
    rsql_release(&q);
    return rc;
}

/* The runs a figure draws: "FROM runs r WHERE ..." and a description of what is fixed. */
struct scope {
    struct rsql from;
    char fixed[768]; /* "gnmt_v2_b128_fwd on paper-4gpu-pcie (4 devices), memory fraction 1" */
    char model[16];
};

static void scope_release(struct scope *s)
{
    rsql_release(&s->from);
}

/* Appends a then b to buf. */
static void addf(char *buf, size_t size, const char *a, const char *b)
{
    size_t n = strlen(buf);

    if (n < size) {
        snprintf(buf + n, size - n, "%s%s", a, b);
    }
}

static bool in_list(const struct rdim *d, const struct rdim *const *list)
{
    for (int i = 0; list && list[i]; i++) {
        if (list[i] == d) {
            return true;
        }
    }
    return false;
}

/* Display form of a dimension's values: reals through %g. */
static void dim_select(const struct rdim *d, char *buf, size_t size)
{
    if (d->kind == 'r') {
        snprintf(buf, size, "printf('%%g', %s)", d->sql);
    } else {
        snprintf(buf, size, "%s", d->sql);
    }
}

/*
 * Builds the scope of a figure: the model, the --where conditions (names
 * checked against the database), then every swept dimension not in `free`
 * must hold one value.  The memory fraction defaults to the largest stored,
 * comm and compute factors to 1, when they vary and no condition names them;
 * any other dimension that varies is an error naming its values.
 */
static int scope_build(struct db *db, const struct plot_opts *o,
                       const struct rdim *const *free_dims, const char *hint, struct scope *s)
{
    static const char *const order[] = {
        "workload", "cluster", "devices", "memory_fraction", "comm_factor", "compute_factor", NULL};
    struct rsql base;
    struct rows r = {0};
    char vals[400], sel[300];
    int rc = 0;

    memset(s, 0, sizeof(*s));
    rsql_init(&s->from);
    rsql_init(&base);
    snprintf(s->model, sizeof(s->model), "%s", model_of(o));
    CHECK(rsql_cat(&base, "FROM runs r WHERE r.sim_model = "));
    CHECK(rsql_text(&base, s->model));
    CHECK(rfilter_check(db, o->where, &base));
    CHECK(rsql_append(&s->from, &base));
    CHECK(rfilter_sql(o->where, &s->from));
    CHECK(query_in(db, "COUNT(*)", &s->from, NULL, &r));
    if (r.n == 0 || strcmp(cell(&r, 0, 0), "0") == 0) {
        rc = err_set(BAECHI_EINVAL, "no runs with the %s simulator model%s to plot", s->model,
                     o->where && o->where->n ? " match the --where conditions" : "");
        goto cleanup;
    }
    for (int i = 0; order[i]; i++) {
        const struct rdim *d = rdim_find(order[i]);
        const char *v;
        rows_release(&r);
        if (in_list(d, free_dims)) {
            continue;
        }
        dim_select(d, sel, sizeof(sel));
        CHECK(query_in(db, sel, &s->from, "GROUP BY 1 ORDER BY MIN(r.id)", &r));
        if (r.n > 1 && !rfilter_get(o->where, d->name)) {
            bool one = false;
            for (int k = 0; k < r.n; k++) {
                one |= cell(&r, k, 0) && strtod(cell(&r, k, 0), NULL) == 1.0;
            }
            if (strcmp(d->name, "memory_fraction") == 0) {
                /* the largest fraction of each workload among the selected runs */
                struct rsql pin;
                rsql_init(&pin);
                rc = rsql_cat(&pin, " AND r.memory_fraction = (SELECT MAX(q.memory_fraction) FROM "
                                    "runs q WHERE q.workload = r.workload AND q.id IN (SELECT "
                                    "r.id ");
                if (!rc && !(rc = rsql_append(&pin, &s->from)) && !(rc = rsql_cat(&pin, "))"))) {
                    rc = rsql_append(&s->from, &pin);
                }
                rsql_release(&pin);
                if (rc) {
                    goto cleanup;
                }
                rows_release(&r);
                CHECK(query_in(db, sel, &s->from, "GROUP BY 1", &r));
                addf(s->fixed, sizeof(s->fixed),
                     *s->fixed ? ", memory fraction " : "memory fraction ",
                     r.n == 1 && cell(&r, 0, 0) ? cell(&r, 0, 0) : "");
                addf(s->fixed, sizeof(s->fixed),
                     r.n == 1 ? " (the largest stored)" : "the largest stored per workload", "");
                continue;
            }
            if (one &&
                (strcmp(d->name, "comm_factor") == 0 || strcmp(d->name, "compute_factor") == 0)) {
                CHECK(rsql_cat(&s->from, " AND %s = 1", d->sql));
                continue;
            }
        }
        if (r.n > 1) {
            size_t len = 0;
            vals[0] = '\0';
            for (int k = 0; k < r.n && len + 1 < sizeof(vals); k++) {
                len += (size_t)snprintf(vals + len, sizeof(vals) - len, "%s%s", k ? ", " : "",
                                        cell(&r, k, 0) ? cell(&r, k, 0) : "(none)");
            }
            rc = err_set(BAECHI_EINVAL,
                         "plot %s: the runs span %d values of %s (%s) and a figure does not "
                         "average over them: choose one with --where %s=VALUE%s",
                         o->kind, r.n, d->name, vals, d->name, hint ? hint : "");
            goto cleanup;
        }
        if (r.n == 0) {
            continue;
        }
        v = cell(&r, 0, 0) ? cell(&r, 0, 0) : "(none)";
        if (strcmp(d->name, "workload") == 0) {
            addf(s->fixed, sizeof(s->fixed), *s->fixed ? ", " : "", v);
        } else if (strcmp(d->name, "cluster") == 0) {
            addf(s->fixed, sizeof(s->fixed), *s->fixed ? " on " : "", v);
        } else if (strcmp(d->name, "devices") == 0) {
            addf(s->fixed, sizeof(s->fixed), " (", v);
            addf(s->fixed, sizeof(s->fixed), " devices)", "");
        } else if (strcmp(d->name, "memory_fraction") == 0) {
            addf(s->fixed, sizeof(s->fixed), *s->fixed ? ", memory fraction " : "memory fraction ",
                 v);
        } else if (strtod(v, NULL) != 1.0) {
            addf(s->fixed, sizeof(s->fixed), *s->fixed ? ", " : "", d->name);
            addf(s->fixed, sizeof(s->fixed), " ", v);
        }
    }
    rows_release(&r);
    CHECK(query_in(db, "r.sweep", &s->from, "GROUP BY 1", &r));
    if (r.n == 1 && cell(&r, 0, 0)) {
        addf(s->fixed, sizeof(s->fixed), *s->fixed ? ", sweep " : "sweep ", cell(&r, 0, 0));
    }
    addf(s->fixed, sizeof(s->fixed), *s->fixed ? ", " : "", s->model);
    addf(s->fixed, sizeof(s->fixed), " simulator", "");
cleanup:
    rows_release(&r);
    rsql_release(&base);
    if (rc) {
        scope_release(s);
    }
    return rc;
}

/* Distinct placer configurations of a scope in order of first run. */
static int configs_of(struct db *db, const struct scope *s, struct rows *out)
{
    return query_in(db, RESULTS_CONFIG_SQL, &s->from,
                    "GROUP BY 1 ORDER BY " RESULTS_CONFIG_ORDER_SQL, out);
}

/* ------------------------------------------------------------ kinds */

/* Wide CSV: workload, then one column per placer configuration.  what: 0 step, 1 placement. */
static int data_matrix(struct db *db, const struct plot_opts *o, int what, FILE *csv, FILE *gp)
{
    const struct rdim *free_dims[] = {rdim_find("workload"), NULL};
    struct rows r = {0}, cf = {0};
    struct scope sc;
    char **wl = NULL, **pl = NULL, title[1600], oomnote[400] = "", leftout[300] = "";
    int nw = 0, np = 0, rc = 0, nkept = 0;
    const char *norm = o->normalise ? o->normalise : "single";
    bool by_ref = what == 0 && strcmp(norm, "none") != 0;

    CHECK(scope_build(db, o, free_dims, " (or draw it with plot line --x)", &sc));
    rc = query_in(db,
                  "r.workload, " RESULTS_CONFIG_SQL ", "
                  "AVG(CASE WHEN r.status IN ('ok','oom') THEN r.step_us END), "
                  "AVG(r.placement_ms), COUNT(*), "
                  "SUM(r.status = 'ok') = 0 AND SUM(r.status = 'oom') > 0",
                  &sc.from, "GROUP BY 1, 2 ORDER BY MIN(r.id)", &r);
    if (!rc) {
        rc = configs_of(db, &sc, &cf);
    }
    if (rc) {
        goto scoped;
    }
    if ((rc = distinct(&r, 0, &wl, &nw))) {
        goto scoped;
    }
    np = cf.n;
    if (!(pl = calloc((size_t)np + 1, sizeof(*pl)))) {
        rc = err_set(BAECHI_ENOMEM, "out of memory");
        goto scoped;
    }
    for (int k = 0; k < np; k++) {
        pl[k] = (char *)cell(&cf, k, 0); /* borrowed from cf */
    }
    fputs("workload", csv);
    for (int k = 0; k < np; k++) {
        fputc(',', csv);
        csv_field(csv, pl[k]);
    }
    fputc('\n', csv);
    for (int w = 0; w < nw; w++) {
        double base = NAN;
        for (int i = 0; by_ref && i < r.n; i++) {
            if (strcmp(cell(&r, i, 0), wl[w]) == 0 && strcmp(cell(&r, i, 1), norm) == 0 &&
                cell(&r, i, 2)) {
                base = strtod(cell(&r, i, 2), NULL);
            }
        }
        /* a workload without a reference run would be an empty tick */
        if (by_ref && !(base > 0)) {
            addf(leftout, sizeof(leftout), *leftout ? ", " : "", wl[w]);
            continue;
        }
        nkept++;
        csv_field(csv, wl[w]);
        for (int k = 0; k < np; k++) {
            double v = NAN;
            for (int i = 0; i < r.n; i++) {
                if (strcmp(cell(&r, i, 0), wl[w]) == 0 && strcmp(cell(&r, i, 1), pl[k]) == 0 &&
                    cell(&r, i, 2 + what)) {
                    v = strtod(cell(&r, i, 2 + what), NULL);
                    if (what == 0 && strcmp(cell(&r, i, 5), "1") == 0) {
                        addf(oomnote, sizeof(oomnote), *oomnote ? "; " : "", pl[k]);
                        addf(oomnote, sizeof(oomnote), " on ", wl[w]);
                    }
                }
            }
            if (what == 0) {
                v = by_ref ? v / base : v / 1000.0;
            }
            if (isnan(v)) {
                fputs(",NaN", csv);
            } else {
                fprintf(csv, ",%.6g", v);
            }
        }
        fputc('\n', csv);
    }
    if (nkept == 0) {
        rc =
            err_set(BAECHI_EINVAL, "plot %s: no workload has a successful '%s' run to normalise to",
                    o->kind, norm);
        goto scoped;
    }
    fputs("set datafile separator ','\nset datafile missing 'NaN'\n"
          "set style data histograms\nset style histogram clustered gap 1\n"
          "set style fill solid 0.8 border -1\nset key outside right top\nset grid ytics\n"
          "set xlabel 'workload'\n",
          gp);
    if (what == 0 && !by_ref) {
        fputs("set ylabel 'step time (ms)'\nset yrange [0:*]\n", gp);
        snprintf(title, sizeof(title),
                 "Step time per workload and placer configuration (infeasible: no bar)\n%s",
                 sc.fixed);
    } else if (what == 0) {
        fprintf(gp, "set ylabel 'step time / %s step time (x)'\nset yrange [0:*]\n", norm);
        snprintf(title, sizeof(title),
                 "Step time normalised to %s per placer configuration (infeasible: no bar)\n%s%s",
                 strcmp(norm, "single") == 0 ? "one device (single)" : "the expert placement",
                 sc.fixed, "");
    } else {
        fputs("set ylabel 'placement time (ms)'\nset logscale y\n", gp);
        snprintf(title, sizeof(title), "Placement time per workload and placer configuration\n%s",
                 sc.fixed);
    }
    if (*oomnote) {
        addf(title, sizeof(title), "\nout of memory (bar drawn): ", oomnote);
    }
    if (*leftout) {
        addf(title, sizeof(title), "\nleft out, no reference run: ", leftout);
    }
    fputs("set title ", gp);
    gp_qstr(gp, title);
    /* the workloads fill the frame (the histogram style leaves a slot empty otherwise) */
    fprintf(gp, "\nset xrange [-0.6:%g]\n", nkept - 0.4);
    fprintf(gp, "plot for [i=2:%d] DATA using i:xtic(1) title columnheader(i)\n", np + 1);
scoped:
    scope_release(&sc);
cleanup:
    free(wl);
    free(pl);
    rows_release(&r);
    rows_release(&cf);
    return rc;
}

struct series {
    char *d, *inf, *oom; /* datablock bodies: "x y" lines */
    size_t nd, ni, no, ad, ai, ao;
};

static int sappend(char **buf, size_t *n, size_t *alloc, const char *x, const char *y)
{
    size_t need = strlen(x) + strlen(y) + 3;

    if (ARRAY_RESERVE(*buf, *alloc, *n + need + 1)) {
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    *n += (size_t)snprintf(*buf + *n, need + 1, "%s %s\n", x, y);
    return 0;
}

/* Line figures: the memory, scaling and line kinds (x, y, panels by a dimension). */
static int data_line(struct db *db, const struct plot_opts *o, int k, FILE *csv, FILE *gp)
{
    const char *xs = o->x ? o->x : k == 2 ? "memory_fraction" : k == 5 ? "n_ops" : "devices";
    const char *ys = o->y ? o->y : k == 5 ? "placement" : "step";
    const struct rdim *x = rdim_find(xs), *by = o->by ? rdim_find(o->by) : NULL;
    const struct rmetric *y = rmetric_find(ys);
    const struct rdim *free_dims[4] = {NULL};
    struct rows r = {0}, cf = {0};
    struct scope sc;
    struct series *ser = NULL;
    char **panels = NULL, title[1200], *sel = NULL, bysel[300];
    int npanel = 0, rc = 0, nf = 0;
    bool have_sc = false, any_inf = false, any_oom = false;

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
    free_dims[nf++] = x;
    if (by) {
        free_dims[nf++] = by;
    }
    if (x == rdim_find("n_ops") || x == rdim_find("batch")) {
        /* graph size and batch are properties of the workload */
        free_dims[nf++] = rdim_find("workload");
    }
    CHECK(scope_build(db, o, free_dims, ", or draw one panel per value with --by DIM", &sc));
    have_sc = true;
    if (by) {
        dim_select(by, bysel, sizeof(bysel));
    } else {
        snprintf(bysel, sizeof(bysel), "''");
    }
    if (asprintf(&sel,
                 "%s, " RESULTS_CONFIG_SQL ", %s, AVG(CASE WHEN %d OR r.status IN ('ok','oom') "
                 "THEN %s END), CASE WHEN SUM(r.status = 'ok') > 0 THEN 'ok' WHEN SUM(r.status "
                 "= 'oom') > 0 THEN 'oom' WHEN SUM(r.status = 'infeasible') > 0 THEN "
                 "'infeasible' ELSE 'error' END, COUNT(*)",
                 bysel, x->sql, !y->needs_sim, y->sql) < 0) {
        rc = err_set(BAECHI_ENOMEM, "out of memory");
        goto cleanup;
    }
    {
        char tail[600];
        /* panels of memory fractions from ample to scarce, as the paper's figures */
        snprintf(tail, sizeof(tail), "AND %s IS NOT NULL GROUP BY 1, 2, 3 ORDER BY %s%s, 3", x->sql,
                 by ? by->sql : "1", by == rdim_find("memory_fraction") ? " DESC" : "");
        CHECK(query_in(db, sel, &sc.from, tail, &r));
    }
    CHECK(configs_of(db, &sc, &cf));
    CHECK(distinct(&r, 0, &panels, &npanel));
    if (r.n == 0) {
        rc = err_set(BAECHI_EINVAL, "plot %s: no run has a value of %s", o->kind, x->name);
        goto cleanup;
    }
    /* the tidy data: one row per (panel, configuration, x) */
    if (by) {
        fprintf(csv, "%s,", by->name);
    }
    fprintf(csv, "config,%s,%s,status,runs\n", x->name, y->column);
    for (int i = 0; i < r.n; i++) {
        if (by) {
            csv_field(csv, cell(&r, i, 0));
            fputc(',', csv);
        }
        csv_field(csv, cell(&r, i, 1));
        fprintf(csv, ",%s,%s,%s,%s\n", cell(&r, i, 2), cell(&r, i, 3) ? cell(&r, i, 3) : "NaN",
                cell(&r, i, 4), cell(&r, i, 5));
    }
    fprintf(gp, "%s\nset grid\nset xlabel '%s'\nset ylabel '%s'\n",
            npanel > 1 ? "set key below\nset bmargin 7" : "set key outside right top", x->label,
            y->label);
    if (x == rdim_find("n_ops")) {
        fputs("set logscale x\n", gp);
        if (strcmp(y->name, "placement") == 0) {
            fputs("set logscale y\n", gp);
        }
    } else if (x == rdim_find("devices")) {
        fputs("set logscale x 2\nset xtics 2\nset offsets graph 0.05, graph 0.05, 0, 0\n", gp);
    } else {
        fputs("set offsets graph 0.05, graph 0.05, 0, 0\n", gp);
    }
    if (!(x == rdim_find("n_ops") && strcmp(y->name, "placement") == 0)) {
        fputs("set yrange [0:*]\n", gp);
    }
    ser = calloc((size_t)npanel * (size_t)cf.n + 1, sizeof(*ser));
    if (!ser) {
        rc = err_set(BAECHI_ENOMEM, "out of memory");
        goto cleanup;
    }
    for (int p = 0; p < npanel; p++) {
        double ymax = 0;
        char top[32];
        for (int i = 0; i < r.n; i++) {
            if (strcmp(cell(&r, i, 0), panels[p]) == 0 && cell(&r, i, 3)) {
                double v = strtod(cell(&r, i, 3), NULL);
                ymax = v > ymax ? v : ymax;
            }
        }
        snprintf(top, sizeof(top), "%.6g", ymax > 0 ? ymax * 1.08 : 1.0);
        for (int c = 0; c < cf.n; c++) {
            struct series *s = &ser[p * cf.n + c];
            for (int i = 0; i < r.n; i++) {
                const char *st = cell(&r, i, 4);
                if (strcmp(cell(&r, i, 0), panels[p]) != 0 ||
                    strcmp(cell(&r, i, 1), cell(&cf, c, 0)) != 0) {
                    continue;
                }
                if (cell(&r, i, 3)) {
                    CHECK(sappend(&s->d, &s->nd, &s->ad, cell(&r, i, 2), cell(&r, i, 3)));
                    if (y->needs_sim && strcmp(st, "oom") == 0) {
                        CHECK(sappend(&s->oom, &s->no, &s->ao, cell(&r, i, 2), cell(&r, i, 3)));
                        any_oom = true;
                    }
                } else if (y->needs_sim) {
                    /* each configuration's marks on their own height: none hides another */
                    char topc[32];
                    snprintf(topc, sizeof(topc), "%.6g", strtod(top, NULL) * (1.0 + 0.03 * c));
                    CHECK(sappend(&s->inf, &s->ni, &s->ai, cell(&r, i, 2), topc));
                    any_inf = true;
                }
            }
            fprintf(gp, "$D_%d_%d << EOD\n%sEOD\n$I_%d_%d << EOD\n%sEOD\n$O_%d_%d << EOD\n%sEOD\n",
                    p, c, s->d ? s->d : "", p, c, s->inf ? s->inf : "", p, c, s->oom ? s->oom : "");
        }
    }
    snprintf(title, sizeof(title), "%s vs %s per placer configuration%s%s%s\n%s", y->label,
             x->label,
             any_inf ? (any_oom ? " (x at the top: infeasible; circled: out of memory)"
                                : " (x at the top: infeasible)")
                     : "",
             !any_inf && any_oom ? " (circled: out of memory)" : "", "", sc.fixed);
    if (npanel > 1) {
        fprintf(gp, "set multiplot layout 1,%d title ", npanel);
        gp_qstr(gp, title);
        fputs("\n", gp);
    }
    for (int p = 0; p < npanel; p++) {
        bool first = true;
        char ptitle[400];
        if (npanel > 1) {
            char *u;
            snprintf(ptitle, sizeof(ptitle), "%s %s", by->name, panels[p]);
            while ((u = strchr(ptitle, '_')) != NULL && u < ptitle + strlen(by->name)) {
                *u = ' ';
            }
        }
        fputs("set title ", gp);
        gp_qstr(gp, npanel > 1 ? ptitle : title);
        fputs("\nplot ", gp);
        for (int c = 0; c < cf.n; c++) {
            const struct series *s = &ser[p * cf.n + c];
            bool titled = false;
            if (s->d) {
                /* equal values stay visible: a marker per configuration, optimised
                 * configurations dashed */
                fprintf(gp,
                        "%s$D_%d_%d using 1:2 with linespoints lw 2 pt %d ps 1.4 dt %d lc %d "
                        "title ",
                        first ? "" : ", \\\n     ", p, c, 4 + 2 * (c % 6),
                        strchr(cell(&cf, c, 0), '+') ? 2 : 1, c + 1);
                gp_str(gp, cell(&cf, c, 0));
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
                    gp_str(gp, cell(&cf, c, 0));
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
    if (npanel > 1) {
        fputs("unset multiplot\n", gp);
    }
cleanup:
    for (int i = 0; ser && i < npanel * cf.n; i++) {
        free(ser[i].d);
        free(ser[i].inf);
        free(ser[i].oom);
    }
    free(ser);
    free(sel);
    free(panels);
    if (have_sc) {
        scope_release(&sc);
    }
    rows_release(&r);
    rows_release(&cf);
    return rc;
}

/* SQL fragment: the run is the paper's configuration (m-ETF with co-placement and fusion). */
#define PAPER_CONFIG_SQL                                                                           \
    "(r.placer = 'paper' OR (r.placer = 'm-etf' AND r.grouper = 'coplace' AND r.fusion = 1))"

/*
 * The run of a one-run figure: --run, else the paper configuration on the
 * first workload at full memory (among the runs --where selects), else the
 * first simulated run at the largest memory fraction.  desc says which.
 */
static int resolve_run(struct db *db, const struct plot_opts *o, char *id, size_t size, char *desc,
                       size_t dsize)
{
    struct rows r = {0};
    struct rsql from;
    int rc = 0;

    rsql_init(&from);
    if (o->run > 0) {
        snprintf(id, size, "%" PRId64, o->run);
        CHECK(rsql_cat(&from, "FROM runs r WHERE r.id = "));
        CHECK(rsql_real(&from, (double)o->run));
    } else {
        struct rsql base;
        rsql_init(&base);
        if (!(rc = rsql_cat(&base, "FROM runs r WHERE r.sim_model = ")) &&
            !(rc = rsql_text(&base, model_of(o))) && !(rc = rfilter_check(db, o->where, &base))) {
            rc = rsql_append(&from, &base);
        }
        rsql_release(&base);
        if (rc) {
            goto cleanup;
        }
        CHECK(rfilter_sql(o->where, &from));
        CHECK(rsql_cat(&from, " AND r.status IN ('ok','oom')"));
        CHECK(query_in(db, "r.workload", &from, "ORDER BY r.id LIMIT 1", &r));
        if (r.n == 0) {
            rc = err_set(BAECHI_EINVAL,
                         "no simulated %s-model run in the database%s (give --run ID)", model_of(o),
                         o->where && o->where->n ? " matches --where" : "");
            goto cleanup;
        }
        CHECK(rsql_cat(&from, " ORDER BY r.workload = "));
        CHECK(rsql_text(&from, cell(&r, 0, 0)));
        CHECK(rsql_cat(&from, " DESC, " PAPER_CONFIG_SQL " DESC, r.memory_fraction DESC, r.id"));
        rows_release(&r);
    }
    CHECK(query_in(
        db,
        "r.id, r.workload, r.cluster, r.n_devices, " RESULTS_CONFIG_SQL
        ", printf('%g', r.memory_fraction), r.sim_model, r.status, r.step_us, " PAPER_CONFIG_SQL,
        &from, "LIMIT 1", &r));
    if (r.n == 0) {
        rc = err_set(BAECHI_EINVAL, "no run with id %s", id);
        goto cleanup;
    }
    snprintf(id, size, "%s", cell(&r, 0, 0));
    snprintf(desc, dsize, "run %s: %s on %s, %s (%s devices), memory fraction %s, %s simulator%s%s",
             cell(&r, 0, 0), cell(&r, 0, 4), cell(&r, 0, 1), cell(&r, 0, 2),
             cell(&r, 0, 3) ? cell(&r, 0, 3) : "?", cell(&r, 0, 5), cell(&r, 0, 6),
             strcmp(cell(&r, 0, 7), "ok") == 0 ? "" : ", ",
             strcmp(cell(&r, 0, 7), "ok") == 0 ? "" : cell(&r, 0, 7));
    if (o->run <= 0) {
        size_t n = strlen(desc);
        snprintf(desc + n, dsize - n, "\n(default: %s; choose with --run ID or --where)",
                 strcmp(cell(&r, 0, 9), "1") == 0
                     ? "the paper's configuration on the first workload at the largest memory "
                       "fraction"
                     : "no paper configuration stored: the first run at the largest memory "
                       "fraction");
    }
cleanup:
    rsql_release(&from);
    rows_release(&r);
    return rc;
}

static int data_peak(struct db *db, const struct plot_opts *o, FILE *csv, FILE *gp)
{
    struct rows r = {0};
    char id[32], desc[600], title[800];
    int rc;
    bool limit = false;

    CHECK(resolve_run(db, o, id, sizeof(id), desc, sizeof(desc)));
    CHECK(db_query1(db,
                    "SELECT coalesce(name, device), peak_bytes / 1073741824.0, limit_bytes / "
                    "1073741824.0, placer_limit_bytes / 1073741824.0 FROM devices "
                    "WHERE run_id = ?1 ORDER BY device",
                    id, rows_add, &r));
    if (r.n == 0) {
        rc = err_set(BAECHI_EINVAL, "run %s has no per-device rows (infeasible or error)", id);
        goto cleanup;
    }
    for (int i = 0; i < r.n; i++) {
        limit |= cell(&r, i, 3) != NULL;
    }
    {
        /* databases written before baselines stopped storing one */
        struct rows p = {0};
        CHECK(db_query1(db, "SELECT placer FROM runs WHERE id = ?1", id, rows_add, &p));
        if (p.n == 1 && cell(&p, 0, 0) && placer_find(cell(&p, 0, 0)) &&
            (placer_find(cell(&p, 0, 0))->flags & PLACER_BASELINE)) {
            limit = false;
        }
        rows_release(&p);
    }
    fprintf(csv, "device,peak_gib,limit_gib%s\n", limit ? ",placer_limit_gib" : "");
    for (int i = 0; i < r.n; i++) {
        csv_field(csv, cell(&r, i, 0));
        fprintf(csv, ",%s,%s", cell(&r, i, 1), cell(&r, i, 2));
        if (limit) {
            fprintf(csv, ",%s", cell(&r, i, 3) ? cell(&r, i, 3) : "NaN");
        }
        fputc('\n', csv);
    }
    fputs("set datafile separator ','\nset datafile missing 'NaN'\n"
          "set style data histograms\nset style histogram clustered gap 1\n"
          "set style fill solid 0.8 border -1\nset key outside right top\nset grid ytics\n"
          "set xlabel 'device'\nset ylabel 'memory (GiB)'\nset yrange [0:*]\nset key below\n",
          gp);
    snprintf(title, sizeof(title), "Peak memory per device against its limit\n%s", desc);
    fputs("set title ", gp);
    gp_qstr(gp, title);
    fprintf(gp, "\nset key autotitle columnheader\nset xrange [-0.6:%g]\n", r.n - 0.4);
    fputs("plot DATA using 2:xtic(1) title 'simulated peak', '' using 3 title 'device memory'", gp);
    /* only the memory-aware placers have a limit of their own */
    fputs(limit ? ", '' using 4 title 'placer limit (memory fraction x memory)'\n" : "\n", gp);
cleanup:
    rows_release(&r);
    return rc;
}

/* A YAML single-quoted scalar ('' for a quote), for the one-point sweep of a gantt. */
static int yaml_sq(char **out, const char *s)
{
    size_t n = 3;
    char *p;

    for (const char *q = s; *q; q++) {
        n += *q == '\'' ? 2 : 1;
    }
    if (!(p = *out = malloc(n))) {
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    *p++ = '\'';
    for (; *s; s++) {
        if (*s == '\'') {
            *p++ = '\'';
        }
        *p++ = *s;
    }
    *p++ = '\'';
    *p = '\0';
    return 0;
}

/* Gantt: the run is placed and simulated again with a trace (or its stored placement used). */
/*
 * A stored run simulated again as the sweep did (the gantt and the memory
 * timeline): a one-point sweep loads the workload and cluster; the stored
 * placement is used, or the placer is run again when none was stored.
 */
struct rerun {
    struct sweep sw;
    struct cluster c;
    struct placement pl;
    struct placer_stats st;
    struct graph g; /* as the sweep simulated it (compute factor): shallow */
    struct sim_result res;
    int32_t *stored;
    int64_t *weights;
    bool have_sw, have_c, have_pl;
    char desc[600];
};

static void rerun_release(struct rerun *x)
{
    free(x->stored);
    free(x->weights);
    sim_result_release(&x->res);
    if (x->have_pl) {
        placement_release(&x->pl);
    }
    placer_stats_release(&x->st);
    if (x->have_c) {
        cluster_release(&x->c);
    }
    if (x->have_sw) {
        sweep_release(&x->sw);
    }
}

/* Simulates the run o selects with so (its model is the run's); x released by the caller. */
static int rerun_sim(struct db *db, const struct plot_opts *o, struct sim_options *so,
                     struct trace *t, bool *have_t, struct rerun *x)
{
    struct rows r = {0};
    char id[32], *yaml = NULL;
    char *q[3] = {NULL, NULL, NULL};
    int32_t n_stored = 0;
    int rc = 0;

    memset(x, 0, sizeof(*x));
    placer_stats_init(&x->st);
    sim_result_init(&x->res);
    CHECK(resolve_run(db, o, id, sizeof(id), x->desc, sizeof(x->desc)));
    CHECK(db_query1(db,
                    "SELECT workload_spec, cluster_spec, n_devices, placer, grouper, fusion, "
                    "memory_fraction, comm_factor, sct_threshold, seed, sim_model, status, "
                    "compute_factor FROM runs WHERE id = ?1",
                    id, rows_add, &r));
    if (r.n == 0) {
        rc = err_set(BAECHI_EINVAL, "no run with id %s", id);
        goto cleanup;
    }
    for (int c2 = 0; c2 < 11; c2++) {
        if (!cell(&r, 0, c2)) {
            rc = err_set(BAECHI_EINVAL, "run %s lacks what is needed to simulate it again", id);
            goto cleanup;
        }
    }
    /* the names are quoted as YAML scalars (a path may hold a quote) */
    CHECK(yaml_sq(&q[0], cell(&r, 0, 0)));
    CHECK(yaml_sq(&q[1], cell(&r, 0, 1)));
    CHECK(yaml_sq(&q[2], cell(&r, 0, 3)));
    if (asprintf(&yaml,
                 "workloads: [%s]\nclusters: [%s]\ndevices: [%s]\nplacers: [%s]\n"
                 "groupers: [%s]\nfusion: [%s]\nmemory_fractions: [%s]\ncomm_factors: [%s]\n"
                 "seeds: [%s]\nsct_threshold: %s\nmodels: [%s]\ncompute_factors: [%s]\n",
                 q[0], q[1], cell(&r, 0, 2), q[2], cell(&r, 0, 4),
                 strcmp(cell(&r, 0, 5), "0") ? "true" : "false", cell(&r, 0, 6), cell(&r, 0, 7),
                 strcmp(cell(&r, 0, 9), "0") ? cell(&r, 0, 9) : "1",
                 strtod(cell(&r, 0, 8), NULL) > 0 ? cell(&r, 0, 8) : "0.1", cell(&r, 0, 10),
                 cell(&r, 0, 12) ? cell(&r, 0, 12) : "1") < 0) {
        rc = err_set(BAECHI_ENOMEM, "out of memory");
        goto cleanup;
    }
    CHECK(sweep_prepare(&x->sw, yaml, strlen(yaml), "(run)"));
    x->have_sw = true;
    if (x->sw.n_points != 1 || x->sw.wl[0].error || x->sw.cl[0].error) {
        rc = err_set(BAECHI_EINVAL, "run %s cannot be loaded again: %s", id,
                     x->sw.n_points != 1 ? "?"
                     : x->sw.wl[0].error ? x->sw.wl[0].error
                                         : x->sw.cl[0].error);
        goto cleanup;
    }
    CHECK(
        cluster_read_yaml_string(&x->c, x->sw.cl[0].yaml, x->sw.cl[0].yaml_len, x->sw.cl[0].spec));
    x->have_c = true;
    CHECK(db_load_placement(db, strtoll(id, NULL, 10), &x->stored, &n_stored));
    if (!x->stored || n_stored != x->sw.wl[0].g.n_ops) {
        CHECK(placer_run(x->sw.spec.placers.item[0].text, &x->sw.wl[0].g, &x->c,
                         &x->sw.point[0].opt, x->sw.wl[0].w.name, &x->pl, &x->st));
        x->have_pl = true;
    }
    CHECK(placer_world(&x->c, &x->sw.point[0].opt));
    CHECK(sim_model_parse(cell(&r, 0, 10), &so->model));
    if (t) {
        trace_init(t, x->c.channel);
        *have_t = true;
        so->trace = t;
    }
    CHECK(placer_world_graph(&x->sw.wl[0].g, &x->sw.point[0].opt, &x->g, &x->weights));
    CHECK(sim_run(&x->g, &x->c, x->have_pl ? x->pl.device_of : x->stored, so, &x->res));
cleanup:
    for (int i = 0; i < 3; i++) {
        free(q[i]);
    }
    free(yaml);
    rows_release(&r);
    return rc;
}

static int data_gantt(struct db *db, const struct plot_opts *o, FILE *csv, FILE *gp)
{
    struct rerun x;
    struct trace t;
    struct sim_options so = {.model = SIM_MODEL_TIMED};
    bool have_t = false;
    char title[800];
    int rc = 0;

    CHECK(rerun_sim(db, o, &so, &t, &have_t, &x));
    fputs("kind,device,start_ms,end_ms,what\n", csv);
    for (size_t i = 0; i < t.n_compute; i++) {
        fprintf(csv, "compute,%d,%.6f,%.6f,", t.compute[i].device, t.compute[i].start_us / 1e3,
                t.compute[i].end_us / 1e3);
        csv_field(csv, x.sw.wl[0].g.op_name[t.compute[i].op]);
        fputc('\n', csv);
    }
    for (size_t i = 0; i < t.n_transfer; i++) {
        fprintf(csv, "transfer,%d,%.6f,%.6f,to %d\n", t.transfer[i].src,
                t.transfer[i].start_us / 1e3, t.transfer[i].end_us / 1e3, t.transfer[i].dst);
    }
    fputs("set datafile separator ','\nset key outside right top\nset grid xtics\n"
          "set xlabel 'time (ms)'\nset ylabel 'device'\n",
          gp);
    fprintf(gp, "set yrange [-0.5:%d]\nset ytics (", x.c.n_devices);
    for (int32_t d = 0; d < x.c.n_devices; d++) {
        fprintf(gp, "%s", d ? ", " : "");
        gp_str(gp, x.c.dev[d].name);
        fprintf(gp, " %d", d);
    }
    snprintf(title, sizeof(title), "One simulated step: %.3f ms\n%s", (double)x.res.step_us / 1e3,
             x.desc);
    fputs(")\nset title ", gp);
    gp_qstr(gp, title);
    fputc('\n', gp);
    fputs("plot DATA skip 1 using 3:(strcol(1) eq 'compute' ? $2 : NaN):($4-$3):(0) with vectors "
          "nohead lw 10 lc rgb '#3070b0' title 'compute', \\\n"
          "     DATA skip 1 using 3:(strcol(1) eq 'transfer' ? $2 + 0.3 : NaN):($4-$3):(0) with "
          "vectors nohead lw 4 lc rgb '#d06020' title 'send'\n",
          gp);
cleanup:
    if (have_t) {
        trace_release(&t);
    }
    rerun_release(&x);
    return rc;
}

/* 1, 2 or 5 times a power of ten, at least x. */
static double nice_step(double x)
{
    double p = x > 0 ? pow(10, floor(log10(x))) : 1;

    return x <= p ? p : x <= 2 * p ? 2 * p : x <= 5 * p ? 5 * p : 10 * p;
}

/* The same terminal as terminal_for(out), height_px high (one panel per device). */
static void gp_terminal_height(FILE *gp, const char *out, int height_px)
{
    const char *dot = out ? strrchr(out, '.') : NULL;

    if (!dot) {
        return;
    }
    if (strcmp(dot, ".png") == 0) {
        fprintf(gp, "set terminal pngcairo size 1100,%d noenhanced font ',10'\n", height_px);
    } else if (strcmp(dot, ".svg") == 0) {
        fprintf(gp, "set terminal svg size 1100,%d noenhanced font ',10'\n", height_px);
    } else if (strcmp(dot, ".pdf") == 0) {
        fprintf(gp, "set terminal pdfcairo size 11in,%.2fin noenhanced font ',10'\n",
                height_px / 100.0);
    } else {
        return;
    }
    fputs("set output ", gp);
    gp_str(gp, out);
    fputc('\n', gp);
}

/* The memory timeline: every change of a device's memory, by kind. */
struct series_row {
    int32_t device;
    size_t seq; /* event order: a tie-break that keeps a step's two levels in order */
    int64_t time_us;
    double gib[MEM_KIND_N];
};

struct mem_series {
    struct series_row *row; /* in event order; written device by device */
    size_t n_row, alloc_row;
    int rc;
    const struct graph *g;
    const uint8_t *saved;
    const struct sim_result *first; /* the same run: its peaks */
    int64_t *cur;                   /* n_devices x MEM_KIND_N */
    int64_t *total;                 /* n_devices */
    int64_t *peak_at_us;            /* n_devices: when the peak was first reached, -1 */
};

static void series_row(struct mem_series *m, int32_t d, int64_t time_us)
{
    const int64_t *cur = m->cur + (size_t)d * MEM_KIND_N;
    struct series_row *r;

    if (m->rc || (m->rc = ARRAY_RESERVE(m->row, m->alloc_row, m->n_row + 1)) != 0) {
        return;
    }
    r = &m->row[m->n_row];
    r->seq = m->n_row++;
    r->device = d;
    r->time_us = time_us;
    for (int k = 0; k < MEM_KIND_N; k++) {
        r->gib[k] = (double)cur[k] / (1024.0 * 1024 * 1024);
    }
}

/* Device by device, in time order (a filled curve needs its rows together). */
static int cmp_series(const void *a, const void *b)
{
    const struct series_row *x = a, *y = b;

    if (x->device != y->device) {
        return x->device < y->device ? -1 : 1;
    }
    if (x->time_us != y->time_us) {
        return x->time_us < y->time_us ? -1 : 1;
    }
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void on_series(void *ctx, int32_t d, int64_t time_us, int64_t delta, enum sim_mem_what what,
                      int32_t op, int32_t tensor, bool alloc)
{
    struct mem_series *m = ctx;

    (void)tensor;
    /* a step in the curve: the level before the change, then after it */
    series_row(m, d, time_us);
    m->cur[(size_t)d * MEM_KIND_N + sim_mem_kind(m->g, m->saved, what, op)] += delta;
    m->total[d] += delta;
    series_row(m, d, time_us);
    if (alloc && m->peak_at_us[d] < 0 && m->total[d] == m->first->dev[d].peak_bytes) {
        m->peak_at_us[d] = time_us;
    }
}

static int data_memtimeline(struct db *db, const struct plot_opts *o, FILE *csv, FILE *gp)
{
    struct rerun x;
    struct mem_series m = {0};
    struct sim_mem_obs obs = {on_series, &m};
    struct sim_options so = {.model = SIM_MODEL_TIMED};
    uint8_t *saved = NULL;
    char title[800];
    const char *name = NULL;
    int rc = 0;

    /* the graph is needed before the run for the kinds: load, then simulate once more */
    CHECK(rerun_sim(db, o, &so, NULL, NULL, &x));
    CHECK(sim_saved_ops(&x.g, &saved));
    m.g = &x.g;
    m.saved = saved;
    m.first = &x.res;
    m.cur = array_calloc((size_t)x.c.n_devices * MEM_KIND_N, sizeof(*m.cur));
    m.total = array_calloc((size_t)x.c.n_devices * 2, sizeof(*m.total));
    if (!m.cur || !m.total) {
        rc = err_set(BAECHI_ENOMEM, "out of memory");
        goto cleanup;
    }
    m.peak_at_us = m.total + x.c.n_devices;
    for (int32_t d = 0; d < x.c.n_devices; d++) {
        m.peak_at_us[d] = -1;
    }
    fputs("device,time_ms", csv);
    for (int k = 0; k < MEM_KIND_N; k++) {
        fprintf(csv, ",%s_gib", mem_kind_name((enum mem_kind)k));
    }
    fputc('\n', csv);
    so.mem_obs = &obs;
    {
        struct sim_result again;

        sim_result_init(&again);
        rc = sim_run(&x.g, &x.c, x.have_pl ? x.pl.device_of : x.stored, &so, &again);
        sim_result_release(&again);
        CHECK(rc);
    }
    for (int32_t d = 0; d < x.c.n_devices; d++) { /* flat to the end of the step */
        series_row(&m, d, x.res.step_us);
    }
    if (m.rc) {
        rc = m.rc;
        goto cleanup;
    }
    qsort(m.row, m.n_row, sizeof(*m.row), cmp_series);
    for (size_t i = 0; i < m.n_row; i++) {
        fprintf(csv, "%d,%.6f", (int)m.row[i].device, (double)m.row[i].time_us / 1e3);
        for (int k = 0; k < MEM_KIND_N; k++) {
            fprintf(csv, ",%.6f", m.row[i].gib[k]);
        }
        fputc('\n', csv);
    }
    gp_terminal_height(gp, o->out, 170 * (int)x.c.n_devices + 120);
    /* one panel per device: stacked kinds, the limit, the peak */
    fputs("set datafile separator ','\nset grid\nset key at screen 0.995, screen 0.9 right top\n"
          "set style fill solid 0.85 noborder\n"
          "set lmargin at screen 0.07\nset rmargin at screen 0.86\n",
          gp);
    fprintf(gp, "set multiplot layout %d,1 title ", (int)x.c.n_devices);
    snprintf(title, sizeof(title), "Memory over one simulated step, by kind (%s model)\n%s",
             sim_model_name(so.model), x.desc);
    gp_qstr(gp, title);
    fputc('\n', gp);
    for (int32_t d = 0; d < x.c.n_devices; d++) {
        int64_t peak = x.res.dev[d].peak_bytes, limit = x.res.dev[d].limit_bytes;

        name = x.c.dev[d].name;
        fprintf(gp, "set xrange [0:%.6f]\nset xlabel %s\nset ylabel 'memory (GiB)'\n",
                (double)x.res.step_us / 1e3, d == x.c.n_devices - 1 ? "'time (ms)'" : "''");
        {
            double top = 1.08 * (double)(limit > peak ? limit : peak) / (1024.0 * 1024 * 1024);

            /* about four labelled ticks whatever the scale */
            fprintf(gp, "set yrange [0:%.6f]\nset ytics %.6g\n", top, nice_step(top / 4));
        }
        fputs("set title ", gp);
        {
            char t2[256];

            snprintf(t2, sizeof(t2), "%s: peak %.2f GiB of %.2f GiB%s", name,
                     (double)peak / (1024.0 * 1024 * 1024), (double)limit / (1024.0 * 1024 * 1024),
                     x.res.dev[d].oom ? " (OUT OF MEMORY)" : "");
            gp_qstr(gp, t2);
        }
        fputc('\n', gp);
        if (m.peak_at_us[d] >= 0 && peak > 0) { /* the peak, marked where first reached */
            fprintf(gp,
                    "set arrow 3 from first %.6f, graph 0 to first %.6f, graph 1 nohead lw 1 "
                    "dt 3 lc rgb '#000000' front\nset label 3 'peak' at first %.6f, graph 0.95 "
                    "offset 0.5,0 front\n",
                    (double)m.peak_at_us[d] / 1e3, (double)m.peak_at_us[d] / 1e3,
                    (double)m.peak_at_us[d] / 1e3);
        } else {
            fputs("unset arrow 3\nunset label 3\n", gp);
        }
        fprintf(gp,
                "set arrow 1 from graph 0, first %.6f to graph 1, first %.6f nohead lw 2 "
                "dt 2 lc rgb '#c00000' front\n",
                (double)limit / (1024.0 * 1024 * 1024), (double)limit / (1024.0 * 1024 * 1024));
        fprintf(gp,
                "set label 1 'limit' at graph 0.01, first %.6f offset 0,0.6 tc rgb '#c00000' "
                "front\n",
                (double)limit / (1024.0 * 1024 * 1024));
        fprintf(gp,
                "set arrow 2 from graph 0, first %.6f to graph 1, first %.6f nohead lw 1 "
                "lc rgb '#000000' front\n",
                (double)peak / (1024.0 * 1024 * 1024), (double)peak / (1024.0 * 1024 * 1024));
        fputs("plot ", gp);
        /* stacked: each kind's band between the sum of the kinds before it and with it */
        for (int k = MEM_KIND_N - 1; k >= 0; k--) {
            fprintf(gp, "%sDATA skip 1 using 2:($1 == %d ? (", k == MEM_KIND_N - 1 ? "" : ", ",
                    (int)d);
            for (int j = 0; j <= k; j++) {
                fprintf(gp, "%s$%d", j ? "+" : "", 3 + j);
            }
            fprintf(gp, ") : NaN) with filledcurves x1 lt %d title '%s'", k + 1,
                    d == 0 ? mem_kind_name((enum mem_kind)k) : "");
        }
        fputc('\n', gp);
    }
    fputs("unset multiplot\n", gp);
cleanup:
    free(m.row);
    free(m.cur);
    free(m.total);
    free(saved);
    rerun_release(&x);
    return rc;
}

/* ------------------------------------------------------------ gnuplot */

static char *find_gnuplot(void)
{
    const char *env = getenv("BAECHI_GNUPLOT"), *path = getenv("PATH");
    char *buf = NULL;

    if (env && *env) {
        return access(env, X_OK) == 0 ? array_strdup(env) : NULL;
    }
    while (path && *path) {
        const char *end = strchr(path, ':');
        size_t n = end ? (size_t)(end - path) : strlen(path);
        if (asprintf(&buf, "%.*s/gnuplot", (int)n, n ? path : ".") < 0) {
            return NULL;
        }
        if (access(buf, X_OK) == 0) {
            return buf;
        }
        free(buf);
        buf = NULL;
        path = end ? end + 1 : NULL;
    }
    return NULL;
}

static int run_gnuplot(const char *gnuplot, const char *script)
{
    pid_t pid;
    int st = 0;

    fflush(NULL);
    pid = fork();
    if (pid < 0) {
        return err_set(BAECHI_EIO, "cannot start gnuplot: %s", strerror(errno));
    }
    if (pid == 0) {
        execl(gnuplot, "gnuplot", script, (char *)NULL);
        _exit(127);
    }
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) {
            return err_set(BAECHI_EIO, "waiting for gnuplot: %s", strerror(errno));
        }
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        return err_set(BAECHI_EIO, "gnuplot failed (%s %d) on script '%s'",
                       WIFEXITED(st) ? "exit status" : "signal",
                       WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), script);
    }
    return 0;
}

static const char *terminal_for(const char *out)
{
    const char *dot = strrchr(out, '.');

    if (!dot) {
        return NULL;
    }
    if (strcmp(dot, ".png") == 0) {
        return "pngcairo size 1100,600 noenhanced font ',10'";
    }
    if (strcmp(dot, ".svg") == 0) {
        return "svg size 1100,600 noenhanced font ',10'";
    }
    if (strcmp(dot, ".pdf") == 0) {
        return "pdfcairo size 11in,6in noenhanced font ',10'";
    }
    return NULL;
}

/*
 * A temporary file beside path, open for writing.  A path that exists and is
 * no regular file (a terminal, a pipe, /dev/stdout) is written directly:
 * *tmp stays NULL and nothing is renamed over it.
 */
static int open_tmp(const char *path, char **tmp, FILE **f)
{
    struct stat sb;
    int fd;

    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        *tmp = NULL;
        if (!(*f = fopen(path, "w"))) {
            return err_set(BAECHI_EIO, "cannot write '%s': %s", path, strerror(errno));
        }
        return 0;
    }

    if (asprintf(tmp, "%s.tmp-XXXXXX", path) < 0) {
        *tmp = NULL;
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    if ((fd = mkstemp(*tmp)) < 0 || !(*f = fdopen(fd, "w"))) {
        int e = errno;
        if (fd >= 0) {
            close(fd);
            unlink(*tmp);
        }
        free(*tmp);
        *tmp = NULL;
        return err_set(BAECHI_EIO, "cannot write '%s': %s", path, strerror(e));
    }
    return 0;
}

int plot_make(struct db *db, const struct plot_opts *o)
{
    char dir[] = "/tmp/baechi-plot-XXXXXX";
    char *csv_path = NULL, *gp_path = NULL, *gnuplot = NULL, *csv_tmp = NULL, *gp_tmp = NULL;
    FILE *csv = NULL, *gp = NULL;
    const char *term = NULL;
    bool have_dir = false;
    struct stat sb;
    int rc = 0, k;

    if (!plot_kind_summary(o->kind)) {
        return err_set(BAECHI_EINVAL,
                       "unknown plot kind '%s' (step, placement-time, memory, peak, gantt, "
                       "scaling, line, memory-timeline)",
                       o->kind);
    }
    if (!o->out && !o->csv) {
        return err_set(BAECHI_EINVAL, "nothing to write: give -o <out.png|svg|pdf> or --csv <F>");
    }
    if (o->out && !(term = terminal_for(o->out))) {
        return err_set(BAECHI_EINVAL, "output '%s': the extension must be .png, .svg or .pdf",
                       o->out);
    }
    if (o->out && !(gnuplot = find_gnuplot())) {
        return err_set(BAECHI_EUNSUPPORTED,
                       "gnuplot not found in PATH (or $BAECHI_GNUPLOT): install it (Debian: "
                       "apt-get install gnuplot-nox), or write the data with --csv <F> only");
    }
    if (!mkdtemp(dir)) {
        rc = err_set(BAECHI_EIO, "cannot create a temporary directory: %s", strerror(errno));
        goto cleanup;
    }
    have_dir = true;
    if ((o->csv ? !(csv_path = array_strdup(o->csv))
                : asprintf(&csv_path, "%s/data.csv", dir) < 0) ||
        (o->script ? !(gp_path = array_strdup(o->script))
                   : asprintf(&gp_path, "%s/plot.gp", dir) < 0)) {
        rc = err_set(BAECHI_ENOMEM, "out of memory");
        goto cleanup;
    }
    /* the data and script are written next to where they go and renamed there only when
     * complete: a failed plot leaves no partial file */
    CHECK(open_tmp(csv_path, &csv_tmp, &csv));
    CHECK(open_tmp(gp_path, &gp_tmp, &gp));
    fprintf(gp, "# baechi plot %s (generated)\nset terminal %s\nset output ", o->kind,
            term ? term : "dumb");
    gp_str(gp, o->out ? o->out : "/dev/null");
    /* twelve distinct colours: ten configurations per figure stay apart */
    fputs("\nset linetype 1 lc rgb '#1f77b4'\nset linetype 2 lc rgb '#ff7f0e'\n"
          "set linetype 3 lc rgb '#2ca02c'\nset linetype 4 lc rgb '#d62728'\n"
          "set linetype 5 lc rgb '#9467bd'\nset linetype 6 lc rgb '#8c564b'\n"
          "set linetype 7 lc rgb '#e377c2'\nset linetype 8 lc rgb '#7f7f7f'\n"
          "set linetype 9 lc rgb '#bcbd22'\nset linetype 10 lc rgb '#17becf'\n"
          "set linetype 11 lc rgb '#393b79'\nset linetype 12 lc rgb '#e7ba52'\n"
          "set linetype cycle 12\n",
          gp);
    fputs("DATA = ", gp);
    gp_str(gp, csv_path);
    fputc('\n', gp);
    for (k = 0; kinds[k] && strcmp(kinds[k], o->kind) != 0; k++) {
    }
    switch (k) {
    case 0:
    case 1:
        rc = data_matrix(db, o, k, csv, gp);
        break;
    case 2:
    case 5:
    case 6:
        rc = data_line(db, o, k, csv, gp);
        break;
    case 3:
        rc = data_peak(db, o, csv, gp);
        break;
    case 4:
        rc = data_gantt(db, o, csv, gp);
        break;
    case 7:
        rc = data_memtimeline(db, o, csv, gp);
        break;
    default:
        rc = err_set(BAECHI_EINVAL, "unknown plot kind '%s'", o->kind);
        break;
    }
    if (fclose(csv) != 0 && !rc) {
        rc = err_set(BAECHI_EIO, "cannot write '%s'", csv_path);
    }
    csv = NULL;
    if (fclose(gp) != 0 && !rc) {
        rc = err_set(BAECHI_EIO, "cannot write '%s'", gp_path);
    }
    gp = NULL;
    if (rc) {
        goto cleanup;
    }
    if ((csv_tmp && rename(csv_tmp, csv_path) != 0) || (gp_tmp && rename(gp_tmp, gp_path) != 0)) {
        rc = err_set(BAECHI_EIO, "cannot write '%s': %s", csv_path, strerror(errno));
        goto cleanup;
    }
    free(csv_tmp);
    free(gp_tmp);
    csv_tmp = gp_tmp = NULL;
    if (!o->out) {
        goto cleanup;
    }
    CHECK(run_gnuplot(gnuplot, gp_path));
    if (stat(o->out, &sb) != 0 || sb.st_size == 0) {
        rc = err_set(BAECHI_EIO, "gnuplot wrote no output to '%s'", o->out);
    }
cleanup:
    if (csv) {
        fclose(csv);
    }
    if (gp) {
        fclose(gp);
    }
    if (csv_tmp) {
        unlink(csv_tmp);
        free(csv_tmp);
    }
    if (gp_tmp) {
        unlink(gp_tmp);
        free(gp_tmp);
    }
    if (have_dir) {
        char p[64];
        snprintf(p, sizeof(p), "%s/data.csv", dir);
        unlink(p);
        snprintf(p, sizeof(p), "%s/plot.gp", dir);
        unlink(p);
        rmdir(dir);
    }
    free(csv_path);
    free(gp_path);
    free(gnuplot);
    return rc;
}
