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

#include <stdio.h>

enum report_format { REPORT_TABLE = 0, REPORT_CSV, REPORT_MARKDOWN };

/* "table" / "csv" / "markdown" (or "md"); 0 or BAECHI_EINVAL. */
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
void rtable_print(const struct rtable *t, enum report_format f, FILE *out);

/* Runs sql and prints its rows as a table. */
int report_query(struct db *db, const char *sql, enum report_format f, FILE *out);

struct report_opts {
    const char *model; /* simulator model of the runs shown ("timed") */
    const char *sweep; /* only runs of this sweep; NULL = all */
    enum report_format format;
};

/* The paper-style tables. */
int report_paper(struct db *db, const struct report_opts *o, FILE *out);

/* The placer label of a run: placer, plus "+fusion" / "+coplace" when set (SQL expression). */
#define REPORT_LABEL_SQL                                                                           \
    "(placer || CASE WHEN fusion = 1 AND placer <> 'paper' THEN '+fusion' ELSE '' END || "         \
    "CASE WHEN grouper = 'coplace' AND placer <> 'paper' THEN '+coplace' ELSE '' END)"

#endif
