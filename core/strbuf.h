/*
 * strbuf.h - a growable string (git's strbuf is the model): where a name, a
 * path, a key, an SQL fragment or a message is built piece by piece, instead
 * of snprintf into a fixed char[N] that truncates or fails at N.
 *
 *     struct strbuf sb = STRBUF_INIT;
 *
 *     CHECK(strbuf_addf(&sb, "%s/grad", name));
 *     ... use sb.buf (sb.len bytes, NUL-terminated) ...
 *   cleanup:
 *     strbuf_release(&sb);
 *
 * Invariants: buf is never NULL and always NUL-terminated (an unallocated
 * strbuf points at strbuf_empty, a read-only ""); len is strlen(buf) unless
 * bytes with NUL were added (strbuf_add); alloc is the capacity, 0 while
 * nothing was allocated.  Every allocation goes through core/alloc.h.
 *
 * Errors: a function that grows the string returns 0 or BAECHI_ENOMEM with
 * the message set ("out of memory (N bytes)"; a size past SIZE_MAX is
 * refused the same way before any allocation), and on failure the string is
 * left exactly as it was (still valid, still owned by the caller).
 *
 * No state outside the struct: strbufs may be used from any thread, one
 * strbuf by one thread at a time.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CORE_STRBUF_H
#define BAECHI_CORE_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
    size_t alloc; /* bytes allocated at buf; 0: buf is strbuf_empty */
    size_t len;   /* bytes in use, the NUL not counted */
    char *buf;    /* never NULL, always NUL-terminated */
};

/* The "" of every unallocated strbuf; never written. */
extern const char strbuf_empty[1];

#define STRBUF_INIT                                                                                \
    {                                                                                              \
        0, 0, (char *)strbuf_empty                                                                 \
    }

/* An empty string; allocates nothing (cannot fail). */
void strbuf_init(struct strbuf *sb);

/* Frees the buffer and leaves an empty string (strbuf_init); NULL is a no-op. */
void strbuf_release(struct strbuf *sb);

/* Empties the string and keeps its buffer for reuse. */
void strbuf_reset(struct strbuf *sb);

/* Shortens the string to len bytes (len <= sb->len, else BUG()). */
void strbuf_setlen(struct strbuf *sb, size_t len);

/*
 * Makes room for `extra` more bytes (plus the NUL) without another
 * allocation.  Grows by 1.5x.  0 or BAECHI_ENOMEM (string unchanged).
 */
int strbuf_grow(struct strbuf *sb, size_t extra);

/* Appends `n` bytes of `data` (which may hold NULs). */
int strbuf_add(struct strbuf *sb, const void *data, size_t n);

/* Appends the string s. */
int strbuf_addstr(struct strbuf *sb, const char *s);

/* Appends one byte. */
int strbuf_addch(struct strbuf *sb, int c);

/*
 * Appends printf-style output, whatever its length.  Besides
 * BAECHI_ENOMEM, BAECHI_EINVAL when the C library cannot format it (an
 * output over INT_MAX bytes, an invalid wide character).
 */
int strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/*
 * Empties the string and appends printf-style output (strbuf_reset then
 * strbuf_addf): one buffer reused for a name per iteration.  On failure
 * the string is empty (not as it was).
 */
int strbuf_setf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Hands the string to the caller (who frees it with free()) and leaves sb
 * empty; *len_out (when not NULL) gets its length.  An unallocated strbuf
 * yields a new "" (so the result is always the caller's to free).  NULL
 * with BAECHI_ENOMEM set when that allocation fails (sb unchanged).
 */
char *strbuf_detach(struct strbuf *sb, size_t *len_out);

#endif
