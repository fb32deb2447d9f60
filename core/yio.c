/*
 * yio.c - YAML reading and writing helpers over libyaml events (see yio.h).
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

/* [+]digits[.digits][e[+-]digits] or [+].digits[...]: the only number syntax accepted. */
static bool number_syntax(const char *s, bool *integral_text)
{
    const char *p = s;
    int digits = 0;

    *integral_text = true;
    if (*p == '+') {
        p++;
    }
    while (isdigit((unsigned char)*p)) {
        p++;
        digits++;
    }
    if (*p == '.') {
        *integral_text = false;
        p++;
        while (isdigit((unsigned char)*p)) {
            p++;
            digits++;
        }
    }
    if (digits == 0) {
        return false;
    }
    if (*p == 'e' || *p == 'E') {
        *integral_text = false;
        p++;
        if (*p == '+' || *p == '-') {
            p++;
        }
        if (!isdigit((unsigned char)*p)) {
            return false;
        }
        while (isdigit((unsigned char)*p)) {
            p++;
        }
    }
    return *p == '\0';
}

static bool is_nan_or_inf(const char *s)
{
    static const char *const words[] = {".nan", ".NaN", ".NAN",     "nan",      "NaN",
                                        "NAN",  ".inf", ".Inf",     ".INF",     "inf",
                                        "Inf",  "INF",  "infinity", "Infinity", "INFINITY"};

    if (*s == '+' || *s == '-') {
        s++;
    }
    if (*s != '.' && *s != 'n' && *s != 'N' && *s != 'i' && *s != 'I') {
        return false; /* a digit, mostly: no word to compare */
    }
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        if (strcmp(s, words[i]) == 0) {
            return true;
        }
    }
    return false;
}

int yio_parse_bool(const char *s, bool *b)
{
    static const char *const yes[] = {"true", "True", "TRUE", "yes", "on", "1", NULL};
    static const char *const no[] = {"false", "False", "FALSE", "no", "off", "0", NULL};

    for (int i = 0; yes[i]; i++) {
        if (strcmp(s, yes[i]) == 0) {
            *b = true;
            return 0;
        }
        if (strcmp(s, no[i]) == 0) {
            *b = false;
            return 0;
        }
    }
    return -1;
}

const char *yio_parse_double(const char *s, double *out)
{
    bool integral;
    double x;

    if (is_nan_or_inf(s)) {
        return "must be a finite number";
    }
    if (s[0] == '-') {
        return number_syntax(s + 1, &integral) ? "must not be negative" : "expected a number";
    }
    if (!number_syntax(s, &integral)) {
        return "expected a number";
    }
    errno = 0;
    x = strtod(s, NULL);
    if (!isfinite(x)) {
        return "is too large (not a finite double)";
    }
    *out = x;
    return NULL;
}

const char *yio_parse_size(const char *s, int64_t *out)
{
    bool integral;

    if (is_nan_or_inf(s)) {
        return "must be a finite integer";
    }
    if (s[0] == '-') {
        return number_syntax(s + 1, &integral) ? "must not be negative" : "expected an integer";
    }
    if (!number_syntax(s, &integral)) {
        return "expected an integer";
    }
    if (integral) {
        long long v;

        errno = 0;
        v = strtoll(s, NULL, 10);
        if (errno == ERANGE) {
            return "does not fit in 64 bits";
        }
        *out = (int64_t)v;
        return NULL;
    } else {
        double x = strtod(s, NULL);

        if (!isfinite(x) || x >= 9223372036854775808.0) {
            return "does not fit in 64 bits";
        }
        if (x != floor(x)) {
            return "must be an integer";
        }
        *out = (int64_t)x;
        return NULL;
    }
}

void yio_fmt_double(double x, char *buf, size_t size)
{
    if (x == 0) {
        snprintf(buf, size, "0");
        return;
    }
    if (x == floor(x) && fabs(x) < 1e15) {
        snprintf(buf, size, "%.0f", x);
        return;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, size, "%.*g", prec, x);
        if (prec == 17 || strtod(buf, NULL) == x) {
            return;
        }
    }
}

/* ---------------------------------------------------------------- writer */

static void ywr_emit(struct ywr *w, yaml_event_t *ev, int ok)
{
    if (w->rc != 0) {
        /* failed already: the failed write's errno stays for the caller */
        if (ok) {
            yaml_event_delete(ev);
        }
        return;
    }
    if (!ok) {
        w->rc = err_set(BAECHI_ENOMEM, "out of memory writing YAML");
        return;
    }
    errno = 0;
    if (!yaml_emitter_emit(&w->em, ev)) {
        /* libyaml's own allocation, or stdio's buffer behind its writer */
        if (w->em.error == YAML_MEMORY_ERROR ||
            (w->em.error == YAML_WRITER_ERROR && errno == ENOMEM)) {
            w->rc = err_set(BAECHI_ENOMEM, "out of memory writing YAML");
            return;
        }
        w->rc = err_set(ferror(w->f) ? BAECHI_EIO : BAECHI_EINVAL, "cannot write YAML: %s",
                        w->em.problem ? w->em.problem : "write error");
    }
}

int ywr_open(struct ywr *w, FILE *f)
{
    yaml_event_t ev;

    memset(w, 0, sizeof(*w));
    w->f = f;
    if (!yaml_emitter_initialize(&w->em)) {
        return w->rc = err_set(BAECHI_ENOMEM, "out of memory starting the YAML emitter");
    }
    yaml_emitter_set_output_file(&w->em, f);
    yaml_emitter_set_width(&w->em, -1);
    yaml_emitter_set_unicode(&w->em, 1);
    yaml_emitter_set_indent(&w->em, 2);
    ywr_emit(w, &ev, yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING));
    if (w->rc == 0) {
        ywr_emit(w, &ev, yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1));
    }
    return w->rc;
}

int ywr_close(struct ywr *w)
{
    yaml_event_t ev;

    if (w->rc == 0) {
        ywr_emit(w, &ev, yaml_document_end_event_initialize(&ev, 1));
    }
    if (w->rc == 0) {
        ywr_emit(w, &ev, yaml_stream_end_event_initialize(&ev));
    }
    if (w->rc == 0) {
        errno = 0; /* only here: after a failure, its errno stays for the caller */
        if (!yaml_emitter_flush(&w->em) || fflush(w->f) != 0 || ferror(w->f)) {
            w->rc = err_set(errno == ENOMEM ? BAECHI_ENOMEM : BAECHI_EIO, "cannot write YAML: %s",
                            strerror(errno));
        }
    }
    yaml_emitter_delete(&w->em);
    return w->rc;
}

/* Would a plain scalar `s` read back as a string (not null, bool or number) in YAML 1.1/1.2? */
static bool plain_is_string(const char *s)
{
    static const char *const words[] = {
        "~",   "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE",
        "yes", "Yes",  "YES",  "no",   "No",   "NO",   "on",   "On",    "ON",    "off",
        "Off", "OFF",  "y",    "Y",    "n",    "N",    "=",    "<<",
    };
    const char *p = s;

    if (*s == '\0') {
        return false;
    }
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        if (strcmp(s, words[i]) == 0) {
            return false;
        }
    }
    if (is_nan_or_inf(s)) {
        return false;
    }
    if (*p == '+' || *p == '-') {
        p++;
    }
    if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
        /* anything that starts like a number may be one (ints, floats, 0x, 0o, 1_000, 1:20) */
        return false;
    }
    return true;
}

void ywr_scalar(struct ywr *w, const char *s, enum ywr_style style)
{
    yaml_scalar_style_t ys;
    yaml_event_t ev;
    int plain_implicit = 1, quoted_implicit = 1;

    if (w->rc) {
        return;
    }
    switch (style) {
    case YWR_PLAIN:
        ys = YAML_PLAIN_SCALAR_STYLE;
        break;
    case YWR_QUOTED:
        ys = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
        break;
    case YWR_LITERAL:
        ys = strlen(s) > 80 || strchr(s, '\n') ? YAML_LITERAL_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE;
        if (ys == YAML_ANY_SCALAR_STYLE && !plain_is_string(s)) {
            ys = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
        }
        break;
    default:
        ys = plain_is_string(s) ? YAML_ANY_SCALAR_STYLE : YAML_DOUBLE_QUOTED_SCALAR_STYLE;
        break;
    }
    ywr_emit(w, &ev,
             yaml_scalar_event_initialize(&ev, NULL, NULL, (const yaml_char_t *)s, (int)strlen(s),
                                          plain_implicit, quoted_implicit, ys));
}

void ywr_int(struct ywr *w, int64_t x)
{
    char buf[32];

    snprintf(buf, sizeof(buf), "%lld", (long long)x);
    ywr_scalar(w, buf, YWR_PLAIN);
}

void ywr_double(struct ywr *w, double x)
{
    char buf[64];

    yio_fmt_double(x, buf, sizeof(buf));
    ywr_scalar(w, buf, YWR_PLAIN);
}

void ywr_map_start(struct ywr *w, bool flow)
{
    yaml_event_t ev;

    if (w->rc) {
        return;
    }
    ywr_emit(w, &ev,
             yaml_mapping_start_event_initialize(
                 &ev, NULL, NULL, 1, flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE));
}

void ywr_map_end(struct ywr *w)
{
    yaml_event_t ev;

    if (w->rc) {
        return;
    }
    ywr_emit(w, &ev, yaml_mapping_end_event_initialize(&ev));
}

void ywr_seq_start(struct ywr *w, bool flow)
{
    yaml_event_t ev;

    if (w->rc) {
        return;
    }
    ywr_emit(w, &ev,
             yaml_sequence_start_event_initialize(
                 &ev, NULL, NULL, 1, flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE));
}

void ywr_seq_end(struct ywr *w)
{
    yaml_event_t ev;

    if (w->rc) {
        return;
    }
    ywr_emit(w, &ev, yaml_sequence_end_event_initialize(&ev));
}

void ywr_yval(struct ywr *w, const struct yval *v)
{
    switch (v->kind) {
    case YVAL_SCALAR:
        ywr_scalar(w, v->scalar, v->quoted ? YWR_QUOTED : YWR_PLAIN);
        break;
    case YVAL_SEQ:
        ywr_seq_start(w, false);
        for (int32_t i = 0; i < v->n; i++) {
            ywr_yval(w, &v->items[i]);
        }
        ywr_seq_end(w);
        break;
    case YVAL_MAP:
        ywr_map_start(w, false);
        for (int32_t i = 0; i < v->n; i++) {
            ywr_scalar(w, v->keys[i], YWR_ANY);
            ywr_yval(w, &v->items[i]);
        }
        ywr_map_end(w);
        break;
    }
}
