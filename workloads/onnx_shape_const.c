/*
 * onnx_shape_const.c - shape inference of the operators that make values
 * known at import time (see onnx_shape.h): Shape, Range, ConstantOfShape,
 * Constant.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/onnx_shape_internal.h"

#include <string.h>

static int infer_shape(const struct ox_infer *c)
{
    const struct ox_tensor *a = c->a;
    struct ox_tensor *o = &c->out[0];

    o->rank = 1;
    o->elem = 8;
    if (a && a->rank >= 0) {
        o->dim[0] = a->rank;
        o->nval = a->rank;
        memcpy(o->val, a->dim, sizeof(int64_t) * (size_t)a->rank);
    } else {
        o->rank = -1;
    }
    o->act = false;
    return 0;
}

static int infer_range(const struct ox_infer *c)
{
    struct ox_tensor **in = c->in, *o = &c->out[0];
    int n_in = c->n_in;
    int64_t st, lim, d, n;

    if (n_in < 3 || !onnx_all_known(in[0]) || !onnx_all_known(in[1]) || !onnx_all_known(in[2]) ||
        in[0]->nval != 1 || in[1]->nval != 1 || in[2]->nval != 1) {
        return 0;
    }
    st = in[0]->val[0];
    lim = in[1]->val[0];
    d = in[2]->val[0];
    if (d == 0) {
        return onnx_infer_error(c, "delta 0 (start %lld, limit %lld)", (long long)st,
                                (long long)lim);
    }
    /* max(ceil((limit - start) / delta), 0), without overflow */
    if (d > 0) {
        n = lim > st ? (int64_t)(((uint64_t)lim - (uint64_t)st - 1) / (uint64_t)d) + 1 : 0;
    } else {
        uint64_t md = (uint64_t)0 - (uint64_t)d;

        n = st > lim ? (int64_t)(((uint64_t)st - (uint64_t)lim - 1) / md) + 1 : 0;
    }
    o->rank = 1;
    o->dim[0] = n;
    o->elem = in[0]->elem;
    if (n > 0 && n <= OX_MAX_VAL) {
        for (int64_t k = 0; k < n; k++) {
            o->val[k] = st + k * d;
        }
        o->nval = (int)n;
    }
    *c->flops = (double)n;
    return 0;
}

static int infer_constant_of_shape(const struct ox_infer *c)
{
    const struct ox_tensor *a = c->a;
    struct ox_tensor *o = &c->out[0];

    if (a && a->nval > 0 && a->nval <= OX_MAX_RANK) {
        o->rank = a->nval;
        memcpy(o->dim, a->val, sizeof(int64_t) * (size_t)a->nval);
        o->elem = 4;
    }
    return 0;
}

static int infer_constant(const struct ox_infer *c)
{
    const Onnx__NodeProto *nd = c->nd;
    struct ox_tensor *o = &c->out[0];

    const Onnx__AttributeProto *v = onnx_attr(nd, "value");

    if (v && v->t && v->t->n_dims <= OX_MAX_RANK) {
        o->rank = (int)v->t->n_dims;
        for (size_t i = 0; i < v->t->n_dims; i++) {
            o->dim[i] = v->t->dims[i];
        }
        o->elem = onnx_elem_size(v->t->data_type);
        onnx_tensor_values(o, v->t);
    } else if (onnx_attr(nd, "value_int") || onnx_attr(nd, "value_float")) {
        o->rank = 0;
        o->elem = onnx_attr(nd, "value_int") ? 8 : 4;
        if (onnx_attr(nd, "value_int")) {
            o->nval = 1;
            o->val[0] = onnx_attr_i(nd, "value_int", 0);
        }
    } else if (onnx_attr(nd, "value_ints")) {
        int n = onnx_attr_ints(nd, "value_ints", o->val, OX_MAX_VAL);

        o->rank = 1;
        o->dim[0] = n;
        o->nval = n;
        o->elem = 8;
    }
    return 0;
}

onnx_infer_fn onnx_shape_const_find(const char *op)
{
    if (strcmp(op, "Shape") == 0) {
        return infer_shape;
    }
    if (strcmp(op, "Range") == 0) {
        return infer_range;
    }
    if (strcmp(op, "ConstantOfShape") == 0) {
        return infer_constant_of_shape;
    }
    if (strcmp(op, "Constant") == 0) {
        return infer_constant;
    }
    return NULL;
}
