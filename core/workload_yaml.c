/*
 * workload_yaml.c - reads and writes workload files (format 1) with libyaml's
 * event API (see workload_yaml.h; format: workload-format.md, docs/formats.md;
 * baechi-spec §1 and §8.3 for how the original's graph maps onto it).
 *
 * The reader is one pass over the events.  An op's keys may come in any
 * order, so an op is collected in a scratch record and added to the workload
 * (core/workload.h API) when its mapping ends.  Input strings are kept aside
 * and resolved to (producer, port) after the last op, so inputs may name ops
 * defined later.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/workload_yaml.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"
#include "core/limits.h"
#include "core/yio.h"
#include "core/workload_flow.h"
#include "core/yio_flow.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum top_key {
    TK_FORMAT = 1 << 0,
    TK_NAME = 1 << 1,
    TK_DESC = 1 << 2,
    TK_SOURCE = 1 << 3,
    TK_REFDEV = 1 << 4,
    TK_OPS = 1 << 5,
};

struct in_ref {
    size_t off; /* into wl_reader.strs; unused when producer >= 0 */
    int32_t line, col;
    int32_t producer, port; /* resolved already, or producer -1 */
};

/* One op as read so far (its keys may come in any order). */
struct op_scratch {
    char *name, *type, *group;
    size_t name_alloc, type_alloc, group_alloc;
    unsigned seen; /* enum op_key bits */
    double time_us, flops, bytes;
    int64_t temp, persistent;
    int32_t device;
    enum op_phase phase;
    int32_t line, col;
    int32_t index;
    int64_t *out;
    size_t n_out, alloc_out;
    struct in_ref *in;
    size_t n_in, alloc_in;
    struct wl_ext *ext;
    size_t n_ext, alloc_ext;
};

struct wl_reader {
    struct yrd r;
    struct workload *w;
    char *strs; /* input strings, NUL-separated */
    size_t n_strs, alloc_strs;
    size_t *in_str; /* workload input i -> offset of its string in strs */
    size_t alloc_in_str;
    struct op_scratch op;
    struct yflow *flow;        /* the ops' lines' source, or NULL */
    struct wl_flow_op flow_op; /* a line read without events */
    bool direct_only;          /* WORKLOAD_READ_FAST_DIRECT */
};

static void op_scratch_clear_ext(struct op_scratch *op)
{
    for (size_t i = 0; i < op->n_ext; i++) {
        free(op->ext[i].key);
        yval_release(&op->ext[i].val);
    }
    op->n_ext = 0;
}

static void wl_reader_release(struct wl_reader *rd)
{
    yrd_close(&rd->r);
    free(rd->strs);
    free(rd->in_str);
    op_scratch_clear_ext(&rd->op);
    free(rd->op.name);
    free(rd->op.type);
    free(rd->op.group);
    free(rd->op.out);
    free(rd->op.in);
    free(rd->op.ext);
    wl_flow_op_release(&rd->flow_op);
}

/* Appends "op 'name'" or, before the name is known, "op #n" (the whole
 * name: a char[300] once cut it). */
static int op_label(const struct op_scratch *op, struct strbuf *out)
{
    if (op->seen & OK_NAME) {
        return strbuf_addf(out, "op '%s'", op->name);
    }
    return strbuf_addf(out, "op #%d", op->index + 1);
}

/* Error about the current value of key r->key of the op being read. */
static int op_value_err(struct wl_reader *rd, const char *why)
{
    struct strbuf label = STRBUF_INIT;
    char what[96];
    int rc;

    if ((rc = op_label(&rd->op, &label)) == 0) {
        rc = yrd_err_here(&rd->r, "%s: %s: %s, got %s", label.buf, rd->r.key, why,
                          yrd_what(&rd->r, what, sizeof(what)));
    }
    strbuf_release(&label);
    return rc;
}

static int set_buf(char **buf, size_t *alloc, const char *s, size_t len)
{
    if (ARRAY_RESERVE(*buf, *alloc, len + 1)) {
        return BAECHI_ENOMEM;
    }
    memcpy(*buf, s, len);
    (*buf)[len] = '\0';
    return 0;
}

/* The current value as a non-empty string (op names, types, groups). */
static int op_string(struct wl_reader *rd, char **buf, size_t *alloc)
{
    struct yrd *r = &rd->r;

    if (!yrd_is_scalar(r) || yrd_is_null(r)) {
        return op_value_err(rd, "expected a string");
    }
    if (yrd_text_len(r) == 0) {
        return op_value_err(rd, "must not be empty");
    }
    if (memchr(yrd_text(r), '\0', yrd_text_len(r))) {
        return op_value_err(rd, "must not contain a NUL character");
    }
    return set_buf(buf, alloc, yrd_text(r), yrd_text_len(r));
}

static int op_number(struct wl_reader *rd, double *out)
{
    const char *why;

    if (!yrd_is_scalar(&rd->r) || !yrd_plain(&rd->r)) {
        return op_value_err(rd, "expected a number");
    }
    if ((why = yio_parse_double(yrd_text(&rd->r), out))) {
        return op_value_err(rd, why);
    }
    return 0;
}

static int op_size(struct wl_reader *rd, int64_t *out)
{
    const char *why;

    if (!yrd_is_scalar(&rd->r) || !yrd_plain(&rd->r)) {
        return op_value_err(rd, "expected a size in bytes (an integer)");
    }
    if ((why = yio_parse_size(yrd_text(&rd->r), out))) {
        return op_value_err(rd, why);
    }
    return 0;
}

static int op_outputs(struct wl_reader *rd)
{
    struct yrd *r = &rd->r;
    struct op_scratch *op = &rd->op;
    int rc;

    if (r->ev.type != YAML_SEQUENCE_START_EVENT) {
        return op_value_err(rd, "expected a list of sizes in bytes, e.g. [1024, 0]");
    }
    while ((rc = yrd_item(r)) == 0) {
        int64_t v;

        if ((rc = op_size(rd, &v))) {
            return rc;
        }
        if (ARRAY_RESERVE(op->out, op->alloc_out, op->n_out + 1)) {
            return BAECHI_ENOMEM;
        }
        op->out[op->n_out++] = v;
    }
    return rc == YRD_END ? 0 : rc;
}

static int op_inputs(struct wl_reader *rd)
{
    struct yrd *r = &rd->r;
    struct op_scratch *op = &rd->op;
    int rc;

    if (r->ev.type != YAML_SEQUENCE_START_EVENT) {
        return op_value_err(rd, "expected a list of \"producer:port\" strings");
    }
    while ((rc = yrd_item(r)) == 0) {
        size_t n;

        if (!yrd_is_scalar(r) || yrd_is_null(r) || yrd_text_len(r) == 0) {
            return op_value_err(rd, "expected \"producer:port\", \"producer\" or \"^producer\"");
        }
        n = yrd_text_len(r);
        if (memchr(yrd_text(r), '\0', n)) {
            return op_value_err(rd, "must not contain a NUL character");
        }
        if (ARRAY_RESERVE(rd->strs, rd->alloc_strs, rd->n_strs + n + 1) ||
            ARRAY_RESERVE(op->in, op->alloc_in, op->n_in + 1)) {
            return BAECHI_ENOMEM;
        }
        memcpy(rd->strs + rd->n_strs, yrd_text(r), n + 1);
        op->in[op->n_in].off = rd->n_strs;
        op->in[op->n_in].line = yrd_line(r);
        op->in[op->n_in].col = yrd_col(r);
        op->in[op->n_in].producer = -1;
        op->n_in++;
        rd->n_strs += n + 1;
    }
    return rc == YRD_END ? 0 : rc;
}

static int op_ext(struct wl_reader *rd)
{
    struct op_scratch *op = &rd->op;
    struct wl_ext *e;
    int rc;

    for (size_t i = 0; i < op->n_ext; i++) {
        if (strcmp(op->ext[i].key, rd->r.key) == 0) {
            struct strbuf label = STRBUF_INIT;

            if ((rc = op_label(op, &label)) == 0) {
                rc = yrd_err(&rd->r, rd->r.key_line, rd->r.key_col, "%s: duplicate key '%s'",
                             label.buf, rd->r.key);
            }
            strbuf_release(&label);
            return rc;
        }
    }
    if (ARRAY_RESERVE(op->ext, op->alloc_ext, op->n_ext + 1)) {
        return BAECHI_ENOMEM;
    }
    e = &op->ext[op->n_ext];
    memset(e, 0, sizeof(*e));
    if (!(e->key = mem_strdup(rd->r.key))) {
        return BAECHI_ENOMEM;
    }
    if ((rc = yrd_yval(&rd->r, &e->val))) {
        free(e->key);
        return rc;
    }
    op->n_ext++;
    return 0;
}

/* All digits, at least one. */
static bool all_digits(const char *s)
{
    if (!*s) {
        return false;
    }
    for (; *s; s++) {
        if (!isdigit((unsigned char)*s)) {
            return false;
        }
    }
    return true;
}

/* The value of at most 9 decimal digits (all_digits() holds): strtol
 * without its locale, a tenth of loading a workload with many inputs. */
static long digits_value(const char *s)
{
    long v = 0;

    for (; *s; s++) {
        v = v * 10 + (*s - '0');
    }
    return v;
}

static int op_value(void *arg, unsigned bit)
{
    struct wl_reader *rd = arg;
    struct op_scratch *op = &rd->op;
    struct yrd *r = &rd->r;
    long v;

    switch (bit) {
    case 0:
        return op_ext(rd);
    case OK_NAME:
        return op_string(rd, &op->name, &op->name_alloc);
    case OK_TYPE:
        return op_string(rd, &op->type, &op->type_alloc);
    case OK_GROUP:
        return op_string(rd, &op->group, &op->group_alloc);
    case OK_TIME:
        return op_number(rd, &op->time_us);
    case OK_FLOPS:
        return op_number(rd, &op->flops);
    case OK_BYTES:
        return op_number(rd, &op->bytes);
    case OK_TEMP:
        return op_size(rd, &op->temp);
    case OK_PERSIST:
        return op_size(rd, &op->persistent);
    case OK_OUTPUTS:
        return op_outputs(rd);
    case OK_INPUTS:
        return op_inputs(rd);
    case OK_DEVICE:
        if (!yrd_is_scalar(r) || !yrd_plain(r)) {
            return op_value_err(rd, "expected a device number (0, 1, ...)");
        }
        if (yrd_text(r)[0] == '-' && all_digits(yrd_text(r) + 1)) {
            return op_value_err(rd, "must not be negative");
        }
        if (!all_digits(yrd_text(r)) || yrd_text_len(r) > 5 ||
            (v = strtol(yrd_text(r), NULL, 10)) > LIMIT_OP_DEVICE_MAX) {
            return op_value_err(rd, "expected a device number (0 .. 65535)");
        }
        op->device = (int32_t)v;
        return 0;
    case OK_PHASE:
        if (!yrd_is_scalar(r)) {
            return op_value_err(rd, "expected forward, backward or update");
        }
        if (strcmp(yrd_text(r), "forward") == 0) {
            op->phase = PHASE_FORWARD;
        } else if (strcmp(yrd_text(r), "backward") == 0) {
            op->phase = PHASE_BACKWARD;
        } else if (strcmp(yrd_text(r), "update") == 0) {
            op->phase = PHASE_UPDATE;
        } else {
            return op_value_err(rd, "expected forward, backward or update");
        }
        return 0;
    default:
        BUG("unknown op key bit %u", bit);
    }
}

/* Adds the scratch op to the workload. */
static int op_commit(struct wl_reader *rd)
{
    struct op_scratch *op = &rd->op;
    struct workload *w = rd->w;
    struct wl_op *wop;
    int32_t idx, old;
    int rc;

    if ((rc = workload_add_op(w, op->name, op->type, &idx))) {
        if (rc == BAECHI_EINVAL && (old = workload_find(w, op->name)) >= 0) {
            return yrd_err(&rd->r, op->line, op->col,
                           "duplicate op name '%s' (first defined at line %d)", op->name,
                           w->op[old].line);
        }
        return rc;
    }
    wop = &w->op[idx];
    wop->time_us = op->time_us;
    wop->flops = op->flops;
    wop->bytes = op->bytes;
    wop->temp = op->temp;
    wop->persistent = op->persistent;
    wop->device = op->device;
    wop->phase = op->phase;
    wop->has_phase = (op->seen & OK_PHASE) != 0;
    wop->line = op->line;
    wop->col = op->col;
    if ((op->seen & OK_GROUP) && (rc = workload_set_group(w, idx, op->group))) {
        return rc;
    }
    for (size_t i = 0; i < op->n_out; i++) {
        if ((rc = workload_add_output(w, op->out[i]))) {
            return rc;
        }
    }
    if (ARRAY_RESERVE(rd->in_str, rd->alloc_in_str, w->n_input + op->n_in)) {
        return BAECHI_ENOMEM;
    }
    for (size_t i = 0; i < op->n_in; i++) {
        const struct in_ref *in = &op->in[i];

        /* a resolved input's string slot stays unwritten (and its page
         * untouched) */
        if (in->producer < 0) {
            rd->in_str[w->n_input] = in->off;
        }
        if ((rc = workload_add_input(w, in->producer, in->producer < 0 ? 0 : in->port, in->line,
                                     in->col))) {
            return rc;
        }
    }
    for (size_t i = 0; i < op->n_ext; i++) {
        if ((rc = workload_add_ext(w, op->ext[i].key, &op->ext[i].val))) {
            return rc;
        }
    }
    op_scratch_clear_ext(op);
    return 0;
}

static int op_map_label(void *arg, struct strbuf *out)
{
    return op_label(&((struct wl_reader *)arg)->op, out);
}

static const struct yrd_key op_keys[] = {
    {"name", OK_NAME, ""},       {"type", OK_TYPE, ""},
    {"time_us", OK_TIME, NULL},  {"flops", OK_FLOPS, NULL},
    {"bytes", OK_BYTES, NULL},   {"outputs", OK_OUTPUTS, NULL},
    {"temp", OK_TEMP, NULL},     {"persistent", OK_PERSIST, NULL},
    {"group", OK_GROUP, NULL},   {"phase", OK_PHASE, NULL},
    {"device", OK_DEVICE, NULL}, {"inputs", OK_INPUTS, NULL},
};

static const struct yrd_map op_map = {
    .keys = op_keys,
    .n_keys = sizeof(op_keys) / sizeof(op_keys[0]),
    .unknown_hint = " (extensions must start with 'x-')",
    .value = op_value,
    .ext = true,
    .label = op_map_label,
};

static int read_op(struct wl_reader *rd, int32_t index)
{
    struct op_scratch *op = &rd->op;
    struct yrd *r = &rd->r;
    int rc;

    if (r->ev.type != YAML_MAPPING_START_EVENT) {
        char what[96];

        return yrd_err_here(r, "op #%d: expected a mapping ({name: ..., type: ...}), got %s",
                            index + 1, yrd_what(r, what, sizeof(what)));
    }
    op->seen = 0;
    op->index = index;
    op->time_us = op->flops = op->bytes = NAN;
    op->temp = op->persistent = 0;
    op->device = -1;
    op->phase = PHASE_FORWARD;
    op->n_out = op->n_in = 0;
    op->line = yrd_line(r);
    op->col = yrd_col(r);
    if ((rc = yrd_map_read(r, &op_map, rd, &op->seen))) {
        return rc;
    }
    return op_commit(rd);
}

/*
 * An input "producer:port" whose producer is already defined, with that
 * port, resolved as resolve_inputs() would (its rules: the last ':', then
 * 1-9 digits; a longer port is out of range anyway): no copy of the
 * string and no second lookup.  Anything else waits for resolve_inputs().
 */
static bool resolve_early(const struct workload *w, const char *s, size_t n, struct in_ref *in)
{
    size_t colon = n, k;
    int32_t p, port = 0;

    if (s[0] == '^') {
        return false;
    }
    while (colon > 0 && s[colon - 1] != ':') {
        colon--;
    }
    if (colon == 0 || colon == n || n - colon > 9) {
        return false;
    }
    for (k = colon; k < n; k++) {
        if (s[k] < '0' || s[k] > '9') {
            return false;
        }
        port = port * 10 + (s[k] - '0');
    }
    if ((p = strmap_get(&w->by_name, s, colon - 1)) < 0 || port >= w->op[p].n_out) {
        return false;
    }
    in->producer = p;
    in->port = port;
    return true;
}

/*
 * The op line at the flow source's cursor, read without events
 * (core/workload_flow.h) and added as read_op() would: 0 with *taken true;
 * 0 with *taken false (not taken: read it with events); or an error.  Once
 * the line is taken (the cursor past it) every failure is an error: the
 * event path must not go on from the next line (issue 30 item 3: 1 meant
 * "not taken" and BAECHI_ENOMEM alike, and an op or its inputs went
 * missing with exit 0).
 */
static int read_flow_op(struct wl_reader *rd, int32_t index, bool *taken)
{
    struct wl_flow_op *fo = &rd->flow_op;
    struct op_scratch *op = &rd->op;
    int rc;

    if ((rc = wl_flow_op_read(rd->flow, fo, taken)) != 0 || !*taken) {
        return rc;
    }
    /* the name map's slots of the op and of its inputs' producers, loaded
     * side by side while the line is copied (one miss at a time, they were
     * a fifth of loading a 1M-op workload) */
    strmap_prefetch(&rd->w->by_name, fo->name, fo->name_len);
    for (size_t i = 0; i < fo->n_in; i++) {
        const char *t = fo->in[i].text;
        size_t colon = fo->in[i].len;

        while (colon > 0 && t[colon - 1] != ':') {
            colon--;
        }
        if (colon > 1 && t[0] != '^') {
            strmap_prefetch(&rd->w->by_name, t, colon - 1);
        }
    }
    op->seen = fo->seen;
    op->index = index;
    if (set_buf(&op->name, &op->name_alloc, fo->name, fo->name_len) ||
        set_buf(&op->type, &op->type_alloc, fo->type, fo->type_len) ||
        ((fo->seen & OK_GROUP) &&
         set_buf(&op->group, &op->group_alloc, fo->group, fo->group_len))) {
        return BAECHI_ENOMEM;
    }
    op->time_us = fo->time_us;
    op->flops = fo->flops;
    op->bytes = fo->bytes;
    op->temp = fo->temp;
    op->persistent = fo->persistent;
    op->device = fo->device;
    op->phase = fo->phase;
    op->line = fo->line;
    op->col = fo->col;
    op->n_out = 0;
    if (ARRAY_RESERVE(op->out, op->alloc_out, fo->n_out) ||
        ARRAY_RESERVE(op->in, op->alloc_in, fo->n_in)) {
        return BAECHI_ENOMEM;
    }
    if (fo->n_out > 0) {
        memcpy(op->out, fo->out, fo->n_out * sizeof(*fo->out));
    }
    op->n_out = fo->n_out;
    for (op->n_in = 0; op->n_in < fo->n_in; op->n_in++) {
        const struct wl_flow_in *in = &fo->in[op->n_in];

        op->in[op->n_in].line = in->line;
        op->in[op->n_in].col = in->col;
        if (resolve_early(rd->w, in->text, in->len, &op->in[op->n_in])) {
            continue;
        }
        op->in[op->n_in].producer = -1;
        if (ARRAY_RESERVE(rd->strs, rd->alloc_strs, rd->n_strs + in->len + 1)) {
            return BAECHI_ENOMEM;
        }
        memcpy(rd->strs + rd->n_strs, in->text, in->len);
        rd->strs[rd->n_strs + in->len] = '\0';
        op->in[op->n_in].off = rd->n_strs;
        rd->n_strs += in->len + 1;
    }
    for (size_t i = 0; i < fo->n_ext; i++) {
        const struct wl_flow_ext *fe = &fo->ext[i];
        struct wl_ext *e;

        if (ARRAY_RESERVE(op->ext, op->alloc_ext, op->n_ext + 1)) {
            return BAECHI_ENOMEM;
        }
        e = &op->ext[op->n_ext];
        memset(e, 0, sizeof(*e));
        e->val.kind = YVAL_SCALAR;
        e->val.quoted = fe->quoted;
        if (!(e->key = mem_alloc_array(fe->key_len + 1, 1)) ||
            !(e->val.scalar = mem_alloc_array(fe->val_len + 1, 1))) {
            free(e->key);
            return BAECHI_ENOMEM;
        }
        memcpy(e->key, fe->key, fe->key_len);
        e->key[fe->key_len] = '\0';
        memcpy(e->val.scalar, fe->val, fe->val_len);
        e->val.scalar[fe->val_len] = '\0';
        op->n_ext++;
    }
    return op_commit(rd);
}

static int read_ops(struct wl_reader *rd)
{
    struct yrd *r = &rd->r;
    int32_t line = yrd_line(r), col = yrd_col(r);
    int32_t n = 0;
    bool taken;
    int rc;

    if (r->ev.type != YAML_SEQUENCE_START_EVENT) {
        char what[96];

        return yrd_err_here(r, "ops: expected a list of ops, got %s",
                            yrd_what(r, what, sizeof(what)));
    }
    for (;;) {
        if (rd->flow && r->pulling && yflow_at_item(rd->flow) && n < INT32_MAX - 1) {
            if ((rc = read_flow_op(rd, n, &taken))) {
                return rc;
            }
            if (taken) {
                n++;
                continue;
            }
        }
        if (rd->direct_only && rd->flow && r->pulling && yflow_at_item(rd->flow)) {
            return BAECHI_EPARSE; /* a line the direct reader did not take */
        }
        if ((rc = yrd_next(r))) {
            return rc;
        }
        if (r->ev.type == YAML_SEQUENCE_END_EVENT) {
            break;
        }
        if (n == INT32_MAX - 1) {
            return yrd_err_here(r, "too many ops");
        }
        if ((rc = read_op(rd, n))) {
            return rc;
        }
        n++;
    }
    if (n == 0) {
        return yrd_err(r, line, col, "ops: the list is empty (a workload needs at least one op)");
    }
    return 0;
}

/* A top-level string value; null is allowed (= absent) when `optional`. */
static int top_string(struct wl_reader *rd, char **out, bool optional)
{
    struct yrd *r = &rd->r;
    char what[96];

    if (optional && yrd_is_null(r)) {
        return 0;
    }
    if (!yrd_is_scalar(r) || yrd_is_null(r) || (!optional && yrd_text_len(r) == 0)) {
        return yrd_err_here(r, "%s: expected a string, got %s", r->key,
                            yrd_what(r, what, sizeof(what)));
    }
    if (memchr(yrd_text(r), '\0', yrd_text_len(r))) {
        return yrd_err_here(r, "%s: must not contain a NUL character", r->key);
    }
    free(*out);
    if (!(*out = mem_strdup(yrd_text(r)))) {
        return BAECHI_ENOMEM;
    }
    return 0;
}

static int top_ext(struct wl_reader *rd)
{
    struct workload *w = rd->w;
    struct wl_ext *e;
    int rc;

    for (int32_t i = 0; i < w->n_top_ext; i++) {
        if (strcmp(w->top_ext[i].key, rd->r.key) == 0) {
            return yrd_err(&rd->r, rd->r.key_line, rd->r.key_col, "duplicate key '%s'", rd->r.key);
        }
    }
    e = mem_realloc(w->top_ext, ((size_t)w->n_top_ext + 1) * sizeof(*e));
    if (!e) {
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    w->top_ext = e;
    e = &w->top_ext[w->n_top_ext];
    memset(e, 0, sizeof(*e));
    if (!(e->key = mem_strdup(rd->r.key))) {
        return BAECHI_ENOMEM;
    }
    if ((rc = yrd_yval(&rd->r, &e->val))) {
        free(e->key);
        return rc;
    }
    w->n_top_ext++;
    return 0;
}

#define WL_STR_(x) #x
#define WL_STR(x)  WL_STR_(x)

static int top_value(void *arg, unsigned bit)
{
    struct wl_reader *rd = arg;
    struct workload *w = rd->w;

    switch (bit) {
    case 0:
        return top_ext(rd);
    case TK_FORMAT:
        return yrd_format(&rd->r, "workload", WORKLOAD_FORMAT);
    case TK_NAME:
        return top_string(rd, &w->name, false);
    case TK_DESC:
        return top_string(rd, &w->description, true);
    case TK_SOURCE:
        return top_string(rd, &w->source, true);
    case TK_REFDEV:
        return top_string(rd, &w->reference_device, true);
    default:
        return read_ops(rd);
    }
}

static int read_top(struct wl_reader *rd)
{
    static const struct yrd_key keys[] = {
        {"format", TK_FORMAT, " (write 'format: " WL_STR(WORKLOAD_FORMAT) "')"},
        {"name", TK_NAME, ""},
        {"description", TK_DESC, NULL},
        {"source", TK_SOURCE, NULL},
        {"reference_device", TK_REFDEV, NULL},
        {"ops", TK_OPS, ""},
    };
    static const struct yrd_map map = {
        .keys = keys,
        .n_keys = sizeof(keys) / sizeof(keys[0]),
        .unknown_hint = " (a workload has format, name, description, source, reference_device, "
                        "ops; extensions start with 'x-')",
        .value = top_value,
        .ext = true,
    };
    unsigned seen = 0;

    return yrd_map_read(&rd->r, &map, rd, &seen);
}

/* Resolves every input string to (producer, port). */
static int resolve_inputs(struct wl_reader *rd)
{
    struct workload *w = rd->w;

    for (int32_t i = 0; i < w->n_ops; i++) {
        const struct wl_op *op = &w->op[i];

        for (int32_t k = 0; k < op->n_in; k++) {
            struct wl_input *in = &w->input[op->in_off + k];
            const char *s, *colon;
            int32_t p = -1;
            long port = 0;

            if (in->producer >= 0) {
                continue; /* resolved as its line was read (resolve_early) */
            }
            s = rd->strs + rd->in_str[op->in_off + k];
            colon = s[0] == '^' ? NULL : strrchr(s, ':');
            if (s[0] == '^') {
                p = workload_find(w, s + 1);
                if (p < 0) {
                    return yrd_err(&rd->r, in->line, in->col,
                                   "op '%s': input '%s' names unknown op '%s'", op->name, s, s + 1);
                }
                in->producer = p;
                in->port = WL_PORT_CONTROL;
                continue;
            }
            if (colon && all_digits(colon + 1)) {
                p = strmap_get(&w->by_name, s, (size_t)(colon - s));
                if (p >= 0) {
                    port = strlen(colon + 1) > 9 ? INT32_MAX : digits_value(colon + 1);
                }
            }
            if (p < 0 && (p = workload_find(w, s)) >= 0) {
                port = 0;
            }
            if (p < 0) {
                if (colon && all_digits(colon + 1)) {
                    return yrd_err(&rd->r, in->line, in->col,
                                   "op '%s': input '%s' names unknown op '%.*s'", op->name, s,
                                   (int)(colon - s), s);
                }
                if (colon && strmap_get(&w->by_name, s, (size_t)(colon - s)) >= 0) {
                    return yrd_err(&rd->r, in->line, in->col,
                                   "op '%s': input '%s': bad port '%s' (expected 0, 1, ...)",
                                   op->name, s, colon + 1);
                }
                return yrd_err(&rd->r, in->line, in->col,
                               "op '%s': input '%s' names unknown op '%s'", op->name, s, s);
            }
            if (port >= w->op[p].n_out) {
                return yrd_err(&rd->r, in->line, in->col,
                               "op '%s': input '%s': op '%s' has %d output%s, no port %ld",
                               op->name, s, w->op[p].name, w->op[p].n_out,
                               w->op[p].n_out == 1 ? "" : "s", port);
            }
            in->producer = p;
            in->port = (int32_t)port;
        }
    }
    return 0;
}

/*
 * Room for the list's ops in the op array and the name map, from the mean
 * line length of four windows spread over the list: no regrowth and no
 * rehash of a million-entry map.  Counting every line cost as much as it
 * saved (one more pass over the text); an estimate off either way only
 * costs room (the map's pages are touched at random, so not too much) or
 * a regrowth.
 */
static int reserve_ops(struct workload *w, const struct yflow *f)
{
    const size_t win = 16384;
    size_t total = (size_t)(f->end - f->p), lines = 0, quotes = 0, n;

    if (total < 8 * win) {
        return 0; /* a small list: growing costs nothing */
    }
    /* the middle of each quarter: a list's first ops (a graph's sources)
     * have no inputs, and a window at its start made the inputs' room a
     * quarter short (a regrowth of 48 MB) */
    for (size_t k = 0; k < 4; k++) {
        const char *p = f->p + total / 4 * k + (total / 4 - win) / 2;

        for (size_t i = 0; i < win; i++) {
            lines += p[i] == '\n';
            quotes += p[i] == '"'; /* inputs are quoted: two a string */
        }
    }
    if (lines == 0) {
        return 0;
    }
    n = total / (4 * win / lines) / 16 * 17; /* one in sixteen more */
    if (n > INT32_MAX) {
        n = INT32_MAX; /* the most ops a workload holds */
    }
    if (ARRAY_RESERVE(w->op, w->alloc_op, n) || strmap_reserve(&w->by_name, n) ||
        ARRAY_RESERVE(w->input, w->alloc_input, quotes / 2 * (total / (4 * win)) / 16 * 17)) {
        return BAECHI_ENOMEM;
    }
    yio_prefault(w->op, n * sizeof(*w->op));
    yio_prefault(w->by_name.slot, w->by_name.cap * sizeof(*w->by_name.slot));
    yio_prefault(w->input, w->alloc_input * sizeof(*w->input));
    return 0;
}

/* Reads text; with f, the ops list whose key starts at byte ops_at comes from f. */
static int read_text(struct workload *w, const char *text, size_t len, const char *name,
                     size_t ops_at, struct yflow *f, enum workload_read_mode mode)
{
    struct wl_reader rd;
    int rc = 0;

    workload_init(w);
    memset(&rd, 0, sizeof(rd));
    rd.w = w;
    rd.flow = mode == WORKLOAD_READ_FAST_EVENTS ? NULL : f;
    rd.direct_only = mode == WORKLOAD_READ_FAST_DIRECT;
    if (name && !(w->path = mem_strdup(name))) {
        return BAECHI_ENOMEM;
    }
    CHECK(yrd_open(&rd.r, text, len, w->path ? w->path : "<workload>"));
    if (f) {
        yrd_pull_after(&rd.r, ops_at, yflow_pull, f);
        CHECK(reserve_ops(w, f));
    }
    CHECK(yrd_begin(&rd.r));
    CHECK(read_top(&rd));
    CHECK(yrd_end(&rd.r));
    CHECK(resolve_inputs(&rd));
    CHECK(workload_check(w));
    workload_shrink(w);
cleanup:
    wl_reader_release(&rd);
    if (rc) {
        workload_release(w); /* the message already names the file */
    }
    return rc;
}

/*
 * The writer's layout: a line "ops:" at column 0 followed by the list's
 * first line.  *ops_at: the key's byte; *start, *line: the next line's
 * byte and 0-based number.
 */
static bool find_ops_list(const char *text, size_t len, size_t *ops_at, size_t *start, size_t *line)
{
    const char *p = text, *end = text + len;
    size_t n = 0;

    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));

        if (!nl) {
            return false;
        }
        if (nl - p == 4 && memcmp(p, "ops:", 4) == 0) {
            *ops_at = (size_t)(p - text);
            *start = (size_t)(nl + 1 - text);
            *line = n + 1;
            return true;
        }
        p = nl + 1;
        n++;
    }
    return false;
}

int workload_read_yaml_mode(struct workload *w, const char *text, size_t len, const char *name,
                            enum workload_read_mode mode, bool *fast)
{
    const char *env = getenv("BAECHI_YAML_FAST");
    bool once = mode != WORKLOAD_READ_AUTO; /* no second reading */
    size_t ops_at, start, line;
    struct yflow f;
    int rc;

    if (fast) {
        *fast = false;
    }
    if (mode == WORKLOAD_READ_AUTO && env && strcmp(env, "0") == 0) {
        mode = WORKLOAD_READ_LIBYAML;
    }
    if (mode != WORKLOAD_READ_LIBYAML && find_ops_list(text, len, &ops_at, &start, &line)) {
        yflow_init(&f, text, len, start, line);
        rc = read_text(w, text, len, name, ops_at, &f, mode);
        if (fast) {
            *fast = f.n_items > 0;
        }
        yflow_release(&f);
        if (rc == 0 || once) {
            return rc;
        }
    } else if (mode != WORKLOAD_READ_AUTO && mode != WORKLOAD_READ_LIBYAML) {
        workload_init(w);
        return BAECHI_EPARSE;
    }
    return read_text(w, text, len, name, 0, NULL, mode);
}

int workload_read_yaml_string(struct workload *w, const char *text, size_t len, const char *name)
{
    return workload_read_yaml_mode(w, text, len, name, WORKLOAD_READ_AUTO, NULL);
}

int workload_read_yaml(struct workload *w, const char *path)
{
    char *text = NULL;
    size_t len = 0;
    int rc;

    if ((rc = yio_read_file(path, &text, &len))) {
        workload_init(w);
        return rc;
    }
    rc = workload_read_yaml_string(w, text, len, path);
    free(text);
    return rc;
}
