/*
 * plot_step.c - the step and placement-time figures (plot.h): grouped bars, a
 * group per workload and a bar per placer configuration.
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

/* Wide CSV: workload, then one column per placer configuration.  what: 0 step, 1 placement. */
int plot_data_matrix(struct db *db, const struct plot_opts *o, int what, FILE *csv, FILE *gp)
{
    const struct rdim *free_dims[] = {rdim_find("workload"), NULL};
    struct rows r = {0}, cf = {0};
    struct scope sc;
    char **wl = NULL, **pl = NULL, title[1600], oomnote[400] = "", leftout[300] = "";
    int nw = 0, np = 0, rc = 0, nkept = 0;
    const char *norm = o->normalise ? o->normalise : "single";
    bool by_ref = what == 0 && strcmp(norm, "none") != 0;

    CHECK(plot_scope_build(db, o, free_dims, " (or draw it with plot line --x)", &sc));
    rc = plot_query_in(db,
                       RESULTS_WORKLOAD_SQL
                       ", " RESULTS_CONFIG_SQL ", "
                       "AVG(CASE WHEN r.status IN ('ok','oom') THEN r.step_us END), "
                       "AVG(r.placement_ms), COUNT(*), "
                       "SUM(r.status = 'ok') = 0 AND SUM(r.status = 'oom') > 0",
                       &sc.from, "GROUP BY 1, 2 ORDER BY MIN(r.id)", &r);
    if (!rc) {
        rc = plot_configs_of(db, &sc, &cf);
    }
    if (rc) {
        goto scoped;
    }
    if ((rc = plot_distinct(&r, 0, &wl, &nw))) {
        goto scoped;
    }
    np = cf.n;
    if (!(pl = mem_calloc((size_t)np + 1, sizeof(*pl)))) {
        rc = err_set(BAECHI_ENOMEM, "out of memory");
        goto scoped;
    }
    for (int k = 0; k < np; k++) {
        pl[k] = (char *)plot_cell(&cf, k, 0); /* borrowed from cf */
    }
    fputs("workload", csv);
    for (int k = 0; k < np; k++) {
        fputc(',', csv);
        plot_csv_name(csv, pl[k]);
    }
    fputc('\n', csv);
    for (int w = 0; w < nw; w++) {
        double base = NAN;
        for (int i = 0; by_ref && i < r.n; i++) {
            if (strcmp(plot_cell(&r, i, 0), wl[w]) == 0 && strcmp(plot_cell(&r, i, 1), norm) == 0 &&
                plot_cell(&r, i, 2)) {
                base = strtod(plot_cell(&r, i, 2), NULL);
            }
        }
        /* a workload without a reference run would be an empty tick */
        if (by_ref && !(base > 0)) {
            plot_addf(leftout, sizeof(leftout), *leftout ? ", " : "", wl[w]);
            continue;
        }
        nkept++;
        plot_csv_name(csv, wl[w]);
        for (int k = 0; k < np; k++) {
            double v = NAN;
            for (int i = 0; i < r.n; i++) {
                if (strcmp(plot_cell(&r, i, 0), wl[w]) == 0 &&
                    strcmp(plot_cell(&r, i, 1), pl[k]) == 0 && plot_cell(&r, i, 2 + what)) {
                    v = strtod(plot_cell(&r, i, 2 + what), NULL);
                    if (what == 0 && strcmp(plot_cell(&r, i, 5), "1") == 0) {
                        plot_addf(oomnote, sizeof(oomnote), *oomnote ? "; " : "", pl[k]);
                        plot_addf(oomnote, sizeof(oomnote), " on ", wl[w]);
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
        struct strbuf ylabel = STRBUF_INIT;

        CHECK(strbuf_addf(&ylabel, "step time / %s step time (x)", norm));
        fputs("set ylabel ", gp);
        plot_gp_quote(gp, ylabel.buf);
        strbuf_release(&ylabel);
        fputs("\nset yrange [0:*]\n", gp);
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
        plot_addf(title, sizeof(title), "\nout of memory (bar drawn): ", oomnote);
    }
    if (*leftout) {
        plot_addf(title, sizeof(title), "\nleft out, no reference run: ", leftout);
    }
    fputs("set title ", gp);
    plot_gp_quote(gp, title);
    /* the workloads fill the frame (the histogram style leaves a slot empty otherwise) */
    fprintf(gp, "\nset xrange [-0.6:%g]\n", nkept - 0.4);
    /* a colour per configuration, the same in every figure */
    fputs("plot ", gp);
    for (int k = 0; k < np; k++) {
        const char *rgb;
        int pt, dt;
        plot_config_style(pl[k], &rgb, &pt, &dt);
        fprintf(gp, "%sDATA using %d%s title columnheader(%d) lc rgb '%s'", k ? ", \\\n     " : "",
                k + 2, k ? "" : ":xtic(1)", k + 2, rgb);
    }
    fputs(np ? "\n" : "NaN notitle\n", gp);
scoped:
    plot_scope_release(&sc);
cleanup:
    free(wl);
    free(pl);
    plot_rows_release(&r);
    plot_rows_release(&cf);
    return rc;
}
