/*
 * parallel_internal.h - what the files of the parallel transform share
 * (parallel.h is the manual): the plan of a stage, its collectives, and the
 * context of one parallel_apply() call.
 *
 *   parallel.c       driver: options, bases, the plans of all stages
 *   parallel_tp.c    Megatron tensor parallelism: roles, splits, all-reduces
 *   parallel_pp.c    pipeline stages
 *   parallel_dp.c    data parallelism: DDP buckets, ZeRO 1/2/3, optimizer state
 *   parallel_emit.c  writing the rank copies and collectives as ops
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_WORKLOADS_PARALLEL_INTERNAL_H
#define BAECHI_WORKLOADS_PARALLEL_INTERNAL_H

#include "core/strmap.h"
#include "core/workload.h"
#include "workloads/parallel.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Megatron roles: ENTRY column-parallel (output split), INNER split
 * throughout, EXIT row-parallel (output a partial sum, all-reduced), XENT
 * the vocabulary-parallel cross-entropy (a whole loss from split logits);
 * SEQ (--sp) split along the sequence: LayerNorm, dropout, residual regions. */
enum tp_role { TP_NONE, TP_ENTRY, TP_INNER, TP_EXIT, TP_XENT, TP_SEQ };

/* A collective of the plan; its inputs are ops of the same (d, t), in its
 * stage except a ZeRO-3 gather's control input. */
struct coll {
    const char *type, *kind;
    const char *id; /* "<group>/<what>" in ctx.pool (parallel_coll_id), whole at any length;
                     * the rank group is prefixed when written */
    bool over_tp;   /* over the T ranks of (p, d); else over the D replicas of (p, t) */
    int64_t bytes;  /* S of the contract */
    int64_t out;    /* the rank's output bytes */
    enum op_phase phase;
    int32_t in_off; /* inputs: cin_op/cin_port[in_off .. in_off + n_in) */
    int32_t n_in;
    int32_t group_op; /* it joins the group of this op's copy on its rank; -1: its own */
    bool follow;      /* its input reads through redirect[] (an all-gather of a scattered output) */
};

/* One entry of a stage's plan: a copy of input op `src`, or collective `coll`. */
struct item {
    int32_t src, coll;
};

struct ctx {
    const struct workload *w;
    const struct parallel_opts *o;
    int32_t n, n_dev;
    int32_t *stage;       /* per op */
    int32_t *base;        /* per op: the first op of its base (forward op) name */
    int32_t *upd;         /* per base: its update op, -1 none */
    enum tp_role *role;   /* per base */
    bool *vocab;          /* per base: split along the vocabulary (Megatron's padded rows) */
    int64_t vocab_rows;   /* V of the vocabulary-parallel embedding and head; 0 none */
    int64_t vocab_padded; /* V' = V rounded up to a multiple of 128 x T (Megatron) */
    int32_t *item_of;     /* per op: its index in its stage's plan */
    int32_t *redirect;    /* per output port: plan index of the collective replacing it, -1 */
    int32_t *in_redirect; /* per input slot of w: plan index of the all-gather it reads, -1 */
    bool *seq_port;       /* per output port: split along the sequence (--sp) */
    int32_t *ag_at;       /* per output port x 2 (forward, backward): its all-gather, -1 */
    int32_t *ag_stage;    /* ... in this stage */
    int32_t *extra_in;    /* per op: plan index of the all-gather it reads (ZeRO-3), -1 */
    int32_t *tp_last;     /* per output port: the last entry gradient of its TP group, -1 */
    int32_t *first_id;    /* per rank: id of its first op */
    struct item *plan;    /* stage after stage: plan_off[p] .. plan_off[p + 1] */
    int32_t *plan_off;
    size_t n_plan, alloc_plan;
    struct coll *coll;
    size_t n_coll, alloc_coll;
    struct wl_input *cin; /* producer = an op of the input, port */
    size_t n_cin, alloc_cin;
    struct strpool pool;
    struct strmap names;
};

/* parallel.c: plan building. */
int parallel_push_item(struct ctx *x, int32_t src, int32_t coll);
/* Adds a collective to the plan of stage p; *at its index in the plan. */
int parallel_push_coll(struct ctx *x, int32_t p, const struct coll *c, int32_t *at);
/* Sets c->id to the printf-style string, kept in x->pool; 0 or BAECHI_ENOMEM. */
int parallel_coll_id(struct ctx *x, struct coll *c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Appends input (op, port) to the inputs of the collective being built. */
int parallel_add_cin(struct ctx *x, int32_t op, int32_t port);

/* parallel_tp.c */
/* The Megatron role of forward op s[0..n) by its last two name components. */
enum tp_role parallel_tp_role(const char *s, size_t n);
/* After the roles: refuses a TP graph with no split op, or a matmul with
 * parameters outside a recognised block (n_split: bases with a role). */
int parallel_tp_check_roles(const struct ctx *x, int32_t n_split);
/* TP splits must be exact: every split size a multiple of T. */
int parallel_tp_check_split(const struct ctx *x);
/* Divisor of output `port` of op i under TP (parallel.h: split tensors). */
int64_t parallel_out_div(const struct ctx *x, int32_t i, int32_t port);
/* One rank's share of `full` bytes of op i split `div` ways (div > 1): full /
 * div, or for a vocabulary-split op the rows V'/T of the padded table. */
int64_t parallel_tp_share(const struct ctx *x, int32_t i, int64_t full, int64_t div);
/* Divisor of op i's time, FLOPs and bytes on one TP rank (1: replicated). */
double parallel_tp_compute_div(const struct ctx *x, int32_t i);
/* With --tp > 1: finds the embedding table read by Gathers and by the LM
 * head feeding a cross-entropy, and gives them the vocabulary-parallel
 * roles (Megatron's VocabParallelEmbedding, parallel LM head and
 * vocab_parallel_cross_entropy). */
int parallel_tp_find_vocab(struct ctx *x);
/* Gives the split role (INNER) to every forward op without a role or
 * parameters whose first output has the size of a split input it reads
 * (an elementwise op inside a block: a dropout after the softmax), in
 * topological order, so such ops split by shape whatever their names. */
void parallel_tp_propagate(struct ctx *x);
/* --sp: the sequence-split role and x->seq_port (Korthikanti et al. 2022). */
int parallel_tp_sequence(struct ctx *x);
/* --sp: before op i (a TP-split op) in stage p, the all-gathers of the
 * sequence-split tensors it reads (shared by the readers of one phase). */
int parallel_tp_plan_gathers(struct ctx *x, int32_t i, int32_t p);
/* Bytes of output `port` of op i on one rank. */
int64_t parallel_out_bytes(const struct ctx *x, int32_t i, int32_t port);
/* The TP group of entry gradient g: the output port its forward copy reads;
 * -1 when g passes no gradient on (its input needs none). */
int32_t parallel_tp_key(const struct ctx *x, int32_t g);
/* The all-reduce of the gradient of the input of the TP group whose first
 * entry gradient is g (chained by next_member). */
int parallel_tp_plan_backward(struct ctx *x, int32_t g, const int32_t *next_member);
/* Before forward loss op i (role XENT) in stage p: the parallel
 * cross-entropy's all-reduce, which i reads. */
int parallel_tp_plan_xent(struct ctx *x, int32_t i, int32_t p);
/* The all-reduce of row-parallel forward op i's output, in stage p. */
int parallel_tp_plan_forward(struct ctx *x, int32_t i, int32_t p);

/* parallel_pp.c */
/* Stage of every op (x->stage). */
int parallel_pp_assign_stages(struct ctx *x);

/* parallel_dp.c */
/* The parameter bytes of update op u's parameters on one TP rank. */
int64_t parallel_update_param_bytes(const struct ctx *x, int32_t u);
/* Persistent bytes of op i on one rank. */
int64_t parallel_persistent_of(const struct ctx *x, int32_t i);
/* DDP buckets of every stage (see parallel_dp.c). */
int parallel_dp_plan_buckets(struct ctx *x, int32_t *ord, int32_t *after_grad, int32_t *after_upd,
                             int32_t *bk_start, int32_t *n_bk);
/* ZeRO-3: the all-gather of op i's parameters, before i (which reads it). */
int parallel_dp_plan_gather(struct ctx *x, int32_t i);
/* Bucket b's all-reduce (ZeRO-2/3: reduce-scatter), or (upd) ZeRO-1/2's
 * all-gather of its updated parameters. */
int parallel_dp_plan_bucket(struct ctx *x, int32_t b, const int32_t *ord, const int32_t *bk_start,
                            bool upd);

/* parallel_emit.c */
/* The output's name, description, source and top-level extensions. */
int parallel_copy_header(struct workload *out, const struct workload *in,
                         const struct parallel_opts *o);
/* Every rank's copies and collective ops, from the plans. */
int parallel_emit(struct workload *out, struct ctx *x);

#endif
