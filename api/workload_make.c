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
#include "core/strbuf.h"
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

/* Parameter name = value into spec by the one table (workloads/gen_params.c:
 * its bounds, its rules); 0 or BAECHI_EINVAL naming the function. */
static int spec_set(const char *fn, struct gen_spec *spec, const char *name, const char *value)
{
    return gen_spec_set(spec, name, value) ? err_wrap(BAECHI_EINVAL, "%s", fn) : 0;
}

static int param_bool(const char *fn, const char *name, const char *s, bool *out)
{
    if (yio_parse_bool(s, out) == 0) { /* YAML's booleans, as files and sweeps */
        return 0;
    }
    return err_set(BAECHI_EINVAL, "%s: parameter '%s': '%s' is not a boolean (true or false)", fn,
                   name, s);
}

static int unknown_param(const char *fn, const char *name, const char *known)
{
    return err_set(BAECHI_EINVAL, "%s: unknown parameter '%s' (%s)", fn, name, known);
}

const char *baechi_params_table(void)
{
    static const char *const types[] = {"int", "number", "flag", "word"};
    static _Thread_local char buf[8192];
    size_t n = 0;

    for (const struct gen_param *p = gen_params(); p->name && n < sizeof(buf); p++) {
        bool num = p->type == GEN_PARAM_INT || p->type == GEN_PARAM_NUMBER;
        char name[64];

        for (size_t i = 0; i < sizeof(name); i++) {
            name[i] = p->name[i] == '-' ? '_' : p->name[i];
            if (!name[i]) {
                break;
            }
        }
        name[sizeof(name) - 1] = '\0';
        if (num) {
            n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s\t%s\t%s%.17g\t%.17g\t", name,
                                  types[p->type], p->uses & GEN_PARAM_MIN_OPEN ? ">" : "", p->min,
                                  p->max);
        } else {
            n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s\t%s\t-\t-\t", name, types[p->type]);
        }
        if (n < sizeof(buf)) {
            n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s\t%s%s%s%s%s\n", p->def,
                                  p->uses & GEN_FOR_MODEL ? "generate," : "",
                                  p->uses & GEN_FOR_SYNTH ? "synthetic," : "",
                                  p->uses & GEN_FOR_IMPORT ? "import_onnx," : "",
                                  p->uses & GEN_PARAM_SYNTHESIS ? "train," : "",
                                  p->uses & GEN_PARAM_PARALLEL ? "parallelize," : "");
        }
    }
    return buf;
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

int baechi_workload_generate(const char *model, const struct baechi_params *params,
                             struct baechi_workload **out)
{
    static const char fn[] = "baechi_workload_generate";
    struct gen_spec spec;
    struct workload w;
    int rc = 0;

    *out = NULL;
    if (!model) {
        return err_set(BAECHI_EINVAL, "%s: no model given", fn);
    }
    gen_spec_init(&spec, strcmp(model, "synthetic") == 0 ? GEN_SOURCE_SYNTHETIC : GEN_SOURCE_MODEL,
                  model);
    for (int i = 0; params && i < params->n && rc == 0; i++) {
        rc = spec_set(fn, &spec, params->name[i], params->value[i]);
    }
    if (rc || (rc = gen_spec_build(&spec, &w))) {
        return rc;
    }
    return api_workload_adopt(&w, model, out);
}

/* ------------------------------------------------------------ import */

/* The parallelism parameters of an import, as a sweep's import:...?dp=2:
 * the step over the devices, or the precision options on one. */
static int parallelize_in_place(struct workload *w, const struct parallel_opts *par)
{
    struct workload pw;
    int rc;

    if (!parallel_opts_active(par)) {
        if ((rc = parallel_precision_apply(w, par))) {
            workload_release(w);
        }
        return rc;
    }
    rc = parallel_apply(&pw, w, par);
    workload_release(w);
    if (!rc) {
        *w = pw;
    }
    return rc;
}

/* baechi_workload_import_onnx() with kind, the text of a cluster's device
 * kind (cm.kind), the caller's to release. */
static int import_onnx(const char *path, const struct baechi_params *params,
                       struct baechi_workload **out, struct strbuf *kind)
{
    static const char fn[] = "baechi_workload_import_onnx";
    struct onnx_import_opts io = {0};
    struct onnx_import_stats st;
    struct train_opts to;
    struct costmodel cm;
    struct workload w, tr;
    struct graph g;
    const char *device = "v100";
    enum onnx_loss loss = ONNX_LOSS_DEFAULT;
    struct gen_spec spec;
    bool train = false, loss_set = false;
    int rc = 0;

    *out = NULL;
    if (!path) {
        return err_set(BAECHI_EINVAL, "%s: no ONNX model path given", fn);
    }
    gen_spec_init(&spec, GEN_SOURCE_IMPORT, path);
    for (int i = 0; params && i < params->n && rc == 0; i++) {
        loss_set |= strcmp(params->name[i], "loss") == 0;
        rc = spec_set(fn, &spec, params->name[i], params->value[i]);
    }
    train = spec.train;
    to = spec.gen.train;
    device = spec.device;
    loss = spec.import.loss;
    io.batch = spec.import.batch;
    if (rc == 0 && loss_set && !train) {
        rc = err_set(BAECHI_EINVAL, "%s: loss is about the training graph: add train=true", fn);
    }
    if (rc == 0 && !train && spec.training) {
        rc = err_set(BAECHI_EINVAL, "%s: %s is about the training graph: add train=true", fn,
                     spec.training);
    }
    io.loss = train ? loss : ONNX_LOSS_NONE;
    if (rc || (device && (rc = costmodel_from_spec(&cm, device, kind)) != 0)) {
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
    if ((rc = parallelize_in_place(&w, &spec.par))) {
        return rc;
    }
    {
        /* the program's name for it (workloads/gen.h, gen_import_name) */
        struct strbuf wname = STRBUF_INIT; /* whole at any length (a char[512] cut it) */

        if ((rc = gen_import_name(&wname, w.name, io.batch, train ? &to : NULL,
                                  device ? cm.kind : NULL, !device)) == 0 &&
            train) {
            rc = onnx_loss_name_suffix(&wname, &st);
        }
        rc = rc ? rc : workload_set_name(&w, spec.name ? spec.name : wname.buf);
        strbuf_release(&wname);
        if (rc) {
            workload_release(&w);
            return rc;
        }
    }
    /* the CLI's check and message (cli/workload_import.c) */
    if ((rc = graph_build(&g, &w)) != 0) {
        workload_release(&w);
        if (rc == BAECHI_ENOMEM) {
            return rc;
        }
        /* the graph's message, whole, behind the reason (a char[1024] copy cut it) */
        return err_wrap(BAECHI_EPARSE, "%s: the imported model is not a usable workload", path);
    }
    graph_release(&g);
    return api_workload_adopt(&w, path, out);
}

int baechi_workload_import_onnx(const char *path, const struct baechi_params *params,
                                struct baechi_workload **out)
{
    struct strbuf kind = STRBUF_INIT; /* whole at any length (a char[128] cut it) */
    int rc = import_onnx(path, params, out, &kind);

    strbuf_release(&kind);
    return rc;
}

/* ------------------------------------------------------------ train */

/* baechi_workload_train() with kind, the text of a cluster's device kind
 * (cm.kind), the caller's to release. */
static int train_workload(const struct baechi_workload *fwd, const struct baechi_params *params,
                          struct baechi_workload **out, struct strbuf *kind)
{
    static const char fn[] = "baechi_workload_train";
    struct train_opts to;
    struct costmodel cm;
    struct workload tr;
    const char *device = NULL;
    bool no_device = false, override = false;
    struct gen_spec spec;
    int rc = 0;

    *out = NULL;
    gen_spec_init(&spec, GEN_SOURCE_MODEL, "gpt");
    for (int i = 0; params && i < params->n && rc == 0; i++) {
        const char *k = params->name[i], *s = params->value[i];

        const struct gen_param *row = gen_param_find(k);

        if (strcmp(k, "device") == 0) {
            no_device = strcmp(s, "none") == 0;
            device = no_device ? NULL : s;
        } else if (strcmp(k, "override") == 0) {
            rc = param_bool(fn, k, s, &override);
        } else if (row && (row->uses & GEN_PARAM_SYNTHESIS)) {
            rc = spec_set(fn, &spec, k, s); /* the one table's bounds */
        } else {
            rc = unknown_param(fn, k,
                               "device, override, optimizer, bwd_factor, save_all_inputs, "
                               "micro_batches, recompute, schedule, virtual_stages");
        }
    }
    to = spec.gen.train;
    if (rc || (device && (rc = costmodel_from_spec(&cm, device, kind)) != 0)) {
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

int baechi_workload_train(const struct baechi_workload *fwd, const struct baechi_params *params,
                          struct baechi_workload **out)
{
    struct strbuf kind = STRBUF_INIT; /* whole at any length (a char[128] cut it) */
    int rc = train_workload(fwd, params, out, &kind);

    strbuf_release(&kind);
    return rc;
}

/* ------------------------------------------------------------ parallelize */

int baechi_workload_parallelize(const struct baechi_workload *train,
                                const struct baechi_params *params, struct baechi_workload **out)
{
    static const char fn[] = "baechi_workload_parallelize";
    struct gen_spec spec;
    struct workload w;
    int rc;

    *out = NULL;
    gen_spec_init(&spec, GEN_SOURCE_MODEL, "gpt");
    for (int i = 0; params && i < params->n; i++) {
        const char *k = params->name[i];
        const struct gen_param *row = gen_param_find(k);

        if (!row || !(row->uses & GEN_PARAM_PARALLEL)) {
            return unknown_param(fn, k,
                                 "dp, tp, pp, zero, bucket_mb, mixed_precision, pp_balance, sp, "
                                 "fp32_main_grads");
        }
        /* the command's bounds (gen_params.c) */
        if ((rc = spec_set(fn, &spec, k, params->value[i]))) {
            return rc;
        }
    }
    if ((rc = parallel_apply(&w, &train->w, &spec.par))) {
        return rc;
    }
    return api_workload_adopt(&w, train->w.name, out);
}
