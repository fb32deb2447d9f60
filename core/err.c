/*
 * err.c - error codes and the last error message (see err.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/err.h"

#include "core/escape.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ERR_MSG_MAX 2048

static _Thread_local char err_buf[ERR_MSG_MAX];
/* per thread: a scope of one caller's work (calibrate), not a setting */
static _Thread_local int err_quiet;
/* The one process-wide setting (include/baechi.h), a pair read and written
 * under the lock only (scripts/check-statics.sh allows these three). */
static pthread_mutex_t err_warn_lock = PTHREAD_MUTEX_INITIALIZER;
static err_warn_fn err_warn_handler;
static void *err_warn_ctx;

/*
 * Every message stays one line: control characters from names, values or a
 * library's output (GLPK) are escaped here, once for all callers.  Formatted
 * into a copy first, so err_set(..., "%s", err_msg()) is safe.
 */
int err_set(int code, const char *fmt, ...)
{
    char raw[ERR_MSG_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(raw, sizeof(raw), fmt, ap);
    va_end(ap);
    escape_name(raw, err_buf, sizeof(err_buf));
    return code;
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
}

int err_exit_status(int code)
{
    switch (code) {
    case BAECHI_OK:
        return EXIT_OK;
    case BAECHI_EINVAL:
    case BAECHI_EPARSE:
    case BAECHI_EIO:
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
    pthread_mutex_lock(&err_warn_lock);
    err_warn_handler = fn;
    err_warn_ctx = ctx;
    pthread_mutex_unlock(&err_warn_lock);
}

void err_warn(const char *fmt, ...)
{
    va_list ap;
    char raw[ERR_MSG_MAX], msg[ERR_MSG_MAX];
    err_warn_fn fn;
    void *ctx;

    if (err_quiet) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(raw, sizeof(raw), fmt, ap);
    va_end(ap);
    escape_name(raw, msg, sizeof(msg)); /* one line, as err_set() */
    /* called outside the lock: a handler may warn or set another handler */
    pthread_mutex_lock(&err_warn_lock);
    fn = err_warn_handler;
    ctx = err_warn_ctx;
    pthread_mutex_unlock(&err_warn_lock);
    if (fn) {
        fn(msg, ctx);
        return;
    }
    fprintf(stderr, "baechi: warning: %s\n", msg);
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
