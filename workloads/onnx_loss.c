/*
 * onnx_loss.c - the loss of an imported training graph (onnx_import.h,
 * enum onnx_loss): the rule that picks it, and its ops after the model's
 * first graph output.  An ONNX export holds the model only; the training
 * step of the model also runs its loss, and the loss's backward keeps a
 * tensor of the output's size (PyTorch's cross_entropy keeps the
 * log-softmax result, mse_loss the prediction): without it, an imported
 * language model's saved bytes miss the logits, about a fifth of a GPT-2's.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/onnx_import_internal.h"

#include "core/err.h"
#include "core/strbuf.h"
#include "core/workload.h"
#include "workloads/ops.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const char *const loss_names[] = {"none", "default", "cross-entropy", "mse"};

int onnx_parse_loss(const char *s, enum onnx_loss *loss)
{
    for (int i = 0; i < (int)(sizeof(loss_names) / sizeof(loss_names[0])); i++) {
        if (i != ONNX_LOSS_DEFAULT && strcmp(s, loss_names[i]) == 0) {
            *loss = (enum onnx_loss)i;
            return 0;
        }
    }
    return err_set(BAECHI_EINVAL, "unknown loss '%s' (known: cross-entropy, mse, none)", s);
}

const char *onnx_loss_name(enum onnx_loss loss)
{
    return (unsigned)loss < sizeof(loss_names) / sizeof(loss_names[0]) ? loss_names[loss] : "?";
}

int onnx_loss_name_suffix(struct strbuf *sb, const struct onnx_import_stats *st)
{
    static const char *const sfx[] = {"none", "", "ce", "mse"};

    if (st->loss != st->loss_default && (unsigned)st->loss < sizeof(sfx) / sizeof(sfx[0])) {
        return strbuf_addf(sb, "_loss%s", sfx[st->loss]);
    }
    return 0;
}

/* ONNX TensorProto.DataType: the integer types (token ids, class indices) */
static bool is_int_type(int32_t t)
{
    return (t >= 2 && t <= 7) || t == 12 || t == 13;
}

/* The elem_type of a value_info's tensor type, 0 when unknown. */
static int32_t vi_elem_type(const Onnx__ValueInfoProto *vi)
{
    const Onnx__TypeProto__Tensor *tt;

    if (!vi || !vi->type || vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
        !(tt = vi->type->tensor_type) || !tt->has_elem_type) {
        return 0;
    }
    return tt->elem_type;
}

/* Whether op `op` of w is a linear layer (MatMul, Gemm: the category
 * matmul), looking through views (a Reshape of the logits) to what they
 * view. */
static bool made_by_linear(const struct workload *w, int32_t op)
{
    for (int32_t hops = 0; op >= 0 && hops < w->n_ops; hops++) {
        const struct wl_op *o = &w->op[op];
        const struct ops_row *row = ops_find(o->type);
        int32_t next = -1;

        if (row && row->cat == OPS_CAT_MATMUL) {
            return true;
        }
        if (!ops_is_view(o->type)) {
            return false;
        }
        for (int32_t k = 0; k < o->n_in && next < 0; k++) {
            if (w->input[o->in_off + k].port != WL_PORT_CONTROL) {
                next = w->input[o->in_off + k].producer;
            }
        }
        op = next;
    }
    return false;
}

/* The rule of ONNX_LOSS_DEFAULT (onnx_import.h) for output tensor t. */
static enum onnx_loss default_loss(const struct ox *x, const struct ox_tensor *t, int32_t elem_type)
{
    bool int_input = false;

    if (t->op < 0 || (elem_type != 0 && is_int_type(elem_type)) || !made_by_linear(x->w, t->op)) {
        return ONNX_LOSS_NONE;
    }
    for (size_t i = 0; i < x->g->n_input; i++) {
        const Onnx__ValueInfoProto *vi = x->g->input[i];
        int32_t id = vi->name ? ox_find(x, vi->name) : -1;

        /* a graph input that is no initializer: a Placeholder op */
        if (id >= 0 && x->t[id].act && is_int_type(vi_elem_type(vi))) {
            int_input = true;
        }
    }
    if ((t->rank == 2 && t->dim[1] >= 2) || (t->rank >= 3 && int_input)) {
        return ONNX_LOSS_CROSS_ENTROPY;
    }
    return ONNX_LOSS_MSE;
}

/* A Placeholder named after `base` with one output of `bytes`: *op. */
static int add_source(struct ox *x, const char *base, int64_t bytes, int32_t *op)
{
    struct strbuf name = STRBUF_INIT;
    int rc;

    if ((rc = op_names_unique(&x->names, x->w, base, &name)) == 0 &&
        (rc = workload_add_op(x->w, name.buf, "Placeholder", op)) == 0 &&
        (rc = workload_add_output(x->w, bytes)) == 0) {
        x->w->op[*op].flops = 0;
    }
    strbuf_release(&name);
    return rc;
}

int ox_add_loss(struct ox *x, enum onnx_loss want)
{
    const Onnx__ValueInfoProto *vi = x->g->n_output > 0 ? x->g->output[0] : NULL;
    int32_t id = vi && vi->name ? ox_find(x, vi->name) : -1;
    const struct ox_tensor *t = id >= 0 ? &x->t[id] : NULL;
    int64_t out_bytes, elems, rows, src_bytes;
    int32_t src, loss;
    const char *type;
    struct strbuf name = STRBUF_INIT;
    int rc;

    x->st.loss_default = t ? default_loss(x, t, vi_elem_type(vi)) : ONNX_LOSS_NONE;
    x->st.loss = want == ONNX_LOSS_DEFAULT ? x->st.loss_default : want;
    if (x->st.loss == ONNX_LOSS_NONE) {
        return 0;
    }
    if (!t || t->op < 0 || t->rank < 1 || t->dim[t->rank - 1] < 1) {
        return err_set(BAECHI_EPARSE,
                       "%s: no %s loss: the first graph output%s%s%s is not a tensor of known "
                       "shape computed by the model",
                       x->file, onnx_loss_name(x->st.loss), t ? " '" : "", t ? t->name : "",
                       t ? "'" : "");
    }
    out_bytes = x->w->out_bytes[x->w->op[t->op].out_off + t->port];
    elems = out_bytes / (t->elem > 0 ? t->elem : 4);
    if (x->st.loss == ONNX_LOSS_CROSS_ENTROPY) {
        /* one int64 class index per row of logits (the class is the last
         * dimension, as logits.view(-1, V) for a language model) */
        rows = elems / t->dim[t->rank - 1];
        src_bytes = rows * 8;
        type = "SoftmaxCrossEntropyWithLogits";
    } else {
        src_bytes = out_bytes; /* the targets, shaped like the output */
        type = "MeanSquaredError";
    }
    if ((rc = add_source(x, x->st.loss == ONNX_LOSS_CROSS_ENTROPY ? "labels" : "targets", src_bytes,
                         &src)) ||
        (rc = op_names_unique(&x->names, x->w, "loss", &name)) ||
        (rc = workload_add_op(x->w, name.buf, type, &loss)) ||
        (rc = workload_add_input(x->w, t->op, t->port, 0, 0)) ||
        (rc = workload_add_input(x->w, src, 0, 0, 0)) ||
        (rc = workload_add_output(x->w, 4))) { /* the loss: one fp32 scalar */
        strbuf_release(&name);
        return rc;
    }
    strbuf_release(&name);
    /* 5 per logit (ops.c: exp, sum, log, the label's pick, the mean), 1 per
     * element of each input of the squared error */
    x->w->op[loss].flops =
        x->st.loss == ONNX_LOSS_CROSS_ENTROPY ? 5.0 * (double)elems : 2.0 * (double)elems;
    return 0;
}
