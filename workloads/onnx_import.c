/*
 * onnx_import.c - ONNX model -> workload (see onnx_import.h), with protobuf-c
 * code generated from Debian libonnx-dev's onnx.proto (mk/workloads.mk).
 * The per-operator shape inference and FLOP counts are in onnx_shape.c.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/onnx_import.h"

#include "workloads/onnx_shape.h"

#include "core/array.h"
#include "core/checked.h"
#include "core/err.h"
#include "core/strmap.h"
#include "onnx.pb-c.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ox {
    const char *file;
    struct workload *w;
    struct ox_tensor *t;
    size_t n_t, alloc_t;
    struct strpool pool;
    struct strmap by_name;
    struct strmap sfx_of; /* base name -> index in sfx: the next suffix to try */
    int32_t *sfx;
    size_t n_sfx, alloc_sfx;
    int64_t batch; /* --batch, 0 = as exported */
    double scale;  /* batch / B0 */
    struct onnx_import_stats st;
    char warned[32][64]; /* operators already warned about */
    int n_warned;
};

static int64_t t_bytes(const struct ox *x, const struct ox_tensor *t)
{
    double b = (double)onnx_elems(t) * t->elem;

    /* at most 2^42 bytes (onnx_check_shape) x the batch scale: saturated
     * all the same for a library caller's batch beyond the CLI's 2^20 */
    return sat_i64_from_double(round(t->act ? b * x->scale : b));
}

static int32_t find_t(const struct ox *x, const char *name)
{
    return strmap_get(&x->by_name, name, strlen(name));
}

/*
 * The longest prefix of the first n bytes of s that does not end inside a
 * UTF-8 sequence (names are cut to fit buffers; half a character would make
 * the written YAML invalid).
 */
static int utf8_prefix(const char *s, size_t n)
{
    size_t len = strnlen(s, n);

    while (len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80) {
        len--;
    }
    return (int)len;
}

static int add_t(struct ox *x, const char *name, int32_t *idx)
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

/* Shape of value `name` from value_info / graph outputs, if fully known. */
static bool vi_shape(const Onnx__ValueInfoProto *vi, struct ox_tensor *t)
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

static void warn_unknown(struct ox *x, const Onnx__NodeProto *nd, const char *name)
{
    x->st.n_unknown++;
    for (int i = 0; i < x->n_warned; i++) {
        if (strcmp(x->warned[i], nd->op_type) == 0) {
            return;
        }
    }
    err_warn("%s: node '%s': unknown operator '%s': outputs sized like its first input, "
             "1 FLOP per output element",
             x->file, name, nd->op_type);
    if (x->n_warned < 32) {
        snprintf(x->warned[x->n_warned++], sizeof(x->warned[0]), "%s", nd->op_type);
    }
}

/*
 * An op name from `base` not yet in the workload: base, else base_1,
 * base_2, ...  The base is cut to leave room for the suffix (a name as long
 * as buf would otherwise never change and the search never end), and the
 * next suffix to try is remembered per base, so that n nodes of one name
 * cost O(n), not O(n^2).
 */
static int unique_name(struct ox *x, const char *base, char *buf, size_t size)
{
    int len = utf8_prefix(base, size - 16);
    int32_t slot, old;
    const char *key;
    int rc;

    snprintf(buf, size, "%.*s", len, base);
    if (workload_find(x->w, buf) < 0) {
        return 0;
    }
    if ((slot = strmap_get(&x->sfx_of, buf, (size_t)len)) < 0) {
        if (ARRAY_RESERVE(x->sfx, x->alloc_sfx, x->n_sfx + 1) ||
            !(key = strpool_add(&x->pool, buf, (size_t)len))) {
            return BAECHI_ENOMEM;
        }
        slot = (int32_t)x->n_sfx++;
        x->sfx[slot] = 1;
        if ((rc = strmap_put(&x->sfx_of, key, slot, &old))) {
            return rc;
        }
    }
    do {
        snprintf(buf, size, "%.*s_%d", len, base, x->sfx[slot]++);
    } while (workload_find(x->w, buf) >= 0);
    return 0;
}

static bool is_float_type(int32_t t)
{
    return t == 1 || t == 10 || t == 11 || t == 16;
}

/*
 * Offset of the first byte of s that is not part of a well-formed UTF-8
 * sequence (RFC 3629: no overlong forms, no surrogates, at most U+10FFFF),
 * or -1 when s is valid.
 */
static long utf8_bad_offset(const char *s)
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
    long off = s ? utf8_bad_offset(s) : -1;

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
static int check_model(const char *file, const Onnx__ModelProto *m)
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

/*
 * The graph's dataflow by value (a tensor name), for folding and for the
 * patterns below: producer node, readers, whether it depends on a graph
 * input (act: data; else a constant, a parameter or shape arithmetic on
 * constants).
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

#define GRP_MAX 16 /* nodes of one pattern */
#define RGN_MAX 48 /* nodes searched from one value */

/* A recognised pattern: nodes node[0..n) (graph order) costed as one op. */
struct grp {
    const char *type;
    int32_t n;
    int32_t node[GRP_MAX];
};

static int32_t gx_val(const struct gx *gx, const char *name)
{
    return name && name[0] ? strmap_get(&gx->id, name, strlen(name)) : -1;
}

static void gx_release(struct gx *gx)
{
    strmap_release(&gx->id);
    free(gx->prod);
    free(gx->uses);
    free(gx->act);
    free(gx->cstart);
    free(gx->cons);
    free(gx->grp);
    free(gx->pview);
    free(gx->mark);
    free(gx->g);
}

static int gx_name(struct gx *gx, const char *name)
{
    int32_t old;
    int rc;

    if (!name || !name[0]) {
        return 0;
    }
    if ((rc = strmap_put(&gx->id, name, gx->n_val, &old))) {
        return rc;
    }
    if (old < 0) {
        gx->n_val++;
    }
    return 0;
}

static int gx_build(struct gx *gx, const Onnx__GraphProto *g)
{
    size_t n_slot = 0;
    int rc;

    memset(gx, 0, sizeof(*gx));
    strmap_init(&gx->id);
    for (size_t i = 0; i < g->n_initializer; i++) {
        if ((rc = gx_name(gx, g->initializer[i]->name))) {
            return rc;
        }
    }
    for (size_t i = 0; i < g->n_input; i++) {
        if ((rc = gx_name(gx, g->input[i]->name))) {
            return rc;
        }
    }
    for (size_t i = 0; i < g->n_node; i++) {
        for (size_t k = 0; k < g->node[i]->n_input; k++) {
            if ((rc = gx_name(gx, g->node[i]->input[k]))) {
                return rc;
            }
        }
        for (size_t k = 0; k < g->node[i]->n_output; k++) {
            if ((rc = gx_name(gx, g->node[i]->output[k]))) {
                return rc;
            }
        }
        n_slot += g->node[i]->n_input;
    }
    gx->prod = array_calloc((size_t)gx->n_val + 1, sizeof(*gx->prod));
    gx->uses = array_calloc((size_t)gx->n_val + 1, sizeof(*gx->uses));
    gx->act = array_calloc((size_t)gx->n_val + 1, sizeof(*gx->act));
    gx->cstart = array_calloc((size_t)gx->n_val + 2, sizeof(*gx->cstart));
    gx->cons = array_calloc(n_slot + 1, sizeof(*gx->cons));
    gx->grp = array_calloc(g->n_node + 1, sizeof(*gx->grp));
    gx->pview = array_calloc(g->n_node + 1, sizeof(*gx->pview));
    gx->mark = array_calloc(g->n_node + 1, sizeof(*gx->mark));
    gx->g = array_calloc(g->n_node / 2 + 1, sizeof(*gx->g));
    if (!gx->prod || !gx->uses || !gx->act || !gx->cstart || !gx->cons || !gx->grp || !gx->pview ||
        !gx->mark || !gx->g) {
        return BAECHI_ENOMEM;
    }
    for (int32_t v = 0; v < gx->n_val; v++) {
        gx->prod[v] = -1;
    }
    for (size_t i = 0; i < g->n_input; i++) {
        int32_t v = gx_val(gx, g->input[i]->name);

        if (v >= 0) {
            gx->act[v] = true;
        }
    }
    for (size_t i = 0; i < g->n_initializer; i++) { /* an initializer is no data */
        int32_t v = gx_val(gx, g->initializer[i]->name);

        if (v >= 0) {
            gx->act[v] = false;
        }
    }
    for (size_t i = 0; i < g->n_node; i++) {
        const Onnx__NodeProto *nd = g->node[i];
        bool act = false;

        gx->grp[i] = -1;
        for (size_t k = 0; k < nd->n_input; k++) {
            int32_t v = gx_val(gx, nd->input[k]);

            if (v >= 0) {
                act |= gx->act[v];
                gx->uses[v]++;
                gx->cstart[v + 1]++;
            }
        }
        for (size_t k = 0; k < nd->n_output; k++) {
            int32_t v = gx_val(gx, nd->output[k]);

            if (v >= 0) {
                gx->prod[v] = (int32_t)i;
                gx->act[v] = act;
            }
        }
    }
    for (size_t i = 0; i < g->n_output; i++) {
        int32_t v = gx_val(gx, g->output[i]->name);

        if (v >= 0) {
            gx->uses[v]++;
        }
    }
    for (int32_t v = 0; v < gx->n_val; v++) {
        gx->cstart[v + 1] += gx->cstart[v];
    }
    {
        int32_t *fill = array_calloc((size_t)gx->n_val + 1, sizeof(*fill));

        if (!fill) {
            return BAECHI_ENOMEM;
        }
        for (size_t i = 0; i < g->n_node; i++) {
            for (size_t k = 0; k < g->node[i]->n_input; k++) {
                int32_t v = gx_val(gx, g->node[i]->input[k]);

                if (v >= 0) {
                    gx->cons[gx->cstart[v] + fill[v]++] = (int32_t)i;
                }
            }
        }
        free(fill);
    }
    return 0;
}

static bool type_in(const char *type, const char *const *list)
{
    for (int i = 0; list[i]; i++) {
        if (strcmp(type, list[i]) == 0) {
            return true;
        }
    }
    return false;
}

/*
 * The nodes reachable from value xv through operators in `allowed` whose
 * every other input is a region value or no data (a constant, a
 * parameter, a mask built from constants), not yet in a group: into
 * mem[0..n) in graph order (the first RGN_MAX found).  mark[] holds `stamp`
 * for the members.
 */
static int region(struct gx *gx, const Onnx__GraphProto *g, int32_t xv, const char *const *allowed,
                  int32_t stamp, int32_t *mem)
{
    int32_t queue[RGN_MAX * 4 + 1], nq = 0, n = 0;

    queue[nq++] = xv;
    for (int32_t qi = 0; qi < nq; qi++) {
        int32_t v = queue[qi];

        for (int32_t e = gx->cstart[v]; e < gx->cstart[v + 1]; e++) {
            int32_t c = gx->cons[e];
            const Onnx__NodeProto *nd = g->node[c];
            bool ok = gx->mark[c] != stamp && gx->grp[c] < 0 && type_in(nd->op_type, allowed);

            for (size_t k = 0; k < nd->n_input && ok; k++) {
                int32_t u = gx_val(gx, nd->input[k]);

                ok = u < 0 || u == xv || !gx->act[u] ||
                     (gx->prod[u] >= 0 && gx->mark[gx->prod[u]] == stamp);
            }
            if (!ok) {
                continue;
            }
            if (n == RGN_MAX ||
                nq + (int32_t)nd->n_output > (int32_t)(sizeof(queue) / sizeof(queue[0]))) {
                break; /* a prefix of it may still be a pattern */
            }
            gx->mark[c] = stamp;
            mem[n++] = c;
            for (size_t k = 0; k < nd->n_output; k++) {
                int32_t u = gx_val(gx, nd->output[k]);

                if (u >= 0) {
                    queue[nq++] = u;
                }
            }
        }
    }
    /* graph order (insertion sort: at most RGN_MAX) */
    for (int32_t i = 1; i < n; i++) {
        for (int32_t j = i; j > 0 && mem[j - 1] > mem[j]; j--) {
            int32_t t = mem[j];

            mem[j] = mem[j - 1];
            mem[j - 1] = t;
        }
    }
    return n;
}

/*
 * True when the region's only value read outside it (or a graph output) is
 * an output of its last node, and every region value is read by the region
 * or by no one else: the region can become one op with the last node's
 * outputs.
 */
static bool one_exit(const struct gx *gx, const Onnx__GraphProto *g, const int32_t *mem, int32_t n,
                     int32_t stamp)
{
    int exits = 0;

    for (int32_t i = 0; i < n; i++) {
        const Onnx__NodeProto *nd = g->node[mem[i]];

        for (size_t k = 0; k < nd->n_output; k++) {
            int32_t v = gx_val(gx, nd->output[k]), inside = 0;

            if (v < 0) {
                continue;
            }
            for (int32_t e = gx->cstart[v]; e < gx->cstart[v + 1]; e++) {
                inside += gx->mark[gx->cons[e]] == stamp;
            }
            if (gx->uses[v] > inside) {
                if (i != n - 1) {
                    return false;
                }
                exits++;
            }
        }
    }
    return exits == 1;
}

/* The count of members of type t. */
static int count_type(const Onnx__GraphProto *g, const int32_t *mem, int32_t n, const char *t)
{
    int c = 0;

    for (int32_t i = 0; i < n; i++) {
        c += strcmp(g->node[mem[i]]->op_type, t) == 0;
    }
    return c;
}

/*
 * What the element-wise region from a data value is, when it is exactly
 * one of the decompositions exporters write (NULL otherwise):
 *   LayerNormalization: ReduceMean, Sub, Pow, ReduceMean, Add (eps), Sqrt,
 *     Div, then Mul (scale) and Add (bias) when affine;
 *   Gelu, erf form: Div (or Mul by 1/sqrt 2), Erf, Add, Mul, Mul;
 *   Gelu, tanh form (GPT-2's): x^3 (Pow or two Mul), Mul, Add, Mul, Tanh,
 *     Add, Mul, Mul;
 *   Softmax of attention scores (a MatMul's output): the scale (Mul or Div
 *     by a constant), the mask (Add, or Where) and the Softmax, the Softmax
 *     last.
 */
static const char *classify(const struct gx *gx, const Onnx__GraphProto *g, int32_t xv,
                            const int32_t *mem, int32_t n, bool scores)
{
    int readers = 0, ln_readers = 0; /* members reading the region's input */

    for (int32_t i = 0; i < n; i++) {
        const Onnx__NodeProto *nd = g->node[mem[i]];
        bool reads = false;

        for (size_t k = 0; k < nd->n_input; k++) {
            reads |= gx_val(gx, nd->input[k]) == xv;
        }
        readers += reads;
        ln_readers +=
            reads && (strcmp(nd->op_type, "ReduceMean") == 0 || strcmp(nd->op_type, "Sub") == 0);
    }
    int rm = count_type(g, mem, n, "ReduceMean"), sub = count_type(g, mem, n, "Sub"),
        pw = count_type(g, mem, n, "Pow"), add = count_type(g, mem, n, "Add"),
        sq = count_type(g, mem, n, "Sqrt"), dv = count_type(g, mem, n, "Div"),
        mul = count_type(g, mem, n, "Mul"), erf = count_type(g, mem, n, "Erf"),
        th = count_type(g, mem, n, "Tanh"), sm = count_type(g, mem, n, "Softmax"),
        wh = count_type(g, mem, n, "Where");

    if (scores) {
        return sm == 1 && n >= 2 && n == sm + mul + dv + add + wh &&
                       strcmp(g->node[mem[n - 1]]->op_type, "Softmax") == 0
                   ? "Softmax"
                   : NULL;
    }
    /* the input itself is read twice or more (an element-wise op before
     * the pattern, a bias Add, is not part of it) */
    if (sm || wh || readers < 2) {
        return NULL;
    }
    if (ln_readers == 2 && readers == 2 && rm == 2 && sub == 1 && pw == 1 && sq == 1 && dv == 1 &&
        add >= 1 && add <= 2 && mul <= 1 && add - 1 == mul && !erf && !th &&
        n == 7 + mul + add - 1) {
        return "LayerNormalization";
    }
    if (erf == 1 && !th && !rm && !sub && !pw && !sq && dv <= 1 && add == 1 && mul == 3 - dv &&
        n == 5) {
        return "Gelu";
    }
    if (th == 1 && !erf && !rm && !sub && !sq && !dv && add == 2 && pw <= 1 && mul + pw >= 5 &&
        mul + pw <= 7) {
        return "Gelu";
    }
    return NULL;
}

static bool pview_ok(const struct gx *gx, const Onnx__GraphProto *g, const struct ox *x, size_t i,
                     bool readers);
static bool is_param(const struct gx *gx, const Onnx__GraphProto *g, const struct ox *x,
                     const char *name);

/*
 * Finds the patterns (classify), the parameter views (pview_ok: a
 * Transpose of PyTorch's Linear weight, which autograd holds as the
 * parameter itself; an exported LSTM's gate reordering), and the Linear
 * layers (MatMul by a parameter whose only reader is an Add of a parameter,
 * the bias: one MatMul op, as PyTorch's addmm).
 */
static void find_patterns(struct gx *gx, const Onnx__GraphProto *g, const struct ox *x)
{
    static const char *const elt[] = {"ReduceMean", "Sub", "Pow", "Add",  "Sqrt",
                                      "Div",        "Mul", "Erf", "Tanh", NULL};
    static const char *const att[] = {"Mul", "Div", "Add", "Where", "Softmax", NULL};
    int32_t stamp = 0, mem[RGN_MAX];

    for (int32_t v = 0; v < gx->n_val; v++) {
        int32_t p = gx->prod[v];
        bool scores = p >= 0 && strcmp(g->node[p]->op_type, "MatMul") == 0;

        if (!gx->act[v]) {
            continue;
        }
        for (int pass = 0; pass < 1 + scores; pass++) {
            int32_t n = region(gx, g, v, pass ? att : elt, ++stamp, mem);
            const char *type = NULL;

            /* the longest prefix (graph order) that is a pattern: a layer
             * norm followed by a GELU is one region from the norm's input */
            for (n = n < GRP_MAX ? n : GRP_MAX; n > 1 && !type; n--) {
                ++stamp;
                for (int32_t i = 0; i < n; i++) {
                    gx->mark[mem[i]] = stamp;
                }
                type =
                    one_exit(gx, g, mem, n, stamp) ? classify(gx, g, v, mem, n, pass == 1) : NULL;
            }
            if (!type) {
                continue;
            }
            n++;
            gx->g[gx->n_grp].type = type;
            gx->g[gx->n_grp].n = n;
            for (int32_t i = 0; i < n; i++) {
                gx->g[gx->n_grp].node[i] = mem[i];
                gx->grp[mem[i]] = gx->n_grp;
            }
            gx->n_grp++;
            break;
        }
    }
    /* candidates, in graph order; then dropped until every parameter a
     * candidate reads is read by candidates only (else it is an op of its
     * own, and the candidate a copy of it) */
    for (size_t i = 0; i < g->n_node; i++) {
        gx->pview[i] = gx->grp[i] < 0 && pview_ok(gx, g, x, i, false);
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t i = 0; i < g->n_node; i++) {
            if (gx->pview[i] && !pview_ok(gx, g, x, i, true)) {
                gx->pview[i] = false;
                changed = true;
            }
        }
    }
    /* a Linear (PyTorch's addmm): MatMul by a parameter, then the bias Add */
    for (size_t i = 0; i < g->n_node; i++) {
        const Onnx__NodeProto *nd = g->node[i], *ad;
        int32_t v, j;

        if (strcmp(nd->op_type, "MatMul") != 0 || gx->grp[i] >= 0 || nd->n_input != 2 ||
            nd->n_output != 1 || !is_param(gx, g, x, nd->input[1]) ||
            (v = gx_val(gx, nd->output[0])) < 0 || gx->uses[v] != 1 ||
            gx->cstart[v + 1] - gx->cstart[v] != 1) {
            continue;
        }
        j = gx->cons[gx->cstart[v]];
        ad = g->node[j];
        if (strcmp(ad->op_type, "Add") != 0 || gx->grp[j] >= 0 || ad->n_input != 2 ||
            !is_param(gx, g, x, ad->input[strcmp(ad->input[0], nd->output[0]) == 0 ? 1 : 0])) {
            continue;
        }
        gx->g[gx->n_grp].type = "MatMul";
        gx->g[gx->n_grp].n = 2;
        gx->g[gx->n_grp].node[0] = (int32_t)i;
        gx->g[gx->n_grp].node[1] = j;
        gx->grp[i] = gx->grp[j] = gx->n_grp++;
    }
}

/* Value `name` is a trainable initializer or a parameter view's output. */
static bool is_param(const struct gx *gx, const Onnx__GraphProto *g, const struct ox *x,
                     const char *name)
{
    int32_t u = gx_val(gx, name), id;

    (void)g;
    if (u < 0) {
        return false;
    }
    if (gx->prod[u] >= 0) {
        return gx->pview[gx->prod[u]];
    }
    return (id = find_t(x, name)) >= 0 && x->t[id].trainable;
}

/* Every reader of value v is a parameter view. */
static bool read_by_pviews(const struct gx *gx, int32_t v)
{
    for (int32_t e = gx->cstart[v]; e < gx->cstart[v + 1]; e++) {
        if (!gx->pview[gx->cons[e]]) {
            return false;
        }
    }
    return true;
}

/*
 * Node i only moves parameters (a Transpose of a Linear weight, the gate
 * reordering Slices and Concats before an exported LSTM): its data inputs
 * are trainable initializers or parameter views, its output is read once.
 * It then is no op: its output is a parameter of its reader.  With
 * `readers`, also every initializer it reads is read by parameter views
 * only (else that initializer is an op of its own).
 */
static bool pview_ok(const struct gx *gx, const Onnx__GraphProto *g, const struct ox *x, size_t i,
                     bool readers)
{
    static const char *const moves[] = {"Transpose", "Slice",   "Concat",   "Unsqueeze", "Squeeze",
                                        "Reshape",   "Flatten", "Identity", NULL};
    const Onnx__NodeProto *nd = g->node[i];
    bool concat = strcmp(nd->op_type, "Concat") == 0;
    int32_t v;

    if (!type_in(nd->op_type, moves) || nd->n_output != 1 || nd->n_input < 1 ||
        (v = gx_val(gx, nd->output[0])) < 0 || gx->uses[v] != 1 ||
        gx->cstart[v + 1] - gx->cstart[v] != 1) { /* read by a node, not a graph output */
        return false;
    }
    for (size_t k = 0; k < nd->n_input; k++) {
        int32_t u = gx_val(gx, nd->input[k]), id;

        if (u < 0) {
            continue;
        }
        if (k > 0 && !concat) { /* a shape, starts, axes: no data */
            if (gx->act[u]) {
                return false;
            }
            continue;
        }
        if (gx->prod[u] >= 0) {
            if (!gx->pview[gx->prod[u]]) {
                return false;
            }
        } else if ((id = find_t(x, nd->input[k])) < 0 || !x->t[id].trainable ||
                   (readers && !read_by_pviews(gx, u))) {
            return false;
        }
    }
    return true;
}

/* The op name of node i: its name, else "<op_type>_<i>", made unique. */
static int node_name(struct ox *x, const Onnx__GraphProto *g, size_t i, char *buf, size_t size)
{
    const Onnx__NodeProto *nd = g->node[i];
    char base[128];

    if (nd->name && nd->name[0]) {
        return unique_name(x, nd->name, buf, size);
    }
    snprintf(base, sizeof(base), "%s_%zu", nd->op_type, i);
    return unique_name(x, base, buf, size);
}

/*
 * A known operator whose output shape could not be inferred: why (the
 * first input after the data whose values are not known at import time,
 * else the data input's unknown shape), once per operator.
 */
static void warn_unsized(struct ox *x, const Onnx__NodeProto *nd, const char *name,
                         struct ox_tensor **in, int32_t n_in)
{
    char key[64];

    x->st.n_unknown++;
    snprintf(key, sizeof(key), "?%s", nd->op_type);
    for (int i = 0; i < x->n_warned; i++) {
        if (strcmp(x->warned[i], key) == 0) {
            return;
        }
    }
    if (x->n_warned < 32) {
        snprintf(x->warned[x->n_warned++], sizeof(x->warned[0]), "%s", key);
    }
    for (int32_t k = 1; k < n_in; k++) {
        if (in[k] && !(in[k]->nval > 0 && in[k]->nval == onnx_elems(in[k]))) {
            err_warn("%s: node '%s' (%s): output shape not inferred: input %d ('%s') is not a "
                     "constant known at import time (%s); outputs sized like its first input",
                     x->file, name, nd->op_type, (int)k, in[k]->name,
                     in[k]->rank < 0                     ? "its shape is unknown"
                     : onnx_elems(in[k]) > OX_MAX_VAL    ? "more than 16 values"
                     : in[k]->op >= 0 || in[k]->internal ? "computed from data"
                                                         : "values not folded");
            return;
        }
    }
    err_warn("%s: node '%s' (%s): output shape not inferred: %s; outputs sized like its first "
             "input",
             x->file, name, nd->op_type,
             n_in > 0 && in[0] && in[0]->rank < 0 ? "the shape of input 0 is unknown"
                                                  : "an input or attribute it needs is missing");
}

static int import_graph(struct ox *x, const Onnx__GraphProto *g)
{
    struct strmap vi_map;
    struct strpool vi_pool;
    struct ox_tensor **in = NULL;
    struct ox_tensor *out = NULL;
    size_t max_in = 1, max_out = 1;
    struct gx gx;
    double *gsum = NULL; /* per pattern: the FLOPs of its nodes before the last */
    char name[1024];
    double b0 = 1;
    bool have_b0 = false;
    int rc = 0;

    memset(&gx, 0, sizeof(gx));
    strmap_init(&gx.id);
    strmap_init(&vi_map);
    strpool_init(&vi_pool);
    for (size_t i = 0; i < g->n_node; i++) {
        if (g->node[i]->n_input > max_in) {
            max_in = g->node[i]->n_input;
        }
        if (g->node[i]->n_output > max_out) {
            max_out = g->node[i]->n_output;
        }
    }
    in = array_calloc(max_in, sizeof(*in));
    out = array_calloc(max_out, sizeof(*out));
    gsum = array_calloc(g->n_node / 2 + 1, sizeof(*gsum));
    if (!in || !out || !gsum) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    /* value_info and graph outputs, by name */
    for (size_t i = 0; i < g->n_value_info + g->n_output; i++) {
        const Onnx__ValueInfoProto *vi =
            i < g->n_value_info ? g->value_info[i] : g->output[i - g->n_value_info];
        const char *nm;
        int32_t old;

        if (!vi->name || !(nm = strpool_add(&vi_pool, vi->name, strlen(vi->name)))) {
            continue;
        }
        if ((rc = strmap_put(&vi_map, nm, (int32_t)i, &old))) {
            goto cleanup;
        }
    }
    /* initializers */
    for (size_t i = 0; i < g->n_initializer; i++) {
        const Onnx__TensorProto *tp = g->initializer[i];
        int32_t id;

        if (!tp->name || find_t(x, tp->name) >= 0) {
            rc = err_set(BAECHI_EPARSE, "%s: initializer %zu: %s", x->file, i,
                         tp->name ? "duplicate name" : "no name");
            goto cleanup;
        }
        if ((rc = add_t(x, tp->name, &id))) {
            goto cleanup;
        }
        x->t[id].elem = onnx_elem_size(tp->data_type);
        if ((rc = shape_from_dims(x, &x->t[id], tp->n_dims, tp->dims, "initializer"))) {
            goto cleanup;
        }
        x->t[id].trainable = is_float_type(tp->data_type) && onnx_elems(&x->t[id]) > 1;
        onnx_tensor_values(&x->t[id], tp);
    }
    /* consumers; BatchNormalization statistics are not trainable */
    for (size_t i = 0; i < g->n_node; i++) {
        const Onnx__NodeProto *nd = g->node[i];

        for (size_t k = 0; k < nd->n_input; k++) {
            int32_t id = nd->input[k][0] ? find_t(x, nd->input[k]) : -1;

            if (id >= 0) {
                x->t[id].n_cons++;
                if (k >= 3 && strcmp(nd->op_type, "BatchNormalization") == 0) {
                    x->t[id].trainable = false;
                }
            }
        }
    }
    /* graph inputs that are not initializers: Placeholder ops */
    for (size_t i = 0; i < g->n_input; i++) {
        const Onnx__ValueInfoProto *vi = g->input[i];
        const Onnx__TypeProto__Tensor *tt;
        int32_t id, op;

        if (!vi->name || find_t(x, vi->name) >= 0) {
            continue;
        }
        if ((rc = add_t(x, vi->name, &id))) {
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
        if ((rc = unique_name(x, vi->name, name, sizeof(name)))) {
            goto cleanup;
        }
        /* the output right after its op: workload_add_output appends to
         * the last op (sized below, once the batch scale is known) */
        if ((rc = workload_add_op(x->w, name, "Placeholder", &op)) ||
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
            x->w->out_bytes[x->w->op[x->t[i].op].out_off] = t_bytes(x, &x->t[i]);
        }
    }
    /* the dataflow by value, the patterns and the transposed parameters */
    if ((rc = gx_build(&gx, g))) {
        goto cleanup;
    }
    find_patterns(&gx, g, x);
    /* shared or non-trainable initializers: ops of their own */
    for (size_t i = 0; i < x->n_t; i++) {
        struct ox_tensor *t = &x->t[i];
        int32_t op;

        if (t->act || t->n_cons == 0 || (t->trainable && t->n_cons == 1)) {
            continue;
        }
        if (t->trainable && gx_val(&gx, t->name) >= 0 &&
            read_by_pviews(&gx, gx_val(&gx, t->name))) {
            continue; /* held by the reader of its views */
        }
        if (!t->trainable && onnx_elems(t) <= OX_MAX_VAL) { /* a shape, a scalar: folded */
            t->folded = true;
            continue;
        }
        if ((rc = unique_name(x, t->name, name, sizeof(name)))) {
            goto cleanup;
        }
        if ((rc = workload_add_op(x->w, name, t->trainable ? "Initializer" : "Constant", &op)) ||
            (rc = workload_add_output(x->w, t_bytes(x, t)))) {
            goto cleanup;
        }
        x->w->op[op].persistent = t_bytes(x, t);
        x->w->op[op].flops = 0;
        x->w->op[op].bytes = 0;
        t->op = op;
        t->port = 0;
        if (t->trainable) {
            x->st.params = sat_add_i64(x->st.params, onnx_elems(t));
        }
    }
    /* nodes, in graph (topological) order */
    for (size_t i = 0; i < g->n_node; i++) {
        const Onnx__NodeProto *nd = g->node[i];
        int32_t op, n_in = (int32_t)nd->n_input, n_out = (int32_t)nd->n_output;
        int32_t gi = gx.grp[i];
        const struct grp *gr = gi >= 0 ? &gx.g[gi] : NULL;
        bool last = !gr || gr->node[gr->n - 1] == (int32_t)i, all_folded = true;
        int64_t persistent = 0;
        double flops = 0, bytes = 0;
        bool act = false, known, fold;
        char what[1200];

        if ((rc = node_name(x, g, gr ? (size_t)gr->node[0] : i, name, sizeof(name)))) {
            goto cleanup;
        }
        snprintf(what, sizeof(what), "node '%s' (%s): output", name, nd->op_type);
        for (int32_t k = 0; k < n_in; k++) {
            int32_t id = nd->input[k][0] ? find_t(x, nd->input[k]) : -1;

            if (nd->input[k][0] && id < 0) {
                rc = err_set(BAECHI_EPARSE,
                             "%s: node '%s' (%s): input '%s' is not produced by any node, "
                             "graph input or initializer",
                             x->file, name, nd->op_type, nd->input[k]);
                goto cleanup;
            }
            in[k] = id >= 0 ? &x->t[id] : NULL;
            if (in[k] && in[k]->act) {
                act = true;
            }
            if (in[k] && !in[k]->folded) {
                all_folded = false;
            }
        }
        for (int32_t k = 0; k < n_out; k++) {
            memset(&out[k], 0, sizeof(out[k]));
            out[k].rank = -1;
            out[k].elem = n_in > 0 && in[0] ? in[0]->elem : 4;
        }
        if ((rc = onnx_infer(x->file, name, nd, in, n_in, out, n_out, &flops, &known))) {
            goto cleanup;
        }
        if (!known) {
            warn_unknown(x, nd, name);
            if (n_in > 0 && in[0]) {
                for (int32_t k = 0; k < n_out; k++) {
                    out[k] = *in[0];
                    out[k].nval = 0;
                    out[k].folded = false;
                }
                flops = (double)onnx_elems(&out[0]) * n_out;
            }
        }
        for (int32_t k = 0; k < n_out; k++) {
            int32_t v = strmap_get(&vi_map, nd->output[k], strlen(nd->output[k]));
            struct ox_tensor s = out[k];

            if (v >= 0 &&
                vi_shape(v < (int32_t)g->n_value_info ? g->value_info[v]
                                                      : g->output[v - (int32_t)g->n_value_info],
                         &s)) {
                if (s.rank != out[k].rank ||
                    memcmp(s.dim, out[k].dim,
                           sizeof(int64_t) * (size_t)(s.rank > 0 ? s.rank : 0))) {
                    s.nval = 0;
                }
                out[k] = s;
                x->st.n_from_value_info++;
            }
            if (out[k].rank < 0) {
                if (known) {
                    warn_unsized(x, nd, name, in, n_in);
                    known = false;
                }
                if (n_in > 0 && in[0]) {
                    out[k].rank = in[0]->rank;
                    memcpy(out[k].dim, in[0]->dim, sizeof(out[k].dim));
                } else {
                    out[k].rank = 0;
                }
            }
            out[k].name = nd->output[k];
            if ((rc = onnx_check_shape(&out[k], x->file, what))) {
                goto cleanup;
            }
        }
        /* Known at import time (shape arithmetic, small constants): no op.
         * Either every value is known, or the node computes on folded
         * values only (a float scalar from Constants); never a graph output. */
        fold = !gr && !gx.pview[i] && n_out > 0;
        for (int32_t k = 0; k < n_out && fold; k++) {
            int32_t v = gx_val(&gx, nd->output[k]);

            fold = onnx_elems(&out[k]) <= OX_MAX_VAL &&
                   (out[k].nval == onnx_elems(&out[k]) || all_folded) && v >= 0 &&
                   gx.uses[v] == (gx.cstart[v + 1] - gx.cstart[v]);
        }
        x->st.n_nodes++;
        if (fold || gx.pview[i] || !last) {
            /* folded; a parameter's transpose (the parameter, held by its
             * reader); a pattern's inner node (its op comes with the last) */
            for (int32_t k = 0; k < n_out; k++) {
                int32_t id;

                if (!nd->output[k][0]) {
                    continue;
                }
                if (find_t(x, nd->output[k]) >= 0) {
                    rc = err_set(BAECHI_EPARSE, "%s: node '%s': output '%s' is produced twice",
                                 x->file, name, nd->output[k]);
                    goto cleanup;
                }
                if ((rc = add_t(x, nd->output[k], &id))) {
                    goto cleanup;
                }
                out[k].name = x->t[id].name;
                out[k].op = -1;
                out[k].act = !fold && !gx.pview[i] && act;
                out[k].folded = fold;
                out[k].internal = !fold && !gx.pview[i];
                out[k].trainable = gx.pview[i];
                out[k].n_cons = 1;
                x->t[id] = out[k];
            }
            if (fold) {
                x->st.n_folded++;
            } else if (!gx.pview[i]) {
                gsum[gi] += flops * (act ? x->scale : 1);
            }
            continue;
        }
        if ((rc = workload_add_op(x->w, name, gr ? gr->type : nd->op_type, &op))) {
            goto cleanup;
        }
        /* inputs: a pattern's are those of its nodes that come from outside */
        for (int32_t m = 0; m < (gr ? gr->n : 1); m++) {
            const Onnx__NodeProto *mn = gr ? g->node[gr->node[m]] : nd;

            for (size_t k = 0; k < mn->n_input; k++) {
                int32_t id = mn->input[k][0] ? find_t(x, mn->input[k]) : -1;
                struct ox_tensor *t = id >= 0 ? &x->t[id] : NULL;
                bool dup = false;

                if (!t || t->folded || t->internal) {
                    continue;
                }
                for (int32_t m2 = 0; m2 <= m && gr && !dup; m2++) { /* read once */
                    const Onnx__NodeProto *pn = g->node[gr->node[m2]];

                    for (size_t k2 = 0; k2 < (m2 < m ? pn->n_input : k) && !dup; k2++) {
                        dup = strcmp(pn->input[k2], mn->input[k]) == 0;
                    }
                }
                if (dup) {
                    continue;
                }
                if (t->act) {
                    act = true;
                }
                bytes += (double)t_bytes(x, t);
                if (t->op < 0) { /* a folded trainable initializer */
                    persistent += t_bytes(x, t);
                    x->st.params = sat_add_i64(x->st.params, onnx_elems(t));
                } else if ((rc = workload_add_input(x->w, t->op, t->port, 0, 0))) {
                    goto cleanup;
                }
            }
        }
        for (int32_t k = 0; k < n_out; k++) {
            int32_t id;

            out[k].act = act;
            if (!nd->output[k][0]) {
                continue;
            }
            if (find_t(x, nd->output[k]) >= 0) {
                rc = err_set(BAECHI_EPARSE, "%s: node '%s': output '%s' is produced twice", x->file,
                             name, nd->output[k]);
                goto cleanup;
            }
            if ((rc = add_t(x, nd->output[k], &id))) {
                goto cleanup;
            }
            out[k].name = x->t[id].name;
            out[k].op = op;
            out[k].port = x->w->op[op].n_out;
            out[k].n_cons = 0;
            out[k].folded = false;
            out[k].internal = false;
            x->t[id] = out[k];
            if ((rc = workload_add_output(x->w, t_bytes(x, &x->t[id])))) {
                goto cleanup;
            }
            bytes += (double)t_bytes(x, &x->t[id]);
        }
        if (act) {
            flops *= x->scale;
        }
        if (gr) {
            flops += gsum[gi];
            x->st.n_fused += gr->n;
        }
        x->w->op[op].flops = flops;
        x->w->op[op].bytes = bytes;
        x->w->op[op].persistent = persistent;
        x->st.flops += flops;
    }
cleanup:
    free(in);
    free(out);
    free(gsum);
    gx_release(&gx);
    strmap_release(&vi_map);
    strpool_release(&vi_pool);
    return rc;
}

int onnx_import_buffer(struct workload *w, const uint8_t *data, size_t len, const char *name,
                       const struct onnx_import_opts *o, struct onnx_import_stats *stats)
{
    Onnx__ModelProto *m;
    struct ox x;
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
    x.scale = 1.0;
    strpool_init(&x.pool);
    strmap_init(&x.by_name);
    strmap_init(&x.sfx_of);
    m = onnx__model_proto__unpack(NULL, len, data);
    if (!m) {
        rc = err_set(BAECHI_EPARSE, "%s: not a valid ONNX model (the protobuf does not parse)",
                     name);
        goto cleanup;
    }
    if (!m->graph || m->graph->n_node == 0) {
        rc = err_set(BAECHI_EPARSE, "%s: the ONNX model has no graph or no nodes", name);
        goto cleanup;
    }
    if ((rc = check_model(name, m)) || (rc = import_graph(&x, m->graph))) {
        goto cleanup;
    }
    base = strrchr(name, '/');
    base = base ? base + 1 : name;
    /* a path that is not UTF-8 names nothing in the YAML (the one place
     * it reaches are messages) */
    path_ok = utf8_bad_offset(name) < 0;
    stem = strcspn(base, ".");
    snprintf(wname, sizeof(wname), "%.*s", utf8_prefix(base, stem < 255 ? stem : 255), base);
    if ((rc = workload_set_name(w, wname[0] && path_ok ? wname : "onnx"))) {
        goto cleanup;
    }
    {
        char desc[512];

        const char *pn = m->producer_name ? m->producer_name : "?";
        const char *pv = m->producer_version ? m->producer_version : "";

        snprintf(desc, sizeof(desc),
                 "imported from ONNX (%.*s %.*s, IR %lld): %d nodes, %lld parameters",
                 utf8_prefix(pn, 128), pn, utf8_prefix(pv, 64), pv, (long long)m->ir_version,
                 x.st.n_nodes, (long long)x.st.params);
        if (!(w->description = array_strdup(desc)) ||
            (path_ok && !(w->source = array_strdup(name)))) {
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
    strmap_release(&x.sfx_of);
    free(x.sfx);
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
        return err_set(BAECHI_EIO, "%s: cannot open: %s", path, strerror(errno));
    }
    for (;;) {
        if (len == cap) {
            uint8_t *nb;

            cap = cap ? 2 * cap : 1 << 16;
            if (!(nb = realloc(buf, cap))) {
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
