/*
 * file_out.c - writing an output file whole or not at all, and the
 * temporary files a signal must not leave behind (see file_out.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/file_out.h"

#include "core/alloc.h"
#include "core/err.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FILE_OUT_PENDING_N 32

enum { SLOT_FREE, SLOT_FILLING, SLOT_SET };

/*
 * The temporary files being written, for a signal handler to remove: the
 * one mutable static of the library's writers (a handler reaches nothing
 * else), fixed-size, each slot claimed by a compare-and-swap and its path
 * published before its state (scripts/check-statics.sh allows it).  A
 * writer that finds every slot taken writes unregistered.
 */
static struct {
    char path[FILE_OUT_PENDING_N][PATH_MAX];
    atomic_int state[FILE_OUT_PENDING_N];
} file_out_pending;

static const int file_out_caught[] = {SIGTERM, SIGINT, SIGHUP};
#define N_CAUGHT (sizeof(file_out_caught) / sizeof(file_out_caught[0]))

/* Only async-signal-safe calls: unlink. */
void file_out_remove_pending(void)
{
    for (int i = 0; i < FILE_OUT_PENDING_N; i++) {
        if (atomic_load(&file_out_pending.state[i]) == SLOT_SET) {
            unlink(file_out_pending.path[i]);
        }
    }
}

void file_out_on_signal(int sig)
{
    struct sigaction dfl;

    file_out_remove_pending();
    /* then the process ends as the signal asked */
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig);
}

void file_out_signals_install(void)
{
    struct sigaction sa, old;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = file_out_on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t k = 0; k < N_CAUGHT; k++) {
        sigaddset(&sa.sa_mask, file_out_caught[k]); /* one cleanup at a time */
    }
    for (size_t k = 0; k < N_CAUGHT; k++) {
        /* a signal ignored (nohup) or handled by the program stays so */
        if (sigaction(file_out_caught[k], NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) &&
            old.sa_handler == SIG_DFL) {
            sigaction(file_out_caught[k], &sa, NULL);
        }
    }
}

/* The slot now holding tmp, or -1 when all are taken. */
static int pending_add(const char *tmp)
{
    size_t len = strlen(tmp);

    if (len >= PATH_MAX) {
        return -1;
    }
    for (int i = 0; i < FILE_OUT_PENDING_N; i++) {
        int free_state = SLOT_FREE;

        if (atomic_compare_exchange_strong(&file_out_pending.state[i], &free_state, SLOT_FILLING)) {
            memcpy(file_out_pending.path[i], tmp, len + 1);
            atomic_store(&file_out_pending.state[i], SLOT_SET); /* the path before the state */
            return i;
        }
    }
    return -1;
}

static void pending_remove(int slot)
{
    if (slot >= 0) {
        atomic_store(&file_out_pending.state[slot], SLOT_FREE);
    }
}

/* A failed open for writing (errno e): out of memory is not bad input. */
static int open_err(const char *path, int e)
{
    if (e == ENOMEM) {
        return err_set(BAECHI_ENOMEM, "out of memory opening '%s' for writing", path);
    }
    return err_set_io(e, "cannot open '%s' for writing", path);
}

/*
 * After fn(f) returned rc with errno e: a stream error is the output's
 * failure whatever fn said ("cannot write YAML"), reported with the file's
 * name and the system's reason; then flushes and closes f (not stdout).
 */
static int write_err(const FILE *f, const char *path, int e)
{
    return f == stdout ? err_set_io(e, "error writing standard output")
                       : err_set_io(e, "error writing '%s'", path);
}

static int close_checked(FILE *f, const char *path, int rc, int e)
{
    if (rc != BAECHI_ENOMEM && ferror(f)) {
        /* the errno of the failed write may be gone by now (the writer went
         * on, or said only "write error"): a second flush fails the same way */
        clearerr(f);
        errno = 0;
        if (fflush(f) != 0 && errno != 0) {
            e = errno;
        }
        rc = write_err(f, path, e);
    }
    errno = 0;
    if ((fflush(f) != 0 || ferror(f)) && !rc) {
        rc = write_err(f, path, errno);
    }
    if (f == stdout) {
        clearerr(stdout); /* reported here: the check of stdout at exit need not say it again */
        return rc;
    }
    errno = 0;
    if (fclose(f) != 0 && !rc) {
        rc = write_err(NULL, path, errno); /* not stdout (returned above); f is closed */
    }
    return rc;
}

/*
 * A new file "<path>.tmpXXXXXX" beside path, created with O_EXCL and mode
 * 0666 so that the process's umask applies as to any new file (mkstemp
 * makes 0600, and changing the umask around it changed it for every thread
 * of the process).  Signals are held from the creation until the name is
 * registered: a SIGTERM in between would leave it.
 */
static int tmp_create(const char *path, char **tmp, int *fd, int *slot)
{
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    sigset_t block, old;
    size_t len = strlen(path);
    int e = 0;

    *fd = -1;
    *slot = -1;
    if (mem_asprintf(tmp, "%s.tmpXXXXXX", path) < 0) {
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    sigemptyset(&block);
    for (size_t k = 0; k < N_CAUGHT; k++) {
        sigaddset(&block, file_out_caught[k]);
    }
    for (int attempt = 0; attempt < 100 && *fd < 0; attempt++) {
        uint64_t x = 0;
        struct timespec ts;

        if (getrandom(&x, sizeof(x), GRND_NONBLOCK) != (ssize_t)sizeof(x)) {
            clock_gettime(CLOCK_REALTIME, &ts);
            x = (uint64_t)ts.tv_nsec * 2654435761u + (uint64_t)getpid() * 40503u +
                (uint64_t)attempt * 7919u + (uint64_t)(uintptr_t)&x;
        }
        for (int i = 0; i < 6; i++) {
            (*tmp)[len + 4 + i] = digits[x % (sizeof(digits) - 1)];
            x /= sizeof(digits) - 1;
        }
        pthread_sigmask(SIG_BLOCK, &block, &old);
        *fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        e = errno;
        if (*fd >= 0) {
            *slot = pending_add(*tmp);
        }
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (*fd < 0 && e != EEXIST) {
            break;
        }
    }
    if (*fd < 0) {
        free(*tmp);
        *tmp = NULL;
        return open_err(path, e);
    }
    return 0;
}

int file_write_atomic(const char *path, file_write_fn fn, void *ctx)
{
    char *tmp = NULL;
    FILE *f = NULL;
    struct stat st;
    int fd = -1, slot = -1, rc = 0;

    if (strcmp(path, "-") == 0) {
        rc = fn(stdout, ctx);
        return close_checked(stdout, "-", rc, errno);
    }
    /* A device, a pipe or a link (/dev/stdout, a FIFO) is written as it is:
     * renaming over it would replace the node instead of writing to it. */
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (!(f = fopen(path, "w"))) {
            return open_err(path, errno);
        }
        rc = fn(f, ctx);
        return close_checked(f, path, rc, errno);
    }
    if ((rc = tmp_create(path, &tmp, &fd, &slot)) != 0) {
        return rc;
    }
    if (!(f = fdopen(fd, "w"))) {
        rc = open_err(path, errno);
        close(fd);
        goto cleanup;
    }
    rc = fn(f, ctx);
    rc = close_checked(f, path, rc, errno);
    if (!rc && rename(tmp, path) != 0) {
        rc = err_set_io(errno, "cannot write '%s'", path);
    }
cleanup:
    if (rc) {
        unlink(tmp);
    }
    pending_remove(slot);
    free(tmp);
    return rc;
}
