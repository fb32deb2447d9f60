/*
 * escape.h - names as they may be printed: control characters escaped, so
 * that a message stays one line and a name cannot move the cursor or
 * recolour the terminal (an op named "a\nb" or "\x1b[31m").
 *
 *   \n \t \r          as those two characters
 *   other bytes < 0x20 and 0x7f     as \xNN
 *   U+0080..U+009F (C1 controls, UTF-8 c2 80..c2 9f)   as \u00NN
 *
 * Everything else (printable ASCII, other UTF-8) is copied as it is; a
 * backslash stays a backslash.  err_set() and err_warn() escape whole
 * messages; text reports escape the names they print with escape_tmp().
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CORE_ESCAPE_H
#define BAECHI_CORE_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Escapes s into buf (always NUL-terminated, truncated to size - 1 bytes,
 * never inside an escape); returns buf.  s NULL gives "(null)". */
const char *escape_name(const char *s, char *buf, size_t size);

/* escape_name() of the whole of s (no truncation) written to f; EOF on a
 * write error, else 0. */
int escape_fputs(const char *s, FILE *f);

/* True when s holds nothing escape_name() would change. */
bool escape_needed(const char *s);

/*
 * escape_name() into one of 8 rotating thread-local buffers of 512 bytes:
 * for printf arguments ("%s", escape_tmp(a), escape_tmp(b)); a result stays
 * valid until 8 more calls on the same thread.
 */
const char *escape_tmp(const char *s);

#endif
