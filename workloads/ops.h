/*
 * ops.h - the one table of op semantics: for every op type the suite knows
 * (what the generators emit, what the training synthesis handles, what the
 * ONNX importer maps to), one row saying what the op does.  The training
 * synthesis (train.c), the ONNX shape inference and importer and the
 * documentation (`baechi workload ops --markdown`, docs/training-memory.md)
 * read it; nothing else keeps a list of op types.
 *
 * The columns of a row (struct ops_row):
 *
 *   type      the op type, as written in a workload file (TensorFlow's or
 *             ONNX's spelling; both when they differ, one row each).
 *   cat       what kind of op it is (enum ops_category): documentation and
 *             the pooling test of a Pad (OPS_POOL_PAD below).
 *   cost      the rule the generators (workloads/gen_*.c) and the ONNX
 *             shape inference (onnx_shape.c) apply for its FLOPs (enum
 *             ops_cost).  It describes; the code that knows the shapes
 *             applies it.  Bytes are the same for every type: inputs read +
 *             outputs written + parameters read (gen_build.h).
 *   save      what its gradient op reads of the forward pass, i.e. what
 *             PyTorch's autograd saves for it (enum ops_save; measured in
 *             docs/pytorch-memory.md).  Parameters are held anyway.
 *   extra_bytes_per_elem
 *             a buffer the forward op saves for backward beside its tensors,
 *             in bytes per element of its first output: max pooling's
 *             indices 8 (int64), dropout's mask 1; 0 none.  It becomes an
 *             extra output of the forward op, read by the gradient op.
 *   flags     enum ops_flags: view / in place (of the first data input),
 *             pad of a pooling op, no gradient, data source, parameter view
 *             (importer), element-wise unary / binary (ONNX shape
 *             inference), member of an exporter's decomposed pattern.
 *
 * A type without a row gets the defaults: OPS_SAVE_INPUTS, no extra
 * buffer, differentiable, not a view, no flags (ops_find() returns NULL).
 *
 * To add an op type: add one row to the table in ops.c, in strcmp order
 * (the unit test checks it is sorted and unique), and one check of its
 * semantics in tests/unit/test_ops.c; then regenerate the documentation
 * table (`baechi workload ops --markdown`, pasted into
 * docs/training-memory.md; CLI test t126 compares them).
 *
 * The table is static const (the library is used from several threads);
 * a lookup is a binary search, O(log n) string compares.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_WORKLOADS_OPS_H
#define BAECHI_WORKLOADS_OPS_H

#include <stdbool.h>
#include <stddef.h>

enum ops_category {
    OPS_CAT_OTHER = 0,   /* the model's own kind (a synthetic op, an attention score) */
    OPS_CAT_SOURCE,      /* a step's input data (placeholders, iterators) */
    OPS_CAT_PARAM,       /* a trainable parameter (variables, ONNX initializers) */
    OPS_CAT_CONST,       /* a constant, a shape computation, a random fill */
    OPS_CAT_CONV,        /* convolution */
    OPS_CAT_MATMUL,      /* matrix products (dense layers, batched, Gemm) */
    OPS_CAT_RNN,         /* a recurrent cell or layer */
    OPS_CAT_NORM,        /* batch, layer, instance normalisation */
    OPS_CAT_ACTIVATION,  /* element-wise non-linearities, softmax */
    OPS_CAT_ELEMENTWISE, /* element-wise arithmetic (add, mul, ...) */
    OPS_CAT_COMPARE,     /* comparisons and logic (boolean results) */
    OPS_CAT_POOL,        /* pooling */
    OPS_CAT_REDUCE,      /* reductions */
    OPS_CAT_MOVE,        /* moves data without arithmetic: views, concat, split, pad, gather */
    OPS_CAT_LOSS,        /* a loss */
    OPS_CAT_CONTROL,     /* bookkeeping: no-ops, assignments, iterators' handles */
    OPS_CAT_UPDATE,      /* an optimizer's update (added by the training synthesis) */
};
#define OPS_N_CATEGORIES (OPS_CAT_UPDATE + 1)

enum ops_cost {
    OPS_COST_NONE = 0,   /* 0 FLOPs: moves, sources, parameters, constants */
    OPS_COST_MACS,       /* 2 per multiply-add (+1 per output element for a bias) */
    OPS_COST_WINDOW,     /* output elements x kernel window (pooling) */
    OPS_COST_ELEM,       /* 1 per output element (x (inputs - 1) for n-ary ops) */
    OPS_COST_ELEM5,      /* 5 per output element (norms, softmax, losses: per logit) */
    OPS_COST_ELEM8,      /* 8 per element (GELU, tanh form, in the generators) */
    OPS_COST_INPUT_ELEM, /* 1 per input element (reductions, global pooling) */
    OPS_COST_RNN,        /* the cell's matmuls (2 per multiply-add) + gate arithmetic */
    OPS_COST_UPDATE,     /* per parameter: SGD 2, momentum 4, Adam 12 (train.c) */
    OPS_COST_OTHER,      /* op-specific, see its generator */
};
#define OPS_N_COSTS (OPS_COST_OTHER + 1)

/* What autograd saves for backward (the default is OPS_SAVE_INPUTS). */
enum ops_save {
    OPS_SAVE_INPUTS = 0,  /* every data input (convolution, matmul, mul, losses) */
    OPS_SAVE_FIRST_INPUT, /* the first data input only (norms, GELU, pooling) */
    OPS_SAVE_RESULT,      /* its result (ReLU, sigmoid, tanh, softmax, exp) */
    OPS_SAVE_NOTHING,     /* only shapes (add, concat, views, reductions to a mean) */
    /* a data input only when another input needs a gradient (x * y keeps y
     * for x's gradient and x for y's; x * constant and x / constant keep no
     * activation: PyTorch's MulBackward0 / DivBackward0) */
    OPS_SAVE_OTHER_INPUTS,
};
#define OPS_N_SAVES (OPS_SAVE_OTHER_INPUTS + 1)

enum ops_flags {
    /* its one output is a view of its first data input (shares its storage) */
    OPS_VIEW = 1 << 0,
    /* runs in place on its first data input when it is that storage's only
     * reader (torchvision's ReLU(inplace=True)) */
    OPS_IN_PLACE = 1 << 1,
    /* a view of its input when its one reader is a pooling op (the
     * pooling's own padding, split off by the ONNX exporter) */
    OPS_POOL_PAD = 1 << 2,
    /* carries no gradient (TF's NotDifferentiable, ONNX's integer ops) */
    OPS_NO_GRAD = 1 << 3,
    /* feeds a step's data: runs once per micro-batch */
    OPS_DATA = 1 << 4,
    /* ONNX importer: may only move a parameter (a Transpose of a Linear
     * weight, an LSTM's gate reordering), then it is no op of its own */
    OPS_PARAM_VIEW = 1 << 5,
    /* ONNX shape inference: the output has the first input's shape */
    OPS_UNARY = 1 << 6,
    /* ONNX shape inference: the output is the inputs' broadcast shape */
    OPS_BINARY = 1 << 7,
    /* ONNX importer: may be part of an exporter's decomposed layer norm or
     * GELU (the element-wise region from a data value) */
    OPS_IN_NORM_PATTERN = 1 << 8,
    /* ONNX importer: may be part of the scale / mask / softmax of attention
     * scores (the region from a MatMul's output) */
    OPS_IN_SOFTMAX_PATTERN = 1 << 9,
};

struct ops_row {
    const char *type;
    enum ops_category cat;
    enum ops_cost cost;
    enum ops_save save;
    int extra_bytes_per_elem;
    unsigned flags; /* enum ops_flags */
};

/* The row of `type`, NULL when the table has none (then the defaults
 * above apply).  O(log n). */
const struct ops_row *ops_find(const char *type);

/* The whole table, sorted by type (strcmp); *n gets its length. */
const struct ops_row *ops_table(size_t *n);

/* Names of the enum values, for listings ("conv", "2 x MACs", "result", ...). */
const char *ops_category_name(enum ops_category c);
const char *ops_cost_name(enum ops_cost c);
const char *ops_save_name(enum ops_save s);

/* Lookups by type name; a type without a row gets the defaults. */
enum ops_save ops_save_of(const char *type);
int ops_extra_bytes_per_elem(const char *type);
bool ops_has_flag(const char *type, enum ops_flags flag);
bool ops_has_gradient(const char *type);          /* !OPS_NO_GRAD */
bool ops_is_view(const char *type);               /* OPS_VIEW */
bool ops_runs_in_place(const char *type);         /* OPS_IN_PLACE */
bool ops_is_data(const char *type);               /* OPS_DATA */
bool ops_is_pool(const char *type);               /* category OPS_CAT_POOL */
bool ops_is_param_view(const char *type);         /* OPS_PARAM_VIEW */
bool ops_is_elementwise_unary(const char *type);  /* OPS_UNARY */
bool ops_is_elementwise_binary(const char *type); /* OPS_BINARY */

/* The op types Megatron's vocabulary-parallel head is recognised by
 * (workloads/parallel_tp.c): the softmax cross-entropy over the logits,
 * the head's dense product (MatMul, Gemm), the table lookup of an
 * embedding (Gather, GatherV2, Embedding). */
bool ops_is_softmax_cross_entropy(const char *type);
bool ops_is_dense_product(const char *type);
bool ops_is_table_lookup(const char *type);

/* A type whose name says it multiplies by a weight matrix or kernel
 * (MatMul, Gemm or Conv in it, unknown types included): tensor parallelism
 * refuses such an op outside the blocks it can split. */
bool ops_names_weight_product(const char *type);

/*
 * Megatron-LM tensor parallelism's role of a forward op, recognised from
 * its name as the generators write it (gen gpt's h<l>/attn/{qkv,scores,
 * softmax,context,out} and h<l>/mlp/{c_fc,gelu,c_proj}, gen transformer's
 * .../self_attention, .../cross_attention and .../ffn/{fc1,relu,fc2}):
 * the op's last name component in a block named by the one before.  ENTRY
 * is column-parallel (input whole, output split), INNER runs on split
 * tensors throughout, EXIT is row-parallel (a partial sum).  The parallel
 * transform (parallel_tp.c) adds the roles it derives from the graph
 * (the vocabulary-parallel loss, sequence parallelism).  Names kept here
 * beside the types, so that one file holds what the suite recognises ops by.
 */
enum ops_tp_role { OPS_TP_NONE = 0, OPS_TP_ENTRY, OPS_TP_INNER, OPS_TP_EXIT };

/* The role of the op named name[0..n) (not NUL-terminated). O(n). */
enum ops_tp_role ops_tp_role_of_name(const char *name, size_t n);

#endif
