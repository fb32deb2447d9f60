/*
 * err.c - error codes and the last error message (see err.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/err.h"

#include "core/escape.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ERR_MSG_MAX 2048

static _Thread_local char err_buf[ERR_MSG_MAX];
static int err_quiet;
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
    err_warn_handler = fn;
    err_warn_ctx = ctx;
}

void err_warn(const char *fmt, ...)
{
    va_list ap;
    char raw[ERR_MSG_MAX], msg[ERR_MSG_MAX];

    if (err_quiet) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(raw, sizeof(raw), fmt, ap);
    va_end(ap);
    escape_name(raw, msg, sizeof(msg)); /* one line, as err_set() */
    if (err_warn_handler) {
        err_warn_handler(msg, err_warn_ctx);
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
