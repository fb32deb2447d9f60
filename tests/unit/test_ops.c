/*
 * test_ops.c - the table of op semantics (workloads/ops.h): sorted and
 * unique, a row for every type the generators emit and the training
 * synthesis adds, the lists it replaced (train.c's, the ONNX importer's and
 * shape inference's) exactly, and spot checks of the semantics.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/ops.h"

#include "core/workload.h"
#include "workloads/gen.h"
#include "workloads/gen_synthetic.h"
#include "workloads/train.h"

#include <criterion/criterion.h>
#include <string.h>

Test(ops, sorted_unique_and_found)
{
    size_t n;
    const struct ops_row *rows = ops_table(&n);

    cr_assert_gt(n, 100);
    for (size_t i = 0; i < n; i++) {
        cr_assert(i == 0 || strcmp(rows[i - 1].type, rows[i].type) < 0,
                  "rows %zu '%s' and %zu '%s' are not in strcmp order", i - 1, rows[i - 1].type, i,
                  rows[i].type);
        cr_assert_eq(ops_find(rows[i].type), &rows[i], "'%s' not found", rows[i].type);
        cr_assert(rows[i].cat < OPS_N_CATEGORIES && rows[i].cost < OPS_N_COSTS &&
                      rows[i].save < OPS_N_SAVES,
                  "'%s': a value out of range", rows[i].type);
        cr_assert_str_neq(ops_category_name(rows[i].cat), "?");
        cr_assert_str_neq(ops_cost_name(rows[i].cost), "?");
        cr_assert_str_neq(ops_save_name(rows[i].save), "?");
    }
}

static void assert_rows_for(const struct workload *w, const char *what)
{
    for (int32_t i = 0; i < w->n_ops; i++) {
        const char *t = w->op[i].type;
        size_t len = strlen(t);

        if (w->op[i].phase == PHASE_BACKWARD && len > 4 && strcmp(t + len - 4, "Grad") == 0) {
            continue; /* "<type>Grad": the gradient of a row's type */
        }
        cr_assert_not_null(ops_find(t), "%s: op '%s' of type '%s' has no row", what, w->op[i].name,
                           t);
    }
}

Test(ops, every_generated_type_has_a_row)
{
    const char *const *names = gen_model_names();

    for (int i = 0; names[i]; i++) {
        for (int opt = TRAIN_SGD; opt <= TRAIN_ADAM; opt++) {
            struct gen_opts o;
            struct workload w;

            gen_opts_init(&o);
            o.device = NULL;
            o.batch = 1;
            /* only what the model reads: gen_model refuses the rest */
            o.seq = strcmp(names[i], "inception-v3") != 0 ? 4 : 0;
            o.aux = strcmp(names[i], "inception-v3") == 0;
            if (strcmp(names[i], "gnmt") != 0 && strcmp(names[i], "inception-v3") != 0) {
                o.layers = 1;
            }
            o.train.optimizer = (enum train_optimizer)opt;
            cr_assert_eq(gen_model(&w, names[i], &o, NULL), 0, "%s", names[i]);
            assert_rows_for(&w, names[i]);
            workload_release(&w);
        }
    }
    {
        struct synth_opts so;
        struct workload w;

        synth_opts_init(&so);
        so.n_ops = 20;
        workload_init(&w);
        cr_assert_eq(gen_synthetic(&w, &so), 0);
        assert_rows_for(&w, "synthetic");
        workload_release(&w);
    }
}

/* The types whose flag is set are exactly list[]. */
static void assert_flag_is(enum ops_flags flag, const char *const *list, const char *what)
{
    size_t n, n_list = 0;
    const struct ops_row *rows = ops_table(&n);

    for (; list[n_list]; n_list++) {
        cr_assert(ops_has_flag(list[n_list], flag), "%s: '%s' lacks the flag", what, list[n_list]);
    }
    for (size_t i = 0; i < n; i++) {
        bool listed = false;

        for (size_t k = 0; k < n_list; k++) {
            listed |= strcmp(list[k], rows[i].type) == 0;
        }
        cr_assert(listed || !(rows[i].flags & (unsigned)flag), "%s: '%s' has the flag", what,
                  rows[i].type);
    }
}

/* The lists the table replaced, as they were (train.c, onnx_import.c, onnx_shape.c). */
Test(ops, the_lists_it_replaced)
{
    static const char *const no_grad[] = {
        "Placeholder",
        "Const",
        "Constant",
        "ConstantOfShape",
        "Shape",
        "Size",
        "Rank",
        "NoOp",
        "Assign",
        "ArgMax",
        "ArgMin",
        "Equal",
        "NotEqual",
        "Less",
        "LessEqual",
        "Greater",
        "GreaterEqual",
        "IteratorGetNext",
        "OneShotIterator",
        "IteratorToStringHandle",
        "StopGradient",
        "ZerosLike",
        "OnesLike",
        "Fill",
        "RandomUniform",
        "TruncatedNormal",
        "RandomStandardNormal",
        "Range",
        "NonZero",
        /* the comparisons the lists missed (every comparison has none) */
        "And",
        "GreaterOrEqual",
        "IsNaN",
        "LessOrEqual",
        "Not",
        "Or",
        "Xor",
        NULL,
    };
    static const char *const data[] = {"Placeholder", "PlaceholderWithDefault", "IteratorGetNext",
                                       NULL};
    static const char *const views[] = {"Reshape",   "Flatten",  "Squeeze", "Unsqueeze",
                                        "Transpose", "Identity", "View",    NULL};
    static const char *const in_place[] = {"Relu", "Relu6", NULL};
    static const char *const param_views[] = {"Transpose", "Slice",    "Concat",
                                              "Unsqueeze", "Squeeze",  "Reshape",
                                              "Flatten",   "Identity", NULL};
    static const char *const norm_pattern[] = {"ReduceMean", "Sub", "Pow", "Add",  "Sqrt",
                                               "Div",        "Mul", "Erf", "Tanh", NULL};
    static const char *const softmax_pattern[] = {"Mul", "Div", "Add", "Where", "Softmax", NULL};
    static const char *const unary[] = {
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
    static const char *const binary[] = {
        "Add", "Sub",  "Mul",   "Div",  "Pow",     "Max",         "Min",
        "Sum", "Mean", "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual",
        "And", "Or",   "Xor",   "Mod",  "PRelu",   "Where",       NULL,
    };

    assert_flag_is(OPS_NO_GRAD, no_grad, "no gradient");
    assert_flag_is(OPS_DATA, data, "data");
    assert_flag_is(OPS_VIEW, views, "view");
    assert_flag_is(OPS_IN_PLACE, in_place, "in place");
    assert_flag_is(OPS_PARAM_VIEW, param_views, "parameter view");
    assert_flag_is(OPS_IN_NORM_PATTERN, norm_pattern, "norm pattern");
    assert_flag_is(OPS_IN_SOFTMAX_PATTERN, softmax_pattern, "softmax pattern");
    assert_flag_is(OPS_UNARY, unary, "unary");
    assert_flag_is(OPS_BINARY, binary, "binary");
}

Test(ops, semantics)
{
    /* what autograd saves */
    cr_assert_eq(ops_save_of("Conv2D"), OPS_SAVE_INPUTS);
    cr_assert_eq(ops_save_of("MatMul"), OPS_SAVE_INPUTS);
    cr_assert_eq(ops_save_of("Relu"), OPS_SAVE_RESULT);
    cr_assert_eq(ops_save_of("Softmax"), OPS_SAVE_RESULT);
    cr_assert_eq(ops_save_of("LayerNormalization"), OPS_SAVE_FIRST_INPUT);
    cr_assert_eq(ops_save_of("Gelu"), OPS_SAVE_FIRST_INPUT);
    cr_assert_eq(ops_save_of("Add"), OPS_SAVE_NOTHING);
    cr_assert_eq(ops_save_of("Reshape"), OPS_SAVE_NOTHING);
    /* extra buffers */
    cr_assert_eq(ops_extra_bytes_per_elem("MaxPool"), 8);
    cr_assert_eq(ops_extra_bytes_per_elem("Dropout"), 1);
    cr_assert_eq(ops_extra_bytes_per_elem("AveragePool"), 0);
    /* recurrent layers: the per-step state PyTorch saves (7 floats per unit) */
    cr_assert_eq(ops_extra_bytes_per_elem("LSTM"), 28);
    cr_assert_eq(ops_extra_bytes_per_elem("GRU"), 28);
    cr_assert_eq(ops_extra_bytes_per_elem("RNN"), 8);
    cr_assert_eq(ops_extra_bytes_per_elem("LSTMBlockCell"), 0);
    /* attention as nn.MultiheadAttention keeps it: a scaled Q keeps no
     * unscaled copy, the q/k/v chunks are storages of their own */
    cr_assert_eq(ops_save_of("Mul"), OPS_SAVE_OTHER_INPUTS);
    cr_assert_eq(ops_save_of("Div"), OPS_SAVE_OTHER_INPUTS);
    cr_assert(!ops_is_view("Slice") && ops_is_param_view("Slice"));
    /* views alias input 0, in place, pads of pools */
    cr_assert(ops_is_view("Transpose") && ops_is_view("Flatten"));
    cr_assert(!ops_is_view("Relu") && ops_runs_in_place("Relu"));
    cr_assert(!ops_runs_in_place("Sigmoid"));
    cr_assert(ops_has_flag("Pad", OPS_POOL_PAD) && !ops_is_view("Pad"));
    cr_assert(ops_is_pool("AveragePool") && ops_is_pool("GlobalMaxPool") && !ops_is_pool("Pad"));
    /* gradients, data */
    cr_assert(!ops_has_gradient("Shape") && ops_has_gradient("Conv"));
    cr_assert(ops_is_data("Placeholder") && !ops_is_data("VariableV2"));
    cr_assert(ops_is_param_view("Transpose") && !ops_is_param_view("MatMul"));
    cr_assert(ops_is_elementwise_unary("Relu") && !ops_is_elementwise_unary("Add"));
    cr_assert(ops_is_elementwise_binary("Where") && !ops_is_elementwise_binary("Relu"));
    /* categories and FLOPs rules */
    cr_assert_eq(ops_find("Conv2D")->cat, OPS_CAT_CONV);
    cr_assert_eq(ops_find("Conv2D")->cost, OPS_COST_MACS);
    cr_assert_eq(ops_find("MaxPool")->cost, OPS_COST_WINDOW);
    cr_assert_eq(ops_find("LayerNorm")->cost, OPS_COST_ELEM5);
    cr_assert_eq(ops_find("ApplyAdam")->cat, OPS_CAT_UPDATE);
}

/* A boolean result has no derivative: no comparison or logic op carries a
 * gradient (7 of the 14 rows once said otherwise). */
Test(ops, comparisons_have_no_gradient)
{
    size_t n, n_cmp = 0;
    const struct ops_row *rows = ops_table(&n);

    for (size_t i = 0; i < n; i++) {
        if (rows[i].cat == OPS_CAT_COMPARE) {
            n_cmp++;
            cr_expect(!ops_has_gradient(rows[i].type), "comparison %s has a gradient",
                      rows[i].type);
        }
    }
    cr_assert_eq(n_cmp, 14);
}

/* The tensor-parallel roles of the generators' op names (gen gpt, gen
 * transformer), and names that only look alike. */
Test(ops, tp_roles_of_generator_names)
{
    static const struct {
        const char *name;
        enum ops_tp_role role;
    } cases[] = {
        {"h0/attn/qkv", OPS_TP_ENTRY},
        {"h11/attn/softmax", OPS_TP_INNER},
        {"h3/attn/out", OPS_TP_EXIT},
        {"h0/mlp/c_fc", OPS_TP_ENTRY},
        {"h0/mlp/gelu", OPS_TP_INNER},
        {"h0/mlp/c_proj", OPS_TP_EXIT},
        {"enc2/self_attention/q", OPS_TP_ENTRY},
        {"dec0/cross_attention/context", OPS_TP_INNER},
        {"dec0/ffn/fc1", OPS_TP_ENTRY},
        {"dec0/ffn/relu", OPS_TP_INNER},
        {"dec0/ffn/fc2", OPS_TP_EXIT},
        {"h0/attn/ln", OPS_TP_NONE},
        {"h0/attnx/qkv", OPS_TP_NONE},
        {"h0/mlp/c_fcx", OPS_TP_NONE},
        {"qkv", OPS_TP_NONE},
        {"attn/qkv", OPS_TP_ENTRY},
        {"", OPS_TP_NONE},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cr_expect_eq(ops_tp_role_of_name(cases[i].name, strlen(cases[i].name)), cases[i].role,
                     "role of '%s'", cases[i].name);
    }
    /* the length bounds the name: "h0/mlp/c_fc" of "h0/mlp/c_fcx" */
    cr_expect_eq(ops_tp_role_of_name("h0/mlp/c_fcx", 11), OPS_TP_ENTRY);
}

Test(ops, unknown_types_get_the_defaults)
{
    cr_assert_null(ops_find("NoSuchOp"));
    cr_assert_null(ops_find(""));
    cr_assert_eq(ops_save_of("NoSuchOp"), OPS_SAVE_INPUTS);
    cr_assert_eq(ops_extra_bytes_per_elem("NoSuchOp"), 0);
    cr_assert(ops_has_gradient("NoSuchOp"));
    cr_assert(!ops_is_view("NoSuchOp") && !ops_runs_in_place("NoSuchOp"));
    cr_assert(!ops_is_data("NoSuchOp") && !ops_is_pool("NoSuchOp"));
}

/* core's list of the types whose persistent bytes are beside their outputs
 * (core/workload_types.c, read by the timed model) is the table's rows
 * outside the param, const and other categories. */
Test(ops, state_types_match_the_table)
{
    size_t n;
    const struct ops_row *rows = ops_table(&n);

    for (size_t i = 0; i < n; i++) {
        bool state = rows[i].cat == OPS_CAT_PARAM || rows[i].cat == OPS_CAT_CONST ||
                     rows[i].cat == OPS_CAT_OTHER;

        cr_expect_eq(workload_type_holds_state(rows[i].type), state, "'%s': core says %d",
                     rows[i].type, (int)workload_type_holds_state(rows[i].type));
    }
    /* unknown types keep the original's reading (synthetic ops, fixtures' "Op") */
    cr_expect(!workload_type_holds_state("MatMul") && workload_type_holds_state("Synthetic") &&
              workload_type_holds_state("Op") && workload_type_holds_state(NULL));
}
