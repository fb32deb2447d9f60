/*
 * gen_params.c - the parameters of `workload gen` and `workload import` as
 * one table (gen_params.h), with the bounds of the CLI's options.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/gen_params.h"

#include "core/err.h"
#include "core/strbuf.h"
#include "core/yio.h"
#include "workloads/costmodel.h"
#include "workloads/train.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    FOR_MODEL = GEN_FOR_MODEL,
    FOR_SYNTH = GEN_FOR_SYNTH,
    FOR_IMPORT = GEN_FOR_IMPORT,
    TRAINING = GEN_PARAM_TRAINING,
    SYNTHESIS = GEN_PARAM_TRAINING | GEN_PARAM_SYNTHESIS,
    GEN_ALL = FOR_MODEL | FOR_IMPORT,
    PARALLEL = GEN_ALL | GEN_PARAM_PARALLEL,
};

enum gp_kind {
    GP_GEN_INT,   /* an int of struct gen_opts */
    GP_SYNTH_INT, /* an int32_t of struct synth_opts */
    GP_FLAG,      /* true or false */
    GP_BATCH,
    GP_ELEM,
    GP_SIZE,
    GP_DEVICE,
    GP_OPTIMIZER,
    GP_BWD,
    GP_DROPOUT, /* gen_opts.dropout */
    GP_MICRO,
    GP_SCHEDULE, /* the pipeline schedule (core/pipeline.h) */
    GP_VSTAGES,
    GP_SHAPE,
    GP_SEED,
    GP_NAME,
    GP_RECOMPUTE, /* train_opts.recompute: none, full, selective */
    GP_LOSS,      /* onnx_import_opts.loss: cross-entropy, mse, none */
    GP_PAR_INT,   /* an int32_t of struct parallel_opts */
    GP_PAR_FLAG,  /* --mixed-precision, --sp, --fp32-main-grads */
    GP_BUCKET,
    GP_PP_BALANCE,
    GP_GLOBAL_BATCH, /* gen_spec.global_batch */
    GP_ARCH,         /* an enum of struct gen_opts, by gen_arch_words(name) */
};

/* name, type, placeholder, min, max, default, help, uses, kind, offset */
#define GEN_INT(f, field, hi, def, help)                                                           \
    {                                                                                              \
        f, GEN_PARAM_INT, "N", 1, hi, def, help, FOR_MODEL, GP_GEN_INT,                            \
            offsetof(struct gen_opts, field)                                                       \
    }
#define SYN_INT(f, field, lo, hi, def, help)                                                       \
    {                                                                                              \
        f, GEN_PARAM_INT, "N", lo, hi, def, help, FOR_SYNTH, GP_SYNTH_INT,                         \
            offsetof(struct synth_opts, field)                                                     \
    }
#define FLAG(f, def, help, uses)                                                                   \
    {                                                                                              \
        f, GEN_PARAM_FLAG, NULL, 0, 1, def, help, uses, GP_FLAG, 0                                 \
    }
#define PAR_INT(f, arg, field, lo, def, help)                                                      \
    {                                                                                              \
        f, GEN_PARAM_INT, arg, lo, PARALLEL_MAX_SYMMETRIC_DEVICES, def, help, PARALLEL,            \
            GP_PAR_INT, offsetof(struct parallel_opts, field)                                      \
    }

/* Every parameter of `workload gen` and `workload import`: the one table. */
static const struct gen_param params[] = {
    {"batch", GEN_PARAM_INT, "N", 1, 1L << 20, "model",
     "batch size (inception-v3 32, gnmt 128, transformer 64/8, gpt 8)", GEN_ALL, GP_BATCH, 0},
    GEN_INT("seq", seq, 1L << 20, "model",
            "sequence length (gnmt 40, transformer 40/30, gpt 1024)"),
    GEN_INT("layers", layers, 10000, "preset",
            "transformer/gpt: number of layers (overrides the preset)"),
    GEN_INT("d-model", d_model, 1L << 20, "preset", "transformer/gpt: model width"),
    GEN_INT("heads", heads, 1L << 16, "preset", "transformer/gpt: attention heads"),
    GEN_INT("ffn", ffn, 1L << 22, "preset",
            "transformer/gpt: feed-forward width (gpt: the preset's, else 4d, or 8d/3 rounded up "
            "to 256 with swiglu)"),
    GEN_INT("vocab", vocab, 1L << 24, "model", "vocabulary size"),
    GEN_INT("kv-heads", kv_heads, 1L << 16, "preset",
            "gpt: grouped-query attention, N K/V heads shared by the query heads (N divides "
            "--heads; default: the preset's, llama2-70b 8, else --heads)"),
    {"mlp", GEN_PARAM_WORD, "MLP", 0, 0, "preset",
     "gpt: gelu (d -> ffn -> d, GPT) | swiglu (gate and up fused, SiLU(gate) x up, Llama; "
     "ffn default 8d/3 rounded up to 256)",
     FOR_MODEL, GP_ARCH, offsetof(struct gen_opts, mlp)},
    {"norm", GEN_PARAM_WORD, "NORM", 0, 0, "preset", "gpt: layernorm (GPT) | rmsnorm (Llama)",
     FOR_MODEL, GP_ARCH, offsetof(struct gen_opts, norm)},
    {"pos", GEN_PARAM_WORD, "POS", 0, 0, "preset",
     "gpt: learned (position table, GPT) | rotary (rotary embeddings of Q and K, Llama)", FOR_MODEL,
     GP_ARCH, offsetof(struct gen_opts, pos)},
    {"embeddings", GEN_PARAM_WORD, "HOW", 0, 0, "preset",
     "gpt: tied (the LM head is the token embedding, GPT) | untied (its own table, Llama)",
     FOR_MODEL, GP_ARCH, offsetof(struct gen_opts, tied)},
    {"bias", GEN_PARAM_WORD, "ON", 0, 0, "preset",
     "gpt: on (biases in the linear layers and LayerNorms, GPT) | off (none, Llama)", FOR_MODEL,
     GP_ARCH, offsetof(struct gen_opts, bias)},
    {"global-batch", GEN_PARAM_INT, "B", 1, 1L << 30, "dp x batch",
     "Megatron's global batch: B samples per step split over the --dp replicas (each gets "
     "B/dp, in --micro-batches of B/(dp x M)); dp x M must divide B; instead of --batch",
     FOR_MODEL, GP_GLOBAL_BATCH, 0},
    {"size", GEN_PARAM_WORD, "NAME", 0, 0, "model",
     "size preset: transformer base|big; gpt small..6.7b (GPT-2), gpt3-small..gpt3-175b, "
     "llama2-7b|13b|70b (docs/workloads.md)",
     FOR_MODEL, GP_SIZE, 0},
    FLAG("aux", "false", "inception-v3: include the auxiliary classifier", FOR_MODEL),
    FLAG("forward-only", "false", "no backward and update ops", FOR_MODEL),
    FLAG("no-groups", "false", "no layer-level colocation groups", FOR_MODEL),
    FLAG("train", "false", "import: add the backward and update ops", FOR_IMPORT),
    {"device", GEN_PARAM_WORD, "KIND", 0, 0, GEN_DEFAULT_DEVICE,
     "cost model for time_us: a preset (rtx2080 p100 v100 a100 a100-pcie h100 h200), a "
     "cluster file[:N] whose device N was measured by 'baechi calibrate', or none (default "
     "v100); a suffix :fp32|tf32|fp16|bf16|fp8 sets the GEMMs' data type (docs/devices.md)",
     GEN_ALL, GP_DEVICE, 0},
    {"optimizer", GEN_PARAM_WORD, "NAME", 0, 0, "momentum",
     "sgd | momentum | adam (default momentum)", GEN_ALL | SYNTHESIS, GP_OPTIMIZER, 0},
    {"bwd-factor", GEN_PARAM_NUMBER, "F", 0, 1000, "2",
     "backward time, FLOPs and bytes = F x forward (default 2)", GEN_ALL | SYNTHESIS, GP_BWD, 0},
    FLAG("save-all-inputs", "false",
         "backward keeps every forward input, no shared storage (the rule before the memory "
         "model)",
         GEN_ALL | SYNTHESIS),
    {"micro-batches", GEN_PARAM_INT, "M", 1, TRAIN_MAX_MICRO_BATCHES, "1",
     "M micro-batches of batch/M sharing the parameters, gradients accumulated, one "
     "update (GPipe-style pipelining; default 1)",
     GEN_ALL | SYNTHESIS, GP_MICRO, 0},
    {"schedule", GEN_PARAM_WORD, "S", 0, 0, "1f1b",
     "with --micro-batches: the pipeline schedule the simulators run, gpipe | 1f1b | "
     "interleaved (default 1f1b; x-pipeline in the file)",
     GEN_ALL | SYNTHESIS, GP_SCHEDULE, 0},
    {"recompute", GEN_PARAM_WORD, "MODE", 0, 0, "none",
     "none | full (re-run each layer inside backward, keeping its input) | selective "
     "(attention's scores and softmax only); default none",
     GEN_ALL | SYNTHESIS, GP_RECOMPUTE, 0},
    {"virtual-stages", GEN_PARAM_INT, "V", 1, PIPELINE_VIRTUAL_STAGES_MAX, "1",
     "interleaved schedule: V chunks of layers per device (default 1)", GEN_ALL | SYNTHESIS,
     GP_VSTAGES, 0},
    {"elem-bytes", GEN_PARAM_INT, "N", 1, 16, "4",
     "bytes per element: 4 fp32 (default), 2 fp16/bf16", FOR_MODEL, GP_ELEM,
     offsetof(struct gen_opts, elem_bytes)},
    {"dropout", GEN_PARAM_NUMBER, "P", 0, 0.999, "0.1",
     "transformer/gpt: dropout probability on the attention probabilities, the attention "
     "output and the MLP output (masks kept for backward); default 0.1 as GPT-2, Megatron-LM "
     "and the Transformer base trained; 0 none",
     FOR_MODEL, GP_DROPOUT, 0},
    {"loss", GEN_PARAM_WORD, "LOSS", 0, 0, "rule",
     "import --train: cross-entropy | mse | none (default: docs/onnx-import.md's rule)",
     FOR_IMPORT | TRAINING, GP_LOSS, 0},
    {"name", GEN_PARAM_WORD, "NAME", 0, 0, "generated",
     "the workload's name (default: generated, with a suffix per non-default option; "
     "docs/workloads.md)",
     FOR_MODEL | FOR_SYNTH | FOR_IMPORT, GP_NAME, 0},
    /* parallelism (workloads/parallel.h) */
    PAR_INT("dp", "D", dp, 1, "1",
            "data parallelism: D replicas, DDP bucket all-reduces (default 1)"),
    PAR_INT("tp", "T", tp, 1, "1",
            "Megatron tensor parallelism over T GPUs (GPT and Transformer blocks; default 1)"),
    {"sp", GEN_PARAM_FLAG, NULL, 0, 1, "false",
     "with --tp: Megatron sequence parallelism (LayerNorm and dropout regions split along "
     "the sequence; all-gather + reduce-scatter instead of the all-reduces)",
     PARALLEL | TRAINING, GP_PAR_FLAG, offsetof(struct parallel_opts, sp)},
    PAR_INT("pp", "P", pp, 1, "1",
            "pipeline parallelism: P stages of equal layer counts (default 1)"),
    {"zero", GEN_PARAM_INT, "Z", 0, 3, "0",
     "ZeRO stage: 1 optimizer state, 2 + gradients, 3 + parameters sharded over the D "
     "replicas (default 0)",
     PARALLEL | TRAINING, GP_PAR_INT, offsetof(struct parallel_opts, zero)},
    {"pp-balance", GEN_PARAM_WORD, "HOW", 0, 0, "layers",
     "layers (equal layer counts, default) | time (equal forward time)", PARALLEL | TRAINING,
     GP_PP_BALANCE, 0},
    {"bucket-mb", GEN_PARAM_NUMBER, "MB", 0, 1e6, "25",
     "DDP gradient bucket cap in MiB (default 25)", PARALLEL | TRAINING | GEN_PARAM_MIN_OPEN,
     GP_BUCKET, 0},
    {"symmetric", GEN_PARAM_FLAG, NULL, 0, 1, "false",
     "with --dp or --tp: write four ranks a stage (TP ranks 0 and T-1 of replicas 0 and "
     "D-1), their collectives standing for all D replicas and T ranks (docs/symmetry.md; D x "
     "T x P up to 16384)",
     PARALLEL | TRAINING, GP_PAR_FLAG, offsetof(struct parallel_opts, symmetric)},
    {"mixed-precision", GEN_PARAM_FLAG, NULL, 0, 1, "false",
     "optimizer state = K x parameters, K = 4 + 4 x states (an fp32 master copy and "
     "states of fp16 parameters: 12 for Adam; generate with --elem-bytes 2; also on one "
     "GPU)",
     PARALLEL | TRAINING, GP_PAR_FLAG, offsetof(struct parallel_opts, mixed_precision)},
    {"fp32-main-grads", GEN_PARAM_FLAG, NULL, 0, 1, "false",
     "with --mixed-precision: Megatron's fp32 main gradients, 4 more bytes per parameter "
     "held all step (Adam: 18), and DDP reduces them",
     PARALLEL | TRAINING, GP_PAR_FLAG, offsetof(struct parallel_opts, fp32_main_grads)},
    /* the synthetic generator (workloads/gen_synthetic.h) */
    {"shape", GEN_PARAM_WORD, "SHAPE", 0, 0, "layered",
     "synthetic: layered | chain | fork-join | random", FOR_SYNTH, GP_SHAPE, 0},
    SYN_INT("ops", n_ops, 2, 1000000, "1000", "synthetic: number of ops (bounds: --list-params)"),
    {"seed", GEN_PARAM_INT, "S", 0, INT32_MAX, "1", "synthetic: random seed (default 1)", FOR_SYNTH,
     GP_SEED, 0},
    SYN_INT("fan-in", fan_in, 1, 1000, "shape", "synthetic: inputs per op"),
    SYN_INT("width", width, 1, 1000000, "shape", "synthetic: ops per layer / branches"),
    SYN_INT("depth", depth, 1, 1000000, "shape", "synthetic: ops per fork-join branch"),
    SYN_INT("window", window, 1, 1000000, "shape", "synthetic: how far back random inputs reach"),
    SYN_INT("group-size", group_size, 1, 1000000, "shape",
            "synthetic: consecutive ops per colocation group"),
    {NULL, GEN_PARAM_FLAG, NULL, 0, 0, NULL, NULL, 0, 0, 0},
};

_Static_assert(sizeof(params) / sizeof(params[0]) <= GEN_PARAMS_MAX + 1,
               "GEN_PARAMS_MAX (gen_params.h) bounds the CLI's option table");

const struct gen_param *gen_params(void)
{
    return params;
}

const struct gen_param *gen_param_find(const char *key)
{
    /* key may spell '-' as '_' (compared in place: no copy to cut) */
    for (const struct gen_param *p = params; p->name; p++) {
        size_t i = 0;

        while (p->name[i] && (key[i] == '_' ? '-' : key[i]) == p->name[i]) {
            i++;
        }
        if (!p->name[i] && !key[i]) {
            return p;
        }
    }
    return NULL;
}

static const char *const source_names[] = {"a model", "synthetic", "import:"};

void gen_spec_init(struct gen_spec *s, enum gen_source source, const char *model)
{
    memset(s, 0, sizeof(*s));
    s->source = source;
    s->model = model;
    gen_opts_init(&s->gen);
    synth_opts_init(&s->synth);
    s->device = "v100";
    s->import.loss = ONNX_LOSS_DEFAULT; /* with train: the importer's rule */
    parallel_opts_init(&s->par);
}

const char *gen_spec_keys(enum gen_source source)
{
    /* filled on first use, per thread: the library is used from threads */
    static _Thread_local char buf[3][768];
    char *b = buf[source];
    size_t n = 0;

    if (b[0]) {
        return b;
    }
    for (const struct gen_param *p = params; p->name; p++) {
        if (p->uses & (1u << source)) {
            size_t n0 = n;

            n += (size_t)snprintf(b + n, sizeof(buf[0]) - n, "%s%s", n ? ", " : "", p->name);
            n = n < sizeof(buf[0]) ? n : sizeof(buf[0]) - 1;
            for (size_t i = n0; i < n; i++) { /* the sweep's spelling, as docs/sweeps.md */
                b[i] = b[i] == '-' ? '_' : b[i];
            }
        }
    }
    return b;
}

/* An integer in the row's bounds, else why in why[]. */
static const char *parse_long(const struct gen_param *p, const char *key, const char *val, long *x,
                              char *why, size_t why_len)
{
    char *e;

    errno = 0;
    *x = strtol(val, &e, 10);
    if (errno || e == val || *e || *x < (long)p->min || *x > (long)p->max) {
        snprintf(why, why_len, "parameter '%s': expected an integer in %ld..%ld, not '%.20s'", key,
                 (long)p->min, (long)p->max, val);
        return why;
    }
    return NULL;
}

/* A number in the row's bounds, else why in why[]. */
static const char *parse_number(const struct gen_param *p, const char *key, const char *val,
                                double *x, char *why, size_t why_len)
{
    bool open = p->uses & GEN_PARAM_MIN_OPEN;

    if (yio_parse_double(val, x) || !(open ? *x > p->min : *x >= p->min) || !(*x <= p->max)) {
        snprintf(why, why_len, "parameter '%s': expected a number in %s%g, %g], not '%.20s'", key,
                 open ? "(" : "[", p->min, p->max, val);
        return why;
    }
    return NULL;
}

static const char *check_size(const struct gen_spec *s, const char *val, char *why, size_t why_len)
{
    const char *name = s->model;
    const char *const *sz = strcmp(name, "gpt") == 0           ? gen_gpt_sizes()
                            : strcmp(name, "transformer") == 0 ? gen_transformer_sizes()
                                                               : NULL;
    bool ok = !sz; /* the other generators take any size as a name suffix */
    size_t n;

    for (int i = 0; sz && sz[i]; i++) {
        ok |= strcmp(sz[i], val) == 0;
    }
    if (!ok) {
        n = (size_t)snprintf(
            why, why_len,
            "parameter 'size': unknown size '%.20s' ('%.20s' is not a size of %s:", val, val, name);
        for (int i = 0; sz[i] && n < why_len; i++) {
            n += (size_t)snprintf(why + n, why_len - n, "%s %s", i ? "," : "", sz[i]);
        }
        if (n < why_len) {
            snprintf(why + n, why_len - n, ")");
        }
        return why;
    }
    return NULL;
}

static const char *set_flag(struct gen_spec *s, const struct gen_param *p, const char *key,
                            const char *val, char *why, size_t why_len)
{
    bool b;

    if (yio_parse_bool(val, &b)) {
        snprintf(why, why_len, "parameter '%s': expected true or false", key);
        return why;
    }
    if (p->kind == GP_PAR_FLAG) {
        *(bool *)((char *)&s->par + p->offset) = b;
    } else if (strcmp(p->name, "aux") == 0) {
        s->gen.aux = b;
    } else if (strcmp(p->name, "forward-only") == 0) {
        s->gen.forward_only = b;
    } else if (strcmp(p->name, "no-groups") == 0) {
        s->gen.groups = !b;
    } else if (strcmp(p->name, "train") == 0) {
        s->train = b;
    } else {
        s->gen.train.save_all_inputs = b;
    }
    return NULL;
}

/* A value of one of a list: the parser's message names the value. */
static const char *word_refused(const char *key, const char *list, char *why, size_t why_len)
{
    snprintf(why, why_len, "parameter '%s': expected %s (%s)", key, list, err_msg());
    err_clear();
    return why;
}

/* The words of the table: NULL when set, else why. */
static const char *set_word(struct gen_spec *s, const struct gen_param *p, const char *key,
                            const char *val, char *why, size_t why_len)
{
    switch (p->kind) {
    case GP_SCHEDULE:
        return pipeline_schedule_parse(val, &s->gen.train.pipeline.schedule)
                   ? word_refused(key, "gpipe, 1f1b or interleaved", why, why_len)
                   : NULL;
    case GP_OPTIMIZER:
        return train_parse_optimizer(val, &s->gen.train.optimizer)
                   ? word_refused(key, "sgd, momentum or adam", why, why_len)
                   : NULL;
    case GP_SHAPE:
        return synth_shape_parse(val, &s->synth.shape)
                   ? word_refused(key, "layered, chain, fork-join or random", why, why_len)
                   : NULL;
    case GP_RECOMPUTE:
        return train_parse_recompute(val, &s->gen.train.recompute)
                   ? word_refused(key, "none, full or selective", why, why_len)
                   : NULL;
    case GP_LOSS:
        return onnx_parse_loss(val, &s->import.loss)
                   ? word_refused(key, "cross-entropy, mse or none", why, why_len)
                   : NULL;
    case GP_PP_BALANCE:
        if (strcmp(val, "layers") != 0 && strcmp(val, "time") != 0) {
            snprintf(why, why_len, "parameter '%s': expected layers or time, not '%.20s'", key,
                     val);
            return why;
        }
        s->par.pp_by_time = strcmp(val, "time") == 0;
        return NULL;
    case GP_ARCH: {
        const char *const *words = gen_arch_words(p->name);

        for (int i = 1; words[i]; i++) {
            if (strcmp(words[i], val) == 0) {
                *(int *)((char *)&s->gen + p->offset) = i;
                return NULL;
            }
        }
        snprintf(why, why_len, "parameter '%s': expected %s or %s, not '%.20s'", key, words[1],
                 words[2], val);
        return why;
    }
    case GP_SIZE: {
        const char *bad = check_size(s, val, why, why_len);

        s->gen.size = bad ? s->gen.size : val;
        return bad;
    }
    case GP_DEVICE:
        s->gen.device = strcmp(val, "none") == 0 ? NULL : val;
        s->device = s->gen.device;
        return NULL;
    default: /* GP_NAME */
        if (!val[0]) {
            snprintf(why, why_len, "parameter '%s': a name must not be empty", key);
            return why;
        }
        s->name = val;
        s->gen.name = val;
        return NULL;
    }
}

/* Stores a number that is in bounds into the field of row p. */
static void set_number(struct gen_spec *s, const struct gen_param *p, long x, double d)
{
    switch (p->kind) {
    case GP_GEN_INT:
        *(int *)((char *)&s->gen + p->offset) = (int)x;
        break;
    case GP_SYNTH_INT:
        *(int32_t *)((char *)&s->synth + p->offset) = (int32_t)x;
        break;
    case GP_PAR_INT:
        *(int32_t *)((char *)&s->par + p->offset) = (int32_t)x;
        break;
    case GP_BATCH:
        s->gen.batch = (int)x;
        s->import.batch = x;
        break;
    case GP_ELEM:
        s->gen.elem_bytes = (int)x;
        s->gen.train.param_elem_bytes = (int)x;
        break;
    case GP_MICRO:
        s->gen.train.micro_batches = (int32_t)x;
        break;
    case GP_VSTAGES:
        s->gen.train.pipeline.virtual_stages = (int32_t)x;
        break;
    case GP_SEED:
        s->synth.seed = (uint64_t)x;
        break;
    case GP_BWD:
        s->gen.train.bwd_factor = d;
        break;
    case GP_DROPOUT:
        s->gen.dropout = d;
        break;
    case GP_BUCKET:
        s->par.bucket_mb = d;
        break;
    case GP_GLOBAL_BATCH:
        s->global_batch = x;
        break;
    default:
        break;
    }
}

int gen_spec_set(struct gen_spec *s, const char *key, const char *val)
{
    /* the helpers' message, then err_set's (no static: threads and Python) */
    char why[1024];
    const struct gen_param *p = gen_param_find(key);
    long x = 0;
    double d = 0;
    const char *bad = NULL;

    if (!p) {
        snprintf(why, sizeof(why), "has an unknown parameter '%.40s' (known: %s)", key,
                 gen_spec_keys(s->source));
        return err_set(BAECHI_EINVAL, "%s", why);
    }
    if (!(p->uses & (1u << s->source))) {
        snprintf(why, sizeof(why), "parameter '%s' is not one of %s: it is for %s%s%s (known: %s)",
                 key, source_names[s->source],
                 p->uses & FOR_SYNTH   ? "synthetic"
                 : p->uses & FOR_MODEL ? "a model"
                                       : "import:",
                 p->uses & FOR_SYNTH ? " only" : "",
                 (p->uses & GEN_ALL) == GEN_ALL ? " and import:" : "", gen_spec_keys(s->source));
        return err_set(BAECHI_EINVAL, "%s", why);
    }
    switch (p->type) {
    case GEN_PARAM_INT:
        bad = parse_long(p, key, val, &x, why, sizeof(why));
        break;
    case GEN_PARAM_NUMBER:
        bad = parse_number(p, key, val, &d, why, sizeof(why));
        break;
    case GEN_PARAM_FLAG:
        bad = set_flag(s, p, key, val, why, sizeof(why));
        break;
    case GEN_PARAM_WORD:
        bad = set_word(s, p, key, val, why, sizeof(why));
        break;
    }
    if (bad) {
        return err_set(BAECHI_EINVAL, "%s", bad);
    }
    set_number(s, p, x, d);
    if ((p->uses & TRAINING) && !s->training) {
        s->training = p->name;
    }
    return 0;
}

long gen_spec_replica_batch(const struct gen_spec *s)
{
    long d = s->par.dp, m = s->gen.train.micro_batches > 0 ? s->gen.train.micro_batches : 1;

    if (!s->global_batch) {
        return s->gen.batch;
    }
    if (s->gen.batch) {
        err_set(BAECHI_EINVAL,
                "--global-batch %ld and --batch %d: give the global batch (split over the "
                "--dp replicas) or the batch of one replica, not both",
                s->global_batch, s->gen.batch);
        return -1;
    }
    if (s->global_batch % (d * m) != 0) {
        err_set(BAECHI_EINVAL,
                "--global-batch %ld is not divisible by dp x micro-batches = %ld x %ld = %ld "
                "(Megatron: global batch = dp x micro-batch size x micro-batches)",
                s->global_batch, d, m, d * m);
        return -1;
    }
    if (s->global_batch / d > (1L << 20)) {
        err_set(BAECHI_EINVAL,
                "--global-batch %ld over %ld replicas is %ld per replica, more than --batch "
                "allows (1048576)",
                s->global_batch, d, s->global_batch / d);
        return -1;
    }
    return s->global_batch / d;
}

int gen_spec_check(const struct gen_spec *s)
{
    const char *t = s->training;

    if (gen_spec_replica_batch(s) < 0) {
        return BAECHI_EINVAL;
    }
    if (!t && parallel_opts_active(&s->par)) {
        t = s->par.dp > 1 ? "dp" : s->par.tp > 1 ? "tp" : "pp";
    }
    if (s->source == GEN_SOURCE_MODEL && s->gen.forward_only && t) {
        return err_set(BAECHI_EINVAL,
                       "parameter '%s' (--%s) is about the training graph, and forward-only "
                       "makes none",
                       t, t);
    }
    return 0;
}

static int build_import(const struct gen_spec *s, struct workload *out)
{
    struct onnx_import_opts io;
    struct workload tr;
    struct costmodel cm;
    struct strbuf kind = STRBUF_INIT; /* cm.kind when device names a cluster */
    int rc;

    workload_init(out);
    if (s->device && (rc = costmodel_from_spec(&cm, s->device, &kind))) {
        goto cleanup;
    }
    /* a training graph gets the default loss, as `workload import --train` */
    io = s->import;
    io.loss = s->train ? s->import.loss : ONNX_LOSS_NONE;
    if ((rc = onnx_import(out, s->model, &io, NULL))) {
        goto cleanup;
    }
    if (s->train) {
        if ((rc = train_synthesize(&tr, out, &s->gen.train, NULL))) {
            workload_release(out);
            workload_release(&tr);
            workload_init(out);
            goto cleanup;
        }
        workload_release(out);
        *out = tr;
    }
    if (s->device && (rc = costmodel_apply(&cm, out, 0, NULL))) {
        workload_release(out);
        workload_init(out);
    }
cleanup:
    strbuf_release(&kind);
    return rc;
}

int gen_spec_build(const struct gen_spec *s, struct workload *out)
{
    return gen_spec_build_info(s, out, NULL);
}

int gen_spec_build_info(const struct gen_spec *s, struct workload *out, struct gen_info *info)
{
    int rc;

    if ((rc = gen_spec_check(s))) {
        workload_init(out);
        return rc;
    }
    /* options that cannot act are refused, never ignored (issue 33 item 2);
     * not a schedule at one micro-batch (train_opts_check): a sweep's cross
     * product names M = 1 under each schedule on purpose, and the command
     * line refuses it */
    if ((rc = parallel_opts_check(&s->par))) {
        workload_init(out);
        return rc;
    }
    switch (s->source) {
    case GEN_SOURCE_MODEL: {
        struct gen_opts o = s->gen;

        o.batch = (int)gen_spec_replica_batch(s);
        rc = gen_model(out, s->model, &o, info);
        break;
    }
    case GEN_SOURCE_SYNTHETIC:
        workload_init(out);
        rc = gen_synthetic(out, &s->synth);
        break;
    default:
        rc = build_import(s, out);
        break;
    }
    if (!rc && s->source != GEN_SOURCE_SYNTHETIC && parallel_opts_active(&s->par)) {
        struct workload par;

        if (!(rc = parallel_apply(&par, out, &s->par))) {
            workload_release(out);
            *out = par;
        }
    } else if (!rc && s->source != GEN_SOURCE_SYNTHETIC) {
        /* one GPU: the precision options apply all the same (issue 31 item 6) */
        rc = parallel_precision_apply(out, &s->par);
    }
    if (!rc && s->name) {
        rc = workload_set_name(out, s->name);
    }
    if (rc) {
        workload_release(out);
        workload_init(out);
    }
    return rc;
}
