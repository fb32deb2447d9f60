/*
 * plot_internal.h - what the plot kinds share and nobody else uses: rows
 * queried from the database, the scope of a figure (the runs it draws and
 * what is fixed), the one run of a one-run figure and its re-simulation,
 * the gnuplot side (the one string quoter, terminals, the child) and what
 * a signal must remove.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_RESULTS_PLOT_INTERNAL_H
#define BAECHI_RESULTS_PLOT_INTERNAL_H

#include "results/plot.h"

#include "core/cluster.h"
#include "core/placement.h"
#include "placers/placer.h"
#include "results/filter.h"
#include "results/sweep.h"
#include "sim/sim.h"
#include "sim/trace.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* ------------------------------------------------------------ rows (plot_scope.c) */

/* A long table collected from a query: rows of text cells (NULL: SQL NULL). */
struct rows {
    char **v; /* n * ncol */
    int ncol, n;
    size_t alloc;
};

/* A db_row_fn that appends to the struct rows ctx. */
int plot_rows_add(void *ctx, int ncol, const char *const *names, const char *const *vals);
void plot_rows_release(struct rows *r);
const char *plot_cell(const struct rows *r, int i, int c);
/* Distinct values of column c in order of appearance (*out borrows from r; free the array). */
int plot_distinct(const struct rows *r, int c, char ***out, int *n);
/* Appends a then b to buf (truncated at size). */
void plot_addf(char *buf, size_t size, const char *a, const char *b);
/* The simulator model of the runs drawn ("timed" by default). */
const char *plot_model(const struct plot_opts *o);
/* Display form of a dimension's values in SQL: reals through %g. */
void plot_dim_select(const struct rdim *d, char *buf, size_t size);

/* ------------------------------------------------------------ scope (plot_scope.c) */

/* The runs a figure draws: "FROM runs r WHERE ..." and a description of what is fixed. */
struct scope {
    struct rsql from;
    char fixed[768]; /* "gnmt_v2_b128_fwd on paper-4gpu-pcie (4 devices), memory fraction 1" */
    char model[16];
};

/*
 * Builds the scope of a figure: the model, the --where conditions, then
 * every swept dimension not in free_dims (NULL-terminated) must hold one
 * value; hint ends the error that names a dimension that varies.  Released
 * with plot_scope_release on success only.
 */
int plot_scope_build(struct db *db, const struct plot_opts *o, const struct rdim *const *free_dims,
                     const char *hint, struct scope *s);
void plot_scope_release(struct scope *s);
/* SELECT <select> <from> <tail>: the rows, with the scope's parameters bound. */
int plot_query_in(struct db *db, const char *select, const struct rsql *from, const char *tail,
                  struct rows *r);
/* Distinct placer configurations of a scope in order of first run. */
int plot_configs_of(struct db *db, const struct scope *s, struct rows *out);
/*
 * The run of a one-run figure: --run, else the paper configuration on the
 * first workload at full memory (among the runs --where selects), else the
 * first simulated run at the largest memory fraction.  desc says which.
 */
int plot_resolve_run(struct db *db, const struct plot_opts *o, char *id, size_t size, char *desc,
                     size_t dsize);

/*
 * plot_resolve_run, then sql (?1 binds the run id) into r; no row is
 * BAECHI_EINVAL: "run ID <why_none>", or "no run with id ID" (why_none NULL).
 */
int plot_run_query(struct db *db, const struct plot_opts *o, const char *sql, const char *why_none,
                   char *id, size_t size, char *desc, size_t dsize, struct rows *r);

/* ------------------------------------------------------------ rerun (plot_rerun.c) */

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

/* Simulates the run o selects with so (its model is the run's); x released by the caller. */
int plot_rerun_sim(struct db *db, const struct plot_opts *o, struct sim_options *so,
                   struct trace *t, bool *have_t, struct rerun *x);
void plot_rerun_release(struct rerun *x);
/* The placement the rerun simulated. */
const int32_t *plot_rerun_device_of(const struct rerun *x);

/* ------------------------------------------------------------ gnuplot (plot_gnuplot.c) */

/*
 * THE way a string reaches gnuplot: a gnuplot string expression whose value
 * is s byte for byte, in which gnuplot substitutes nothing (no `command`,
 * no @macro).  Single-quoted ('a b'); a string holding control bytes or
 * a quote is a parenthesised concatenation of single-quoted pieces and
 * pieces of escapes only: ('it'."\047".'s'), ('a'."\n".'b'), so a
 * newline is still a line break in a title.  Bytes from 0x80 pass as they are (gnuplot is 8-bit
 * clean).  The quoted form holds no line break, so no name can end the command or an inline data
 * block.  NULL is ''.
 */
void plot_gp_quote(FILE *f, const char *s);
/* plot_gp_quote into a malloc'ed string (NULL on ENOMEM). */
char *plot_gp_quote_str(const char *s);
/*
 * A file name for gnuplot (an output, a data file): plot_gp_quote of the
 * path, "./" put before a relative path not starting with '.', since
 * gnuplot runs a name starting with '<' or '|' as a command and expands
 * a leading '~'.
 */
void plot_gp_path(FILE *f, const char *path);
char *plot_gp_path_str(const char *path);
/*
 * A value of an inline data block (data, not a command): a number as it
 * is, anything else one double-quoted field, control bytes and '"' as '?'.
 */
void plot_gp_datum(FILE *f, const char *s);
/*
 * A name as a field of a data file gnuplot reads: control characters
 * escaped as text reports print them (core/escape.h: "a\nb" as a\nb), so
 * that a row stays one line; a field with ',' or '"' in double quotes
 * ("" for a quote).
 */
void plot_csv_name(FILE *f, const char *s);
/*
 * The fixed style of a placer configuration ("m-etf+coplace+fusion"), the
 * same in every figure: an RGB colour "#rrggbb" (static storage), a point
 * type and a dash type (1 solid; 2 for optimised configurations).  Known
 * configurations have their own entry; any other takes its placer's colour
 * or, failing that, one chosen by a hash of the name.
 */
void plot_config_style(const char *config, const char **rgb, int *pt, int *dt);

/* The colour and marker of the i-th line of a --lines figure (values of a
 * dimension, not configurations): distinct for the first 16. */
void plot_series_style(int i, const char **rgb, int *pt);
/* Whether `config` (a placer configuration, a parallel layout or a
 * pipeline schedule) has its own row in the palette, or its part before a
 * '+' has ("1f1b+full"): then every figure draws it in that style. */
bool plot_config_known(const char *config);
/* The terminal for out's extension (.png .svg .pdf), NULL for another. */
const char *plot_terminal_for(const char *out);
/* The same terminal as plot_terminal_for(out), height_px high; output to OUT again. */
void plot_gp_terminal_height(FILE *gp, const char *out, int height_px);
/* gnuplot's path (malloc'ed), or NULL when not found ($BAECHI_GNUPLOT, else PATH). */
char *plot_find_gnuplot(void);
/*
 * Runs `gnuplot -e 'OUT = "<out>"' script`, its stdout and stderr captured
 * in the file log; on failure, the error carries the end of that log.
 */
int plot_run_gnuplot(const char *gnuplot, const char *script, const char *out, const char *log);
/*
 * A new file beside path ("<path>.tmp-XXXXXX", mode 0666 less the umask),
 * open for writing: renamed over path when complete.  A path that exists
 * and is no regular file (a terminal, a pipe, /dev/stdout) is written
 * directly: *tmp stays NULL.
 */
int plot_open_tmp(const char *path, char **tmp, FILE **f);
/* The same without opening: *tmp names an empty new file (NULL: write path itself). */
int plot_make_tmp(const char *path, char **tmp);

/* ------------------------------------------------------------ signals (plot_cleanup.c) */

/* What the plot has made and a signal must remove: files, then the directory. */
enum plot_tmp_slot {
    PLOT_TMP_CSV,  /* the data beside its target */
    PLOT_TMP_GP,   /* the script beside its target */
    PLOT_TMP_OUT,  /* the figure beside its target (gnuplot's output) */
    PLOT_TMP_DATA, /* in the private directory: data.csv, plot.gp, gnuplot.log */
    PLOT_TMP_SCRIPT,
    PLOT_TMP_LOG,
    PLOT_TMP_DIR, /* the private directory, removed last */
    PLOT_TMP_N
};

/*
 * From plot_guard_begin to plot_guard_end, SIGTERM, SIGINT and SIGHUP,
 * where their action is the default (ending the process), first kill
 * gnuplot and remove the paths set, then end the process as before.  One
 * plot of the process at a time holds the guard: the calls of any other
 * do nothing (it draws unguarded).
 */
void plot_guard_begin(void);
void plot_guard_end(void);
/* The path of a slot (NULL: nothing to remove there). */
void plot_guard_set(enum plot_tmp_slot slot, const char *path);
/* gnuplot's pid while it runs (0 after). */
void plot_guard_child(pid_t pid);
/* Those signals blocked (*old: the mask before) around making a file and
 * setting its slot, or starting gnuplot and setting its pid: no signal
 * comes between. */
void plot_guard_hold(sigset_t *old);
void plot_guard_release(const sigset_t *old);
/* In a forked child before exec: the default actions back. */
void plot_guard_child_reset(void);

/* ------------------------------------------------------------ the kinds */

/* step (what 0) and placement-time (what 1): grouped bars (plot_step.c). */
int plot_data_matrix(struct db *db, const struct plot_opts *o, int what, FILE *csv, FILE *gp);
/* memory, scaling and line: lines over a dimension (plot_line.c). */
int plot_data_line(struct db *db, const struct plot_opts *o, FILE *csv, FILE *gp);
/* peak: per-device peak memory of one run (plot_peak.c). */
int plot_data_peak(struct db *db, const struct plot_opts *o, FILE *csv, FILE *gp);
/* gantt: one simulated step (plot_gantt.c). */
int plot_data_gantt(struct db *db, const struct plot_opts *o, FILE *csv, FILE *gp);
/* memory-timeline: memory of each device over one step (plot_memory_timeline.c). */
int plot_data_memory_timeline(struct db *db, const struct plot_opts *o, FILE *csv, FILE *gp);

#endif
