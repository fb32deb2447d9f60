/*
 * report.c - baechi_report_json (include/baechi.h): the tidy table of
 * `baechi report --format json` (results/report.h report_runs), one row
 * per run, as its JSON text: the program's stable contract, written by the
 * same code, for a binding to turn into its own rows (see api/explain.c
 * for why text rather than accessors).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "include/baechi.h"

#include "core/alloc.h"
#include "core/err.h"
#include "results/db.h"
#include "results/filter.h"
#include "results/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int baechi_report_json(const char *db_path, const char *const *where, const char *model,
                       char **json)
{
    struct report_opts ro = {.model = model, .where = NULL, .format = REPORT_JSON};
    struct rfilter filter;
    struct db *db = NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *f = NULL;
    int rc = 0;

    *json = NULL;
    if (!db_path) {
        return err_set(BAECHI_EINVAL, "no database path given");
    }
    if (model && strcmp(model, "timed") != 0 && strcmp(model, "baechi") != 0) {
        return err_set(BAECHI_EINVAL, "unknown model '%s' (timed, baechi)", model);
    }
    rfilter_init(&filter);
    for (size_t i = 0; where && where[i]; i++) {
        CHECK(rfilter_add(&filter, where[i]));
    }
    ro.where = &filter;
    CHECK(db_open(&db, db_path, DB_READONLY));
    if (!(f = mem_open_memstream(&text, &len))) {
        rc = err_set(BAECHI_ENOMEM, "out of memory");
        goto cleanup;
    }
    rc = report_runs(db, &ro, f);
    if (((ferror(f) | fclose(f)) || !text) && !rc) { /* !text: fclose's realloc failed */
        rc = err_set(BAECHI_ENOMEM, "out of memory writing the report");
    }
    if (rc == 0) {
        *json = text;
        text = NULL;
    }
cleanup:
    free(text);
    db_close(db);
    rfilter_release(&filter);
    return rc;
}
