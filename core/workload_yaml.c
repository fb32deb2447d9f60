/*
 * workload_yaml.c - reads and writes workload files (format 1) with libyaml's
 * event API (see workload_yaml.h; format: workload-format.md, docs/formats.md;
 * baechi-spec §1 and §8.3 for how the original's graph maps onto it).
 *
 * The reader is one pass over the events.  An op's keys may come in any
 * order, so an op is collected in a scratch record and added to the workload
 * (core/workload.h API) when its mapping ends (workload_yaml_op.c; this file
 * holds the document around it).  Input strings are kept aside
 * and resolved to (producer, port) after the last op, so inputs may name ops
 * defined later.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/workload_yaml.h"
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

enum top_key {
    TK_FORMAT = 1 << 0,
    TK_NAME = 1 << 1,
    TK_DESC = 1 << 2,
    TK_SOURCE = 1 << 3,
    TK_REFDEV = 1 << 4,
    TK_OPS = 1 << 5,
};

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
            if ((rc = workload_yaml_read_flow_op(rd, n, &taken))) {
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
        if ((rc = workload_yaml_read_op(rd, n))) {
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
    if ((rc = workload_yaml_read_ext(rd, &w->top_ext[w->n_top_ext]))) {
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
            if (colon && workload_yaml_all_digits(colon + 1)) {
                p = strmap_get(&w->by_name, s, (size_t)(colon - s));
                if (p >= 0) {
                    port =
                        strlen(colon + 1) > 9 ? INT32_MAX : workload_yaml_digits_value(colon + 1);
                }
            }
            if (p < 0 && (p = workload_find(w, s)) >= 0) {
                port = 0;
            }
            if (p < 0) {
                if (colon && workload_yaml_all_digits(colon + 1)) {
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
    workload_yaml_wl_reader_release(&rd);
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
