/*
 * plot.c - the plot catalogue (plot.h): the kinds and plot_make, which
 * writes the data and the script of a kind (plot_step.c, plot_line.c,
 * plot_peak.c, plot_gantt.c, plot_memory_timeline.c) beside their targets
 * and runs gnuplot (plot_gnuplot.c) on them.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "results/plot.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"
#include "core/strbuf.h"
#include "results/plot_internal.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The two grouped-bar kinds of plot_step.c, in the table's signature. */
static int plot_data_step(struct db *db, const struct plot_opts *o, FILE *csv, FILE *gp)
{
    return plot_data_matrix(db, o, 0, csv, gp);
}

static int plot_data_placement_time(struct db *db, const struct plot_opts *o, FILE *csv, FILE *gp)
{
    return plot_data_matrix(db, o, 1, csv, gp);
}

/* The kinds: one row each, in the order of --help (git's commands[]). */
static const struct plot_kind kinds[] = {
    {"step",
     "step time per workload and placer, grouped bars, normalised (the paper's main figure)",
     plot_data_step},
    {"placement-time", "placement time per workload and placer, log scale",
     plot_data_placement_time},
    {"memory", "step time vs memory fraction per placer (one workload); infeasible points marked",
     plot_data_line},
    {"peak", "per-device peak memory against the limit for one run", plot_data_peak},
    {"gantt", "timeline of one simulated step: compute and transfers per device", plot_data_gantt},
    {"scaling", "placement time vs graph size, log-log, per placer configuration", plot_data_line},
    {"line",
     "any metric (--y) against any swept dimension (--x), a line per placer configuration, "
     "optionally one panel per value of --by",
     plot_data_line},
    {"memory-timeline",
     "memory of each device over one simulated step, stacked by kind, with the limit and the peak",
     plot_data_memory_timeline},
    {NULL, NULL, NULL},
};

/* The names, NULL-terminated, for did-you-mean (built from the table once per thread). */
const char *const *plot_kinds(void)
{
    static _Thread_local const char *names[sizeof(kinds) / sizeof(kinds[0])];

    if (!names[0]) {
        for (size_t i = 0; kinds[i].name; i++) {
            names[i] = kinds[i].name;
        }
    }
    return names;
}

const struct plot_kind *plot_kind_find(const char *name)
{
    for (const struct plot_kind *k = kinds; k->name; k++) {
        if (strcmp(k->name, name) == 0) {
            return k;
        }
    }
    return NULL;
}

const char *plot_kind_summary(const char *kind)
{
    const struct plot_kind *k = plot_kind_find(kind);

    return k ? k->summary : NULL;
}

/* The head of every script: terminal, output (OUT, which baechi sets), colours, DATA. */
static void script_head(FILE *gp, const struct plot_opts *o, const char *term, const char *csv_path)
{
    fprintf(gp, "# baechi plot %s (generated)\nif (!exists('OUT')) OUT = ", o->kind);
    plot_gp_path(gp, o->out ? o->out : "/dev/null");
    fprintf(gp, "\nset terminal %s\nset output OUT", term ? term : "dumb");
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
    plot_gp_path(gp, csv_path);
    fputc('\n', gp);
}

/* The kind's data and script body. */
static int plot_body(struct db *db, const struct plot_opts *o, FILE *csv, FILE *gp)
{
    const struct plot_kind *k = plot_kind_find(o->kind);

    return k ? k->fn(db, o, csv, gp) : err_set(BAECHI_EINVAL, "unknown plot kind '%s'", o->kind);
}

/* Checks the options; *term the terminal of o->out and *gnuplot its path (o->out only). */
static int plot_check(const struct plot_opts *o, const char **term, char **gnuplot)
{
    if (!plot_kind_find(o->kind)) {
        struct strbuf known = STRBUF_INIT;
        int rc = 0;

        for (const struct plot_kind *k = kinds; k->name && rc == 0; k++) {
            rc = strbuf_addf(&known, "%s%s", k == kinds ? "" : ", ", k->name);
        }
        if (rc == 0) {
            rc = err_set(BAECHI_EINVAL, "unknown plot kind '%s' (%s)", o->kind, known.buf);
        }
        strbuf_release(&known);
        return rc;
    }
    if (!o->out && !o->csv) {
        return err_set(BAECHI_EINVAL, "nothing to write: give -o <out.png|svg|pdf> or --csv <F>");
    }
    if (o->out && !(*term = plot_terminal_for(o->out))) {
        return err_set(BAECHI_EINVAL, "output '%s': the extension must be .png, .svg or .pdf",
                       o->out);
    }
    if (o->out && !(*gnuplot = plot_find_gnuplot())) {
        return err_set(BAECHI_EUNSUPPORTED,
                       "gnuplot not found in PATH (or $BAECHI_GNUPLOT): install it (Debian: "
                       "apt-get install gnuplot-nox), or write the data with --csv <F> only");
    }
    return 0;
}

/*
 * gnuplot draws into a new file beside o->out, renamed over it when gnuplot
 * succeeded and wrote something: a failed plot leaves the old figure as it
 * was.  log: where gnuplot's output goes (shown only on failure).
 */
static int plot_draw(const struct plot_opts *o, const char *gnuplot, const char *gp_path,
                     const char *log)
{
    char *tmp = NULL;
    struct stat sb;
    sigset_t mask;
    int rc = 0;

    plot_guard_hold(&mask);
    rc = plot_make_tmp(o->out, &tmp);
    plot_guard_set(PLOT_TMP_OUT, tmp);
    plot_guard_release(&mask);
    CHECK(rc);
    CHECK(plot_run_gnuplot(gnuplot, gp_path, tmp ? tmp : o->out, log));
    if (stat(tmp ? tmp : o->out, &sb) != 0 || sb.st_size == 0) {
        rc = err_set(BAECHI_EIO, "gnuplot wrote no output to '%s'", o->out);
        goto cleanup;
    }
    if (tmp && rename(tmp, o->out) != 0) {
        rc = err_set_io(errno, "cannot write '%s'", o->out);
        goto cleanup;
    }
    FREE_AND_NULL(tmp);
cleanup:
    if (tmp) {
        unlink(tmp);
        free(tmp);
    }
    plot_guard_set(PLOT_TMP_OUT, NULL);
    return rc;
}

/* Closes f; a write error becomes BAECHI_EIO naming path unless rc is set already. */
static int close_checked(FILE *f, const char *path, int rc)
{
    errno = 0;
    if (fclose(f) != 0 && !rc) {
        rc = err_set_io(errno, "cannot write '%s'", path);
    }
    return rc;
}

int plot_make(struct db *db, const struct plot_opts *o)
{
    char dir[] = "/tmp/baechi-plot-XXXXXX", log[64];
    char *csv_path = NULL, *gp_path = NULL, *gnuplot = NULL, *csv_tmp = NULL, *gp_tmp = NULL;
    FILE *csv = NULL, *gp = NULL;
    const char *term = NULL;
    bool have_dir = false;
    sigset_t mask;
    int rc = 0;

    CHECK(plot_check(o, &term, &gnuplot));
    /* SIGTERM, SIGINT, SIGHUP from here on remove what the plot made */
    plot_guard_begin();
    plot_guard_hold(&mask);
    if (mkdtemp(dir)) {
        char p[64];
        snprintf(p, sizeof(p), "%s/data.csv", dir);
        plot_guard_set(PLOT_TMP_DATA, p);
        snprintf(p, sizeof(p), "%s/plot.gp", dir);
        plot_guard_set(PLOT_TMP_SCRIPT, p);
        snprintf(p, sizeof(p), "%s/gnuplot.log", dir);
        plot_guard_set(PLOT_TMP_LOG, p);
        plot_guard_set(PLOT_TMP_DIR, dir);
        have_dir = true;
    }
    plot_guard_release(&mask);
    if (!have_dir) {
        rc = err_set(BAECHI_EIO, "cannot create a temporary directory: %s", strerror(errno));
        goto cleanup;
    }
    snprintf(log, sizeof(log), "%s/gnuplot.log", dir);
    if ((o->csv ? !(csv_path = mem_strdup(o->csv))
                : mem_asprintf(&csv_path, "%s/data.csv", dir) < 0) ||
        (o->script ? !(gp_path = mem_strdup(o->script))
                   : mem_asprintf(&gp_path, "%s/plot.gp", dir) < 0)) {
        rc = err_set(BAECHI_ENOMEM, "out of memory");
        goto cleanup;
    }
    /* the data and script are written next to where they go and renamed there only when
     * complete: a failed plot leaves no partial file */
    plot_guard_hold(&mask);
    rc = plot_open_tmp(csv_path, &csv_tmp, &csv);
    plot_guard_set(PLOT_TMP_CSV, csv_tmp);
    if (!rc) {
        rc = plot_open_tmp(gp_path, &gp_tmp, &gp);
        plot_guard_set(PLOT_TMP_GP, gp_tmp);
    }
    plot_guard_release(&mask);
    CHECK(rc);
    script_head(gp, o, term, csv_path);
    rc = plot_body(db, o, csv, gp);
    rc = close_checked(csv, csv_path, rc);
    csv = NULL;
    rc = close_checked(gp, gp_path, rc);
    gp = NULL;
    if (rc) {
        goto cleanup;
    }
    if ((csv_tmp && rename(csv_tmp, csv_path) != 0) || (gp_tmp && rename(gp_tmp, gp_path) != 0)) {
        rc = err_set_io(errno, "cannot write '%s'", csv_path);
        goto cleanup;
    }
    FREE_AND_NULL(csv_tmp);
    FREE_AND_NULL(gp_tmp);
    plot_guard_set(PLOT_TMP_CSV, NULL);
    plot_guard_set(PLOT_TMP_GP, NULL);
    if (o->out) {
        rc = plot_draw(o, gnuplot, gp_path, log);
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
        unlink(log);
        rmdir(dir);
    }
    plot_guard_end();
    free(csv_path);
    free(gp_path);
    free(gnuplot);
    return rc;
}
