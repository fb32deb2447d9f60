/*
 * test_gen_models.c - the model generators against independent published
 * numbers (parameters, forward multiply-adds), and the structure every
 * generated workload must have (checks, graph, groups, round trip).
 *
 * Conventions: `flops` counts a multiply-add as 2; "MACs" are the
 * multiply-adds of convolution and matmul ops, as torchvision's table counts
 * its "GFLOPS".
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/gen.h"

#include "core/err.h"
#include "core/graph.h"
#include "core/workload_yaml.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fwd_opts(struct gen_opts *o)
{
    gen_opts_init(o);
    o->forward_only = true;
    o->device = NULL;
}

static int64_t gen_params(int (*fn)(struct workload *, const struct gen_opts *, struct gen_info *),
                          const struct gen_opts *o, struct gen_info *info)
{
    struct workload w;

    workload_init(&w);
    cr_assert_eq(fn(&w, o, info), 0, "%s", err_msg());
    cr_assert_eq(workload_check(&w), 0, "%s", err_msg());
    workload_release(&w);
    return info->params;
}

Test(gen_models, inception_v3_parameters_match_torchvision)
{
    struct gen_opts o;
    struct gen_info info;

    fwd_opts(&o);
    /* torchvision inception_v3: 27,161,264 with the aux head, 23,834,568 without */
    cr_assert_eq(gen_params(gen_inception_v3, &o, &info), 23834568);
    o.aux = true;
    cr_assert_eq(gen_params(gen_inception_v3, &o, &info), 27161264);
}

Test(gen_models, inception_v3_forward_macs)
{
    struct gen_opts o;
    struct gen_info info;

    fwd_opts(&o);
    o.batch = 1;
    gen_params(gen_inception_v3, &o, &info);
    /* torchvision's table: 5.71 GFLOPS (multiply-adds) per 299x299 image */
    cr_assert(fabs(info.fwd_macs - 5.71e9) < 0.01 * 5.71e9, "%.4g MACs", info.fwd_macs);
    cr_assert(info.fwd_flops > 2 * info.fwd_macs, "elementwise ops add FLOPs");
    o.batch = 64;
    gen_params(gen_inception_v3, &o, &info);
    cr_assert(fabs(info.fwd_macs / 64 - 5.71e9) < 0.01 * 5.71e9);
}

Test(gen_models, inception_v3_tensor_sizes)
{
    struct gen_opts o;
    struct gen_info info;
    struct workload w;
    int32_t i;

    fwd_opts(&o);
    o.batch = 32;
    workload_init(&w);
    cr_assert_eq(gen_inception_v3(&w, &o, &info), 0);
    i = workload_find(&w, "Mixed_7c/concat");
    cr_assert(i >= 0);
    cr_assert_eq(w.out_bytes[w.op[i].out_off], (int64_t)32 * 2048 * 8 * 8 * 4);
    i = workload_find(&w, "Mixed_5b/concat");
    cr_assert_eq(w.out_bytes[w.op[i].out_off], (int64_t)32 * 256 * 35 * 35 * 4);
    i = workload_find(&w, "Conv2d_1a_3x3/conv");
    cr_assert_eq(w.op[i].persistent, 3 * 3 * 3 * 32 * 4);
    cr_assert_str_eq(workload_group(&w, i), "Conv2d_1a_3x3");
    cr_assert_str_eq(workload_group(&w, workload_find(&w, "Conv2d_1a_3x3/relu")), "Conv2d_1a_3x3");
    workload_release(&w);
}

Test(gen_models, gnmt_parameters_match_the_shipped_profile)
{
    struct gen_opts o;
    struct gen_info info;
    struct workload prof;
    int64_t vars = 0;

    fwd_opts(&o);
    gen_params(gen_gnmt, &o, &info);
    cr_assert_eq(info.params, 72837632);
    /* independent: the VariableV2 sizes of the original's TensorFlow profile */
    cr_assert_eq(workload_read_yaml(&prof, "data/workloads/gnmt_v2/gnmt_v2_b128_fwd.yaml"), 0, "%s",
                 err_msg());
    for (int32_t i = 0; i < prof.n_ops; i++) {
        if (strcmp(prof.op[i].type, "VariableV2") == 0) {
            vars += prof.op[i].persistent;
        }
    }
    workload_release(&prof);
    cr_assert_eq(vars / 4, info.params);
}

Test(gen_models, gnmt_is_unrolled_per_time_step)
{
    struct gen_opts o;
    struct gen_info info;
    struct workload w;
    int32_t cells = 0;

    fwd_opts(&o);
    workload_init(&w);
    cr_assert_eq(gen_gnmt(&w, &o, &info), 0);
    for (int32_t i = 0; i < w.n_ops; i++) {
        cells += strcmp(w.op[i].type, "LSTMBlockCell") == 0;
    }
    /* encoder: 2 (bidirectional) + 3 layers, decoder: 4 layers; 40 steps each */
    cr_assert_eq(cells, 9 * 40);
    cr_assert_eq(info.batch, 128);
    cr_assert_eq(info.seq, 40);
    /* one cell's output: h and c of 128 x 512 floats */
    cr_assert_eq(w.op[workload_find(&w, "decoder/rnn/cell_3/cell_39")].n_out, 2);
    cr_assert_eq(w.out_bytes[w.op[workload_find(&w, "decoder/rnn/cell_3/cell_39")].out_off],
                 128 * 512 * 4);
    workload_release(&w);
}

Test(gen_models, transformer_parameters)
{
    struct gen_opts o;
    struct gen_info info;

    fwd_opts(&o);
    gen_params(gen_transformer, &o, &info);
    /* base with a 37k shared vocabulary: the paper says "65 M"; exact count
     * 6 x 3,152,384 + 6 x 4,204,032 + 37,000 x 512 */
    cr_assert_eq(info.params, 63082496);
    cr_assert(fabs((double)info.params - 65e6) < 0.04 * 65e6);
    o.size = "big";
    gen_params(gen_transformer, &o, &info);
    cr_assert_eq(info.params, 210874368); /* the paper's big model: "213 M" */
    cr_assert_eq(info.batch, 8);
    cr_assert_eq(info.seq, 30);
    o.size = "huge";
    cr_assert_eq(gen_transformer(&(struct workload){0}, &o, &info), BAECHI_EINVAL);
}

Test(gen_models, gpt2_parameters_match_published)
{
    struct gen_opts o;
    struct gen_info info;
    static const struct {
        const char *size;
        int64_t params;
    } want[] = {
        {"small", 124439808},  /* GPT-2 small, "124 M" */
        {"medium", 354823168}, /* "355 M" */
        {"large", 774030080},  /* "774 M" */
        {"xl", 1557611200},    /* "1.5 B" */
    };

    fwd_opts(&o);
    o.batch = 1;
    o.seq = 64;
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        o.size = want[i].size;
        gen_params(gen_gpt, &o, &info);
        cr_assert_eq(info.params, want[i].params, "%s: %lld", want[i].size, (long long)info.params);
    }
}

Test(gen_models, gpt_forward_macs_follow_kaplan)
{
    struct gen_opts o;
    struct gen_info info;
    double n_layer = 12, d = 768, n_ctx = 1024, vocab = 50257, tokens = 8 * 1024, want;

    fwd_opts(&o);
    gen_params(gen_gpt, &o, &info);
    /* Kaplan et al. 2020, Table 1: C_forward = 2 N + 2 n_layer n_ctx d FLOPs per
     * token (N = 12 n_layer d^2 without embeddings), plus the tied LM head.
     * Kaplan's attention term averages over the causal mask (n_ctx / 2 keys
     * for QK^T and for AV); dense kernels compute all n_ctx, so twice that. */
    want = tokens * (12 * n_layer * d * d + 2 * n_layer * n_ctx * d + vocab * d);
    cr_assert(fabs(info.fwd_macs - want) < 0.01 * want, "%.5g vs %.5g", info.fwd_macs, want);
}

/* Every model: training graph, checks, graph_build, groups, round trip. */
static void check_model(const char *name, const char *size)
{
    struct gen_opts o;
    struct gen_info info;
    struct workload w, back;
    struct graph g;
    char *buf = NULL;
    size_t len = 0;
    FILE *f;
    int32_t n_bwd = 0, n_upd = 0;

    gen_opts_init(&o);
    o.size = size;
    if (strcmp(name, "gpt") == 0) {
        o.batch = 2;
        o.seq = 128;
    }
    cr_assert_eq(gen_model(&w, name, &o, &info), 0, "%s: %s", name, err_msg());
    cr_assert_eq(workload_check(&w), 0, "%s: %s", name, err_msg());
    memset(&g, 0, sizeof(g));
    cr_assert_eq(graph_build(&g, &w), 0, "%s: %s", name, err_msg());
    cr_assert_eq(graph_check(&g), 0, "%s: %s", name, err_msg());
    cr_assert_eq(g.n_pruned, 0, "%s: %d dangling ops", name, g.n_pruned);
    for (int32_t i = 0; i < w.n_ops; i++) {
        const struct wl_op *op = &w.op[i];

        cr_assert(isfinite(op->time_us) && op->time_us >= 5.0, "%s: op '%s' has no time", name,
                  op->name);
        if (op->phase == PHASE_BACKWARD) {
            char fwd[512];
            int32_t fo;

            n_bwd++;
            snprintf(fwd, sizeof(fwd), "%.*s", (int)(strlen(op->name) - 5), op->name);
            fo = workload_find(&w, fwd);
            cr_assert(fo >= 0, "%s: no forward op for '%s'", name, op->name);
            cr_assert_str_eq(workload_group(&w, i), workload_group(&w, fo));
        }
        n_upd += op->phase == PHASE_UPDATE;
    }
    cr_assert(n_bwd > w.n_ops / 4, "%s: %d backward ops", name, n_bwd);
    cr_assert(n_upd > 0);
    cr_assert(g.n_groups < g.n_ops, "%s: layer groups", name);
    graph_release(&g);

    f = open_memstream(&buf, &len);
    cr_assert_eq(workload_write_yaml(&w, f), 0, "%s", err_msg());
    fclose(f);
    cr_assert_eq(workload_read_yaml_string(&back, buf, len, name), 0, "%s: %s", name, err_msg());
    cr_assert_eq(back.n_ops, w.n_ops);
    for (int32_t i = 0; i < w.n_ops; i++) {
        cr_assert_eq(back.op[i].persistent, w.op[i].persistent);
        cr_assert_float_eq(back.op[i].flops, w.op[i].flops, 1e-6 * (1 + w.op[i].flops));
        cr_assert_eq(back.op[i].n_in, w.op[i].n_in);
    }
    workload_release(&back);
    free(buf);
    workload_release(&w);
}

Test(gen_models, inception_v3_training_graph)
{
    check_model("inception-v3", NULL);
}

Test(gen_models, gnmt_training_graph)
{
    check_model("gnmt", NULL);
}

Test(gen_models, transformer_training_graph)
{
    check_model("transformer", "big");
}

Test(gen_models, gpt_training_graph)
{
    check_model("gpt", "small");
}

Test(gen_models, unknown_model_is_an_error)
{
    struct gen_opts o;
    struct workload w;

    gen_opts_init(&o);
    cr_assert_eq(gen_model(&w, "resnet-1001", &o, NULL), BAECHI_EINVAL);
    cr_assert(strstr(err_msg(), "resnet-1001") != NULL);
    o.device = "tpu9";
    cr_assert_eq(gen_model(&w, "gpt", &o, NULL), BAECHI_EINVAL);
}
