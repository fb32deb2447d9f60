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
#include "results/report.h"
#include "results/sweep.h"
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

static const char *const kinds[] = {"step",  "placement-time", "memory", "peak",
                                    "gantt", "scaling",        NULL};
static const char *const summaries[] = {
    "step time per workload and placer, grouped bars, normalised (the paper's main figure)",
    "placement time per workload and placer, log scale",
    "step time vs memory fraction per placer (one workload); infeasible points marked",
    "per-device peak memory against the limit for one run",
    "timeline of one simulated step: compute and transfers per device",
    "placement time vs graph size, log-log, per placer",
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

/* ------------------------------------------------------------ kinds */

#define LARGEST_FRACTION                                                                           \
    " AND memory_fraction = (SELECT MAX(memory_fraction) FROM runs q WHERE q.workload = "          \
    "r.workload AND q.sim_model = r.sim_model) "

/* Wide CSV: workload, then one column per placer label.  what: 0 step, 1 placement time. */
static int data_matrix(struct db *db, const struct plot_opts *o, int what, FILE *csv, FILE *gp)
{
    struct rows r = {0};
    char **wl = NULL, **pl = NULL;
    int nw = 0, np = 0, rc = 0;
    const char *norm = o->normalise ? o->normalise : "single";

    CHECK(db_query1(db,
                    "SELECT workload, " REPORT_LABEL_SQL ", "
                    "AVG(CASE WHEN status IN ('ok','oom') THEN step_us END), AVG(placement_ms) "
                    "FROM runs r WHERE sim_model = ?1 AND comm_factor = 1 AND compute_factor = "
                    "1 " LARGEST_FRACTION "GROUP BY 1, 2 ORDER BY MIN(id)",
                    model_of(o), rows_add, &r));
    if (r.n == 0) {
        rc = err_set(BAECHI_EINVAL, "no runs with the %s simulator model to plot", model_of(o));
        goto cleanup;
    }
    CHECK(distinct(&r, 0, &wl, &nw));
    CHECK(distinct(&r, 1, &pl, &np));
    fputs("workload", csv);
    for (int k = 0; k < np; k++) {
        fputc(',', csv);
        csv_field(csv, pl[k]);
    }
    fputc('\n', csv);
    for (int w = 0; w < nw; w++) {
        double base = NAN;
        csv_field(csv, wl[w]);
        for (int i = 0; what == 0 && strcmp(norm, "none") != 0 && i < r.n; i++) {
            if (strcmp(cell(&r, i, 0), wl[w]) == 0 && strcmp(cell(&r, i, 1), norm) == 0 &&
                cell(&r, i, 2)) {
                base = strtod(cell(&r, i, 2), NULL);
            }
        }
        for (int k = 0; k < np; k++) {
            double v = NAN;
            for (int i = 0; i < r.n; i++) {
                if (strcmp(cell(&r, i, 0), wl[w]) == 0 && strcmp(cell(&r, i, 1), pl[k]) == 0 &&
                    cell(&r, i, 2 + what)) {
                    v = strtod(cell(&r, i, 2 + what), NULL);
                }
            }
            if (what == 0) {
                v = strcmp(norm, "none") == 0 ? v / 1000.0 : v / base;
            }
            if (isnan(v)) {
                fputs(",NaN", csv);
            } else {
                fprintf(csv, ",%.6g", v);
            }
        }
        fputc('\n', csv);
    }
    fputs("set datafile separator ','\nset datafile missing 'NaN'\n"
          "set style data histograms\nset style histogram clustered gap 1\n"
          "set style fill solid 0.8 border -1\nset key outside right top\nset grid ytics\n"
          "set xtics rotate by -20\n",
          gp);
    if (what == 0) {
        if (strcmp(norm, "none") == 0) {
            fprintf(gp, "set ylabel 'step time (ms), %s simulator'\n", model_of(o));
        } else {
            fprintf(gp, "set ylabel 'step time / %s step time (x)'\n", norm);
        }
        fprintf(gp, "set title 'Step time per workload and placer (infeasible: no bar)'\n"
                    "set yrange [0:*]\n");
    } else {
        fputs("set ylabel 'placement time (ms)'\nset logscale y\n"
              "set title 'Placement time per workload and placer'\n",
              gp);
    }
    fprintf(gp, "plot for [i=2:%d] DATA using i:xtic(1) title columnheader(i)\n", np + 1);
cleanup:
    free(wl);
    free(pl);
    rows_release(&r);
    return rc;
}

static int data_memory(struct db *db, const struct plot_opts *o, FILE *csv, FILE *gp)
{
    struct rows r = {0};
    char **pl = NULL;
    int np = 0, rc = 0;
    double ymax = 0;

    CHECK(db_query1(db,
                    "SELECT " REPORT_LABEL_SQL ", memory_fraction, "
                    "AVG(CASE WHEN status IN ('ok','oom') THEN step_us END) / 1000.0, "
                    "CASE WHEN SUM(status = 'ok') > 0 THEN 'ok' WHEN SUM(status = 'oom') > 0 "
                    "THEN 'oom' ELSE 'infeasible' END "
                    "FROM runs r WHERE sim_model = ?1 AND comm_factor = 1 AND compute_factor = 1 "
                    "AND workload = coalesce(?2, (SELECT workload FROM runs ORDER BY id LIMIT 1)) "
                    "GROUP BY 1, 2 ORDER BY MIN(id), 2",
                    model_of(o), rows_add, &r));
    (void)0;
    if (r.n == 0) {
        rc = err_set(BAECHI_EINVAL, "no runs of workload '%s' to plot",
                     o->workload ? o->workload : "(first)");
        goto cleanup;
    }
    CHECK(distinct(&r, 0, &pl, &np));
    fputs("placer,memory_fraction,step_ms,status\n", csv);
    for (int i = 0; i < r.n; i++) {
        double y = cell(&r, i, 2) ? strtod(cell(&r, i, 2), NULL) : NAN;
        ymax = y > ymax ? y : ymax;
        csv_field(csv, cell(&r, i, 0));
        fprintf(csv, ",%s,%s,%s\n", cell(&r, i, 1), cell(&r, i, 2) ? cell(&r, i, 2) : "NaN",
                cell(&r, i, 3));
    }
    fputs("set datafile separator ','\nset key outside right top\nset grid\n"
          "set xlabel 'memory fraction of each device'\n",
          gp);
    fprintf(gp, "set ylabel 'step time (ms), %s simulator'\n", model_of(o));
    fputs("set title 'Step time vs memory (x on top: infeasible; circled: out of memory)'\n"
          "set yrange [0:*]\n",
          gp);
    fprintf(gp, "TOP = %.6g\nPLACERS = \"", ymax > 0 ? ymax * 1.08 : 1.0);
    for (int k = 0; k < np; k++) {
        fprintf(gp, "%s%s", k ? " " : "", pl[k]);
    }
    fputs("\"\nplot for [k=1:words(PLACERS)] DATA skip 1 using 2:((strcol(1) eq word(PLACERS,k) "
          "&& strcol(4) ne 'infeasible') ? $3 : NaN) with linespoints lw 2 title word(PLACERS,k), "
          "\\\n     for [k=1:words(PLACERS)] DATA skip 1 using 2:((strcol(1) eq word(PLACERS,k) "
          "&& strcol(4) eq 'infeasible') ? TOP : NaN) with points pt 2 ps 2 lc k notitle, "
          "\\\n     for [k=1:words(PLACERS)] DATA skip 1 using 2:((strcol(1) eq word(PLACERS,k) "
          "&& strcol(4) eq 'oom') ? $3 : NaN) with points pt 6 ps 2.5 lc k notitle\n",
          gp);
cleanup:
    free(pl);
    rows_release(&r);
    return rc;
}

static int resolve_run(struct db *db, const struct plot_opts *o, char *id, size_t size)
{
    struct rows r = {0};
    int rc;

    if (o->run > 0) {
        snprintf(id, size, "%" PRId64, o->run);
        return 0;
    }
    rc = db_query1(db,
                   "SELECT id FROM runs WHERE status IN ('ok','oom') AND sim_model = ?1 "
                   "ORDER BY id DESC LIMIT 1",
                   model_of(o), rows_add, &r);
    if (!rc && r.n == 0) {
        rc = err_set(BAECHI_EINVAL, "no simulated run in the database (give --run ID)");
    }
    if (!rc) {
        snprintf(id, size, "%s", cell(&r, 0, 0));
    }
    rows_release(&r);
    return rc;
}

static int data_peak(struct db *db, const struct plot_opts *o, FILE *csv, FILE *gp)
{
    struct rows r = {0};
    char id[32];
    int rc;

    CHECK(resolve_run(db, o, id, sizeof(id)));
    CHECK(db_query1(db,
                    "SELECT coalesce(name, device), peak_bytes / 1073741824.0, limit_bytes / "
                    "1073741824.0, coalesce(placer_limit_bytes / 1073741824.0, 'NaN') FROM devices "
                    "WHERE run_id = ?1 ORDER BY device",
                    id, rows_add, &r));
    if (r.n == 0) {
        rc = err_set(BAECHI_EINVAL, "run %s has no per-device rows (infeasible or error)", id);
        goto cleanup;
    }
    fputs("device,peak_gib,limit_gib,placer_limit_gib\n", csv);
    for (int i = 0; i < r.n; i++) {
        csv_field(csv, cell(&r, i, 0));
        fprintf(csv, ",%s,%s,%s\n", cell(&r, i, 1), cell(&r, i, 2), cell(&r, i, 3));
    }
    fputs("set datafile separator ','\nset datafile missing 'NaN'\n"
          "set style data histograms\nset style histogram clustered gap 1\n"
          "set style fill solid 0.8 border -1\nset key outside right top\nset grid ytics\n"
          "set ylabel 'memory (GiB)'\nset yrange [0:*]\n",
          gp);
    fprintf(gp, "set title 'Peak memory per device vs limit, run %s'\n", id);
    fputs("plot DATA using 2:xtic(1) title 'simulated peak', '' using 3 title 'device memory', "
          "'' using 4 title 'placer limit'\n",
          gp);
cleanup:
    rows_release(&r);
    return rc;
}

static int data_scaling(struct db *db, const struct plot_opts *o, FILE *csv, FILE *gp)
{
    struct rows r = {0};
    char **pl = NULL;
    int np = 0, rc = 0;

    CHECK(db_query1(db,
                    "SELECT " REPORT_LABEL_SQL ", n_ops, AVG(placement_ms) FROM runs r "
                    "WHERE sim_model = ?1 AND placement_ms > 0 AND n_ops > 0 "
                    "GROUP BY 1, 2 ORDER BY MIN(id), 2",
                    model_of(o), rows_add, &r));
    if (r.n == 0) {
        rc = err_set(BAECHI_EINVAL, "no placed runs to plot");
        goto cleanup;
    }
    CHECK(distinct(&r, 0, &pl, &np));
    fputs("placer,n_ops,placement_ms\n", csv);
    for (int i = 0; i < r.n; i++) {
        csv_field(csv, cell(&r, i, 0));
        fprintf(csv, ",%s,%s\n", cell(&r, i, 1), cell(&r, i, 2));
    }
    fputs("set datafile separator ','\nset key outside right top\nset grid\nset logscale xy\n"
          "set xlabel 'graph size (ops)'\nset ylabel 'placement time (ms)'\n"
          "set title 'Placement time vs graph size'\n",
          gp);
    fputs("PLACERS = \"", gp);
    for (int k = 0; k < np; k++) {
        fprintf(gp, "%s%s", k ? " " : "", pl[k]);
    }
    fputs("\"\nplot for [k=1:words(PLACERS)] DATA skip 1 using 2:(strcol(1) eq word(PLACERS,k) ? "
          "$3 : NaN) with linespoints lw 2 title word(PLACERS,k)\n",
          gp);
cleanup:
    free(pl);
    rows_release(&r);
    return rc;
}

/* Gantt: the run is placed and simulated again with a trace (or its stored placement used). */
static int data_gantt(struct db *db, const struct plot_opts *o, FILE *csv, FILE *gp)
{
    struct rows r = {0};
    struct sweep sw;
    struct cluster c;
    struct placement pl;
    struct placer_stats st;
    struct trace t;
    struct sim_result res;
    enum sim_model model;
    int32_t *stored = NULL, n_stored = 0;
    int64_t *weights = NULL;
    bool have_sw = false, have_c = false, have_pl = false, have_t = false;
    char id[32], *yaml = NULL;
    int rc = 0;

    memset(&pl, 0, sizeof(pl));
    placer_stats_init(&st);
    sim_result_init(&res);
    CHECK(resolve_run(db, o, id, sizeof(id)));
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
    /* a one-point sweep loads the workload and cluster as the sweep did */
    if (asprintf(&yaml,
                 "workloads: ['%s']\nclusters: ['%s']\ndevices: [%s]\nplacers: ['%s']\n"
                 "groupers: [%s]\nfusion: [%s]\nmemory_fractions: [%s]\ncomm_factors: [%s]\n"
                 "seeds: [%s]\nsct_threshold: %s\nmodels: [%s]\ncompute_factors: [%s]\n",
                 cell(&r, 0, 0), cell(&r, 0, 1), cell(&r, 0, 2), cell(&r, 0, 3), cell(&r, 0, 4),
                 strcmp(cell(&r, 0, 5), "0") ? "true" : "false", cell(&r, 0, 6), cell(&r, 0, 7),
                 strcmp(cell(&r, 0, 9), "0") ? cell(&r, 0, 9) : "1",
                 strtod(cell(&r, 0, 8), NULL) > 0 ? cell(&r, 0, 8) : "0.1", cell(&r, 0, 10),
                 cell(&r, 0, 12) ? cell(&r, 0, 12) : "1") < 0) {
        rc = err_set(BAECHI_ENOMEM, "out of memory");
        goto cleanup;
    }
    CHECK(sweep_prepare(&sw, yaml, strlen(yaml), "(run)"));
    have_sw = true;
    if (sw.n_points != 1 || sw.wl[0].error || sw.cl[0].error) {
        rc = err_set(BAECHI_EINVAL, "run %s cannot be loaded again: %s", id,
                     sw.n_points != 1 ? "?"
                     : sw.wl[0].error ? sw.wl[0].error
                                      : sw.cl[0].error);
        goto cleanup;
    }
    CHECK(cluster_read_yaml_string(&c, sw.cl[0].yaml, sw.cl[0].yaml_len, sw.cl[0].spec));
    have_c = true;
    CHECK(db_load_placement(db, strtoll(id, NULL, 10), &stored, &n_stored));
    if (!stored || n_stored != sw.wl[0].g.n_ops) {
        CHECK(placer_run(sw.spec.placers.item[0].text, &sw.wl[0].g, &c, &sw.point[0].opt,
                         sw.wl[0].w.name, &pl, &st));
        have_pl = true;
    }
    CHECK(placer_world(&c, &sw.point[0].opt));
    CHECK(sim_model_parse(cell(&r, 0, 10), &model));
    trace_init(&t, c.channel);
    have_t = true;
    {
        struct sim_options so = {.model = model, .trace = &t};
        struct graph g; /* as the sweep simulated it (compute factor) */

        CHECK(placer_world_graph(&sw.wl[0].g, &sw.point[0].opt, &g, &weights));
        CHECK(sim_run(&g, &c, have_pl ? pl.device_of : stored, &so, &res));
    }
    fputs("kind,device,start_ms,end_ms,what\n", csv);
    for (size_t i = 0; i < t.n_compute; i++) {
        fprintf(csv, "compute,%d,%.6f,%.6f,", t.compute[i].device, t.compute[i].start_us / 1e3,
                t.compute[i].end_us / 1e3);
        csv_field(csv, sw.wl[0].g.op_name[t.compute[i].op]);
        fputc('\n', csv);
    }
    for (size_t i = 0; i < t.n_transfer; i++) {
        fprintf(csv, "transfer,%d,%.6f,%.6f,to %d\n", t.transfer[i].src,
                t.transfer[i].start_us / 1e3, t.transfer[i].end_us / 1e3, t.transfer[i].dst);
    }
    fputs("set datafile separator ','\nset key outside right top\nset grid xtics\n"
          "set xlabel 'time (ms)'\nset ylabel 'device'\n",
          gp);
    fprintf(gp, "set yrange [-0.5:%d]\nset ytics (", c.n_devices);
    for (int32_t d = 0; d < c.n_devices; d++) {
        fprintf(gp, "%s", d ? ", " : "");
        gp_str(gp, c.dev[d].name);
        fprintf(gp, " %d", d);
    }
    fprintf(gp, ")\nset title 'One simulated step (%s model), run %s: %.3f ms'\n",
            sim_model_name(model), id, (double)res.step_us / 1e3);
    fputs("plot DATA skip 1 using 3:(strcol(1) eq 'compute' ? $2 : NaN):($4-$3):(0) with vectors "
          "nohead lw 10 lc rgb '#3070b0' title 'compute', \\\n"
          "     DATA skip 1 using 3:(strcol(1) eq 'transfer' ? $2 + 0.3 : NaN):($4-$3):(0) with "
          "vectors nohead lw 4 lc rgb '#d06020' title 'send'\n",
          gp);
cleanup:
    free(yaml);
    free(stored);
    free(weights);
    sim_result_release(&res);
    if (have_t) {
        trace_release(&t);
    }
    if (have_pl) {
        placement_release(&pl);
    }
    placer_stats_release(&st);
    if (have_c) {
        cluster_release(&c);
    }
    if (have_sw) {
        sweep_release(&sw);
    }
    rows_release(&r);
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

int plot_make(struct db *db, const struct plot_opts *o)
{
    char dir[] = "/tmp/baechi-plot-XXXXXX";
    char *csv_path = NULL, *gp_path = NULL, *gnuplot = NULL;
    FILE *csv = NULL, *gp = NULL;
    const char *term = NULL;
    bool have_dir = false;
    struct stat sb;
    int rc = 0, k;

    if (!plot_kind_summary(o->kind)) {
        return err_set(BAECHI_EINVAL,
                       "unknown plot kind '%s' (step, placement-time, memory, peak, gantt, "
                       "scaling)",
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
    if (!(csv = fopen(csv_path, "w")) || !(gp = fopen(gp_path, "w"))) {
        rc =
            err_set(BAECHI_EIO, "cannot write '%s': %s", csv ? gp_path : csv_path, strerror(errno));
        goto cleanup;
    }
    fprintf(gp, "# baechi plot %s (generated)\nset terminal %s\nset output ", o->kind,
            term ? term : "dumb");
    gp_str(gp, o->out ? o->out : "/dev/null");
    fputs("\nDATA = ", gp);
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
        rc = data_memory(db, o, csv, gp);
        break;
    case 3:
        rc = data_peak(db, o, csv, gp);
        break;
    case 4:
        rc = data_gantt(db, o, csv, gp);
        break;
    default:
        rc = data_scaling(db, o, csv, gp);
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
    if (rc || !o->out) {
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
