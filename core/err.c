/*
 * err.c - error codes and the last error message (see err.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/err.h"

#include "core/escape.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ERR_MSG_MAX 2048

static _Thread_local char err_buf[ERR_MSG_MAX];
/* the message in err_buf is a failure of the system (err_set_io) */
static _Thread_local bool err_sys;
/* per thread: a scope of one caller's work (calibrate), not a setting */
static _Thread_local int err_quiet;
/* calls of a warning handler this thread is inside (a handler that warns) */
static _Thread_local int err_warn_depth;
/*
 * The one process-wide setting (include/baechi.h), read and written under
 * the lock only (scripts/check-statics.sh allows these).  A handler runs
 * outside the lock, counted in err_warn_active[] by the parity of the
 * generation it was read in: the setter starts a new generation and waits
 * until no call of the old one runs, so that its caller may free the old
 * context once it returns (a heap-use-after-free otherwise).
 */
static pthread_mutex_t err_warn_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t err_warn_idle = PTHREAD_COND_INITIALIZER;
static err_warn_fn err_warn_handler;
static void *err_warn_ctx;
static unsigned err_warn_gen;
static long err_warn_active[2];

/*
 * Every message stays one line: control characters from names, values or a
 * library's output (GLPK) are escaped here, once for all callers.  Formatted
 * into a copy first, so err_set(..., "%s", err_msg()) is safe.
 */
int err_vset(int code, const char *fmt, va_list ap)
{
    char raw[ERR_MSG_MAX];

    vsnprintf(raw, sizeof(raw), fmt, ap);
    escape_name(raw, err_buf, sizeof(err_buf));
    err_sys = false;
    return code;
}

int err_set(int code, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    code = err_vset(code, fmt, ap);
    va_end(ap);
    return code;
}

bool err_errno_is_system(int errnum)
{
    switch (errnum) {
    /* the path the user gave: missing, forbidden, not a file, ill-formed */
    case ENOENT:
    case ENOTDIR:
    case EISDIR:
    case EACCES:
    case EPERM:
    case ENAMETOOLONG:
    case ELOOP:
    case EEXIST:
    case EINVAL:
    case ENXIO:
    case ENODEV:
        return false;
    default:
        /* ENOSPC, EDQUOT, EFBIG, EROFS, EIO, EMFILE, ...: the machine's state */
        return true;
    }
}

int err_set_io(int errnum, const char *fmt, ...)
{
    char raw[ERR_MSG_MAX], full[ERR_MSG_MAX + 64];
    va_list ap;

    if (errnum == 0) {
        errnum = EIO; /* a stream error without errno: say it was I/O */
    }
    va_start(ap, fmt);
    vsnprintf(raw, sizeof(raw), fmt, ap);
    va_end(ap);
    snprintf(full, sizeof(full), "%s: %s", raw, strerror(errnum));
    escape_name(full, err_buf, sizeof(err_buf));
    err_sys = err_errno_is_system(errnum);
    return errnum == ENOMEM ? BAECHI_ENOMEM : BAECHI_EIO;
}

void err_set_system(void)
{
    err_sys = true;
}

bool err_is_system(void)
{
    return err_sys;
}

int err_wrap(int code, const char *fmt, ...)
{
    char raw[ERR_MSG_MAX], prefix[ERR_MSG_MAX];
    char old[ERR_MSG_MAX];
    va_list ap;

    memcpy(old, err_buf, sizeof(old));
    va_start(ap, fmt);
    vsnprintf(raw, sizeof(raw), fmt, ap);
    va_end(ap);
    escape_name(raw, prefix, sizeof(prefix));
    /* Truncation of an over-long message is acceptable; it stays NUL-terminated. */
    {
        size_t n = strnlen(prefix, sizeof(prefix) - 1);

        if (n > sizeof(err_buf) - 3) {
            n = sizeof(err_buf) - 3;
        }
        memcpy(err_buf, prefix, n);
        err_buf[n] = ':';
        err_buf[n + 1] = ' ';
        snprintf(err_buf + n + 2, sizeof(err_buf) - n - 2, "%.*s", (int)(sizeof(err_buf) - n - 3),
                 old);
    }
    return code;
}

const char *err_msg(void)
{
    return err_buf;
}

void err_clear(void)
{
    err_buf[0] = '\0';
    err_sys = false;
}

int err_exit_status(int code)
{
    switch (code) {
    case BAECHI_OK:
        return EXIT_OK;
    case BAECHI_EIO:
        /* a full disk is no bad input: the same command may work elsewhere */
        return err_sys ? EXIT_INTERNAL : EXIT_BADINPUT;
    case BAECHI_EINVAL:
    case BAECHI_EPARSE:
    case BAECHI_EUNSUPPORTED:
        return EXIT_BADINPUT;
    case BAECHI_EINFEASIBLE:
        return EXIT_INFEASIBLE;
    default:
        return EXIT_INTERNAL;
    }
}

void err_set_quiet(int quiet)
{
    err_quiet = quiet;
}

void err_set_warn_handler(err_warn_fn fn, void *ctx)
{
    unsigned old;

    pthread_mutex_lock(&err_warn_lock);
    err_warn_handler = fn;
    err_warn_ctx = ctx;
    old = err_warn_gen++;
    /* Calls that read the old pair may still run: wait for them.  Not from
     * inside a handler of this thread, whose own call could never end. */
    while (err_warn_depth == 0 && err_warn_active[old & 1] > 0) {
        pthread_cond_wait(&err_warn_idle, &err_warn_lock);
    }
    pthread_mutex_unlock(&err_warn_lock);
}

void err_warn(const char *fmt, ...)
{
    va_list ap;
    char raw[ERR_MSG_MAX], msg[ERR_MSG_MAX];
    err_warn_fn fn;
    void *ctx;
    unsigned gen;

    if (err_quiet) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(raw, sizeof(raw), fmt, ap);
    va_end(ap);
    escape_name(raw, msg, sizeof(msg)); /* one line, as err_set() */
    /* called outside the lock, counted: a handler may warn or set another handler */
    pthread_mutex_lock(&err_warn_lock);
    fn = err_warn_handler;
    ctx = err_warn_ctx;
    gen = err_warn_gen;
    if (fn) {
        err_warn_active[gen & 1]++;
    }
    pthread_mutex_unlock(&err_warn_lock);
    if (!fn) {
        fprintf(stderr, "baechi: warning: %s\n", msg);
        return;
    }
    err_warn_depth++;
    fn(msg, ctx);
    err_warn_depth--;
    pthread_mutex_lock(&err_warn_lock);
    if (--err_warn_active[gen & 1] == 0) {
        pthread_cond_broadcast(&err_warn_idle);
    }
    pthread_mutex_unlock(&err_warn_lock);
}

void err_bug(const char *file, int line, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "BUG: %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}
