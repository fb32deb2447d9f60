/*
 * workload_yaml_op.c - one op of a workload file's `ops` list.  Its keys may
 * come in any order, so the op is collected in a scratch record (name,
 * type, sizes, outputs, inputs, extension keys), checked and added to the
 * workload (core/workload.h API) when its mapping ends; the same for a line
 * read without events (core/workload_flow.h).  Input strings are kept
 * aside for workload_yaml.c to resolve after the last op, unless the
 * producer is already known.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/workload_yaml_internal.h"

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

static void op_scratch_clear_ext(struct op_scratch *op)
{
    for (size_t i = 0; i < op->n_ext; i++) {
        free(op->ext[i].key);
        yval_release(&op->ext[i].val);
    }
    op->n_ext = 0;
}

void workload_yaml_wl_reader_release(struct wl_reader *rd)
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
    if ((rc = workload_yaml_read_ext(rd, &op->ext[op->n_ext]))) {
        return rc;
    }
    op->n_ext++;
    return 0;
}

int workload_yaml_read_ext(struct wl_reader *rd, struct wl_ext *e)
{
    int rc;

    memset(e, 0, sizeof(*e));
    if (!(e->key = mem_strdup(rd->r.key))) {
        return BAECHI_ENOMEM;
    }
    if ((rc = yrd_yval(&rd->r, &e->val))) {
        free(e->key);
        e->key = NULL;
        return rc;
    }
    return 0;
}

/* All digits, at least one. */
bool workload_yaml_all_digits(const char *s)
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

/* The value of at most 9 decimal digits (workload_yaml_all_digits() holds): strtol
 * without its locale, a tenth of loading a workload with many inputs. */
long workload_yaml_digits_value(const char *s)
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
        if (yrd_text(r)[0] == '-' && workload_yaml_all_digits(yrd_text(r) + 1)) {
            return op_value_err(rd, "must not be negative");
        }
        if (!workload_yaml_all_digits(yrd_text(r)) || yrd_text_len(r) > 5 ||
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

int workload_yaml_read_op(struct wl_reader *rd, int32_t index)
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
 * (core/workload_flow.h) and added as workload_yaml_read_op() would: 0 with *taken true;
 * 0 with *taken false (not taken: read it with events); or an error.  Once
 * the line is taken (the cursor past it) every failure is an error: the
 * event path must not go on from the next line (issue 30 item 3: 1 meant
 * "not taken" and BAECHI_ENOMEM alike, and an op or its inputs went
 * missing with exit 0).
 */
int workload_yaml_read_flow_op(struct wl_reader *rd, int32_t index, bool *taken)
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
