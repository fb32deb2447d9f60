/*
 * workload_flow.c - one op line of the writer's layout straight into an op
 * record (see workload_flow.h).  Every check mirrors what the event path
 * (core/workload_yaml.c's op_value) accepts; where a value would need a
 * message, the line is left to that path.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/workload_flow.h"

#include "core/array.h"
#include "core/err.h"
#include "core/limits.h"
#include "core/yio.h"

#include <math.h>
#include <string.h>

/*
 * Not taken: the event path reads the line.  Negative, so that it is never
 * one of the error codes (enum baechi_err, positive) that the same
 * functions return: it was 1 = BAECHI_ENOMEM, and an allocation failing in
 * the middle of a line left the line to the event path after the cursor
 * had moved, dropping an op or its inputs with exit 0 (issue 30 item 3).
 */
#define NOT_TAKEN (-1)

/* Longest number text parsed through a copy (longer: the event path's). */
#define NUM_MAX 63

static const struct {
    const char *name;
    size_t len;
    unsigned bit;
} keys[] = {
    {"name", 4, OK_NAME},   {"type", 4, OK_TYPE},           {"time_us", 7, OK_TIME},
    {"flops", 5, OK_FLOPS}, {"bytes", 5, OK_BYTES},         {"outputs", 7, OK_OUTPUTS},
    {"temp", 4, OK_TEMP},   {"persistent", 10, OK_PERSIST}, {"group", 5, OK_GROUP},
    {"phase", 5, OK_PHASE}, {"device", 6, OK_DEVICE},       {"inputs", 6, OK_INPUTS},
};

static unsigned key_bit(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        if (keys[i].len == n && keys[i].name[0] == s[0] && memcmp(keys[i].name, s, n) == 0) {
            return keys[i].bit;
        }
    }
    return 0;
}

static bool digits_only(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') {
            return false;
        }
    }
    return n > 0;
}

static uint64_t digits_u64(const char *s, size_t n)
{
    uint64_t v = 0;

    for (size_t i = 0; i < n; i++) {
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    return v;
}

/* A plain scalar the event path reads as null (yrd_is_null; "" and "~" are
 * outside the subset). */
static bool null_word(const char *s, size_t n)
{
    return n == 4 &&
           (memcmp(s, "null", 4) == 0 || memcmp(s, "Null", 4) == 0 || memcmp(s, "NULL", 4) == 0);
}

/* A string value (name, type, group): op_string's rules. */
static int string_value(struct yflow *f, const char **s, size_t *n)
{
    bool quoted;

    if (yflow_scan_scalar(f, s, n, &quoted, (size_t)-1) || *n == 0 ||
        (!quoted && null_word(*s, *n))) {
        return NOT_TAKEN;
    }
    return 0;
}

/* A plain (unquoted) scalar of at most NUM_MAX bytes at s[0..n), or NOT_TAKEN. */
static int plain_number(struct yflow *f, const char **s, size_t *n)
{
    bool quoted;

    return yflow_scan_scalar(f, s, n, &quoted, NUM_MAX) || quoted ? NOT_TAKEN : 0;
}

/* s[0..n) as a C string in buf (NUM_MAX + 1 bytes), for the slow parsers. */
static const char *terminated(char *buf, const char *s, size_t n)
{
    memcpy(buf, s, n);
    buf[n] = '\0';
    return buf;
}

/* A number (time_us, flops, bytes): plain, yio_parse_double's rules. */
static int number_value(struct yflow *f, double *out)
{
    const char *s;
    size_t n;
    char buf[NUM_MAX + 1];

    if (plain_number(f, &s, &n)) {
        return NOT_TAKEN;
    }
    /* up to 15 digits: exact in a double, as strtod gives it */
    if (n <= 15 && digits_only(s, n)) {
        *out = (double)digits_u64(s, n);
        return 0;
    }
    return yio_parse_double(terminated(buf, s, n), out) ? NOT_TAKEN : 0;
}

/* A size in bytes (temp, persistent, outputs' items): yio_parse_size's rules. */
static int size_value(struct yflow *f, int64_t *out)
{
    const char *s;
    size_t n;
    char buf[NUM_MAX + 1];

    if (plain_number(f, &s, &n)) {
        return NOT_TAKEN;
    }
    if (n <= 18 && digits_only(s, n)) {
        *out = (int64_t)digits_u64(s, n);
        return 0;
    }
    return yio_parse_size(terminated(buf, s, n), out) ? NOT_TAKEN : 0;
}

/* "[" at the cursor; then ", " between items until "]" (yio_flow's seq()). */
static int seq_open(struct yflow *f)
{
    if (f->p >= f->end || *f->p != '[') {
        return NOT_TAKEN;
    }
    f->p++;
    return 0;
}

/* SEQ_END: the sequence ended ("]" consumed); 0: an item follows; NOT_TAKEN. */
#define SEQ_END (-2)
static int seq_more(struct yflow *f, size_t n_read)
{
    if (f->p < f->end && *f->p == ']') {
        f->p++;
        return SEQ_END;
    }
    if (n_read > 0) {
        if (f->end - f->p < 2 || f->p[0] != ',' || f->p[1] != ' ') {
            return NOT_TAKEN;
        }
        f->p += 2;
    }
    return 0;
}

static int outputs_value(struct yflow *f, struct wl_flow_op *op)
{
    int more;

    if (seq_open(f)) {
        return NOT_TAKEN;
    }
    while ((more = seq_more(f, op->n_out)) == 0) {
        int64_t v;

        if (size_value(f, &v)) {
            return NOT_TAKEN;
        }
        if (ARRAY_RESERVE(op->out, op->alloc_out, op->n_out + 1)) {
            return BAECHI_ENOMEM;
        }
        op->out[op->n_out++] = v;
    }
    return more == SEQ_END ? 0 : NOT_TAKEN;
}

static int inputs_value(struct yflow *f, struct wl_flow_op *op)
{
    int more;

    if (seq_open(f)) {
        return NOT_TAKEN;
    }
    while ((more = seq_more(f, op->n_in)) == 0) {
        struct wl_flow_in *in;
        const char *at = f->p;

        if (ARRAY_RESERVE(op->in, op->alloc_in, op->n_in + 1)) {
            return BAECHI_ENOMEM;
        }
        in = &op->in[op->n_in];
        if (string_value(f, &in->text, &in->len)) {
            return NOT_TAKEN;
        }
        in->line = (int32_t)f->line + 1;
        in->col = (int32_t)(at - f->line_start) + 1;
        op->n_in++;
    }
    return more == SEQ_END ? 0 : NOT_TAKEN;
}

static int device_value(struct yflow *f, int32_t *out)
{
    const char *s;
    size_t n;
    bool quoted;
    uint64_t v;

    if (yflow_scan_scalar(f, &s, &n, &quoted, 5) || quoted || !digits_only(s, n) ||
        (v = digits_u64(s, n)) > LIMIT_OP_DEVICE_MAX) {
        return NOT_TAKEN;
    }
    *out = (int32_t)v;
    return 0;
}

static int phase_value(struct yflow *f, enum op_phase *out)
{
    const char *s;
    size_t n;
    bool quoted;

    if (yflow_scan_scalar(f, &s, &n, &quoted, 8)) {
        return NOT_TAKEN;
    }
    if (n == 7 && memcmp(s, "forward", 7) == 0) {
        *out = PHASE_FORWARD;
    } else if (n == 8 && memcmp(s, "backward", 8) == 0) {
        *out = PHASE_BACKWARD;
    } else if (n == 6 && memcmp(s, "update", 6) == 0) {
        *out = PHASE_UPDATE;
    } else {
        return NOT_TAKEN;
    }
    return 0;
}

static int value(struct yflow *f, struct wl_flow_op *op, unsigned bit)
{
    switch (bit) {
    case OK_NAME:
        return string_value(f, &op->name, &op->name_len);
    case OK_TYPE:
        return string_value(f, &op->type, &op->type_len);
    case OK_GROUP:
        return string_value(f, &op->group, &op->group_len);
    case OK_TIME:
        return number_value(f, &op->time_us);
    case OK_FLOPS:
        return number_value(f, &op->flops);
    case OK_BYTES:
        return number_value(f, &op->bytes);
    case OK_TEMP:
        return size_value(f, &op->temp);
    case OK_PERSIST:
        return size_value(f, &op->persistent);
    case OK_OUTPUTS:
        return outputs_value(f, op);
    case OK_INPUTS:
        return inputs_value(f, op);
    case OK_DEVICE:
        return device_value(f, &op->device);
    default:
        return phase_value(f, &op->phase);
    }
}

/* An x- key's scalar value (yrd_yval's scalar: its text, quoted or not). */
static int ext_value(struct yflow *f, struct wl_flow_op *op, const char *k, size_t n)
{
    struct wl_flow_ext *e;

    for (size_t i = 0; i < op->n_ext; i++) {
        if (op->ext[i].key_len == n && memcmp(op->ext[i].key, k, n) == 0) {
            return NOT_TAKEN; /* a duplicate: the event path's message */
        }
    }
    if (ARRAY_RESERVE(op->ext, op->alloc_ext, op->n_ext + 1)) {
        return BAECHI_ENOMEM;
    }
    e = &op->ext[op->n_ext];
    e->key = k;
    e->key_len = n;
    if (yflow_scan_scalar(f, &e->val, &e->val_len, &e->quoted, (size_t)-1)) {
        return NOT_TAKEN; /* a list or a mapping, or outside the subset */
    }
    op->n_ext++;
    return 0;
}

/* The line's "key: value" pairs and its end, from after "{". */
static int pairs(struct yflow *f, struct wl_flow_op *op)
{
    for (;;) {
        const char *k;
        size_t n;
        bool quoted;
        unsigned bit;
        int rc;

        if (yflow_scan_scalar(f, &k, &n, &quoted, 64) || quoted) {
            return NOT_TAKEN;
        }
        bit = key_bit(k, n);
        if ((bit == 0 && (n < 2 || k[0] != 'x' || k[1] != '-')) || (op->seen & bit)) {
            return NOT_TAKEN; /* an unknown or duplicate key: the event path's message */
        }
        if (f->end - f->p < 2 || f->p[0] != ':' || f->p[1] != ' ') {
            return NOT_TAKEN;
        }
        f->p += 2;
        if ((rc = bit ? value(f, op, bit) : ext_value(f, op, k, n))) {
            return rc;
        }
        op->seen |= bit;
        if (f->end - f->p >= 2 && f->p[0] == '}' && f->p[1] == '\n') {
            f->p += 2;
            return 0;
        }
        if (f->end - f->p < 2 || f->p[0] != ',' || f->p[1] != ' ') {
            return NOT_TAKEN;
        }
        f->p += 2;
    }
}

int wl_flow_op_read(struct yflow *f, struct wl_flow_op *op, bool *taken)
{
    struct yflow at = *f; /* the cursor to go on from (f is left untouched) */
    const char *s = f->p;
    size_t ind = f->indent;
    int rc;

    *taken = false;
    if ((size_t)(f->end - s) < ind + 3 || memcmp(s + ind, "- {", 3) != 0) {
        return 0;
    }
    for (size_t i = 0; i < ind; i++) {
        if (s[i] != ' ') {
            return 0;
        }
    }
    op->seen = 0;
    op->time_us = op->flops = op->bytes = NAN;
    op->temp = op->persistent = 0;
    op->device = -1;
    op->phase = PHASE_FORWARD;
    op->n_out = op->n_in = op->n_ext = 0;
    op->line = (int32_t)f->line + 1;
    op->col = (int32_t)ind + 3;
    at.p = s + ind + 3;
    if ((rc = pairs(&at, op)) == NOT_TAKEN) {
        return 0;
    }
    if (rc) {
        return rc;
    }
    if ((op->seen & (OK_NAME | OK_TYPE)) != (OK_NAME | OK_TYPE)) {
        return 0; /* "missing required key": the event path's message */
    }
    yflow_item_read(f, at.p);
    *taken = true;
    return 0;
}

void wl_flow_op_release(struct wl_flow_op *op)
{
    free(op->out);
    free(op->in);
    free(op->ext);
    op->out = NULL;
    op->in = NULL;
    op->ext = NULL;
    op->alloc_out = op->alloc_in = op->alloc_ext = 0;
}
