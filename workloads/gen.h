/*
 * gen.h - generators of the paper's models and of GPT-style decoders, at the
 * granularity of a framework op graph (convolution, batch norm, activation,
 * matmul, LSTM cell per time step, attention parts, loss).
 *
 *   inception-v3  torchvision's Inception3 (299x299, batch 32 by default)
 *   gnmt          GNMT-v2 as the original's TensorFlow model: 4 layers, 512
 *                 LSTM units, batch 128, sequence 40, vocabulary 30,000,
 *                 unrolled per time step, Bahdanau attention
 *   transformer   "base" (d 512, 6+6 layers, 8 heads, FFN 2048, vocab 37,000)
 *                 or "big" as the original (d 1024, FFN 4096, 16 heads,
 *                 vocab 33,708, batch 8, sequence 30)
 *   gpt           GPT-2 style decoder: small (124 M) .. xl (1.5 B), 2.7b, 6.7b;
 *                 the GPT-3 family (gpt3-small .. gpt3-175b, Brown et al. 2020,
 *                 Table 2.1) and Llama-2 (llama2-7b, -13b, -70b, Touvron et
 *                 al. 2023): SwiGLU, RMSNorm, rotary positions, grouped-query
 *                 attention and untied embeddings as options (gen_gpt.c)
 *
 * A generator writes the forward graph with FLOPs, bytes, output sizes and
 * parameters (persistent bytes); gen_model() then adds backward and update
 * ops through train_synthesize() (unless forward_only) and times from the
 * cost model.  Ops of one layer share a colocation group when `groups`.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_WORKLOADS_GEN_H
#define BAECHI_WORKLOADS_GEN_H

#include "core/strbuf.h"
#include "core/workload.h"
#include "workloads/train.h"

#include <stdbool.h>
#include <stdint.h>

/* The GPT generator's architecture options; 0 = the size preset's. */
enum gen_mlp { GEN_MLP_PRESET, GEN_MLP_GELU, GEN_MLP_SWIGLU };
enum gen_norm { GEN_NORM_PRESET, GEN_NORM_LAYERNORM, GEN_NORM_RMSNORM };
enum gen_pos { GEN_POS_PRESET, GEN_POS_LEARNED, GEN_POS_ROTARY };
enum gen_switch { GEN_SWITCH_PRESET, GEN_SWITCH_ON, GEN_SWITCH_OFF };

struct gen_opts {
    int batch;        /* 0 = the model's default */
    int seq;          /* sequence length; 0 = default */
    const char *size; /* size preset ("base", "big", "small", "xl", ...); NULL = default */
    int layers;       /* overrides of the preset; 0 = preset */
    int d_model;
    int heads;
    int ffn;
    int vocab;
    int kv_heads;         /* gpt: grouped-query attention's K/V heads; 0 = preset */
    enum gen_mlp mlp;     /* gpt: GELU (GPT) or SwiGLU (Llama) MLP */
    enum gen_norm norm;   /* gpt: LayerNorm or RMSNorm */
    enum gen_pos pos;     /* gpt: learned positions or rotary embeddings */
    enum gen_switch tied; /* gpt: LM head tied to the token embedding (on) or own */
    enum gen_switch bias; /* gpt: biases in the linear layers and norms */
    bool aux;             /* inception-v3: include the auxiliary classifier */
    bool forward_only;    /* no backward / update ops */
    bool groups;          /* layer-level colocation groups */
    int elem_bytes;       /* bytes per element (4 = fp32) */
    double dropout;       /* transformer/gpt dropout probability; < 0: as the model was
                             trained (0.1); 0: no dropout ops */
    const char *device;   /* cost-model preset for time_us; NULL = none */
    const char *name;     /* the workload's name; NULL = generated from the options (gen.c) */
    struct train_opts train;
};

#define GEN_DEFAULT_DEVICE "v100"

/* Defaults: groups on, fp32, device "v100", train_opts_init(). */
void gen_opts_init(struct gen_opts *o);

/* What a generator reports besides the workload. */
struct gen_info {
    int64_t params;   /* trainable parameters */
    double fwd_flops; /* Σ forward FLOPs (multiply-add = 2) */
    double fwd_macs;  /* multiply-adds of conv / matmul ops only */
    int64_t batch;    /* the batch size used */
    int64_t seq;      /* the sequence length used (1 for images) */
};

/* Forward-only generators; `w` initialised by the caller and empty. */
int gen_inception_v3(struct workload *w, const struct gen_opts *o, struct gen_info *info);
int gen_gnmt(struct workload *w, const struct gen_opts *o, struct gen_info *info);
int gen_transformer(struct workload *w, const struct gen_opts *o, struct gen_info *info);
int gen_gpt(struct workload *w, const struct gen_opts *o, struct gen_info *info);

/* NULL-terminated names of the sizes gen_gpt() and gen_transformer() know
 * (o->size), the default first. */
const char *const *gen_gpt_sizes(void);

/* The words of architecture option `option` ("mlp", "norm", "pos",
 * "embeddings", "bias") by enum value, NULL-terminated; [0] = "preset".
 * NULL for another option. */
const char *const *gen_arch_words(const char *option);

/* A GPT size preset: its architecture, its nominal parameter count as
 * published (for the checks of tests/unit/test_gen_models.c and
 * docs/workloads.md) and where the numbers come from. */
struct gen_gpt_preset {
    const char *name;
    int64_t layers, d, heads, kv_heads, ffn, vocab, ctx;
    enum gen_mlp mlp;
    enum gen_norm norm;
    enum gen_pos pos;
    bool tied, bias;
    double dropout;        /* as the model was trained */
    double nominal_params; /* as published; 0: none published */
    const char *source;
};

/* The preset of size `name`, or NULL. */
const struct gen_gpt_preset *gen_gpt_preset(const char *name);
const char *const *gen_transformer_sizes(void);

/*
 * Appends to the name in sb the suffixes of the
 * non-default training options of `t` (NULL: a forward graph) and of the
 * cost model: _mb<n> _<optimizer> _bwd<factor> _sai, then _<kind> when kind
 * is not GEN_DEFAULT_DEVICE, or _untimed (docs/workloads.md, "Names").
 * 0 or BAECHI_ENOMEM (message set).
 */
int gen_name_suffix(struct strbuf *sb, const struct train_opts *t, const char *kind, bool untimed);

/*
 * The name of an imported model (`workload import`, baechi_workload_import_onnx):
 * `base` (the model file's), then _b<batch> when the batch was set (batch > 0),
 * then gen_name_suffix()'s suffixes, appended to sb.  One rule for the program
 * and the library.  0 or BAECHI_ENOMEM (message set).
 */
int gen_import_name(struct strbuf *sb, const char *base, int64_t batch, const struct train_opts *t,
                    const char *kind, bool untimed);

/* NULL-terminated names accepted by gen_model(). */
const char *const *gen_model_names(void);

/*
 * Generates model `name` into `out` (initialised here): the forward graph,
 * then the training graph unless o->forward_only, then time_us from the cost
 * model of o->device when set.  info may be NULL.
 */
int gen_model(struct workload *out, const char *name, const struct gen_opts *o,
              struct gen_info *info);

#endif
