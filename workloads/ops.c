/*
 * ops.c - the table of op semantics (see ops.h for the columns and how to
 * add a row).
 *
 * The rows keep what the lists they replace said, oddities included (an
 * outputs-equal refactor): "View" saves its inputs (it was a view but not
 * in the saved-for-backward table), MaxPoolV2 / MaxPool3D save every input.
 * Comparisons and logic (OPS_CAT_COMPARE) carry no gradient, every one of
 * them (a boolean result has no derivative; TensorFlow registers them
 * NotDifferentiable and PyTorch's autograd gives them none).
 *
 * The recurrent layers (ONNX LSTM, GRU, RNN) save their per-step state as
 * PyTorch's CPU path does (docs/pytorch-memory.md, measured on an LSTM
 * seq2seq and a 2-layer GRU): per step and direction, LSTM h_{t-1}, the
 * four gates (one 4H storage), c_t and tanh(c_t), GRU h_{t-1}, the three
 * hidden gates (3H), the new gate, h - n and one more H: 7 floats per
 * hidden unit, 28 bytes per element of the output Y; the Elman RNN
 * h_{t-1} and its tanh result, 8 bytes (not measured).  cuDNN keeps its
 * reserve space instead (an estimate: about the same gate activations,
 * docs/pytorch-memory.md).  TF's LSTMBlockCell (gen gnmt) saves its
 * outputs and is unchanged.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/ops.h"

#include <stdlib.h>
#include <string.h>

/* Sorted by type (strcmp): tests/unit/test_ops.c checks it. */
static const struct ops_row rows[] = {
    {"Abs", OPS_CAT_ACTIVATION, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_UNARY},
    {"Add", OPS_CAT_ELEMENTWISE, OPS_COST_ELEM, OPS_SAVE_NOTHING, 0,
     OPS_BINARY | OPS_IN_NORM_PATTERN | OPS_IN_SOFTMAX_PATTERN},
    {"AddN", OPS_CAT_ELEMENTWISE, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, 0},
    {"AddV2", OPS_CAT_ELEMENTWISE, OPS_COST_ELEM, OPS_SAVE_NOTHING, 0, 0},
    {"And", OPS_CAT_COMPARE, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD | OPS_BINARY},
    {"ApplyAdam", OPS_CAT_UPDATE, OPS_COST_UPDATE, OPS_SAVE_INPUTS, 0, 0},
    {"ApplyGradientDescent", OPS_CAT_UPDATE, OPS_COST_UPDATE, OPS_SAVE_INPUTS, 0, 0},
    {"ApplyMomentum", OPS_CAT_UPDATE, OPS_COST_UPDATE, OPS_SAVE_INPUTS, 0, 0},
    {"ArgMax", OPS_CAT_REDUCE, OPS_COST_INPUT_ELEM, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD},
    {"ArgMin", OPS_CAT_REDUCE, OPS_COST_INPUT_ELEM, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD},
    {"Assign", OPS_CAT_CONTROL, OPS_COST_NONE, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD},
    {"AveragePool", OPS_CAT_POOL, OPS_COST_WINDOW, OPS_SAVE_FIRST_INPUT, 0, 0},
    {"AvgPool", OPS_CAT_POOL, OPS_COST_WINDOW, OPS_SAVE_FIRST_INPUT, 0, 0},
    {"AvgPool3D", OPS_CAT_POOL, OPS_COST_WINDOW, OPS_SAVE_INPUTS, 0, 0},
    {"BahdanauScore", OPS_CAT_OTHER, OPS_COST_OTHER, OPS_SAVE_INPUTS, 0, 0},
    {"BatchMatMul", OPS_CAT_MATMUL, OPS_COST_MACS, OPS_SAVE_INPUTS, 0, 0},
    {"BatchNormalization", OPS_CAT_NORM, OPS_COST_ELEM5, OPS_SAVE_FIRST_INPUT, 0, OPS_UNARY},
    {"BiasAdd", OPS_CAT_ELEMENTWISE, OPS_COST_ELEM, OPS_SAVE_NOTHING, 0, 0},
    {"Cast", OPS_CAT_ELEMENTWISE, OPS_COST_NONE, OPS_SAVE_INPUTS, 0, OPS_UNARY},
    {"Ceil", OPS_CAT_ACTIVATION, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_UNARY},
    {"Clip", OPS_CAT_ACTIVATION, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_UNARY},
    {"Concat", OPS_CAT_MOVE, OPS_COST_NONE, OPS_SAVE_NOTHING, 0, OPS_PARAM_VIEW},
    {"ConcatV2", OPS_CAT_MOVE, OPS_COST_NONE, OPS_SAVE_NOTHING, 0, 0},
    {"Const", OPS_CAT_CONST, OPS_COST_NONE, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD},
    {"Constant", OPS_CAT_CONST, OPS_COST_NONE, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD},
    {"ConstantOfShape", OPS_CAT_CONST, OPS_COST_NONE, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD},
    {"Conv", OPS_CAT_CONV, OPS_COST_MACS, OPS_SAVE_INPUTS, 0, 0},
    {"Conv2D", OPS_CAT_CONV, OPS_COST_MACS, OPS_SAVE_INPUTS, 0, 0},
    {"Cos", OPS_CAT_ACTIVATION, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_UNARY},
    {"CumSum", OPS_CAT_REDUCE, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_UNARY},
    {"Div", OPS_CAT_ELEMENTWISE, OPS_COST_ELEM, OPS_SAVE_OTHER_INPUTS, 0,
     OPS_BINARY | OPS_IN_NORM_PATTERN | OPS_IN_SOFTMAX_PATTERN},
    {"Dropout", OPS_CAT_ELEMENTWISE, OPS_COST_NONE, OPS_SAVE_NOTHING, 1, OPS_UNARY},
    /* residual + dropout(y), fused as Megatron-LM's bias_dropout_add (gen gpt, transformer) */
    {"DropoutAdd", OPS_CAT_ELEMENTWISE, OPS_COST_ELEM, OPS_SAVE_NOTHING, 1, 0},
    {"Elu", OPS_CAT_ACTIVATION, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_UNARY},
    {"Equal", OPS_CAT_COMPARE, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD | OPS_BINARY},
    {"Erf", OPS_CAT_ACTIVATION, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_UNARY | OPS_IN_NORM_PATTERN},
    {"Exp", OPS_CAT_ACTIVATION, OPS_COST_ELEM, OPS_SAVE_RESULT, 0, OPS_UNARY},
    {"Expand", OPS_CAT_MOVE, OPS_COST_NONE, OPS_SAVE_INPUTS, 0, 0},
    {"Fill", OPS_CAT_CONST, OPS_COST_NONE, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD},
    {"Flatten", OPS_CAT_MOVE, OPS_COST_NONE, OPS_SAVE_NOTHING, 0, OPS_VIEW | OPS_PARAM_VIEW},
    {"Floor", OPS_CAT_ACTIVATION, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_UNARY},
    {"FractionalAvgPool", OPS_CAT_POOL, OPS_COST_WINDOW, OPS_SAVE_INPUTS, 0, 0},
    {"FractionalMaxPool", OPS_CAT_POOL, OPS_COST_WINDOW, OPS_SAVE_INPUTS, 0, 0},
    {"FusedBatchNorm", OPS_CAT_NORM, OPS_COST_ELEM5, OPS_SAVE_FIRST_INPUT, 0, 0},
    {"FusedBatchNormV3", OPS_CAT_NORM, OPS_COST_ELEM5, OPS_SAVE_FIRST_INPUT, 0, 0},
    {"GRU", OPS_CAT_RNN, OPS_COST_RNN, OPS_SAVE_INPUTS, 28, 0},
    {"Gather", OPS_CAT_MOVE, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, 0},
    {"GatherV2", OPS_CAT_MOVE, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, 0},
    {"Gelu", OPS_CAT_ACTIVATION, OPS_COST_ELEM8, OPS_SAVE_FIRST_INPUT, 0, OPS_UNARY},
    {"Gemm", OPS_CAT_MATMUL, OPS_COST_MACS, OPS_SAVE_INPUTS, 0, 0},
    {"GlobalAveragePool", OPS_CAT_POOL, OPS_COST_INPUT_ELEM, OPS_SAVE_FIRST_INPUT, 0, 0},
    {"GlobalLpPool", OPS_CAT_POOL, OPS_COST_INPUT_ELEM, OPS_SAVE_INPUTS, 0, 0},
    {"GlobalMaxPool", OPS_CAT_POOL, OPS_COST_INPUT_ELEM, OPS_SAVE_INPUTS, 0, 0},
    {"Greater", OPS_CAT_COMPARE, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD | OPS_BINARY},
    {"GreaterEqual", OPS_CAT_COMPARE, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD},
    {"GreaterOrEqual", OPS_CAT_COMPARE, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0,
     OPS_NO_GRAD | OPS_BINARY},
    {"HardSigmoid", OPS_CAT_ACTIVATION, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_UNARY},
    {"HardSwish", OPS_CAT_ACTIVATION, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_UNARY},
    {"Identity", OPS_CAT_MOVE, OPS_COST_NONE, OPS_SAVE_NOTHING, 0,
     OPS_VIEW | OPS_PARAM_VIEW | OPS_UNARY},
    {"Initializer", OPS_CAT_PARAM, OPS_COST_NONE, OPS_SAVE_INPUTS, 0, 0},
    {"InstanceNormalization", OPS_CAT_NORM, OPS_COST_ELEM5, OPS_SAVE_INPUTS, 0, OPS_UNARY},
    {"IsNaN", OPS_CAT_COMPARE, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD | OPS_UNARY},
    {"IteratorGetNext", OPS_CAT_SOURCE, OPS_COST_NONE, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD | OPS_DATA},
    {"IteratorToStringHandle", OPS_CAT_CONTROL, OPS_COST_NONE, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD},
    {"LSTM", OPS_CAT_RNN, OPS_COST_RNN, OPS_SAVE_INPUTS, 28, 0},
    {"LSTMBlockCell", OPS_CAT_RNN, OPS_COST_RNN, OPS_SAVE_INPUTS, 0, 0},
    {"LayerNorm", OPS_CAT_NORM, OPS_COST_ELEM5, OPS_SAVE_FIRST_INPUT, 0, 0},
    {"LayerNormalization", OPS_CAT_NORM, OPS_COST_ELEM5, OPS_SAVE_FIRST_INPUT, 0, OPS_UNARY},
    {"LeakyRelu", OPS_CAT_ACTIVATION, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_UNARY},
    {"Less", OPS_CAT_COMPARE, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD | OPS_BINARY},
    {"LessEqual", OPS_CAT_COMPARE, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD},
    {"LessOrEqual", OPS_CAT_COMPARE, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD | OPS_BINARY},
    {"Log", OPS_CAT_ACTIVATION, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_UNARY},
    {"LogSoftmax", OPS_CAT_ACTIVATION, OPS_COST_ELEM5, OPS_SAVE_INPUTS, 0, OPS_UNARY},
    {"LpPool", OPS_CAT_POOL, OPS_COST_WINDOW, OPS_SAVE_INPUTS, 0, 0},
    {"MatMul", OPS_CAT_MATMUL, OPS_COST_MACS, OPS_SAVE_INPUTS, 0, 0},
    {"Max", OPS_CAT_ELEMENTWISE, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_BINARY},
    {"MaxPool", OPS_CAT_POOL, OPS_COST_WINDOW, OPS_SAVE_FIRST_INPUT, 8, 0},
    {"MaxPool3D", OPS_CAT_POOL, OPS_COST_WINDOW, OPS_SAVE_INPUTS, 8, 0},
    {"MaxPoolV2", OPS_CAT_POOL, OPS_COST_WINDOW, OPS_SAVE_INPUTS, 8, 0},
    {"MaxPoolWithArgmax", OPS_CAT_POOL, OPS_COST_WINDOW, OPS_SAVE_INPUTS, 8, 0},
    {"MaxRoiPool", OPS_CAT_POOL, OPS_COST_OTHER, OPS_SAVE_INPUTS, 0, 0},
    {"Mean", OPS_CAT_REDUCE, OPS_COST_INPUT_ELEM, OPS_SAVE_INPUTS, 0, OPS_BINARY},
    {"MeanSquaredError", OPS_CAT_LOSS, OPS_COST_INPUT_ELEM, OPS_SAVE_INPUTS, 0, 0},
    {"Min", OPS_CAT_ELEMENTWISE, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_BINARY},
    {"Mish", OPS_CAT_ACTIVATION, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_UNARY},
    {"Mod", OPS_CAT_ELEMENTWISE, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_BINARY},
    {"Mul", OPS_CAT_ELEMENTWISE, OPS_COST_ELEM, OPS_SAVE_OTHER_INPUTS, 0,
     OPS_BINARY | OPS_IN_NORM_PATTERN | OPS_IN_SOFTMAX_PATTERN},
    {"Neg", OPS_CAT_ELEMENTWISE, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_UNARY},
    {"NoOp", OPS_CAT_CONTROL, OPS_COST_NONE, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD},
    {"NonZero", OPS_CAT_COMPARE, OPS_COST_NONE, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD},
    {"Not", OPS_CAT_COMPARE, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD | OPS_UNARY},
    {"NotEqual", OPS_CAT_COMPARE, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD},
    {"OneShotIterator", OPS_CAT_CONTROL, OPS_COST_NONE, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD},
    {"OnesLike", OPS_CAT_CONST, OPS_COST_NONE, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD},
    {"Or", OPS_CAT_COMPARE, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD | OPS_BINARY},
    {"PRelu", OPS_CAT_ACTIVATION, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_BINARY},
    {"Pack", OPS_CAT_MOVE, OPS_COST_NONE, OPS_SAVE_INPUTS, 0, 0},
    {"Pad", OPS_CAT_MOVE, OPS_COST_NONE, OPS_SAVE_NOTHING, 0, OPS_POOL_PAD},
    {"Placeholder", OPS_CAT_SOURCE, OPS_COST_NONE, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD | OPS_DATA},
    {"PlaceholderWithDefault", OPS_CAT_SOURCE, OPS_COST_NONE, OPS_SAVE_INPUTS, 0, OPS_DATA},
    {"Pow", OPS_CAT_ELEMENTWISE, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0,
     OPS_BINARY | OPS_IN_NORM_PATTERN},
    /* Llama's norm, rotary embedding and SwiGLU (gen gpt --norm rmsnorm --pos rotary --mlp
     * swiglu): RMSNorm saves its input as LayerNorm; rotary keeps nothing but its cos/sin
     * constants; SwiGLU saves its input (gate and up), as Megatron-LM's swiglu */
    {"RMSNorm", OPS_CAT_NORM, OPS_COST_ELEM5, OPS_SAVE_FIRST_INPUT, 0, 0},
    {"RNN", OPS_CAT_RNN, OPS_COST_RNN, OPS_SAVE_INPUTS, 8, 0},
    {"RandomStandardNormal", OPS_CAT_CONST, OPS_COST_NONE, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD},
    {"RandomUniform", OPS_CAT_CONST, OPS_COST_NONE, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD},
    {"Range", OPS_CAT_CONST, OPS_COST_NONE, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD},
    {"Rank", OPS_CAT_CONST, OPS_COST_NONE, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD},
    {"Reciprocal", OPS_CAT_ELEMENTWISE, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_UNARY},
    {"ReduceL1", OPS_CAT_REDUCE, OPS_COST_INPUT_ELEM, OPS_SAVE_INPUTS, 0, 0},
    {"ReduceL2", OPS_CAT_REDUCE, OPS_COST_INPUT_ELEM, OPS_SAVE_INPUTS, 0, 0},
    {"ReduceLogSum", OPS_CAT_REDUCE, OPS_COST_INPUT_ELEM, OPS_SAVE_INPUTS, 0, 0},
    {"ReduceLogSumExp", OPS_CAT_REDUCE, OPS_COST_INPUT_ELEM, OPS_SAVE_INPUTS, 0, 0},
    {"ReduceMax", OPS_CAT_REDUCE, OPS_COST_INPUT_ELEM, OPS_SAVE_INPUTS, 0, 0},
    {"ReduceMean", OPS_CAT_REDUCE, OPS_COST_INPUT_ELEM, OPS_SAVE_NOTHING, 0, OPS_IN_NORM_PATTERN},
    {"ReduceMin", OPS_CAT_REDUCE, OPS_COST_INPUT_ELEM, OPS_SAVE_INPUTS, 0, 0},
    {"ReduceProd", OPS_CAT_REDUCE, OPS_COST_INPUT_ELEM, OPS_SAVE_INPUTS, 0, 0},
    {"ReduceSum", OPS_CAT_REDUCE, OPS_COST_INPUT_ELEM, OPS_SAVE_INPUTS, 0, 0},
    {"ReduceSumSquare", OPS_CAT_REDUCE, OPS_COST_INPUT_ELEM, OPS_SAVE_INPUTS, 0, 0},
    {"Relu", OPS_CAT_ACTIVATION, OPS_COST_ELEM, OPS_SAVE_RESULT, 0, OPS_IN_PLACE | OPS_UNARY},
    {"Relu6", OPS_CAT_ACTIVATION, OPS_COST_ELEM, OPS_SAVE_RESULT, 0, OPS_IN_PLACE},
    {"Reshape", OPS_CAT_MOVE, OPS_COST_NONE, OPS_SAVE_NOTHING, 0, OPS_VIEW | OPS_PARAM_VIEW},
    {"Rotary", OPS_CAT_ELEMENTWISE, OPS_COST_ELEM, OPS_SAVE_NOTHING, 0, 0},
    {"Selu", OPS_CAT_ACTIVATION, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_UNARY},
    {"Shape", OPS_CAT_CONST, OPS_COST_NONE, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD},
    {"Sigmoid", OPS_CAT_ACTIVATION, OPS_COST_ELEM, OPS_SAVE_RESULT, 0, OPS_UNARY},
    {"Sign", OPS_CAT_ACTIVATION, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_UNARY},
    {"Sin", OPS_CAT_ACTIVATION, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_UNARY},
    {"Size", OPS_CAT_CONST, OPS_COST_NONE, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD},
    {"Slice", OPS_CAT_MOVE, OPS_COST_NONE, OPS_SAVE_NOTHING, 0, OPS_PARAM_VIEW},
    {"Softmax", OPS_CAT_ACTIVATION, OPS_COST_ELEM5, OPS_SAVE_RESULT, 0,
     OPS_UNARY | OPS_IN_SOFTMAX_PATTERN},
    {"SoftmaxCrossEntropyWithLogits", OPS_CAT_LOSS, OPS_COST_ELEM5, OPS_SAVE_INPUTS, 0, 0},
    {"Softplus", OPS_CAT_ACTIVATION, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_UNARY},
    {"SparseSoftmaxCrossEntropyWithLogits", OPS_CAT_LOSS, OPS_COST_ELEM5, OPS_SAVE_INPUTS, 0, 0},
    {"Split", OPS_CAT_MOVE, OPS_COST_NONE, OPS_SAVE_NOTHING, 0, 0},
    {"Sqrt", OPS_CAT_ELEMENTWISE, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0,
     OPS_UNARY | OPS_IN_NORM_PATTERN},
    {"Squeeze", OPS_CAT_MOVE, OPS_COST_NONE, OPS_SAVE_NOTHING, 0, OPS_VIEW | OPS_PARAM_VIEW},
    {"StopGradient", OPS_CAT_MOVE, OPS_COST_NONE, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD},
    {"Sub", OPS_CAT_ELEMENTWISE, OPS_COST_ELEM, OPS_SAVE_NOTHING, 0,
     OPS_BINARY | OPS_IN_NORM_PATTERN},
    {"Sum", OPS_CAT_ELEMENTWISE, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_BINARY},
    {"SwiGLU", OPS_CAT_ACTIVATION, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, 0},
    {"Synthetic", OPS_CAT_OTHER, OPS_COST_OTHER, OPS_SAVE_INPUTS, 0, 0},
    {"Tanh", OPS_CAT_ACTIVATION, OPS_COST_ELEM, OPS_SAVE_RESULT, 0,
     OPS_UNARY | OPS_IN_NORM_PATTERN},
    {"Transpose", OPS_CAT_MOVE, OPS_COST_NONE, OPS_SAVE_NOTHING, 0, OPS_VIEW | OPS_PARAM_VIEW},
    {"Trilu", OPS_CAT_MOVE, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_UNARY},
    {"TruncatedNormal", OPS_CAT_CONST, OPS_COST_NONE, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD},
    {"Unpack", OPS_CAT_MOVE, OPS_COST_NONE, OPS_SAVE_INPUTS, 0, 0},
    {"Unsqueeze", OPS_CAT_MOVE, OPS_COST_NONE, OPS_SAVE_NOTHING, 0, OPS_VIEW | OPS_PARAM_VIEW},
    {"VariableV2", OPS_CAT_PARAM, OPS_COST_NONE, OPS_SAVE_INPUTS, 0, 0},
    {"View", OPS_CAT_MOVE, OPS_COST_NONE, OPS_SAVE_INPUTS, 0, OPS_VIEW},
    {"Where", OPS_CAT_ELEMENTWISE, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0,
     OPS_BINARY | OPS_IN_SOFTMAX_PATTERN},
    {"Xor", OPS_CAT_COMPARE, OPS_COST_ELEM, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD | OPS_BINARY},
    {"ZerosLike", OPS_CAT_CONST, OPS_COST_NONE, OPS_SAVE_INPUTS, 0, OPS_NO_GRAD},
};

static const char *const category_names[] = {
    "other",     "source", "parameter",  "constant",     "convolution", "matmul",
    "recurrent", "norm",   "activation", "element-wise", "compare",     "pooling",
    "reduction", "move",   "loss",       "control",      "update",
};

static const char *const cost_names[] = {
    "none",          "2 x multiply-adds",   "elements x window", "1 per element", "5 per element",
    "8 per element", "1 per input element", "recurrent cell",    "per parameter", "op-specific",
};

static const char *const save_names[] = {"inputs", "first input", "result", "nothing",
                                         "inputs another input's gradient needs"};

_Static_assert(sizeof(category_names) / sizeof(category_names[0]) == OPS_N_CATEGORIES,
               "one name per category");
_Static_assert(sizeof(cost_names) / sizeof(cost_names[0]) == OPS_N_COSTS, "one name per cost");
_Static_assert(sizeof(save_names) / sizeof(save_names[0]) == OPS_N_SAVES, "one name per save");

static int row_cmp(const void *key, const void *row)
{
    return strcmp(key, ((const struct ops_row *)row)->type);
}

const struct ops_row *ops_find(const char *type)
{
    return bsearch(type, rows, sizeof(rows) / sizeof(rows[0]), sizeof(rows[0]), row_cmp);
}

const struct ops_row *ops_table(size_t *n)
{
    *n = sizeof(rows) / sizeof(rows[0]);
    return rows;
}

const char *ops_category_name(enum ops_category c)
{
    return c < OPS_N_CATEGORIES ? category_names[c] : "?";
}

const char *ops_cost_name(enum ops_cost c)
{
    return c < OPS_N_COSTS ? cost_names[c] : "?";
}

const char *ops_save_name(enum ops_save s)
{
    return s < OPS_N_SAVES ? save_names[s] : "?";
}

enum ops_save ops_save_of(const char *type)
{
    const struct ops_row *r = ops_find(type);

    return r ? r->save : OPS_SAVE_INPUTS;
}

int ops_extra_bytes_per_elem(const char *type)
{
    const struct ops_row *r = ops_find(type);

    return r ? r->extra_bytes_per_elem : 0;
}

bool ops_has_flag(const char *type, enum ops_flags flag)
{
    const struct ops_row *r = ops_find(type);

    return r && (r->flags & (unsigned)flag) != 0;
}

bool ops_has_gradient(const char *type)
{
    return !ops_has_flag(type, OPS_NO_GRAD);
}

bool ops_is_view(const char *type)
{
    return ops_has_flag(type, OPS_VIEW);
}

bool ops_runs_in_place(const char *type)
{
    return ops_has_flag(type, OPS_IN_PLACE);
}

bool ops_is_data(const char *type)
{
    return ops_has_flag(type, OPS_DATA);
}

bool ops_is_pool(const char *type)
{
    const struct ops_row *r = ops_find(type);

    return r && r->cat == OPS_CAT_POOL;
}

bool ops_is_param_view(const char *type)
{
    return ops_has_flag(type, OPS_PARAM_VIEW);
}

bool ops_is_elementwise_unary(const char *type)
{
    return ops_has_flag(type, OPS_UNARY);
}

bool ops_is_elementwise_binary(const char *type)
{
    return ops_has_flag(type, OPS_BINARY);
}

enum ops_tp_role ops_tp_role_of_name(const char *s, size_t n)
{
    static const char *const attn[] = {"attn", "self_attention", "cross_attention", NULL};
    static const char *const blocks[][6] = {{"qkv", "q", "k", "v", NULL},
                                            {"scores", "softmax", "dropout", "context", "rotary"},
                                            {"out", NULL}};
    static const enum ops_tp_role block_role[] = {OPS_TP_ENTRY, OPS_TP_INNER, OPS_TP_EXIT};
    const char *c, *p;
    size_t lc, lp;
    bool in_attn = false;

    for (c = s + n; c > s && c[-1] != '/'; c--) {
    }
    lc = (size_t)(s + n - c);
    if (c == s) {
        return OPS_TP_NONE;
    }
    for (p = c - 1; p > s && p[-1] != '/'; p--) {
    }
    lp = (size_t)(c - 1 - p);
    for (int i = 0; attn[i]; i++) {
        in_attn |= lp == strlen(attn[i]) && strncmp(p, attn[i], lp) == 0;
    }
    if (in_attn) {
        for (int r = 0; r < 3; r++) {
            for (int i = 0; blocks[r][i]; i++) {
                if (lc == strlen(blocks[r][i]) && strncmp(c, blocks[r][i], lc) == 0) {
                    return block_role[r];
                }
            }
        }
        return OPS_TP_NONE;
    }
#define IS(str, lit) (sizeof(lit) - 1 == l##str && strncmp(str, lit, sizeof(lit) - 1) == 0)
    if (IS(p, "mlp") || IS(p, "ffn")) {
        if (IS(c, "c_fc") || IS(c, "fc1")) {
            return OPS_TP_ENTRY;
        }
        if (IS(c, "gelu") || IS(c, "relu") || IS(c, "swiglu")) {
            return OPS_TP_INNER;
        }
        if (IS(c, "c_proj") || IS(c, "fc2")) {
            return OPS_TP_EXIT;
        }
    }
#undef IS
    return OPS_TP_NONE;
}

static bool type_in(const char *type, const char *const *types)
{
    for (int k = 0; types[k]; k++) {
        if (strcmp(type, types[k]) == 0) {
            return true;
        }
    }
    return false;
}

bool ops_is_softmax_cross_entropy(const char *type)
{
    static const char *const t[] = {"SoftmaxCrossEntropyWithLogits",
                                    "SparseSoftmaxCrossEntropyWithLogits", NULL};

    return type_in(type, t);
}

bool ops_is_dense_product(const char *type)
{
    static const char *const t[] = {"MatMul", "Gemm", NULL};

    return type_in(type, t);
}

bool ops_is_table_lookup(const char *type)
{
    static const char *const t[] = {"Gather", "GatherV2", "Embedding", NULL};

    return type_in(type, t);
}

bool ops_names_weight_product(const char *type)
{
    return strstr(type, "MatMul") || strstr(type, "Gemm") || strstr(type, "Conv");
}
