/*
 * test_process_state.c - the library's process-wide state from threads
 * (issue 30 item 5):
 *
 *  - writing placement files never changes the process's umask: threads
 *    that create files meanwhile get 0666 less the umask every time, and
 *    the umask read from /proc/self/status (without changing it) never
 *    moves (baechi_placement_write once set it to 0 around mkstemp);
 *  - once baechi_set_warning_handler returns, no call of the previous
 *    handler runs with the previous context: the caller may free it
 *    (it was a heap-use-after-free under ASan); a handler may warn and set
 *    another handler without a deadlock.
 *
 * `make tsan` runs it under ThreadSanitizer as a program of its own
 * (mk/tsan.mk), as test_placer_threads.c.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef PROCESS_STATE_MAIN
#include <criterion/criterion.h>
#else
/* A program of its own under TSan (test_placer_threads.c says why). */
#include <stdio.h>
#include <stdlib.h>

#define cr_assert(c, ...)                                                                          \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "%s:%d: assertion failed: %s\n", __FILE__, __LINE__, #c);              \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
#define cr_assert_eq(a, b, ...) cr_assert((a) == (b))
#define cr_assert_gt(a, b, ...) cr_assert((a) > (b))
#define Test(suite, name, ...)  static void suite##_##name(void)
#endif

#include "core/err.h"
#include "include/baechi.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum {
    N_WRITERS = 4,
    /* placement files per writer: with the umask set to 0 around the
     * temporary file's open, 100 gave 7,800-14,500 files of the wrong
     * mode (25 still over 2,000); 400 took 5 s of CPU a build, the
     * creators spinning meanwhile */
    N_WRITES = 100,
    N_CREATORS = 4,
    N_WARNERS = 8,
    N_SWAPS = 200
};

/* ------------------------------------------------------------ umask */

struct umask_run {
    const struct baechi_placement *p;
    const struct baechi_workload *w;
    char dir[64];
    atomic_int writers_left;
    atomic_long created, bad_mode, bad_umask, write_failed;
};

struct writer_arg {
    struct umask_run *run;
    int id;
};

static void *writer_main(void *arg)
{
    struct writer_arg *a = arg;
    char path[128];

    snprintf(path, sizeof(path), "%s/p%d.yaml", a->run->dir, a->id);
    for (int i = 0; i < N_WRITES; i++) {
        if (baechi_placement_write(a->run->p, a->run->w, path) != 0) {
            atomic_fetch_add(&a->run->write_failed, 1);
        }
    }
    atomic_fetch_sub(&a->run->writers_left, 1);
    return NULL;
}

/* Creates files as any program does while the writers run: mode 0644 each. */
static void *creator_main(void *arg)
{
    struct writer_arg *a = arg;
    char path[128];
    struct stat st;

    for (long i = 0; atomic_load(&a->run->writers_left) > 0 || i < 100; i++) {
        int fd;

        snprintf(path, sizeof(path), "%s/c%d-%ld", a->run->dir, a->id, i);
        if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0666)) < 0) {
            atomic_fetch_add(&a->run->bad_mode, 1);
            continue;
        }
        if (fstat(fd, &st) != 0 || (st.st_mode & 0777) != 0644) {
            atomic_fetch_add(&a->run->bad_mode, 1);
        }
        close(fd);
        unlink(path);
        atomic_fetch_add(&a->run->created, 1);
    }
    return NULL;
}

/* The umask as /proc/self/status shows it (Linux 4.7+): read, never set. */
static int umask_seen(void)
{
    char line[256];
    FILE *f = fopen("/proc/self/status", "r");
    int m = -1;

    if (!f) {
        return -1;
    }
    while (fgets(line, sizeof(line), f)) {
        if (sscanf(line, "Umask: %o", (unsigned *)&m) == 1) {
            break;
        }
    }
    fclose(f);
    return m;
}

static void *monitor_main(void *arg)
{
    struct umask_run *run = arg;

    while (atomic_load(&run->writers_left) > 0) {
        int m = umask_seen();

        if (m >= 0 && m != 022) {
            atomic_fetch_add(&run->bad_umask, 1);
        }
    }
    return NULL;
}

Test(process_state, placement_writes_keep_the_umask)
{
    struct baechi_workload *w = NULL;
    struct baechi_cluster *c = NULL;
    struct baechi_placement *p = NULL;
    struct umask_run run;
    struct writer_arg wa[N_WRITERS], ca[N_CREATORS];
    pthread_t wt[N_WRITERS], ct[N_CREATORS], mt;
    char path[128];
    struct stat st;

    umask(022);
    memset(&run, 0, sizeof(run));
    cr_assert_eq(baechi_workload_load("tests/data/t1.yaml", &w), 0, "%s", baechi_errmsg());
    cr_assert_eq(baechi_cluster_load("tests/data/t1-cluster.yaml", &c), 0, "%s", baechi_errmsg());
    cr_assert_eq(baechi_place(w, c, "m-etf", NULL, &p), 0, "%s", baechi_errmsg());
    snprintf(run.dir, sizeof(run.dir), "/tmp/baechi-umask-XXXXXX");
    cr_assert(mkdtemp(run.dir) != NULL);
    run.p = p;
    run.w = w;
    atomic_store(&run.writers_left, N_WRITERS);
    pthread_create(&mt, NULL, monitor_main, &run);
    for (int i = 0; i < N_CREATORS; i++) {
        ca[i] = (struct writer_arg){&run, i};
        pthread_create(&ct[i], NULL, creator_main, &ca[i]);
    }
    for (int i = 0; i < N_WRITERS; i++) {
        wa[i] = (struct writer_arg){&run, i};
        pthread_create(&wt[i], NULL, writer_main, &wa[i]);
    }
    for (int i = 0; i < N_WRITERS; i++) {
        pthread_join(wt[i], NULL);
    }
    for (int i = 0; i < N_CREATORS; i++) {
        pthread_join(ct[i], NULL);
    }
    pthread_join(mt, NULL);
    cr_assert_eq(atomic_load(&run.write_failed), 0);
    cr_assert_gt(atomic_load(&run.created), 0);
    cr_assert_eq(atomic_load(&run.bad_mode), 0, "%ld of %ld files not 0644",
                 atomic_load(&run.bad_mode), atomic_load(&run.created));
    cr_assert_eq(atomic_load(&run.bad_umask), 0, "the umask changed %ld times",
                 atomic_load(&run.bad_umask));
    for (int i = 0; i < N_WRITERS; i++) {
        snprintf(path, sizeof(path), "%s/p%d.yaml", run.dir, i);
        /* the placement file too: 0666 less the umask, as fopen makes it */
        cr_assert(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644);
        unlink(path);
    }
    rmdir(run.dir);
    baechi_placement_free(p);
    baechi_cluster_free(c);
    baechi_workload_free(w);
}

/* ------------------------------------------------------------ warning handler */

struct warn_ctx {
    atomic_int alive; /* 0 once the setter that replaced it returned */
    atomic_long calls;
};

static atomic_long late_calls; /* calls that ran on after their handler was replaced */
static atomic_int warners_stop;

static void slow_handler(const char *msg, void *ctx)
{
    struct warn_ctx *c = ctx;
    struct timespec ts = {0, 20000};

    (void)msg;
    if (!atomic_load(&c->alive)) {
        atomic_fetch_add(&late_calls, 1);
    }
    atomic_fetch_add(&c->calls, 1);
    nanosleep(&ts, NULL); /* a handler that takes a while: the window of the race */
    if (!atomic_load(&c->alive)) {
        atomic_fetch_add(&late_calls, 1);
    }
}

static void *warner_main(void *arg)
{
    (void)arg;
    for (long i = 0; !atomic_load(&warners_stop); i++) {
        err_warn("warning %ld", i);
    }
    return NULL;
}

Test(process_state, old_handler_never_called_after_set_returns)
{
    struct warn_ctx *ctx[N_SWAPS];
    pthread_t t[N_WARNERS];
    int saved = dup(2), null = open("/dev/null", O_WRONLY);
    long calls = 0;

    /* the rounds with no handler print on stderr */
    cr_assert(saved >= 0 && null >= 0);
    dup2(null, 2);
    atomic_store(&late_calls, 0);
    atomic_store(&warners_stop, 0);
    for (int i = 0; i < N_WARNERS; i++) {
        pthread_create(&t[i], NULL, warner_main, NULL);
    }
    for (int k = 0; k < N_SWAPS; k++) {
        struct timespec ts = {0, 200000};

        cr_assert((ctx[k] = calloc(1, sizeof(*ctx[k]))) != NULL);
        atomic_store(&ctx[k]->alive, 1);
        baechi_set_warning_handler(slow_handler, ctx[k]);
        if (k > 0) {
            atomic_store(&ctx[k - 1]->alive, 0); /* replaced by the set that returned */
        }
        nanosleep(&ts, NULL);
        if (k % 3 == 0) {
            /* every third round through "no handler" */
            baechi_set_warning_handler(NULL, NULL);
            atomic_store(&ctx[k]->alive, 0);
        }
    }
    baechi_set_warning_handler(NULL, NULL);
    atomic_store(&ctx[N_SWAPS - 1]->alive, 0);
    atomic_store(&warners_stop, 1);
    for (int i = 0; i < N_WARNERS; i++) {
        pthread_join(t[i], NULL);
    }
    dup2(saved, 2);
    close(saved);
    close(null);
    for (int k = 0; k < N_SWAPS; k++) {
        calls += atomic_load(&ctx[k]->calls);
        free(ctx[k]);
    }
    cr_assert_gt(calls, 0);
    cr_assert_eq(atomic_load(&late_calls), 0, "%ld calls with a context already replaced",
                 atomic_load(&late_calls));
}

/* A handler that warns again and sets another handler: no deadlock. */
static atomic_long inner_calls;

static void inner_handler(const char *msg, void *ctx)
{
    (void)msg;
    (void)ctx;
    atomic_fetch_add(&inner_calls, 1);
}

static void reentrant_handler(const char *msg, void *ctx)
{
    (void)ctx;
    if (strcmp(msg, "outer") == 0) {
        err_warn("nested");                              /* goes to this handler again */
        baechi_set_warning_handler(inner_handler, NULL); /* returns at once */
        err_warn("after");                               /* goes to inner_handler */
    }
}

Test(process_state, handler_may_warn_and_set_another)
{
    atomic_store(&inner_calls, 0);
    baechi_set_warning_handler(reentrant_handler, NULL);
    err_warn("outer");
    cr_assert_eq(atomic_load(&inner_calls), 1);
    baechi_set_warning_handler(NULL, NULL);
}

#ifdef PROCESS_STATE_MAIN
int main(void)
{
    process_state_placement_writes_keep_the_umask();
    process_state_old_handler_never_called_after_set_returns();
    process_state_handler_may_warn_and_set_another();
    puts("process_state: 3 tests passed");
    return 0;
}
#endif
