/*
 * plot.h - the plot catalogue: paper-style figures drawn by gnuplot from a
 * results database.  For each kind, the data is queried into a CSV file, a
 * gnuplot script is generated next to it, and gnuplot (found in PATH, or
 * $BAECHI_GNUPLOT) is run on the script; its exit status and the output
 * file are checked.  gnuplot draws into a new file beside the output,
 * renamed over it only on success (a failed plot leaves the old figure);
 * its own messages are shown only when it fails.  Every string in a
 * script is quoted by one function (plot_internal.h): no name can inject a
 * command.  A kept script (--script) writes to OUT, which defaults to -o.
 *
 *   step            step time per workload and placer, grouped bars,
 *                   normalised to single-GPU (or expert, or none)
 *   placement-time  placement time per workload and placer, log scale
 *   memory          step time vs memory fraction per placer for one
 *                   workload; infeasible / oom points marked on top
 *   peak            per-device peak memory against the limit, one run
 *   gantt           timeline of one simulated step (compute and transfers
 *                   per device), from the simulator's trace of one run
 *   scaling         placement time vs graph size (ops), log-log, per placer
 *   line            any metric (step, peak, placement, bound_ratio) against
 *                   any swept dimension, a line per placer configuration,
 *                   optionally one panel per value of a dimension (--by)
 *
 * Every figure draws the runs that --where selects (results/filter.h); a
 * swept dimension that is neither an axis nor a panel must hold one value
 * (the memory fraction defaults to the largest stored, comm and compute
 * factors to 1), and the title says which.  peak and gantt draw one run:
 * --run, else the paper's configuration on the first workload at the
 * largest memory fraction.
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_RESULTS_PLOT_H
#define BAECHI_RESULTS_PLOT_H

#include "results/db.h"
#include "results/filter.h"

#include <stdint.h>
#include <stdio.h>

struct plot_opts {
    const char *kind;
    const char *out;             /* .png, .svg or .pdf; NULL with csv only */
    const char *csv;             /* also write the data here (NULL: a temporary file) */
    const char *script;          /* also keep the gnuplot script here (NULL: temporary) */
    const char *model;           /* simulator model of the runs ("timed") */
    const struct rfilter *where; /* the runs to draw (NULL: all of the model) */
    const char *x, *y, *by;      /* line kinds: dimension, metric, panels (NULL: default) */
    const char *lines;           /* line: a line per value of this dimension (NULL: per
                                    placer configuration) */
    const char *normalise;       /* step: "single" (default), "expert" or "none" */
    const char *stat;            /* line kinds: "mean" (NULL, default) or "median" of runs */
    int64_t run;                 /* peak, gantt: run id (0 = the latest ok run) */
};

/* NULL-terminated names of the kinds, and one line on each. */
const char *const *plot_kinds(void);
const char *plot_kind_summary(const char *kind);

/*
 * A kind of figure: its name, its one-line summary, and the function that
 * writes its data (CSV) and the body of its gnuplot script (the registry's
 * rows, git's commands[]).  plot_kind_find(): the row of `name`, or NULL.
 */
typedef int (*plot_kind_fn)(struct db *db, const struct plot_opts *o, FILE *csv, FILE *gp);
struct plot_kind {
    const char *name;
    const char *summary;
    plot_kind_fn fn;
};
const struct plot_kind *plot_kind_find(const char *name);

/*
 * Draws plot o->kind from database db.  Errors: BAECHI_EINVAL (unknown
 * kind, no data, a --where value no run has, a dimension that varies, bad
 * extension), BAECHI_EUNSUPPORTED (gnuplot not found:
 * the message says how to install it and that --csv works without it),
 * BAECHI_EIO (gnuplot failed: its exit status; or the output is empty).
 */
int plot_make(struct db *db, const struct plot_opts *o);

#endif
