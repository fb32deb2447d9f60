/*
 * workload_yaml_internal.h - the two parts of the workload file reader (see
 * workload_yaml.h) and the reader state they share:
 *
 *   workload_yaml.c     the document: top-level keys, the ops list (events
 *                       or the fast line path), inputs resolved after the
 *                       last op, the entry points and their modes
 *   workload_yaml_op.c  one op: its keys in any order collected in a
 *                       scratch record, checked and added to the workload;
 *                       the same from a line read without events
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CORE_WORKLOAD_YAML_INTERNAL_H
#define BAECHI_CORE_WORKLOAD_YAML_INTERNAL_H

#include "core/workload.h"
#include "core/workload_flow.h"
#include "core/yio.h"
#include "core/yio_flow.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* Frees what the reader holds (not the workload). */
void workload_yaml_wl_reader_release(struct wl_reader *rd);
/* All digits, at least one. */
bool workload_yaml_all_digits(const char *s);
/* The value of at most 9 decimal digits (workload_yaml_all_digits() holds). */
long workload_yaml_digits_value(const char *s);
/* *e, zeroed, takes the key at the reader's cursor and its value (an
 * `x-` extension of an op or of the document); on error *e holds nothing. */
int workload_yaml_read_ext(struct wl_reader *rd, struct wl_ext *e);
/* The op mapping at the reader's cursor, op number `index`, added to the
 * workload. */
int workload_yaml_read_op(struct wl_reader *rd, int32_t index);
/* The op line at the flow source's cursor, read without events: 0 with
 * *taken true; 0 with *taken false (read it with events); or an error. */
int workload_yaml_read_flow_op(struct wl_reader *rd, int32_t index, bool *taken);

#endif
