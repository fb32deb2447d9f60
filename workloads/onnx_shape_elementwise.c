/*
 * onnx_shape_elementwise.c - shape inference and FLOPs of the operators
 * that make one pass over their elements (see onnx_shape.h): the unary
 * ones (OPS_UNARY in workloads/ops.c: activations, Cast, Identity, Dropout,
 * the normalizations, Softmax, ...), the broadcasting n-ary ones (OPS_BINARY:
 * Add, Mul, the comparisons, Where, ...; with the shape arithmetic
 * of Add, Sub, Mul and Div on known integer values) and the reductions
 * (Reduce*).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/onnx_shape_internal.h"

#include "core/checked.h"
#include "workloads/ops.h"

#include <string.h>

/*
 * Shape arithmetic: Add, Sub, Mul, Div of integer tensors whose values are
 * known (a scalar broadcast against a vector, or two of one length) into
 * o->val.  Integer Div truncates (ONNX follows C); a division by zero or an
 * overflow leaves the values unknown.
 */
static void fold_arith(const char *op, const struct ox_tensor *a, const struct ox_tensor *b,
                       int n_in, struct ox_tensor *o)
{
    int n;

    if (n_in != 2 || !onnx_all_known(a) || !onnx_all_known(b) || a->elem < 4 ||
        onnx_elems(o) > OX_MAX_VAL || (a->nval != b->nval && a->nval != 1 && b->nval != 1)) {
        return;
    }
    n = a->nval > b->nval ? a->nval : b->nval;
    if (n != onnx_elems(o)) {
        return;
    }
    for (int i = 0; i < n; i++) {
        int64_t u = a->val[a->nval == 1 ? 0 : i], v = b->val[b->nval == 1 ? 0 : i], r;
        bool of;

        switch (op[0]) {
        case 'A':
            of = strcmp(op, "Add") != 0 || checked_add_i64(u, v, &r);
            break;
        case 'S':
            of = strcmp(op, "Sub") != 0 || __builtin_sub_overflow(u, v, &r);
            break;
        case 'M':
            of = strcmp(op, "Mul") != 0 || checked_mul_i64(u, v, &r);
            break;
        case 'D':
            of = strcmp(op, "Div") != 0 || v == 0 || (u == INT64_MIN && v == -1);
            r = of ? 0 : u / v;
            break;
        default:
            of = true;
        }
        if (of) {
            return;
        }
        o->val[i] = r;
    }
    o->nval = n;
}

/* OPS_UNARY */
static int infer_unary(const struct ox_infer *c)
{
    const char *op = c->op;
    const Onnx__NodeProto *nd = c->nd;
    const struct ox_tensor *a = c->a;
    struct ox_tensor *out = c->out, *o = &out[0];
    int n_out = c->n_out;
    int rc;

    if (a && a->rank >= 0) {
        int ax;

        if ((strstr(op, "Softmax") || strcmp(op, "LayerNormalization") == 0) &&
            (rc = onnx_axis_attr(c, -1, a->rank, 0, &ax))) {
            return rc;
        }
        *o = *a;
        o->nval = 0;
        if (strcmp(op, "Cast") == 0 || strcmp(op, "Identity") == 0) {
            int32_t to = (int32_t)onnx_attr_i(nd, "to", 1);

            if (strcmp(op, "Cast") == 0) {
                o->elem = onnx_elem_size(to);
            }
            /* integer values only: arithmetic on them is integer */
            if (strcmp(op, "Identity") == 0 ||
                !(to == 1 || to == 10 || to == 11 || to == 16 || to == 9)) {
                o->nval = a->nval;
                memcpy(o->val, a->val, sizeof(o->val));
            }
        }
        if (strcmp(op, "Identity") != 0 && strcmp(op, "Dropout") != 0 && strcmp(op, "Cast") != 0) {
            bool norm = strstr(op, "Normalization") != NULL;

            *c->flops = (norm || strstr(op, "Softmax") ? 5.0 : 1.0) * (double)onnx_elems(o);
        }
        for (int j = 1; j < n_out; j++) {
            if (strcmp(op, "BatchNormalization") == 0) {
                out[j].rank = 1;
                out[j].dim[0] = a->rank > 1 ? a->dim[1] : 1;
                out[j].elem = a->elem;
            } else {
                out[j] = *o;
                out[j].elem = strcmp(op, "Dropout") == 0 ? 1 : a->elem;
            }
        }
    }
    return 0;
}

/* OPS_BINARY */
static int infer_binary(const struct ox_infer *c)
{
    const char *op = c->op;
    const struct ox_tensor *a = c->a, *b = c->b;
    struct ox_tensor **in = c->in, *o = &c->out[0];
    struct ox_tensor acc;
    int n_in = c->n_in;
    bool ok = true;

    if (!a) {
        return 0;
    }
    acc = *a;
    for (int i = 1; i < n_in && ok; i++) {
        struct ox_tensor r;

        r = acc;
        ok = in[i] && onnx_broadcast(&r, &acc, in[i]);
        acc = r;
    }
    if (ok && acc.rank >= 0) {
        int el = strcmp(op, "Where") == 0 && n_in > 1 ? in[1]->elem : a->elem;

        *o = acc;
        o->nval = 0;
        o->elem = el;
        if (strstr(op, "Equal") || strstr(op, "Less") || strstr(op, "Greater") ||
            strcmp(op, "And") == 0 || strcmp(op, "Or") == 0 || strcmp(op, "Xor") == 0) {
            o->elem = 1;
        }
        *c->flops = (double)onnx_elems(o) * (n_in > 2 ? n_in - 1 : 1);
        fold_arith(op, a, b, n_in, o);
    }
    return 0;
}

/* ReduceSum, ReduceMean, ReduceMax, ... (any Reduce*) */
static int infer_reduce(const struct ox_infer *c)
{
    const Onnx__NodeProto *nd = c->nd;
    const struct ox_tensor *a = c->a;
    struct ox_tensor **in = c->in, *o = &c->out[0];
    int n_in = c->n_in;
    int64_t ints[OX_MAX_RANK * 2];
    int rc;

    if (a && a->rank >= 0) {
        int n = onnx_attr_ints(nd, "axes", ints, OX_MAX_RANK);
        bool keep = onnx_attr_i(nd, "keepdims", 1) != 0, red[OX_MAX_RANK] = {false};

        if (n < 0 && n_in > 1 && in[1] && in[1]->nval > 0) {
            n = in[1]->nval;
            memcpy(ints, in[1]->val, sizeof(int64_t) * (size_t)n);
        }
        for (int i = 0; i < a->rank; i++) {
            red[i] = n < 0;
        }
        for (int i = 0; i < n; i++) {
            int ax;

            if ((rc = onnx_norm_axis(c, "axes value", ints[i], a->rank, 0, &ax))) {
                return rc;
            }
            red[ax] = true;
        }
        o->rank = 0;
        for (int i = 0; i < a->rank; i++) {
            if (!red[i]) {
                o->dim[o->rank++] = a->dim[i];
            } else if (keep) {
                o->dim[o->rank++] = 1;
            }
        }
        *c->flops = (double)onnx_elems(a);
    }
    return 0;
}

onnx_infer_fn onnx_shape_elementwise_find(const char *op)
{
    if (ops_is_elementwise_unary(op)) {
        return infer_unary;
    }
    if (ops_is_elementwise_binary(op)) {
        return infer_binary;
    }
    if (strncmp(op, "Reduce", 6) == 0) {
        return infer_reduce;
    }
    return NULL;
}
