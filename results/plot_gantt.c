/*
 * plot_gantt.c - the gantt figure (plot.h): compute and transfers per device
 * over one simulated step, from the simulator's trace of a stored run.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "results/plot_internal.h"

#include "core/array.h"
#include "core/err.h"
#include "core/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int plot_data_gantt(struct db *db, const struct plot_opts *o, FILE *csv, FILE *gp)
{
    struct rerun x;
    struct trace t;
    struct sim_options so = {.model = SIM_MODEL_TIMED};
    bool have_t = false;
    struct strbuf title = STRBUF_INIT;
    int rc = 0;

    CHECK(plot_rerun_sim(db, o, &so, &t, &have_t, &x));
    fputs("kind,device,start_ms,end_ms,what\n", csv);
    for (size_t i = 0; i < t.n_compute; i++) {
        fprintf(csv, "compute,%d,%.6f,%.6f,", t.compute[i].device, t.compute[i].start_us / 1e3,
                t.compute[i].end_us / 1e3);
        plot_csv_name(csv, x.sw.wl[0].g.op_name[t.compute[i].op]);
        fputc('\n', csv);
    }
    for (size_t i = 0; i < t.n_transfer; i++) {
        fprintf(csv, "transfer,%d,%.6f,%.6f,to %d\n", t.transfer[i].src,
                t.transfer[i].start_us / 1e3, t.transfer[i].end_us / 1e3, t.transfer[i].dst);
    }
    fputs("set datafile separator ','\nset key outside right top\nset grid xtics\n"
          "set xlabel 'time (ms)'\nset ylabel 'device'\n",
          gp);
    fprintf(gp, "set yrange [-0.5:%d]\nset ytics (", x.c.n_devices);
    for (int32_t d = 0; d < x.c.n_devices; d++) {
        fprintf(gp, "%s", d ? ", " : "");
        plot_gp_quote(gp, x.c.dev[d].name);
        fprintf(gp, " %d", d);
    }
    CHECK(strbuf_addf(&title, "One simulated step: %.3f ms\n%s", (double)x.res.step_us / 1e3,
                      x.desc));
    fputs(")\nset title ", gp);
    plot_gp_quote(gp, title.buf);
    fputc('\n', gp);
    fputs("plot DATA skip 1 using 3:(strcol(1) eq 'compute' ? $2 : NaN):($4-$3):(0) with vectors "
          "nohead lw 10 lc rgb '#3070b0' title 'compute', \\\n"
          "     DATA skip 1 using 3:(strcol(1) eq 'transfer' ? $2 + 0.3 : NaN):($4-$3):(0) with "
          "vectors nohead lw 4 lc rgb '#d06020' title 'send'\n",
          gp);
cleanup:
    if (have_t) {
        trace_release(&t);
    }
    plot_rerun_release(&x);
    strbuf_release(&title);
    return rc;
}
