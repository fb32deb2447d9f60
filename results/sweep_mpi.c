/*
 * sweep_mpi.c - the MPI runner of sweeps (sweep.h sweep_run_mpi), in two
 * builds of this file.  With HAVE_MPI (`make MPI=1`: mk/results.mk compiles
 * it with mpicc's flags) it is the plugin baechi-mpi.so, the only object
 * that includes mpi.h or links Open MPI.  Without, it is what the program
 * and the library hold: sweep_run_mpi() that loads the plugin with dlopen
 * when `sweep --mpi` runs.
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

/*
 * Without HAVE_MPI: sweep_run_mpi() loads the plugin.  Open MPI stays out
 * of every command but `sweep --mpi` (its dozen shared libraries were a
 * tenth of `baechi sim` on GNMT, in the dynamic loader).  The plugin's
 * calls into the suite (sweep_sink_*, err_set, ...) resolve to the
 * program's own copies: the program exports exactly the symbols the plugin
 * uses (the linker's --dynamic-list, generated from the plugin's undefined
 * symbols), so there is one error state and one allocator.
 *
 * Where: $BAECHI_MPI_PLUGIN if set, else baechi-mpi.so beside the running
 * program (the build tree), else ../lib/baechi/baechi-mpi.so from it (an
 * install).  No plugin: BAECHI_EUNSUPPORTED "built without MPI".
 */

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SWEEP_MPI_PLUGIN "baechi-mpi.so"

typedef int (*sweep_mpi_run_fn)(int *argc, char ***argv, const char *sweep_path,
                                const char *db_path, const struct sweep_run_opts *o,
                                struct sweep_summary *sum, bool *is_root);

/* The plugin's candidate paths, in order, into paths[] (each PATH_MAX). */
static int plugin_paths(char paths[][PATH_MAX], int max)
{
    const char *env = getenv("BAECHI_MPI_PLUGIN");
    char exe[PATH_MAX];
    ssize_t n;
    char *slash;
    int k = 0;

    if (env && *env) {
        snprintf(paths[k++], PATH_MAX, "%s", env);
        return k;
    }
    n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0) {
        return k;
    }
    exe[n] = '\0';
    if (!(slash = strrchr(exe, '/'))) {
        return k;
    }
    *slash = '\0';
    if (k < max) {
        snprintf(paths[k++], PATH_MAX, "%.*s/%s", PATH_MAX - 32, exe, SWEEP_MPI_PLUGIN);
    }
    if (k < max) {
        snprintf(paths[k++], PATH_MAX, "%.*s/../lib/baechi/%s", PATH_MAX - 48, exe,
                 SWEEP_MPI_PLUGIN);
    }
    return k;
}

int sweep_run_mpi(int *argc, char ***argv, const char *sweep_path, const char *db_path,
                  const struct sweep_run_opts *o, struct sweep_summary *sum, bool *is_root)
{
    char paths[2][PATH_MAX];
    int n = plugin_paths(paths, 2);
    void *h = NULL;
    sweep_mpi_run_fn run;
    int i;

    *is_root = true;
    for (i = 0; i < n && !h; i++) {
        /* RTLD_GLOBAL: Open MPI's own components expect libmpi's symbols global */
        h = access(paths[i], R_OK) == 0 ? dlopen(paths[i], RTLD_NOW | RTLD_GLOBAL) : NULL;
        if (!h && access(paths[i], R_OK) == 0) {
            return err_set(BAECHI_EUNSUPPORTED, "--mpi: cannot load the MPI plugin '%s': %s",
                           paths[i], dlerror());
        }
    }
    if (!h) {
        return err_set(BAECHI_EUNSUPPORTED,
                       "--mpi: this baechi was built without MPI (no %s beside it); rebuild "
                       "with `make MPI=1` (needs libopenmpi-dev) or run the sweep locally "
                       "with -j",
                       SWEEP_MPI_PLUGIN);
    }
    *(void **)&run = dlsym(h, "sweep_mpi_plugin_run");
    if (!run) {
        return err_set(BAECHI_EUNSUPPORTED, "--mpi: '%s' has no sweep_mpi_plugin_run: %s",
                       paths[i - 1], dlerror());
    }
    /* never dlclose: MPI_Finalize's handlers stay registered until exit */
    return run(argc, argv, sweep_path, db_path, o, sum, is_root);
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

/* The plugin's entry point: sweep_run_mpi() (sweep.h), called through
 * sweep_mpi_load.c. */
int sweep_mpi_plugin_run(int *argc, char ***argv, const char *sweep_path, const char *db_path,
                         const struct sweep_run_opts *o, struct sweep_summary *sum, bool *is_root);

int sweep_mpi_plugin_run(int *argc, char ***argv, const char *sweep_path, const char *db_path,
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
