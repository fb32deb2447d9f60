/*
 * sweep_mpi.c - the MPI runner of sweeps (sweep.h sweep_run_mpi).  Built
 * with MPI only when HAVE_MPI is defined (`make MPI=1`, mk/results.mk
 * compiles this file with mpicc); otherwise a stub that says so, and the
 * build never includes mpi.h.
 *
 * Protocol: rank 0 reads the sweep file and broadcasts its text; every rank
 * prepares the sweep (loading each workload once per rank).  Rank 0 owns the
 * database: it computes the points still to run and hands them out one at
 * a time; a worker rank asks with an empty message (TAG_ASK), then returns
 * each point's serialised runs (TAG_RESULT) and gets the next index, or -1
 * to stop.  With one rank, rank 0 computes every point itself.  A rank that
 * crashes ends the MPI job (mpirun's rule); rerun it: the sweep resumes.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "results/sweep.h"

#include "core/alloc.h"
#include "core/err.h"

#ifndef HAVE_MPI

int sweep_run_mpi(int *argc, char ***argv, const char *sweep_path, const char *db_path,
                  const struct sweep_run_opts *o, struct sweep_summary *sum, bool *is_root)
{
    (void)argc;
    (void)argv;
    (void)sweep_path;
    (void)db_path;
    (void)o;
    (void)sum;
    *is_root = true;
    return err_set(BAECHI_EUNSUPPORTED,
                   "--mpi: this baechi was built without MPI; rebuild with `make MPI=1` (needs "
                   "libopenmpi-dev) or run the sweep locally with -j");
}

#else

#include "core/array.h"
#include "core/yio.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_ASK = 1, TAG_RESULT = 2, TAG_POINT = 3 };

static int coordinate(const struct sweep *sw, const char *db_path, const struct sweep_run_opts *o,
                      struct sweep_summary *sum, int size)
{
    struct sweep_sink *sink = NULL;
    struct db_buf b = {0};
    const int32_t *todo;
    int32_t n_todo, next = 0, active = size - 1;
    int rc;

    if ((rc = sweep_sink_open(&sink, sw, db_path, o, sum)) != 0) {
        /* release the workers before failing */
        for (int r = 1; r < size; r++) {
            int32_t stop = -1;
            MPI_Status st;
            MPI_Recv(NULL, 0, MPI_BYTE, r, TAG_ASK, MPI_COMM_WORLD, &st);
            MPI_Send(&stop, 1, MPI_INT32_T, r, TAG_POINT, MPI_COMM_WORLD);
        }
        return rc;
    }
    sweep_sink_todo(sink, &todo, &n_todo);
    sum->jobs = size > 1 ? size - 1 : 1;
    if (size == 1) {
        for (int32_t i = 0; i < n_todo && !rc; i++) {
            b.len = 0;
            rc = sweep_point_exec(sw, todo[i], &b);
            if (!rc) {
                rc = sweep_sink_add(sink, b.p, b.len);
            }
            if (!rc) {
                rc = sweep_sink_tick(sink, false);
            }
        }
    }
    while (active > 0) {
        MPI_Status st;
        int count, src;
        int32_t give;
        MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_BYTE, &count);
        src = st.MPI_SOURCE;
        if (ARRAY_RESERVE(b.p, b.alloc, (size_t)count + 1)) {
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        MPI_Recv(b.p, count, MPI_BYTE, src, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (st.MPI_TAG == TAG_RESULT && !rc) {
            rc = sweep_sink_add(sink, b.p, (size_t)count);
        }
        give = (!rc && next < n_todo) ? todo[next++] : -1;
        if (give < 0) {
            active--;
        }
        MPI_Send(&give, 1, MPI_INT32_T, src, TAG_POINT, MPI_COMM_WORLD);
        if (!rc) {
            rc = sweep_sink_tick(sink, false);
        }
    }
    {
        int rc2 = sweep_sink_close(sink);
        rc = rc ? rc : rc2;
    }
    free(b.p);
    return rc;
}

static int work(const struct sweep *sw)
{
    struct db_buf b = {0};
    int rc = 0;

    MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_ASK, MPI_COMM_WORLD);
    for (;;) {
        int32_t i;
        MPI_Recv(&i, 1, MPI_INT32_T, 0, TAG_POINT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (i < 0 || i >= sw->n_points) {
            break;
        }
        b.len = 0;
        if ((rc = sweep_point_exec(sw, i, &b)) != 0) {
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        MPI_Send(b.p, (int)b.len, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
    }
    free(b.p);
    return rc;
}

int sweep_run_mpi(int *argc, char ***argv, const char *sweep_path, const char *db_path,
                  const struct sweep_run_opts *o, struct sweep_summary *sum, bool *is_root)
{
    struct sweep sw;
    char *text = NULL;
    size_t len = 0;
    long long n = 0;
    int rank = 0, size = 1, inited = 0, rc = 0, all = 0;
    bool have_sw = false;

    memset(sum, 0, sizeof(*sum));
    MPI_Initialized(&inited);
    if (!inited) {
        MPI_Init(argc, argv);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    *is_root = rank == 0;
    if (rank == 0) {
        rc = yio_read_file(sweep_path, &text, &len);
        n = rc ? -1 : (long long)len;
    }
    MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    if (n < 0) {
        goto done; /* rank 0 has the message */
    }
    if (rank != 0 && !(text = mem_alloc((size_t)n + 1))) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Bcast(text, (int)n, MPI_CHAR, 0, MPI_COMM_WORLD);
    text[n] = '\0';
    len = (size_t)n;
    rc = sweep_prepare_limit(&sw, text, len, sweep_path, o->max_runs);
    have_sw = rc == 0;
    MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (all) {
        if (!rc) {
            rc = err_set(BAECHI_EINVAL, "another rank failed to prepare the sweep");
        }
        goto done;
    }
    if (rank == 0) {
        rc = coordinate(&sw, db_path, o, sum, size);
    } else {
        err_set_quiet(1);
        rc = work(&sw);
    }
done:
    if (have_sw) {
        sweep_release(&sw);
    }
    free(text);
    MPI_Finalize();
    return rank == 0 ? rc : 0;
}

#endif
