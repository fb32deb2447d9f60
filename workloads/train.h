/*
 * train.h - training-graph synthesis: from a forward graph, derive the
 * backward ops, the optimizer updates and the tensor lifetimes of training.
 *
 * Rules (docs/workloads.md, "Training-graph synthesis"):
 *   - an op "takes part" when it has a cost (time_us or flops) and its type is
 *     differentiable (not Shape, Const, Assign, ...); it requires a gradient
 *     when it takes part and holds parameters (persistent > 0) or reads a
 *     tensor of an op that requires one;
 *   - each such op f gets one gradient op "<f>/grad" (phase backward,
 *     colocated with f as TF's colocate_gradients_with_ops: same group and
 *     given device), whose time, FLOPs and bytes are `bwd_factor` x f's; it
 *     reads the gradients that f's consumers produce for f's outputs and f's
 *     own inputs (so forward activations stay alive until their backward
 *     use); an op without such consumers is a loss, and its gradient reads
 *     f's output; the gradient op outputs one gradient per input that needs
 *     one (sized like that input) and, when f has parameters, the weight
 *     gradient (sized like them);
 *   - each op with parameters gets an update op "<f>/update" (phase update,
 *     same group) holding the optimizer state: SGD none, momentum 1x and
 *     Adam 2x the parameter bytes.
 *
 * Memory (what a framework holds; save_all_inputs gives the earlier rule, a
 * gradient op reading every forward input and no shared storage).  What
 * each op type saves, whether it is a view, runs in place, has a gradient
 * or feeds data is one row of the table in workloads/ops.h (`baechi
 * workload ops`); in short:
 *   - a gradient op reads what autograd saves for its op type: every data
 *     input (convolution, matmul, losses, unknown types; mul and div only
 *     for another input's gradient), the first
 *     data input (batch and layer norm, GELU, pooling), the op's result
 *     (ReLU, sigmoid, tanh, softmax, exp) or nothing (add, concat, views,
 *     dropout); so every other forward output is freed after its last
 *     forward consumer;
 *   - max pooling also keeps its indices (8 bytes per output element) and
 *     dropout its mask (1 byte per element): an extra output of the forward
 *     op, read by its gradient op;
 *   - views (Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Identity;
 *     Split and Slice save nothing, and their outputs are storage of their
 *     own: nn.MultiheadAttention's q/k/v chunks are contiguous copies)
 *     share their input's storage, and so does a ReLU that is its input's
 *     only reader (torchvision's ReLU(inplace=True)), and a Pad whose one
 *     reader is a pooling op (the pooling's own padding, split off by the
 *     ONNX exporter): x-alias in the file
 *     (core/graph.h GRAPH_ALIAS_KEY), honoured by the timed simulator.
 *
 * Micro-batches (micro_batches = M > 1, GPipe-style pipelining): every op
 * that depends on the data (the sources without parameters that are not
 * constants, and what reads them) runs once per micro-batch, as
 * "<f>/mb<m>" with 1/M of its time, FLOPs, bytes, outputs and temp, in the
 * op's colocation group (so a placement keeps a layer's copies together and
 * splits the model into stages); its parameters are held once, by the copy
 * of micro-batch 0.  Variables, constants and what only reads them are
 * shared.  Each copy gets its gradient op "<f>/mb<m>/grad"; the weight
 * gradient is accumulated in micro-batch order (the gradient op of
 * micro-batch m reads micro-batch m-1's), and so is the gradient a copy
 * gives a shared input (a variable, a tied weight): one buffer per consumer
 * op, so a shared op's gradient op reads one sum per consumer, the last
 * micro-batch's, and adds them (one exchange a step, as Megatron's
 * embedding group and DDP do); one update per parameter op follows the
 * last micro-batch.  The workload gets the top-level key x-pipeline
 * (core/pipeline.h) with the schedule the pipeline runs (default 1f1b).
 * M = 1 gives the graph without micro-batches exactly.
 *
 * Recomputation (recompute != none, workloads/recompute.h): a segment's
 * forward ops are copied into backward ("L/recompute/x"), and its gradient
 * ops read the copies instead of the forward outputs.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_WORKLOADS_TRAIN_H
#define BAECHI_WORKLOADS_TRAIN_H

#include "core/graph.h"
#include "core/pipeline.h"
#include "core/workload.h"
#include "workloads/recompute.h"

enum train_optimizer { TRAIN_SGD = 0, TRAIN_MOMENTUM = 1, TRAIN_ADAM = 2 };

#define TRAIN_MAX_MICRO_BATCHES GRAPH_MAX_MICRO_BATCHES

struct train_opts {
    double bwd_factor;              /* backward cost = factor x forward (default 2) */
    enum train_optimizer optimizer; /* default momentum */
    int param_elem_bytes;           /* bytes per parameter (default 4) for update FLOPs */
    int32_t micro_batches;          /* 1 (default): none; see "Micro-batches" above */
    bool save_all_inputs;           /* backward reads every forward input, no views (the
                                       rule before "Memory" above); default false */
    struct pipeline_opts pipeline;  /* written as x-pipeline when micro_batches > 1
                                       (default 1f1b); see "Micro-batches" above */
    enum train_recompute recompute; /* activation recomputation (workloads/recompute.h);
                                       default none */
};

void train_opts_init(struct train_opts *o);

/* 0, or BAECHI_EINVAL naming an option of o that cannot act (a schedule
 * without micro-batches to order): refused, never ignored. */
int train_opts_check(const struct train_opts *o);

/* "sgd", "momentum", "adam" -> *opt; BAECHI_EINVAL naming the value otherwise. */
int train_parse_optimizer(const char *s, enum train_optimizer *opt);
const char *train_optimizer_name(enum train_optimizer opt);

/* What the synthesis added. */
struct train_stats {
    int32_t n_backward;
    int32_t n_update;
    int64_t param_bytes;     /* Σ persistent of the forward ops with parameters */
    int64_t optimizer_bytes; /* Σ optimizer state */
};

/*
 * Whether w is already a training graph, and then its first op that says so
 * in *op: an op of phase backward or update (what train_synthesize writes,
 * and what the phase key of the format has always meant), or of a type that
 * only training graphs hold (a "...Grad" gradient, an "Apply..." update).
 */
bool train_is_training_graph(const struct workload *w, int32_t *op);

/*
 * Writes into `out` (initialised here) the forward ops of `fwd` (unchanged,
 * same order), then the gradient ops in reverse topological order, then the
 * update ops.  `fwd` must pass workload_check(); a cycle is BAECHI_EINVAL.
 * A training graph (train_is_training_graph) is BAECHI_EINVAL: training it
 * again would add gradients of gradients and double its parameters' state.
 * Ops without a cost get no gradient.  stats may be NULL.
 */
int train_synthesize(struct workload *out, const struct workload *fwd, const struct train_opts *o,
                     struct train_stats *stats);

#endif
