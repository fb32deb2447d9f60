/*
 * test_plot.c - the plot catalogue: kinds, argument errors, CSV output.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/err.h"
#include "results/plot.h"
#include "results/plot_internal.h"

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

/* One palette (issue 33 item 3): every placer configuration and parallel
 * layout that has its own row is told apart by its colour, its marker or
 * both, and is known to plot_config_known (so --lines figures use it). */
Test(plot, palette_rows_are_distinct)
{
    static const char *const names[] = {"single",
                                        "expert",
                                        "auto",
                                        "m-topo",
                                        "m-topo-nonuniform",
                                        "m-etf",
                                        "m-etf-reserve",
                                        "paper",
                                        "m-sct",
                                        "m-sct-reserve",
                                        "round-robin",
                                        "random",
                                        "DP",
                                        "DP+ZeRO-1",
                                        "DP+ZeRO-2",
                                        "DP+ZeRO-3",
                                        "TP",
                                        "PP-GPipe",
                                        "PP-1F1B",
                                        "best-hybrid"};
    const size_t n = sizeof(names) / sizeof(names[0]);
    const char *rgb[sizeof(names) / sizeof(names[0])];
    int pt[sizeof(names) / sizeof(names[0])], dt;

    for (size_t i = 0; i < n; i++) {
        cr_assert(plot_config_known(names[i]), "%s has no palette row", names[i]);
        plot_config_style(names[i], &rgb[i], &pt[i], &dt);
        for (size_t j = 0; j < i; j++) {
            cr_assert(strcmp(rgb[i], rgb[j]) != 0, "%s and %s share colour %s", names[i], names[j],
                      rgb[i]);
        }
    }
    plot_config_style("DP+ZeRO-1", &rgb[0], &pt[0], &dt);
    cr_assert_eq(dt, 1, "a parallel layout is drawn solid, not as an optimised configuration");
    cr_assert(!plot_config_known("d1t2p2"));
}
