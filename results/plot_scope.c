/*
 * plot_scope.c - what the figures draw (plot_internal.h): rows queried from
 * the database, the scope of a figure and the one run of a one-run figure.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "results/plot_internal.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"
#include "results/report.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int plot_rows_add(void *ctx, int ncol, const char *const *names, const char *const *vals)
{
    struct rows *r = ctx;

    (void)names;
    r->ncol = ncol;
    if (ARRAY_RESERVE(r->v, r->alloc, (size_t)(r->n + 1) * (size_t)ncol)) {
        return BAECHI_ENOMEM;
    }
    /* all NULL first: a failed copy leaves a row that plot_rows_release frees */
    memset(&r->v[(size_t)r->n * (size_t)ncol], 0, (size_t)ncol * sizeof(*r->v));
    for (int c = 0; c < ncol; c++) {
        if (vals[c] && !(r->v[(size_t)r->n * (size_t)ncol + (size_t)c] = mem_strdup(vals[c]))) {
            r->n++;
            return BAECHI_ENOMEM;
        }
    }
    r->n++;
    return 0;
}

void plot_rows_release(struct rows *r)
{
    for (size_t i = 0; i < (size_t)r->n * (size_t)r->ncol; i++) {
        free(r->v[i]);
    }
    free(r->v);
    memset(r, 0, sizeof(*r));
}

const char *plot_cell(const struct rows *r, int i, int c)
{
    return r->v[(size_t)i * (size_t)r->ncol + (size_t)c];
}

/* Distinct values of column c in order of appearance, as a space-separated list for gnuplot. */
int plot_distinct(const struct rows *r, int c, char ***out, int *n)
{
    *out = NULL;
    *n = 0;
    for (int i = 0; i < r->n; i++) {
        const char *s = plot_cell(r, i, c) ? plot_cell(r, i, c) : "?";
        bool seen = false;
        for (int k = 0; k < *n; k++) {
            seen |= strcmp((*out)[k], s) == 0;
        }
        if (!seen) {
            char **a = mem_realloc(*out, sizeof(char *) * (size_t)(*n + 1));
            if (!a) {
                return err_set(BAECHI_ENOMEM, "out of memory");
            }
            *out = a;
            (*out)[(*n)++] = (char *)s; /* borrowed from r */
        }
    }
    return 0;
}

const char *plot_model(const struct plot_opts *o)
{
    return o->model ? o->model : "timed";
}

static int query(struct db *db, const struct rsql *q, struct rows *r)
{
    return db_query_params(db, q->sql, q->p, q->np, plot_rows_add, r);
}

/* SELECT <select> <from> <tail>: the rows, with the scope's parameters bound. */
int plot_query_in(struct db *db, const char *select, const struct rsql *from, const char *tail,
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

void plot_scope_release(struct scope *s)
{
    rsql_release(&s->from);
}

/* Appends a then b to buf. */
void plot_addf(char *buf, size_t size, const char *a, const char *b)
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
void plot_dim_select(const struct rdim *d, char *buf, size_t size)
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
int plot_scope_build(struct db *db, const struct plot_opts *o, const struct rdim *const *free_dims,
                     const char *hint, struct scope *s)
{
    static const char *const order[] = {
        "workload", "cluster", "devices", "memory_fraction", "comm_factor", "compute_factor", NULL};
    struct rsql base;
    struct rows r = {0};
    char vals[400], sel[1024];
    int rc = 0;

    memset(s, 0, sizeof(*s));
    rsql_init(&s->from);
    rsql_init(&base);
    snprintf(s->model, sizeof(s->model), "%s", plot_model(o));
    CHECK(rsql_cat(&base, "FROM runs r WHERE r.sim_model = "));
    CHECK(rsql_text(&base, s->model));
    CHECK(rfilter_check(db, o->where, &base));
    CHECK(rsql_append(&s->from, &base));
    CHECK(rfilter_sql(o->where, &s->from));
    CHECK(plot_query_in(db, "COUNT(*)", &s->from, NULL, &r));
    if (r.n == 0 || strcmp(plot_cell(&r, 0, 0), "0") == 0) {
        rc = err_set(BAECHI_EINVAL, "no runs with the %s simulator model%s to plot", s->model,
                     o->where && o->where->n ? " match the --where conditions" : "");
        goto cleanup;
    }
    for (int i = 0; order[i]; i++) {
        const struct rdim *d = rdim_find(order[i]);
        const char *v;
        plot_rows_release(&r);
        if (in_list(d, free_dims)) {
            continue;
        }
        plot_dim_select(d, sel, sizeof(sel));
        CHECK(plot_query_in(db, sel, &s->from, "GROUP BY 1 ORDER BY MIN(r.id)", &r));
        if (r.n > 1 && !rfilter_get(o->where, d->name)) {
            bool one = false;
            for (int k = 0; k < r.n; k++) {
                one |= plot_cell(&r, k, 0) && strtod(plot_cell(&r, k, 0), NULL) == 1.0;
            }
            if (strcmp(d->name, "memory_fraction") == 0) {
                /* the largest fraction of each workload among the selected runs */
                struct rsql pin;
                rsql_init(&pin);
                rc = rsql_cat(&pin, " AND r.memory_fraction = (SELECT MAX(q.memory_fraction) FROM "
                                    "runs q WHERE q.workload = r.workload AND q.workload_hash IS "
                                    "r.workload_hash AND q.id IN (SELECT r.id ");
                if (!rc && !(rc = rsql_append(&pin, &s->from)) && !(rc = rsql_cat(&pin, "))"))) {
                    rc = rsql_append(&s->from, &pin);
                }
                rsql_release(&pin);
                if (rc) {
                    goto cleanup;
                }
                plot_rows_release(&r);
                CHECK(plot_query_in(db, sel, &s->from, "GROUP BY 1", &r));
                plot_addf(s->fixed, sizeof(s->fixed),
                          *s->fixed ? ", memory fraction " : "memory fraction ",
                          r.n == 1 && plot_cell(&r, 0, 0) ? plot_cell(&r, 0, 0) : "");
                plot_addf(s->fixed, sizeof(s->fixed),
                          r.n == 1 ? " (the largest stored)" : "the largest stored per workload",
                          "");
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
                                        plot_cell(&r, k, 0) ? plot_cell(&r, k, 0) : "(none)");
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
        v = plot_cell(&r, 0, 0) ? plot_cell(&r, 0, 0) : "(none)";
        if (strcmp(d->name, "workload") == 0) {
            plot_addf(s->fixed, sizeof(s->fixed), *s->fixed ? ", " : "", v);
        } else if (strcmp(d->name, "cluster") == 0) {
            plot_addf(s->fixed, sizeof(s->fixed), *s->fixed ? " on " : "", v);
        } else if (strcmp(d->name, "devices") == 0) {
            plot_addf(s->fixed, sizeof(s->fixed), " (", v);
            plot_addf(s->fixed, sizeof(s->fixed), " devices)", "");
        } else if (strcmp(d->name, "memory_fraction") == 0) {
            plot_addf(s->fixed, sizeof(s->fixed),
                      *s->fixed ? ", memory fraction " : "memory fraction ", v);
        } else if (strtod(v, NULL) != 1.0) {
            plot_addf(s->fixed, sizeof(s->fixed), *s->fixed ? ", " : "", d->name);
            plot_addf(s->fixed, sizeof(s->fixed), " ", v);
        }
    }
    CHECK(results_note_collisions(db, &s->from));
    plot_rows_release(&r);
    CHECK(plot_query_in(db, "r.sweep", &s->from, "GROUP BY 1", &r));
    if (r.n == 1 && plot_cell(&r, 0, 0)) {
        plot_addf(s->fixed, sizeof(s->fixed), *s->fixed ? ", sweep " : "sweep ",
                  plot_cell(&r, 0, 0));
    }
    plot_addf(s->fixed, sizeof(s->fixed), *s->fixed ? ", " : "", s->model);
    plot_addf(s->fixed, sizeof(s->fixed), " simulator", "");
cleanup:
    plot_rows_release(&r);
    rsql_release(&base);
    if (rc) {
        plot_scope_release(s);
    }
    return rc;
}

/* Distinct placer configurations of a scope in order of first run. */
int plot_configs_of(struct db *db, const struct scope *s, struct rows *out)
{
    return plot_query_in(db, RESULTS_CONFIG_SQL, &s->from,
                         "GROUP BY 1 ORDER BY " RESULTS_CONFIG_ORDER_SQL, out);
}

/* SQL fragment: the run is the paper's configuration (m-ETF with co-placement and fusion). */
#define PAPER_CONFIG_SQL                                                                           \
    "(r.placer = 'paper' OR (r.placer = 'm-etf' AND r.grouper = 'coplace' AND r.fusion = 1))"

/*
 * The run of a one-run figure: --run, else the paper configuration on the
 * first workload at full memory (among the runs --where selects), else the
 * first simulated run at the largest memory fraction.  desc says which.
 */
int plot_resolve_run(struct db *db, const struct plot_opts *o, char *id, size_t size, char *desc,
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
            !(rc = rsql_text(&base, plot_model(o))) && !(rc = rfilter_check(db, o->where, &base))) {
            rc = rsql_append(&from, &base);
        }
        rsql_release(&base);
        if (rc) {
            goto cleanup;
        }
        CHECK(rfilter_sql(o->where, &from));
        CHECK(rsql_cat(&from, " AND r.status IN ('ok','oom')"));
        CHECK(plot_query_in(db, RESULTS_WORKLOAD_SQL, &from, "ORDER BY r.id LIMIT 1", &r));
        if (r.n == 0) {
            rc = err_set(BAECHI_EINVAL,
                         "no simulated %s-model run in the database%s (give --run ID)",
                         plot_model(o), o->where && o->where->n ? " matches --where" : "");
            goto cleanup;
        }
        CHECK(rsql_cat(&from, " ORDER BY " RESULTS_WORKLOAD_SQL " = "));
        CHECK(rsql_text(&from, plot_cell(&r, 0, 0)));
        CHECK(rsql_cat(&from, " DESC, " PAPER_CONFIG_SQL " DESC, r.memory_fraction DESC, r.id"));
        plot_rows_release(&r);
    }
    CHECK(plot_query_in(
        db,
        "r.id, " RESULTS_WORKLOAD_SQL ", " RESULTS_CLUSTER_SQL ", r.n_devices, " RESULTS_CONFIG_SQL
        ", printf('%g', r.memory_fraction), r.sim_model, r.status, r.step_us, " PAPER_CONFIG_SQL,
        &from, "LIMIT 1", &r));
    if (r.n == 0) {
        rc = err_set(BAECHI_EINVAL, "no run with id %s", id);
        goto cleanup;
    }
    snprintf(id, size, "%s", plot_cell(&r, 0, 0));
    snprintf(desc, dsize, "run %s: %s on %s, %s (%s devices), memory fraction %s, %s simulator%s%s",
             plot_cell(&r, 0, 0), plot_cell(&r, 0, 4), plot_cell(&r, 0, 1), plot_cell(&r, 0, 2),
             plot_cell(&r, 0, 3) ? plot_cell(&r, 0, 3) : "?", plot_cell(&r, 0, 5),
             plot_cell(&r, 0, 6), strcmp(plot_cell(&r, 0, 7), "ok") == 0 ? "" : ", ",
             strcmp(plot_cell(&r, 0, 7), "ok") == 0 ? "" : plot_cell(&r, 0, 7));
    if (o->run <= 0) {
        size_t n = strlen(desc);
        snprintf(desc + n, dsize - n, "\n(default: %s; choose with --run ID or --where)",
                 strcmp(plot_cell(&r, 0, 9), "1") == 0
                     ? "the paper's configuration on the first workload at the largest memory "
                       "fraction"
                     : "no paper configuration stored: the first run at the largest memory "
                       "fraction");
    }
cleanup:
    rsql_release(&from);
    plot_rows_release(&r);
    return rc;
}

int plot_run_query(struct db *db, const struct plot_opts *o, const char *sql, const char *why_none,
                   char *id, size_t size, char *desc, size_t dsize, struct rows *r)
{
    int rc = 0;

    CHECK(plot_resolve_run(db, o, id, size, desc, dsize));
    CHECK(db_query1(db, sql, id, plot_rows_add, r));
    if (r->n == 0) {
        rc = why_none ? err_set(BAECHI_EINVAL, "run %s %s", id, why_none)
                      : err_set(BAECHI_EINVAL, "no run with id %s", id);
    }
cleanup:
    return rc;
}
