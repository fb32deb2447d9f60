/*
 * test_onnx.c - ONNX import: the committed fixtures (exported from
 * torchvision by scripts/export-onnx.py, weights stripped) against published
 * parameter counts, own shape inference against value_info, batch scaling,
 * training graph, and malformed files.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/onnx_import.h"
#include "workloads/onnx_shape_internal.h"

#include "core/err.h"
#include "core/graph.h"
#include "core/workload_yaml.h"
#include "onnx.pb-c.h"
#include "workloads/train.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define DIR "tests/data/onnx/"

static void import_ok(struct workload *w, const char *path, int64_t batch,
                      struct onnx_import_stats *st)
{
    struct onnx_import_opts o = {batch, ONNX_LOSS_NONE};
    struct graph g;

    err_set_quiet(1);
    cr_assert_eq(onnx_import(w, path, &o, st), 0, "%s", err_msg());
    memset(&g, 0, sizeof(g));
    cr_assert_eq(graph_build(&g, w), 0, "%s", err_msg());
    cr_assert_eq(graph_check(&g), 0, "%s", err_msg());
    cr_assert_eq(g.n_pruned, 0);
    graph_release(&g);
}

static int64_t out_total(const struct workload *w)
{
    int64_t s = 0;

    for (size_t i = 0; i < w->n_out_bytes; i++) {
        s += w->out_bytes[i];
    }
    return s;
}

Test(onnx, resnet50_parameters_match_torchvision)
{
    struct workload w;
    struct onnx_import_stats st;
    int32_t conv;

    import_ok(&w, DIR "resnet50.onnx", 0, &st);
    cr_assert_eq(st.params, 25557032); /* torchvision resnet50: 25,557,032 */
    cr_assert_eq(st.n_unknown, 0);
    cr_assert_eq(st.n_nodes, 175);
    /* the stem: 64 x 3 x 7 x 7 weights folded into the conv; output 1 x 64 x 112 x 112 */
    conv = workload_find(&w, "/conv1/Conv");
    cr_assert(conv >= 0);
    cr_assert_eq(w.op[conv].persistent, 64 * 3 * 7 * 7 * 4);
    cr_assert_eq(w.out_bytes[w.op[conv].out_off], 64 * 112 * 112 * 4);
    cr_assert_float_eq(w.op[conv].flops, 2.0 * 64 * 112 * 112 * 3 * 7 * 7, 1);
    workload_release(&w);
}

Test(onnx, own_shape_inference_matches_value_info)
{
    struct workload a, b;
    struct onnx_import_stats sa, sb;

    import_ok(&a, DIR "resnet50.onnx", 0, &sa);
    import_ok(&b, DIR "resnet50-noshapes.onnx", 0, &sb);
    cr_assert(sa.n_from_value_info > 200);
    cr_assert(sb.n_from_value_info <= 1, "only the graph output has a type");
    cr_assert_eq(a.n_ops, b.n_ops);
    for (int32_t i = 0; i < a.n_ops; i++) {
        cr_assert_eq(a.op[i].n_out, b.op[i].n_out);
        for (int32_t k = 0; k < a.op[i].n_out; k++) {
            cr_assert_eq(a.out_bytes[a.op[i].out_off + k], b.out_bytes[b.op[i].out_off + k],
                         "op '%s' port %d", a.op[i].name, k);
        }
        cr_assert_float_eq(a.op[i].flops, b.op[i].flops, 1e-6 * (1 + a.op[i].flops));
    }
    workload_release(&a);
    workload_release(&b);
}

Test(onnx, inception_v3_and_forward_macs)
{
    struct workload w;
    struct onnx_import_stats st;
    double macs = 0;

    import_ok(&w, DIR "inception_v3.onnx", 0, &st);
    cr_assert_eq(st.params, 23834568); /* without the aux head, as gen_inception_v3 */
    cr_assert_eq(st.n_unknown, 0);
    for (int32_t i = 0; i < w.n_ops; i++) {
        if (strcmp(w.op[i].type, "Conv") == 0 || strcmp(w.op[i].type, "Gemm") == 0) {
            macs += w.op[i].flops / 2;
        }
    }
    /* torchvision: 5.71 G multiply-adds per image (bias adds make it a bit more) */
    cr_assert(fabs(macs - 5.71e9) < 0.01 * 5.71e9, "%.4g", macs);
    workload_release(&w);
}

Test(onnx, batch_scales_activations_not_weights)
{
    struct workload a, b;
    struct onnx_import_stats sa, sb;
    int64_t pa = 0, pb = 0;

    import_ok(&a, DIR "tiny_gpt.onnx", 0, &sa);
    import_ok(&b, DIR "tiny_gpt.onnx", 8, &sb);
    cr_assert_eq(sa.params, 133888); /* 2 layers, d 64, vocab 512, 16 positions */
    cr_assert_eq(sb.params, sa.params);
    cr_assert_float_eq(sb.flops, 8 * sa.flops, 1e-6 * sb.flops);
    for (int32_t i = 0; i < a.n_ops; i++) {
        pa += a.op[i].persistent;
        pb += b.op[i].persistent;
    }
    cr_assert_eq(pa, pb);
    /* the token input (1 x 16 int64) and every activation scale by 8 */
    cr_assert_eq(a.out_bytes[a.op[workload_find(&a, "input")].out_off], 16 * 8);
    cr_assert_eq(b.out_bytes[b.op[workload_find(&b, "input")].out_off], 8 * 16 * 8);
    cr_assert_eq(b.out_bytes[b.op[b.n_ops - 1].out_off], 8 * 16 * 512 * 4, "the logits");
    cr_assert(out_total(&b) > out_total(&a));
    /* the tied embedding is read by the Gather and the LM head: an op of its own */
    cr_assert(workload_find(&a, "wte.weight") >= 0);
    cr_assert_str_eq(a.op[workload_find(&a, "wte.weight")].type, "Initializer");
    workload_release(&a);
    workload_release(&b);
}

Test(onnx, training_graph_of_an_import)
{
    struct workload w, tr;
    struct onnx_import_stats st;
    struct train_opts o;
    struct train_stats ts;
    struct graph g;

    import_ok(&w, DIR "resnet50.onnx", 32, &st);
    train_opts_init(&o);
    cr_assert_eq(train_synthesize(&tr, &w, &o, &ts), 0, "%s", err_msg());
    /* every parameter-holding node gets an update: 53 convs + 53 BN + fc */
    cr_assert_eq(ts.param_bytes, (int64_t)25557032 * 4);
    cr_assert_eq(ts.n_update, 53 + 53 + 1);
    memset(&g, 0, sizeof(g));
    cr_assert_eq(graph_build(&g, &tr), 0, "%s", err_msg());
    graph_release(&g);
    workload_release(&tr);
    workload_release(&w);
}

Test(onnx, malformed_files_are_rejected)
{
    struct workload w;
    struct onnx_import_opts o = {0};
    static const uint8_t garbage[] = "this is not a protobuf \xff\xff\xff\xff";
    static const uint8_t empty[] = "";

    cr_assert_eq(onnx_import_buffer(&w, garbage, sizeof(garbage), "garbage.onnx", &o, NULL),
                 BAECHI_EPARSE);
    cr_assert(strstr(err_msg(), "garbage.onnx: not a valid ONNX model") != NULL, "%s", err_msg());
    cr_assert_eq(onnx_import_buffer(&w, empty, 0, "empty.onnx", &o, NULL), BAECHI_EPARSE);
    cr_assert(strstr(err_msg(), "no graph") != NULL, "%s", err_msg());
    cr_assert_eq(onnx_import(&w, DIR "bad-missing-input.onnx", &o, NULL), BAECHI_EPARSE);
    cr_assert(strstr(err_msg(), "node 'add0'") && strstr(err_msg(), "'missing'"), "%s", err_msg());
    cr_assert_eq(onnx_import(&w, DIR "no-such-file.onnx", &o, NULL), BAECHI_EIO);
    cr_assert_eq(w.n_ops, 0);
}

/* The op_type of tests/data/bad/o-bad-utf8.onnx ("Relu\xff") replaced by
 * other 5-byte strings: each ill-formed UTF-8 form is refused, naming the
 * offset of its first byte; a well-formed one (an unknown operator) passes. */
Test(onnx, op_type_utf8_is_checked)
{
    static const struct {
        const char *bytes;
        long offset; /* -1: accepted */
    } cases[] = {
        {"Relu\xff", 4},
        {"R\xc0\x80lu", 1} /* overlong NUL */,
        {"R\xed\xa0\x80u", 1} /* surrogate */,
        {"\xf4\x90\x80\x80u", 0} /* > U+10FFFF */,
        {"Rel\xe2\x82", 3} /* truncated */,
        {"Rel\xc3\xa9", -1},
        {"\xf0\x9f\x98\x80u", -1},
    };
    struct onnx_import_opts o = {0};
    struct workload w;
    uint8_t buf[256];
    size_t len;
    FILE *f = fopen("tests/data/bad/o-bad-utf8.onnx", "rb");
    uint8_t *at;

    cr_assert(f != NULL);
    len = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    at = memmem(buf, len, "Relu\xff", 5);
    cr_assert(at != NULL);
    err_set_quiet(1);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char want[96];
        int rc;

        memcpy(at, cases[i].bytes, 5);
        rc = onnx_import_buffer(&w, buf, len, "u.onnx", &o, NULL);
        if (cases[i].offset < 0) {
            cr_assert_eq(rc, 0, "case %zu: %s", i, err_msg());
            cr_assert_str_eq(w.op[1].type, cases[i].bytes);
            workload_release(&w);
            continue;
        }
        snprintf(want, sizeof(want), "op_type is not valid UTF-8 (byte 0x%02x at offset %ld)",
                 (unsigned char)cases[i].bytes[cases[i].offset], cases[i].offset);
        cr_assert_eq(rc, BAECHI_EPARSE, "case %zu", i);
        cr_assert(strstr(err_msg(), want) != NULL, "case %zu: %s", i, err_msg());
    }
}

/* A model of n Relu nodes x -> t1 -> ... named `name`, produced by `producer`. */
static uint8_t *relu_chain(int n, const char *name, const char *producer, size_t *len)
{
    static char tn[8][8], x[] = "x", relu[] = "Relu";
    static char *io[9];
    Onnx__NodeProto nd[8], *ndp[8];
    Onnx__ValueInfoProto vi = ONNX__VALUE_INFO_PROTO__INIT, *vip = &vi;
    Onnx__GraphProto g = ONNX__GRAPH_PROTO__INIT;
    Onnx__ModelProto m = ONNX__MODEL_PROTO__INIT;
    uint8_t *buf;

    cr_assert(n <= 8);
    io[0] = x;
    for (int i = 0; i < n; i++) {
        snprintf(tn[i], sizeof(tn[i]), "t%d", i);
        io[i + 1] = tn[i];
        onnx__node_proto__init(&nd[i]);
        nd[i].n_input = nd[i].n_output = 1;
        nd[i].input = &io[i];
        nd[i].output = &io[i + 1];
        nd[i].name = (char *)name;
        nd[i].op_type = relu;
        ndp[i] = &nd[i];
    }
    vi.name = x;
    g.n_node = (size_t)n;
    g.node = ndp;
    g.n_input = 1;
    g.input = &vip;
    m.producer_name = (char *)producer;
    m.graph = &g;
    *len = onnx__model_proto__get_packed_size(&m);
    cr_assert((buf = malloc(*len)) != NULL);
    onnx__model_proto__pack(&m, buf);
    return buf;
}

static char *yaml_of(const struct workload *w)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);

    cr_assert(f != NULL);
    cr_assert_eq(workload_write_yaml(w, f), 0, "%s", err_msg());
    fclose(f);
    return text;
}

/* Node names longer than the name buffer, repeated: each op still gets a
 * name of its own (the search for a free suffix never ended: the suffix was
 * cut off), cut at a character boundary so that the YAML is still written;
 * a long producer name is cut likewise in the description. */
Test(onnx, long_repeated_names_and_producer, .timeout = 60)
{
    struct onnx_import_opts o = {0};
    char name[1 + 2 * 600 + 1], producer[2 * 300 + 1];
    struct workload w;
    uint8_t *buf;
    size_t len;
    char *text;

    name[0] = 'a';
    for (int i = 0; i < 600; i++) {
        memcpy(name + 1 + 2 * i, "\xc3\xa9", 2); /* é */
    }
    name[sizeof(name) - 1] = 0;
    for (int i = 0; i < 300; i++) {
        memcpy(producer + 2 * i, "\xc3\xa9", 2);
    }
    producer[sizeof(producer) - 1] = 0;
    buf = relu_chain(3, name, producer, &len);
    err_set_quiet(1);
    cr_assert_eq(onnx_import_buffer(&w, buf, len, "long.onnx", &o, NULL), 0, "%s", err_msg());
    cr_assert_eq(w.n_ops, 4);                  /* x and three Relu */
    cr_assert_eq(strlen(w.op[1].name), 1007); /* 'a' + 503 x é, not 'a' + 503.5 */
    cr_assert(strcmp(w.op[2].name + 1007, "_1") == 0, "%s", w.op[2].name + 1000);
    cr_assert(strcmp(w.op[3].name + 1007, "_2") == 0, "%s", w.op[3].name + 1000);
    cr_assert(strstr(w.description, "imported from ONNX (\xc3\xa9") != NULL);
    text = yaml_of(&w);
    cr_assert(strstr(text, "Relu") != NULL);
    free(text);
    workload_release(&w);
    free(buf);
}

/* Bytes of output `port` of op `name` (which must exist). */
static int64_t out_of(const struct workload *w, const char *name, int32_t port)
{
    int32_t i = workload_find(w, name);

    cr_assert(i >= 0, "no op '%s'", name);
    cr_assert(port < w->op[i].n_out, "op '%s' has %d outputs", name, w->op[i].n_out);
    return w->out_bytes[w->op[i].out_off + port];
}

/* Two graph inputs (nn.Transformer's src and tgt): one placeholder op and
 * one output each (each output used to land on the last placeholder). */
Test(onnx, every_graph_input_is_its_own_placeholder)
{
    struct workload w;
    struct onnx_import_stats st;

    import_ok(&w, DIR "two_input.onnx", 0, &st);
    cr_assert_eq(w.op[workload_find(&w, "src")].n_out, 1);
    cr_assert_eq(w.op[workload_find(&w, "tgt")].n_out, 1);
    cr_assert_eq(out_of(&w, "src", 0), 10 * 32 * 4); /* 1 x 10 x 32 float */
    cr_assert_eq(out_of(&w, "tgt", 0), 7 * 32 * 4);
    /* nn.Transformer(d 32, 2 heads, 1 + 1 layers, feed-forward 64) */
    cr_assert_eq(st.params, 21504);
    workload_release(&w);
}

/* The number of ops of type `type`. */
static int n_type(const struct workload *w, const char *type)
{
    int n = 0;

    for (int32_t i = 0; i < w->n_ops; i++) {
        n += strcmp(w->op[i].type, type) == 0;
    }
    return n;
}

/* Shape arithmetic (exported with dynamic axes, then the input pinned to
 * 2 x 5 x 48, no value_info): Shape -> Slice -> Squeeze -> Div -> Cast ->
 * Unsqueeze -> Slice, and Shape -> Gather -> Unsqueeze -> Concat ->
 * Reshape, folded: exact sizes, no op left of the arithmetic, no warning. */
Test(onnx, shape_arithmetic_is_folded)
{
    static const char *const gone[] = {"Shape",   "Gather", "Concat", "Constant", "Unsqueeze",
                                       "Squeeze", "Cast",   "Div",    "Mul",      NULL};
    struct workload w;
    struct onnx_import_stats st;

    import_ok(&w, DIR "shape_slice.onnx", 0, &st);
    cr_assert_eq(st.n_unknown, 0);
    cr_assert_eq(st.n_from_value_info, 1, "only the graph output has a declared shape");
    for (int i = 0; gone[i]; i++) {
        cr_assert_eq(n_type(&w, gone[i]), 0, "%s ops left", gone[i]);
    }
    cr_assert(st.n_folded >= 50, "%d", st.n_folded);
    cr_assert_eq(out_of(&w, "/qkv/MatMul", 0), 2 * 5 * 144 * 4); /* with its bias Add */
    cr_assert_eq(out_of(&w, "/Slice_1", 0), 2 * 5 * 48 * 4, "q: a third, not the whole");
    cr_assert_eq(out_of(&w, "/Slice_2", 0), 2 * 5 * 48 * 4);
    cr_assert_eq(out_of(&w, "/Slice_3", 0), 2 * 5 * 48 * 4);
    cr_assert_eq(out_of(&w, "/Reshape", 0), 2 * 5 * 48 * 4);
    cr_assert_eq(out_of(&w, "/Slice_4", 0), 2 * 4 * 48 * 4, "k[:, : s - 1]");
    workload_release(&w);
}

static char warned[1024];

static void keep_warning(const char *msg, void *ctx)
{
    (void)ctx;
    snprintf(warned, sizeof(warned), "%s", msg);
}

/* A Reshape whose target shape is data: the warning says which input. */
Test(onnx, warning_names_the_input_that_is_not_constant)
{
    struct onnx_import_opts o = {0};
    struct workload w;

    err_set_quiet(0);
    warned[0] = 0;
    err_set_warn_handler(keep_warning, NULL);
    cr_assert_eq(onnx_import(&w, DIR "reshape-by-data.onnx", &o, NULL), 0, "%s", err_msg());
    err_set_warn_handler(NULL, NULL);
    cr_assert(strstr(warned, "node 'r' (Reshape): output shape not inferred: input 1 ('shape') "
                             "is not a constant known at import time (computed from data)") != NULL,
              "%s", warned);
    cr_assert(strstr(warned, "unknown operator") == NULL, "%s", warned);
    workload_release(&w);
}

/* LayerNorm as the opset-14 exporter writes it (ReduceMean, Sub, Pow,
 * ReduceMean, Add, Sqrt, Div, Mul, Add) and GELU's erf form (Div, Erf, Add,
 * Mul, Mul): one op each, named after their first node, FLOPs kept; the
 * opset-17 export (LayerNormalization) gives the same ops. */
Test(onnx, layer_norm_and_gelu_are_one_op_each)
{
    struct workload a, b;
    struct onnx_import_stats sa, sb;
    int32_t ln;

    import_ok(&a, DIR "ln_gelu.onnx", 0, &sa);
    import_ok(&b, DIR "ln_gelu-opset17.onnx", 0, &sb);
    cr_assert_eq(a.n_ops, 5, "input, fc, ln, gelu, out: %d", a.n_ops);
    cr_assert_eq(b.n_ops, 5);
    cr_assert_eq(n_type(&a, "LayerNormalization"), 1);
    cr_assert_eq(n_type(&a, "Gelu"), 1);
    cr_assert_eq(n_type(&b, "Gelu"), 1);
    cr_assert_eq(sa.n_fused, 9 + 5 + 2 * 2, "LayerNorm, GELU, two Linear (MatMul, Add)");
    cr_assert_str_eq(a.op[workload_find(&a, "/Div")].type, "Gelu");
    ln = workload_find(&a, "/ln/ReduceMean");
    cr_assert(ln >= 0);
    cr_assert_str_eq(a.op[ln].type, "LayerNormalization");
    cr_assert_eq(a.op[ln].n_in, 1, "x (the scale and bias are its parameters)");
    cr_assert_eq(a.op[ln].persistent, 2 * 64 * 4);
    cr_assert_eq(a.out_bytes[a.op[ln].out_off], 2 * 5 * 64 * 4);
    /* 7 element-wise passes over 640 elements + 2 per row (eps, sqrt) */
    cr_assert_float_eq(a.op[ln].flops, 7 * 640 + 2 * 10, 1e-9);
    cr_assert_float_eq(a.op[workload_find(&a, "/Div")].flops, 5 * 640, 1e-9);
    cr_assert_eq(sa.params, sb.params);
    cr_assert_eq(sa.params, 32 * 64 + 64 + 2 * 64 + 64 * 32 + 32);
    workload_release(&a);
    workload_release(&b);
}

/* The GPT-2 block of tests/data/pytorch-memory.json: the ops of the
 * generated block (ln, MatMul q/k/v, scores, softmax, context, out, add,
 * ln, c_fc, gelu, c_proj, add), no shape arithmetic, the Linear weights
 * (transposed by the exporter) held by their MatMul. */
Test(onnx, gpt2_block_ops)
{
    struct workload w;
    struct onnx_import_stats st;
    int32_t sm;

    import_ok(&w, DIR "gpt2_block.onnx", 0, &st);
    cr_assert_eq(st.n_unknown, 0);
    cr_assert_eq(n_type(&w, "LayerNormalization"), 2);
    cr_assert_eq(n_type(&w, "Gelu"), 1);
    cr_assert_eq(n_type(&w, "Softmax"), 1);
    cr_assert_eq(n_type(&w, "MatMul"), 6);
    cr_assert_eq(n_type(&w, "Concat") + n_type(&w, "Unsqueeze") + n_type(&w, "Mul"), 0);
    cr_assert_eq(n_type(&w, "Constant"), 1, "the causal mask");
    /* a Linear: the MatMul by the (transposed) weight and the bias Add, one op */
    cr_assert_eq(w.op[workload_find(&w, "/c_fc/MatMul")].persistent, (768 * 3072 + 3072) * 4);
    cr_assert_eq(n_type(&w, "Add"), 2, "the residual adds only");
    cr_assert_eq(w.n_ops, 24);
    /* scale, mask and softmax: one op, the scores' MatMul and the mask in */
    sm = workload_find(&w, "/Mul");
    cr_assert_str_eq(w.op[sm].type, "Softmax");
    cr_assert_eq(w.op[sm].n_in, 2);
    cr_assert_eq(w.out_bytes[w.op[sm].out_off], 12 * 1024 * 1024 * 4);
    cr_assert_eq(st.params, 7087872); /* 12 x 768^2 + 13 x 768 */
    workload_release(&w);
}

/* LSTM, GRU and RNN: outputs, parameters (the exporter's gate reordering of
 * the weights, Slice and Concat, held by the recurrent op) and FLOPs within
 * 10 % of the gates x time steps count: per gate and step 2 x input x hidden
 * + 2 x hidden x hidden (LSTM 4 gates, GRU 3, RNN 1), x batch x directions. */
Test(onnx, recurrent_ops)
{
    struct workload a, b;
    struct onnx_import_stats sa, sb;
    int32_t l, gru, rnn;
    double want;

    import_ok(&a, DIR "lstm.onnx", 0, &sa); /* LSTM(16, 32), 8 steps, batch 2 */
    cr_assert_eq(sa.n_unknown, 0);
    l = workload_find(&a, "/lstm/LSTM");
    cr_assert(l >= 0);
    cr_assert_eq(a.n_ops, 6, "input, h0 and c0 (Constant, 2 Expand), LSTM, Squeeze: %d", a.n_ops);
    cr_assert_eq(a.op[l].n_out, 3);
    cr_assert_eq(a.out_bytes[a.op[l].out_off], 8 * 1 * 2 * 32 * 4, "Y [seq, dirs, batch, h]");
    cr_assert_eq(a.out_bytes[a.op[l].out_off + 1], 1 * 2 * 32 * 4, "Y_h");
    cr_assert_eq(a.out_bytes[a.op[l].out_off + 2], 1 * 2 * 32 * 4, "Y_c");
    cr_assert_eq(a.op[l].persistent, (4 * 32 * 16 + 4 * 32 * 32 + 8 * 32) * 4);
    cr_assert_eq(sa.params, 4 * 32 * 16 + 4 * 32 * 32 + 8 * 32);
    want = 4.0 * (2 * 16 * 32 + 2 * 32 * 32) * 8 * 2;
    cr_assert(a.op[l].flops >= want && a.op[l].flops <= 1.1 * want, "%g vs %g", a.op[l].flops,
              want);

    import_ok(&b, DIR "gru_rnn.onnx", 0, &sb); /* GRU(16, 32), RNN(32, 24, bidirectional) */
    cr_assert_eq(sb.n_unknown, 0);
    gru = workload_find(&b, "/gru/GRU");
    rnn = workload_find(&b, "/rnn/RNN");
    cr_assert(gru >= 0 && rnn >= 0);
    want = 3.0 * (2 * 16 * 32 + 2 * 32 * 32) * 8 * 2;
    cr_assert(b.op[gru].flops >= want && b.op[gru].flops <= 1.1 * want, "%g", b.op[gru].flops);
    want = 1.0 * (2 * 32 * 24 + 2 * 24 * 24) * 8 * 2 * 2;
    cr_assert(b.op[rnn].flops >= want && b.op[rnn].flops <= 1.1 * want, "%g", b.op[rnn].flops);
    cr_assert_eq(b.out_bytes[b.op[rnn].out_off], 8 * 2 * 2 * 24 * 4, "Y [seq, 2 dirs, batch, h]");
    cr_assert_eq(sb.params, (3 * 32 * 16 + 3 * 32 * 32 + 6 * 32) + 2 * (24 * 32 + 24 * 24 + 48));
    workload_release(&a);
    workload_release(&b);
}

/* onnx_infer() takes the first family that knows an operator: each must be one family's. */
Test(onnx, shape_families_are_disjoint)
{
    static onnx_infer_fn (*const family[])(const char *op) = {
        onnx_shape_conv_find,        onnx_shape_matmul_find, onnx_shape_rnn_find,
        onnx_shape_elementwise_find, onnx_shape_layout_find, onnx_shape_const_find,
    };
    char known[] = "Conv MaxPool AveragePool GlobalAveragePool GlobalMaxPool Gemm MatMul LSTM GRU "
                   "RNN Relu Softmax Cast Identity BatchNormalization LayerNormalization Trilu Add "
                   "Where PRelu ReduceMean ReduceSum Reshape Flatten Transpose Squeeze Unsqueeze "
                   "Expand Pad Concat Split Slice Gather Shape Range ConstantOfShape Constant";

    for (char *op = strtok(known, " "); op; op = strtok(NULL, " ")) {
        int n = 0;

        for (size_t f = 0; f < sizeof(family) / sizeof(family[0]); f++) {
            n += family[f](op) != NULL;
        }
        cr_assert_eq(n, 1, "%s: %d families", op, n);
    }
    for (size_t f = 0; f < sizeof(family) / sizeof(family[0]); f++) {
        cr_assert_null(family[f]("NoSuchOp"));
        cr_assert_null(family[f]("Reduc"));
    }
}
