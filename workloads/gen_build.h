/*
 * gen_build.h - internal helpers the model generators (gen_*.c) share: add
 * an op with its FLOPs, bytes, output sizes, parameters and layer group in
 * one call, under a name scope.  Not a public interface (workloads/ only).
 *
 * Conventions (docs/workloads.md): `flops` counts a multiply-add as 2 FLOPs;
 * `bytes` = inputs read + outputs written + parameters read; `persistent` =
 * parameters x element size, held beside the op's outputs (an activation is
 * never hidden in it); a variable (VariableV2) writes persistent = its
 * output, which is its value (docs/training-memory.md).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_WORKLOADS_GEN_BUILD_H
#define BAECHI_WORKLOADS_GEN_BUILD_H

#include "core/workload.h"
#include "workloads/gen.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gb {
    struct workload *w;
    int elem_bytes;  /* bytes per element of activations and parameters */
    bool groups;     /* write the current layer group into ops */
    char scope[192]; /* name prefix ("" = none) */
    char group[192]; /* current layer group ("" = the op's own) */
    int64_t params;  /* parameters added so far */
    double macs;     /* multiply-adds of matmul / conv ops added with gb_linear, gb_bmm */
    double dropout;  /* dropout probability; 0: no dropout ops (gb_dropout passes through) */
};

struct gb_in {
    int32_t op;
    int32_t port; /* WL_PORT_CONTROL for a control dependency */
};

void gb_init(struct gb *b, struct workload *w, int elem_bytes, bool groups);

/* Sets the scope / the group (printf-style; an empty format clears). */
void gb_scope(struct gb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gb_group(struct gb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Adds op "<scope>/<name>" of `type` with `flops`, `params` parameters
 * (persistent = params x elem_bytes), outputs of out_elems[0..n_out)
 * elements, and inputs in[0..n_in); *idx (may be NULL) gets its index.
 */
int gb_op(struct gb *b, int32_t *idx, const char *type, double flops, int64_t params,
          const int64_t *out_elems, int n_out, const struct gb_in *in, int n_in,
          const char *name_fmt, ...) __attribute__((format(printf, 10, 11)));

/*
 * Transformer building blocks; `rows` = batch x sequence.  Each sets *out to
 * the new op.  gb_linear: MatMul of x (rows x din) by a din x dout weight
 * (+ bias), `weights` >= 0 names a shared weight op read instead of owning
 * parameters (a tied embedding).  gb_bmm: one batched matmul with the given
 * multiply-adds.  gb_layernorm: 2 x d parameters, 5 FLOPs per element.
 * gb_eltwise: an op of `flops_per_elem` x elems FLOPs over n inputs.
 */
int gb_linear(struct gb *b, int32_t *out, struct gb_in x, int64_t rows, int64_t din, int64_t dout,
              bool bias, int32_t weights, const char *name);
int gb_bmm(struct gb *b, int32_t *out, struct gb_in x, struct gb_in y, double macs,
           int64_t out_elems, const char *name);
int gb_layernorm(struct gb *b, int32_t *out, struct gb_in x, int64_t rows, int64_t d,
                 const char *name);
int gb_eltwise(struct gb *b, int32_t *out, const char *type, const struct gb_in *in, int n_in,
               int64_t elems, double flops_per_elem, const char *name);

/*
 * gb_dropout: a Dropout op over x (elems elements) when b->dropout > 0
 * (*out = the new op); else *out = x.op, no op.  The op is element-wise
 * (one output shaped like x); the training synthesis gives it its mask, 1
 * byte per element kept for backward (workloads/ops.c).
 */
int gb_dropout(struct gb *b, int32_t *out, struct gb_in x, int64_t elems, const char *name);

/*
 * gb_dropout_add: residual + dropout(y), one "DropoutAdd" op as Megatron-LM
 * fuses it (bias_dropout_add), when b->dropout > 0; else an "Add".  Fused,
 * the op's output is the residual stream that the next layer norm saves,
 * and its mask (1 byte per element) is the only extra byte kept for
 * backward; a separate Dropout would keep its output as long as its mask
 * (the timed model frees an op's outputs together).
 */
int gb_dropout_add(struct gb *b, int32_t *out, struct gb_in y, struct gb_in residual, int64_t elems,
                   const char *name);

/*
 * Multi-head attention: projections of q_in (rows_q x d) and kv_in
 * (rows_kv x d; the same op for self-attention, which then uses one fused
 * QKV projection when `fused`), scores, softmax, context, output
 * projection; with b->dropout, a dropout on the probabilities ("dropout",
 * before the matmul with V), as GPT-2 and Megatron-LM train (the caller
 * adds the projection's dropout with gb_dropout_add).  `batch` sequences of
 * seq_q / seq_kv.  *out = the projection.
 */
int gb_attention(struct gb *b, int32_t *out, struct gb_in q_in, struct gb_in kv_in, int64_t batch,
                 int64_t seq_q, int64_t seq_kv, int64_t d, int64_t heads, bool fused,
                 const char *name);

/*
 * What a generator reports (info may be NULL): b's parameters, the Σ of
 * the FLOPs of b's workload (its forward graph), `batch`, `seq` and `macs`
 * (the multiply-adds of conv / matmul ops).
 */
void gb_info(const struct gb *b, struct gen_info *info, int64_t batch, int64_t seq, double macs);

/* Refuses size `size` of `model`: BAECHI_EINVAL "<model>: unknown size
 * '<size>' (known: names[0..NULL) joined by ", ")", the list whole at any
 * length; BAECHI_ENOMEM if it cannot be built. */
int gb_unknown_size(const char *model, const char *size, const char *const *names);

/* Bytes of output `port` of op `op`. */
int64_t gb_out_bytes(const struct gb *b, int32_t op, int32_t port);

#endif
