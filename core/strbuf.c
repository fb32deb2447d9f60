/*
 * strbuf.c - a growable string (see strbuf.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/strbuf.h"

#include "core/alloc.h"
#include "core/err.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char strbuf_empty[1] = "";

void strbuf_init(struct strbuf *sb)
{
    sb->alloc = 0;
    sb->len = 0;
    sb->buf = (char *)strbuf_empty;
}

void strbuf_release(struct strbuf *sb)
{
    if (!sb) {
        return;
    }
    if (sb->alloc) {
        free(sb->buf);
    }
    strbuf_init(sb);
}

void strbuf_reset(struct strbuf *sb)
{
    strbuf_setlen(sb, 0);
}

void strbuf_setlen(struct strbuf *sb, size_t len)
{
    if (len > sb->len) {
        BUG("strbuf_setlen: %zu past the length %zu", len, sb->len);
    }
    sb->len = len;
    /* an unallocated strbuf is "" already: strbuf_empty is never written */
    if (sb->alloc) {
        sb->buf[len] = '\0';
    }
}

int strbuf_grow(struct strbuf *sb, size_t extra)
{
    size_t need, n;
    char *p;

    if (extra > SIZE_MAX - 1 - sb->len) {
        return err_set(BAECHI_ENOMEM, "out of memory (a string of %zu + %zu bytes overflows)",
                       sb->len, extra);
    }
    need = sb->len + extra + 1;
    if (need <= sb->alloc) {
        return 0;
    }
    /* 1.5x, as core/array.c grows; at least 64 bytes, most names fit */
    n = sb->alloc < (SIZE_MAX - 64) / 3 * 2 ? sb->alloc + sb->alloc / 2 + 64 : need;
    if (n < need) {
        n = need;
    }
    if (!(p = mem_realloc(sb->alloc ? sb->buf : NULL, n))) {
        return BAECHI_ENOMEM;
    }
    if (!sb->alloc) {
        p[0] = '\0';
    }
    sb->buf = p;
    sb->alloc = n;
    return 0;
}

int strbuf_add(struct strbuf *sb, const void *data, size_t n)
{
    int rc;

    if ((rc = strbuf_grow(sb, n)) != 0) {
        return rc;
    }
    if (n) {
        memcpy(sb->buf + sb->len, data, n);
    }
    sb->len += n;
    sb->buf[sb->len] = '\0';
    return 0;
}

int strbuf_addstr(struct strbuf *sb, const char *s)
{
    return strbuf_add(sb, s, strlen(s));
}

int strbuf_addch(struct strbuf *sb, int c)
{
    char ch = (char)c;

    return strbuf_add(sb, &ch, 1);
}

int strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
    va_list cp;
    size_t room;
    int n, rc;

    /* first into the room there is (no allocation for a short string in a
     * reused buffer), then once more into exactly the room it needs */
    room = sb->alloc ? sb->alloc - sb->len : 0;
    va_copy(cp, ap);
    n = room ? vsnprintf(sb->buf + sb->len, room, fmt, cp) : vsnprintf(NULL, 0, fmt, cp);
    va_end(cp);
    if (n < 0) {
        if (sb->alloc) {
            sb->buf[sb->len] = '\0';
        }
        return err_set(BAECHI_EINVAL, "cannot format a string with '%s'", fmt);
    }
    if ((size_t)n < room) {
        sb->len += (size_t)n;
        return 0;
    }
    if ((rc = strbuf_grow(sb, (size_t)n)) != 0) {
        if (sb->alloc) {
            sb->buf[sb->len] = '\0'; /* undo the truncated attempt */
        }
        return rc;
    }
    va_copy(cp, ap);
    n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, cp);
    va_end(cp);
    if (n < 0 || (size_t)n >= sb->alloc - sb->len) {
        sb->buf[sb->len] = '\0';
        return err_set(BAECHI_EINVAL, "cannot format a string with '%s'", fmt);
    }
    sb->len += (size_t)n;
    return 0;
}

int strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = strbuf_vaddf(sb, fmt, ap);
    va_end(ap);
    return rc;
}

int strbuf_setf(struct strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    int rc;

    strbuf_reset(sb);
    va_start(ap, fmt);
    rc = strbuf_vaddf(sb, fmt, ap);
    va_end(ap);
    return rc;
}

char *strbuf_detach(struct strbuf *sb, size_t *len_out)
{
    size_t len = sb->len;
    char *s;

    if (!sb->alloc) {
        if (!(s = mem_strdup(""))) {
            return NULL;
        }
    } else {
        s = sb->buf;
    }
    strbuf_init(sb);
    if (len_out) {
        *len_out = len;
    }
    return s;
}
