/*
 * onnx_import_internal.h - the ONNX importer's state and its three passes
 * over a graph, private to the importer's files:
 *   onnx_import.c  the entry points, the tensor table, and
 *                  import_graph(), which runs the passes in order;
 *   onnx_read.c    reading: model checks, value_info, initializers, graph
 *                  inputs (Placeholder ops) and the batch scale;
 *   onnx_fold.c    folding: the dataflow by value, the recognised patterns,
 *                  the parameter views and which nodes fold;
 *   onnx_emit.c    emitting: the initializers' ops and one op per node
 *                  (shape inference, value_info, inputs, outputs, FLOPs);
 *   onnx_loss.c    the loss of a training graph, after the model's output.
 * The shape inference itself is onnx_shape.h's.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_WORKLOADS_ONNX_IMPORT_INTERNAL_H
#define BAECHI_WORKLOADS_ONNX_IMPORT_INTERNAL_H

#include "workloads/onnx_import.h"
#include "workloads/onnx_shape.h"
#include "workloads/op_names.h"

#include "core/strmap.h"
#include "core/workload.h"
#include "onnx.pb-c.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GRP_MAX 16 /* nodes of one pattern */
#define RGN_MAX 48 /* nodes searched from one value */

/* A recognised pattern: nodes node[0..n) (graph order) costed as one op. */
struct grp {
    const char *type;
    int32_t n;
    int32_t node[GRP_MAX];
};

/*
 * The graph's dataflow by value (a tensor name), for folding and for the
 * patterns (onnx_fold.c): producer node, readers, whether it depends on a
 * graph input (act: data; else a constant, a parameter or shape arithmetic
 * on constants).
 */
struct gx {
    struct strmap id; /* value name -> value index (keys live in the model) */
    int32_t n_val;
    int32_t *prod;   /* node producing the value, -1 for inputs and initializers */
    int32_t *uses;   /* input slots reading it, + 1 when it is a graph output */
    bool *act;       /* depends on a graph input */
    int32_t *cstart; /* readers of value v: cons[cstart[v] .. cstart[v + 1]) (nodes) */
    int32_t *cons;
    int32_t *grp;  /* per node: its pattern group, -1 when none */
    bool *pview;   /* per node: a Transpose of a parameter read once (the parameter) */
    int32_t *mark; /* per node: scratch for region() */
    struct grp *g;
    int32_t n_grp;
};

/* The importer's state: the model's tensors by name, the workload being built. */
struct ox {
    const char *file;
    struct workload *w;
    struct ox_tensor *t;
    size_t n_t, alloc_t;
    struct strpool pool;
    struct strmap by_name;
    struct op_names names; /* the next suffix to try per op name (op_names.h) */
    int64_t batch;         /* --batch, 0 = as exported */
    enum onnx_loss loss;   /* the loss asked for (ox_add_loss) */
    double scale;          /* batch / B0 */
    struct onnx_import_stats st;
    char warned[32][64]; /* operators already warned about */
    int n_warned;
    /* the graph being imported (import_graph() sets these up and releases them) */
    const Onnx__GraphProto *g;
    struct strmap vi_map; /* value_info, then graph outputs: name -> index */
    struct strpool vi_pool;
    struct gx gx;
    struct ox_tensor **in; /* one node's inputs and outputs (the most any node has) */
    struct ox_tensor *out;
    double *gsum; /* per pattern: the FLOPs of its nodes before the last */
};

/* onnx_import.c */

/* Bytes of t, scaled by the batch when it is data. */
int64_t ox_tensor_bytes(const struct ox *x, const struct ox_tensor *t);

/* Index of tensor `name` in x->t, -1 when none. */
int32_t ox_find(const struct ox *x, const char *name);

/* A new tensor `name` (rank unknown, 4 bytes an element, no op) at *idx. */
int ox_add_tensor(struct ox *x, const char *name, int32_t *idx);

/* onnx_read.c */

/* Offset of the first byte of s that is not well-formed UTF-8, or -1. */
long ox_utf8_bad_offset(const char *s);

/* Every node has an op_type, and every name is UTF-8; else BAECHI_EPARSE. */
int ox_check_model(const char *file, const Onnx__ModelProto *m);

/*
 * Unpacks the protobuf data[0..len) of file `name` into *m (free it with
 * onnx__model_proto__free_unpacked(*m, NULL): the allocator is malloc/free).
 * protobuf-c returns NULL both for malformed input and for a failed
 * allocation: an allocator that records its failures tells them apart, so
 * out of memory is BAECHI_ENOMEM (exit 1), not "not a valid ONNX model"
 * (BAECHI_EPARSE).
 */
int ox_unpack_model(const char *name, const uint8_t *data, size_t len, Onnx__ModelProto **m);

/*
 * Reads x->g: the scratch for one node, value_info, the initializers (with
 * their readers), the graph inputs as Placeholder ops, and the batch scale.
 */
int ox_read_graph(struct ox *x);

/* t's shape from a value_info (or graph output) when fully known. */
bool ox_vi_shape(const Onnx__ValueInfoProto *vi, struct ox_tensor *t);

/* onnx_fold.c */

/* The value index of `name`, -1 when none (or empty). */
int32_t gx_val(const struct gx *gx, const char *name);

/* Builds gx from g (gx need not be initialised); release with gx_release() either way. */
int gx_build(struct gx *gx, const Onnx__GraphProto *g);
void gx_release(struct gx *gx);

/* Finds the patterns, the parameter views and the Linear layers of x->g. */
void gx_find_patterns(struct gx *gx, const Onnx__GraphProto *g, const struct ox *x);

/* Every reader of value v is a parameter view. */
bool gx_read_by_pviews(const struct gx *gx, int32_t v);

/*
 * Node i, whose outputs x->out[0..n_out) are inferred, is known at import
 * time (no op); all_folded: its inputs all are.
 */
bool ox_node_folds(const struct ox *x, size_t i, int32_t n_out, bool all_folded);

/* onnx_emit.c */

/* The initializers that are shared or not trainable: ops of their own, or folded. */
int ox_emit_initializers(struct ox *x);

/* Node i of x->g: its outputs, and its op unless folded or inside a pattern. */
int ox_import_node(struct ox *x, size_t i);

/* onnx_loss.c */
/*
 * After the graph's nodes: the loss `want` (ONNX_LOSS_DEFAULT: the rule of
 * onnx_import.h) after the first graph output of x->g; sets x->st.loss and
 * x->st.loss_default.  A loss asked for a model whose first output is no
 * tensor of known shape is BAECHI_EPARSE.
 */
int ox_add_loss(struct ox *x, enum onnx_loss want);

#endif
