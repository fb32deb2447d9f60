/*
 * parallel.h - data, tensor and pipeline parallelism as a graph transform:
 * a training graph -> the graph of one step over N = D x T x P devices,
 * every op pinned to its rank (`device:`), with the collectives of
 * docs/parallelism.md as ops (the contract of docs/formats.md, x-collective:
 * one op per participating rank, all sharing an id).
 *
 * Ranks: r = t + T x (d + D x p) for TP rank t, DP replica d and pipeline
 * stage p (Megatron-LM's order: tensor parallelism innermost, so a TP group
 * is T consecutive GPUs of one node; then data parallelism; then stages).
 * Rank r's copy of op "X" is "r<r>/X"; a collective's rank op is
 * "r<r>/<id>".
 *
 *   DP (PyTorch DDP, Li et al. VLDB 2020): D replicas of the step, each on
 *     the input graph's batch (the batch is per replica); the weight
 *     gradients of a stage go into buckets of at most bucket_mb MiB (a
 *     single larger gradient alone) in the order backward produces them
 *     (reverse layer order); each bucket is one all-reduce over the D
 *     replicas that reads the bucket's gradients (so it starts when the
 *     last is ready and overlaps the rest of backward), and the updates of
 *     its parameters read its result.
 *   ZeRO (Rajbhandari et al. SC 2020), stage z:
 *     1: the optimizer state and update work 1/D per replica; after the
 *        updates of a bucket, an all-gather of its updated parameters;
 *     2: also gradients: each bucket is a reduce-scatter (each replica
 *        keeps S/D), then as 1;
 *     3: also parameters (persistent 1/D): before every forward and
 *        backward copy of an op with parameters, an all-gather of them
 *        (the op reads it); no all-gather after the updates.
 *   TP (Megatron-LM, Shoeybi et al. 2019), for the GPT and Transformer
 *     generators' blocks: QKV (or Q, K, V) and the first MLP matmul
 *     column-parallel, scores/softmax/context and the activation split by
 *     heads / columns, the output projections row-parallel: their time,
 *     FLOPs, bytes, parameters, optimizer state and split tensors 1/T (exact:
 *     a size not divisible by T is an error); an all-reduce of the row-
 *     parallel output in forward (2 per layer) and of the gradient of the
 *     column-parallel input in backward (2 per layer).  Vocabulary-parallel
 *     embedding and LM head, found by structure: a table (an op with
 *     parameters and no inputs) read by Gathers and by the matmul feeding a
 *     softmax cross-entropy: the table V'/T rows per rank (V = logits /
 *     labels bytes, V' = V padded to a multiple of 128 x T), each lookup a
 *     masked partial sum with an all-reduce, the head column-parallel
 *     (logits V'/T, the gradient of its input all-reduced), the loss on
 *     the split logits after one all-reduce of 3 values per token; an
 *     untied input embedding (a table of vocabulary rows that only Gathers
 *     read) is split alike.  Llama's options (gen gpt): the fused SwiGLU
 *     gate/up matmul column-parallel, SwiGLU and the rotary op split by
 *     columns / heads, grouped-query attention's K/V heads split by T (the
 *     workload's `x-attention: {kv_heads}`; a T that does not divide them
 *     is an error).  Other
 *     ops (LayerNorm, residual Add, position embeddings) are replicated;
 *     with sp (Korthikanti et al. 2022) they are split along the sequence
 *     (1/T, parameters whole), the row-parallel all-reduces become
 *     reduce-scatters and the column-parallel inputs all-gathers (forward,
 *     and in backward for the weight gradient), the row-parallel output
 *     gradients all-gathers.
 *   PP: P stages of contiguous layers (a layer: the groups of one "h<l>" or
 *     "layer_<l>" name component; equal layer counts; the ops before the
 *     first layer in stage 0, the others with the layer before them; a
 *     graph without such layers: groups by forward time); backward and
 *     update ops follow their forward op's group.  pp_by_time: every group
 *     weighs its forward time, and the cut is by time instead.  Edges between stages are
 *     the transfers of activations and gradients; the schedule is the
 *     simulator's (micro-batches from the training synthesis).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_WORKLOADS_PARALLEL_H
#define BAECHI_WORKLOADS_PARALLEL_H

#include "core/workload.h"

#include <stdbool.h>
#include <stdint.h>

#define PARALLEL_MAX_DEVICES 4096
/* With symmetric: D x T x P up to this (one replica's ops are written). */
#define PARALLEL_MAX_SYMMETRIC_DEVICES 16384

struct parallel_opts {
    int32_t dp, tp, pp;   /* degrees, each >= 1 (default 1) */
    int32_t zero;         /* ZeRO stage 0..3 (default 0: plain DDP) */
    double bucket_mb;     /* DDP bucket cap in MiB (default 25, PyTorch's) */
    bool pp_by_time;      /* stages of equal forward time instead of equal layer counts */
    bool mixed_precision; /* optimizer state = K x Ψ, K = 4 + 4 x states (fp32 master copy and
                             states of fp16 parameters: 12 for Adam); see docs/parallelism.md */
    bool sp;              /* Megatron sequence parallelism (needs tp > 1) */
    bool fp32_main_grads; /* with mixed_precision: Megatron's fp32 main gradients, a resident
                             4 x Ψ buffer held with the optimizer state (Adam: 18 bytes per
                             parameter), and DDP's buckets reduce them (4 bytes per parameter) */
    bool symmetric;       /* replica symmetry (docs/symmetry.md): write a representative per
                             class of ranks (parallel_rank_written) on its device, each
                             collective's rank op standing for its class's ranks of the group
                             (x-collective replicas, stride), and the top-level x-symmetry
                             {replicas: D, stride: T, devices: N, tp: T, classes: 4} */
};

/* Whether --symmetric represents TP ranks 0..T-2 by rank 0 (T > 1): its TP
 * collectives' rank ops stand for them (x-collective replicas: T-1,
 * stride: 1), and x-symmetry's tp is T (docs/symmetry.md). */
bool parallel_tp_symmetric(const struct parallel_opts *o);

/* With --symmetric, whether rank r = t + T x (d + D x p) is written: one
 * representative per class of the exact graph's request order (docs/symmetry.md):
 * replica 0 (for 0..D-2) and D-1; with TP symmetry TP rank 0 (for 0..T-2)
 * and T-1, else every TP rank.  Without --symmetric every rank. */
bool parallel_rank_written(const struct parallel_opts *o, int32_t r);

/* The ranks parallel_rank_written keeps of a stage's D x T. */
int32_t parallel_ranks_written(const struct parallel_opts *o);

void parallel_opts_init(struct parallel_opts *o);

/* 0, or BAECHI_EINVAL naming an option of o that cannot act (ZeRO or a
 * bucket cap without data parallelism, --sp without --tp, time balance
 * without stages): refused, never ignored. */
int parallel_opts_check(const struct parallel_opts *o);

/* D x T x P > 1, i.e. whether parallel_apply() changes anything. */
bool parallel_opts_active(const struct parallel_opts *o);

/*
 * The precision options on one device, in place: each update op's optimizer
 * state as parallel_apply() sets it (mixed_precision, fp32_main_grads), for
 * a training graph that is not split (D x T x P = 1).  BAECHI_EINVAL:
 * fp32_main_grads without mixed_precision.  O(V).
 */
int parallel_precision_apply(struct workload *w, const struct parallel_opts *o);

/*
 * Writes into `out` (initialised here) the step of training graph `in`
 * (train_is_training_graph(); must pass workload_check()) over D x T x P
 * devices as described above.  BAECHI_EINVAL with the reason: a forward
 * graph, degrees out of range (N <= PARALLEL_MAX_DEVICES), fewer layers than
 * stages, TP on a graph without a recognised attention or MLP block, a
 * matmul with parameters outside one (named), or a size not divisible by T
 * (named).  BAECHI_ENOMEM.  O(N x (V + E)).
 */
int parallel_apply(struct workload *out, const struct workload *in, const struct parallel_opts *o);

/* The model state of one device of a parallelised graph, from the graph. */
struct parallel_device {
    int64_t param_bytes;     /* Σ persistent of its forward ops (parameters) */
    int64_t grad_bytes;      /* Σ outputs of its gradient collectives (the buckets it keeps) */
    int64_t optimizer_bytes; /* Σ persistent of its update ops */
    double flops;            /* Σ FLOPs of its ops */
    int32_t n_collective_ops;
    int64_t collective_bytes; /* Σ x-collective bytes of its rank ops */
};

/*
 * Fills dev[0..n_devices) from w's ops by their `device` (ops without one or
 * beyond n_devices are skipped).  A gradient collective is an op whose
 * x-collective id has a "/ddp/" component (what parallel_apply writes).
 */
void parallel_summarize(const struct workload *w, int32_t n_devices, struct parallel_device *dev);

#endif
