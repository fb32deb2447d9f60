/*
 * onnx_shape_conv.c - shape inference and FLOPs of the windowed operators:
 * Conv, MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool (see
 * onnx_shape.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/onnx_shape_internal.h"

#include "core/checked.h"

#include <string.h>

/*
 * Output spatial size of a conv / pool along axis i (into *out).  k, s, d
 * >= 1 and pads >= 0 are checked by the caller; the arithmetic is checked
 * here (a dilation of 2^62 must not wrap).
 */
static int window_out(const struct ox_infer *c, int i, int64_t in, int64_t k, int64_t s, int64_t pb,
                      int64_t pe, int64_t d, bool ceil_mode, const char *auto_pad, int64_t *out)
{
    int64_t eff, padded;
    bool valid;

    if (checked_mul_i64(d, k - 1, &eff) || checked_add_i64(eff, 1, &eff)) {
        return onnx_infer_error(c,
                                "spatial axis %d: dilation %lld x (kernel %lld - 1) overflows 64 "
                                "bits",
                                i, (long long)d, (long long)k);
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
        return onnx_infer_error(c,
                                "spatial axis %d: input %lld + pads %lld + %lld overflows 64 bits",
                                i, (long long)in, (long long)pb, (long long)pe);
    }
    if (padded < eff) {
        return onnx_infer_error(c,
                                "spatial axis %d: the window (kernel %lld, dilation %lld: %lld) is "
                                "larger than the padded input (%lld)",
                                i, (long long)k, (long long)d, (long long)eff, (long long)padded);
    }
    padded -= eff;
    *out = padded / s + (ceil_mode && !valid && padded % s != 0) + 1;
    return 0;
}

/* Conv, MaxPool, AveragePool */
static int infer_window(const struct ox_infer *c)
{
    const Onnx__NodeProto *nd = c->nd;
    const struct ox_tensor *a = c->a, *b = c->b;
    struct ox_tensor *out = c->out, *o = &out[0];
    bool conv = c->op[0] == 'C';
    int64_t k[OX_MAX_RANK], s[OX_MAX_RANK], d[OX_MAX_RANK], p[2 * OX_MAX_RANK];
    char pad[32];
    int sp, rc;

    if (!a || a->rank < 3 || (conv && (!b || b->rank != a->rank))) {
        return 0;
    }
    sp = a->rank - 2;
    for (int i = 0; i < sp; i++) {
        k[i] = conv ? b->dim[2 + i] : 1;
        s[i] = d[i] = 1;
        p[i] = p[sp + i] = 0;
    }
    onnx_attr_ints(nd, "kernel_shape", k, sp);
    onnx_attr_ints(nd, "strides", s, sp);
    onnx_attr_ints(nd, "dilations", d, sp);
    onnx_attr_ints(nd, "pads", p, 2 * sp);
    /* ONNX: kernel sizes, strides and dilations >= 1, pads >= 0 */
    for (int i = 0; i < sp; i++) {
        if (k[i] < 1 || s[i] < 1 || d[i] < 1 || p[i] < 0 || p[sp + i] < 0) {
            return onnx_infer_error(c,
                                    "spatial axis %d: kernel %lld, stride %lld, dilation %lld, "
                                    "pads %lld and %lld (kernel, stride and dilation must be >= "
                                    "1, pads >= 0)",
                                    i, (long long)k[i], (long long)s[i], (long long)d[i],
                                    (long long)p[i], (long long)p[sp + i]);
        }
    }
    o->rank = a->rank;
    o->dim[0] = a->dim[0];
    o->dim[1] = conv ? b->dim[0] : a->dim[1];
    for (int i = 0; i < sp; i++) {
        if ((rc = window_out(c, i, a->dim[2 + i], k[i], s[i], p[i], p[sp + i], d[i],
                             onnx_attr_i(nd, "ceil_mode", 0) != 0,
                             onnx_attr_s(nd, "auto_pad", pad, sizeof(pad)), &o->dim[2 + i]))) {
            return rc;
        }
    }
    if (conv) {
        double kk = 1;

        for (int i = 1; i < b->rank; i++) {
            kk *= (double)b->dim[i];
        }
        *c->flops = 2.0 * (double)onnx_elems(o) * kk + (c->n_in > 2 ? (double)onnx_elems(o) : 0);
    } else {
        double kk = 1;

        for (int i = 0; i < sp; i++) {
            kk *= (double)k[i];
        }
        *c->flops = (double)onnx_elems(o) * kk;
    }
    for (int j = 1; j < c->n_out; j++) { /* MaxPool indices */
        out[j] = *o;
        out[j].elem = 8;
    }
    return 0;
}

/* GlobalAveragePool, GlobalMaxPool */
static int infer_global_pool(const struct ox_infer *c)
{
    const struct ox_tensor *a = c->a;
    struct ox_tensor *o = &c->out[0];

    if (a && a->rank >= 3) {
        *o = *a;
        for (int i = 2; i < a->rank; i++) {
            o->dim[i] = 1;
        }
        *c->flops = (double)onnx_elems(a);
    }
    return 0;
}

onnx_infer_fn onnx_shape_conv_find(const char *op)
{
    if (strcmp(op, "Conv") == 0 || strcmp(op, "MaxPool") == 0 || strcmp(op, "AveragePool") == 0) {
        return infer_window;
    }
    if (strcmp(op, "GlobalAveragePool") == 0 || strcmp(op, "GlobalMaxPool") == 0) {
        return infer_global_pool;
    }
    return NULL;
}
