/*
 * onnx_shape.c - shape inference and FLOP counts of the common ONNX
 * operators (see onnx_shape.h), so that an export without value_info still
 * gets tensor sizes and op costs.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/onnx_shape.h"

#include "core/checked.h"
#include "core/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The node being inferred, for messages: "file: node 'n' (Op): ...". */
struct inf {
    const char *file, *name, *op;
};

static int bad(const struct inf *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int bad(const struct inf *c, const char *fmt, ...)
{
    char msg[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return err_set(BAECHI_EPARSE, "%s: node '%s' (%s): %s", c->file, c->name, c->op, msg);
}

int onnx_check_shape(const struct ox_tensor *t, const char *file, const char *what)
{
    int64_t nz = 1, b;
    char dims[OX_MAX_RANK * 22 + 1];
    size_t len = 0;

    dims[0] = 0;
    for (int i = 0; i < t->rank; i++) {
        len += (size_t)snprintf(dims + len, sizeof(dims) - len, "%s%lld", i ? ", " : "",
                                (long long)t->dim[i]);
    }
    for (int i = 0; i < t->rank; i++) {
        if (t->dim[i] < 0) {
            return err_set(BAECHI_EPARSE, "%s: %s '%s' has a negative dimension: [%s]", file, what,
                           t->name ? t->name : "", dims);
        }
    }
    /* Zeros count as 1, so that no partial product of the dims (Flatten's,
     * a Reshape's) can overflow either; 2^42 bytes leave room for the batch
     * scaling (--batch up to 2^20) within int64. */
    for (int i = 0; i < t->rank; i++) {
        if (checked_mul_i64(nz, t->dim[i] ? t->dim[i] : 1, &nz) ||
            checked_mul_i64(nz, t->elem, &b) || b > (INT64_C(1) << 42)) {
            return err_set(BAECHI_EPARSE,
                           "%s: %s '%s': the product of the dimensions [%s] (x %d bytes) "
                           "exceeds the limit of 2^42 bytes (4 TiB) per tensor",
                           file, what, t->name ? t->name : "", dims, t->elem);
        }
    }
    return 0;
}

/* Integer values of a small int32/int64 tensor, when present. */
void onnx_tensor_values(struct ox_tensor *t, const Onnx__TensorProto *tp)
{
    int64_t n = onnx_elems(t);

    t->nval = 0;
    if (n > OX_MAX_VAL || n < 0 || t->rank < 0) {
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
    "Trilu",
    NULL,
};
static const char *const binary_ops[] = {
    "Add", "Sub",  "Mul",   "Div",  "Pow",     "Max",         "Min",
    "Sum", "Mean", "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual",
    "And", "Or",   "Xor",   "Mod",  "PRelu",   "Where",       NULL,
};

/*
 * An axis of a tensor of rank `rank`: ONNX allows [-rank, rank - 1 + extra]
 * (extra 1 for Flatten's axis, which may equal the rank), negative counting
 * from the end.  Anything else is an error naming the node and the rank.
 */
static int norm_axis(const struct inf *c, const char *what, int64_t axis, int rank, int extra,
                     int *out)
{
    if (axis < -(int64_t)rank || axis > (int64_t)rank - 1 + extra) {
        return bad(c, "%s %lld is out of range for rank %d (valid: %d to %d)", what,
                   (long long)axis, rank, -rank, rank - 1 + extra);
    }
    *out = (int)(axis < 0 ? axis + rank : axis);
    return 0;
}

/* The "axis" attribute (default def), checked against rank. */
static int axis_attr(const struct inf *c, const Onnx__NodeProto *nd, int64_t def, int rank,
                     int extra, int *out)
{
    return norm_axis(c, "axis", attr_i(nd, "axis", def), rank, extra, out);
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

/*
 * Output spatial size of a conv / pool along axis i (into *out).  k, s, d
 * >= 1 and pads >= 0 are checked by the caller; the arithmetic is checked
 * here (a dilation of 2^62 must not wrap).
 */
static int window_out(const struct inf *c, int i, int64_t in, int64_t k, int64_t s, int64_t pb,
                      int64_t pe, int64_t d, bool ceil_mode, const char *auto_pad, int64_t *out)
{
    int64_t eff, padded;
    bool valid;

    if (checked_mul_i64(d, k - 1, &eff) || checked_add_i64(eff, 1, &eff)) {
        return bad(c, "spatial axis %d: dilation %lld x (kernel %lld - 1) overflows 64 bits", i,
                   (long long)d, (long long)k);
    }
    if (auto_pad && (strcmp(auto_pad, "SAME_UPPER") == 0 || strcmp(auto_pad, "SAME_LOWER") == 0)) {
        *out = in / s + (in % s != 0);
        return 0;
    }
    valid = auto_pad && strcmp(auto_pad, "VALID") == 0;
    if (valid) {
        pb = pe = 0;
    }
    if (checked_add_i64(in, pb, &padded) || checked_add_i64(padded, pe, &padded)) {
        return bad(c, "spatial axis %d: input %lld + pads %lld + %lld overflows 64 bits", i,
                   (long long)in, (long long)pb, (long long)pe);
    }
    if (padded < eff) {
        return bad(c,
                   "spatial axis %d: the window (kernel %lld, dilation %lld: %lld) is larger "
                   "than the padded input (%lld)",
                   i, (long long)k, (long long)d, (long long)eff, (long long)padded);
    }
    padded -= eff;
    *out = padded / s + (ceil_mode && !valid && padded % s != 0) + 1;
    return 0;
}

static const char *attr_s(const Onnx__NodeProto *nd, const char *name, char *buf, size_t size)
{
    const Onnx__AttributeProto *a = attr(nd, name);

    if (!a || !a->has_s) {
        return NULL;
    }
    snprintf(buf, size, "%.*s", a->s.data ? (int)(a->s.len < size ? a->s.len : size) : 0,
             a->s.data ? (const char *)a->s.data : "");
    return buf;
}

/* All values of t known (a small integer constant, shape arithmetic). */
static bool all_known(const struct ox_tensor *t)
{
    return t && t->rank >= 0 && t->nval > 0 && t->nval == onnx_elems(t);
}

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

    if (n_in != 2 || !all_known(a) || !all_known(b) || a->elem < 4 || onnx_elems(o) > OX_MAX_VAL ||
        (a->nval != b->nval && a->nval != 1 && b->nval != 1)) {
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

/*
 * LSTM, GRU, RNN (ONNX layout 0: X [seq, batch, input], Y [seq, dirs,
 * batch, hidden], Y_h and Y_c [dirs, batch, hidden]; layout 1: batch
 * first).  FLOPs per time step, direction and sequence: per gate (LSTM 4,
 * GRU 3, RNN 1) the two matrix products, 2 x input x hidden + 2 x hidden x
 * hidden, and the element-wise work per hidden unit: the two biases per
 * gate, one activation per gate, and the state update (LSTM: tanh of the
 * cell and 4 products and sums, 17 in all; GRU: 4, 13 in all; RNN: 3).
 * The hidden size is the attribute, else W's rows / gates.
 */
static int infer_rnn(const struct inf *c, const Onnx__NodeProto *nd, const struct ox_tensor *a,
                     const struct ox_tensor *w, struct ox_tensor *out, int n_out, double *flops)
{
    int gates = nd->op_type[0] == 'L' ? 4 : nd->op_type[0] == 'G' ? 3 : 1;
    int elt = gates == 4 ? 17 : gates == 3 ? 13 : 3;
    int64_t h = attr_i(nd, "hidden_size", 0), dirs = 1, seq, batch, insz;
    bool bf = attr_i(nd, "layout", 0) != 0;
    char dir[32];
    const char *d = attr_s(nd, "direction", dir, sizeof(dir));

    if (d && strcmp(d, "bidirectional") == 0) {
        dirs = 2;
    }
    if (h < 0) {
        return bad(c, "hidden_size %lld is negative", (long long)h);
    }
    if (h == 0 && w && w->rank == 3) {
        h = w->dim[1] / gates;
    }
    if (!a || a->rank != 3 || h == 0) {
        return 0;
    }
    seq = bf ? a->dim[1] : a->dim[0];
    batch = bf ? a->dim[0] : a->dim[1];
    insz = a->dim[2];
    for (int k = 0; k < n_out; k++) {
        struct ox_tensor *o = &out[k];
        int r = 0;

        o->elem = a->elem;
        o->nval = 0;
        if (k == 0) {
            o->dim[r++] = bf ? batch : seq;
            if (bf) {
                o->dim[r++] = seq;
            }
        }
        if (bf) {
            if (k > 0) {
                o->dim[r++] = batch;
            }
            o->dim[r++] = dirs;
        } else {
            o->dim[r++] = dirs;
            o->dim[r++] = batch;
        }
        o->dim[r++] = h;
        o->rank = r;
    }
    *flops = (double)seq * (double)batch * (double)dirs *
             ((double)gates * (2.0 * (double)insz * (double)h + 2.0 * (double)h * (double)h) +
              (double)elt * (double)h);
    return 0;
}

static int infer(const struct inf *c, const Onnx__NodeProto *nd, struct ox_tensor **in, int n_in,
                 struct ox_tensor *out, int n_out, double *flops, bool *known)
{
    const char *op = nd->op_type;
    const struct ox_tensor *a = n_in > 0 ? in[0] : NULL, *b = n_in > 1 ? in[1] : NULL;
    struct ox_tensor *o = &out[0];
    char pad[32];
    int64_t ints[OX_MAX_RANK * 2];
    bool ok = true;
    int rc;

    *flops = 0;
    if (n_out == 0) {
        return 0;
    }
    if (a) {
        o->elem = a->elem;
    }
    if (strcmp(op, "Conv") == 0 || strcmp(op, "MaxPool") == 0 || strcmp(op, "AveragePool") == 0) {
        bool conv = op[0] == 'C';
        int64_t k[OX_MAX_RANK], s[OX_MAX_RANK], d[OX_MAX_RANK], p[2 * OX_MAX_RANK];
        int sp;

        if (!a || a->rank < 3 || (conv && (!b || b->rank != a->rank))) {
            return 0;
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
        /* ONNX: kernel sizes, strides and dilations >= 1, pads >= 0 */
        for (int i = 0; i < sp; i++) {
            if (k[i] < 1 || s[i] < 1 || d[i] < 1 || p[i] < 0 || p[sp + i] < 0) {
                return bad(c,
                           "spatial axis %d: kernel %lld, stride %lld, dilation %lld, pads %lld "
                           "and %lld (kernel, stride and dilation must be >= 1, pads >= 0)",
                           i, (long long)k[i], (long long)s[i], (long long)d[i], (long long)p[i],
                           (long long)p[sp + i]);
            }
        }
        o->rank = a->rank;
        o->dim[0] = a->dim[0];
        o->dim[1] = conv ? b->dim[0] : a->dim[1];
        for (int i = 0; i < sp; i++) {
            if ((rc = window_out(c, i, a->dim[2 + i], k[i], s[i], p[i], p[sp + i], d[i],
                                 attr_i(nd, "ceil_mode", 0) != 0,
                                 attr_s(nd, "auto_pad", pad, sizeof(pad)), &o->dim[2 + i]))) {
                return rc;
            }
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
        return 0;
    }
    if (strcmp(op, "LSTM") == 0 || strcmp(op, "GRU") == 0 || strcmp(op, "RNN") == 0) {
        return infer_rnn(c, nd, a, b, out, n_out, flops);
    }
    if (strcmp(op, "GlobalAveragePool") == 0 || strcmp(op, "GlobalMaxPool") == 0) {
        if (a && a->rank >= 3) {
            *o = *a;
            for (int i = 2; i < a->rank; i++) {
                o->dim[i] = 1;
            }
            *flops = (double)onnx_elems(a);
        }
        return 0;
    }
    if (strcmp(op, "Gemm") == 0) {
        if (a && b && a->rank == 2 && b->rank == 2) {
            int64_t m = attr_i(nd, "transA", 0) ? a->dim[1] : a->dim[0];
            int64_t kk = attr_i(nd, "transA", 0) ? a->dim[0] : a->dim[1];
            int64_t n = attr_i(nd, "transB", 0) ? b->dim[0] : b->dim[1];

            o->rank = 2;
            o->dim[0] = m;
            o->dim[1] = n;
            *flops =
                2.0 * (double)m * (double)n * (double)kk + (n_in > 2 ? (double)m * (double)n : 0);
        }
        return 0;
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
        return 0;
    }
    if (is_op(op, unary_ops)) {
        if (a && a->rank >= 0) {
            int ax;

            if ((strstr(op, "Softmax") || strcmp(op, "LayerNormalization") == 0) &&
                (rc = axis_attr(c, nd, -1, a->rank, 0, &ax))) {
                return rc;
            }
            *o = *a;
            o->nval = 0;
            if (strcmp(op, "Cast") == 0 || strcmp(op, "Identity") == 0) {
                int32_t to = (int32_t)attr_i(nd, "to", 1);

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
        return 0;
    }
    if (is_op(op, binary_ops)) {
        struct ox_tensor acc;

        if (!a) {
            return 0;
        }
        acc = *a;
        for (int i = 1; i < n_in && ok; i++) {
            struct ox_tensor r;

            r = acc;
            ok = in[i] && broadcast(&r, &acc, in[i]);
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
            *flops = (double)onnx_elems(o) * (n_in > 2 ? n_in - 1 : 1);
            fold_arith(op, a, b, n_in, o);
        }
        return 0;
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
                int ax;

                if ((rc = norm_axis(c, "axes value", ints[i], a->rank, 0, &ax))) {
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
            *flops = (double)onnx_elems(a);
        }
        return 0;
    }
    if (strcmp(op, "Concat") == 0) {
        int ax;

        if (!a || a->rank < 0) {
            return 0;
        }
        if ((rc = axis_attr(c, nd, 0, a->rank, 0, &ax))) {
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
                return bad(c, "the concatenated size along axis %d overflows 64 bits", ax);
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
    if (strcmp(op, "Reshape") == 0) {
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

            if (v == 0 && attr_i(nd, "allowzero", 0) == 0) {
                v = i < a->rank ? a->dim[i] : 1;
            }
            if (v == -1 && neg < 0) {
                neg = i;
                v = 1;
            } else if (v < 0) {
                return bad(c, "shape value %lld at position %d (only one -1 allowed)",
                           (long long)b->val[i], i);
            }
            o->dim[i] = v;
            if (checked_mul_i64(prod, v, &prod)) {
                return bad(c, "the product of the target shape overflows 64 bits");
            }
        }
        if (neg >= 0) {
            o->dim[neg] = prod > 0 ? total / prod : 0;
        }
        return 0;
    }
    if (strcmp(op, "Flatten") == 0) {
        if (a && a->rank >= 0) {
            int ax;
            int64_t p0 = 1, p1 = 1;

            if ((rc = axis_attr(c, nd, 1, a->rank, 1, &ax))) {
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
    if (strcmp(op, "Transpose") == 0) {
        if (a && a->rank >= 0) {
            int n = attr_ints(nd, "perm", ints, OX_MAX_RANK);
            bool seen[OX_MAX_RANK] = {false};

            if (n >= 0 && n != a->rank) {
                return bad(c, "perm has %d values for an input of rank %d", n, a->rank);
            }
            o->rank = a->rank;
            for (int i = 0; i < a->rank; i++) {
                int64_t src = n >= 0 ? ints[i] : a->rank - 1 - i;

                if (src < 0 || src >= a->rank || seen[src]) {
                    return bad(c, "perm is not a permutation of 0 to %d (value %lld)", a->rank - 1,
                               (long long)src);
                }
                seen[src] = true;
                o->dim[i] = a->dim[src];
            }
        }
        return 0;
    }
    if (strcmp(op, "Squeeze") == 0 || strcmp(op, "Unsqueeze") == 0) {
        int n = attr_ints(nd, "axes", ints, OX_MAX_RANK);
        bool sq = op[0] == 'S', mark[2 * OX_MAX_RANK] = {false};
        int r;

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

            if ((rc = norm_axis(c, "axes value", ints[i], r, 0, &ax))) {
                return rc;
            }
            if (mark[ax]) {
                return bad(c, "axes value %lld repeats axis %d", (long long)ints[i], ax);
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
    if (strcmp(op, "Gather") == 0) {
        int ax;

        if (!a || !b || a->rank < 0 || b->rank < 0 || a->rank + b->rank - 1 > OX_MAX_RANK) {
            return 0;
        }
        if ((rc = axis_attr(c, nd, 0, a->rank, 0, &ax))) {
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
        if (all_known(a) && all_known(b) && a->rank == 1) { /* shape[i], shape[[i, j]] */
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
    if (strcmp(op, "Split") == 0) {
        int64_t parts[OX_MAX_VAL];
        int ax, n;

        if (!a || a->rank < 0 || n_out > OX_MAX_VAL) {
            return 0;
        }
        if ((rc = axis_attr(c, nd, 0, a->rank, 0, &ax))) {
            return rc;
        }
        n = attr_ints(nd, "split", parts, OX_MAX_VAL);
        if (n < 0 && b && b->nval == n_out) {
            n = b->nval;
            memcpy(parts, b->val, sizeof(int64_t) * (size_t)n);
        }
        for (int j = 0; j < n && n == n_out; j++) {
            if (parts[j] < 0) {
                return bad(c, "split size %lld of output %d is negative", (long long)parts[j], j);
            }
        }
        for (int j = 0; j < n_out; j++) {
            out[j] = *a;
            out[j].nval = 0;
            out[j].dim[ax] = n == n_out ? parts[j] : a->dim[ax] / n_out;
        }
        return 0;
    }
    if (strcmp(op, "Slice") == 0) {
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
                if ((rc = norm_axis(c, "axes value", in[3]->val[i], a->rank, 0, &ax))) {
                    return rc;
                }
            } else if (i >= a->rank) {
                return bad(c, "%d starts for an input of rank %d", in[1]->nval, a->rank);
            }
            if (step == 0) {
                return bad(c, "step 0 along axis %d", ax);
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
            if (all_known(a) && a->rank == 1 && step > 0 && o->dim[0] > 0) { /* shape[i:j:k] */
                for (int64_t k = 0; k < o->dim[0]; k++) {
                    o->val[k] = a->val[st + k * step];
                }
                o->nval = (int)o->dim[0];
            }
        }
        return 0;
    }
    if (strcmp(op, "Range") == 0) {
        int64_t st, lim, d, n;

        if (n_in < 3 || !all_known(in[0]) || !all_known(in[1]) || !all_known(in[2]) ||
            in[0]->nval != 1 || in[1]->nval != 1 || in[2]->nval != 1) {
            return 0;
        }
        st = in[0]->val[0];
        lim = in[1]->val[0];
        d = in[2]->val[0];
        if (d == 0) {
            return bad(c, "delta 0 (start %lld, limit %lld)", (long long)st, (long long)lim);
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
        *flops = (double)n;
        return 0;
    }
    if (strcmp(op, "Pad") == 0) {
        int64_t pads[2 * OX_MAX_RANK];
        int n;

        if (!a || a->rank < 0) {
            return 0;
        }
        n = attr_ints(nd, "pads", pads, 2 * OX_MAX_RANK);
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
                return bad(c, "axis %d: size %lld + pads %lld and %lld overflows 64 bits", i,
                           (long long)a->dim[i], (long long)pads[i], (long long)pads[a->rank + i]);
            }
            if (o->dim[i] < 0) {
                return bad(c, "axis %d: pads %lld and %lld remove more than its size %lld", i,
                           (long long)pads[i], (long long)pads[a->rank + i], (long long)a->dim[i]);
            }
        }
        return 0;
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
        return 0;
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
        return 0;
    }
    if (strcmp(op, "ConstantOfShape") == 0) {
        if (a && a->nval > 0 && a->nval <= OX_MAX_RANK) {
            o->rank = a->nval;
            memcpy(o->dim, a->val, sizeof(int64_t) * (size_t)a->nval);
            o->elem = 4;
        }
        return 0;
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
        return 0;
    }
    *known = false;
    return 0;
}

int onnx_infer(const char *file, const char *name, const Onnx__NodeProto *nd, struct ox_tensor **in,
               int n_in, struct ox_tensor *out, int n_out, double *flops, bool *known)
{
    struct inf c = {file, name, nd->op_type};

    *known = true;
    return infer(&c, nd, in, n_in, out, n_out, flops, known);
}
