/*
 * validate.c - the registry of `baechi validate`'s checks, their rows, and
 * the helpers the checks share (validate_internal.h): GPT workloads built
 * and parallelised in process, and one timed simulation that records the
 * saved activations of device 0.  The references and what each check
 * measures are in the checks' `doc` text (docs/validation.md is its
 * output).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "results/validate.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/cluster.h"
#include "core/err.h"
#include "core/graph.h"
#include "results/validate_internal.h"
#include "sim/sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct validate_check checks[] = {
    {"zero", "ZeRO model-state bytes per GPU (Rajbhandari et al. SC'20, Figure 1)",
     validate_check_zero,
     "Rajbhandari et al., *ZeRO: Memory Optimizations Toward Training Trillion Parameter "
     "Models*, SC 2020, Figure 1: model states per GPU of a 7.5B-parameter model with mixed-"
     "precision Adam (K = 12 bytes of optimizer state per parameter) over N_d = 64 data-"
     "parallel GPUs: 120 GB (baseline DDP, (2 + 2 + K)Ψ), 31.4 GB (ZeRO-1, P_os: 4Ψ + KΨ/N_d), "
     "16.6 GB (ZeRO-2, P_os+g: 2Ψ + (2 + K)Ψ/N_d) and 1.9 GB (ZeRO-3, P_os+g+p: "
     "(2 + 2 + K)Ψ/N_d). The suite generates a GPT of 36 layers, width 4096, 32 heads and "
     "GPT-2's 50,257-token vocabulary (7.46 B parameters, fp16), applies `--dp 64 --zero Z "
     "--mixed-precision` (workloads/parallel.c) and sums, on rank 0, the parameter, gradient-"
     "bucket and optimizer bytes of the graph (`parallel_summarize`). GB = 10^9 bytes, as the "
     "paper's figure."},
    {"megatron-params", "parameters per tensor-parallel rank (Megatron-LM; Narayanan et al. SC'21)",
     validate_check_megatron_params,
     "Megatron-LM's GPT (Shoeybi et al. 2019; Narayanan et al., *Efficient Large-Scale "
     "Language Model Training on GPU Clusters Using Megatron-LM*, SC 2021, §5.1: P = "
     "12lh²(1 + 13/(12h) + (V + s)/(12lh)) in total), split over t tensor-parallel ranks as "
     "Megatron-LM's layers split it: the QKV and first MLP matmuls column-parallel (weights "
     "and biases 1/t), the attention output and second MLP matmuls row-parallel (weights 1/t, "
     "biases whole on every rank), LayerNorms whole, the word embedding vocabulary-parallel "
     "(V·h/t, tied with the LM head) and the position embedding whole: per rank "
     "l(12h² + 7h)/t + l(2h + 4h) + 2h + Vh/t + sh. Configuration: l 24, h 2048, 16 heads, "
     "s 2048, V 51,200 (50,257 padded to a multiple of 1,024 as Megatron pads it), t = 1, "
     "2, 4, 8. The suite: `workload gen gpt` with those sizes, `--tp t`, the parameter bytes of "
     "rank 0 (Σ persistent of its forward ops) over 2 bytes (fp16)."},
    {"flops", "FLOPs of a GPT training step (Narayanan et al. SC'21, appendix, eq. 3)",
     validate_check_flops,
     "Narayanan et al. SC 2021, appendix (FLOPs per iteration): with full activation "
     "recomputation F = 96·B·s·l·h²·(1 + s/(6h) + V/(16lh)) (the forward pass of a layer "
     "24Bsh²(1 + s/(6h)) run four times: forward, recomputation and a backward of twice the "
     "forward; the LM head 2BshV three times). Without recomputation the same derivation gives "
     "three passes: 72·B·s·l·h²·(1 + s/(6h) + V/(12lh)). Configuration: B 4, s 2048, l 24, "
     "h 2048, 16 heads, V 51,200. The suite: the summed FLOPs of every forward and backward op "
     "of the generated training step (`--recompute full`, and `none`), the optimizer updates "
     "excluded (the formula counts the model's matmuls only; the suite's sum also holds the "
     "element-wise ops, softmax and LayerNorm, about 1 % here)."},
    {"activations", "activation bytes per layer (Korthikanti et al. 2022, Table 2)",
     validate_check_activations,
     "Korthikanti et al., *Reducing Activation Recomputation in Large Transformer Models*, "
     "2022, §4 and Table 2: the activations a transformer layer keeps for backward, 16-bit, "
     "with dropout (masks of 1 byte per element), in units of s·b·h bytes: no recomputation "
     "34 + 5as/h (tensor parallel over t: 10 + 24/t + 5as/(ht); with sequence parallelism "
     "34/t + 5as/(ht)); selective recomputation 34 (10 + 24/t; 34/t with sequence "
     "parallelism); full recomputation 2. Configuration: h 2048, a 16, s 2048, b 1 (so "
     "5as/h = 80), t = 1, 2, 4, 8. The suite: GPT of 2 and of 4 layers with `--tp t` "
     "(`--sp` for the sequence-parallel rows) and `--recompute none|selective|full`, each "
     "simulated with the timed model on dgx-h100-8; the most bytes of the saved kind rank 0 "
     "holds at once, difference between the two depths, per layer, over s·b·h."},
    {"pipeline", "pipeline bubble and micro-batches in flight (Narayanan et al. SC'21, §2.2)",
     validate_check_pipeline,
     "Narayanan et al. SC 2021, §2.2.1 and §2.2.2: the pipeline bubble of GPipe and of 1F1B "
     "(PipeDream-Flush) is (p − 1)/m of the ideal time m·(f + b), and of the interleaved "
     "schedule with v chunks per device (p − 1)/(v·m); stage 0 holds the activations of m "
     "micro-batches under GPipe and of p under 1F1B (m ≥ p). The formulas count compute only "
     "and assume stages (chunks) of equal work. Configuration: GPT, 16 layers, h 1024, 16 heads, "
     "s 1024, vocabulary 1,024, batch 8 in m = 8 micro-batches, p = 4 stages (`--pp 4`; "
     "interleaved: 8 chunks of 2 layers, chunk c on GPU c mod 4, v = 2) on dgx-h100-8 with the "
     "paper's assumptions: the ops outside the layers (inputs, embedding, final LayerNorm, LM "
     "head, loss) take no time, so every chunk does the same work, and transfers between GPUs "
     "are free. Without them, chunk 0 (embedding) and chunk 7 (head) do more than the others, "
     "and each stage-to-stage transfer (the preset's 10 µs latency, then 2 MiB at 450 GB/s) lies "
     "on the critical path 2(v·p − 1) times, 14 for the interleaved schedule against 6 for "
     "1F1B (it sends v times as much, §2.2.2, a cost the formula leaves out): each row's note "
     "gives that whole model's bubble. The suite: bubble = (step − u₀ − I)/I, with I = m(f + b) "
     "the compute time of the "
     "busiest GPU less its optimizer updates and u₀ the updates of GPU 0, which run last (every "
     "stage steps its optimizer after the flush, so the step is (m + p − 1)(f + b) + u₀ on equal "
     "stages); micro-batches in flight = the most saved bytes GPU 0 holds at once over 1/m of "
     "what it holds with the batch in one piece (m = 1)."},
    {"nccl-busbw", "collective bus bandwidth, nccl-tests definitions (PERFORMANCE.md)",
     validate_check_nccl,
     "NVIDIA nccl-tests, `doc/PERFORMANCE.md`: algbw = S/t and busbw = algbw·2(n − 1)/n for "
     "all-reduce, algbw·(n − 1)/n for reduce-scatter and all-gather, so that busbw is the "
     "bandwidth of the bottleneck link, independent of n and comparable across the three "
     "operations. The suite plans one collective of S = 8 GiB (sim/collective.c) and reads its "
     "time t. Within a node (dgx-h100-8, n = 8) the reference is the link's achieved bus "
     "bandwidth of the preset, coll_efficiency × link peak (0.8 × 450 GB/s; nccl-tests on 8 "
     "H100 SXM report 360–480 GB/s, the top with NVLink SHARP). Across nodes the reference is "
     "a published nccl-tests log, all_reduce_perf on 2 × 8 H100 SXM with 8 × 200 Gb/s NICs a "
     "node, 16 ranks, 8 GiB: 338.8 GB/s busbw (docs/simulator.md); the suite runs the "
     "dgx-h100-2x8 preset's numbers with 200 Gb/s NICs, and reduce-scatter and all-gather "
     "against the same busbw (an all-reduce is the two)."},
    {NULL, NULL, NULL, NULL},
};

const struct validate_check *validate_checks(void)
{
    return checks;
}

const struct validate_check *validate_find(const char *name)
{
    for (const struct validate_check *c = checks; c->name; c++) {
        if (strcmp(c->name, name) == 0) {
            return c;
        }
    }
    return NULL;
}

int validate_run(const struct validate_check *c, struct validate_rows *out)
{
    int rc = c->fn(out);

    return rc ? err_wrap(rc, "validate %s", c->name) : 0;
}

void validate_rows_init(struct validate_rows *r)
{
    memset(r, 0, sizeof(*r));
}

void validate_rows_release(struct validate_rows *r)
{
    if (r) {
        free(r->row);
        validate_rows_init(r);
    }
}

double validate_ratio(const struct validate_row *row)
{
    if (!row->modelled || row->reference == 0) {
        return NAN;
    }
    return row->suite / row->reference;
}

int validate_add(struct validate_rows *out, const char *check, const char *case_name,
                 const char *source, double reference, double suite, const char *unit,
                 const char *note)
{
    struct validate_row *r;

    if (ARRAY_RESERVE(out->row, out->alloc, out->n + 1)) {
        return BAECHI_ENOMEM;
    }
    r = &out->row[out->n++];
    memset(r, 0, sizeof(*r));
    r->check = check;
    snprintf(r->case_name, sizeof(r->case_name), "%s", case_name);
    snprintf(r->source, sizeof(r->source), "%s", source);
    snprintf(r->unit, sizeof(r->unit), "%s", unit);
    snprintf(r->note, sizeof(r->note), "%s", note ? note : "");
    r->reference = reference;
    r->suite = suite;
    r->tolerance = VALIDATE_TOLERANCE;
    r->modelled = !isnan(suite);
    r->ok = r->modelled && fabs(validate_ratio(r) - 1) <= r->tolerance;
    return 0;
}

void validate_gpt_opts(struct gen_opts *o, int l, int h, int a, int s, int v, int b)
{
    gen_opts_init(o);
    o->size = "small";
    o->layers = l;
    o->d_model = h;
    o->heads = a;
    o->seq = s;
    o->vocab = v;
    o->batch = b;
    o->elem_bytes = 2;
    o->train.param_elem_bytes = 2;
    o->train.optimizer = TRAIN_ADAM;
    o->device = VALIDATE_DEVICE;
}

int validate_gpt(struct workload *out, const struct gen_opts *g, const struct parallel_opts *p)
{
    struct workload w;
    int rc;

    if (!p || !parallel_opts_active(p)) {
        return gen_model(out, "gpt", g, NULL);
    }
    if ((rc = gen_model(&w, "gpt", g, NULL))) {
        return rc;
    }
    rc = parallel_apply(out, &w, p);
    workload_release(&w);
    return rc;
}

/* The saved kind's bytes on device 0 and their maximum (a sim_mem_fn). */
struct saved_obs {
    const struct graph *g;
    const uint8_t *is_saved;
    int64_t now, max;
};

static void on_mem(void *ctx, int32_t d, int64_t t, int64_t delta, enum sim_mem_what what,
                   int32_t op, int32_t tensor, bool alloc)
{
    struct saved_obs *x = ctx;

    (void)t;
    (void)tensor;
    (void)alloc;
    if (d == 0 && sim_mem_kind(x->g, x->is_saved, what, op) == MEM_KIND_SAVED) {
        x->now += delta;
        x->max = x->now > x->max ? x->now : x->max;
    }
}

int validate_simulate(const struct workload *w, const struct cluster *cl,
                      const struct pipeline_opts *pl, struct validate_sim *out)
{
    struct graph g;
    struct cluster c;
    struct sim_result r;
    struct saved_obs x = {0};
    struct sim_mem_obs obs = {on_mem, &x};
    struct sim_options so = {.model = SIM_MODEL_TIMED, .mem_obs = &obs, .pipeline = pl};
    uint8_t *is_saved = NULL;
    int32_t *dev = NULL;
    int rc;

    memset(out, 0, sizeof(*out));
    cluster_init(&c);
    sim_result_init(&r);
    if ((rc = graph_build(&g, w))) {
        return rc;
    }
    if ((!cl && (rc = cluster_load(&c, VALIDATE_CLUSTER))) || (rc = sim_saved_ops(&g, &is_saved))) {
        goto cleanup;
    }
    if (!(dev = mem_alloc_array((size_t)g.n_ops, sizeof(*dev)))) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    for (int32_t i = 0; i < g.n_ops; i++) {
        dev[i] = g.given_device[i] >= 0 ? g.given_device[i] : 0;
    }
    x.g = &g;
    x.is_saved = is_saved;
    if ((rc = sim_run(&g, cl ? cl : &c, dev, &so, &r))) {
        goto cleanup;
    }
    out->step_us = r.step_us;
    out->saved0_bytes = x.max;
    for (int32_t d = 0; d < r.n_devices && d < VALIDATE_SIM_DEVICES; d++) {
        out->busy_us[d] = r.dev[d].busy_us;
    }
    for (int32_t i = 0; i < g.n_ops; i++) {
        if (dev[i] < VALIDATE_SIM_DEVICES && g.phase[i] == PHASE_UPDATE) {
            out->update_us[dev[i]] += r.end_us[i] - r.start_us[i];
        }
    }
cleanup:
    free(dev);
    free(is_saved);
    sim_result_release(&r);
    cluster_release(&c);
    graph_release(&g);
    return rc;
}
