/*
 * sweep_local.c - the local runner: worker processes forked from the
 * coordinator (so the loaded workloads are shared, loaded once), a shared
 * counter from which each worker claims the next point, one pipe per worker
 * carrying its results back, and the coordinator writing them in batches.
 *
 * A worker that dies (a crash in a placer) costs its current point, which
 * is stored as an `error` run naming the signal; a new worker replaces it.
 *
 * Message on a pipe: int32 kind (START, RESULT), int32 point, uint64 length,
 * then `length` bytes (the serialised runs of the point).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "results/sweep.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { MSG_START = 1, MSG_RESULT = 2 };

struct msg_head {
    int32_t kind, point;
    uint64_t len;
};

struct shared {
    atomic_int next; /* index into todo of the next point to claim */
};

struct worker {
    pid_t pid;
    int fd;        /* read end, -1 when gone */
    int32_t point; /* point being computed, -1 when idle */
};

static int write_full(int fd, const void *p, size_t n)
{
    const char *c = p;

    while (n > 0) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            return -1;
        }
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

/* 1 whole, 0 end of file before anything, -1 error or a cut message. */
static int read_full(int fd, void *p, size_t n)
{
    char *c = p;
    size_t got = 0;

    while (got < n) {
        ssize_t r = read(fd, c + got, n - got);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            return got == 0 && r == 0 ? 0 : -1;
        }
        got += (size_t)r;
    }
    return 1;
}

static _Noreturn void worker_main(const struct sweep *sw, const int32_t *todo, int32_t n_todo,
                                  struct shared *sh, int fd, double delay_s)
{
    struct db_buf b = {0};

    prctl(PR_SET_PDEATHSIG, SIGKILL);
    signal(SIGPIPE, SIG_DFL);
    err_set_quiet(1);
    for (;;) {
        int i = atomic_fetch_add(&sh->next, 1);
        struct msg_head h;
        if (i >= n_todo) {
            break;
        }
        h = (struct msg_head){MSG_START, todo[i], 0};
        if (write_full(fd, &h, sizeof(h))) {
            _exit(1);
        }
        if (delay_s > 0) {
            struct timespec ts = {(time_t)delay_s,
                                  (long)((delay_s - (double)(time_t)delay_s) * 1e9)};
            nanosleep(&ts, NULL);
        }
        b.len = 0;
        if (sweep_point_exec(sw, todo[i], &b) != 0) {
            _exit(1); /* out of memory: the coordinator records the point as an error */
        }
        h = (struct msg_head){MSG_RESULT, todo[i], b.len};
        if (write_full(fd, &h, sizeof(h)) || write_full(fd, b.p, b.len)) {
            _exit(1);
        }
    }
    free(b.p);
    _exit(0);
}

static int spawn(const struct sweep *sw, const int32_t *todo, int32_t n_todo, struct shared *sh,
                 struct worker *ws, int32_t nw, int32_t k, double delay_s)
{
    int fds[2];
    pid_t pid;

    if (pipe(fds) != 0) {
        return err_set(BAECHI_EIO, "cannot create a pipe: %s", strerror(errno));
    }
    fflush(NULL);
    pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return err_set(BAECHI_EIO, "cannot start a worker process: %s", strerror(errno));
    }
    if (pid == 0) {
        close(fds[0]);
        for (int32_t j = 0; j < nw; j++) {
            if (ws[j].fd >= 0) {
                close(ws[j].fd);
            }
        }
        worker_main(sw, todo, n_todo, sh, fds[1], delay_s);
    }
    close(fds[1]);
    ws[k] = (struct worker){pid, fds[0], -1};
    return 0;
}

/* Reads one message of worker k; on its end, reaps it and maybe replaces it. */
static int service(struct sweep_sink *sink, const struct sweep *sw, const int32_t *todo,
                   int32_t n_todo, struct shared *sh, struct worker *ws, int32_t nw, int32_t k,
                   struct db_buf *b, double delay_s)
{
    struct worker *w = &ws[k];
    struct msg_head h;
    int r = read_full(w->fd, &h, sizeof(h)), rc = 0, st = 0;

    if (r == 1 && h.kind == MSG_START) {
        w->point = h.point;
        return 0;
    }
    if (r == 1 && h.kind == MSG_RESULT && h.len < ((uint64_t)1 << 40)) {
        if (ARRAY_RESERVE(b->p, b->alloc, (size_t)h.len)) {
            return BAECHI_ENOMEM;
        }
        if (read_full(w->fd, b->p, (size_t)h.len) == 1 || h.len == 0) {
            w->point = -1;
            return sweep_sink_add(sink, b->p, (size_t)h.len);
        }
    }
    /* the worker ended, or died */
    close(w->fd);
    w->fd = -1;
    while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (w->point >= 0) {
        char why[128];
        if (WIFSIGNALED(st)) {
            snprintf(why, sizeof(why), "worker process died of signal %d (%s) on this point",
                     WTERMSIG(st), strsignal(WTERMSIG(st)));
        } else {
            snprintf(why, sizeof(why),
                     "worker process exited with status %d on this point (1: out of memory or "
                     "an internal error)",
                     WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        }
        rc = sweep_sink_fail(sink, w->point, why);
        w->point = -1;
        if (!rc && atomic_load(&sh->next) < n_todo) {
            rc = spawn(sw, todo, n_todo, sh, ws, nw, k, delay_s);
        }
    }
    return rc;
}

int sweep_run_local(const struct sweep *sw, const char *db_path, const struct sweep_run_opts *o,
                    struct sweep_summary *sum)
{
    struct sweep_sink *sink = NULL;
    struct shared *sh = MAP_FAILED;
    struct worker *ws = NULL;
    struct pollfd *pf = NULL;
    struct db_buf b = {0};
    const int32_t *todo;
    int32_t n_todo, nw = 0;
    int rc;

    if ((rc = sweep_sink_open(&sink, sw, db_path, o, sum)) != 0) {
        return rc;
    }
    sweep_sink_todo(sink, &todo, &n_todo);
    nw = o->jobs > 0 ? o->jobs : (int32_t)sysconf(_SC_NPROCESSORS_ONLN);
    if (nw < 1) {
        nw = 1;
    }
    if (nw > n_todo) {
        nw = n_todo;
    }
    sum->jobs = nw;
    if (n_todo == 0) {
        goto cleanup;
    }
    sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    ws = mem_calloc((size_t)nw, sizeof(*ws));
    pf = mem_calloc((size_t)nw, sizeof(*pf));
    /* no worker yet, before any goto cleanup: a zeroed slot (fd 0, pid 0)
     * made the cleanup close stdin and kill(0, SIGKILL), the whole process
     * group (the calling shell too) when pf's allocation failed */
    for (int32_t k = 0; ws && k < nw; k++) {
        ws[k].fd = -1;
    }
    if (sh == MAP_FAILED || !ws || !pf) {
        rc = sh == MAP_FAILED ? err_set(BAECHI_ENOMEM, "cannot map shared memory") : BAECHI_ENOMEM;
        goto cleanup;
    }
    atomic_init(&sh->next, 0);
    signal(SIGPIPE, SIG_IGN);
    for (int32_t k = 0; k < nw; k++) {
        CHECK(spawn(sw, todo, n_todo, sh, ws, nw, k, o->point_delay_s));
    }
    for (;;) {
        int32_t live = 0;
        int n;
        for (int32_t k = 0; k < nw; k++) {
            pf[k].fd = ws[k].fd;
            pf[k].events = POLLIN;
            pf[k].revents = 0;
            live += ws[k].fd >= 0;
        }
        if (live == 0) {
            break;
        }
        n = poll(pf, (nfds_t)nw, 100);
        if (n < 0 && errno != EINTR) {
            rc = err_set(BAECHI_EIO, "poll: %s", strerror(errno));
            goto cleanup;
        }
        for (int32_t k = 0; n > 0 && k < nw; k++) {
            if (ws[k].fd >= 0 && (pf[k].revents & (POLLIN | POLLHUP | POLLERR))) {
                CHECK(service(sink, sw, todo, n_todo, sh, ws, nw, k, &b, o->point_delay_s));
            }
        }
        CHECK(sweep_sink_tick(sink, false));
    }
cleanup:
    for (int32_t k = 0; ws && k < nw; k++) {
        if (ws[k].fd >= 0) {
            kill(ws[k].pid, SIGKILL);
            close(ws[k].fd);
            waitpid(ws[k].pid, NULL, 0);
        }
    }
    {
        int rc2 = sweep_sink_close(sink);
        if (!rc) {
            rc = rc2;
        }
    }
    if (sh != MAP_FAILED) {
        munmap(sh, sizeof(*sh));
    }
    free(ws);
    free(pf);
    free(b.p);
    return rc;
}
