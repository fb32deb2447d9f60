/*
 * workload.h - a workload as a document: the ops of one training (or
 * inference) graph, in file order, with their costs and inputs, exactly as
 * docs/formats.md describes them.
 *
 * This is what readers (core/workload_yaml.c, importers, generators)
 * produce and writers consume.  It keeps everything a file says, extensions
 * included, so that read -> write -> read is lossless.  Algorithms do not run
 * on it: graph_build() (graph.h) derives the compact graph they use.
 *
 * Ownership: a struct workload owns all its strings (in `pool`) and arrays.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CORE_WORKLOAD_H
#define BAECHI_CORE_WORKLOAD_H

#include "core/strmap.h"

#include <stdbool.h>
#include <stdint.h>

#define WORKLOAD_FORMAT 1

/*
 * The top-level extension key that says where the op times come from, e.g.
 * `x-times: {source: roofline, device: v100}` (source: roofline = the cost
 * model's datasheet peaks, calibrated = a measured cluster device, profile =
 * measured op times); written by the cost model (workloads/costmodel.c),
 * read by the commands that warn when a cluster's device differs.
 */
#define WORKLOAD_TIMES_KEY "x-times"

enum op_phase { PHASE_FORWARD = 0, PHASE_BACKWARD = 1, PHASE_UPDATE = 2 };

/* The port of a control dependency ("^producer"). */
#define WL_PORT_CONTROL (-1)

/* One entry of an op's `inputs` list, resolved to an op index. */
struct wl_input {
    int32_t producer; /* index into workload.op */
    int32_t port;     /* output port, or WL_PORT_CONTROL */
    int32_t line;     /* where the input string stands in the file (1-based; 0 if generated) */
    int32_t col;
};

/*
 * A YAML value kept verbatim for `x-` extensions: a scalar, a sequence or a
 * mapping (keys are scalars).  Written back in flow style.
 */
enum yval_kind { YVAL_SCALAR, YVAL_SEQ, YVAL_MAP };

struct yval {
    enum yval_kind kind;
    char *scalar;       /* YVAL_SCALAR: the text (owned) */
    bool quoted;        /* YVAL_SCALAR: was quoted in the source (keeps strings strings) */
    int32_t n;          /* YVAL_SEQ / YVAL_MAP: number of items */
    char **keys;        /* YVAL_MAP: n keys (owned) */
    struct yval *items; /* n items (owned) */
};

void yval_release(struct yval *v);
int yval_copy(struct yval *dst, const struct yval *src);
bool yval_equal(const struct yval *a, const struct yval *b);

/* One `x-` extension key and its value. */
struct wl_ext {
    char *key; /* owned, starts with "x-" */
    struct yval val;
};

struct wl_op {
    const char *name;   /* required, unique (in pool) */
    const char *type;   /* required (in pool) */
    double time_us;     /* measured compute time on the reference device; NAN when absent */
    double flops;       /* NAN when absent */
    double bytes;       /* bytes read + written; NAN when absent */
    int64_t temp;       /* scratch bytes while running (default 0) */
    int64_t persistent; /* bytes that stay allocated (default 0) */
    const char *group;  /* colocation group (in pool); NULL = the op's own name */
    enum op_phase phase;
    bool has_phase;  /* `phase` was written (kept for a faithful round trip) */
    int32_t device;  /* given placement; -1 when absent */
    int32_t out_off; /* outputs: workload.out_bytes[out_off .. out_off + n_out) */
    int32_t n_out;
    int32_t in_off; /* inputs: workload.input[in_off .. in_off + n_in) */
    int32_t n_in;
    int32_t ext_off; /* extensions: workload.ext[ext_off .. ext_off + n_ext) */
    int32_t n_ext;
    int32_t line, col; /* where the op starts in its file; 0 if generated */
};

struct workload {
    char *path;             /* file it was read from, or NULL (used in messages) */
    char *name;             /* required */
    char *description;      /* optional, NULL when absent */
    char *source;           /* optional */
    char *reference_device; /* optional */
    struct wl_ext *top_ext; /* top-level x- keys, in file order */
    int32_t n_top_ext;

    struct wl_op *op;
    int32_t n_ops;
    size_t alloc_op;

    int64_t *out_bytes; /* all ops' output sizes, by op then port */
    size_t n_out_bytes, alloc_out_bytes;

    struct wl_input *input;
    size_t n_input, alloc_input;

    struct wl_ext *ext;
    size_t n_ext, alloc_ext;

    struct strpool pool;   /* names, types, groups */
    struct strmap by_name; /* op name -> index */
};

void workload_init(struct workload *w);
void workload_release(struct workload *w);

/* Gives back the arrays' spare capacity (up to a third of a large workload
 * read op by op); nothing changes but memory. */
void workload_shrink(struct workload *w);

/* Sets w->name (copied). */
int workload_set_name(struct workload *w, const char *name);

/*
 * Appends an op with the given name and type (both copied) and default
 * fields (no time, no outputs, no inputs, device -1, phase forward).
 * Returns its index in *idx.  A duplicate name is BAECHI_EINVAL with a
 * message naming it (the reader adds file:line:col).
 */
int workload_add_op(struct workload *w, const char *name, const char *type, int32_t *idx);

/*
 * Appends output sizes / one input / one extension to the LAST op added (the
 * arrays are per op and contiguous, so an op is filled before the next is
 * added).  workload_add_input does not check the producer or port: readers
 * that resolve names later call workload_check() when done.
 */
int workload_add_output(struct workload *w, int64_t bytes);
int workload_add_input(struct workload *w, int32_t producer, int32_t port, int32_t line,
                       int32_t col);
int workload_add_ext(struct workload *w, const char *key, const struct yval *val);

/* Sets the top-level extension `key` (an "x-" key) to a copy of val,
 * replacing its value when the key is there.  0 or BAECHI_ENOMEM. */
int workload_set_top_ext(struct workload *w, const char *key, const struct yval *val);

/* Sets the group of op i (copied into the pool); NULL resets to the default. */
int workload_set_group(struct workload *w, int32_t i, const char *group);

/*
 * Whether an op of `type` holds its persistent bytes as its outputs: a
 * variable or a constant (the ops table's `param` and `const` categories,
 * workloads/ops.c), whose output is its value, stored once (TensorFlow's
 * profiles write persistent = output for these), and a type the table
 * does not know or files as the model's own (`other`: a profiled graph's
 * own op, a synthetic op): the original Baechi's reading, persistent bytes
 * inside the outputs.  Every op of a
 * type the table knows as computing (matmul, convolution, norm, ...) holds
 * its persistent bytes (the parameters it owns) beside its outputs:
 * docs/training-memory.md, "Outputs and persistent state".  NULL: true.
 * core/workload_types.c; tests/unit/test_ops.c checks it against the table.
 */
bool workload_type_holds_state(const char *type);

/* Index of the op named `name`, or -1. */
int32_t workload_find(const struct workload *w, const char *name);

/* The group name of op i (its own name when it has none). */
const char *workload_group(const struct workload *w, int32_t i);

/*
 * Checks what a loader must enforce beyond syntax (workload-format.md):
 * producers and ports exist, numbers finite and non-negative, at least one
 * op.  Acyclicity is checked by graph_build().  Messages name the file, line,
 * column and op.  Returns 0 or BAECHI_EPARSE.
 */
int workload_check(const struct workload *w);

/* "path:line:col" prefix for op i (or just the path / "<workload>"). */
void workload_where(const struct workload *w, int32_t line, int32_t col, char *buf, size_t size);

#endif
