/*
 * yio.c - YAML reading helpers over libyaml events (see yio.h): whole files
 * in, the event reader with line:column messages, maps by key table, values
 * as trees.  Numbers as text: yio_number.c; the writer: yio_write.c.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/yio.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#define YIO_MAX_DEPTH 64

void yio_prefault(void *p, size_t bytes)
{
#ifdef MADV_POPULATE_WRITE
    const uintptr_t page = 4096;
    uintptr_t lo = ((uintptr_t)p + page - 1) & ~(page - 1);
    uintptr_t hi = ((uintptr_t)p + bytes) & ~(page - 1);

    if (bytes >= ((size_t)1 << 20) && hi > lo) {
        (void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE); /* advice only */
    }
#else
    (void)p;
    (void)bytes;
#endif
}

int yio_read_file(const char *path, char **text, size_t *len)
{
    FILE *f = NULL;
    char *buf = NULL;
    size_t n = 0, alloc = 0;
    int rc = 0;

    *text = NULL;
    *len = 0;
    f = fopen(path, "rb");
    if (!f) {
        if (errno == ENOMEM) { /* fopen's buffer or the kernel: not bad input */
            return err_set(BAECHI_ENOMEM, "out of memory opening '%s'", path);
        }
        return err_set(BAECHI_EIO, "cannot open '%s': %s", path, strerror(errno));
    }
    /* A regular file is read into one buffer of its size (a 98 MB workload
     * was read through 12 doublings: copies, and 128 MB held); a pipe grows
     * as before. */
    {
        struct stat st;

        if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
            (uint64_t)st.st_size < SIZE_MAX / 2 &&
            ARRAY_RESERVE(buf, alloc, (size_t)st.st_size + 1)) {
            rc = err_set(BAECHI_ENOMEM, "out of memory reading '%s'", path);
            goto cleanup;
        }
        yio_prefault(buf, alloc);
    }
    for (;;) {
        size_t got;
        int c;

        /* A full buffer grows only when a byte follows: the buffer of a
         * regular file is full at its end, and growing it there copied the
         * whole file once more (a fifth of loading a 126 MB workload). */
        if (alloc - n < 2) {
            c = EOF;
            if (alloc > 0 && (c = getc(f)) == EOF) {
                break;
            }
            if (ARRAY_RESERVE(buf, alloc, n + 65536 + 1)) {
                rc = err_set(BAECHI_ENOMEM, "out of memory reading '%s'", path);
                goto cleanup;
            }
            if (c != EOF) {
                buf[n++] = (char)c;
            }
        }
        got = fread(buf + n, 1, alloc - n - 1, f);
        n += got;
        if (got == 0) {
            break;
        }
    }
    if (ferror(f)) {
        rc = err_set(BAECHI_EIO, "cannot read '%s': %s", path, strerror(errno));
        goto cleanup;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    buf = NULL;
cleanup:
    free(buf);
    fclose(f);
    return rc;
}

int yrd_open(struct yrd *r, const char *text, size_t len, const char *name)
{
    memset(r, 0, sizeof(*r));
    r->name = name ? name : "<input>";
    r->text = text;
    r->len = len;
    if (!yaml_parser_initialize(&r->parser)) {
        return err_set(BAECHI_ENOMEM, "out of memory starting the YAML parser");
    }
    r->have_parser = true;
    yaml_parser_set_input_string(&r->parser, (const unsigned char *)text, len);
    return 0;
}

void yrd_pull_after(struct yrd *r, size_t at, yrd_pull_fn pull, void *ctx)
{
    r->pull = pull;
    r->pull_ctx = ctx;
    r->pull_at = at;
}

/* Forgets the current event (libyaml's are freed, pulled ones borrowed). */
static void yrd_drop_event(struct yrd *r)
{
    if (r->have_ev && !r->ev_borrowed) {
        yaml_event_delete(&r->ev);
    }
    r->have_ev = false;
    r->ev_borrowed = false;
}

void yrd_close(struct yrd *r)
{
    yrd_drop_event(r);
    if (r->have_parser) {
        yaml_parser_delete(&r->parser);
        r->have_parser = false;
    }
    FREE_AND_NULL(r->key);
    r->key_alloc = 0;
}

/* The message, then its place in front (err_wrap): no buffer to cut it. */
static int yrd_verr(const struct yrd *r, int32_t line, int32_t col, const char *fmt, va_list ap)
{
    err_vset(BAECHI_EPARSE, fmt, ap);
    if (line > 0) {
        return err_wrap(BAECHI_EPARSE, "%s:%d:%d", r->name, (int)line, (int)col);
    }
    return err_wrap(BAECHI_EPARSE, "%s", r->name);
}

int yrd_err(const struct yrd *r, int32_t line, int32_t col, const char *fmt, ...)
{
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = yrd_verr(r, line, col, fmt, ap);
    va_end(ap);
    return rc;
}

int yrd_err_here(const struct yrd *r, const char *fmt, ...)
{
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = yrd_verr(r, yrd_line(r), yrd_col(r), fmt, ap);
    va_end(ap);
    return rc;
}

/* Line and column (1-based) of byte `off` of the input. */
static void yrd_offset_pos(const struct yrd *r, size_t off, int32_t *line, int32_t *col)
{
    int32_t l = 1, c = 1;

    if (off > r->len) {
        off = r->len;
    }
    for (size_t i = 0; i < off; i++) {
        if (r->text[i] == '\n') {
            l++;
            c = 1;
        } else {
            c++;
        }
    }
    *line = l;
    *col = c;
}

static int yrd_parser_error(struct yrd *r)
{
    const yaml_parser_t *p = &r->parser;
    const char *problem = p->problem ? p->problem : "YAML error";
    int32_t line, col;

    switch (p->error) {
    case YAML_MEMORY_ERROR:
        return err_set(BAECHI_ENOMEM, "%s: out of memory parsing YAML", r->name);
    case YAML_READER_ERROR:
        yrd_offset_pos(r, p->problem_offset, &line, &col);
        if (p->problem_value != -1) {
            return yrd_err(r, line, col, "not a text file: %s (byte 0x%02x)", problem,
                           (unsigned)p->problem_value & 0xffu);
        }
        return yrd_err(r, line, col, "not a text file: %s", problem);
    default:
        line = (int32_t)p->problem_mark.line + 1;
        col = (int32_t)p->problem_mark.column + 1;
        if (p->context) {
            return yrd_err(r, line, col, "YAML syntax error: %s (%s at line %d)", problem,
                           p->context, (int)p->context_mark.line + 1);
        }
        return yrd_err(r, line, col, "YAML syntax error: %s", problem);
    }
}

int yrd_next(struct yrd *r)
{
    const yaml_char_t *tag = NULL;
    int rc;

    if (r->pull && !r->pulling && r->have_ev && r->ev.type == YAML_SCALAR_EVENT &&
        r->ev.start_mark.index == r->pull_at) {
        r->pulling = true;
    }
    yrd_drop_event(r);
    if (r->pulling) {
        memset(&r->ev, 0, sizeof(r->ev));
        if ((rc = r->pull(r->pull_ctx, &r->ev)) != 0) {
            return rc;
        }
        r->ev_borrowed = true;
    } else if (!yaml_parser_parse(&r->parser, &r->ev)) {
        return yrd_parser_error(r);
    }
    r->have_ev = true;
    switch (r->ev.type) {
    case YAML_ALIAS_EVENT:
        return yrd_err_here(r, "aliases are not supported (*%s): write the value out",
                            (const char *)r->ev.data.alias.anchor);
    case YAML_SCALAR_EVENT:
        tag = r->ev.data.scalar.tag;
        break;
    case YAML_SEQUENCE_START_EVENT:
        tag = r->ev.data.sequence_start.tag;
        break;
    case YAML_MAPPING_START_EVENT:
        tag = r->ev.data.mapping_start.tag;
        break;
    default:
        break;
    }
    if (tag) {
        return yrd_err_here(r, "tags are not supported ('%s')", (const char *)tag);
    }
    return 0;
}

int yrd_begin(struct yrd *r)
{
    int rc;

    if ((rc = yrd_next(r))) { /* STREAM_START */
        return rc;
    }
    if ((rc = yrd_next(r))) {
        return rc;
    }
    if (r->ev.type == YAML_STREAM_END_EVENT) {
        return yrd_err(r, 0, 0, "empty file (no YAML document)");
    }
    if ((rc = yrd_next(r))) { /* after DOCUMENT_START */
        return rc;
    }
    if (r->ev.type != YAML_MAPPING_START_EVENT) {
        char what[96];

        return yrd_err_here(r, "top level must be a mapping (key: value lines), not %s",
                            yrd_what(r, what, sizeof(what)));
    }
    return 0;
}

int yrd_end(struct yrd *r)
{
    int rc;

    if ((rc = yrd_next(r))) { /* DOCUMENT_END */
        return rc;
    }
    if ((rc = yrd_next(r))) {
        return rc;
    }
    if (r->ev.type != YAML_STREAM_END_EVENT) {
        return yrd_err_here(r, "more than one YAML document in the file");
    }
    return 0;
}

int yrd_key(struct yrd *r)
{
    int rc;
    size_t n;

    if ((rc = yrd_next(r))) {
        return rc;
    }
    if (r->ev.type == YAML_MAPPING_END_EVENT) {
        return YRD_END;
    }
    if (r->ev.type != YAML_SCALAR_EVENT) {
        return yrd_err_here(r, "mapping keys must be plain strings");
    }
    n = r->ev.data.scalar.length;
    if (ARRAY_RESERVE(r->key, r->key_alloc, n + 1)) {
        return err_set(BAECHI_ENOMEM, "%s: out of memory", r->name);
    }
    memcpy(r->key, r->ev.data.scalar.value, n);
    r->key[n] = '\0';
    r->key_line = yrd_line(r);
    r->key_col = yrd_col(r);
    return 0;
}

int yrd_item(struct yrd *r)
{
    int rc;

    if ((rc = yrd_next(r))) {
        return rc;
    }
    return r->ev.type == YAML_SEQUENCE_END_EVENT ? YRD_END : 0;
}

/* An error at (line, col) with the mapping's prefix ("op 'x': ") in front
 * of the message, when it has one. */
static int map_err(struct yrd *r, const struct yrd_map *m, void *arg, int32_t line, int32_t col,
                   const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static int map_err(struct yrd *r, const struct yrd_map *m, void *arg, int32_t line, int32_t col,
                   const char *fmt, ...)
{
    struct strbuf label = STRBUF_INIT;
    const char *pre = m->ctx;
    va_list ap;
    int rc;

    if (m->label) {
        if ((rc = m->label(arg, &label))) {
            return rc;
        }
        pre = label.buf;
    }
    va_start(ap, fmt);
    err_vset(BAECHI_EPARSE, fmt, ap);
    va_end(ap);
    if (pre) {
        err_wrap(BAECHI_EPARSE, "%s", pre);
    }
    rc = line > 0 ? err_wrap(BAECHI_EPARSE, "%s:%d:%d", r->name, (int)line, (int)col)
                  : err_wrap(BAECHI_EPARSE, "%s", r->name);
    strbuf_release(&label);
    return rc;
}

int yrd_map_read(struct yrd *r, const struct yrd_map *m, void *arg, unsigned *seen)
{
    int32_t line = yrd_line(r), col = yrd_col(r);
    int rc;

    while ((rc = yrd_key(r)) == 0) {
        unsigned bit = 0;

        for (size_t i = 0; i < m->n_keys; i++) {
            if (r->key[0] == m->keys[i].name[0] && strcmp(r->key, m->keys[i].name) == 0) {
                bit = m->keys[i].bit;
                break;
            }
        }
        if (bit == 0) {
            if (strncmp(r->key, "x-", 2) != 0) {
                return map_err(r, m, arg, r->key_line, r->key_col, "unknown key '%s'%s", r->key,
                               m->unknown_hint);
            }
            if ((rc = yrd_next(r)) || (rc = m->ext ? m->value(arg, 0) : yrd_skip(r))) {
                return rc;
            }
            continue;
        }
        if (*seen & bit) {
            return map_err(r, m, arg, r->key_line, r->key_col, "duplicate key '%s'", r->key);
        }
        if ((rc = yrd_next(r)) || (rc = m->value(arg, bit))) {
            return rc;
        }
        *seen |= bit;
    }
    if (rc != YRD_END) {
        return rc;
    }
    for (size_t i = 0; i < m->n_keys; i++) {
        if (m->keys[i].missing && !(*seen & m->keys[i].bit)) {
            return map_err(r, m, arg, line, col, "missing required key '%s'%s", m->keys[i].name,
                           m->keys[i].missing);
        }
    }
    return 0;
}

int yrd_format(struct yrd *r, const char *what, int format)
{
    char buf[96];

    if (!yrd_is_scalar(r) || strcmp(yrd_text(r), "1") != 0) {
        return yrd_err_here(r, "unsupported %s format %s (this program reads format: %d)", what,
                            yrd_what(r, buf, sizeof(buf)), format);
    }
    return 0;
}

int yrd_skip(struct yrd *r)
{
    int depth = 0;
    int rc;

    for (;;) {
        switch (r->ev.type) {
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT:
            depth++;
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            depth--;
            break;
        default:
            break;
        }
        if (depth <= 0) {
            return 0;
        }
        if ((rc = yrd_next(r))) {
            return rc;
        }
    }
}

bool yrd_is_null(const struct yrd *r)
{
    const char *s;

    if (r->ev.type != YAML_SCALAR_EVENT || !yrd_plain(r)) {
        return false;
    }
    s = yrd_text(r);
    return s[0] == '\0' || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 ||
           strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0;
}

const char *yrd_what(const struct yrd *r, char *buf, size_t size)
{
    switch (r->ev.type) {
    case YAML_SEQUENCE_START_EVENT:
        return "a list";
    case YAML_MAPPING_START_EVENT:
        return "a mapping";
    case YAML_SCALAR_EVENT:
        if (yrd_is_null(r)) {
            return "null (no value)";
        }
        if (yrd_text_len(r) > 60) {
            snprintf(buf, size, "'%.57s...'", yrd_text(r));
        } else {
            snprintf(buf, size, "'%s'", yrd_text(r));
        }
        return buf;
    default:
        return "nothing";
    }
}

static int yrd_yval_rec(struct yrd *r, struct yval *v, int depth)
{
    size_t alloc = 0;
    int rc = 0;

    memset(v, 0, sizeof(*v));
    if (depth > YIO_MAX_DEPTH) {
        return yrd_err_here(r, "nesting deeper than %d levels", YIO_MAX_DEPTH);
    }
    if (r->ev.type == YAML_SCALAR_EVENT) {
        v->kind = YVAL_SCALAR;
        v->quoted = !yrd_plain(r);
        v->scalar = mem_strdup(yrd_is_null(r) && yrd_text_len(r) == 0 ? "~" : yrd_text(r));
        return v->scalar ? 0 : err_set(BAECHI_ENOMEM, "%s: out of memory", r->name);
    }
    if (r->ev.type != YAML_SEQUENCE_START_EVENT && r->ev.type != YAML_MAPPING_START_EVENT) {
        return yrd_err_here(r, "expected a value");
    }
    v->kind = r->ev.type == YAML_SEQUENCE_START_EVENT ? YVAL_SEQ : YVAL_MAP;
    for (;;) {
        char *key = NULL;

        if (v->kind == YVAL_MAP) {
            rc = yrd_key(r);
            if (rc == YRD_END) {
                return 0;
            }
            if (rc) {
                return rc;
            }
            for (int32_t i = 0; i < v->n; i++) {
                if (strcmp(v->keys[i], r->key) == 0) {
                    return yrd_err(r, r->key_line, r->key_col, "duplicate key '%s'", r->key);
                }
            }
            if (!(key = mem_strdup(r->key))) {
                return err_set(BAECHI_ENOMEM, "%s: out of memory", r->name);
            }
        }
        if ((rc = yrd_next(r))) {
            free(key);
            return rc;
        }
        if (r->ev.type == YAML_SEQUENCE_END_EVENT) {
            return 0;
        }
        if (v->n == INT32_MAX || ARRAY_RESERVE(v->items, alloc, (size_t)v->n + 1)) {
            free(key);
            return err_set(BAECHI_ENOMEM, "%s: out of memory", r->name);
        }
        if (v->kind == YVAL_MAP) {
            /* keys grow in step with items: reallocate to the same capacity */
            char **k = mem_realloc(v->keys, alloc * sizeof(*k));

            if (!k) {
                free(key);
                return err_set(BAECHI_ENOMEM, "out of memory");
            }
            v->keys = k;
            v->keys[v->n] = key;
        }
        memset(&v->items[v->n], 0, sizeof(v->items[0]));
        v->n++;
        if ((rc = yrd_yval_rec(r, &v->items[v->n - 1], depth + 1))) {
            return rc;
        }
    }
}

int yrd_yval(struct yrd *r, struct yval *v)
{
    int rc = yrd_yval_rec(r, v, 0);

    if (rc) {
        yval_release(v);
    }
    return rc;
}
