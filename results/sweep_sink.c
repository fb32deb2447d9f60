/*
 * sweep_sink.c - the coordinator's side of a sweep run (sweep.h): the todo
 * list, batched database writes, the summary and the progress callback.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "results/sweep.h"

#include "core/alloc.h"
#include "core/err.h"
#include "results/sweep_internal.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------ the sink */

struct sweep_sink {
    const struct sweep *sw;
    struct db *db;
    struct sweep_run_opts o;
    struct sweep_summary *sum;
    int32_t *todo;
    int32_t n_todo;
    int32_t n_done; /* points received */
    bool in_tx;
    int32_t batch_rows;
    double t0, t_batch, t_draw;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void sweep_run_opts_init(struct sweep_run_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->batch = 256;
    o->batch_s = 0.5;
}

int sweep_sink_open(struct sweep_sink **out, const struct sweep *sw, const char *db_path,
                    const struct sweep_run_opts *o, struct sweep_summary *sum)
{
    struct sweep_sink *k = mem_calloc(1, sizeof(*k));
    int rc;

    *out = NULL;
    if (!k) {
        return BAECHI_ENOMEM;
    }
    k->sw = sw;
    k->o = *o;
    k->sum = sum;
    memset(sum, 0, sizeof(*sum));
    if ((rc = db_open(&k->db, db_path, 0)) != 0 ||
        (rc = sweep_todo(sw, k->db, &k->todo, &k->n_todo)) != 0) {
        db_close(k->db);
        free(k);
        return rc;
    }
    sum->n_points = sw->n_points;
    sum->n_skipped = sw->n_points - k->n_todo;
    k->t0 = k->t_batch = now_s();
    *out = k;
    return 0;
}

void sweep_sink_todo(struct sweep_sink *k, const int32_t **todo, int32_t *n_todo)
{
    *todo = k->todo;
    *n_todo = k->n_todo;
}

static int insert(struct sweep_sink *k, const struct db_run *r)
{
    bool ins;
    int rc;

    if (!k->in_tx) {
        if ((rc = db_begin(k->db)) != 0) {
            return rc;
        }
        k->in_tx = true;
        k->t_batch = now_s();
    }
    if ((rc = db_insert_run(k->db, r, &ins, NULL)) != 0) {
        return rc;
    }
    if (ins) {
        k->sum->n_rows++;
        k->batch_rows++;
    }
    if (strcmp(r->status, "ok") == 0) {
        k->sum->n_ok++;
    } else if (strcmp(r->status, "oom") == 0) {
        k->sum->n_oom++;
    } else if (strcmp(r->status, "infeasible") == 0) {
        k->sum->n_infeasible++;
    } else {
        k->sum->n_error++;
        /* a run that ran out of memory, or whose worker failed, gave no
         * result: the sweep fails (exit 1) once the others are stored, and a
         * rerun retries it (error runs are redone) */
        if (r->message && (strstr(r->message, "out of memory") ||
                           strncmp(r->message, "worker process", 14) == 0)) {
            k->sum->n_error_failed++;
        }
    }
    return 0;
}

int sweep_sink_add(struct sweep_sink *k, const unsigned char *p, size_t len)
{
    size_t pos = 0;
    int rc = 0;

    while (pos < len) {
        struct db_run r;
        if ((rc = db_run_deserialize(&r, p, len, &pos)) != 0) {
            return rc;
        }
        rc = insert(k, &r);
        db_run_release(&r);
        if (rc) {
            return rc;
        }
    }
    k->n_done++;
    k->sum->n_run++;
    return 0;
}

int sweep_sink_fail(struct sweep_sink *k, int32_t point, const char *why)
{
    int rc = 0;

    for (int32_t m = 0; m < k->sw->spec.n_models && !rc; m++) {
        struct db_run r;
        rc = sweep_error_run(k->sw, point, k->sw->spec.models[m], why, &r);
        if (!rc) {
            rc = insert(k, &r);
        }
        db_run_release(&r);
    }
    if (!rc) {
        k->n_done++;
        k->sum->n_run++;
    }
    return rc;
}

/* Hands the caller where the sweep stands, at most every progress_every_s. */
static void draw(struct sweep_sink *k, bool final)
{
    double t = now_s(), el = t - k->t0;
    struct sweep_progress p = {.n_done = k->n_done,
                               .n_todo = k->n_todo,
                               .points_per_s = el > 0 ? k->n_done / el : 0,
                               .n_error = k->sum->n_error,
                               .final = final};

    if (!k->o.progress) {
        return;
    }
    if (!final && t - k->t_draw < k->o.progress_every_s) {
        return;
    }
    k->t_draw = t;
    k->o.progress(k->o.progress_ctx, &p);
}

int sweep_sink_tick(struct sweep_sink *k, bool force)
{
    int rc;

    if (k->in_tx &&
        (force || k->batch_rows >= k->o.batch || now_s() - k->t_batch >= k->o.batch_s)) {
        if ((rc = db_commit(k->db)) != 0) {
            return rc;
        }
        k->in_tx = false;
        k->batch_rows = 0;
    }
    draw(k, false);
    return 0;
}

int sweep_sink_close(struct sweep_sink *k)
{
    int rc = 0;

    if (!k) {
        return 0;
    }
    if (k->in_tx && (rc = db_commit(k->db)) != 0) {
        db_rollback(k->db);
    }
    if (k->n_todo > 0) {
        draw(k, true);
    }
    k->sum->wall_s = now_s() - k->t0;
    db_close(k->db);
    free(k->todo);
    free(k);
    return rc;
}
