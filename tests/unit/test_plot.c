/*
 * test_plot.c - the plot catalogue: kinds, argument errors, CSV output.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/err.h"
#include "results/plot.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

Test(plot, catalogue_and_errors)
{
    const char *const *k = plot_kinds();
    int n = 0;
    struct plot_opts o;
    struct db *db;
    char path[64];

    for (; k[n]; n++) {
        cr_assert_not_null(plot_kind_summary(k[n]));
    }
    cr_assert_eq(n, 8);
    cr_assert_null(plot_kind_summary("pie"));
    snprintf(path, sizeof(path), "/tmp/baechi-test-plot-%d.db", (int)getpid());
    unlink(path);
    cr_assert_eq(db_open(&db, path, 0), 0);
    memset(&o, 0, sizeof(o));
    o.kind = "pie";
    o.out = "x.png";
    cr_assert_eq(plot_make(db, &o), BAECHI_EINVAL);
    cr_assert(strstr(err_msg(), "unknown plot kind 'pie'"));
    o.kind = "step";
    o.out = "x.gif";
    cr_assert_eq(plot_make(db, &o), BAECHI_EINVAL);
    o.out = NULL;
    cr_assert_eq(plot_make(db, &o), BAECHI_EINVAL, "nothing to write");
    snprintf(path + strlen(path), 8, ".csv");
    o.csv = path;
    cr_assert_eq(plot_make(db, &o), BAECHI_EINVAL, "an empty database has nothing to plot");
    cr_assert(strstr(err_msg(), "no runs"), "%s", err_msg());
    unlink(path);
    path[strlen(path) - 4] = '\0';
    db_close(db);
    unlink(path);
}
