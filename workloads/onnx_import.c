/*
 * onnx_import.c - ONNX model -> workload (see onnx_import.h), with protobuf-c
 * code generated from Debian libonnx-dev's onnx.proto (mk/workloads.mk).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "onnx_import.h"

#include "onnx.pb-c.h"
#include "sim/array.h"
#include "sim/err.h"
#include "sim/strmap.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    int nval; /* small integer constant: values known */
    int64_t val[OX_MAX_VAL];
    int32_t n_cons;
};

struct ox {
    const char *file;
    struct workload *w;
    struct ox_tensor *t;
    size_t n_t, alloc_t;
    struct strpool pool;
    struct strmap by_name;
    int64_t batch; /* --batch, 0 = as exported */
    double scale;  /* batch / B0 */
    struct onnx_import_stats st;
    char warned[32][64]; /* operators already warned about */
    int n_warned;
};

static int elem_size(int32_t type)
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

static int64_t t_elems(const struct ox_tensor *t)
{
    int64_t n = 1;

    if (t->rank < 0) {
        return 1;
    }
    for (int i = 0; i < t->rank; i++) {
        n *= t->dim[i];
    }
    return n;
}

static int64_t t_bytes(const struct ox *x, const struct ox_tensor *t)
{
    double b = (double)t_elems(t) * t->elem;

    return (int64_t)llround(t->act ? b * x->scale : b);
}

static int32_t find_t(const struct ox *x, const char *name)
{
    return strmap_get(&x->by_name, name, strlen(name));
}

static int add_t(struct ox *x, const char *name, int32_t *idx)
{
    struct ox_tensor *t;
    const char *nm;
    int32_t old;
    int rc;

    if (ARRAY_RESERVE(x->t, x->alloc_t, x->n_t + 1)) {
        return BAECHI_ENOMEM;
    }
    if (!(nm = strpool_add(&x->pool, name, strlen(name)))) {
        return BAECHI_ENOMEM;
    }
    if ((rc = strmap_put(&x->by_name, nm, (int32_t)x->n_t, &old))) {
        return rc;
    }
    t = &x->t[x->n_t];
    memset(t, 0, sizeof(*t));
    t->name = nm;
    t->op = -1;
    t->rank = -1;
    t->elem = 4;
    *idx = (int32_t)x->n_t++;
    return 0;
}

static int shape_from_dims(struct ox *x, struct ox_tensor *t, size_t n, const int64_t *dims,
                           const char *what)
{
    if (n > OX_MAX_RANK) {
        return err_set(BAECHI_EPARSE, "%s: %s '%s' has rank %zu (at most %d supported)", x->file,
                       what, t->name, n, OX_MAX_RANK);
    }
    for (size_t i = 0; i < n; i++) {
        if (dims[i] < 0) {
            return err_set(BAECHI_EPARSE, "%s: %s '%s' has a negative dimension %lld", x->file,
                           what, t->name, (long long)dims[i]);
        }
        t->dim[i] = dims[i];
    }
    t->rank = (int)n;
    return 0;
}

/* Integer values of a small int32/int64 tensor, when present. */
static void tensor_values(struct ox_tensor *t, const Onnx__TensorProto *tp)
{
    int64_t n = t_elems(t);

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

/*
 * Own shape inference of node `nd`: fills out[0..n_out) (rank -1 when
 * unknown) and *flops (at batch 1).  Returns false for an operator we do
 * not know.
 */
static bool infer(const Onnx__NodeProto *nd, struct ox_tensor **in, int n_in, struct ox_tensor *out,
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
            *flops = 2.0 * (double)t_elems(o) * kk + (n_in > 2 ? (double)t_elems(o) : 0);
        } else {
            double kk = 1;

            for (int i = 0; i < sp; i++) {
                kk *= (double)k[i];
            }
            *flops = (double)t_elems(o) * kk;
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
            *flops = (double)t_elems(a);
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
            *flops = 2.0 * (double)t_elems(o) * (double)kk;
        }
        return true;
    }
    if (is_op(op, unary_ops)) {
        if (a && a->rank >= 0) {
            *o = *a;
            o->nval = 0;
            if (strcmp(op, "Cast") == 0) {
                o->elem = elem_size((int32_t)attr_i(nd, "to", 1));
                o->nval = a->nval;
                memcpy(o->val, a->val, sizeof(o->val));
            }
            if (strcmp(op, "Identity") != 0 && strcmp(op, "Dropout") != 0 &&
                strcmp(op, "Cast") != 0) {
                bool norm = strstr(op, "Normalization") != NULL;

                *flops = (norm || strstr(op, "Softmax") ? 5.0 : 1.0) * (double)t_elems(o);
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
            *flops = (double)t_elems(o) * (n_in > 2 ? n_in - 1 : 1);
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
            *flops = (double)t_elems(a);
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
        total = t_elems(a);
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
        if (a->nval == t_elems(a)) {
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
            o->elem = elem_size(v->t->data_type);
            tensor_values(o, v->t);
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

/* Shape of value `name` from value_info / graph outputs, if fully known. */
static bool vi_shape(const Onnx__ValueInfoProto *vi, struct ox_tensor *t)
{
    const Onnx__TypeProto__Tensor *tt;

    if (!vi || !vi->type || vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
        !(tt = vi->type->tensor_type) || !tt->shape || tt->shape->n_dim > OX_MAX_RANK) {
        return false;
    }
    for (size_t i = 0; i < tt->shape->n_dim; i++) {
        const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];

        if (d->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE ||
            d->dim_value < 0) {
            return false;
        }
    }
    t->rank = (int)tt->shape->n_dim;
    for (size_t i = 0; i < tt->shape->n_dim; i++) {
        t->dim[i] = tt->shape->dim[i]->dim_value;
    }
    if (tt->has_elem_type) {
        t->elem = elem_size(tt->elem_type);
    }
    return true;
}

static void warn_unknown(struct ox *x, const Onnx__NodeProto *nd, const char *name)
{
    x->st.n_unknown++;
    for (int i = 0; i < x->n_warned; i++) {
        if (strcmp(x->warned[i], nd->op_type) == 0) {
            return;
        }
    }
    err_warn("%s: node '%s': unknown operator '%s': outputs sized like its first input, "
             "1 FLOP per output element",
             x->file, name, nd->op_type);
    if (x->n_warned < 32) {
        snprintf(x->warned[x->n_warned++], sizeof(x->warned[0]), "%s", nd->op_type);
    }
}

static int unique_name(struct ox *x, const char *base, char *buf, size_t size)
{
    snprintf(buf, size, "%s", base);
    for (int n = 1; workload_find(x->w, buf) >= 0; n++) {
        snprintf(buf, size, "%s_%d", base, n);
    }
    return 0;
}

static bool is_float_type(int32_t t)
{
    return t == 1 || t == 10 || t == 11 || t == 16;
}

static int import_graph(struct ox *x, const Onnx__GraphProto *g)
{
    struct strmap vi_map;
    struct strpool vi_pool;
    struct ox_tensor **in = NULL;
    struct ox_tensor *out = NULL;
    size_t max_in = 1, max_out = 1;
    char name[1024];
    double b0 = 1;
    bool have_b0 = false;
    int rc = 0;

    strmap_init(&vi_map);
    strpool_init(&vi_pool);
    for (size_t i = 0; i < g->n_node; i++) {
        if (g->node[i]->n_input > max_in) {
            max_in = g->node[i]->n_input;
        }
        if (g->node[i]->n_output > max_out) {
            max_out = g->node[i]->n_output;
        }
    }
    in = array_calloc(max_in, sizeof(*in));
    out = array_calloc(max_out, sizeof(*out));
    if (!in || !out) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    /* value_info and graph outputs, by name */
    for (size_t i = 0; i < g->n_value_info + g->n_output; i++) {
        const Onnx__ValueInfoProto *vi =
            i < g->n_value_info ? g->value_info[i] : g->output[i - g->n_value_info];
        const char *nm;
        int32_t old;

        if (!vi->name || !(nm = strpool_add(&vi_pool, vi->name, strlen(vi->name)))) {
            continue;
        }
        if ((rc = strmap_put(&vi_map, nm, (int32_t)i, &old))) {
            goto cleanup;
        }
    }
    /* initializers */
    for (size_t i = 0; i < g->n_initializer; i++) {
        const Onnx__TensorProto *tp = g->initializer[i];
        int32_t id;

        if (!tp->name || find_t(x, tp->name) >= 0) {
            rc = err_set(BAECHI_EPARSE, "%s: initializer %zu: %s", x->file, i,
                         tp->name ? "duplicate name" : "no name");
            goto cleanup;
        }
        if ((rc = add_t(x, tp->name, &id)) ||
            (rc = shape_from_dims(x, &x->t[id], tp->n_dims, tp->dims, "initializer"))) {
            goto cleanup;
        }
        x->t[id].elem = elem_size(tp->data_type);
        x->t[id].trainable = is_float_type(tp->data_type) && t_elems(&x->t[id]) > 1;
        tensor_values(&x->t[id], tp);
    }
    /* consumers; BatchNormalization statistics are not trainable */
    for (size_t i = 0; i < g->n_node; i++) {
        const Onnx__NodeProto *nd = g->node[i];

        for (size_t k = 0; k < nd->n_input; k++) {
            int32_t id = nd->input[k][0] ? find_t(x, nd->input[k]) : -1;

            if (id >= 0) {
                x->t[id].n_cons++;
                if (k >= 3 && strcmp(nd->op_type, "BatchNormalization") == 0) {
                    x->t[id].trainable = false;
                }
            }
        }
    }
    /* graph inputs that are not initializers: Placeholder ops */
    for (size_t i = 0; i < g->n_input; i++) {
        const Onnx__ValueInfoProto *vi = g->input[i];
        const Onnx__TypeProto__Tensor *tt;
        int32_t id, op;

        if (!vi->name || find_t(x, vi->name) >= 0) {
            continue;
        }
        if ((rc = add_t(x, vi->name, &id))) {
            goto cleanup;
        }
        x->t[id].act = true;
        x->t[id].rank = 0;
        if (vi->type && vi->type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE &&
            (tt = vi->type->tensor_type)) {
            x->t[id].elem = tt->has_elem_type ? elem_size(tt->elem_type) : 4;
            if (tt->shape && tt->shape->n_dim <= OX_MAX_RANK) {
                x->t[id].rank = (int)tt->shape->n_dim;
                for (size_t d = 0; d < tt->shape->n_dim; d++) {
                    const Onnx__TensorShapeProto__Dimension *dm = tt->shape->dim[d];
                    bool val =
                        dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;

                    x->t[id].dim[d] = val && dm->dim_value > 0 ? dm->dim_value : 1;
                }
                if (!have_b0 && x->t[id].rank > 0) {
                    b0 = (double)x->t[id].dim[0];
                    have_b0 = true;
                }
            }
        }
        unique_name(x, vi->name, name, sizeof(name));
        if ((rc = workload_add_op(x->w, name, "Placeholder", &op))) {
            goto cleanup;
        }
        x->w->op[op].flops = 0;
        x->t[id].op = op;
        x->t[id].port = 0;
    }
    x->scale = x->batch > 0 && b0 > 0 ? (double)x->batch / b0 : 1.0;
    for (size_t i = 0; i < x->n_t; i++) {
        if (x->t[i].op >= 0 && x->w->op[x->t[i].op].n_out == 0) {
            if ((rc = workload_add_output(x->w, 0))) { /* sized below */
                goto cleanup;
            }
        }
    }
    for (size_t i = 0; i < x->n_t; i++) {
        if (x->t[i].op >= 0) {
            x->w->out_bytes[x->w->op[x->t[i].op].out_off] = t_bytes(x, &x->t[i]);
        }
    }
    /* shared or non-trainable initializers: ops of their own */
    for (size_t i = 0; i < x->n_t; i++) {
        struct ox_tensor *t = &x->t[i];
        int32_t op;

        if (t->act || t->n_cons == 0 || (t->trainable && t->n_cons == 1)) {
            continue;
        }
        unique_name(x, t->name, name, sizeof(name));
        if ((rc = workload_add_op(x->w, name, t->trainable ? "Initializer" : "Constant", &op)) ||
            (rc = workload_add_output(x->w, t_bytes(x, t)))) {
            goto cleanup;
        }
        x->w->op[op].persistent = t_bytes(x, t);
        x->w->op[op].flops = 0;
        x->w->op[op].bytes = 0;
        t->op = op;
        t->port = 0;
        if (t->trainable) {
            x->st.params += t_elems(t);
        }
    }
    /* nodes, in graph (topological) order */
    for (size_t i = 0; i < g->n_node; i++) {
        const Onnx__NodeProto *nd = g->node[i];
        int32_t op, n_in = (int32_t)nd->n_input, n_out = (int32_t)nd->n_output;
        int64_t persistent = 0;
        double flops = 0, bytes = 0;
        bool act = false, known;

        if (!nd->op_type || !nd->op_type[0]) {
            rc = err_set(BAECHI_EPARSE, "%s: node %zu has no op_type", x->file, i);
            goto cleanup;
        }
        if (nd->name && nd->name[0]) {
            unique_name(x, nd->name, name, sizeof(name));
        } else {
            char base[128];

            snprintf(base, sizeof(base), "%s_%zu", nd->op_type, i);
            unique_name(x, base, name, sizeof(name));
        }
        for (int32_t k = 0; k < n_in; k++) {
            int32_t id = nd->input[k][0] ? find_t(x, nd->input[k]) : -1;

            if (nd->input[k][0] && id < 0) {
                rc = err_set(BAECHI_EPARSE,
                             "%s: node '%s' (%s): input '%s' is not produced by any node, "
                             "graph input or initializer",
                             x->file, name, nd->op_type, nd->input[k]);
                goto cleanup;
            }
            in[k] = id >= 0 ? &x->t[id] : NULL;
            if (in[k] && in[k]->act) {
                act = true;
            }
        }
        for (int32_t k = 0; k < n_out; k++) {
            memset(&out[k], 0, sizeof(out[k]));
            out[k].rank = -1;
            out[k].elem = n_in > 0 && in[0] ? in[0]->elem : 4;
        }
        known = infer(nd, in, n_in, out, n_out, &flops);
        if (!known) {
            warn_unknown(x, nd, name);
            if (n_in > 0 && in[0]) {
                for (int32_t k = 0; k < n_out; k++) {
                    out[k] = *in[0];
                    out[k].nval = 0;
                }
                flops = (double)t_elems(&out[0]) * n_out;
            }
        }
        for (int32_t k = 0; k < n_out; k++) {
            int32_t v = strmap_get(&vi_map, nd->output[k], strlen(nd->output[k]));
            struct ox_tensor s = out[k];

            if (v >= 0 &&
                vi_shape(v < (int32_t)g->n_value_info ? g->value_info[v]
                                                      : g->output[v - (int32_t)g->n_value_info],
                         &s)) {
                if (s.rank != out[k].rank ||
                    memcmp(s.dim, out[k].dim,
                           sizeof(int64_t) * (size_t)(s.rank > 0 ? s.rank : 0))) {
                    s.nval = 0;
                }
                out[k] = s;
                x->st.n_from_value_info++;
            }
            if (out[k].rank < 0) {
                if (known) {
                    warn_unknown(x, nd, name);
                    known = false;
                }
                if (n_in > 0 && in[0]) {
                    out[k].rank = in[0]->rank;
                    memcpy(out[k].dim, in[0]->dim, sizeof(out[k].dim));
                } else {
                    out[k].rank = 0;
                }
            }
        }
        if ((rc = workload_add_op(x->w, name, nd->op_type, &op))) {
            goto cleanup;
        }
        for (int32_t k = 0; k < n_in; k++) {
            if (!in[k]) {
                continue;
            }
            bytes += (double)t_bytes(x, in[k]);
            if (in[k]->op < 0) { /* a folded trainable initializer */
                persistent += t_bytes(x, in[k]);
                x->st.params += t_elems(in[k]);
            } else if ((rc = workload_add_input(x->w, in[k]->op, in[k]->port, 0, 0))) {
                goto cleanup;
            }
        }
        for (int32_t k = 0; k < n_out; k++) {
            int32_t id;

            out[k].act = act;
            if (!nd->output[k][0]) {
                continue;
            }
            if (find_t(x, nd->output[k]) >= 0) {
                rc = err_set(BAECHI_EPARSE, "%s: node '%s': output '%s' is produced twice", x->file,
                             name, nd->output[k]);
                goto cleanup;
            }
            if ((rc = add_t(x, nd->output[k], &id))) {
                goto cleanup;
            }
            out[k].name = x->t[id].name;
            out[k].op = op;
            out[k].port = x->w->op[op].n_out;
            out[k].n_cons = 0;
            x->t[id] = out[k];
            if ((rc = workload_add_output(x->w, t_bytes(x, &x->t[id])))) {
                goto cleanup;
            }
            bytes += (double)t_bytes(x, &x->t[id]);
        }
        if (act) {
            flops *= x->scale;
        }
        x->w->op[op].flops = flops;
        x->w->op[op].bytes = bytes;
        x->w->op[op].persistent = persistent;
        x->st.flops += flops;
        x->st.n_nodes++;
    }
cleanup:
    free(in);
    free(out);
    strmap_release(&vi_map);
    strpool_release(&vi_pool);
    return rc;
}

int onnx_import_buffer(struct workload *w, const uint8_t *data, size_t len, const char *name,
                       const struct onnx_import_opts *o, struct onnx_import_stats *stats)
{
    Onnx__ModelProto *m;
    struct ox x;
    char wname[256];
    const char *base;
    int rc;

    workload_init(w);
    memset(&x, 0, sizeof(x));
    x.file = name;
    x.w = w;
    x.batch = o ? o->batch : 0;
    x.scale = 1.0;
    strpool_init(&x.pool);
    strmap_init(&x.by_name);
    m = onnx__model_proto__unpack(NULL, len, data);
    if (!m) {
        rc = err_set(BAECHI_EPARSE, "%s: not a valid ONNX model (the protobuf does not parse)",
                     name);
        goto cleanup;
    }
    if (!m->graph || m->graph->n_node == 0) {
        rc = err_set(BAECHI_EPARSE, "%s: the ONNX model has no graph or no nodes", name);
        goto cleanup;
    }
    if ((rc = import_graph(&x, m->graph))) {
        goto cleanup;
    }
    base = strrchr(name, '/');
    base = base ? base + 1 : name;
    snprintf(wname, sizeof(wname), "%.*s", (int)(strcspn(base, ".")), base);
    if ((rc = workload_set_name(w, wname[0] ? wname : "onnx"))) {
        goto cleanup;
    }
    {
        char desc[512];

        snprintf(desc, sizeof(desc),
                 "imported from ONNX (%s %s, IR %lld): %d nodes, %lld parameters",
                 m->producer_name ? m->producer_name : "?",
                 m->producer_version ? m->producer_version : "", (long long)m->ir_version,
                 x.st.n_nodes, (long long)x.st.params);
        if (!(w->description = array_strdup(desc)) || !(w->source = array_strdup(name))) {
            rc = BAECHI_ENOMEM;
            goto cleanup;
        }
    }
    rc = workload_check(w);
    if (rc == 0 && stats) {
        *stats = x.st;
    }
cleanup:
    if (m) {
        onnx__model_proto__free_unpacked(m, NULL);
    }
    free(x.t);
    strpool_release(&x.pool);
    strmap_release(&x.by_name);
    if (rc) {
        workload_release(w);
    }
    return rc;
}

int onnx_import(struct workload *w, const char *path, const struct onnx_import_opts *o,
                struct onnx_import_stats *stats)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0, n;
    int rc;

    workload_init(w);
    if (!f) {
        return err_set(BAECHI_EIO, "%s: cannot open: %s", path, strerror(errno));
    }
    for (;;) {
        if (len == cap) {
            uint8_t *nb;

            cap = cap ? 2 * cap : 1 << 16;
            if (!(nb = realloc(buf, cap))) {
                free(buf);
                fclose(f);
                return err_set(BAECHI_ENOMEM, "%s: out of memory reading the model", path);
            }
            buf = nb;
        }
        n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0) {
            break;
        }
    }
    if (ferror(f)) {
        free(buf);
        fclose(f);
        return err_set(BAECHI_EIO, "%s: read error", path);
    }
    fclose(f);
    rc = onnx_import_buffer(w, buf, len, path, o, stats);
    free(buf);
    return rc;
}
