/*
 * train_internal.h - the parts of training-graph synthesis (see train.h)
 * and what they share:
 *
 *   train.c       the options; the plan (consumers, order, which ops need
 *                 a gradient, what backward saves) and the synthesis
 *   train_copy.c  the forward ops copied per micro-batch, with their share
 *                 of the costs
 *   train_grad.c  one forward op's gradient ops and what they read
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_WORKLOADS_TRAIN_INTERNAL_H
#define BAECHI_WORKLOADS_TRAIN_INTERNAL_H

#include "core/workload.h"
#include "workloads/op_names.h"
#include "workloads/ops.h"
#include "workloads/train.h"

#include <stdbool.h>
#include <stdint.h>

/* What the gradient ops of one training graph are built from. */
struct grad_ctx {
    int32_t n;                              /* forward ops */
    const int32_t *cstart, *cons, *slot_op; /* consumers (input slots) of each op, CSR */
    const int32_t *gport;                   /* per input slot: its gradient's port, -1 none */
    const int32_t *nports;                  /* per op: gradients of inputs it outputs */
    const bool *rg, *rep;                   /* requires a gradient; runs per micro-batch */
    const int32_t *fid;                     /* n_mb x n: ids of the forward copies */
    int32_t *bwd;                           /* n_mb x n: ids of the gradient ops */
    const struct recompute *rec;            /* recomputed copies (recompute.h) */
    struct op_names *names;                 /* the gradient ops' names */
};

/* fwd's header on out: name "<name>_train", description, source,
 * reference device, top-level extension keys. */
int train_copy_header(struct workload *out, const struct workload *fwd);
/* Tags the last op of out with its micro-batch (GRAPH_MICRO_BATCH_KEY). */
int train_tag_micro_batch(struct workload *out, int32_t mb);
/* ceil(v / m) for sizes: a micro-batch holds its share, rounded up. */
int64_t train_share(int64_t v, int32_t m);
/* Copies forward op i of fwd as copy `mb` of `n_mb` micro-batches
 * (train_copy.c says how). */
int train_copy_op(struct workload *out, const struct workload *fwd, int32_t i, int32_t mb,
                  int32_t n_mb, const int32_t *fid, int32_t alias_in, int64_t extra);
/* Adds op "<base><suffix>" (or "<base><suffix>_N" when taken, op_names.h). */
int train_add_unique(struct workload *out, struct op_names *names, const char *base,
                     const char *suffix, const char *type, int32_t *id);
/* The gradient ops of forward op v for micro-batch m of n_mb (train_grad.c). */
int train_add_grad(struct workload *out, const struct workload *fwd, const struct train_opts *o,
                   int32_t v, int32_t m, int32_t n_mb, struct grad_ctx *x, struct train_stats *st);
/* What an op's backward reads from its forward pass (workloads/ops.h, the
 * save column); save_all_inputs: every data input, the earlier rule. */
enum ops_save train_save_rule_of(const struct train_opts *o, const char *type);

#endif
