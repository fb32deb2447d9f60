/*
 * yio_flow.c - the fast event source for lists of one-line flow mappings
 * (see yio_flow.h for the subset it reads and why).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/yio_flow.h"

#include "core/array.h"
#include "core/err.h"

#include <stdint.h>
#include <string.h>

/* Where the source stands: what the next event may be. */
enum yflow_state {
    YF_START,     /* the list's SEQUENCE_START */
    YF_ITEM,      /* at a line's start: an item or the list's end */
    YF_KEY,       /* a key (after "{" or ", ") */
    YF_VALUE,     /* a value (after ": ") */
    YF_SEQ_FIRST, /* after "[": an item or "]" */
    YF_SEQ_NEXT,  /* after an item of a sequence: ", " or "]" */
    YF_AFTER,     /* after a value: ", " or "}" */
    YF_TOP_END,   /* the top-level mapping's end */
    YF_DOC_END,
    YF_STREAM_END,
    YF_DONE
};

/* Outside the subset: the caller reads the text with libyaml instead. */
#define YF_GIVE_UP BAECHI_EPARSE

#define YF_MAX_KEY 64

void yflow_init(struct yflow *f, const char *text, size_t len, size_t start, size_t line)
{
    memset(f, 0, sizeof(*f));
    f->text = text;
    f->p = text + start;
    f->end = text + len;
    f->line_start = f->p;
    f->line = line;
    f->state = YF_START;
}

void yflow_release(struct yflow *f)
{
    free(f->buf);
    f->buf = NULL;
    f->alloc = 0;
}

static void set_mark(const struct yflow *f, yaml_event_t *ev, const char *at)
{
    ev->start_mark.index = (size_t)(at - f->text);
    ev->start_mark.line = f->line;
    ev->start_mark.column = (size_t)(at - f->line_start);
    ev->end_mark = ev->start_mark;
}

/*
 * Byte classes, one load per byte: 1 = a plain scalar's character
 * [A-Za-z0-9_./+-]; 2 = inside a double-quoted one (printable ASCII but
 * '"' and '\\'); 3 = both.
 */
#define P_ 3 /* plain and quoted */
#define Q_ 2 /* quoted only */
/* clang-format off */
static const unsigned char byte_class[256] = {
    /* 0x20 */ [0x20] = Q_, Q_, 0,  Q_, Q_, Q_, Q_, Q_, Q_, Q_, Q_, P_, Q_, P_, P_, P_,
    /* 0x30 */ P_, P_, P_, P_, P_, P_, P_, P_, P_, P_, Q_, Q_, Q_, Q_, Q_, Q_,
    /* 0x40 */ Q_, P_, P_, P_, P_, P_, P_, P_, P_, P_, P_, P_, P_, P_, P_, P_,
    /* 0x50 */ P_, P_, P_, P_, P_, P_, P_, P_, P_, P_, P_, Q_, 0,  Q_, Q_, P_,
    /* 0x60 */ Q_, P_, P_, P_, P_, P_, P_, P_, P_, P_, P_, P_, P_, P_, P_, P_,
    /* 0x70 */ P_, P_, P_, P_, P_, P_, P_, P_, P_, P_, P_, Q_, Q_, Q_, Q_, 0,
};
/* clang-format on */
#undef P_
#undef Q_

static inline int plain_char(unsigned char c)
{
    return byte_class[c] & 1;
}

int yflow_scan_scalar(struct yflow *f, const char **text, size_t *len, bool *quoted, size_t max_len)
{
    const char *s = f->p, *q;
    size_t n;

    *quoted = f->p < f->end && *s == '"';
    if (*quoted) {
        for (q = s + 1; q < f->end && (byte_class[(unsigned char)*q] & 2); q++) {
        }
        if (q >= f->end || *q != '"') {
            return YF_GIVE_UP; /* an escape, a control or non-ASCII byte, or no end */
        }
        n = (size_t)(q - s - 1);
        f->p = q + 1;
        s++;
    } else {
        for (q = s; q < f->end && plain_char((unsigned char)*q); q++) {
        }
        n = (size_t)(q - s);
        /* "-x" or "+x" would need YAML's rules on indicators: digits only */
        if (n == 0 || ((*s == '-' || *s == '+') &&
                       (n < 2 || !((s[1] >= '0' && s[1] <= '9') || s[1] == '.')))) {
            return YF_GIVE_UP;
        }
        f->p = q;
    }
    if (n > max_len) {
        return YF_GIVE_UP;
    }
    *text = s;
    *len = n;
    return 0;
}

/* A scalar at the cursor (plain or double-quoted) into ev. */
static int scalar(struct yflow *f, yaml_event_t *ev, size_t max_len)
{
    const char *s;
    size_t n;
    bool quoted;
    int rc;

    if ((rc = yflow_scan_scalar(f, &s, &n, &quoted, max_len))) {
        return rc;
    }
    if (ARRAY_RESERVE(f->buf, f->alloc, n + 1)) {
        return BAECHI_ENOMEM;
    }
    memcpy(f->buf, s, n);
    f->buf[n] = '\0';
    set_mark(f, ev, quoted ? s - 1 : s);
    ev->type = YAML_SCALAR_EVENT;
    ev->data.scalar.value = (yaml_char_t *)f->buf;
    ev->data.scalar.length = n;
    ev->data.scalar.plain_implicit = !quoted;
    ev->data.scalar.quoted_implicit = quoted;
    ev->data.scalar.style = quoted ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_PLAIN_SCALAR_STYLE;
    return 0;
}

/* Consumes `lit` at the cursor, or gives up. */
static int expect(struct yflow *f, const char *lit, size_t n)
{
    if ((size_t)(f->end - f->p) < n || memcmp(f->p, lit, n) != 0) {
        return YF_GIVE_UP;
    }
    f->p += n;
    return 0;
}

static int peek(const struct yflow *f, char c)
{
    return f->p < f->end && *f->p == c;
}

/* An item's start: the indentation, "- {". */
static int item(struct yflow *f, yaml_event_t *ev)
{
    const char *s = f->p;
    size_t ind = 0;

    while (s + ind < f->end && s[ind] == ' ') {
        ind++;
    }
    if (ind != f->indent || (size_t)(f->end - s) < ind + 3 || memcmp(s + ind, "- {", 3) != 0) {
        return YF_GIVE_UP;
    }
    f->p = s + ind + 2;
    set_mark(f, ev, f->p);
    f->p++;
    ev->type = YAML_MAPPING_START_EVENT;
    ev->data.mapping_start.implicit = 1;
    ev->data.mapping_start.style = YAML_FLOW_MAPPING_STYLE;
    f->state = YF_KEY;
    f->n_items++;
    return 0;
}

/* After a mapping's "}": the line must end there. */
static int item_end(struct yflow *f, yaml_event_t *ev)
{
    set_mark(f, ev, f->p);
    f->p++;
    if (!peek(f, '\n')) {
        return YF_GIVE_UP;
    }
    f->p++;
    f->line++;
    f->line_start = f->p;
    ev->type = YAML_MAPPING_END_EVENT;
    f->state = YF_ITEM;
    return 0;
}

static int value(struct yflow *f, yaml_event_t *ev)
{
    int rc;

    if (peek(f, '[')) {
        set_mark(f, ev, f->p);
        f->p++;
        ev->type = YAML_SEQUENCE_START_EVENT;
        ev->data.sequence_start.implicit = 1;
        ev->data.sequence_start.style = YAML_FLOW_SEQUENCE_STYLE;
        f->state = YF_SEQ_FIRST;
        return 0;
    }
    if ((rc = scalar(f, ev, (size_t)-1)) == 0) {
        f->state = YF_AFTER;
    }
    return rc;
}

/* In a flow sequence: an item, or its end. */
static int seq(struct yflow *f, yaml_event_t *ev)
{
    int rc;

    if (peek(f, ']')) {
        set_mark(f, ev, f->p);
        f->p++;
        ev->type = YAML_SEQUENCE_END_EVENT;
        f->state = YF_AFTER;
        return 0;
    }
    if (f->state == YF_SEQ_NEXT && (rc = expect(f, ", ", 2)) != 0) {
        return rc;
    }
    if ((rc = scalar(f, ev, (size_t)-1)) == 0) {
        f->state = YF_SEQ_NEXT;
    }
    return rc;
}

bool yflow_at_item(const struct yflow *f)
{
    return f->state == YF_ITEM && f->p < f->end;
}

void yflow_item_read(struct yflow *f, const char *next)
{
    f->p = next;
    f->line++;
    f->line_start = next;
    f->n_items++;
}

int yflow_pull(void *ctx, yaml_event_t *ev)
{
    struct yflow *f = ctx;
    int rc;

    switch (f->state) {
    case YF_START:
        while (f->p + f->indent < f->end && f->p[f->indent] == ' ') {
            f->indent++;
        }
        set_mark(f, ev, f->p + f->indent);
        ev->type = YAML_SEQUENCE_START_EVENT;
        ev->data.sequence_start.implicit = 1;
        ev->data.sequence_start.style = YAML_BLOCK_SEQUENCE_STYLE;
        f->state = YF_ITEM;
        /* an empty list is libyaml's to judge */
        return f->p + f->indent < f->end && f->p[f->indent] == '-' ? 0 : YF_GIVE_UP;
    case YF_ITEM:
        if (f->p == f->end) {
            set_mark(f, ev, f->p);
            ev->type = YAML_SEQUENCE_END_EVENT;
            f->state = YF_TOP_END;
            return 0;
        }
        return item(f, ev);
    case YF_KEY:
        if ((rc = scalar(f, ev, YF_MAX_KEY)) != 0 || ev->data.scalar.quoted_implicit) {
            return rc ? rc : YF_GIVE_UP;
        }
        f->state = YF_VALUE;
        return 0;
    case YF_VALUE:
        if ((rc = expect(f, ": ", 2)) != 0) {
            return rc;
        }
        return value(f, ev);
    case YF_SEQ_FIRST:
    case YF_SEQ_NEXT:
        return seq(f, ev);
    case YF_AFTER:
        if (peek(f, '}')) {
            return item_end(f, ev);
        }
        if ((rc = expect(f, ", ", 2)) != 0) {
            return rc;
        }
        f->state = YF_KEY;
        return yflow_pull(f, ev);
    case YF_TOP_END:
        set_mark(f, ev, f->p);
        ev->type = YAML_MAPPING_END_EVENT;
        f->state = YF_DOC_END;
        return 0;
    case YF_DOC_END:
        set_mark(f, ev, f->p);
        ev->type = YAML_DOCUMENT_END_EVENT;
        ev->data.document_end.implicit = 1;
        f->state = YF_STREAM_END;
        return 0;
    case YF_STREAM_END:
        set_mark(f, ev, f->p);
        ev->type = YAML_STREAM_END_EVENT;
        f->state = YF_DONE;
        return 0;
    default:
        return YF_GIVE_UP;
    }
}
