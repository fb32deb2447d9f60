/*
 * plot_memory_timeline.c - the memory-timeline figure (plot.h): the memory of each device
 * over one simulated step, stacked by kind, with the limit and the peak.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "results/plot_internal.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"
#include "core/strbuf.h"
#include "results/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 1, 2 or 5 times a power of ten, at least x. */
static double nice_step(double x)
{
    double p = x > 0 ? pow(10, floor(log10(x))) : 1;

    return x <= p ? p : x <= 2 * p ? 2 * p : x <= 5 * p ? 5 * p : 10 * p;
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

int plot_data_memory_timeline(struct db *db, const struct plot_opts *o, FILE *csv, FILE *gp)
{
    struct rerun x;
    struct mem_series m = {0};
    struct sim_mem_obs obs = {on_series, &m};
    struct sim_options so = {.model = SIM_MODEL_TIMED};
    uint8_t *saved = NULL;
    struct strbuf title = STRBUF_INIT;
    const char *name = NULL;
    int rc = 0;

    /* the graph is needed before the run for the kinds: load, then simulate once more */
    CHECK(plot_rerun_sim(db, o, &so, NULL, NULL, &x));
    CHECK(sim_saved_ops(&x.g, &saved));
    m.g = &x.g;
    m.saved = saved;
    m.first = &x.res;
    m.cur = mem_calloc((size_t)x.c.n_devices * MEM_KIND_N, sizeof(*m.cur));
    m.total = mem_calloc((size_t)x.c.n_devices * 2, sizeof(*m.total));
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
        rc = sim_run(&x.g, &x.c, plot_rerun_device_of(&x), &so, &again);
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
    plot_gp_terminal_height(gp, o->out, 170 * (int)x.c.n_devices + 120);
    /* one panel per device: stacked kinds, the limit, the peak */
    fputs("set datafile separator ','\nset grid\nset key at screen 0.995, screen 0.9 right top\n"
          "set style fill solid 0.85 noborder\n"
          "set lmargin at screen 0.07\nset rmargin at screen 0.86\n",
          gp);
    fprintf(gp, "set multiplot layout %d,1 title ", (int)x.c.n_devices);
    CHECK(strbuf_addf(&title, "Memory over one simulated step, by kind (%s model)\n%s",
                      sim_model_name(so.model), x.desc));
    plot_gp_quote(gp, title.buf);
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
            plot_gp_quote(gp, t2);
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
            fprintf(gp, ") : NaN) with filledcurves x1 lt %d title ", k + 1);
            plot_gp_quote(gp, d == 0 ? mem_kind_name((enum mem_kind)k) : "");
        }
        fputc('\n', gp);
    }
    fputs("unset multiplot\n", gp);
cleanup:
    free(m.row);
    free(m.cur);
    free(m.total);
    free(saved);
    plot_rerun_release(&x);
    strbuf_release(&title);
    return rc;
}
