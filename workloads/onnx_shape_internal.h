/*
 * onnx_shape_internal.h - what the shape inference's operator families
 * (onnx_shape_*.c) share: the node being inferred, the attribute and axis
 * helpers, and one lookup per family for onnx_infer()'s dispatcher
 * (onnx_shape.c).  Private to onnx_shape*.c.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_WORKLOADS_ONNX_SHAPE_INTERNAL_H
#define BAECHI_WORKLOADS_ONNX_SHAPE_INTERNAL_H

#include "workloads/onnx_shape.h"

#include "onnx.pb-c.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The node being inferred: onnx_infer()'s arguments. */
struct ox_infer {
    const char *file, *name, *op; /* for messages: "file: node 'name' (op): ..." */
    const Onnx__NodeProto *nd;
    struct ox_tensor **in; /* in[0..n_in); NULL for an omitted optional input */
    int n_in;
    const struct ox_tensor *a, *b; /* in[0], in[1]; NULL when absent */
    struct ox_tensor *out;         /* out[0..n_out), n_out >= 1; out[0].elem = a's when a */
    int n_out;
    double *flops; /* 0 on entry */
};

/*
 * Infers one operator: fills c->out and *c->flops as onnx_infer()
 * describes.  0, or BAECHI_EPARSE from onnx_infer_error().
 */
typedef int (*onnx_infer_fn)(const struct ox_infer *c);

/*
 * One family's lookup: the function of operator type `op`, NULL when `op`
 * is not of the family.  The families' operator sets are disjoint.
 */
onnx_infer_fn onnx_shape_conv_find(const char *op);        /* onnx_shape_conv.c */
onnx_infer_fn onnx_shape_matmul_find(const char *op);      /* onnx_shape_matmul.c */
onnx_infer_fn onnx_shape_rnn_find(const char *op);         /* onnx_shape_rnn.c */
onnx_infer_fn onnx_shape_elementwise_find(const char *op); /* onnx_shape_elementwise.c */
onnx_infer_fn onnx_shape_layout_find(const char *op);      /* onnx_shape_layout.c */
onnx_infer_fn onnx_shape_const_find(const char *op);       /* onnx_shape_const.c */

/* BAECHI_EPARSE with "file: node 'name' (op): " and the formatted text. */
int onnx_infer_error(const struct ox_infer *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Attribute `name` of nd, NULL when absent. */
const Onnx__AttributeProto *onnx_attr(const Onnx__NodeProto *nd, const char *name);

/* The int of attribute `name`, def when absent. */
int64_t onnx_attr_i(const Onnx__NodeProto *nd, const char *name, int64_t def);

/* The ints of attribute `name` into out[0..max); count, or -1 when absent. */
int onnx_attr_ints(const Onnx__NodeProto *nd, const char *name, int64_t *out, int max);

/* The string of attribute `name` into buf (cut to size), NULL when absent. */
const char *onnx_attr_s(const Onnx__NodeProto *nd, const char *name, char *buf, size_t size);

/*
 * An axis of a tensor of rank `rank`: ONNX allows [-rank, rank - 1 + extra]
 * (extra 1 for Flatten's axis, which may equal the rank), negative counting
 * from the end.  Anything else is an error naming the node and the rank.
 */
int onnx_norm_axis(const struct ox_infer *c, const char *what, int64_t axis, int rank, int extra,
                   int *out);

/* The "axis" attribute (default def), checked against rank. */
int onnx_axis_attr(const struct ox_infer *c, int64_t def, int rank, int extra, int *out);

/* o's shape from broadcasting a against b; false (o untouched) when a rank is unknown. */
bool onnx_broadcast(struct ox_tensor *o, const struct ox_tensor *a, const struct ox_tensor *b);

/* All values of t known (a small integer constant, shape arithmetic). */
bool onnx_all_known(const struct ox_tensor *t);

#endif
