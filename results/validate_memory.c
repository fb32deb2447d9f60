/*
 * validate_memory.c - the checks of `baechi validate` that count bytes and
 * FLOPs of generated GPT graphs: ZeRO's model states (Rajbhandari et al.
 * SC'20, Figure 1), Megatron-LM's parameters per tensor-parallel rank, the
 * FLOPs of a training step (Narayanan et al. SC'21, appendix) and the
 * activations a layer keeps (Korthikanti et al. 2022, Table 2).  The
 * references and the measurements are described in validate.c's registry.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/alloc.h"
#include "core/err.h"
#include "results/validate_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Dropout as GPT-2 and Megatron train (p = 0.1: masks of 1 byte per
 * element, kept for backward), which Korthikanti's formulas include: the
 * generators' default (gen_opts.dropout < 0), said here explicitly. */
static void set_dropout(struct gen_opts *g)
{
    g->dropout = 0.1;
}

/* Megatron's vocabulary-parallel embedding and LM head: what --tp does
 * (workloads/parallel_tp.c), nothing to set. */
static void set_vocab_parallel(struct parallel_opts *p)
{
    (void)p;
}

/* ZeRO's Figure 1: 7.5B, K = 12, N_d = 64. */
int validate_check_zero(struct validate_rows *out)
{
    static const double ref_gb[4] = {120, 31.4, 16.6, 1.9};
    static const char *const stage[4] = {"baseline DDP", "ZeRO-1 (P_os)", "ZeRO-2 (P_os+g)",
                                         "ZeRO-3 (P_os+g+p)"};
    const int nd = 64;
    struct workload w, p;
    struct gen_opts g;
    struct parallel_device *dev = NULL;
    double psi = 0;
    int rc;

    workload_init(&p);
    validate_gpt_opts(&g, 36, 4096, 32, 128, 50257, 1);
    g.device = NULL; /* bytes and FLOPs only: no times */
    if ((rc = validate_gpt(&w, &g, NULL))) {
        return rc;
    }
    for (int32_t i = 0; i < w.n_ops; i++) {
        psi += w.op[i].phase == PHASE_FORWARD ? (double)w.op[i].persistent / 2 : 0;
    }
    if (!(dev = mem_calloc((size_t)nd, sizeof(*dev)))) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    for (int z = 0; z <= 3; z++) {
        struct parallel_opts o;
        char c[96], note[256];
        double bytes;

        parallel_opts_init(&o);
        o.dp = nd;
        o.zero = z;
        o.mixed_precision = true;
        workload_release(&p);
        CHECK(parallel_apply(&p, &w, &o));
        parallel_summarize(&p, nd, dev);
        bytes = (double)(dev[0].param_bytes + dev[0].grad_bytes + dev[0].optimizer_bytes);
        snprintf(c, sizeof(c), "%s, 7.5B, K = 12, Nd = 64", stage[z]);
        snprintf(note, sizeof(note),
                 "GPT l 36, h 4096 (%.3g B parameters), --dp 64 --zero %d --mixed-precision: "
                 "rank 0's parameters + gradient buckets + optimizer state",
                 psi / 1e9, z);
        CHECK(validate_add(out, "zero", c, "Rajbhandari et al. SC'20, Figure 1", ref_gb[z],
                           bytes / 1e9, "GB", note));
    }
cleanup:
    free(dev);
    workload_release(&p);
    workload_release(&w);
    return rc;
}

/* Megatron-LM's parameters on one of t tensor-parallel ranks (validate.c's doc). */
static double megatron_params_per_rank(double l, double h, double v, double s, double t)
{
    return l * (12 * h * h + 7 * h) / t + l * (2 * h + 4 * h) + 2 * h + v * h / t + s * h;
}

int validate_check_megatron_params(struct validate_rows *out)
{
    const int l = 24, h = 2048, a = 16, s = 2048, v = 51200;
    struct gen_opts g;
    int rc = 0;

    validate_gpt_opts(&g, l, h, a, s, v, 1);
    g.device = NULL; /* bytes and FLOPs only: no times */
    for (int t = 1; t <= 8 && rc == 0; t *= 2) {
        struct workload w;
        struct parallel_opts o;
        struct parallel_device dev[8];
        double params = 0;
        char c[96];

        parallel_opts_init(&o);
        o.tp = t;
        set_vocab_parallel(&o);
        if ((rc = validate_gpt(&w, &g, &o))) {
            return rc;
        }
        if (t == 1) {
            for (int32_t i = 0; i < w.n_ops; i++) {
                params += w.op[i].phase == PHASE_FORWARD ? (double)w.op[i].persistent : 0;
            }
        } else {
            parallel_summarize(&w, t, dev);
            params = (double)dev[0].param_bytes;
        }
        workload_release(&w);
        snprintf(c, sizeof(c), "l 24, h 2048, V 51,200, s 2048, t = %d", t);
        rc = validate_add(
            out, "megatron-params", c, "Megatron-LM layers; Narayanan et al. SC'21 §5.1 (total P)",
            megatron_params_per_rank(l, h, v, s, t) / 1e6, params / 2 / 1e6, "M params / rank",
            "--tp t: rank 0's parameter bytes (forward persistent) / 2 (fp16)");
    }
    return rc;
}

/* Σ FLOPs of the forward and backward ops (the updates are not the model's). */
static double step_flops(const struct workload *w)
{
    double f = 0;

    for (int32_t i = 0; i < w->n_ops; i++) {
        if (w->op[i].phase != PHASE_UPDATE && !isnan(w->op[i].flops)) {
            f += w->op[i].flops;
        }
    }
    return f;
}

int validate_check_flops(struct validate_rows *out)
{
    const double B = 4, s = 2048, l = 24, h = 2048, V = 51200;
    static const enum train_recompute mode[2] = {TRAIN_RECOMPUTE_FULL, TRAIN_RECOMPUTE_NONE};
    struct gen_opts g;
    int rc = 0;

    for (int i = 0; i < 2 && rc == 0; i++) {
        struct workload w;
        double ref = i == 0 ? 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h))
                            : 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));

        validate_gpt_opts(&g, (int)l, (int)h, 16, (int)s, (int)V, (int)B);
        g.device = NULL; /* bytes and FLOPs only: no times */
        g.train.recompute = mode[i];
        if ((rc = validate_gpt(&w, &g, NULL))) {
            return rc;
        }
        rc = validate_add(out, "flops",
                          i == 0 ? "full recomputation, B 4, s 2048, l 24, h 2048, V 51,200"
                                 : "no recomputation, B 4, s 2048, l 24, h 2048, V 51,200",
                          i == 0 ? "Narayanan et al. SC'21, appendix, eq. 3"
                                 : "Narayanan et al. SC'21, appendix (3 passes)",
                          ref / 1e12, step_flops(&w) / 1e12, "TFLOP",
                          "Σ FLOPs of the generated step's forward and backward ops");
        workload_release(&w);
    }
    return rc;
}

/* Korthikanti's bytes per layer over s*b*h (a 16, s 2048, h 2048: 5as/h = 80). */
static double korthikanti(enum train_recompute m, int t, bool sp)
{
    const double attn = 80;

    switch (m) {
    case TRAIN_RECOMPUTE_FULL:
        return 2;
    case TRAIN_RECOMPUTE_SELECTIVE:
        return sp ? 34.0 / t : 10 + 24.0 / t;
    default:
        return sp ? 34.0 / t + attn / t : 10 + 24.0 / t + attn / t;
    }
}

/* The saved bytes per layer of rank 0, over s*b*h. `sp` is Megatron's
 * sequence parallelism (Korthikanti et al. 2022, §4.2.2), the transform's
 * `--sp` (workloads/parallel.h). */
static int layer_saved(enum train_recompute m, int t, bool sp, double *per_sbh)
{
    const int depth[2] = {2, 4}, h = 2048, s = 2048, b = 1;
    struct validate_sim r[2];
    int rc = 0;

    *per_sbh = NAN;
    for (int i = 0; i < 2; i++) {
        struct workload w;
        struct gen_opts g;
        struct parallel_opts o;

        validate_gpt_opts(&g, depth[i], h, 16, s, 51200, b);
        g.train.recompute = m;
        set_dropout(&g);
        parallel_opts_init(&o);
        o.tp = t;
        set_vocab_parallel(&o);
        o.sp = sp;
        if ((rc = validate_gpt(&w, &g, &o))) {
            return rc;
        }
        rc = validate_simulate(&w, NULL, NULL, &r[i]);
        workload_release(&w);
        if (rc) {
            return rc;
        }
    }
    *per_sbh = (double)(r[1].saved0_bytes - r[0].saved0_bytes) / (depth[1] - depth[0]) /
               ((double)s * b * h);
    return 0;
}

int validate_check_activations(struct validate_rows *out)
{
    static const enum train_recompute mode[3] = {TRAIN_RECOMPUTE_NONE, TRAIN_RECOMPUTE_SELECTIVE,
                                                 TRAIN_RECOMPUTE_FULL};
    int rc = 0;

    for (int sp = 0; sp <= 1; sp++) {
        for (int k = 0; k < 3; k++) {
            for (int t = sp ? 2 : 1; t <= 8; t *= 2) {
                double v;
                char c[96];

                if (sp && mode[k] == TRAIN_RECOMPUTE_FULL) {
                    continue; /* Table 2 gives full recomputation once, without SP */
                }
                if ((rc = layer_saved(mode[k], t, sp, &v))) {
                    return rc;
                }
                snprintf(c, sizeof(c), "%s recomputation, t = %d%s",
                         mode[k] == TRAIN_RECOMPUTE_NONE ? "no" : train_recompute_name(mode[k]), t,
                         sp ? ", sequence parallel" : "");
                rc = validate_add(out, "activations", c, "Korthikanti et al. 2022, Table 2",
                                  korthikanti(mode[k], t, sp), v, "s*b*h bytes / layer",
                                  "rank 0's most saved bytes, GPT l 4 minus l 2, "
                                  "h 2048, a 16, s 2048, b 1, fp16");
                if (rc) {
                    return rc;
                }
            }
        }
    }
    return 0;
}
