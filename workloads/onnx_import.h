/*
 * onnx_import.h - ONNX model -> workload (forward graph, optionally the
 * training graph).
 *
 * One op per ONNX node (type = op_type), one per graph input (Placeholder),
 * except (docs/onnx-import.md):
 *   - nodes whose outputs are known at import time (Constant, Shape, and
 *     Gather, Slice, Squeeze, Unsqueeze, Concat, Cast, Identity, Add, Sub,
 *     Mul, Div, Range on such values: shape arithmetic) are folded: no op,
 *     their values feed the shape inference of Reshape, Slice, Expand, ...;
 *   - recognised patterns are one op, named after their first node, with
 *     the FLOPs of all their nodes and the last node's outputs:
 *     LayerNormalization (the decomposed ReduceMean ... Add form), Gelu
 *     (erf and tanh forms), Softmax (an attention score's scale, mask and
 *     softmax), MatMul (a Linear: MatMul by a parameter, then the bias Add);
 *   - nodes that only move parameters (a Linear weight's Transpose, an
 *     LSTM's gate reordering) are no op: the parameter is their reader's.
 * Initializers: a trainable one (floating point, more than one element, not
 * a BatchNormalization running mean / variance) read by exactly one node
 * becomes that node's persistent memory and parameters; a non-trainable one
 * of at most 16 elements is folded; any other initializer becomes an op of
 * its own ("Initializer" when trainable, else "Constant") holding it, so
 * that shared weights (tied embeddings) are one tensor.  Only the dims
 * matter: the weight payload may be absent.
 * Tensor sizes come from value_info (and the graph outputs' types) where
 * the shape is fully known, else from our own shape inference for the
 * common operators (docs/workloads.md lists them with their FLOP rules).
 * An operator we do not know gets a warning naming it, outputs sized like
 * its first input and one FLOP per output element; never a silent zero.  A
 * known operator whose output shape needs a value not known at import time
 * gets a warning naming that input.
 *
 * Sizes are inferred with symbolic dimensions bound to 1, then activation
 * sizes and FLOPs are multiplied by batch / B0 (B0 = the first graph input's
 * leading dimension when static, else 1).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_WORKLOADS_ONNX_IMPORT_H
#define BAECHI_WORKLOADS_ONNX_IMPORT_H

#include "core/workload.h"

#include <stddef.h>
#include <stdint.h>

/*
 * The loss added after the model's output for a training graph (an ONNX
 * model holds none; docs/onnx-import.md, "The loss"):
 *   ONNX_LOSS_NONE           no loss op (a forward graph; or backward seeded
 *                            with a given output gradient, as
 *                            out.sum().backward(): nothing kept for it);
 *   ONNX_LOSS_CROSS_ENTROPY  "labels" (a Placeholder: int64 class indices,
 *                            one per row of the logits) and "loss", a
 *                            SoftmaxCrossEntropyWithLogits reading the first
 *                            graph output and the labels: its gradient keeps
 *                            the logits, as many bytes as PyTorch's
 *                            cross_entropy keeps (the log-softmax result);
 *   ONNX_LOSS_MSE            "targets" (a Placeholder shaped like the output)
 *                            and "loss", a MeanSquaredError reading both:
 *                            its gradient keeps the output and the targets,
 *                            as PyTorch's mse_loss does;
 *   ONNX_LOSS_DEFAULT        what a training script of the model would use,
 *                            by this rule on the first graph output:
 *                            cross-entropy when a linear layer (MatMul or
 *                            Gemm, through views) produces it and either it
 *                            has rank 2 and at least 2 columns (class logits
 *                            [N, C]) or rank 3 or more while a graph input
 *                            holds integers (token ids: logits over a
 *                            vocabulary, [B, S, V]); mse when a linear layer
 *                            produces it otherwise (a regression head);
 *                            none when no linear layer does (a block or an
 *                            encoder without its head: hidden states).
 * The loss ops are the last ops of the workload; the names get a suffix
 * when the model already has such a name.
 */
enum onnx_loss {
    ONNX_LOSS_NONE = 0,
    ONNX_LOSS_DEFAULT,
    ONNX_LOSS_CROSS_ENTROPY,
    ONNX_LOSS_MSE,
};

/* "cross-entropy", "mse", "none" -> *loss; BAECHI_EINVAL naming the value
 * and the known ones otherwise. */
int onnx_parse_loss(const char *s, enum onnx_loss *loss);
/* The name onnx_parse_loss() reads ("default" for ONNX_LOSS_DEFAULT). */
const char *onnx_loss_name(enum onnx_loss loss);

struct onnx_import_stats;

/*
 * Appends to the workload name in sb _loss<ce|mse|none> when st's loss is
 * not the one the default rule picks (a name says every non-default
 * option, docs/workloads.md "Names").  0 or BAECHI_ENOMEM (message set).
 */
struct strbuf;
int onnx_loss_name_suffix(struct strbuf *sb, const struct onnx_import_stats *st);

struct onnx_import_opts {
    int64_t batch;       /* 0 = as exported */
    enum onnx_loss loss; /* ONNX_LOSS_NONE (0): none */
};

struct onnx_import_stats {
    int32_t n_nodes;
    int32_t n_unknown;           /* nodes of operators we do not know (warned) */
    int32_t n_from_value_info;   /* node outputs sized from value_info */
    int32_t n_folded;            /* nodes known at import time (shape arithmetic): no op */
    int32_t n_fused;             /* nodes costed as part of a recognised pattern's op */
    int64_t params;              /* trainable parameters (elements) */
    double flops;                /* Σ FLOPs (of the model's nodes, without the loss) */
    enum onnx_loss loss;         /* the loss added (never ONNX_LOSS_DEFAULT) */
    enum onnx_loss loss_default; /* what ONNX_LOSS_DEFAULT picks for this model */
};

/*
 * Reads the ONNX model at `path` into `w` (initialised here; released on
 * failure).  A file that is not a valid ONNX model, or one that refers to
 * tensors nobody produces, is BAECHI_EPARSE with a message naming the file
 * (and node); an unreadable one BAECHI_EIO.  stats may be NULL.
 */
int onnx_import(struct workload *w, const char *path, const struct onnx_import_opts *o,
                struct onnx_import_stats *stats);

/* Same from a buffer; `name` stands for the file in messages. */
int onnx_import_buffer(struct workload *w, const uint8_t *data, size_t len, const char *name,
                       const struct onnx_import_opts *o, struct onnx_import_stats *stats);

#endif
