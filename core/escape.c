/*
 * escape.c - control characters in names, escaped (see escape.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/escape.h"

#include <stdio.h>
#include <string.h>

#define ESCAPE_TMP_N    8
#define ESCAPE_TMP_SIZE 512

/* The escape of the character at s (its length in *len), or NULL to copy it. */
static const char *escape_of(const unsigned char *s, size_t *len, char tmp[8])
{
    *len = 1;
    switch (s[0]) {
    case '\n':
        return "\\n";
    case '\t':
        return "\\t";
    case '\r':
        return "\\r";
    default:
        break;
    }
    if (s[0] < 0x20 || s[0] == 0x7f) {
        snprintf(tmp, 8, "\\x%02x", s[0]);
        return tmp;
    }
    if (s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f) {
        *len = 2;
        snprintf(tmp, 8, "\\u00%02x", s[1]);
        return tmp;
    }
    return NULL;
}

const char *escape_name(const char *s, char *buf, size_t size)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "(null)");
    size_t n = 0;

    if (size == 0) {
        return buf;
    }
    while (*p) {
        char tmp[8];
        size_t len;
        const char *e = escape_of(p, &len, tmp);
        size_t elen = e ? strlen(e) : 1;

        if (n + elen >= size) {
            break;
        }
        if (e) {
            memcpy(buf + n, e, elen);
        } else {
            buf[n] = (char)*p;
        }
        n += elen;
        p += len;
    }
    buf[n] = '\0';
    return buf;
}

int escape_fputs(const char *s, FILE *f)
{
    for (const unsigned char *p = (const unsigned char *)(s ? s : "(null)"); *p;) {
        char tmp[8];
        size_t len;
        const char *e = escape_of(p, &len, tmp);

        if (e ? fputs(e, f) < 0 : putc(*p, f) == EOF) {
            return EOF;
        }
        p += len;
    }
    return 0;
}

bool escape_needed(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
        char tmp[8];
        size_t len;

        if (escape_of(p, &len, tmp)) {
            return true;
        }
    }
    return false;
}

const char *escape_tmp(const char *s)
{
    static _Thread_local char bufs[ESCAPE_TMP_N][ESCAPE_TMP_SIZE];
    static _Thread_local unsigned next;
    char *b = bufs[next++ % ESCAPE_TMP_N];

    return escape_name(s, b, ESCAPE_TMP_SIZE);
}
