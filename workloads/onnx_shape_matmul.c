/*
 * onnx_shape_matmul.c - shape inference and FLOPs of the matrix products:
 * Gemm, MatMul (see onnx_shape.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/onnx_shape_internal.h"

#include <string.h>

static int infer_gemm(const struct ox_infer *c)
{
    const Onnx__NodeProto *nd = c->nd;
    const struct ox_tensor *a = c->a, *b = c->b;
    struct ox_tensor *o = &c->out[0];

    if (a && b && a->rank == 2 && b->rank == 2) {
        int64_t m = onnx_attr_i(nd, "transA", 0) ? a->dim[1] : a->dim[0];
        int64_t kk = onnx_attr_i(nd, "transA", 0) ? a->dim[0] : a->dim[1];
        int64_t n = onnx_attr_i(nd, "transB", 0) ? b->dim[0] : b->dim[1];

        o->rank = 2;
        o->dim[0] = m;
        o->dim[1] = n;
        *c->flops =
            2.0 * (double)m * (double)n * (double)kk + (c->n_in > 2 ? (double)m * (double)n : 0);
    }
    return 0;
}

static int infer_matmul(const struct ox_infer *c)
{
    const struct ox_tensor *a = c->a, *b = c->b;
    struct ox_tensor *o = &c->out[0];

    if (a && b && a->rank >= 1 && b->rank >= 1) {
        struct ox_tensor ba = *a, bb = *b;
        int64_t kk = a->dim[a->rank - 1];

        /* batch dims broadcast; 1-D operands promoted and squeezed */
        if (a->rank >= 2 && b->rank >= 2) {
            ba.rank = a->rank - 2;
            bb.rank = b->rank - 2;
            onnx_broadcast(o, &ba, &bb);
            o->dim[o->rank++] = a->dim[a->rank - 2];
            o->dim[o->rank++] = b->dim[b->rank - 1];
        } else if (b->rank == 1) {
            *o = *a;
            o->rank = a->rank - 1;
        } else {
            *o = *b;
            o->dim[b->rank - 2] = b->dim[b->rank - 1];
            o->rank = b->rank - 1;
        }
        o->elem = a->elem;
        o->act = false;
        o->nval = 0;
        *c->flops = 2.0 * (double)onnx_elems(o) * (double)kk;
    }
    return 0;
}

onnx_infer_fn onnx_shape_matmul_find(const char *op)
{
    if (strcmp(op, "Gemm") == 0) {
        return infer_gemm;
    }
    if (strcmp(op, "MatMul") == 0) {
        return infer_matmul;
    }
    return NULL;
}
