/*
 * onnx_shape.h - what the ONNX importer knows of a tensor, and the
 * per-operator shape inference and FLOP counts (onnx_shape.c, which
 * dispatches to one file per operator family, onnx_shape_*.c) behind
 * onnx_import.c.  Internal to workloads/: the importer's manual is
 * onnx_import.h.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_WORKLOADS_ONNX_SHAPE_H
#define BAECHI_WORKLOADS_ONNX_SHAPE_H

#include "core/checked.h"
#include "onnx.pb-c.h"

#include <stdbool.h>
#include <stdint.h>

#define OX_MAX_RANK 8
#define OX_MAX_VAL  16

struct ox_tensor {
    const char *name;
    int32_t op, port; /* producer op in the workload; -1 = folded initializer */
    int rank;         /* -1 = unknown */
    int64_t dim[OX_MAX_RANK];
    int elem; /* bytes per element */
    bool act; /* depends on a graph input (scaled by the batch) */
    bool trainable;
    bool folded;   /* known at import time (a constant, shape arithmetic): no op */
    bool internal; /* inside a recognised pattern (one fused op), read by no one outside */
    int nval;      /* small integer constant: values known */
    int64_t val[OX_MAX_VAL];
    int32_t n_cons;
};

/* Bytes per element of an ONNX TensorProto.DataType (4 when unknown). */
static inline int onnx_elem_size(int32_t type)
{
    switch (type) {
    case 2:
    case 3:
    case 9:
        return 1;
    case 4:
    case 5:
    case 10:
    case 16:
        return 2;
    case 7:
    case 11:
    case 13:
    case 14:
        return 8;
    case 15:
        return 16;
    default:
        return 4;
    }
}

/*
 * Elements of t (1 when the rank is unknown).  Saturating, so that it is
 * defined on any dims; onnx_check_shape() rejects the shapes where it would
 * saturate before a size is used.
 */
static inline int64_t onnx_elems(const struct ox_tensor *t)
{
    int64_t n = 1;

    if (t->rank < 0) {
        return 1;
    }
    for (int i = 0; i < t->rank; i++) {
        n = sat_mul_i64(n, t->dim[i]);
    }
    return n;
}

/*
 * 0 when t's dims are all >= 0 and its size (elements x element size) is
 * at most 2^42 bytes (so that batch scaling up to 2^20 stays within int64);
 * else BAECHI_EPARSE: "file: what 'name' ...", with the dims.
 */
int onnx_check_shape(const struct ox_tensor *t, const char *file, const char *what);

/* t->val[] from a small int32/int64 TensorProto (shape already set), when present. */
void onnx_tensor_values(struct ox_tensor *t, const Onnx__TensorProto *tp);

/*
 * Own shape inference of node `nd` (called `name` in messages about `file`)
 * from its inputs in[0..n_in) (NULL for an omitted optional input): fills
 * out[0..n_out) (rank -1 when unknown, and small integer values where they
 * can be folded) and *flops (at batch 1, multiply-add = 2); *known is false
 * for an operator it does not know.  An attribute out of its range (an axis
 * beyond the rank, a stride, dilation or kernel size below 1, a negative
 * convolution pad, a Pad that leaves a negative size) or a dimension that
 * overflows 64 bits is BAECHI_EPARSE naming the node, the operator and the
 * values.
 */
int onnx_infer(const char *file, const char *name, const Onnx__NodeProto *nd, struct ox_tensor **in,
               int n_in, struct ox_tensor *out, int n_out, double *flops, bool *known);

#endif
