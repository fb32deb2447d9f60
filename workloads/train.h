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
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_WORKLOADS_TRAIN_H
#define BAECHI_WORKLOADS_TRAIN_H

#include "core/workload.h"

enum train_optimizer { TRAIN_SGD = 0, TRAIN_MOMENTUM = 1, TRAIN_ADAM = 2 };

struct train_opts {
    double bwd_factor;              /* backward cost = factor x forward (default 2) */
    enum train_optimizer optimizer; /* default momentum */
    int param_elem_bytes;           /* bytes per parameter (default 4) for update FLOPs */
};

void train_opts_init(struct train_opts *o);

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
 * Writes into `out` (initialised here) the forward ops of `fwd` (unchanged,
 * same order), then the gradient ops in reverse topological order, then the
 * update ops.  `fwd` must pass workload_check(); a cycle is BAECHI_EINVAL.
 * Ops without a cost get no gradient.  stats may be NULL.
 */
int train_synthesize(struct workload *out, const struct workload *fwd, const struct train_opts *o,
                     struct train_stats *stats);

#endif
