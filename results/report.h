/*
 * report.h - tables over the results database: a small table printer
 * (aligned text, CSV, Markdown) used by `baechi db query` and `baechi
 * report`, and the paper-style tables (step time per workload x placer,
 * normalised to single-GPU and to expert; placement time; peak memory;
 * step time per memory fraction).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_RESULTS_REPORT_H
#define BAECHI_RESULTS_REPORT_H

#include "results/db.h"
#include "results/filter.h"

#include <stdio.h>

/* REPORT_HTML: tables as HTML elements, for report_html() (not a --format) */
enum report_format { REPORT_TABLE = 0, REPORT_CSV, REPORT_MARKDOWN, REPORT_JSON, REPORT_HTML };

/* "table" / "csv" / "markdown" (or "md") / "json"; 0 or BAECHI_EINVAL. */
int report_format_parse(const char *s, enum report_format *f);

/* A table of text cells; row 0 is the header. */
struct rtable {
    char *title; /* printed above (not in CSV); may be NULL */
    char **cell; /* nrow * ncol, owned; NULL = empty */
    int ncol, nrow;
    size_t alloc;
};

int rtable_init(struct rtable *t, const char *title, int ncol);
void rtable_release(struct rtable *t);
/* Appends a row of ncol cells (copied; NULL = empty). */
int rtable_add(struct rtable *t, const char *const *cells);
/*
 * Prints the table; 0, or BAECHI_ENOMEM (nothing printed).  A table or
 * Markdown shows the cells and title with control characters escaped
 * (core/escape.h: a newline as \n, ESC as \x1b), in Markdown '|' as \|;
 * CSV keeps the bytes by its own rules (report_csv_field).
 */
int rtable_print(const struct rtable *t, enum report_format f, FILE *out);

/*
 * THE CSV quoter of the results (report and plot data): s as one CSV field,
 * in double quotes (a quote doubled) when it holds a comma, a quote, a
 * newline or a carriage return (RFC 4180: the bytes kept as they are).
 * NULL writes nothing (an empty field).
 */
void report_csv_field(FILE *out, const char *s);

/*
 * Runs sql and prints its rows: a table, Markdown, CSV, or JSON
 * ({"columns": [...], "rows": [{column: value}]}, numbers as numbers, SQL
 * NULL as null).  With conditions in `where` (may be NULL), the statement
 * sees only the runs they select: `runs` names a common table expression
 * over the table (the parameters are bound, never spliced).
 */
int report_query(struct db *db, const char *sql, const struct rfilter *where, enum report_format f,
                 FILE *out);

struct report_opts {
    const char *model; /* simulator model of the runs shown (NULL: tables "timed", tidy all) */
    const struct rfilter *where; /* the runs shown (NULL: all) */
    enum report_format format;
};

/*
 * The paper-style tables (table, markdown): step time, normalised to single
 * and expert, placement time and peak memory, a column per placer
 * configuration and a row per value of every swept dimension that varies
 * among the selected runs (workload, cluster, devices, memory fraction,
 * comm and compute factor): only repeats and seeds are averaged.
 */
int report_paper(struct db *db, const struct report_opts *o, FILE *out);

/*
 * The tidy table (csv, json): one row per run, every key column, metrics as
 * numbers, a status column.  The columns: report_tidy_columns().
 */
int report_runs(struct db *db, const struct report_opts *o, FILE *out);
const char *const *report_tidy_columns(void);

/*
 * `baechi report --html DIR` (results/report_html.c): writes DIR/index.html
 * (created whole or not at all) and its figures (DIR/sN-KIND.png, the data
 * beside each as .csv): per sweep of the runs o->where selects, the
 * paper-style tables and the step, placement-time, peak and gantt figures
 * (memory per workload stored at several memory fractions); then every run
 * with its identity in a <details> element.  A static page: no script, no
 * network.  A figure that does not apply is a note naming why; without
 * gnuplot the figures are left out and their data kept.  DIR is created if
 * missing.  0, BAECHI_EINVAL (no runs), BAECHI_EIO, BAECHI_ENOMEM.
 */
int report_html(struct db *db, const struct report_opts *o, const char *dir);
/* s with & < > " ' as entities and control characters as \xNN. */
void report_html_text(FILE *out, const char *s);
/* t as an HTML <table> (its title an <h4>). */
int rtable_print_html(const struct rtable *t, FILE *out);

#endif
