/*
 * yio.h - the YAML plumbing shared by the suite's file readers and writers
 * (workloads, clusters, placements): a pull reader over libyaml's EVENT
 * parser with file:line:col messages, strict scalar conversions, and a thin
 * emitter wrapper with a sticky error.
 *
 * Why events and not the document loader: the loader builds a node tree of
 * the whole file first (allocations per node) that would then be walked
 * again; from events a workload loads in one pass, nearly all of it
 * libyaml's own parsing (docs/formats.md gives the GNMT file's time).
 *
 * Rules common to every file of the suite (docs/formats.md):
 *   - one document whose top level is a mapping; an empty file is an error;
 *   - aliases (*a) and tags (!t) are rejected; anchors (&a) are ignored;
 *   - positions in messages are 1-based "name:line:col".
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CORE_YIO_H
#define BAECHI_CORE_YIO_H

#include "core/workload.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <yaml.h>

/* ---------------------------------------------------------------- reader */

/*
 * Another source of events (core/yio_flow.h): fills *ev as libyaml would,
 * a scalar's value in the source's own buffer (valid until the next call;
 * yrd never frees it).  0, or a code that ends the read.
 */
typedef int (*yrd_pull_fn)(void *ctx, yaml_event_t *ev);

struct yrd {
    yaml_parser_t parser;
    yaml_event_t ev; /* the current event (valid after yrd_next) */
    bool have_ev;
    bool have_parser;
    const char *name; /* file name for messages (not owned) */
    const char *text; /* the input (not owned), for reader-error positions */
    size_t len;
    char *key; /* the last key read by yrd_key (owned) */
    size_t key_alloc;
    int32_t key_line, key_col;
    /* After the scalar that starts at byte pull_at of the text, events come
     * from pull(pull_ctx) instead of libyaml (yrd_pull_after). */
    yrd_pull_fn pull;
    void *pull_ctx;
    size_t pull_at;
    bool pulling;     /* the switch happened */
    bool ev_borrowed; /* ev came from pull: not libyaml's to delete */
};

/*
 * Maps the pages of a large buffer about to be written whole in one call
 * (MADV_POPULATE_WRITE) instead of a page fault per page: a third of
 * loading a 1M-op workload went to 90,000 faults on this kind of machine.
 * (The allocator, core/alloc.c, asks for 2 MB pages from 2 MB on: then
 * this maps 2 MB pages.)
 * Advice only (nothing changes where refused); below 1 MB it does nothing.
 */
void yio_prefault(void *p, size_t bytes);

/*
 * Reads a whole file into a NUL-terminated buffer (*text, owned by the
 * caller).  BAECHI_EIO with "cannot open 'path': reason" on failure.
 */
int yio_read_file(const char *path, char **text, size_t *len);

/* Starts reading text[0..len); `name` is used in messages. */
int yrd_open(struct yrd *r, const char *text, size_t len, const char *name);
void yrd_close(struct yrd *r);

/*
 * Once the scalar that starts at byte `at` of the text was the current
 * event, the following events come from pull(ctx): libyaml reads the rest
 * of the document no further.  The caller vouches that pull gives the
 * events libyaml would (core/yio_flow.h: a fast reader of one-line flow
 * mappings); aliases and tags are still rejected.
 */
void yrd_pull_after(struct yrd *r, size_t at, yrd_pull_fn pull, void *ctx);

/*
 * Moves to the next event.  libyaml's errors become "name:line:col: problem
 * (context)"; aliases and tags are rejected here.  0 or BAECHI_EPARSE.
 */
int yrd_next(struct yrd *r);

/*
 * Consumes the stream and document start and the top-level mapping start.
 * "name: empty file" when there is no document; "top level must be a
 * mapping" otherwise.
 */
int yrd_begin(struct yrd *r);

/* After the top-level mapping ended: the document and stream end (one document only). */
int yrd_end(struct yrd *r);

/*
 * Returned by yrd_key and yrd_item when the mapping or sequence ended.  Not a
 * code of enum baechi_err: an error (BAECHI_ENOMEM is 1) is never taken for
 * the end of a collection, so callers loop while 0 and propagate anything
 * but YRD_END.
 */
#define YRD_END 256

/*
 * Inside a mapping: moves to the next key.  Returns YRD_END when the mapping
 * ended (current event = MAPPING_END), 0 with the key copied to r->key (and
 * its position in r->key_line/key_col), BAECHI_EPARSE (a non-scalar key) or
 * BAECHI_ENOMEM.
 * The caller then reads the value with yrd_next() + one of the functions below.
 */
int yrd_key(struct yrd *r);

/*
 * Table-driven reading of a mapping with fixed keys (the top level of every
 * file, a device, an op, ...).  Each known key has a bit of the caller's
 * choosing; `missing` is NULL for an optional key, otherwise the key is
 * required and `missing` is appended to "missing required key 'name'"
 * ("" or a hint such as " (write 'format: 1')").
 */
struct yrd_key {
    const char *name;
    unsigned bit;
    const char *missing;
};

/*
 * Reads the value of key r->key (bit; 0 for an "x-" extension key when
 * yrd_map.ext is set); the value's first event is current.  0 or an error.
 */
typedef int (*yrd_value_fn)(void *arg, unsigned bit);

/* Writes the mapping's message prefix ("op 'x'", "device #2") into buf and returns it. */
typedef const char *(*yrd_label_fn)(void *arg, char *buf, size_t size);

struct yrd_map {
    const struct yrd_key *keys;
    size_t n_keys;
    const char *unknown_hint; /* after "unknown key 'k'", e.g. " (allowed: ...)" */
    yrd_value_fn value;
    bool ext;           /* "x-" keys go to value() with bit 0; otherwise skipped */
    const char *ctx;    /* message prefix ("comm"), or NULL */
    yrd_label_fn label; /* a prefix computed on error; overrides ctx */
};

/*
 * Reads the keys of the mapping whose start is the current event, up to
 * and including its end.  Messages, at the key's position: "[prefix: ]unknown
 * key 'k'<unknown_hint>" (keys not starting with "x-"), "[prefix: ]duplicate
 * key 'k'"; at the mapping's position, for the first required key of the
 * table that is absent: "[prefix: ]missing required key 'k'<missing>".
 * *seen (which the caller initializes) gets the bit of each key read, after
 * its value was read, so value() and label() may consult it.  0 or an error.
 */
int yrd_map_read(struct yrd *r, const struct yrd_map *m, void *arg, unsigned *seen);

/*
 * The current value must be the scalar "1" (the format of a suite file):
 * otherwise "unsupported <what> format <value> (this program reads format: 1)".
 */
int yrd_format(struct yrd *r, const char *what, int format);

/*
 * Inside a sequence: moves to the next item.  0 with the item's first event
 * current, YRD_END when the sequence ended (current event = SEQUENCE_END),
 * BAECHI_EPARSE or BAECHI_ENOMEM.
 */
int yrd_item(struct yrd *r);

/* Skips the node that starts at the current event (a scalar, or a whole collection). */
int yrd_skip(struct yrd *r);

/*
 * Builds a yval from the node that starts at the current event (x- keys).
 * Plain empty scalars are stored as "~" (null), so that they write back the
 * same; duplicate keys in mappings are an error; nesting is limited to 64.
 */
int yrd_yval(struct yrd *r, struct yval *v);

/* Line and column (1-based) of the current event. */
static inline int32_t yrd_line(const struct yrd *r)
{
    return (int32_t)r->ev.start_mark.line + 1;
}

static inline int32_t yrd_col(const struct yrd *r)
{
    return (int32_t)r->ev.start_mark.column + 1;
}

static inline bool yrd_is_scalar(const struct yrd *r)
{
    return r->ev.type == YAML_SCALAR_EVENT;
}

/* The current scalar's text (NUL-terminated; valid until the next yrd_next). */
static inline const char *yrd_text(const struct yrd *r)
{
    return (const char *)r->ev.data.scalar.value;
}

static inline size_t yrd_text_len(const struct yrd *r)
{
    return r->ev.data.scalar.length;
}

/* Whether the current scalar was written plain (unquoted). */
static inline bool yrd_plain(const struct yrd *r)
{
    return r->ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

/* A plain "", "~", "null", "Null" or "NULL" scalar. */
bool yrd_is_null(const struct yrd *r);

/* What the current node is, for messages ("a list", "a mapping", "null", "'text'"). */
const char *yrd_what(const struct yrd *r, char *buf, size_t size);

/* Formats "name:line:col: <message>" (line 0: "name: <message>") and returns BAECHI_EPARSE. */
int yrd_err(const struct yrd *r, int32_t line, int32_t col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Same at the current event. */
int yrd_err_here(const struct yrd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Strict conversions of scalar text.  They return NULL on success, or a short
 * reason ("expected a number", "is negative", ...) for the caller's message.
 * Numbers: [+]digits[.digits][e[+|-]digits] (also .5); no NaN, no infinity,
 * no hex, no sign '-' (every quantity of the suite is >= 0).
 * yio_parse_size: an integer (an integral number in exponent form is
 * accepted, e.g. 2.5e6) that fits in int64.
 */
const char *yio_parse_double(const char *s, double *out);
const char *yio_parse_size(const char *s, int64_t *out);

/* A YAML 1.1 boolean (true/True/TRUE/yes/on/1, false/False/FALSE/no/off/0)
 * into *b: 0, or -1 when s is none of them (*b untouched). */
int yio_parse_bool(const char *s, bool *b);

/* Shortest text that reads back as exactly x (integers without a dot). */
void yio_fmt_double(double x, char *buf, size_t size);

/* ---------------------------------------------------------------- writer */

enum ywr_style {
    YWR_ANY,     /* plain if it reads back as the same string, else double-quoted */
    YWR_PLAIN,   /* numbers and keywords */
    YWR_QUOTED,  /* always double-quoted */
    YWR_LITERAL, /* long free text: a literal block (|-) where possible */
};

struct ywr {
    yaml_emitter_t em;
    FILE *f;
    int rc; /* the first error; later calls do nothing */
};

/*
 * Starts a stream with one implicit document on f (unicode on, unlimited
 * width, so that every flow mapping stays on one line).
 */
int ywr_open(struct ywr *w, FILE *f);

/* Ends the document and stream, flushes, and returns the first error (BAECHI_EIO). */
int ywr_close(struct ywr *w);

void ywr_scalar(struct ywr *w, const char *s, enum ywr_style style);
void ywr_int(struct ywr *w, int64_t x);
void ywr_double(struct ywr *w, double x);
void ywr_map_start(struct ywr *w, bool flow);
void ywr_map_end(struct ywr *w);
void ywr_seq_start(struct ywr *w, bool flow);
void ywr_seq_end(struct ywr *w);
/* A yval (scalars keep their quoting; collections in the surrounding style). */
void ywr_yval(struct ywr *w, const struct yval *v);

#endif
