/*
 * workload_make.c - the C API's workload makers (include/baechi.h
 * "Making workloads"): parameters by name, then the generators
 * (workloads/gen.h, gen_synthetic.h), the ONNX importer (onnx_import.h)
 * and the training synthesis (train.h), with the defaults, ranges and
 * rules of `baechi workload gen`, `import` and `train` (cli/workload_gen.c,
 * cli/workload_import.c), so that a workload made here is the one those
 * commands write.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "include/baechi.h"

#include "api/internal.h"
#include "core/alloc.h"
#include "core/err.h"
#include "core/yio.h"
#include "core/graph.h"
#include "core/pipeline.h"
#include "core/workload.h"
#include "core/workload_yaml.h"
#include "workloads/costmodel.h"
#include "workloads/gen.h"
#include "workloads/gen_synthetic.h"
#include "workloads/onnx_import.h"
#include "workloads/recompute.h"
#include "workloads/gen_params.h"
#include "workloads/parallel.h"
#include "workloads/train.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PARAM_NAME_MAX 64

struct baechi_params {
    char **name; /* '-' already turned into '_' */
    char **value;
    int n, alloc;
};

struct baechi_params *baechi_params_new(void)
{
    struct baechi_params *p = mem_calloc(1, sizeof(*p));

    if (!p) {
        err_set(BAECHI_ENOMEM, "out of memory");
    }
    return p;
}

void baechi_params_free(struct baechi_params *p)
{
    if (!p) {
        return;
    }
    for (int i = 0; i < p->n; i++) {
        free(p->name[i]);
        free(p->value[i]);
    }
    free(p->name);
    free(p->value);
    free(p);
}

int baechi_params_set(struct baechi_params *p, const char *name, const char *value)
{
    char key[PARAM_NAME_MAX], *v, *k = NULL;

    if (!name || !value) {
        return err_set(BAECHI_EINVAL, "parameter name and value are required");
    }
    if (!*name || strlen(name) >= sizeof(key)) {
        return err_set(BAECHI_EINVAL, "bad parameter name '%.60s'", name);
    }
    for (size_t i = 0;; i++) {
        key[i] = name[i] == '-' ? '_' : name[i];
        if (!name[i]) {
            break;
        }
    }
    if (!(v = mem_strdup(value))) {
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    for (int i = 0; i < p->n; i++) {
        if (strcmp(p->name[i], key) == 0) {
            free(p->value[i]);
            p->value[i] = v;
            return 0;
        }
    }
    if (p->n == p->alloc) {
        int na = p->alloc ? 2 * p->alloc : 8;
        char **nn = mem_realloc(p->name, (size_t)na * sizeof(*nn));

        if (nn) {
            p->name = nn;
        }
        char **nv = nn ? mem_realloc(p->value, (size_t)na * sizeof(*nv)) : NULL;

        if (!nv) {
            free(v);
            return err_set(BAECHI_ENOMEM, "out of memory");
        }
        p->value = nv;
        p->alloc = na;
    }
    if (!(k = mem_strdup(key))) {
        free(v);
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    p->name[p->n] = k;
    p->value[p->n] = v;
    p->n++;
    return 0;
}

/* ------------------------------------------------------------ parsing */

static int param_long(const char *fn, const char *name, const char *s, long lo, long hi, long *out)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi) {
        return err_set(BAECHI_EINVAL, "%s: parameter '%s': '%s' is not an integer in [%ld, %ld]",
                       fn, name, s, lo, hi);
    }
    *out = v;
    return 0;
}

static int param_int(const char *fn, const char *name, const char *s, long lo, long hi, int *out)
{
    long v;
    int rc = param_long(fn, name, s, lo, hi, &v);

    if (rc == 0) {
        *out = (int)v;
    }
    return rc;
}

static int param_double(const char *fn, const char *name, const char *s, double lo, double hi,
                        double *out)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v) || v < lo || v > hi) {
        return err_set(BAECHI_EINVAL, "%s: parameter '%s': '%s' is not a number in [%g, %g]", fn,
                       name, s, lo, hi);
    }
    *out = v;
    return 0;
}

static int param_bool(const char *fn, const char *name, const char *s, bool *out)
{
    if (yio_parse_bool(s, out) == 0) { /* YAML's booleans, as files and sweeps */
        return 0;
    }
    return err_set(BAECHI_EINVAL, "%s: parameter '%s': '%s' is not a boolean (true or false)", fn,
                   name, s);
}

/* The training parameters (WORKLOAD_TRAIN_OPTS of the CLI): 1 when `name`
 * is one (*rc set), else 0. */
static int train_param(const char *fn, const char *name, const char *v, struct train_opts *o,
                       int *rc)
{
    double d = 0;
    long m = 0;

    if (strcmp(name, "optimizer") == 0) {
        *rc = train_parse_optimizer(v, &o->optimizer);
    } else if (strcmp(name, "bwd_factor") == 0) {
        *rc = param_double(fn, name, v, 0, 1000, &d);
        o->bwd_factor = *rc ? o->bwd_factor : d;
    } else if (strcmp(name, "save_all_inputs") == 0) {
        *rc = param_bool(fn, name, v, &o->save_all_inputs);
    } else if (strcmp(name, "micro_batches") == 0) {
        *rc = param_long(fn, name, v, 1, TRAIN_MAX_MICRO_BATCHES, &m);
        o->micro_batches = *rc ? o->micro_batches : (int32_t)m;
    } else if (strcmp(name, "recompute") == 0) {
        *rc = train_parse_recompute(v, &o->recompute);
    } else if (strcmp(name, "schedule") == 0) {
        *rc = pipeline_schedule_parse(v, &o->pipeline.schedule);
    } else if (strcmp(name, "virtual_stages") == 0) {
        *rc = param_long(fn, name, v, 1, PIPELINE_VIRTUAL_STAGES_MAX, &m);
        o->pipeline.virtual_stages = *rc ? o->pipeline.virtual_stages : (int32_t)m;
    } else {
        return 0;
    }
    return 1;
}

static int unknown_param(const char *fn, const char *name, const char *known)
{
    return err_set(BAECHI_EINVAL, "%s: unknown parameter '%s' (%s)", fn, name, known);
}

/* ------------------------------------------------------------ adopting */

int api_workload_adopt(struct workload *w, const char *what, struct baechi_workload **out)
{
    struct baechi_workload *h = NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *f;
    int rc = 0;

    *out = NULL;
    if (!(f = mem_open_memstream(&text, &len))) {
        rc = err_set(BAECHI_ENOMEM, "out of memory");
        goto cleanup;
    }
    rc = workload_write_yaml(w, f);
    if (((ferror(f) | fclose(f)) || !text) && !rc) { /* !text: fclose's realloc failed */
        rc = err_set(BAECHI_ENOMEM, "%s: cannot write its YAML text", what);
    }
    if (rc) {
        goto cleanup;
    }
    if (!(h = mem_calloc(1, sizeof(*h)))) {
        rc = err_set(BAECHI_ENOMEM, "out of memory");
        goto cleanup;
    }
    workload_init(&h->w);
    if ((rc = workload_read_yaml_string(&h->w, text, len, what)) != 0 ||
        (rc = graph_build(&h->g, &h->w)) != 0) {
        goto cleanup;
    }
    *out = h;
    h = NULL;
cleanup:
    baechi_workload_free(h);
    free(text);
    workload_release(w);
    return rc;
}

/* ------------------------------------------------------------ generate */

static const char gen_known[] =
    "batch, seq, size, layers, d_model, heads, ffn, vocab, aux, forward_only, no_groups, device, "
    "optimizer, bwd_factor, save_all_inputs, micro_batches, recompute, schedule, virtual_stages, "
    "elem_bytes, name; "
    "synthetic: shape, "
    "ops, seed, fan_in, width, depth, window, group_size";

/* The synthetic generator's parameters: 1 when `name` is one, else 0. */
static int synth_param(const char *fn, const char *name, const char *v, struct synth_opts *so,
                       int *rc)
{
    static const struct {
        const char *name;
        long hi;
        size_t offset;
    } counts[] = {
        {"fan_in", 1000, offsetof(struct synth_opts, fan_in)},
        {"width", 1000000, offsetof(struct synth_opts, width)},
        {"depth", 1000000, offsetof(struct synth_opts, depth)},
        {"window", 1000000, offsetof(struct synth_opts, window)},
        {"group_size", 1000000, offsetof(struct synth_opts, group_size)},
    };
    long k = 0;

    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
        if (strcmp(name, counts[i].name) == 0) {
            *rc = param_long(fn, name, v, 1, counts[i].hi, &k);
            if (*rc == 0) {
                *(int32_t *)((char *)so + counts[i].offset) = (int32_t)k;
            }
            return 1;
        }
    }
    if (strcmp(name, "shape") == 0) {
        *rc = synth_shape_parse(v, &so->shape);
    } else if (strcmp(name, "ops") == 0) {
        *rc = param_long(fn, name, v, 2, 1000000, &k);
        so->n_ops = *rc ? so->n_ops : (int32_t)k;
    } else if (strcmp(name, "seed") == 0) {
        *rc = param_long(fn, name, v, 0, INT32_MAX, &k);
        so->seed = *rc ? so->seed : (uint64_t)k;
    } else {
        return 0;
    }
    return 1;
}

/* One parameter of a model generator (not synthetic). */
static int gen_param(const char *fn, const char *name, const char *v, struct gen_opts *o)
{
    static const struct {
        const char *name;
        long hi;
        size_t offset;
    } counts[] = {
        {"batch", 1 << 20, offsetof(struct gen_opts, batch)},
        {"seq", 1 << 20, offsetof(struct gen_opts, seq)},
        {"layers", 10000, offsetof(struct gen_opts, layers)},
        {"d_model", 1 << 20, offsetof(struct gen_opts, d_model)},
        {"heads", 1 << 16, offsetof(struct gen_opts, heads)},
        {"ffn", 1 << 22, offsetof(struct gen_opts, ffn)},
        {"vocab", 1 << 24, offsetof(struct gen_opts, vocab)},
        {"elem_bytes", 16, offsetof(struct gen_opts, elem_bytes)},
    };
    bool b;
    int rc;

    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
        if (strcmp(name, counts[i].name) == 0) {
            rc = param_int(fn, name, v, 1, counts[i].hi, (int *)((char *)o + counts[i].offset));
            if (rc == 0 && strcmp(name, "elem_bytes") == 0) {
                o->train.param_elem_bytes = o->elem_bytes; /* as --elem-bytes */
            }
            return rc;
        }
    }
    if (train_param(fn, name, v, &o->train, &rc)) {
        return rc;
    }
    if (strcmp(name, "size") == 0) {
        o->size = v;
    } else if (strcmp(name, "device") == 0) {
        o->device = strcmp(v, "none") == 0 ? NULL : v;
    } else if (strcmp(name, "aux") == 0) {
        return param_bool(fn, name, v, &o->aux);
    } else if (strcmp(name, "forward_only") == 0) {
        return param_bool(fn, name, v, &o->forward_only);
    } else if (strcmp(name, "no_groups") == 0) {
        if ((rc = param_bool(fn, name, v, &b)) == 0) {
            o->groups = !b;
        }
        return rc;
    } else {
        return unknown_param(fn, name, gen_known);
    }
    return 0;
}

int baechi_workload_generate(const char *model, const struct baechi_params *params,
                             struct baechi_workload **out)
{
    static const char fn[] = "baechi_workload_generate";
    struct gen_opts o;
    struct synth_opts so;
    struct workload w;
    const char *name = NULL, *synth_param_name = NULL;
    bool synth;
    int rc = 0;

    *out = NULL;
    if (!model) {
        return err_set(BAECHI_EINVAL, "%s: no model given", fn);
    }
    synth = strcmp(model, "synthetic") == 0;
    gen_opts_init(&o);
    synth_opts_init(&so);
    for (int i = 0; params && i < params->n; i++) {
        const char *k = params->name[i], *v = params->value[i];

        if (strcmp(k, "name") == 0) {
            name = v;
        } else if (synth_param(fn, k, v, &so, &rc)) {
            synth_param_name = synth_param_name ? synth_param_name : k;
        } else if (synth) {
            /* the CLI's rule: a model parameter does not matter to synthetic */
            struct gen_opts ignored;

            gen_opts_init(&ignored);
            rc = gen_param(fn, k, v, &ignored);
        } else {
            rc = gen_param(fn, k, v, &o);
        }
        if (rc) {
            return rc;
        }
    }
    if (!synth && synth_param_name) {
        return err_set(BAECHI_EINVAL,
                       "%s: parameter '%s': shape, ops, seed, fan_in, width, depth, window and "
                       "group_size are for 'synthetic' only",
                       fn, synth_param_name);
    }
    workload_init(&w);
    rc = synth ? gen_synthetic(&w, &so) : gen_model(&w, model, &o, NULL);
    if (rc == 0 && name) {
        rc = workload_set_name(&w, name);
    }
    if (rc) {
        workload_release(&w);
        return rc;
    }
    return api_workload_adopt(&w, model, out);
}

/* ------------------------------------------------------------ import */

int baechi_workload_import_onnx(const char *path, const struct baechi_params *params,
                                struct baechi_workload **out)
{
    static const char fn[] = "baechi_workload_import_onnx";
    struct onnx_import_opts io = {0};
    struct onnx_import_stats st;
    struct train_opts to;
    struct costmodel cm;
    char kind[128];
    struct workload w, tr;
    struct graph g;
    const char *device = "v100";
    enum onnx_loss loss = ONNX_LOSS_DEFAULT;
    bool train = false, loss_set = false;
    long v = 0;
    int rc = 0;

    *out = NULL;
    if (!path) {
        return err_set(BAECHI_EINVAL, "%s: no ONNX model path given", fn);
    }
    train_opts_init(&to);
    for (int i = 0; params && i < params->n && rc == 0; i++) {
        const char *k = params->name[i], *s = params->value[i];

        if (train_param(fn, k, s, &to, &rc)) {
            continue;
        }
        if (strcmp(k, "train") == 0) {
            rc = param_bool(fn, k, s, &train);
        } else if (strcmp(k, "batch") == 0) {
            rc = param_long(fn, k, s, 1, 1 << 20, &v);
            io.batch = rc ? 0 : v;
        } else if (strcmp(k, "device") == 0) {
            device = strcmp(s, "none") == 0 ? NULL : s;
        } else if (strcmp(k, "loss") == 0) {
            if (onnx_parse_loss(s, &loss)) {
                rc = err_set(BAECHI_EINVAL,
                             "%s: loss: unknown loss '%s' (known: cross-entropy, "
                             "mse, none)",
                             fn, s);
            }
            loss_set = true;
        } else {
            rc = unknown_param(fn, k,
                               "train, batch, device, loss, optimizer, bwd_factor, "
                               "save_all_inputs, micro_batches, recompute, schedule, "
                               "virtual_stages");
        }
    }
    if (rc == 0 && loss_set && !train) {
        rc = err_set(BAECHI_EINVAL, "%s: loss is about the training graph: add train=true", fn);
    }
    io.loss = train ? loss : ONNX_LOSS_NONE;
    if (rc || (device && (rc = costmodel_from_spec(&cm, device, kind, sizeof(kind))) != 0)) {
        return rc;
    }
    if ((rc = onnx_import(&w, path, &io, &st)) != 0) {
        return rc;
    }
    if (train) {
        if ((rc = train_synthesize(&tr, &w, &to, NULL)) != 0) {
            workload_release(&w);
            return rc;
        }
        workload_release(&w);
        w = tr;
    }
    if (device && (rc = costmodel_apply(&cm, &w, 0, NULL)) != 0) {
        workload_release(&w);
        return rc;
    }
    {
        /* the program's name for it (workloads/gen.h, gen_import_name) */
        char wname[512];

        gen_import_name(wname, sizeof(wname), w.name, io.batch, train ? &to : NULL,
                        device ? cm.kind : NULL, !device);
        if (train) {
            onnx_loss_name_suffix(wname, sizeof(wname), &st);
        }
        if ((rc = workload_set_name(&w, wname)) != 0) {
            workload_release(&w);
            return rc;
        }
    }
    /* the CLI's check and message (cli/workload_import.c) */
    if ((rc = graph_build(&g, &w)) != 0) {
        char why[1024];

        snprintf(why, sizeof(why), "%s", err_msg());
        workload_release(&w);
        return err_set(BAECHI_EPARSE, "%s: the imported model is not a usable workload: %s", path,
                       why);
    }
    graph_release(&g);
    return api_workload_adopt(&w, path, out);
}

/* ------------------------------------------------------------ train */

int baechi_workload_train(const struct baechi_workload *fwd, const struct baechi_params *params,
                          struct baechi_workload **out)
{
    static const char fn[] = "baechi_workload_train";
    struct train_opts to;
    struct costmodel cm;
    char kind[128];
    struct workload tr;
    const char *device = NULL;
    bool no_device = false, override = false;
    int rc = 0;

    *out = NULL;
    train_opts_init(&to);
    for (int i = 0; params && i < params->n && rc == 0; i++) {
        const char *k = params->name[i], *s = params->value[i];

        if (train_param(fn, k, s, &to, &rc)) {
            continue;
        }
        if (strcmp(k, "device") == 0) {
            no_device = strcmp(s, "none") == 0;
            device = no_device ? NULL : s;
        } else if (strcmp(k, "override") == 0) {
            rc = param_bool(fn, k, s, &override);
        } else {
            rc = unknown_param(fn, k,
                               "device, override, optimizer, bwd_factor, save_all_inputs, "
                               "micro_batches, recompute, schedule, virtual_stages");
        }
    }
    if (rc || (device && (rc = costmodel_from_spec(&cm, device, kind, sizeof(kind))) != 0)) {
        return rc;
    }
    /* the CLI's default: the workload's reference device when a preset */
    if (!device && !no_device) {
        if (!fwd->w.reference_device || costmodel_preset(&cm, fwd->w.reference_device)) {
            costmodel_preset(&cm, "v100");
        }
        err_clear();
    }
    if ((rc = train_synthesize(&tr, &fwd->w, &to, NULL)) != 0 ||
        (!no_device && (rc = costmodel_apply(&cm, &tr, override ? COSTMODEL_OVERRIDE : 0, NULL)))) {
        workload_release(&tr);
        return rc;
    }
    return api_workload_adopt(&tr, fwd->w.name, out);
}

/* ------------------------------------------------------------ parallelize */

int baechi_workload_parallelize(const struct baechi_workload *train,
                                const struct baechi_params *params, struct baechi_workload **out)
{
    static const char fn[] = "baechi_workload_parallelize";
    static const char *const names[] = {
        "dp", "tp", "pp", "zero", "bucket_mb", "mixed_precision", "pp_balance", NULL};
    struct gen_spec spec;
    struct workload w;
    int rc;

    *out = NULL;
    gen_spec_init(&spec, GEN_SOURCE_MODEL, "gpt");
    for (int i = 0; params && i < params->n; i++) {
        const char *k = params->name[i], *why;
        int j = 0;

        while (names[j] && strcmp(names[j], k) != 0) {
            j++;
        }
        if (!names[j]) {
            return unknown_param(fn, k, "dp, tp, pp, zero, bucket_mb, mixed_precision, pp_balance");
        }
        /* the command's bounds (gen_params.c) */
        if ((why = gen_spec_set(&spec, k, params->value[i]))) {
            return err_set(BAECHI_EINVAL, "%s: %s", fn, why);
        }
    }
    if ((rc = parallel_apply(&w, &train->w, &spec.par))) {
        return rc;
    }
    return api_workload_adopt(&w, train->w.name, out);
}
