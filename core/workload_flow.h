/*
 * workload_flow.h - reads one op line of the writer's layout straight into
 * an op record, without events: the fast path of core/workload_yaml.c for
 * the lines core/yio_flow.h reads (issue 22: a 1M-op workload in about a
 * second; the event per key and its handler were most of the time left).
 *
 * A line is taken only when the event path would read it to the same op
 * without an error: the standard keys (name, type, time_us, flops, bytes,
 * outputs, temp, persistent, group, phase, device, inputs), each at most
 * once, name and type present, every value of the form and range the
 * event path accepts; x- keys with a scalar value.  Anything else (an x-
 * key with a list, a duplicate, a value the
 * event path would reject, anything outside yio_flow.h's subset) leaves
 * the line untouched for the event path, whose verdict and message count.
 * deviation: beyond the original (its reader is Python's), speed only.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CORE_WORKLOAD_FLOW_H
#define BAECHI_CORE_WORKLOAD_FLOW_H

#include "core/workload.h"
#include "core/yio_flow.h"

#include <stdint.h>

/* An op's keys, as bits (the reader's `seen`). */
enum wl_op_key {
    OK_NAME = 1 << 0,
    OK_TYPE = 1 << 1,
    OK_TIME = 1 << 2,
    OK_FLOPS = 1 << 3,
    OK_BYTES = 1 << 4,
    OK_OUTPUTS = 1 << 5,
    OK_TEMP = 1 << 6,
    OK_PERSIST = 1 << 7,
    OK_GROUP = 1 << 8,
    OK_PHASE = 1 << 9,
    OK_DEVICE = 1 << 10,
    OK_INPUTS = 1 << 11,
};

/* An input as written: text[0..len) in the file, where its scalar starts. */
struct wl_flow_in {
    const char *text;
    size_t len;
    int32_t line, col; /* 1-based */
};

/* An x- key with a scalar value (the writer's x-micro-batch, ...). */
struct wl_flow_ext {
    const char *key, *val;
    size_t key_len, val_len;
    bool quoted;
};

/* One op line; strings point into the file's text (not NUL-terminated). */
struct wl_flow_op {
    unsigned seen; /* enum wl_op_key bits */
    const char *name, *type, *group;
    size_t name_len, type_len, group_len;
    double time_us, flops, bytes; /* NAN when absent */
    int64_t temp, persistent;
    int32_t device; /* -1 when absent */
    enum op_phase phase;
    int32_t line, col; /* of the "{", 1-based */
    int64_t *out;      /* grown geometrically, kept between lines */
    size_t n_out, alloc_out;
    struct wl_flow_in *in;
    size_t n_in, alloc_in;
    struct wl_flow_ext *ext; /* in file order */
    size_t n_ext, alloc_ext;
};

/*
 * Reads the item line at f's cursor (yflow_at_item(f) holds) into *op and
 * moves f past it: 0 with *taken true.  0 with *taken false: not taken (f
 * and the line untouched; read it with events).  BAECHI_ENOMEM (the line
 * not taken either).  Whether the line was taken is never in the return
 * value, which holds error codes only (issue 30 item 3).
 */
int wl_flow_op_read(struct yflow *f, struct wl_flow_op *op, bool *taken);

void wl_flow_op_release(struct wl_flow_op *op);

#endif
