/*
 * onnx_shape.c - shape inference and FLOP counts of the common ONNX
 * operators (see onnx_shape.h), so that an export without value_info still
 * gets tensor sizes and op costs: the shape checks, the helpers the
 * operator families share (onnx_shape_internal.h) and onnx_infer(), which
 * dispatches to the families (onnx_shape_conv.c, _matmul.c, _rnn.c,
 * _elementwise.c, _layout.c, _const.c).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/onnx_shape.h"

#include "workloads/onnx_shape_internal.h"

#include "core/checked.h"
#include "core/err.h"
#include "core/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int onnx_infer_error(const struct ox_infer *c, const char *fmt, ...)
{
    struct strbuf msg = STRBUF_INIT;
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = strbuf_vaddf(&msg, fmt, ap);
    va_end(ap);
    if (rc == 0) {
        rc = err_set(BAECHI_EPARSE, "%s: node '%s' (%s): %s", c->file, c->name, c->op, msg.buf);
    }
    strbuf_release(&msg);
    return rc;
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

const Onnx__AttributeProto *onnx_attr(const Onnx__NodeProto *nd, const char *name)
{
    for (size_t i = 0; i < nd->n_attribute; i++) {
        if (nd->attribute[i]->name && strcmp(nd->attribute[i]->name, name) == 0) {
            return nd->attribute[i];
        }
    }
    return NULL;
}

int64_t onnx_attr_i(const Onnx__NodeProto *nd, const char *name, int64_t def)
{
    const Onnx__AttributeProto *a = onnx_attr(nd, name);

    return a && a->has_i ? a->i : def;
}

int onnx_attr_ints(const Onnx__NodeProto *nd, const char *name, int64_t *out, int max)
{
    const Onnx__AttributeProto *a = onnx_attr(nd, name);

    if (!a) {
        return -1;
    }
    for (size_t i = 0; i < a->n_ints && (int)i < max; i++) {
        out[i] = a->ints[i];
    }
    return (int)(a->n_ints < (size_t)max ? a->n_ints : (size_t)max);
}

const char *onnx_attr_s(const Onnx__NodeProto *nd, const char *name, char *buf, size_t size)
{
    const Onnx__AttributeProto *a = onnx_attr(nd, name);

    if (!a || !a->has_s) {
        return NULL;
    }
    snprintf(buf, size, "%.*s", a->s.data ? (int)(a->s.len < size ? a->s.len : size) : 0,
             a->s.data ? (const char *)a->s.data : "");
    return buf;
}

int onnx_norm_axis(const struct ox_infer *c, const char *what, int64_t axis, int rank, int extra,
                   int *out)
{
    if (axis < -(int64_t)rank || axis > (int64_t)rank - 1 + extra) {
        return onnx_infer_error(c, "%s %lld is out of range for rank %d (valid: %d to %d)", what,
                                (long long)axis, rank, -rank, rank - 1 + extra);
    }
    *out = (int)(axis < 0 ? axis + rank : axis);
    return 0;
}

int onnx_axis_attr(const struct ox_infer *c, int64_t def, int rank, int extra, int *out)
{
    return onnx_norm_axis(c, "axis", onnx_attr_i(c->nd, "axis", def), rank, extra, out);
}

bool onnx_broadcast(struct ox_tensor *o, const struct ox_tensor *a, const struct ox_tensor *b)
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

bool onnx_all_known(const struct ox_tensor *t)
{
    return t && t->rank >= 0 && t->nval > 0 && t->nval == onnx_elems(t);
}

int onnx_infer(const char *file, const char *name, const Onnx__NodeProto *nd, struct ox_tensor **in,
               int n_in, struct ox_tensor *out, int n_out, double *flops, bool *known)
{
    /* the families, in no particular order: their operator sets are disjoint */
    static onnx_infer_fn (*const family[])(const char *op) = {
        onnx_shape_conv_find,        onnx_shape_matmul_find, onnx_shape_rnn_find,
        onnx_shape_elementwise_find, onnx_shape_layout_find, onnx_shape_const_find,
    };
    struct ox_infer c = {
        .file = file,
        .name = name,
        .op = nd->op_type,
        .nd = nd,
        .in = in,
        .n_in = n_in,
        .a = n_in > 0 ? in[0] : NULL,
        .b = n_in > 1 ? in[1] : NULL,
        .out = out,
        .n_out = n_out,
        .flops = flops,
    };

    *known = true;
    *flops = 0;
    if (n_out == 0) {
        return 0;
    }
    if (c.a) {
        out[0].elem = c.a->elem;
    }
    for (size_t i = 0; i < sizeof(family) / sizeof(family[0]); i++) {
        onnx_infer_fn fn = family[i](nd->op_type);

        if (fn) {
            return fn(&c);
        }
    }
    *known = false;
    return 0;
}
