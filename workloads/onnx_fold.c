/*
 * onnx_fold.c - the ONNX importer's folding pass (onnx_import_internal.h):
 * the graph's dataflow by value, the recognised patterns (one op for a
 * decomposed LayerNormalization, a Gelu, an attention Softmax, a Linear),
 * the parameter views (nodes that only move a parameter) and the nodes
 * known at import time (no op).  The operator lists that drive them are
 * the three below.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/onnx_import_internal.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/strmap.h"
#include "workloads/ops.h"

#include <stdlib.h>
#include <string.h>

/*
 * What an operator is to the patterns and to parameter views comes from the
 * op table (workloads/ops.h): OPS_IN_NORM_PATTERN (the element-wise operators
 * of a LayerNormalization or Gelu pattern), OPS_IN_SOFTMAX_PATTERN (those of
 * an attention score's Softmax pattern), OPS_PARAM_VIEW (operators that can
 * only move a parameter).
 */

int32_t gx_val(const struct gx *gx, const char *name)
{
    return name && name[0] ? strmap_get(&gx->id, name, strlen(name)) : -1;
}

void gx_release(struct gx *gx)
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

int gx_build(struct gx *gx, const Onnx__GraphProto *g)
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
    gx->prod = mem_calloc((size_t)gx->n_val + 1, sizeof(*gx->prod));
    gx->uses = mem_calloc((size_t)gx->n_val + 1, sizeof(*gx->uses));
    gx->act = mem_calloc((size_t)gx->n_val + 1, sizeof(*gx->act));
    gx->cstart = mem_calloc((size_t)gx->n_val + 2, sizeof(*gx->cstart));
    gx->cons = mem_calloc(n_slot + 1, sizeof(*gx->cons));
    gx->grp = mem_calloc(g->n_node + 1, sizeof(*gx->grp));
    gx->pview = mem_calloc(g->n_node + 1, sizeof(*gx->pview));
    gx->mark = mem_calloc(g->n_node + 1, sizeof(*gx->mark));
    gx->g = mem_calloc(g->n_node / 2 + 1, sizeof(*gx->g));
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
        int32_t *fill = mem_calloc((size_t)gx->n_val + 1, sizeof(*fill));

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

/*
 * The nodes reachable from value xv through operators in `allowed` whose
 * every other input is a region value or no data (a constant, a
 * parameter, a mask built from constants), not yet in a group: into
 * mem[0..n) in graph order (the first RGN_MAX found).  mark[] holds `stamp`
 * for the members.
 */
static int region(struct gx *gx, const Onnx__GraphProto *g, int32_t xv, enum ops_flags allowed,
                  int32_t stamp, int32_t *mem)
{
    int32_t queue[RGN_MAX * 4 + 1], nq = 0, n = 0;

    queue[nq++] = xv;
    for (int32_t qi = 0; qi < nq; qi++) {
        int32_t v = queue[qi];

        for (int32_t e = gx->cstart[v]; e < gx->cstart[v + 1]; e++) {
            int32_t c = gx->cons[e];
            const Onnx__NodeProto *nd = g->node[c];
            bool ok = gx->mark[c] != stamp && gx->grp[c] < 0 && ops_has_flag(nd->op_type, allowed);

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
void gx_find_patterns(struct gx *gx, const Onnx__GraphProto *g, const struct ox *x)
{
    int32_t stamp = 0, mem[RGN_MAX];

    for (int32_t v = 0; v < gx->n_val; v++) {
        int32_t p = gx->prod[v];
        bool scores = p >= 0 && strcmp(g->node[p]->op_type, "MatMul") == 0;

        if (!gx->act[v]) {
            continue;
        }
        for (int pass = 0; pass < 1 + scores; pass++) {
            int32_t n =
                region(gx, g, v, pass ? OPS_IN_SOFTMAX_PATTERN : OPS_IN_NORM_PATTERN, ++stamp, mem);
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
    return (id = ox_find(x, name)) >= 0 && x->t[id].trainable;
}

bool gx_read_by_pviews(const struct gx *gx, int32_t v)
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
    const Onnx__NodeProto *nd = g->node[i];
    bool concat = strcmp(nd->op_type, "Concat") == 0;
    int32_t v;

    if (!ops_is_param_view(nd->op_type) || nd->n_output != 1 || nd->n_input < 1 ||
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
        } else if ((id = ox_find(x, nd->input[k])) < 0 || !x->t[id].trainable ||
                   (readers && !gx_read_by_pviews(gx, u))) {
            return false;
        }
    }
    return true;
}

bool ox_node_folds(const struct ox *x, size_t i, int32_t n_out, bool all_folded)
{
    const struct gx *gx = &x->gx;
    const Onnx__NodeProto *nd = x->g->node[i];
    bool fold = gx->grp[i] < 0 && !gx->pview[i] && n_out > 0;

    /* Either every value is known, or the node computes on folded values
     * only (a float scalar from Constants); never a graph output. */
    for (int32_t k = 0; k < n_out && fold; k++) {
        int32_t v = gx_val(gx, nd->output[k]);

        fold = onnx_elems(&x->out[k]) <= OX_MAX_VAL &&
               (x->out[k].nval == onnx_elems(&x->out[k]) || all_folded) && v >= 0 &&
               gx->uses[v] == (gx->cstart[v + 1] - gx->cstart[v]);
    }
    return fold;
}
