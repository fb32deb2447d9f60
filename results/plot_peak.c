/*
 * plot_peak.c - the peak figure (plot.h): per-device peak memory of one run
 * against the device memory and the placer's limit.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "results/plot_internal.h"

#include "core/array.h"
#include "core/err.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int plot_data_peak(struct db *db, const struct plot_opts *o, FILE *csv, FILE *gp)
{
    struct rows r = {0};
    char id[32], desc[600], title[800];
    int rc;
    bool limit = false, same = true;

    CHECK(plot_run_query(db, o,
                         "SELECT coalesce(name, device), peak_bytes / 1073741824.0, limit_bytes / "
                         "1073741824.0, placer_limit_bytes / 1073741824.0 FROM devices "
                         "WHERE run_id = ?1 ORDER BY device",
                         "has no per-device rows (infeasible or error)", id, sizeof(id), desc,
                         sizeof(desc), &r));
    for (int i = 0; i < r.n; i++) {
        limit |= plot_cell(&r, i, 3) != NULL;
    }
    {
        /* databases written before baselines stopped storing one */
        struct rows p = {0};
        CHECK(db_query1(db, "SELECT placer FROM runs WHERE id = ?1", id, plot_rows_add, &p));
        if (p.n == 1 && plot_cell(&p, 0, 0) && placer_find(plot_cell(&p, 0, 0)) &&
            (placer_find(plot_cell(&p, 0, 0))->flags & PLACER_BASELINE)) {
            limit = false;
        }
        plot_rows_release(&p);
    }
    /* A placer limit equal to the device memory on every device (memory
     * fraction 1) is one bar, not two of the same height. */
    for (int i = 0; limit && i < r.n; i++) {
        const char *dev = plot_cell(&r, i, 2), *pl = plot_cell(&r, i, 3);
        same = same && dev && pl && strcmp(dev, pl) == 0;
    }
    fprintf(csv, "device,peak_gib,limit_gib%s\n", limit ? ",placer_limit_gib" : "");
    for (int i = 0; i < r.n; i++) {
        plot_csv_name(csv, plot_cell(&r, i, 0));
        fprintf(csv, ",%s,%s", plot_cell(&r, i, 1), plot_cell(&r, i, 2));
        if (limit) {
            fprintf(csv, ",%s", plot_cell(&r, i, 3) ? plot_cell(&r, i, 3) : "NaN");
        }
        fputc('\n', csv);
    }
    fputs("set datafile separator ','\nset datafile missing 'NaN'\n"
          "set style data histograms\nset style histogram clustered gap 1\n"
          "set style fill solid 0.8 border -1\nset key outside right top\nset grid ytics\n"
          "set xlabel 'device'\nset ylabel 'memory (GiB)'\nset yrange [0:*]\nset key below\n",
          gp);
    snprintf(title, sizeof(title), "Peak memory per device against its limit\n%s", desc);
    fputs("set title ", gp);
    plot_gp_quote(gp, title);
    fprintf(gp, "\nset key autotitle columnheader\nset xrange [-0.6:%g]\n", r.n - 0.4);
    fputs("plot DATA using 2:xtic(1) title 'simulated peak', '' using 3 title ", gp);
    /* only the memory-aware placers have a limit of their own */
    if (limit && same) {
        fputs("'memory limit (memory fraction x memory, = placer limit)'\n", gp);
    } else if (limit) {
        fputs("'memory limit (memory fraction x memory)', '' using 4 title 'placer limit'\n", gp);
    } else {
        fputs("'memory limit (memory fraction x memory)'\n", gp);
    }
cleanup:
    plot_rows_release(&r);
    return rc;
}
