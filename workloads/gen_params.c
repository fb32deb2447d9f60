/*
 * gen_params.c - the parameters of `workload gen` and `workload import` as
 * one table (gen_params.h), with the bounds of the CLI's options.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/gen_params.h"

#include "core/err.h"
#include "core/yio.h"
#include "workloads/costmodel.h"
#include "workloads/train.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    FOR_MODEL = 1 << GEN_SOURCE_MODEL,
    FOR_SYNTH = 1 << GEN_SOURCE_SYNTHETIC,
    FOR_IMPORT = 1 << GEN_SOURCE_IMPORT,
};

enum gp_kind {
    GP_GEN_INT,   /* an int of struct gen_opts in 1..max */
    GP_SYNTH_INT, /* an int32_t of struct synth_opts in min..max */
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
    GP_PARALLEL,  /* --dp, --tp, --pp, --zero, --bucket-mb, --mixed-precision */
};

struct gen_param {
    const char *flag; /* the CLI's long option */
    enum gp_kind kind;
    unsigned sources; /* FOR_* */
    size_t offset;    /* GP_GEN_INT, GP_SYNTH_INT */
    long min, max;
};

#define GEN_INT(f, field, hi)                                                                      \
    {                                                                                              \
        f, GP_GEN_INT, FOR_MODEL, offsetof(struct gen_opts, field), 1, hi                          \
    }
#define SYN_INT(f, field, lo, hi)                                                                  \
    {                                                                                              \
        f, GP_SYNTH_INT, FOR_SYNTH, offsetof(struct synth_opts, field), lo, hi                     \
    }

/* The options of cli/workload_gen.c and cli/workload_import.c, their bounds included. */
static const struct gen_param params[] = {
    {"batch", GP_BATCH, FOR_MODEL | FOR_IMPORT, 0, 1, 1L << 20},
    GEN_INT("seq", seq, 1L << 20),
    GEN_INT("layers", layers, 10000),
    GEN_INT("d-model", d_model, 1L << 20),
    GEN_INT("heads", heads, 1L << 16),
    GEN_INT("ffn", ffn, 1L << 22),
    GEN_INT("vocab", vocab, 1L << 24),
    /* GP_ELEM: the training synthesis sizes masks and updates by it too, as
     * --elem-bytes does (cli/workload_gen.c) */
    {"elem-bytes", GP_ELEM, FOR_MODEL, 0, 1, 16},
    {"size", GP_SIZE, FOR_MODEL, 0, 0, 0},
    {"aux", GP_FLAG, FOR_MODEL, 0, 0, 0},
    {"forward-only", GP_FLAG, FOR_MODEL, 0, 0, 0},
    {"no-groups", GP_FLAG, FOR_MODEL, 0, 0, 0},
    {"train", GP_FLAG, FOR_IMPORT, 0, 0, 0},
    {"device", GP_DEVICE, FOR_MODEL | FOR_IMPORT, 0, 0, 0},
    {"optimizer", GP_OPTIMIZER, FOR_MODEL | FOR_IMPORT, 0, 0, 0},
    {"bwd-factor", GP_BWD, FOR_MODEL | FOR_IMPORT, 0, 0, 1000},
    {"dropout", GP_DROPOUT, FOR_MODEL, 0, 0, 0},
    {"save-all-inputs", GP_FLAG, FOR_MODEL | FOR_IMPORT, 0, 0, 0},
    {"micro-batches", GP_MICRO, FOR_MODEL | FOR_IMPORT, 0, 1, TRAIN_MAX_MICRO_BATCHES},
    {"schedule", GP_SCHEDULE, FOR_MODEL | FOR_IMPORT, 0, 0, 0},
    {"virtual-stages", GP_VSTAGES, FOR_MODEL | FOR_IMPORT, 0, 1, PIPELINE_VIRTUAL_STAGES_MAX},
    {"recompute", GP_RECOMPUTE, FOR_MODEL | FOR_IMPORT, 0, 0, 0},
    {"loss", GP_LOSS, FOR_IMPORT, 0, 0, 0},
    {"shape", GP_SHAPE, FOR_SYNTH, 0, 0, 0},
    SYN_INT("ops", n_ops, 2, 1000000),
    {"seed", GP_SEED, FOR_SYNTH, 0, 0, INT32_MAX},
    SYN_INT("fan-in", fan_in, 1, 1000),
    SYN_INT("width", width, 1, 1000000),
    SYN_INT("depth", depth, 1, 1000000),
    SYN_INT("window", window, 1, 1000000),
    SYN_INT("group-size", group_size, 1, 1000000),
    {"name", GP_NAME, FOR_MODEL | FOR_SYNTH | FOR_IMPORT, 0, 0, 0},
    /* parallelism (workloads/parallel.h) */
    {"dp", GP_PARALLEL, FOR_MODEL | FOR_IMPORT, offsetof(struct parallel_opts, dp), 1,
     PARALLEL_MAX_DEVICES},
    {"tp", GP_PARALLEL, FOR_MODEL | FOR_IMPORT, offsetof(struct parallel_opts, tp), 1,
     PARALLEL_MAX_DEVICES},
    {"pp", GP_PARALLEL, FOR_MODEL | FOR_IMPORT, offsetof(struct parallel_opts, pp), 1,
     PARALLEL_MAX_DEVICES},
    {"zero", GP_PARALLEL, FOR_MODEL | FOR_IMPORT, offsetof(struct parallel_opts, zero), 0, 3},
    {"bucket-mb", GP_PARALLEL, FOR_MODEL | FOR_IMPORT, 0, 0, 0},
    {"pp-balance", GP_PARALLEL, FOR_MODEL | FOR_IMPORT, 0, 0, 0},
    {"mixed-precision", GP_PARALLEL, FOR_MODEL | FOR_IMPORT, 0, 0, 0},
    {"sp", GP_PARALLEL, FOR_MODEL | FOR_IMPORT, 0, 0, 0},
    {"fp32-main-grads", GP_PARALLEL, FOR_MODEL | FOR_IMPORT, 0, 0, 0},
    {NULL, GP_FLAG, 0, 0, 0, 0},
};

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
    static _Thread_local char buf[3][512];
    char *b = buf[source];
    size_t n = 0;

    if (b[0]) {
        return b;
    }
    for (const struct gen_param *p = params; p->flag; p++) {
        if (p->sources & (1u << source)) {
            size_t n0 = n;

            n += (size_t)snprintf(b + n, sizeof(buf[0]) - n, "%s%s", n ? ", " : "", p->flag);
            for (size_t i = n0; i < n; i++) { /* the sweep's spelling, as docs/sweeps.md */
                b[i] = b[i] == '-' ? '_' : b[i];
            }
        }
    }
    return b;
}

/* An integer in lo..hi, else why in why[]. */
static const char *parse_long(const struct gen_param *p, const char *key, const char *val, long *x,
                              char *why, size_t why_len)
{
    char *e;

    errno = 0;
    *x = strtol(val, &e, 10);
    if (errno || e == val || *e || *x < p->min || *x > p->max) {
        snprintf(why, why_len,
                 "parameter '%s': expected an integer in %ld..%ld (as 'workload %s --%s'), not "
                 "'%.20s'",
                 key, p->min, p->max, p->sources & FOR_IMPORT ? "gen/import" : "gen", p->flag, val);
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

    for (int i = 0; sz && sz[i]; i++) {
        ok |= strcmp(sz[i], val) == 0;
    }
    if (!ok) {
        snprintf(why, why_len,
                 "parameter 'size': '%.20s' is not a size of %s (transformer: base, big; "
                 "gpt: small, medium, large, xl, 2.7b, 6.7b)",
                 val, name);
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
    if (strcmp(p->flag, "aux") == 0) {
        s->gen.aux = b;
    } else if (strcmp(p->flag, "forward-only") == 0) {
        s->gen.forward_only = b;
    } else if (strcmp(p->flag, "no-groups") == 0) {
        s->gen.groups = !b;
    } else if (strcmp(p->flag, "train") == 0) {
        s->train = b;
    } else {
        s->gen.train.save_all_inputs = b;
    }
    return NULL;
}

/* The parallelism parameters: degrees and stage (ints), the bucket cap, the flag. */
static const char *set_parallel(struct gen_spec *s, const struct gen_param *p, const char *key,
                                const char *val, char *why, size_t why_len)
{
    double d;
    long x;
    bool b;

    if (strcmp(p->flag, "mixed-precision") == 0 || strcmp(p->flag, "sp") == 0 ||
        strcmp(p->flag, "fp32-main-grads") == 0) {
        if (yio_parse_bool(val, &b)) {
            snprintf(why, why_len, "parameter '%s': expected true or false", key);
            return why;
        }
        *(p->flag[0] == 'm'   ? &s->par.mixed_precision
          : p->flag[0] == 's' ? &s->par.sp
                              : &s->par.fp32_main_grads) = b;
    } else if (strcmp(p->flag, "pp-balance") == 0) {
        if (strcmp(val, "layers") != 0 && strcmp(val, "time") != 0) {
            snprintf(why, why_len, "parameter '%s': expected layers or time", key);
            return why;
        }
        s->par.pp_by_time = strcmp(val, "time") == 0;
    } else if (strcmp(p->flag, "bucket-mb") == 0) {
        if (yio_parse_double(val, &d) || !(d > 0 && d <= 1e6)) {
            snprintf(why, why_len, "parameter '%s': expected a number in (0, 1e6]", key);
            return why;
        }
        s->par.bucket_mb = d;
    } else {
        const char *bad = parse_long(p, key, val, &x, why, why_len);

        if (bad) {
            return bad;
        }
        *(int32_t *)((char *)&s->par + p->offset) = (int32_t)x;
    }
    return NULL;
}

const char *gen_spec_set(struct gen_spec *s, const char *key, const char *val)
{
    /* the message returned: this thread's until its next call */
    static _Thread_local char why[400];
    char k[32];
    const struct gen_param *p;
    size_t n = strlen(key);
    long x = 0;
    const char *bad = NULL;

    for (size_t i = 0; i <= n && i < sizeof(k); i++) {
        k[i] = key[i] == '_' ? '-' : key[i];
    }
    k[sizeof(k) - 1] = '\0';
    for (p = params; p->flag && strcmp(p->flag, k) != 0; p++) {
    }
    if (!p->flag || n >= sizeof(k)) {
        snprintf(why, sizeof(why), "has an unknown parameter '%.40s' (known: %s)", key,
                 gen_spec_keys(s->source));
        return why;
    }
    if (!(p->sources & (1u << s->source))) {
        snprintf(why, sizeof(why), "parameter '%s' is not one of %s (known: %s)", key,
                 source_names[s->source], gen_spec_keys(s->source));
        return why;
    }
    switch (p->kind) {
    case GP_GEN_INT:
    case GP_SYNTH_INT:
    case GP_BATCH:
    case GP_ELEM:
    case GP_MICRO:
    case GP_VSTAGES:
    case GP_SEED:
        if ((bad = parse_long(p, key, val, &x, why, sizeof(why)))) {
            return bad;
        }
        break;
    default:
        break;
    }
    switch (p->kind) {
    case GP_GEN_INT:
        *(int *)((char *)&s->gen + p->offset) = (int)x;
        break;
    case GP_SYNTH_INT:
        *(int32_t *)((char *)&s->synth + p->offset) = (int32_t)x;
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
    case GP_SCHEDULE:
        if (pipeline_schedule_parse(val, &s->gen.train.pipeline.schedule)) {
            snprintf(why, sizeof(why), "parameter '%s': expected gpipe, 1f1b or interleaved", key);
            return why;
        }
        break;
    case GP_SEED:
        s->synth.seed = (uint64_t)x;
        break;
    case GP_FLAG:
        return set_flag(s, p, key, val, why, sizeof(why));
    case GP_SIZE:
        if ((bad = check_size(s, val, why, sizeof(why)))) {
            return bad;
        }
        s->gen.size = val;
        break;
    case GP_DEVICE:
        s->gen.device = strcmp(val, "none") == 0 ? NULL : val;
        s->device = s->gen.device;
        break;
    case GP_OPTIMIZER:
        if (train_parse_optimizer(val, &s->gen.train.optimizer)) {
            snprintf(why, sizeof(why), "parameter '%s': expected sgd, momentum or adam", key);
            return why;
        }
        break;
    case GP_BWD: {
        double d;
        const char *w2 = yio_parse_double(val, &d);

        if (w2 || !(d >= 0 && d <= 1000)) {
            snprintf(why, sizeof(why), "parameter '%s': expected a number in 0..1000", key);
            return why;
        }
        s->gen.train.bwd_factor = d;
        break;
    }
    case GP_DROPOUT: {
        double d;

        if (yio_parse_double(val, &d) || !(d >= 0 && d <= 0.999)) {
            snprintf(why, sizeof(why), "parameter '%s': expected a probability in 0..0.999", key);
            return why;
        }
        s->gen.dropout = d;
        break;
    }
    case GP_SHAPE:
        if (synth_shape_parse(val, &s->synth.shape)) {
            snprintf(why, sizeof(why),
                     "parameter '%s': expected layered, chain, fork-join or random", key);
            return why;
        }
        break;
    case GP_NAME:
        s->name = val;
        break;
    case GP_RECOMPUTE:
        if (train_parse_recompute(val, &s->gen.train.recompute)) {
            snprintf(why, sizeof(why), "parameter '%s': expected none, full or selective", key);
            return why;
        }
        break;
    case GP_LOSS:
        if (onnx_parse_loss(val, &s->import.loss)) {
            snprintf(why, sizeof(why), "parameter '%s': expected cross-entropy, mse or none", key);
            return why;
        }
        break;
    case GP_PARALLEL:
        return set_parallel(s, p, key, val, why, sizeof(why));
    }
    return NULL;
}

static int build_import(const struct gen_spec *s, struct workload *out)
{
    struct onnx_import_opts io;
    struct workload tr;
    struct costmodel cm;
    char kind[128]; /* cm.kind when device names a cluster */
    int rc;

    workload_init(out);
    if (s->device && (rc = costmodel_from_spec(&cm, s->device, kind, sizeof(kind)))) {
        return rc;
    }
    /* a training graph gets the default loss, as `workload import --train` */
    io = s->import;
    io.loss = s->train ? s->import.loss : ONNX_LOSS_NONE;
    if ((rc = onnx_import(out, s->model, &io, NULL))) {
        return rc;
    }
    if (s->train) {
        if ((rc = train_synthesize(&tr, out, &s->gen.train, NULL))) {
            workload_release(out);
            workload_release(&tr);
            workload_init(out);
            return rc;
        }
        workload_release(out);
        *out = tr;
    }
    if (s->device && (rc = costmodel_apply(&cm, out, 0, NULL))) {
        workload_release(out);
        workload_init(out);
    }
    return rc;
}

int gen_spec_build(const struct gen_spec *s, struct workload *out)
{
    int rc;

    switch (s->source) {
    case GEN_SOURCE_MODEL:
        rc = gen_model(out, s->model, &s->gen, NULL);
        break;
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
