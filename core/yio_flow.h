/*
 * yio_flow.h - a fast event source for the suite's own layout of long
 * lists: a block sequence whose items are one-line flow mappings, as the
 * workload writer emits its ops,
 *
 *     - {name: op0, type: MatMul, time_us: 5, outputs: [64], inputs: ["a:0"]}
 *
 * giving the events libyaml's parser would give (marks included) for a
 * strict subset of YAML, to be read through core/yio.h (yrd_pull_after), so
 * that the ops skip libyaml's scanner (three quarters of loading a
 * workload).  Anything outside the subset is not an error here: the source
 * gives up (BAECHI_EPARSE, no message) and the caller reads the file again
 * with libyaml, whose verdict and message count.  The subset, per line:
 *
 *   - the items' indentation (that of the first), "- {", then "key: value"
 *     pairs separated by ", ", then "}" and the line's end ("\n");
 *   - keys: plain scalars of at most 64 characters;
 *   - values: a plain scalar, a double-quoted scalar without escapes, or a
 *     flow sequence ("[]", "[a, b]") of those;
 *   - plain scalars: [A-Za-z0-9_./+-], not starting with '-' or '+' unless
 *     a digit or '.' follows; no spaces, no ':', '#', quotes, brackets;
 *   - double-quoted scalars: printable ASCII but '"' and '\';
 *   - no tabs, no '\r', no comments, no blank lines, no bytes >= 0x80.
 * The list ends at the end of the text (after a "\n"), then the top-level
 * mapping, the document and the stream end.  Time O(length of the text).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CORE_YIO_FLOW_H
#define BAECHI_CORE_YIO_FLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

struct yflow {
    const char *text; /* the whole text (marks count from here) */
    const char *p;    /* the cursor */
    const char *end;
    const char *line_start;
    size_t line;   /* 0-based line of the cursor */
    size_t indent; /* of the items */
    int state;
    size_t n_items; /* mappings read */
    char *buf;      /* the current scalar, NUL-terminated (owned) */
    size_t alloc;
};

/*
 * Starts at text + start, the first item's line (its first byte), of
 * text[0..len) whose line `line` (0-based) that is.
 */
void yflow_init(struct yflow *f, const char *text, size_t len, size_t start, size_t line);
void yflow_release(struct yflow *f);

/*
 * The next event into *ev (a yrd_pull_fn; ctx = struct yflow *).  0, or
 * BAECHI_EPARSE (outside the subset: read with libyaml) or BAECHI_ENOMEM.
 */
int yflow_pull(void *ctx, yaml_event_t *ev);

/*
 * For a reader that builds its records straight from the lines (no
 * events; core/workload_flow.h).  yflow_at_item: the next event would be
 * an item's MAPPING_START, at f->p (a line's first byte, f->line).
 * yflow_item_read: that item was read whole by the caller, up to and with
 * its "\n"; `next` is the next line's first byte.  yflow_scan_scalar: the
 * scalar at f->p as the event source would read it (same subset, same
 * give-ups), without a copy: *text (past an opening quote), *len, *quoted;
 * moves f->p past it.  0, or BAECHI_EPARSE (outside the subset).
 */
bool yflow_at_item(const struct yflow *f);
void yflow_item_read(struct yflow *f, const char *next);
int yflow_scan_scalar(struct yflow *f, const char **text, size_t *len, bool *quoted,
                      size_t max_len);

#endif
