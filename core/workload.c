/*
 * workload.c - the workload document (see workload.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/workload.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"
#include "core/limits.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void yval_release(struct yval *v)
{
    if (!v) {
        return;
    }
    free(v->scalar);
    for (int32_t i = 0; i < v->n; i++) {
        if (v->keys) {
            free(v->keys[i]);
        }
        if (v->items) {
            yval_release(&v->items[i]);
        }
    }
    free(v->keys);
    free(v->items);
    memset(v, 0, sizeof(*v));
}

int yval_copy(struct yval *dst, const struct yval *src)
{
    memset(dst, 0, sizeof(*dst));
    dst->kind = src->kind;
    dst->quoted = src->quoted;
    if (src->scalar && !(dst->scalar = mem_strdup(src->scalar))) {
        return BAECHI_ENOMEM;
    }
    if (src->n == 0) {
        return 0;
    }
    dst->items = mem_calloc((size_t)src->n, sizeof(*dst->items));
    if (!dst->items) {
        goto fail;
    }
    if (src->keys) {
        dst->keys = mem_calloc((size_t)src->n, sizeof(*dst->keys));
        if (!dst->keys) {
            goto fail;
        }
    }
    for (int32_t i = 0; i < src->n; i++) {
        dst->n = i + 1;
        if (src->keys && !(dst->keys[i] = mem_strdup(src->keys[i]))) {
            goto fail;
        }
        if (yval_copy(&dst->items[i], &src->items[i])) {
            goto fail;
        }
    }
    return 0;
fail:
    yval_release(dst);
    return BAECHI_ENOMEM;
}

bool yval_equal(const struct yval *a, const struct yval *b)
{
    if (a->kind != b->kind || a->n != b->n) {
        return false;
    }
    if (a->kind == YVAL_SCALAR) {
        return a->quoted == b->quoted && a->scalar && b->scalar &&
               strcmp(a->scalar, b->scalar) == 0;
    }
    for (int32_t i = 0; i < a->n; i++) {
        if (a->kind == YVAL_MAP && strcmp(a->keys[i], b->keys[i]) != 0) {
            return false;
        }
        if (!yval_equal(&a->items[i], &b->items[i])) {
            return false;
        }
    }
    return true;
}

void workload_init(struct workload *w)
{
    memset(w, 0, sizeof(*w));
    strpool_init(&w->pool);
    strmap_init(&w->by_name);
}

static void wl_ext_release(struct wl_ext *e)
{
    free(e->key);
    yval_release(&e->val);
}

void workload_release(struct workload *w)
{
    free(w->path);
    free(w->name);
    free(w->description);
    free(w->source);
    free(w->reference_device);
    for (int32_t i = 0; i < w->n_top_ext; i++) {
        wl_ext_release(&w->top_ext[i]);
    }
    free(w->top_ext);
    for (size_t i = 0; i < w->n_ext; i++) {
        wl_ext_release(&w->ext[i]);
    }
    free(w->ext);
    free(w->op);
    free(w->out_bytes);
    free(w->input);
    strpool_release(&w->pool);
    strmap_release(&w->by_name);
    workload_init(w);
}

static void shrink(void **p, size_t *alloc, size_t n, size_t elem)
{
    void *q;

    if (n == 0 || n >= *alloc) {
        return;
    }
    if ((q = mem_realloc(*p, n * elem)) != NULL) {
        *p = q;
        *alloc = n;
    }
}

void workload_shrink(struct workload *w)
{
    shrink((void **)&w->op, &w->alloc_op, (size_t)w->n_ops, sizeof(*w->op));
    shrink((void **)&w->out_bytes, &w->alloc_out_bytes, w->n_out_bytes, sizeof(*w->out_bytes));
    shrink((void **)&w->input, &w->alloc_input, w->n_input, sizeof(*w->input));
}

int workload_set_name(struct workload *w, const char *name)
{
    char *s = mem_strdup(name);

    if (!s) {
        return BAECHI_ENOMEM;
    }
    free(w->name);
    w->name = s;
    return 0;
}

int workload_add_op(struct workload *w, const char *name, const char *type, int32_t *idx)
{
    struct wl_op *op;
    const char *nm, *ty;
    int32_t old;
    int rc;

    if (w->n_ops == INT32_MAX - 1) {
        return err_set(BAECHI_EINVAL, "too many ops (more than %d)", INT32_MAX - 1);
    }
    if (ARRAY_RESERVE(w->op, w->alloc_op, (size_t)w->n_ops + 1)) {
        return BAECHI_ENOMEM;
    }
    nm = strpool_add(&w->pool, name, strlen(name));
    /* types repeat: one copy for a run of ops of the same type (10 MB of a
     * 1,000,000-op chain) */
    ty = w->n_ops > 0 && strcmp(w->op[w->n_ops - 1].type, type) == 0
             ? w->op[w->n_ops - 1].type
             : strpool_add(&w->pool, type, strlen(type));
    if (!nm || !ty) {
        return BAECHI_ENOMEM;
    }
    /* one probe finds a duplicate and inserts (a lookup first, then the
     * insert, was 3 probes per op with the reader's own check) */
    if ((rc = strmap_put(&w->by_name, nm, w->n_ops, &old))) {
        return rc;
    }
    if (old >= 0) {
        return err_set(BAECHI_EINVAL, "duplicate op name '%s'", name);
    }
    op = &w->op[w->n_ops];
    memset(op, 0, sizeof(*op));
    op->name = nm;
    op->type = ty;
    op->time_us = NAN;
    op->flops = NAN;
    op->bytes = NAN;
    op->device = -1;
    op->phase = PHASE_FORWARD;
    op->out_off = (int32_t)w->n_out_bytes;
    op->in_off = (int32_t)w->n_input;
    op->ext_off = (int32_t)w->n_ext;
    if (idx) {
        *idx = w->n_ops;
    }
    w->n_ops++;
    return 0;
}

static struct wl_op *workload_last(struct workload *w)
{
    if (w->n_ops == 0) {
        BUG("no op to add to");
    }
    return &w->op[w->n_ops - 1];
}

int workload_add_output(struct workload *w, int64_t bytes)
{
    struct wl_op *op = workload_last(w);

    if (w->n_out_bytes >= INT32_MAX) {
        return err_set(BAECHI_EINVAL, "too many output tensors");
    }
    if (ARRAY_RESERVE(w->out_bytes, w->alloc_out_bytes, w->n_out_bytes + 1)) {
        return BAECHI_ENOMEM;
    }
    w->out_bytes[w->n_out_bytes++] = bytes;
    op->n_out++;
    return 0;
}

int workload_add_input(struct workload *w, int32_t producer, int32_t port, int32_t line,
                       int32_t col)
{
    struct wl_op *op = workload_last(w);
    struct wl_input *in;

    if (w->n_input >= INT32_MAX) {
        return err_set(BAECHI_EINVAL, "too many inputs");
    }
    if (ARRAY_RESERVE(w->input, w->alloc_input, w->n_input + 1)) {
        return BAECHI_ENOMEM;
    }
    in = &w->input[w->n_input++];
    in->producer = producer;
    in->port = port;
    in->line = line;
    in->col = col;
    op->n_in++;
    return 0;
}

int workload_add_ext(struct workload *w, const char *key, const struct yval *val)
{
    struct wl_op *op = workload_last(w);
    struct wl_ext *e;

    if (ARRAY_RESERVE(w->ext, w->alloc_ext, w->n_ext + 1)) {
        return BAECHI_ENOMEM;
    }
    e = &w->ext[w->n_ext];
    memset(e, 0, sizeof(*e));
    if (!(e->key = mem_strdup(key))) {
        return BAECHI_ENOMEM;
    }
    if (yval_copy(&e->val, val)) {
        free(e->key);
        return BAECHI_ENOMEM;
    }
    w->n_ext++;
    op->n_ext++;
    return 0;
}

int workload_set_group(struct workload *w, int32_t i, const char *group)
{
    const char *s = NULL;

    if (group && !(s = strpool_add(&w->pool, group, strlen(group)))) {
        return BAECHI_ENOMEM;
    }
    w->op[i].group = s;
    return 0;
}

int32_t workload_find(const struct workload *w, const char *name)
{
    return strmap_get(&w->by_name, name, strlen(name));
}

const char *workload_group(const struct workload *w, int32_t i)
{
    return w->op[i].group ? w->op[i].group : w->op[i].name;
}

int workload_fail(const struct workload *w, int32_t line, int32_t col, int code, const char *fmt,
                  ...)
{
    const char *path = w->path ? w->path : "<workload>";
    va_list ap;

    /* the message, then its place in front (err_wrap): no buffer for it */
    va_start(ap, fmt);
    err_vset(code, fmt, ap);
    va_end(ap);
    if (line > 0) {
        return err_wrap(code, "%s:%d:%d", path, (int)line, (int)col);
    }
    return err_wrap(code, "%s", path);
}

/* Absent (NaN), or in [0, max] (core/limits.h, docs/limits.md). */
static bool number_ok(double x, double max)
{
    return isnan(x) || (x >= 0 && x <= max);
}

/* "file:line:col: " + the message, as BAECHI_EPARSE. */
#define check_fail(w, line, col, ...) workload_fail((w), (line), (col), BAECHI_EPARSE, __VA_ARGS__)

/* `where` is formatted only on an error: an snprintf per op was 5 % of
 * loading a 1,000,000-op chain. */
int workload_check(const struct workload *w)
{
    if (w->n_ops == 0) {
        return check_fail(w, 0, 0, "workload has no ops");
    }
    for (int32_t i = 0; i < w->n_ops; i++) {
        const struct wl_op *op = &w->op[i];

        if (!number_ok(op->time_us, LIMIT_TIME_US_MAX)) {
            return check_fail(w, op->line, op->col, "op '%s': time_us %g is outside [0, %g] µs",
                              op->name, op->time_us, LIMIT_TIME_US_MAX);
        }
        if (!number_ok(op->flops, LIMIT_OP_FLOPS_MAX)) {
            return check_fail(w, op->line, op->col, "op '%s': flops %g is outside [0, %g] FLOP",
                              op->name, op->flops, LIMIT_OP_FLOPS_MAX);
        }
        if (!number_ok(op->bytes, LIMIT_OP_BYTES_MAX)) {
            return check_fail(w, op->line, op->col, "op '%s': bytes %g is outside [0, %g] bytes",
                              op->name, op->bytes, LIMIT_OP_BYTES_MAX);
        }
        if (op->temp < 0 || op->persistent < 0) {
            return check_fail(w, op->line, op->col, "op '%s': temp and persistent must be >= 0",
                              op->name);
        }
        if (op->device < -1 || op->device > LIMIT_OP_DEVICE_MAX) {
            return check_fail(w, op->line, op->col, "op '%s': device must be in [0, %d]", op->name,
                              LIMIT_OP_DEVICE_MAX);
        }
        for (int32_t k = 0; k < op->n_out; k++) {
            if (w->out_bytes[op->out_off + k] < 0) {
                return check_fail(w, op->line, op->col, "op '%s': output %d has negative size",
                                  op->name, k);
            }
        }
        for (int32_t k = 0; k < op->n_in; k++) {
            const struct wl_input *in = &w->input[op->in_off + k];
            int32_t line = in->line > 0 ? in->line : op->line;
            int32_t col = in->line > 0 ? in->col : op->col;

            if (in->producer < 0 || in->producer >= w->n_ops) {
                return check_fail(w, line, col, "op '%s': input %d names no op", op->name, k);
            }
            if (in->port != WL_PORT_CONTROL &&
                (in->port < 0 || in->port >= w->op[in->producer].n_out)) {
                return check_fail(w, line, col, "op '%s': input '%s:%d': op '%s' has %d output%s",
                                  op->name, w->op[in->producer].name, in->port,
                                  w->op[in->producer].name, w->op[in->producer].n_out,
                                  w->op[in->producer].n_out == 1 ? "" : "s");
            }
        }
    }
    return 0;
}

int workload_set_top_ext(struct workload *w, const char *key, const struct yval *val)
{
    struct wl_ext *e = NULL;
    struct yval v;

    if (yval_copy(&v, val)) {
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    for (int32_t i = 0; i < w->n_top_ext; i++) {
        if (strcmp(w->top_ext[i].key, key) == 0) {
            yval_release(&w->top_ext[i].val);
            w->top_ext[i].val = v;
            return 0;
        }
    }
    if (!(e = mem_realloc(w->top_ext, ((size_t)w->n_top_ext + 1) * sizeof(*e)))) {
        yval_release(&v);
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    w->top_ext = e;
    e = &w->top_ext[w->n_top_ext];
    if (!(e->key = mem_strdup(key))) {
        yval_release(&v);
        return BAECHI_ENOMEM;
    }
    e->val = v;
    w->n_top_ext++;
    return 0;
}
