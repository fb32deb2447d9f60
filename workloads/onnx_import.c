/*
 * onnx_import.c - ONNX model -> workload (see onnx_import.h), with protobuf-c
 * code generated from Debian libonnx-dev's onnx.proto (mk/workloads.mk):
 * the entry points, the tensor table, op names, and import_graph(), which
 * runs the passes of onnx_read.c, onnx_fold.c and onnx_emit.c
 * (onnx_import_internal.h).  The per-operator shape inference and FLOP
 * counts are in onnx_shape*.c.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/onnx_import.h"

#include "workloads/onnx_depth.h"
#include "workloads/onnx_import_internal.h"
#include "workloads/onnx_shape.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/checked.h"
#include "core/err.h"
#include "core/strbuf.h"
#include "core/strmap.h"
#include "onnx.pb-c.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t ox_tensor_bytes(const struct ox *x, const struct ox_tensor *t)
{
    double b = (double)onnx_elems(t) * t->elem;

    /* at most 2^42 bytes (onnx_check_shape) x the batch scale: saturated
     * all the same for a library caller's batch beyond the CLI's 2^20 */
    return sat_i64_from_double(round(t->act ? b * x->scale : b));
}

int32_t ox_find(const struct ox *x, const char *name)
{
    return strmap_get(&x->by_name, name, strlen(name));
}

int ox_add_tensor(struct ox *x, const char *name, int32_t *idx)
{
    struct ox_tensor *t;
    const char *nm;
    int32_t old;
    int rc;

    if (ARRAY_RESERVE(x->t, x->alloc_t, x->n_t + 1)) {
        return BAECHI_ENOMEM;
    }
    if (!(nm = strpool_add(&x->pool, name, strlen(name)))) {
        return BAECHI_ENOMEM;
    }
    if ((rc = strmap_put(&x->by_name, nm, (int32_t)x->n_t, &old))) {
        return rc;
    }
    t = &x->t[x->n_t];
    memset(t, 0, sizeof(*t));
    t->name = nm;
    t->op = -1;
    t->rank = -1;
    t->elem = 4;
    *idx = (int32_t)x->n_t++;
    return 0;
}

/*
 * The graph's passes, in order: reading (tensors, Placeholder ops, the
 * batch scale), folding (the dataflow, patterns, parameter views), then
 * emitting (the initializers' ops, and each node in graph order).
 */
static int import_graph(struct ox *x, const Onnx__GraphProto *g)
{
    int rc = 0;

    x->g = g;
    memset(&x->gx, 0, sizeof(x->gx));
    strmap_init(&x->gx.id);
    strmap_init(&x->vi_map);
    strpool_init(&x->vi_pool);
    if ((rc = ox_read_graph(x))) {
        goto cleanup;
    }
    /* the dataflow by value, the patterns and the transposed parameters */
    if ((rc = gx_build(&x->gx, g))) {
        goto cleanup;
    }
    gx_find_patterns(&x->gx, g, x);
    if ((rc = ox_emit_initializers(x))) {
        goto cleanup;
    }
    /* nodes, in graph (topological) order */
    for (size_t i = 0; i < g->n_node; i++) {
        if ((rc = ox_import_node(x, i))) {
            goto cleanup;
        }
    }
    /* the loss, while the graph's outputs are known by name */
    if ((rc = ox_add_loss(x, x->loss))) {
        goto cleanup;
    }
cleanup:
    free(x->in);
    free(x->out);
    free(x->gsum);
    gx_release(&x->gx);
    strmap_release(&x->vi_map);
    strpool_release(&x->vi_pool);
    x->in = NULL;
    x->out = NULL;
    x->gsum = NULL;
    return rc;
}

int onnx_import_buffer(struct workload *w, const uint8_t *data, size_t len, const char *name,
                       const struct onnx_import_opts *o, struct onnx_import_stats *stats)
{
    Onnx__ModelProto *m = NULL;
    struct ox x;
    struct strbuf desc = STRBUF_INIT;
    char wname[256];
    const char *base;
    bool path_ok;
    size_t stem;
    int rc;

    workload_init(w);
    memset(&x, 0, sizeof(x));
    x.file = name;
    x.w = w;
    x.batch = o ? o->batch : 0;
    x.loss = o ? o->loss : ONNX_LOSS_NONE;
    x.scale = 1.0;
    strpool_init(&x.pool);
    strmap_init(&x.by_name);
    op_names_init(&x.names);
    /* protobuf-c unpacks nested messages by recursion: bound the nesting
     * first (onnx_depth.h), so that no file can run the stack out */
    if ((rc = onnx_check_depth(data, len, name, NULL)) ||
        (rc = ox_unpack_model(name, data, len, &m))) {
        goto cleanup;
    }
    if (!m->graph || m->graph->n_node == 0) {
        rc = err_set(BAECHI_EPARSE, "%s: the ONNX model has no graph or no nodes", name);
        goto cleanup;
    }
    if ((rc = ox_check_model(name, m)) || (rc = import_graph(&x, m->graph))) {
        goto cleanup;
    }
    base = strrchr(name, '/');
    base = base ? base + 1 : name;
    /* a path that is not UTF-8 names nothing in the YAML (the one place
     * it reaches are messages) */
    path_ok = ox_utf8_bad_offset(name) < 0;
    stem = strcspn(base, ".");
    snprintf(wname, sizeof(wname), "%.*s", op_names_utf8_prefix(base, stem < 255 ? stem : 255),
             base);
    if ((rc = workload_set_name(w, wname[0] && path_ok ? wname : "onnx"))) {
        goto cleanup;
    }
    {
        const char *pn = m->producer_name ? m->producer_name : "?";
        const char *pv = m->producer_version ? m->producer_version : "";

        /* the producer's name and version cut (at a character) to 128 and
         * 64 bytes: a description, not a place for a whole file's text */
        if ((rc = strbuf_addf(&desc,
                              "imported from ONNX (%.*s %.*s, IR %lld): %d nodes, %lld parameters",
                              op_names_utf8_prefix(pn, 128), pn, op_names_utf8_prefix(pv, 64), pv,
                              (long long)m->ir_version, x.st.n_nodes, (long long)x.st.params))) {
            goto cleanup;
        }
        if (!(w->description = strbuf_detach(&desc, NULL)) ||
            (path_ok && !(w->source = mem_strdup(name)))) {
            rc = BAECHI_ENOMEM;
            goto cleanup;
        }
    }
    rc = workload_check(w);
    if (rc == 0 && stats) {
        *stats = x.st;
    }
cleanup:
    if (m) {
        onnx__model_proto__free_unpacked(m, NULL);
    }
    free(x.t);
    strpool_release(&x.pool);
    strmap_release(&x.by_name);
    op_names_release(&x.names);
    strbuf_release(&desc);
    if (rc) {
        workload_release(w);
    }
    return rc;
}

int onnx_import(struct workload *w, const char *path, const struct onnx_import_opts *o,
                struct onnx_import_stats *stats)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0, n;
    int rc;

    workload_init(w);
    if (!f) {
        if (errno == ENOMEM) {
            return err_set(BAECHI_ENOMEM, "%s: out of memory opening the file", path);
        }
        return err_set(BAECHI_EIO, "%s: cannot open: %s", path, strerror(errno));
    }
    for (;;) {
        if (len == cap) {
            uint8_t *nb;

            cap = cap ? 2 * cap : 1 << 16;
            if (!(nb = mem_realloc(buf, cap))) {
                free(buf);
                fclose(f);
                return err_set(BAECHI_ENOMEM, "%s: out of memory reading the model", path);
            }
            buf = nb;
        }
        n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0) {
            break;
        }
    }
    if (ferror(f)) {
        free(buf);
        fclose(f);
        return err_set(BAECHI_EIO, "%s: read error", path);
    }
    fclose(f);
    rc = onnx_import_buffer(w, buf, len, path, o, stats);
    free(buf);
    return rc;
}
