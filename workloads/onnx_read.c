/*
 * onnx_read.c - the ONNX importer's reading pass (onnx_import_internal.h):
 * the model's checks (op types, UTF-8 names), value_info and the graph
 * outputs by name, the initializers and their readers, the graph inputs
 * (Placeholder ops) and the batch scale.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/onnx_import_internal.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"
#include "core/strbuf.h"
#include "core/strmap.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* protobuf-c's allocator, malloc and free, noting whether malloc failed. */
static void *ox_pb_alloc(void *data, size_t size)
{
    void *p = mem_alloc(size);

    if (!p && size > 0) {
        *(bool *)data = true;
    }
    return p;
}

static void ox_pb_free(void *data, void *p)
{
    (void)data;
    free(p);
}

int ox_unpack_model(const char *name, const uint8_t *data, size_t len, Onnx__ModelProto **m)
{
    bool failed = false;
    ProtobufCAllocator a = {ox_pb_alloc, ox_pb_free, &failed};

    *m = onnx__model_proto__unpack(&a, len, data);
    if (*m) {
        return 0;
    }
    if (failed) {
        return err_set(BAECHI_ENOMEM, "%s: out of memory reading the ONNX model", name);
    }
    return err_set(BAECHI_EPARSE, "%s: not a valid ONNX model (the protobuf does not parse)", name);
}

/*
 * Offset of the first byte of s that is not part of a well-formed UTF-8
 * sequence (RFC 3629: no overlong forms, no surrogates, at most U+10FFFF),
 * or -1 when s is valid.
 */
long ox_utf8_bad_offset(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;

    for (long i = 0; p[i];) {
        unsigned c = p[i];
        int n = c < 0x80                 ? 0
                : c >= 0xc2 && c <= 0xdf ? 1
                : c >= 0xe0 && c <= 0xef ? 2
                : c >= 0xf0 && c <= 0xf4 ? 3
                                         : -1;
        unsigned lo = 0x80, hi = 0xbf;

        if (n < 0) {
            return i;
        }
        if (c == 0xe0) {
            lo = 0xa0;
        } else if (c == 0xed) {
            hi = 0x9f;
        } else if (c == 0xf0) {
            lo = 0x90;
        } else if (c == 0xf4) {
            hi = 0x8f;
        }
        for (int k = 1; k <= n; k++) {
            if (p[i + k] < (k == 1 ? lo : 0x80) || p[i + k] > (k == 1 ? hi : 0xbf)) {
                return i;
            }
        }
        i += n + 1;
    }
    return -1;
}

static int check_utf8(const char *file, const char *s, const char *what, size_t idx,
                      const char *field)
{
    long off = s ? ox_utf8_bad_offset(s) : -1;

    if (off < 0) {
        return 0;
    }
    return err_set(BAECHI_EPARSE, "%s: %s %zu: %s is not valid UTF-8 (byte 0x%02x at offset %ld)",
                   file, what, idx, field, (unsigned char)s[off], off);
}

/*
 * Before anything else reads the model: every node has an op_type, and every
 * string that can reach the workload or a message is valid UTF-8 (the YAML
 * writer refuses anything else, and a name with invalid bytes cannot be told
 * apart from another in a message).
 */
int ox_check_model(const char *file, const Onnx__ModelProto *m)
{
    const Onnx__GraphProto *g = m->graph;
    int rc;

    if ((rc = check_utf8(file, m->producer_name, "model", 0, "producer_name")) ||
        (rc = check_utf8(file, m->producer_version, "model", 0, "producer_version"))) {
        return rc;
    }
    for (size_t i = 0; i < g->n_node; i++) {
        const Onnx__NodeProto *nd = g->node[i];

        if ((rc = check_utf8(file, nd->name, "node", i, "name")) ||
            (rc = check_utf8(file, nd->op_type, "node", i, "op_type"))) {
            return rc;
        }
        if (!nd->op_type || !nd->op_type[0]) {
            return err_set(BAECHI_EPARSE, "%s: node %zu%s%s%s has no op_type", file, i,
                           nd->name ? " ('" : "", nd->name ? nd->name : "", nd->name ? "')" : "");
        }
        for (size_t k = 0; k < nd->n_input; k++) {
            if ((rc = check_utf8(file, nd->input[k], "node", i, "an input name"))) {
                return rc;
            }
        }
        for (size_t k = 0; k < nd->n_output; k++) {
            if ((rc = check_utf8(file, nd->output[k], "node", i, "an output name"))) {
                return rc;
            }
        }
    }
    for (size_t i = 0; i < g->n_initializer; i++) {
        if ((rc = check_utf8(file, g->initializer[i]->name, "initializer", i, "name"))) {
            return rc;
        }
    }
    for (size_t i = 0; i < g->n_input; i++) {
        if ((rc = check_utf8(file, g->input[i]->name, "graph input", i, "name"))) {
            return rc;
        }
    }
    for (size_t i = 0; i < g->n_output; i++) {
        if ((rc = check_utf8(file, g->output[i]->name, "graph output", i, "name"))) {
            return rc;
        }
    }
    for (size_t i = 0; i < g->n_value_info; i++) {
        if ((rc = check_utf8(file, g->value_info[i]->name, "value_info", i, "name"))) {
            return rc;
        }
    }
    return 0;
}

static int shape_from_dims(struct ox *x, struct ox_tensor *t, size_t n, const int64_t *dims,
                           const char *what)
{
    if (n > OX_MAX_RANK) {
        return err_set(BAECHI_EPARSE, "%s: %s '%s' has rank %zu (at most %d supported)", x->file,
                       what, t->name, n, OX_MAX_RANK);
    }
    for (size_t i = 0; i < n; i++) {
        t->dim[i] = dims[i];
    }
    t->rank = (int)n;
    return onnx_check_shape(t, x->file, what);
}

bool ox_vi_shape(const Onnx__ValueInfoProto *vi, struct ox_tensor *t)
{
    const Onnx__TypeProto__Tensor *tt;

    if (!vi || !vi->type || vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
        !(tt = vi->type->tensor_type) || !tt->shape || tt->shape->n_dim > OX_MAX_RANK) {
        return false;
    }
    for (size_t i = 0; i < tt->shape->n_dim; i++) {
        const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];

        if (d->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE ||
            d->dim_value < 0) {
            return false;
        }
    }
    t->rank = (int)tt->shape->n_dim;
    for (size_t i = 0; i < tt->shape->n_dim; i++) {
        t->dim[i] = tt->shape->dim[i]->dim_value;
    }
    if (tt->has_elem_type) {
        t->elem = onnx_elem_size(tt->elem_type);
    }
    return true;
}

static bool is_float_type(int32_t t)
{
    return t == 1 || t == 10 || t == 11 || t == 16;
}

/* x->in, x->out for the node with the most inputs and outputs; x->gsum. */
static int alloc_scratch(struct ox *x)
{
    const Onnx__GraphProto *g = x->g;
    size_t max_in = 1, max_out = 1;

    for (size_t i = 0; i < g->n_node; i++) {
        if (g->node[i]->n_input > max_in) {
            max_in = g->node[i]->n_input;
        }
        if (g->node[i]->n_output > max_out) {
            max_out = g->node[i]->n_output;
        }
    }
    x->in = mem_calloc(max_in, sizeof(*x->in));
    x->out = mem_calloc(max_out, sizeof(*x->out));
    x->gsum = mem_calloc(g->n_node / 2 + 1, sizeof(*x->gsum));
    if (!x->in || !x->out || !x->gsum) {
        return BAECHI_ENOMEM;
    }
    return 0;
}

/* value_info and graph outputs, by name */
static int read_value_info(struct ox *x)
{
    const Onnx__GraphProto *g = x->g;
    int rc;

    for (size_t i = 0; i < g->n_value_info + g->n_output; i++) {
        const Onnx__ValueInfoProto *vi =
            i < g->n_value_info ? g->value_info[i] : g->output[i - g->n_value_info];
        const char *nm;
        int32_t old;

        if (!vi->name) {
            continue;
        }
        if (!(nm = strpool_add(&x->vi_pool, vi->name, strlen(vi->name)))) {
            return BAECHI_ENOMEM;
        }
        if ((rc = strmap_put(&x->vi_map, nm, (int32_t)i, &old))) {
            return rc;
        }
    }
    return 0;
}

/* initializers, then their readers; BatchNormalization statistics are not trainable */
static int read_initializers(struct ox *x)
{
    const Onnx__GraphProto *g = x->g;
    int rc;

    for (size_t i = 0; i < g->n_initializer; i++) {
        const Onnx__TensorProto *tp = g->initializer[i];
        int32_t id;

        if (!tp->name || ox_find(x, tp->name) >= 0) {
            return err_set(BAECHI_EPARSE, "%s: initializer %zu: %s", x->file, i,
                           tp->name ? "duplicate name" : "no name");
        }
        if ((rc = ox_add_tensor(x, tp->name, &id))) {
            return rc;
        }
        x->t[id].elem = onnx_elem_size(tp->data_type);
        if ((rc = shape_from_dims(x, &x->t[id], tp->n_dims, tp->dims, "initializer"))) {
            return rc;
        }
        x->t[id].trainable = is_float_type(tp->data_type) && onnx_elems(&x->t[id]) > 1;
        onnx_tensor_values(&x->t[id], tp);
    }
    for (size_t i = 0; i < g->n_node; i++) {
        const Onnx__NodeProto *nd = g->node[i];

        for (size_t k = 0; k < nd->n_input; k++) {
            int32_t id = nd->input[k][0] ? ox_find(x, nd->input[k]) : -1;

            if (id >= 0) {
                x->t[id].n_cons++;
                if (k >= 3 && strcmp(nd->op_type, "BatchNormalization") == 0) {
                    x->t[id].trainable = false;
                }
            }
        }
    }
    return 0;
}

/*
 * Graph inputs that are not initializers: Placeholder ops, their outputs
 * sized once the batch scale is known.  The scale is batch / B0, B0 the
 * first graph input's leading dimension.
 */
static int read_graph_inputs(struct ox *x)
{
    const Onnx__GraphProto *g = x->g;
    struct strbuf name = STRBUF_INIT;
    double b0 = 1;
    bool have_b0 = false;
    int rc = 0;

    for (size_t i = 0; i < g->n_input; i++) {
        const Onnx__ValueInfoProto *vi = g->input[i];
        const Onnx__TypeProto__Tensor *tt;
        int32_t id, op;

        if (!vi->name || ox_find(x, vi->name) >= 0) {
            continue;
        }
        if ((rc = ox_add_tensor(x, vi->name, &id))) {
            goto cleanup;
        }
        x->t[id].act = true;
        x->t[id].rank = 0;
        if (vi->type && vi->type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE &&
            (tt = vi->type->tensor_type)) {
            x->t[id].elem = tt->has_elem_type ? onnx_elem_size(tt->elem_type) : 4;
            if (tt->shape && tt->shape->n_dim <= OX_MAX_RANK) {
                x->t[id].rank = (int)tt->shape->n_dim;
                for (size_t d = 0; d < tt->shape->n_dim; d++) {
                    const Onnx__TensorShapeProto__Dimension *dm = tt->shape->dim[d];
                    bool val =
                        dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;

                    x->t[id].dim[d] = val && dm->dim_value > 0 ? dm->dim_value : 1;
                }
                if ((rc = onnx_check_shape(&x->t[id], x->file, "graph input"))) {
                    goto cleanup;
                }
                if (!have_b0 && x->t[id].rank > 0) {
                    b0 = (double)x->t[id].dim[0];
                    have_b0 = true;
                }
            }
        }
        /* the output right after its op: workload_add_output appends to
         * the last op (sized below, once the batch scale is known) */
        if ((rc = op_names_unique(&x->names, x->w, vi->name, &name)) ||
            (rc = workload_add_op(x->w, name.buf, "Placeholder", &op)) ||
            (rc = workload_add_output(x->w, 0))) {
            goto cleanup;
        }
        x->w->op[op].flops = 0;
        x->t[id].op = op;
        x->t[id].port = 0;
    }
    x->scale = x->batch > 0 && b0 > 0 ? (double)x->batch / b0 : 1.0;
    for (size_t i = 0; i < x->n_t; i++) {
        if (x->t[i].op >= 0) {
            x->w->out_bytes[x->w->op[x->t[i].op].out_off] = ox_tensor_bytes(x, &x->t[i]);
        }
    }
cleanup:
    strbuf_release(&name);
    return rc;
}

int ox_read_graph(struct ox *x)
{
    int rc;

    if ((rc = alloc_scratch(x)) || (rc = read_value_info(x)) || (rc = read_initializers(x)) ||
        (rc = read_graph_inputs(x))) {
        return rc;
    }
    return 0;
}
