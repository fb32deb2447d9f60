/*
 * db_run.c - one run record (db.h): its fields' lifecycle and the byte
 * encoding in which sweep workers send runs to the coordinator.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "results/db.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ runs */

const char *db_status_name(enum db_status s)
{
    switch (s) {
    case DB_STATUS_OK:
        return "ok";
    case DB_STATUS_OOM:
        return "oom";
    case DB_STATUS_INFEASIBLE:
        return "infeasible";
    default:
        return "error";
    }
}

void db_run_init(struct db_run *r)
{
#define S_(n) r->n = NULL;
#define I_(n) r->n = DB_NULL_INT;
#define D_(n) r->n = NAN;
    DB_RUN_FIELDS(S_, I_, D_)
#undef S_
#undef I_
#undef D_
    r->dev = NULL;
    r->n_dev = 0;
    r->link = NULL;
    r->n_link = 0;
    r->device_of = NULL;
    r->n_place = 0;
}

void db_run_release(struct db_run *r)
{
#define S_(n) free(r->n);
#define I_(n)
#define D_(n)
    DB_RUN_FIELDS(S_, I_, D_)
#undef S_
#undef I_
#undef D_
    for (int32_t i = 0; i < r->n_dev; i++) {
        free(r->dev[i].name);
    }
    free(r->dev);
    free(r->link);
    free(r->device_of);
    db_run_init(r);
}

int db_run_set(char **field, const char *s)
{
    char *c = NULL;

    if (s && !(c = mem_strdup(s))) {
        return BAECHI_ENOMEM;
    }
    free(*field);
    *field = c;
    return 0;
}

int db_run_setf(char **field, const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    int n;

    va_start(ap, fmt);
    n = mem_vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0) {
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    free(*field);
    *field = s;
    return 0;
}

/* ------------------------------------------------------------------ encoding */

static int buf_put(struct db_buf *b, const void *p, size_t n)
{
    if (ARRAY_RESERVE(b->p, b->alloc, b->len + n)) {
        return BAECHI_ENOMEM;
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
    return 0;
}

static int put_i64(struct db_buf *b, int64_t x)
{
    return buf_put(b, &x, sizeof(x));
}

static int put_str(struct db_buf *b, const char *s)
{
    int64_t n = s ? (int64_t)strlen(s) : -1;
    int rc = put_i64(b, n);
    return rc ? rc : (s ? buf_put(b, s, (size_t)n) : 0);
}

int db_run_serialize(const struct db_run *r, struct db_buf *b)
{
    int rc = 0;

#define S_(n) rc |= put_str(b, r->n);
#define I_(n) rc |= put_i64(b, r->n);
#define D_(n) rc |= buf_put(b, &r->n, sizeof(double));
    DB_RUN_FIELDS(S_, I_, D_)
#undef S_
#undef I_
#undef D_
    rc |= put_i64(b, r->n_dev);
    for (int32_t i = 0; i < r->n_dev; i++) {
        const struct db_device_rec *d = &r->dev[i];
        rc |= put_i64(b, d->device);
        rc |= put_str(b, d->name);
        rc |= put_i64(b, d->peak_bytes);
        rc |= put_i64(b, d->limit_bytes);
        rc |= put_i64(b, d->placer_peak_bytes);
        rc |= put_i64(b, d->placer_limit_bytes);
        rc |= put_i64(b, d->busy_us);
        rc |= put_i64(b, d->n_ops);
        rc |= put_i64(b, d->oom);
        for (int k = 0; k < DB_MEM_KINDS; k++) {
            rc |= put_i64(b, d->peak_kind_bytes[k]);
        }
    }
    rc |= put_i64(b, r->n_link);
    if (r->n_link) {
        rc |= buf_put(b, r->link, sizeof(*r->link) * (size_t)r->n_link);
    }
    rc |= put_i64(b, r->n_place);
    if (r->n_place) {
        rc |= buf_put(b, r->device_of, sizeof(int32_t) * (size_t)r->n_place);
    }
    return rc ? BAECHI_ENOMEM : 0;
}

struct rd {
    const unsigned char *p;
    size_t len, pos;
    int bad; /* 0; 1: truncated or malformed; 2: out of memory (the first kept) */
};

static void get(struct rd *d, void *out, size_t n)
{
    if (d->bad || d->len - d->pos < n) {
        /* a failed allocation (2) stays one: overwritten, it read as a
         * truncated record, exit 2 (issue 30 item 7) */
        if (!d->bad) {
            d->bad = 1;
        }
        memset(out, 0, n);
        return;
    }
    memcpy(out, d->p + d->pos, n);
    d->pos += n;
}

static int64_t get_i64(struct rd *d)
{
    int64_t x;
    get(d, &x, sizeof(x));
    return x;
}

static char *get_str(struct rd *d)
{
    int64_t n = get_i64(d);
    char *s;

    if (d->bad || n < 0) {
        return NULL;
    }
    if ((uint64_t)n > d->len - d->pos) {
        d->bad = 1;
        return NULL;
    }
    if (!(s = mem_alloc((size_t)n + 1))) {
        d->bad = 2;
        return NULL;
    }
    memcpy(s, d->p + d->pos, (size_t)n);
    s[n] = '\0';
    d->pos += (size_t)n;
    return s;
}

static void *get_array(struct rd *d, int64_t n, size_t elem)
{
    void *a;

    if (d->bad || n <= 0) {
        return NULL;
    }
    if ((uint64_t)n > (d->len - d->pos) / elem) {
        d->bad = 1;
        return NULL;
    }
    if (!(a = mem_calloc((size_t)n, elem))) {
        d->bad = 2;
        return NULL;
    }
    return a;
}

int db_run_deserialize(struct db_run *r, const unsigned char *p, size_t len, size_t *pos)
{
    struct rd d = {.p = p, .len = len, .pos = *pos, .bad = 0};
    int64_t n;

    db_run_init(r);
#define S_(f) r->f = get_str(&d);
#define I_(f) r->f = get_i64(&d);
#define D_(f) get(&d, &r->f, sizeof(double));
    DB_RUN_FIELDS(S_, I_, D_)
#undef S_
#undef I_
#undef D_
    n = get_i64(&d);
    /* each device takes at least 16 x 8 bytes on the wire: bounds n before allocating */
    if (n > 0 && !d.bad && (uint64_t)n > (d.len - d.pos) / 128) {
        d.bad = 1;
    } else if (n > 0 && !d.bad && !(r->dev = mem_calloc((size_t)n, sizeof(*r->dev)))) {
        d.bad = 2;
    }
    for (int64_t i = 0; r->dev && i < n; i++) {
        struct db_device_rec *v = &r->dev[i];
        v->device = (int32_t)get_i64(&d);
        v->name = get_str(&d);
        v->peak_bytes = get_i64(&d);
        v->limit_bytes = get_i64(&d);
        v->placer_peak_bytes = get_i64(&d);
        v->placer_limit_bytes = get_i64(&d);
        v->busy_us = get_i64(&d);
        v->n_ops = get_i64(&d);
        v->oom = get_i64(&d);
        for (int k = 0; k < DB_MEM_KINDS; k++) {
            v->peak_kind_bytes[k] = get_i64(&d);
        }
        r->n_dev = (int32_t)(i + 1);
    }
    n = get_i64(&d);
    if ((r->link = get_array(&d, n, sizeof(*r->link)))) {
        r->n_link = (int32_t)n;
        get(&d, r->link, sizeof(*r->link) * (size_t)n);
    }
    n = get_i64(&d);
    if ((r->device_of = get_array(&d, n, sizeof(int32_t)))) {
        r->n_place = (int32_t)n;
        get(&d, r->device_of, sizeof(int32_t) * (size_t)n);
    }
    if (d.bad) {
        db_run_release(r);
        return d.bad == 2 ? err_set(BAECHI_ENOMEM, "out of memory")
                          : err_set(BAECHI_EPARSE, "truncated run record (%zu bytes)", len);
    }
    *pos = d.pos;
    return 0;
}
