/*
 * recompute.h - activation recomputation for the training synthesis
 * (train.c): which forward ops are run again inside backward, and the
 * recomputed copies themselves.  Beyond the original Baechi (it profiles
 * TensorFlow graphs without recomputation); see docs/recomputation.md.
 *
 * Modes (struct train_opts, `--recompute`):
 *   none       every op's saved tensors are its forward outputs (default);
 *   full       torch.utils.checkpoint / Megatron's full recomputation: each
 *              layer keeps only the tensors it reads from outside (its
 *              input, a checkpoint) and re-runs its forward inside backward,
 *              just before its first gradient op;
 *   selective  Megatron's selective recomputation: only attention's core,
 *              the scores matmul, the scale / mask / softmax region (ops
 *              flagged OPS_IN_SOFTMAX_PATTERN), dropout on the
 *              probabilities and the probabilities x V matmul, is one
 *              segment: Q, K and V are kept, the scores and probabilities
 *              are not.
 *
 * A layer is the first component of an op's colocation group ("h3/attn"
 * and "h3/mlp" of `gen gpt` and `gen transformer` are layer "h3"; a
 * generated CNN's groups are its blocks), or, for ops without a group
 * (imported graphs), the first component of the op's name scope
 * ("/blocks.0/attn/MatMul" is layer "/blocks.0": the top-level module of
 * the ONNX exporter's node names).  An op without either (no group, a name
 * without '/') is in no layer and is never recomputed.  Only ops that
 * depend on the step's data are recomputed (parameters, constants and what
 * only reads them are not).
 *
 * Of a segment, the ops recomputed are those whose outputs the segment's
 * gradient ops read (per the save rule of ops.h, and a saved buffer such as
 * a dropout mask), and, transitively, their producers inside the segment.
 * The copy of op "L/x" of layer L is "L/recompute/x" (an op without the
 * prefix: "x/recompute"), phase backward, same group, device, costs,
 * outputs and x-alias as the forward op, no parameters; the copies whose
 * inputs all come from outside the segment depend (control inputs) on the
 * gradient ops that bring the gradient into the segment, so they run in
 * backward and not right after the forward.  A segment into which no
 * gradient comes from outside (the layer of the loss) is not recomputed.
 *
 * deviation (beyond the original): the recomputed outputs are outputs of
 * backward ops, so the simulators count them as "gradients" in
 * --explain-memory; the saved kind shrinks by what they replace.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_WORKLOADS_RECOMPUTE_H
#define BAECHI_WORKLOADS_RECOMPUTE_H

#include "core/workload.h"
#include "workloads/ops.h"

#include <stdbool.h>
#include <stdint.h>

enum train_recompute {
    TRAIN_RECOMPUTE_NONE = 0,
    TRAIN_RECOMPUTE_FULL = 1,
    TRAIN_RECOMPUTE_SELECTIVE = 2,
};

/* "none", "full", "selective" -> *mode; BAECHI_EINVAL naming the value otherwise. */
int train_parse_recompute(const char *s, enum train_recompute *mode);
const char *train_recompute_name(enum train_recompute mode);

/* The forward graph as the training synthesis sees it (borrowed arrays). */
struct recompute_graph {
    const struct workload *fwd;
    int32_t n, n_mb;                        /* forward ops, micro-batches */
    const int32_t *topo;                    /* a topological order */
    const int32_t *cstart, *cons, *slot_op; /* consumers (input slots) of each op, CSR */
    const int32_t *gport;                   /* per input slot: its gradient's port, -1 none */
    const bool *rg, *rep;                   /* requires a gradient; runs per micro-batch */
    const int64_t *extra;                   /* per op: bytes of a buffer saved for backward */
    bool save_all_inputs;                   /* train_opts.save_all_inputs */
};

struct recompute {
    struct recompute_graph g;
    enum train_recompute mode;
    int32_t n_seg;
    int32_t *seg;     /* per op: its segment, -1 none */
    bool *need;       /* per op: recomputed when its segment is */
    int32_t *rid;     /* n_mb x n: the recomputed copy, -1 none */
    uint8_t *done;    /* n_seg x n_mb: 0 not yet, 1 emitted or skipped */
    const char **key; /* per op: its layer (in the pool), NULL none */
    size_t *key_len;
};

/*
 * Plans recomputation (r initialised here; release with recompute_release
 * in every case).  0 or BAECHI_ENOMEM.  Mode none plans nothing.  O(V + E)
 * plus one hash lookup per op.
 */
int recompute_plan(struct recompute *r, const struct recompute_graph *g, enum train_recompute mode);
void recompute_release(struct recompute *r);

/*
 * Before the gradient op of forward op v in micro-batch m is added: when v
 * is in a segment not yet handled in m, adds the segment's recomputed
 * copies to out.  fid: the ids of micro-batch m's forward copies; bwd: the
 * n_mb x n ids of the gradient ops, valid when >= first_bwd.  0 or an
 * error of workload_add_*.
 */
int recompute_before_grad(struct recompute *r, struct workload *out, int32_t v, int32_t m,
                          const int32_t *fid, const int32_t *bwd, int32_t first_bwd);

/* The op whose outputs a gradient op of micro-batch m reads for forward op
 * p: its recomputed copy, else fid[p]. */
int32_t recompute_source(const struct recompute *r, int32_t m, int32_t p, const int32_t *fid);

#endif
