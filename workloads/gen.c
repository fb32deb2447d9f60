/*
 * gen.c - gen_model(): the forward generator of a model, then training
 * synthesis and cost-model times (see gen.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/gen.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/strbuf.h"
#include "workloads/costmodel.h"
#include "workloads/gen_cap.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gen_opts_init(struct gen_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->groups = true;
    o->elem_bytes = 4;
    o->dropout = -1;
    o->device = GEN_DEFAULT_DEVICE;
    train_opts_init(&o->train);
}

/* The words of the architecture options, by enum value (gen.h); [0] is the preset's. */
static const struct {
    const char *option;
    const char *const words[4];
} arch_words[] = {
    {"mlp", {"preset", "gelu", "swiglu", NULL}},
    {"norm", {"preset", "layernorm", "rmsnorm", NULL}},
    {"pos", {"preset", "learned", "rotary", NULL}},
    {"embeddings", {"preset", "tied", "untied", NULL}},
    {"bias", {"preset", "on", "off", NULL}},
};

const char *const *gen_arch_words(const char *option)
{
    for (size_t i = 0; i < sizeof(arch_words) / sizeof(arch_words[0]); i++) {
        if (strcmp(arch_words[i].option, option) == 0) {
            return arch_words[i].words;
        }
    }
    return NULL;
}

typedef int (*gen_fn)(struct workload *w, const struct gen_opts *o, struct gen_info *info);

static const struct {
    const char *name;
    gen_fn fn;
    const char *what;
} models[] = {
    {"inception-v3", gen_inception_v3, "Inception-V3 (torchvision), 299x299"},
    {"gnmt", gen_gnmt, "GNMT-v2, 4 layers of 512 LSTM units, unrolled per time step"},
    {"transformer", gen_transformer, "Transformer (Vaswani et al.), base or big"},
    {"gpt", gen_gpt, "decoder-only transformer (GPT-2, GPT-3, Llama-2 presets)"},
};

static const char *const model_names[] = {"inception-v3", "gnmt", "transformer", "gpt", NULL};

const char *const *gen_model_names(void)
{
    return model_names;
}

/* Appends printf(fmt, ...) to buf[0..size) at *len (truncating). */
/* Appends to sb unless *rc already holds an error; *rc the first error. */
static void name_add(struct strbuf *sb, int *rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void name_add(struct strbuf *sb, int *rc, const char *fmt, ...)
{
    va_list ap;

    if (*rc) {
        return;
    }
    va_start(ap, fmt);
    *rc = strbuf_vaddf(sb, fmt, ap);
    va_end(ap);
}

/*
 * The generated name: <model>[-<size>]_b<batch>, then a suffix for every
 * parameter that is not the default, in this order (docs/workloads.md):
 * _s<seq> _l<layers> _d<d_model> _nh<heads> _ff<ffn> _v<vocab> _kv<kv_heads>
 * _<mlp> _<norm> _<pos> _<embeddings> _bias<on|off> _aux
 * _nogroups _e<elem_bytes> _do<dropout> _fwd _mb<micro_batches> _<optimizer> _bwd<factor>
 * _sai _rc<recompute> _<device kind> (or _untimed).  The defaults add nothing, so the
 * names of default workloads are those of before; `_b<batch>` stays the
 * first "_b" (the results read the batch from it).
 */
static int gen_name(struct strbuf *sb, const char *name, const char *gsize,
                    const struct gen_opts *o, const struct gen_info *info, const char *kind)
{
    int rc = 0;

    name_add(sb, &rc, "%s%s%s_b%lld", name, gsize ? "-" : "", gsize ? gsize : "",
             (long long)info->batch);
    if (o->seq) {
        name_add(sb, &rc, "_s%lld", (long long)info->seq);
    }
    if (o->layers) {
        name_add(sb, &rc, "_l%d", o->layers);
    }
    if (o->d_model) {
        name_add(sb, &rc, "_d%d", o->d_model);
    }
    if (o->heads) {
        name_add(sb, &rc, "_nh%d", o->heads);
    }
    if (o->ffn) {
        name_add(sb, &rc, "_ff%d", o->ffn);
    }
    if (o->vocab) {
        name_add(sb, &rc, "_v%d", o->vocab);
    }
    if (o->kv_heads) {
        name_add(sb, &rc, "_kv%d", o->kv_heads);
    }
    if (o->mlp) {
        name_add(sb, &rc, "_%s", gen_arch_words("mlp")[o->mlp]);
    }
    if (o->norm) {
        name_add(sb, &rc, "_%s", gen_arch_words("norm")[o->norm]);
    }
    if (o->pos) {
        name_add(sb, &rc, "_%s", gen_arch_words("pos")[o->pos]);
    }
    if (o->tied) {
        name_add(sb, &rc, "_%s", gen_arch_words("embeddings")[o->tied]);
    }
    if (o->bias) {
        name_add(sb, &rc, "_bias%s", gen_arch_words("bias")[o->bias]);
    }
    if (o->aux) {
        name_add(sb, &rc, "_aux");
    }
    if (!o->groups) {
        name_add(sb, &rc, "_nogroups");
    }
    if (o->elem_bytes != 4) {
        name_add(sb, &rc, "_e%d", o->elem_bytes);
    }
    if (o->dropout >= 0) {
        name_add(sb, &rc, "_do%g", o->dropout);
    }
    if (o->forward_only) {
        name_add(sb, &rc, "_fwd");
    }
    return rc ? rc
              : gen_name_suffix(sb, o->forward_only ? NULL : &o->train, o->device ? kind : NULL,
                                !o->device);
}

int gen_import_name(struct strbuf *sb, const char *base, int64_t batch, const struct train_opts *t,
                    const char *kind, bool untimed)
{
    int rc = 0;

    name_add(sb, &rc, "%s", base ? base : "workload");
    if (batch > 0) {
        name_add(sb, &rc, "_b%lld", (long long)batch);
    }
    return rc ? rc : gen_name_suffix(sb, t, kind, untimed);
}

int gen_name_suffix(struct strbuf *sb, const struct train_opts *t, const char *kind, bool untimed)
{
    struct train_opts dt;
    int rc = 0;

    train_opts_init(&dt);
    if (t && t->micro_batches > 1) {
        name_add(sb, &rc, "_mb%d", (int)t->micro_batches);
    }
    if (t && t->optimizer != dt.optimizer) {
        name_add(sb, &rc, "_%s", train_optimizer_name(t->optimizer));
    }
    if (t && t->bwd_factor != dt.bwd_factor) {
        name_add(sb, &rc, "_bwd%g", t->bwd_factor);
    }
    if (t && t->save_all_inputs) {
        name_add(sb, &rc, "_sai");
    }
    if (t && t->recompute != TRAIN_RECOMPUTE_NONE) {
        name_add(sb, &rc, "_rc%s", train_recompute_name(t->recompute));
    }
    if (untimed) {
        name_add(sb, &rc, "_untimed");
    } else if (kind && strcmp(kind, GEN_DEFAULT_DEVICE) != 0) {
        name_add(sb, &rc, "_%s", kind);
    }
    return rc;
}

static int describe(struct workload *w, const char *name, const struct gen_opts *o,
                    const struct gen_info *info, const char *what, const char *kind)
{
    struct strbuf desc = STRBUF_INIT, wname = STRBUF_INIT; /* whole at any length */
    const char *size = o->size;
    int rc;

    if (!size && strcmp(name, "gpt") == 0) {
        size = "small";
    } else if (!size && strcmp(name, "transformer") == 0) {
        size = "base";
    }
    if ((rc = o->name ? strbuf_addstr(&wname, o->name)
                      : gen_name(&wname, name, size, o, info, kind)) ||
        (rc = strbuf_addf(
             &desc,
             "%s, generated by baechi workload gen: %lld parameters, %.4g forward FLOPs "
             "(multiply-add = 2)%s%s; batch %lld, sequence %lld; %s",
             what, (long long)info->params, info->fwd_flops,
             o->forward_only ? ", forward only" : ", with backward and ",
             o->forward_only ? "" : train_optimizer_name(o->train.optimizer),
             (long long)info->batch, (long long)info->seq,
             o->device ? "times from the roofline cost model (datasheet peaks)"
                       : "no times (FLOPs and bytes only)")) ||
        (rc = workload_set_name(w, wname.buf))) {
        goto cleanup;
    }
    free(w->description);
    free(w->source);
    w->description = mem_strdup(desc.buf);
    w->source = mem_strdup("baechi workload gen (workloads/gen_*.c); architectures from "
                           "the published models, see docs/workloads.md, section Generated models");
    rc = w->description && w->source ? 0 : err_set(BAECHI_ENOMEM, "out of memory");
cleanup:
    strbuf_release(&desc);
    strbuf_release(&wname);
    return rc;
}

/* A model option given in o that generator `name` never reads: refused,
 * not ignored (issue 33 item 2: `gen inception-v3 --seq 4` wrote the
 * default graph). */
static int check_unread(const char *name, const struct gen_opts *o)
{
    const struct {
        bool given;
        const char *opt, *readers; /* names between spaces */
    } use[] = {
        {o->seq != 0, "seq", " gnmt transformer gpt "},
        {o->size != NULL, "size", " transformer gpt "},
        {o->layers != 0, "layers", " gnmt transformer gpt "},
        {o->d_model != 0, "d-model", " transformer gpt "},
        {o->heads != 0, "heads", " transformer gpt "},
        {o->ffn != 0, "ffn", " transformer gpt "},
        {o->vocab != 0, "vocab", " gnmt transformer gpt "},
        {o->aux, "aux", " inception-v3 "},
        {o->dropout >= 0, "dropout", " transformer gpt "},
    };
    size_t n = strlen(name);

    for (size_t k = 0; k < sizeof(use) / sizeof(use[0]); k++) {
        const char *at = use[k].given ? strstr(use[k].readers, name) : NULL;

        if (use[k].given && !(at && at[-1] == ' ' && at[n] == ' ')) {
            return err_set(BAECHI_EINVAL, "--%s is not read by the '%s' generator (only by:%.*s)",
                           use[k].opt, name, (int)strlen(use[k].readers) - 1, use[k].readers);
        }
    }
    return 0;
}

int gen_model(struct workload *out, const char *name, const struct gen_opts *o,
              struct gen_info *info)
{
    struct workload fwd;
    struct gen_info gi = {0, 0, 0, 0, 0};
    struct costmodel cm;
    struct strbuf kind = STRBUF_INIT; /* cm.kind when --device names a cluster */
    int found = -1, rc;

    workload_init(out);
    workload_init(&fwd);
    for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
        if (strcmp(models[i].name, name) == 0) {
            found = (int)i;
        }
    }
    if (found < 0) {
        return err_set(BAECHI_EINVAL,
                       "unknown model '%s' (known: inception-v3, gnmt, transformer, gpt, "
                       "synthetic)",
                       name);
    }
    /* the architecture options are the GPT generator's: elsewhere they would do nothing */
    if (strcmp(name, "gpt") != 0 &&
        (o->kv_heads || o->mlp || o->norm || o->pos || o->tied || o->bias)) {
        return err_set(BAECHI_EINVAL,
                       "%s: --kv-heads, --mlp, --norm, --pos, --embeddings and "
                       "--bias are options of gpt",
                       name);
    }
    if ((rc = check_unread(name, o)) != 0) {
        return rc;
    }
    /* fp8, fp16/bf16, fp32, fp64: any other width is no data type (issue 33 item 2) */
    if (o->elem_bytes != 1 && o->elem_bytes != 2 && o->elem_bytes != 4 && o->elem_bytes != 8) {
        return err_set(BAECHI_EINVAL,
                       "--elem-bytes %d: an element is 1 (fp8), 2 (fp16, bf16), 4 (fp32) or 8 "
                       "(fp64) bytes",
                       o->elem_bytes);
    }
    if ((rc = gen_cap_check(name, o)) != 0) { /* the op count before building (gen_cap.h) */
        return rc;
    }
    if (o->device && (rc = costmodel_from_spec(&cm, o->device, &kind))) {
        goto cleanup;
    }
    cm.elem_bytes = o->elem_bytes; /* GEMMs of fp16 data at the fp16 rate */
    if ((rc = models[found].fn(&fwd, o, &gi)) ||
        (rc = describe(&fwd, name, o, &gi, models[found].what, o->device ? cm.kind : NULL))) {
        goto cleanup;
    }
    if (!o->forward_only && o->train.micro_batches > gi.batch) {
        rc = err_set(BAECHI_EINVAL, "--micro-batches %d: more micro-batches than the batch (%lld)",
                     (int)o->train.micro_batches, (long long)gi.batch);
        goto cleanup;
    }
    /* A batch that does not divide would give the micro-batches more samples
     * than the batch (each is rounded up): Megatron and GPipe refuse it too. */
    if (!o->forward_only && o->train.micro_batches > 1 && gi.batch % o->train.micro_batches) {
        rc = err_set(BAECHI_EINVAL,
                     "--micro-batches %d does not divide the batch (%lld): each micro-batch "
                     "would hold %lld samples, %lld in all",
                     (int)o->train.micro_batches, (long long)gi.batch,
                     (long long)((gi.batch + o->train.micro_batches - 1) / o->train.micro_batches),
                     (long long)((gi.batch + o->train.micro_batches - 1) / o->train.micro_batches *
                                 o->train.micro_batches));
        goto cleanup;
    }
    if (o->forward_only) {
        *out = fwd;
        workload_init(&fwd);
    } else if ((rc = train_synthesize(out, &fwd, &o->train, NULL))) {
        goto cleanup;
    } else {
        /* train_synthesize appends "_train"; the generated name says it already */
        if ((rc = workload_set_name(out, fwd.name ? fwd.name : ""))) {
            goto cleanup;
        }
    }
    if (o->device && (rc = costmodel_apply(&cm, out, 0, NULL))) {
        goto cleanup;
    }
    if (info) {
        *info = gi;
    }
cleanup:
    strbuf_release(&kind);
    workload_release(&fwd);
    if (rc) {
        workload_release(out);
    }
    return rc;
}
