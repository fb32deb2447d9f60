/*
 * onnx_shape_layout.c - shape inference of the operators that move or
 * select elements without arithmetic (see onnx_shape.h): Reshape, Flatten,
 * Transpose, Squeeze, Unsqueeze, Expand, Pad, Concat, Split, Slice,
 * Gather; with the known integer values they carry (shape arithmetic:
 * shape[i], shape[i:j], the concatenation of shape pieces).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/onnx_shape_internal.h"

#include "core/checked.h"

#include <string.h>

static int infer_reshape(const struct ox_infer *c)
{
    const Onnx__NodeProto *nd = c->nd;
    const struct ox_tensor *a = c->a, *b = c->b;
    struct ox_tensor *o = &c->out[0];

    int64_t total, prod = 1;
    int neg = -1;

    if (!a || a->rank < 0 || !b || b->nval <= 0 || b->nval > OX_MAX_RANK) {
        return 0;
    }
    total = onnx_elems(a);
    o->rank = b->nval;
    o->elem = a->elem;
    for (int i = 0; i < b->nval; i++) {
        int64_t v = b->val[i];

        if (v == 0 && onnx_attr_i(nd, "allowzero", 0) == 0) {
            v = i < a->rank ? a->dim[i] : 1;
        }
        if (v == -1 && neg < 0) {
            neg = i;
            v = 1;
        } else if (v < 0) {
            return onnx_infer_error(c, "shape value %lld at position %d (only one -1 allowed)",
                                    (long long)b->val[i], i);
        }
        o->dim[i] = v;
        if (checked_mul_i64(prod, v, &prod)) {
            return onnx_infer_error(c, "the product of the target shape overflows 64 bits");
        }
    }
    if (neg >= 0) {
        o->dim[neg] = prod > 0 ? total / prod : 0;
    }
    return 0;
}

static int infer_flatten(const struct ox_infer *c)
{
    const struct ox_tensor *a = c->a;
    struct ox_tensor *o = &c->out[0];
    int rc;

    if (a && a->rank >= 0) {
        int ax;
        int64_t p0 = 1, p1 = 1;

        if ((rc = onnx_axis_attr(c, 1, a->rank, 1, &ax))) {
            return rc;
        }
        /* cannot overflow: onnx_check_shape bounds the product of any dims */
        for (int i = 0; i < a->rank; i++) {
            if (i < ax) {
                p0 *= a->dim[i];
            } else {
                p1 *= a->dim[i];
            }
        }
        o->rank = 2;
        o->dim[0] = p0;
        o->dim[1] = p1;
    }
    return 0;
}

static int infer_transpose(const struct ox_infer *c)
{
    const Onnx__NodeProto *nd = c->nd;
    const struct ox_tensor *a = c->a;
    struct ox_tensor *o = &c->out[0];
    int64_t ints[OX_MAX_RANK * 2];

    if (a && a->rank >= 0) {
        int n = onnx_attr_ints(nd, "perm", ints, OX_MAX_RANK);
        bool seen[OX_MAX_RANK] = {false};

        if (n >= 0 && n != a->rank) {
            return onnx_infer_error(c, "perm has %d values for an input of rank %d", n, a->rank);
        }
        o->rank = a->rank;
        for (int i = 0; i < a->rank; i++) {
            int64_t src = n >= 0 ? ints[i] : a->rank - 1 - i;

            if (src < 0 || src >= a->rank || seen[src]) {
                return onnx_infer_error(c, "perm is not a permutation of 0 to %d (value %lld)",
                                        a->rank - 1, (long long)src);
            }
            seen[src] = true;
            o->dim[i] = a->dim[src];
        }
    }
    return 0;
}

/* Squeeze, Unsqueeze */
static int infer_squeeze(const struct ox_infer *c)
{
    const char *op = c->op;
    const Onnx__NodeProto *nd = c->nd;
    const struct ox_tensor *a = c->a, *b = c->b;
    struct ox_tensor *o = &c->out[0];
    int64_t ints[OX_MAX_RANK * 2];
    int n = onnx_attr_ints(nd, "axes", ints, OX_MAX_RANK);
    bool sq = op[0] == 'S', mark[2 * OX_MAX_RANK] = {false};
    int r, rc;

    if (!a || a->rank < 0) {
        return 0;
    }
    if (n < 0 && b && b->nval > 0) {
        n = b->nval;
        memcpy(ints, b->val, sizeof(int64_t) * (size_t)n);
    }
    r = sq ? a->rank : a->rank + (n > 0 ? n : 0);
    if (r > OX_MAX_RANK) {
        return 0;
    }
    for (int i = 0; i < n; i++) {
        int ax;

        if ((rc = onnx_norm_axis(c, "axes value", ints[i], r, 0, &ax))) {
            return rc;
        }
        if (mark[ax]) {
            return onnx_infer_error(c, "axes value %lld repeats axis %d", (long long)ints[i], ax);
        }
        mark[ax] = true;
    }
    o->rank = 0;
    if (sq) {
        for (int i = 0; i < a->rank; i++) {
            if (!(n < 0 ? a->dim[i] == 1 : mark[i])) {
                o->dim[o->rank++] = a->dim[i];
            }
        }
    } else {
        for (int i = 0, j = 0; i < r; i++) {
            o->dim[o->rank++] = mark[i] ? 1 : a->dim[j++];
        }
    }
    if (a->nval == onnx_elems(a)) {
        o->nval = a->nval;
        memcpy(o->val, a->val, sizeof(o->val));
    }
    return 0;
}

static int infer_expand(const struct ox_infer *c)
{
    const struct ox_tensor *a = c->a, *b = c->b;
    struct ox_tensor *o = &c->out[0];

    struct ox_tensor s;

    if (a && b && b->nval > 0 && b->nval <= OX_MAX_RANK) {
        memset(&s, 0, sizeof(s));
        s.rank = b->nval;
        memcpy(s.dim, b->val, sizeof(int64_t) * (size_t)b->nval);
        if (onnx_broadcast(o, a, &s)) {
            o->elem = a->elem;
        }
    }
    return 0;
}

static int infer_pad(const struct ox_infer *c)
{
    const Onnx__NodeProto *nd = c->nd;
    const struct ox_tensor *a = c->a, *b = c->b;
    struct ox_tensor *o = &c->out[0];

    int64_t pads[2 * OX_MAX_RANK];
    int n;

    if (!a || a->rank < 0) {
        return 0;
    }
    n = onnx_attr_ints(nd, "pads", pads, 2 * OX_MAX_RANK);
    if (n < 0 && b && b->nval == 2 * a->rank) {
        n = b->nval;
        memcpy(pads, b->val, sizeof(int64_t) * (size_t)n);
    }
    if (n != 2 * a->rank) {
        return 0;
    }
    *o = *a;
    o->nval = 0;
    /* ONNX: negative pads remove elements, down to an empty axis at most */
    for (int i = 0; i < a->rank; i++) {
        if (checked_add_i64(a->dim[i], pads[i], &o->dim[i]) ||
            checked_add_i64(o->dim[i], pads[a->rank + i], &o->dim[i])) {
            return onnx_infer_error(c, "axis %d: size %lld + pads %lld and %lld overflows 64 bits",
                                    i, (long long)a->dim[i], (long long)pads[i],
                                    (long long)pads[a->rank + i]);
        }
        if (o->dim[i] < 0) {
            return onnx_infer_error(c, "axis %d: pads %lld and %lld remove more than its size %lld",
                                    i, (long long)pads[i], (long long)pads[a->rank + i],
                                    (long long)a->dim[i]);
        }
    }
    return 0;
}

static int infer_concat(const struct ox_infer *c)
{
    const struct ox_tensor *a = c->a;
    struct ox_tensor **in = c->in, *o = &c->out[0];
    int n_in = c->n_in;
    int ax, rc;

    if (!a || a->rank < 0) {
        return 0;
    }
    if ((rc = onnx_axis_attr(c, 0, a->rank, 0, &ax))) {
        return rc;
    }
    *o = *a;
    o->nval = 0;
    o->dim[ax] = 0;
    for (int i = 0; i < n_in; i++) {
        if (!in[i] || in[i]->rank != a->rank) {
            o->rank = -1;
            return 0;
        }
        if (checked_add_i64(o->dim[ax], in[i]->dim[ax], &o->dim[ax])) {
            return onnx_infer_error(c, "the concatenated size along axis %d overflows 64 bits", ax);
        }
    }
    if (a->rank == 1) { /* shape arithmetic: keep constant values */
        int nv = 0;

        for (int i = 0; i < n_in && nv >= 0; i++) {
            if (in[i]->nval != in[i]->dim[0] || nv + in[i]->nval > OX_MAX_VAL) {
                nv = -1;
                break;
            }
            memcpy(o->val + nv, in[i]->val, sizeof(int64_t) * (size_t)in[i]->nval);
            nv += in[i]->nval;
        }
        o->nval = nv > 0 ? nv : 0;
    }
    return 0;
}

static int infer_split(const struct ox_infer *c)
{
    const Onnx__NodeProto *nd = c->nd;
    const struct ox_tensor *a = c->a, *b = c->b;
    struct ox_tensor *out = c->out;
    int n_out = c->n_out;
    int64_t parts[OX_MAX_VAL];
    int ax, n, rc;

    if (!a || a->rank < 0 || n_out > OX_MAX_VAL) {
        return 0;
    }
    if ((rc = onnx_axis_attr(c, 0, a->rank, 0, &ax))) {
        return rc;
    }
    n = onnx_attr_ints(nd, "split", parts, OX_MAX_VAL);
    if (n < 0 && b && b->nval == n_out) {
        n = b->nval;
        memcpy(parts, b->val, sizeof(int64_t) * (size_t)n);
    }
    for (int j = 0; j < n && n == n_out; j++) {
        if (parts[j] < 0) {
            return onnx_infer_error(c, "split size %lld of output %d is negative",
                                    (long long)parts[j], j);
        }
    }
    for (int j = 0; j < n_out; j++) {
        out[j] = *a;
        out[j].nval = 0;
        out[j].dim[ax] = n == n_out ? parts[j] : a->dim[ax] / n_out;
    }
    return 0;
}

static int infer_slice(const struct ox_infer *c)
{
    const struct ox_tensor *a = c->a;
    struct ox_tensor **in = c->in, *o = &c->out[0];
    int n_in = c->n_in;
    int rc;

    if (!a || a->rank < 0 || n_in < 3 || !in[1] || !in[2] || in[1]->nval <= 0 ||
        in[2]->nval != in[1]->nval) {
        return 0;
    }
    *o = *a;
    o->nval = 0;
    for (int i = 0; i < in[1]->nval; i++) {
        int64_t step = n_in > 4 && in[4] && in[4]->nval == in[1]->nval ? in[4]->val[i] : 1;
        int64_t dimv, st, en;
        int ax = i;

        if (n_in > 3 && in[3] && in[3]->nval == in[1]->nval) {
            if ((rc = onnx_norm_axis(c, "axes value", in[3]->val[i], a->rank, 0, &ax))) {
                return rc;
            }
        } else if (i >= a->rank) {
            return onnx_infer_error(c, "%d starts for an input of rank %d", in[1]->nval, a->rank);
        }
        if (step == 0) {
            return onnx_infer_error(c, "step 0 along axis %d", ax);
        }
        dimv = a->dim[ax];
        st = in[1]->val[i] < 0 ? in[1]->val[i] + dimv : in[1]->val[i];
        en = in[2]->val[i] < 0 ? in[2]->val[i] + dimv : in[2]->val[i];
        st = st < 0 ? 0 : (st > dimv ? dimv : st);
        en = en < 0 ? (step < 0 ? -1 : 0) : (en > dimv ? dimv : en);
        /* the count of start + k*step in range; no intermediate beyond
         * the dims (a step of INT64_MIN has no negation) */
        if (step > 0) {
            o->dim[ax] = en > st ? (en - st - 1) / step + 1 : 0;
        } else {
            int64_t ns = step == INT64_MIN ? INT64_MAX : -step;

            o->dim[ax] = st > en ? (st - en - 1) / ns + 1 : 0;
        }
        if (onnx_all_known(a) && a->rank == 1 && step > 0 && o->dim[0] > 0) { /* shape[i:j:k] */
            for (int64_t k = 0; k < o->dim[0]; k++) {
                o->val[k] = a->val[st + k * step];
            }
            o->nval = (int)o->dim[0];
        }
    }
    return 0;
}

static int infer_gather(const struct ox_infer *c)
{
    const struct ox_tensor *a = c->a, *b = c->b;
    struct ox_tensor *o = &c->out[0];
    int ax, rc;

    if (!a || !b || a->rank < 0 || b->rank < 0 || a->rank + b->rank - 1 > OX_MAX_RANK) {
        return 0;
    }
    if ((rc = onnx_axis_attr(c, 0, a->rank, 0, &ax))) {
        return rc;
    }
    o->rank = 0;
    for (int i = 0; i < ax; i++) {
        o->dim[o->rank++] = a->dim[i];
    }
    for (int i = 0; i < b->rank; i++) {
        o->dim[o->rank++] = b->dim[i];
    }
    for (int i = ax + 1; i < a->rank; i++) {
        o->dim[o->rank++] = a->dim[i];
    }
    o->elem = a->elem;
    if (onnx_all_known(a) && onnx_all_known(b) && a->rank == 1) { /* shape[i], shape[[i, j]] */
        for (int k = 0; k < b->nval; k++) {
            int64_t i = b->val[k] < 0 ? b->val[k] + a->nval : b->val[k];

            if (i < 0 || i >= a->nval) {
                return 0;
            }
            o->val[k] = a->val[i];
        }
        o->nval = b->nval;
    }
    return 0;
}

onnx_infer_fn onnx_shape_layout_find(const char *op)
{
    static const struct {
        const char *op;
        onnx_infer_fn fn;
    } ops[] = {
        {"Reshape", infer_reshape}, {"Flatten", infer_flatten},   {"Transpose", infer_transpose},
        {"Squeeze", infer_squeeze}, {"Unsqueeze", infer_squeeze}, {"Expand", infer_expand},
        {"Pad", infer_pad},         {"Concat", infer_concat},     {"Split", infer_split},
        {"Slice", infer_slice},     {"Gather", infer_gather},
    };

    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        if (strcmp(op, ops[i].op) == 0) {
            return ops[i].fn;
        }
    }
    return NULL;
}
