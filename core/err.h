/*
 * err.h - error codes and the last error message.
 *
 * Library code never prints and never exits (docs/style.md §4): a
 * fallible function returns 0 or a code from enum baechi_err and leaves one
 * message, with the values involved, in a per-thread buffer.  Only main and
 * the cmd_* handlers print it ("baechi: <message>") and map the code to an
 * exit status with err_exit_status().
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CORE_ERR_H
#define BAECHI_CORE_ERR_H

#include <stdarg.h>
#include <stdbool.h>

enum baechi_err {
    BAECHI_OK = 0,
    BAECHI_ENOMEM,      /* an allocation failed */
    BAECHI_EINVAL,      /* bad argument or bad input value */
    BAECHI_EPARSE,      /* malformed input file (message has file:line:col) */
    BAECHI_EIO,         /* a file could not be read or written */
    BAECHI_EINFEASIBLE, /* no placement satisfies the constraints (a result) */
    BAECHI_ESOLVER,     /* the LP solver failed */
    BAECHI_EUNSUPPORTED /* not available in this build or on this machine */
};

/* Exit statuses of the program (README, exit codes). */
enum {
    EXIT_OK = 0,
    EXIT_INTERNAL = 1,  /* out of memory, solver crash, a BUG() */
    EXIT_BADINPUT = 2,  /* bad input or usage */
    EXIT_INFEASIBLE = 3 /* the placement is infeasible (a result) */
};

/*
 * Formats the message (printf-style, lower-case, no full stop, as git's
 * CodingGuidelines say) into the thread's buffer and returns `code`, so that
 * `return err_set(BAECHI_EINVAL, "...", ...)` reports and fails in one line.
 */
int err_set(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* err_set with a va_list. */
int err_vset(int code, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* Prefixes the current message with "prefix: " (adds context on the way up). */
int err_wrap(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The last message set in this thread ("" if none). */
const char *err_msg(void);

/* Forgets the last message. */
void err_clear(void);

/*
 * An I/O failure with errno `errnum` (0: EIO): the message is the format
 * followed by ": <strerror(errnum)>" ("cannot open 'x' for writing: No
 * space left on device").  Returns BAECHI_ENOMEM for ENOMEM, else
 * BAECHI_EIO.  When the reason lies in the machine's state, not in the path
 * the user gave (err_errno_is_system: a full disk, a read-only file system,
 * a file size limit, a device error), the message is marked as a failure
 * of the system, and err_exit_status(BAECHI_EIO) is 1, not 2.
 */
int err_set_io(int errnum, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Whether errno `errnum` is the system's failure (ENOSPC, EROFS, EFBIG, EIO,
 * EDQUOT, ...) rather than a path's (ENOENT, EACCES, EISDIR, ENOTDIR, ...). */
bool err_errno_is_system(int errnum);

/* Marks the current message as a failure of the system (SQLite's "database
 * or disk is full"); err_set clears the mark, err_wrap keeps it. */
void err_set_system(void);
bool err_is_system(void);

/* Maps an error code to the program's exit status: BAECHI_EIO is 2 (the
 * input: a missing or unreadable file), or 1 when the current message is
 * marked a failure of the system (see err_set_io). */
int err_exit_status(int code);

/* Prints "baechi: warning: ..." to stderr (warnings are not errors). */
void err_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Warnings go to fn(message, ctx) instead of stderr (the library's users:
 * include/baechi.h); NULL restores stderr.  Process-wide, not per thread.
 * When it returns, no call of the previous handler runs any more (it waits
 * for those under way), so its context may be freed; called from inside a
 * handler, it cannot wait for that handler's own call and returns at once.
 * A handler may warn, and may set another handler.
 */
typedef void (*err_warn_fn)(const char *msg, void *ctx);
void err_set_warn_handler(err_warn_fn fn, void *ctx);

/* Quiet warnings (tests and library users that collect them otherwise), in
 * the calling thread only: calibrate silences its own probes without muting
 * another thread's warnings. */
void err_set_quiet(int quiet);

/* Impossible states: print file:line and abort (git BUG(), redis serverAssert). */
#define BUG(...) err_bug(__FILE__, __LINE__, __VA_ARGS__)
_Noreturn void err_bug(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Stores the code in `rc` and jumps to `cleanup` when `expr` fails. */
#define CHECK(expr)                                                                                \
    do {                                                                                           \
        if ((rc = (expr)) != 0) {                                                                  \
            goto cleanup;                                                                          \
        }                                                                                          \
    } while (0)

#endif
