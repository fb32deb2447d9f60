/*
 * test_gen_presets.c - the GPT generator's size presets against the
 * published sizes (GPT-3: Brown et al. 2020, Table 2.1; Llama 2: Touvron
 * et al. 2023, Table 1 and the model cards), the FLOPs of a kept training
 * step against the 6 N T-style formulas, and tensor parallelism of the
 * Llama options (SwiGLU, rotary, grouped-query attention).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/gen.h"

#include "core/err.h"
#include "workloads/parallel.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static struct gen_info gen(struct workload *w, const char *size, bool forward_only, int64_t seq)
{
    struct gen_opts o;
    struct gen_info info;

    gen_opts_init(&o);
    o.size = size;
    o.forward_only = forward_only;
    o.device = NULL;
    o.batch = 1;
    o.seq = (int)seq;
    cr_assert_eq(gen_model(w, "gpt", &o, &info), 0, "%s: %s", size, err_msg());
    return info;
}

/*
 * Each preset within 1 % of its published size.  Four of Table 2.1's sizes
 * are rounded labels that no count of its own architecture reaches within
 * 1 % (Medium 24 x 1024 is 355.9 M, not 350 M; XL 1.316 B, not 1.3 B; 2.7B
 * 2.652 B; 13B 12.85 B with d_model 40 x 128 = 5,120): 2 % for those
 * (docs/workloads.md, deviations).
 */
Test(gen_presets, parameters_match_published)
{
    static const char *const rounded[] = {"gpt3-medium", "gpt3-xl", "gpt3-2.7b", "gpt3-13b", NULL};
    const char *const *names = gen_gpt_sizes();
    int checked = 0;

    for (int i = 0; names[i]; i++) {
        const struct gen_gpt_preset *p = gen_gpt_preset(names[i]);
        struct workload w;
        struct gen_info info;
        double tol = 0.01;

        cr_assert_not_null(p, "%s", names[i]);
        if (p->nominal_params <= 0) {
            continue;
        }
        for (int k = 0; rounded[k]; k++) {
            tol = strcmp(rounded[k], names[i]) == 0 ? 0.02 : tol;
        }
        info = gen(&w, names[i], true, 64);
        workload_release(&w);
        cr_assert(fabs((double)info.params / p->nominal_params - 1) <= tol,
                  "%s: %lld parameters, published %.4g (tolerance %.0f %%)", names[i],
                  (long long)info.params, p->nominal_params, 100 * tol);
        checked++;
    }
    cr_assert_geq(checked, 15);
}

/* The Llama 2 checkpoints' exact sizes (Hugging Face model cards: the sum of
 * the tensors of meta-llama/Llama-2-{7,13,70}b-hf). */
Test(gen_presets, llama2_exact_sizes)
{
    static const struct {
        const char *size;
        int64_t params;
    } want[] = {
        {"llama2-7b", 6738415616LL},
        {"llama2-13b", 13015864320LL},
        {"llama2-70b", 68976648192LL},
    };

    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        struct workload w;
        struct gen_info info = gen(&w, want[i].size, true, 64);

        workload_release(&w);
        cr_assert_eq(info.params, want[i].params, "%s: %lld", want[i].size, (long long)info.params);
    }
}

/*
 * The kept step (forward and backward, batch 1 at the full context): the
 * FLOPs of its matmuls are 6 N_mm T + 12 l s d T, N_mm the parameters of
 * the matmuls (the LM head included, the input embedding and norms not),
 * T = s tokens, 12 l s d T the scores and context of dense attention (Kaplan
 * et al. 2020's 2 n_layer n_ctx d per token forward, twice: the mask is
 * computed densely); for GPT-3 175B also Megatron-LM's
 * 72 B s l h^2 (1 + s/6h + V/12lh) (Narayanan et al. 2021's 96 without
 * recomputation).  And the whole step against 6 N T.
 */
Test(gen_presets, step_flops_follow_6nt)
{
    static const char *const sizes[] = {"gpt3-175b", "llama2-7b", "llama2-70b", "gpt3-small"};

    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        const struct gen_gpt_preset *p = gen_gpt_preset(sizes[i]);
        struct workload w;
        gen(&w, sizes[i], false, p->ctx);
        double l = (double)p->layers, d = (double)p->d, s = (double)p->ctx, T = s;
        double kv = (double)(p->kv_heads * (p->d / p->heads)), V = (double)p->vocab;
        double mm_params = l * (d * (d + 2 * kv) + d * d +
                                d * (double)p->ffn * (p->mlp == GEN_MLP_SWIGLU ? 3 : 2)) +
                           V * d;
        double want = 6 * mm_params * T + 12 * l * s * d * T, mm = 0, all = 0;

        for (int32_t k = 0; k < w.n_ops; k++) {
            const char *t = w.op[k].type;

            if (w.op[k].phase == PHASE_UPDATE) {
                continue;
            }
            all += w.op[k].flops;
            if (strcmp(t, "MatMul") == 0 || strcmp(t, "BatchMatMul") == 0 ||
                strcmp(t, "MatMulGrad") == 0 || strcmp(t, "BatchMatMulGrad") == 0) {
                mm += w.op[k].flops;
            }
        }
        cr_assert(fabs(mm / want - 1) < 0.001, "%s: matmul FLOPs %.6g, 6 N_mm T + 12 l s d T %.6g",
                  sizes[i], mm, want);
        /* the whole step (norms, softmax, activations too) within 3 % of 6 N_mm T + attention;
         * 6 N T alone leaves out attention: 12 l s d / 6 N, 16 % for Llama-2 7B at 4,096 */
        cr_assert(all / want > 1 && all / want < 1.03, "%s: step %.6g vs %.6g", sizes[i], all,
                  want);
        if (strcmp(sizes[i], "gpt3-175b") == 0) {
            double meg = 72 * s * l * d * d * (1 + s / (6 * d) + V / (12 * l * d));

            cr_assert(fabs(mm / meg - 1) < 0.001, "175b: %.6g vs Megatron %.6g", mm, meg);
        }
        workload_release(&w);
    }
}

/* GPT-3 175B at batch 1 is generated whole (a few thousand ops: far below
 * the 1,000,000-op cap of gen_cap.h). */
Test(gen_presets, gpt3_175b_is_generated)
{
    struct workload w;
    struct gen_info info = gen(&w, "gpt3-175b", false, 2048);

    cr_assert_eq(w.n_ops, 3093, "%d ops", (int)w.n_ops);
    cr_assert_eq(info.params, 174604259328LL, "%lld", (long long)info.params);
    workload_release(&w);
}

static const struct wl_op *op_named(const struct workload *w, const char *name)
{
    int32_t i = workload_find(w, name);

    cr_assert_geq(i, 0, "no op %s", name);
    return &w->op[i];
}

/* Tensor parallelism splits the SwiGLU MLP (the fused gate and up
 * column-parallel, SwiGLU by columns, down row-parallel), the rotary op,
 * grouped-query attention (K/V heads / T per rank) and both vocabulary
 * tables of untied embeddings, and refuses a T that does not divide the
 * K/V heads. */
Test(gen_presets, tensor_parallel_swiglu_and_gqa)
{
    struct gen_opts o;
    struct parallel_opts po;
    struct workload w, t;
    static const char *const split[] = {"h0/mlp/c_fc", "h0/mlp/swiglu",  "h0/mlp/c_proj",
                                        "h0/attn/qkv", "h0/attn/rotary", "h0/attn/scores"};
    char name[128];

    gen_opts_init(&o);
    o.size = "llama2-70b";
    o.layers = 1;
    o.batch = 1;
    o.seq = 128;
    o.device = NULL;
    cr_assert_eq(gen_model(&w, "gpt", &o, NULL), 0, "%s", err_msg());
    parallel_opts_init(&po);
    po.tp = 8;
    cr_assert_eq(parallel_apply(&t, &w, &po), 0, "%s", err_msg());
    for (size_t i = 0; i < sizeof(split) / sizeof(split[0]); i++) {
        const struct wl_op *full = op_named(&w, split[i]), *one;

        snprintf(name, sizeof(name), "r3/%s", split[i]);
        one = op_named(&t, name);
        cr_assert(fabs(one->flops * 8 - full->flops) <= 1e-9 * full->flops, "%s: %g vs %g",
                  split[i], one->flops, full->flops);
        cr_assert_eq(one->persistent * 8, full->persistent, "%s", split[i]);
        /* the row-parallel c_proj's output is whole (all-reduced); the others are split */
        cr_assert_eq(t.out_bytes[one->out_off] * (strcmp(split[i], "h0/mlp/c_proj") ? 8 : 1),
                     w.out_bytes[full->out_off], "%s", split[i]);
    }
    /* qkv: 8192 -> 8192 + 2 x 8 x 128 columns, 1/8 per rank (8 query heads, 1 K/V head) */
    cr_assert_eq(op_named(&t, "r0/h0/attn/qkv")->persistent, 8192LL * (8192 + 2048) / 8 * 4);
    /* untied: the input embedding is vocabulary-parallel as the head's table (V' = 32,768
     * rows, 4,096 per rank) */
    cr_assert_eq(op_named(&t, "r3/wte")->persistent, 4096LL * 8192 * 4);
    cr_assert_eq(op_named(&t, "r3/lm_head/w")->persistent, 4096LL * 8192 * 4);
    workload_release(&t);
    po.tp = 16;
    cr_assert_neq(parallel_apply(&t, &w, &po), 0);
    cr_assert(strstr(err_msg(), "--tp 16 does not divide the 8 K/V heads"), "%s", err_msg());
    workload_release(&t);
    workload_release(&w);
}
