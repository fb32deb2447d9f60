/*
 * onnx_shape.c - shape inference and FLOP counts of the common ONNX
 * operators (see onnx_shape.h), so that an export without value_info still
 * gets tensor sizes and op costs.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/onnx_shape.h"

#include <stdio.h>
#include <string.h>

/* Integer values of a small int32/int64 tensor, when present. */
void onnx_tensor_values(struct ox_tensor *t, const Onnx__TensorProto *tp)
{
    int64_t n = onnx_elems(t);

    t->nval = 0;
    if (n > OX_MAX_VAL || t->rank < 0) {
        return;
    }
    if (tp->data_type == 7 && tp->n_int64_data == (size_t)n) {
        for (int64_t i = 0; i < n; i++) {
            t->val[i] = tp->int64_data[i];
        }
        t->nval = (int)n;
    } else if (tp->data_type == 6 && tp->n_int32_data == (size_t)n) {
        for (int64_t i = 0; i < n; i++) {
            t->val[i] = tp->int32_data[i];
        }
        t->nval = (int)n;
    } else if ((tp->data_type == 7 || tp->data_type == 6) && tp->has_raw_data &&
               tp->raw_data.len == (size_t)n * (tp->data_type == 7 ? 8 : 4)) {
        for (int64_t i = 0; i < n; i++) {
            if (tp->data_type == 7) {
                int64_t v;

                memcpy(&v, tp->raw_data.data + 8 * i, 8);
                t->val[i] = v;
            } else {
                int32_t v;

                memcpy(&v, tp->raw_data.data + 4 * i, 4);
                t->val[i] = v;
            }
        }
        t->nval = (int)n;
    }
    if (n == 0) {
        t->nval = 0;
    }
}

static const Onnx__AttributeProto *attr(const Onnx__NodeProto *nd, const char *name)
{
    for (size_t i = 0; i < nd->n_attribute; i++) {
        if (nd->attribute[i]->name && strcmp(nd->attribute[i]->name, name) == 0) {
            return nd->attribute[i];
        }
    }
    return NULL;
}

static int64_t attr_i(const Onnx__NodeProto *nd, const char *name, int64_t def)
{
    const Onnx__AttributeProto *a = attr(nd, name);

    return a && a->has_i ? a->i : def;
}

/* The ints of attribute `name` into out[0..max); count, or -1 when absent. */
static int attr_ints(const Onnx__NodeProto *nd, const char *name, int64_t *out, int max)
{
    const Onnx__AttributeProto *a = attr(nd, name);

    if (!a) {
        return -1;
    }
    for (size_t i = 0; i < a->n_ints && (int)i < max; i++) {
        out[i] = a->ints[i];
    }
    return (int)(a->n_ints < (size_t)max ? a->n_ints : (size_t)max);
}

static bool is_op(const char *type, const char *const *list)
{
    for (int i = 0; list[i]; i++) {
        if (strcmp(type, list[i]) == 0) {
            return true;
        }
    }
    return false;
}

static const char *const unary_ops[] = {
    "Relu",
    "Sigmoid",
    "Tanh",
    "Erf",
    "Sqrt",
    "Exp",
    "Log",
    "Neg",
    "Abs",
    "Reciprocal",
    "Identity",
    "Dropout",
    "Softmax",
    "LogSoftmax",
    "Clip",
    "LeakyRelu",
    "Elu",
    "Selu",
    "HardSigmoid",
    "HardSwish",
    "Gelu",
    "Not",
    "Floor",
    "Ceil",
    "Sign",
    "Sin",
    "Cos",
    "Cast",
    "BatchNormalization",
    "LayerNormalization",
    "InstanceNormalization",
    "Softplus",
    "Mish",
    "IsNaN",
    "CumSum",
    NULL,
};
static const char *const binary_ops[] = {
    "Add", "Sub",  "Mul",   "Div",  "Pow",     "Max",         "Min",
    "Sum", "Mean", "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual",
    "And", "Or",   "Xor",   "Mod",  "PRelu",   "Where",       NULL,
};

static int norm_axis(int64_t axis, int rank)
{
    return (int)(axis < 0 ? axis + rank : axis);
}

static bool broadcast(struct ox_tensor *o, const struct ox_tensor *a, const struct ox_tensor *b)
{
    int r = a->rank > b->rank ? a->rank : b->rank;

    if (a->rank < 0 || b->rank < 0) {
        return false;
    }
    for (int i = 0; i < r; i++) {
        int ia = i - (r - a->rank), ib = i - (r - b->rank);
        int64_t da = ia >= 0 ? a->dim[ia] : 1, db = ib >= 0 ? b->dim[ib] : 1;

        o->dim[i] = da == 1 ? db : da;
    }
    o->rank = r;
    return true;
}

/* Output spatial size of a conv / pool along one axis. */
static int64_t window_out(int64_t in, int64_t k, int64_t s, int64_t pb, int64_t pe, int64_t d,
                          bool ceil_mode, const char *auto_pad)
{
    int64_t eff = d * (k - 1) + 1;

    if (auto_pad && (strcmp(auto_pad, "SAME_UPPER") == 0 || strcmp(auto_pad, "SAME_LOWER") == 0)) {
        return (in + s - 1) / s;
    }
    if (auto_pad && strcmp(auto_pad, "VALID") == 0) {
        return (in - eff) / s + 1;
    }
    if (ceil_mode) {
        return (in + pb + pe - eff + s - 1) / s + 1;
    }
    return (in + pb + pe - eff) / s + 1;
}

static const char *attr_s(const Onnx__NodeProto *nd, const char *name, char *buf, size_t size)
{
    const Onnx__AttributeProto *a = attr(nd, name);

    if (!a || !a->has_s) {
        return NULL;
    }
    snprintf(buf, size, "%.*s", (int)a->s.len, (const char *)a->s.data);
    return buf;
}

bool onnx_infer(const Onnx__NodeProto *nd, struct ox_tensor **in, int n_in, struct ox_tensor *out,
                int n_out, double *flops)
{
    const char *op = nd->op_type;
    const struct ox_tensor *a = n_in > 0 ? in[0] : NULL, *b = n_in > 1 ? in[1] : NULL;
    struct ox_tensor *o = &out[0];
    char pad[32];
    int64_t ints[OX_MAX_RANK * 2];
    bool known = true;

    *flops = 0;
    if (n_out == 0) {
        return true;
    }
    if (a) {
        o->elem = a->elem;
    }
    if (strcmp(op, "Conv") == 0 || strcmp(op, "MaxPool") == 0 || strcmp(op, "AveragePool") == 0) {
        bool conv = op[0] == 'C';
        int64_t k[OX_MAX_RANK], s[OX_MAX_RANK], d[OX_MAX_RANK], p[2 * OX_MAX_RANK];
        int sp;

        if (!a || a->rank < 3 || (conv && (!b || b->rank != a->rank))) {
            return true;
        }
        sp = a->rank - 2;
        for (int i = 0; i < sp; i++) {
            k[i] = conv ? b->dim[2 + i] : 1;
            s[i] = d[i] = 1;
            p[i] = p[sp + i] = 0;
        }
        attr_ints(nd, "kernel_shape", k, sp);
        attr_ints(nd, "strides", s, sp);
        attr_ints(nd, "dilations", d, sp);
        attr_ints(nd, "pads", p, 2 * sp);
        o->rank = a->rank;
        o->dim[0] = a->dim[0];
        o->dim[1] = conv ? b->dim[0] : a->dim[1];
        for (int i = 0; i < sp; i++) {
            o->dim[2 + i] = window_out(a->dim[2 + i], k[i], s[i] > 0 ? s[i] : 1, p[i], p[sp + i],
                                       d[i], attr_i(nd, "ceil_mode", 0) != 0,
                                       attr_s(nd, "auto_pad", pad, sizeof(pad)));
        }
        if (conv) {
            double kk = 1;

            for (int i = 1; i < b->rank; i++) {
                kk *= (double)b->dim[i];
            }
            *flops = 2.0 * (double)onnx_elems(o) * kk + (n_in > 2 ? (double)onnx_elems(o) : 0);
        } else {
            double kk = 1;

            for (int i = 0; i < sp; i++) {
                kk *= (double)k[i];
            }
            *flops = (double)onnx_elems(o) * kk;
        }
        for (int j = 1; j < n_out; j++) { /* MaxPool indices */
            out[j] = *o;
            out[j].elem = 8;
        }
        return true;
    }
    if (strcmp(op, "GlobalAveragePool") == 0 || strcmp(op, "GlobalMaxPool") == 0) {
        if (a && a->rank >= 3) {
            *o = *a;
            for (int i = 2; i < a->rank; i++) {
                o->dim[i] = 1;
            }
            *flops = (double)onnx_elems(a);
        }
        return true;
    }
    if (strcmp(op, "Gemm") == 0) {
        if (a && b && a->rank == 2 && b->rank == 2) {
            int64_t m = attr_i(nd, "transA", 0) ? a->dim[1] : a->dim[0];
            int64_t kk = attr_i(nd, "transA", 0) ? a->dim[0] : a->dim[1];
            int64_t n = attr_i(nd, "transB", 0) ? b->dim[0] : b->dim[1];

            o->rank = 2;
            o->dim[0] = m;
            o->dim[1] = n;
            *flops = 2.0 * (double)m * (double)n * (double)kk + (n_in > 2 ? (double)(m * n) : 0);
        }
        return true;
    }
    if (strcmp(op, "MatMul") == 0) {
        if (a && b && a->rank >= 1 && b->rank >= 1) {
            struct ox_tensor ba = *a, bb = *b;
            int64_t kk = a->dim[a->rank - 1];

            /* batch dims broadcast; 1-D operands promoted and squeezed */
            if (a->rank >= 2 && b->rank >= 2) {
                ba.rank = a->rank - 2;
                bb.rank = b->rank - 2;
                broadcast(o, &ba, &bb);
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
            *flops = 2.0 * (double)onnx_elems(o) * (double)kk;
        }
        return true;
    }
    if (is_op(op, unary_ops)) {
        if (a && a->rank >= 0) {
            *o = *a;
            o->nval = 0;
            if (strcmp(op, "Cast") == 0) {
                o->elem = onnx_elem_size((int32_t)attr_i(nd, "to", 1));
                o->nval = a->nval;
                memcpy(o->val, a->val, sizeof(o->val));
            }
            if (strcmp(op, "Identity") != 0 && strcmp(op, "Dropout") != 0 &&
                strcmp(op, "Cast") != 0) {
                bool norm = strstr(op, "Normalization") != NULL;

                *flops = (norm || strstr(op, "Softmax") ? 5.0 : 1.0) * (double)onnx_elems(o);
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
        return true;
    }
    if (is_op(op, binary_ops)) {
        struct ox_tensor acc;

        if (!a) {
            return true;
        }
        acc = *a;
        for (int i = 1; i < n_in && known; i++) {
            struct ox_tensor r;

            r = acc;
            known = in[i] && broadcast(&r, &acc, in[i]);
            acc = r;
        }
        if (known && acc.rank >= 0) {
            int el = strcmp(op, "Where") == 0 && n_in > 1 ? in[1]->elem : a->elem;

            *o = acc;
            o->nval = 0;
            o->elem = el;
            if (strstr(op, "Equal") || strstr(op, "Less") || strstr(op, "Greater") ||
                strcmp(op, "And") == 0 || strcmp(op, "Or") == 0 || strcmp(op, "Xor") == 0) {
                o->elem = 1;
            }
            *flops = (double)onnx_elems(o) * (n_in > 2 ? n_in - 1 : 1);
        }
        return true;
    }
    if (strncmp(op, "Reduce", 6) == 0) {
        if (a && a->rank >= 0) {
            int n = attr_ints(nd, "axes", ints, OX_MAX_RANK);
            bool keep = attr_i(nd, "keepdims", 1) != 0, red[OX_MAX_RANK] = {false};

            if (n < 0 && n_in > 1 && in[1] && in[1]->nval > 0) {
                n = in[1]->nval;
                memcpy(ints, in[1]->val, sizeof(int64_t) * (size_t)n);
            }
            for (int i = 0; i < a->rank; i++) {
                red[i] = n < 0;
            }
            for (int i = 0; i < n; i++) {
                int ax = norm_axis(ints[i], a->rank);

                if (ax >= 0 && ax < a->rank) {
                    red[ax] = true;
                }
            }
            o->rank = 0;
            for (int i = 0; i < a->rank; i++) {
                if (!red[i]) {
                    o->dim[o->rank++] = a->dim[i];
                } else if (keep) {
                    o->dim[o->rank++] = 1;
                }
            }
            *flops = (double)onnx_elems(a);
        }
        return true;
    }
    if (strcmp(op, "Concat") == 0) {
        int ax;

        if (!a || a->rank < 0) {
            return true;
        }
        ax = norm_axis(attr_i(nd, "axis", 0), a->rank);
        *o = *a;
        o->nval = 0;
        o->dim[ax] = 0;
        for (int i = 0; i < n_in; i++) {
            if (!in[i] || in[i]->rank != a->rank) {
                o->rank = -1;
                return true;
            }
            o->dim[ax] += in[i]->dim[ax];
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
        return true;
    }
    if (strcmp(op, "Reshape") == 0) {
        int64_t total, prod = 1;
        int neg = -1;

        if (!a || a->rank < 0 || !b || b->nval <= 0 || b->nval > OX_MAX_RANK) {
            return true;
        }
        total = onnx_elems(a);
        o->rank = b->nval;
        o->elem = a->elem;
        for (int i = 0; i < b->nval; i++) {
            int64_t v = b->val[i];

            if (v == 0 && attr_i(nd, "allowzero", 0) == 0) {
                v = i < a->rank ? a->dim[i] : 1;
            }
            if (v == -1) {
                neg = i;
                v = 1;
            }
            o->dim[i] = v;
            prod *= v;
        }
        if (neg >= 0) {
            o->dim[neg] = prod > 0 ? total / prod : 0;
        }
        return true;
    }
    if (strcmp(op, "Flatten") == 0) {
        if (a && a->rank >= 0) {
            int ax = norm_axis(attr_i(nd, "axis", 1), a->rank);
            int64_t p0 = 1, p1 = 1;

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
        return true;
    }
    if (strcmp(op, "Transpose") == 0) {
        if (a && a->rank >= 0) {
            int n = attr_ints(nd, "perm", ints, OX_MAX_RANK);

            o->rank = a->rank;
            for (int i = 0; i < a->rank; i++) {
                int64_t src = n == a->rank ? ints[i] : a->rank - 1 - i;

                o->dim[i] = src >= 0 && src < a->rank ? a->dim[src] : 1;
            }
        }
        return true;
    }
    if (strcmp(op, "Squeeze") == 0 || strcmp(op, "Unsqueeze") == 0) {
        int n = attr_ints(nd, "axes", ints, OX_MAX_RANK);
        bool sq = op[0] == 'S', mark[2 * OX_MAX_RANK] = {false};
        int r;

        if (!a || a->rank < 0) {
            return true;
        }
        if (n < 0 && b && b->nval > 0) {
            n = b->nval;
            memcpy(ints, b->val, sizeof(int64_t) * (size_t)n);
        }
        r = sq ? a->rank : a->rank + (n > 0 ? n : 0);
        if (r > OX_MAX_RANK) {
            return true;
        }
        for (int i = 0; i < n; i++) {
            int ax = norm_axis(ints[i], r);

            if (ax >= 0 && ax < r) {
                mark[ax] = true;
            }
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
        return true;
    }
    if (strcmp(op, "Gather") == 0) {
        int ax;

        if (!a || !b || a->rank < 0 || b->rank < 0 || a->rank + b->rank - 1 > OX_MAX_RANK) {
            return true;
        }
        ax = norm_axis(attr_i(nd, "axis", 0), a->rank);
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
        if (a->nval > 0 && b->nval == 1 && a->rank == 1) { /* shape[i] */
            int64_t i = b->val[0] < 0 ? b->val[0] + a->nval : b->val[0];

            if (i >= 0 && i < a->nval) {
                o->nval = 1;
                o->val[0] = a->val[i];
            }
        }
        return true;
    }
    if (strcmp(op, "Split") == 0) {
        int64_t parts[OX_MAX_VAL];
        int ax, n;

        if (!a || a->rank < 0 || n_out > OX_MAX_VAL) {
            return true;
        }
        ax = norm_axis(attr_i(nd, "axis", 0), a->rank);
        n = attr_ints(nd, "split", parts, OX_MAX_VAL);
        if (n < 0 && b && b->nval == n_out) {
            n = b->nval;
            memcpy(parts, b->val, sizeof(int64_t) * (size_t)n);
        }
        for (int j = 0; j < n_out; j++) {
            out[j] = *a;
            out[j].nval = 0;
            out[j].dim[ax] = n == n_out ? parts[j] : a->dim[ax] / n_out;
        }
        return true;
    }
    if (strcmp(op, "Slice") == 0) {
        if (!a || a->rank < 0 || n_in < 3 || !in[1] || !in[2] || in[1]->nval <= 0 ||
            in[2]->nval != in[1]->nval) {
            return true;
        }
        *o = *a;
        o->nval = 0;
        for (int i = 0; i < in[1]->nval; i++) {
            int ax = n_in > 3 && in[3] && in[3]->nval == in[1]->nval
                         ? norm_axis(in[3]->val[i], a->rank)
                         : i;
            int64_t step = n_in > 4 && in[4] && in[4]->nval == in[1]->nval ? in[4]->val[i] : 1;
            int64_t dimv, st, en;

            if (ax < 0 || ax >= a->rank || step == 0) {
                continue;
            }
            dimv = a->dim[ax];
            st = in[1]->val[i] < 0 ? in[1]->val[i] + dimv : in[1]->val[i];
            en = in[2]->val[i] < 0 ? in[2]->val[i] + dimv : in[2]->val[i];
            st = st < 0 ? 0 : (st > dimv ? dimv : st);
            en = en < 0 ? (step < 0 ? -1 : 0) : (en > dimv ? dimv : en);
            o->dim[ax] = step > 0 ? (en > st ? (en - st + step - 1) / step : 0)
                                  : (st > en ? (st - en - step - 1) / -step : 0);
        }
        return true;
    }
    if (strcmp(op, "Pad") == 0) {
        int64_t pads[2 * OX_MAX_RANK];
        int n;

        if (!a || a->rank < 0) {
            return true;
        }
        n = attr_ints(nd, "pads", pads, 2 * OX_MAX_RANK);
        if (n < 0 && b && b->nval == 2 * a->rank) {
            n = b->nval;
            memcpy(pads, b->val, sizeof(int64_t) * (size_t)n);
        }
        if (n != 2 * a->rank) {
            return true;
        }
        *o = *a;
        o->nval = 0;
        for (int i = 0; i < a->rank; i++) {
            o->dim[i] = a->dim[i] + pads[i] + pads[a->rank + i];
        }
        return true;
    }
    if (strcmp(op, "Shape") == 0) {
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
        return true;
    }
    if (strcmp(op, "Expand") == 0) {
        struct ox_tensor s;

        if (a && b && b->nval > 0 && b->nval <= OX_MAX_RANK) {
            memset(&s, 0, sizeof(s));
            s.rank = b->nval;
            memcpy(s.dim, b->val, sizeof(int64_t) * (size_t)b->nval);
            if (broadcast(o, a, &s)) {
                o->elem = a->elem;
            }
        }
        return true;
    }
    if (strcmp(op, "ConstantOfShape") == 0) {
        if (a && a->nval > 0 && a->nval <= OX_MAX_RANK) {
            o->rank = a->nval;
            memcpy(o->dim, a->val, sizeof(int64_t) * (size_t)a->nval);
            o->elem = 4;
        }
        return true;
    }
    if (strcmp(op, "Constant") == 0) {
        const Onnx__AttributeProto *v = attr(nd, "value");

        if (v && v->t && v->t->n_dims <= OX_MAX_RANK) {
            o->rank = (int)v->t->n_dims;
            for (size_t i = 0; i < v->t->n_dims; i++) {
                o->dim[i] = v->t->dims[i];
            }
            o->elem = onnx_elem_size(v->t->data_type);
            onnx_tensor_values(o, v->t);
        } else if (attr(nd, "value_int") || attr(nd, "value_float")) {
            o->rank = 0;
            o->elem = attr(nd, "value_int") ? 8 : 4;
            if (attr(nd, "value_int")) {
                o->nval = 1;
                o->val[0] = attr_i(nd, "value_int", 0);
            }
        } else if (attr(nd, "value_ints")) {
            int n = attr_ints(nd, "value_ints", o->val, OX_MAX_VAL);

            o->rank = 1;
            o->dim[0] = n;
            o->nval = n;
            o->elem = 8;
        }
        return true;
    }
    return false;
}
