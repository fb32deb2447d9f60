/*
 * sweep.c - `baechi sweep S.yaml`: runs the cartesian product of a sweep
 * file into a results database (results/sweep.h, docs/sweeps.md).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "cli/cmd.h"
#include "cli/commands.h"
#include "core/err.h"
#include "core/json_out.h"
#include "core/yio.h"
#include "results/sweep.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const sweep_usage[] = {
    "baechi sweep <sweep.yaml> [-j <N>] [--db <results.db>] [--dry-run] [--max-runs <N>]",
    "mpirun -np <N> baechi sweep --mpi <sweep.yaml> [--db <results.db>]",
    NULL,
};

enum {
    SW_OPT_DB = 500,
    SW_OPT_MPI,
    SW_OPT_DRY,
    SW_OPT_PROGRESS,
    SW_OPT_NOPROGRESS,
    SW_OPT_QUIET,
    SW_OPT_BATCH,
    SW_OPT_DELAY,
    SW_OPT_JSON,
    SW_OPT_MAX_RUNS
};

static const struct cmd_opt sweep_opts[] = {
    {"jobs", 'j', "N", "worker processes (default: the number of CPU cores)"},
    {"db", SW_OPT_DB, "F", "the results database (default results.db)"},
    {"mpi", SW_OPT_MPI, NULL, "spread the points over MPI ranks (run under mpirun or srun)"},
    {"dry-run", SW_OPT_DRY, NULL, "list the points and whether they are stored; run nothing"},
    {"progress", SW_OPT_PROGRESS, NULL, "draw a progress bar even when stderr is not a terminal"},
    {"no-progress", SW_OPT_NOPROGRESS, NULL, "plain progress lines even on a terminal"},
    {"quiet", SW_OPT_QUIET, NULL, "no progress output"},
    {"batch", SW_OPT_BATCH, "N", "runs per database transaction, at most (default 256)"},
    {"point-delay", SW_OPT_DELAY, "S", "tests: each worker sleeps S seconds per point"},
    {"json", SW_OPT_JSON, NULL, "print the summary as JSON"},
    {"max-runs", SW_OPT_MAX_RUNS, "N",
     "refuse a sweep of more than N runs (default 100000; grid product x models)"},
    CMD_OPT_END,
};

static void fmt_eta(double s, char *buf, size_t size)
{
    long t = (long)(s + 0.5);
    if (t >= 3600) {
        snprintf(buf, size, "%ld h %02ld min", t / 3600, (t / 60) % 60);
    } else if (t >= 60) {
        snprintf(buf, size, "%ld min %02ld s", t / 60, t % 60);
    } else {
        snprintf(buf, size, "%ld s", t);
    }
}

/* The progress on stderr: a bar redrawn in place (ctx non-NULL), else a plain line. */
static void draw_progress(void *ctx, const struct sweep_progress *p)
{
    bool bar = ctx != NULL;
    int32_t n = p->n_todo, d = p->n_done;
    double rate = p->points_per_s;
    char eta[32];
    int pct = n ? (int)(100.0 * d / n) : 100;

    if (rate > 0 && d < n) {
        fmt_eta((n - d) / rate, eta, sizeof(eta));
    } else {
        snprintf(eta, sizeof(eta), "%s", d < n ? "?" : "0 s");
    }
    if (bar) {
        char b[31];
        int fill = n ? (int)(30.0 * d / n) : 30;
        for (int i = 0; i < 30; i++) {
            b[i] = i < fill ? '#' : '.';
        }
        b[30] = '\0';
        fprintf(stderr, "\r[%s] %d/%d points %3d%%  %.1f points/s  ETA %s  %" PRId64 " errors ", b,
                (int)d, (int)n, pct, rate, eta, p->n_error);
        if (p->final) {
            fputc('\n', stderr);
        }
    } else {
        fprintf(stderr, "sweep: %d/%d points (%d%%), %.1f points/s, ETA %s, %" PRId64 " errors\n",
                (int)d, (int)n, pct, rate, eta, p->n_error);
    }
    fflush(stderr);
}

/* style: 1 bar, 0 plain lines, -1 none. */
static void set_progress(struct sweep_run_opts *ro, int style)
{
    static char bar_ctx; /* any non-NULL context means "bar" */

    ro->progress = style < 0 ? NULL : draw_progress;
    ro->progress_ctx = style > 0 ? &bar_ctx : NULL;
    ro->progress_every_s = style > 0 ? 0.1 : 2.0;
}

/* The options whose effect is on time and durability only, said when they
 * are not the defaults (issue 33 item 2: a user sees that they were read). */
static void print_run_opts(const struct sweep_run_opts *ro, bool json)
{
    struct sweep_run_opts d;

    sweep_run_opts_init(&d);
    if (json) {
        return; /* n_jobs and wall_s say it */
    }
    if (ro->batch != d.batch) {
        printf("stored in transactions of at most %d run%s (--batch)\n", ro->batch,
               ro->batch == 1 ? "" : "s");
    }
    if (ro->point_delay_s > 0) {
        printf("each worker slept %g s per point (--point-delay)\n", ro->point_delay_s);
    }
}

static void print_summary(const struct sweep_summary *s, const char *name, const char *db,
                          bool json)
{
    double rate = s->wall_s > 0 ? s->n_run / s->wall_s : 0;
    int jobs = s->jobs > 0 ? s->jobs : 1;

    if (json) {
        fputs("{\"sweep\": ", stdout);
        json_out_str(stdout, name);
        fputs(", \"db\": ", stdout);
        json_out_str(stdout, db);
        printf(", \"n_points\": %d, \"n_skipped\": %d, \"n_run\": %d, \"n_rows\": %" PRId64
               ", \"n_ok\": %" PRId64 ", \"n_oom\": %" PRId64 ", \"n_infeasible\": %" PRId64
               ", \"n_error\": %" PRId64 ", \"n_jobs\": %d, \"wall_s\": %.3f, "
               "\"points_per_s\": %.2f}\n",
               s->n_points, s->n_skipped, s->n_run, s->n_rows, s->n_ok, s->n_oom, s->n_infeasible,
               s->n_error, jobs, s->wall_s, rate);
        fflush(stdout);
        return;
    }
    printf("sweep '%s': %d points, %d already stored, %d run", name, s->n_points, s->n_skipped,
           s->n_run);
    if (s->n_run > 0) {
        printf(" by %d worker%s in %.2f s (%.1f points/s, %.1f points/s/worker)", jobs,
               jobs == 1 ? "" : "s", s->wall_s, rate, rate / jobs);
    }
    printf("\nruns stored: %" PRId64 " (%" PRId64 " ok, %" PRId64 " oom, %" PRId64
           " infeasible, %" PRId64 " error) in %s\n",
           s->n_rows, s->n_ok, s->n_oom, s->n_infeasible, s->n_error, db);
}

static int dry_run(const struct sweep *sw, const char *db_path)
{
    struct db *db = NULL;
    int32_t *todo = NULL, n_todo = 0, j = 0;
    int rc = 0;

    if (access(db_path, F_OK) == 0) {
        CHECK(db_open(&db, db_path, 0));
        CHECK(sweep_todo(sw, db, &todo, &n_todo));
    }
    for (int32_t i = 0; i < sw->n_points; i++) {
        bool run = !db || (j < n_todo && todo[j] == i);
        j += db && run;
        printf("%s %s\n", run ? "todo" : "done", sw->point[i].key);
    }
    printf("%d points, %d to run\n", sw->n_points, db ? n_todo : sw->n_points);
cleanup:
    free(todo);
    db_close(db);
    return rc;
}

int cmd_sweep(int argc, char **argv)
{
    struct cmd_parser cp = {
        .argc = argc, .argv = argv, .cmd = "sweep", .usage = sweep_usage, .opts = sweep_opts};
    struct sweep_run_opts ro;
    struct sweep_summary sum;
    struct sweep sw;
    const char *db = "results.db", *path;
    char *text = NULL;
    size_t len = 0;
    bool mpi = false, dry = false, json = false, have_sw = false, root = true;
    int rc = 0, o;
    long v;
    double d;

    sweep_run_opts_init(&ro);
    set_progress(&ro, isatty(2) ? 1 : 0);
    while ((o = cmd_getopt(&cp)) != -1) {
        switch (o) {
        case 'h':
            return EXIT_OK;
        case '?':
            return EXIT_BADINPUT;
        case 'j':
            if (cmd_parse_int(&cp, "--jobs", cp.optarg, 1, 4096, &v)) {
                return EXIT_BADINPUT;
            }
            ro.jobs = (int)v;
            break;
        case SW_OPT_DB:
            db = cp.optarg;
            break;
        case SW_OPT_MPI:
            mpi = true;
            break;
        case SW_OPT_DRY:
            dry = true;
            break;
        case SW_OPT_PROGRESS:
            set_progress(&ro, 1);
            break;
        case SW_OPT_NOPROGRESS:
            set_progress(&ro, 0);
            break;
        case SW_OPT_QUIET:
            set_progress(&ro, -1);
            break;
        case SW_OPT_BATCH:
            if (cmd_parse_int(&cp, "--batch", cp.optarg, 1, 1000000, &v)) {
                return EXIT_BADINPUT;
            }
            ro.batch = (int)v;
            break;
        case SW_OPT_DELAY:
            if (cmd_parse_double(&cp, "--point-delay", cp.optarg, 0, 60, &d)) {
                return EXIT_BADINPUT;
            }
            ro.point_delay_s = d;
            break;
        case SW_OPT_JSON:
            json = true;
            break;
        case SW_OPT_MAX_RUNS:
            /* n_points is an int32 (sweep.h) */
            if (cmd_parse_int(&cp, "--max-runs", cp.optarg, 1, INT32_MAX, &v)) {
                return EXIT_BADINPUT;
            }
            ro.max_runs = v;
            break;
        default:
            return EXIT_BADINPUT;
        }
    }
    if (cmd_optind() != argc - 1) {
        return cmd_usage_error(&cp, cmd_optind() >= argc ? "needs one sweep file"
                                                         : "takes one sweep file");
    }
    path = argv[cmd_optind()];
    {
        const struct cmd_file in[] = {{path, "the sweep file"}};
        const struct cmd_file out[] = {{db, "--db"}};

        CHECK(cmd_check_files(in, CMD_N(in), out, CMD_N(out)));
    }
    if (mpi) {
        CHECK(sweep_run_mpi(NULL, NULL, path, db, &ro, &sum, &root));
        if (root) {
            print_summary(&sum, path, db, json);
        }
        return EXIT_OK;
    }
    CHECK(yio_read_file(path, &text, &len));
    CHECK(sweep_prepare_limit(&sw, text, len, path, ro.max_runs));
    have_sw = true;
    for (int32_t i = 0; i < sw.spec.workloads.n; i++) {
        if (sw.wl[i].error) {
            err_warn("workload '%s' does not load; its points are errors: %s", sw.wl[i].spec,
                     sw.wl[i].error);
        }
    }
    if (dry) {
        CHECK(dry_run(&sw, db));
        goto cleanup;
    }
    CHECK(sweep_run_local(&sw, db, &ro, &sum));
    print_summary(&sum, sw.spec.name, db, json);
    print_run_opts(&ro, json);
    if (sum.n_error_failed > 0) {
        rc = err_set(BAECHI_ENOMEM,
                     "%" PRId64 " run%s gave no result (out of memory, or a worker's internal "
                     "error; stored as errors, which a rerun of the sweep retries)",
                     sum.n_error_failed, sum.n_error_failed == 1 ? "" : "s");
    }
cleanup:
    if (have_sw) {
        sweep_release(&sw);
    }
    free(text);
    return rc ? cmd_fail(rc) : EXIT_OK;
}
