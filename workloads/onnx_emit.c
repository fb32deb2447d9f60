/*
 * onnx_emit.c - the ONNX importer's emitting pass (onnx_import_internal.h):
 * the ops of the initializers that are shared or not trainable, and per
 * node in graph order its outputs (shape inference, value_info), then its
 * op with inputs, outputs, bytes and FLOPs, or no op (folded, a parameter
 * view, a pattern's inner node).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/onnx_import_internal.h"

#include "core/checked.h"
#include "core/err.h"
#include "core/strmap.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

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

/* The op name of node i: its name, else "<op_type>_<i>", made unique. */
static int node_name(struct ox *x, const Onnx__GraphProto *g, size_t i, char *buf, size_t size)
{
    const Onnx__NodeProto *nd = g->node[i];
    char base[128];

    if (nd->name && nd->name[0]) {
        return op_names_unique(&x->names, x->w, nd->name, buf, size);
    }
    snprintf(base, sizeof(base), "%s_%zu", nd->op_type, i);
    return op_names_unique(&x->names, x->w, base, buf, size);
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

int ox_emit_initializers(struct ox *x)
{
    char name[1024];
    int rc;

    for (size_t i = 0; i < x->n_t; i++) {
        struct ox_tensor *t = &x->t[i];
        int32_t op;

        if (t->act || t->n_cons == 0 || (t->trainable && t->n_cons == 1)) {
            continue;
        }
        if (t->trainable && gx_val(&x->gx, t->name) >= 0 &&
            gx_read_by_pviews(&x->gx, gx_val(&x->gx, t->name))) {
            continue; /* held by the reader of its views */
        }
        if (!t->trainable && onnx_elems(t) <= OX_MAX_VAL) { /* a shape, a scalar: folded */
            t->folded = true;
            continue;
        }
        if ((rc = op_names_unique(&x->names, x->w, t->name, name, sizeof(name)))) {
            return rc;
        }
        if ((rc = workload_add_op(x->w, name, t->trainable ? "Initializer" : "Constant", &op)) ||
            (rc = workload_add_output(x->w, ox_tensor_bytes(x, t)))) {
            return rc;
        }
        x->w->op[op].persistent = ox_tensor_bytes(x, t);
        x->w->op[op].flops = 0;
        x->w->op[op].bytes = 0;
        t->op = op;
        t->port = 0;
        if (t->trainable) {
            x->st.params = sat_add_i64(x->st.params, onnx_elems(t));
        }
    }
    return 0;
}

/* in[0..n_in) of node nd; *act when one is data, *all_folded unless one is not folded. */
static int node_inputs(struct ox *x, const Onnx__NodeProto *nd, const char *name, bool *act,
                       bool *all_folded)
{
    struct ox_tensor **in = x->in;
    int32_t n_in = (int32_t)nd->n_input;

    for (int32_t k = 0; k < n_in; k++) {
        int32_t id = nd->input[k][0] ? ox_find(x, nd->input[k]) : -1;

        if (nd->input[k][0] && id < 0) {
            return err_set(BAECHI_EPARSE,
                           "%s: node '%s' (%s): input '%s' is not produced by any node, "
                           "graph input or initializer",
                           x->file, name, nd->op_type, nd->input[k]);
        }
        in[k] = id >= 0 ? &x->t[id] : NULL;
        if (in[k] && in[k]->act) {
            *act = true;
        }
        if (in[k] && !in[k]->folded) {
            *all_folded = false;
        }
    }
    return 0;
}

/*
 * out[0..n_out) of node nd and *flops (at batch 1): our own inference, then
 * value_info where it knows the shape; an unknown operator or shape is
 * warned about and sized like the first input.
 */
static int node_outputs(struct ox *x, const Onnx__NodeProto *nd, const char *name, double *flops)
{
    const Onnx__GraphProto *g = x->g;
    struct ox_tensor **in = x->in, *out = x->out;
    int32_t n_in = (int32_t)nd->n_input, n_out = (int32_t)nd->n_output;
    char what[1200];
    bool known;
    int rc;

    snprintf(what, sizeof(what), "node '%s' (%s): output", name, nd->op_type);
    for (int32_t k = 0; k < n_out; k++) {
        memset(&out[k], 0, sizeof(out[k]));
        out[k].rank = -1;
        out[k].elem = n_in > 0 && in[0] ? in[0]->elem : 4;
    }
    if ((rc = onnx_infer(x->file, name, nd, in, n_in, out, n_out, flops, &known))) {
        return rc;
    }
    if (!known) {
        warn_unknown(x, nd, name);
        if (n_in > 0 && in[0]) {
            for (int32_t k = 0; k < n_out; k++) {
                out[k] = *in[0];
                out[k].nval = 0;
                out[k].folded = false;
            }
            *flops = (double)onnx_elems(&out[0]) * n_out;
        }
    }
    for (int32_t k = 0; k < n_out; k++) {
        int32_t v = strmap_get(&x->vi_map, nd->output[k], strlen(nd->output[k]));
        struct ox_tensor s = out[k];

        if (v >= 0 &&
            ox_vi_shape(v < (int32_t)g->n_value_info ? g->value_info[v]
                                                     : g->output[v - (int32_t)g->n_value_info],
                        &s)) {
            if (s.rank != out[k].rank ||
                memcmp(s.dim, out[k].dim, sizeof(int64_t) * (size_t)(s.rank > 0 ? s.rank : 0))) {
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
            return rc;
        }
    }
    return 0;
}

/* A node's output `tensor` as a new tensor of the table (*id); an output
 * made twice is bad input. */
static int new_output(struct ox *x, const char *tensor, const char *node, int32_t *id)
{
    if (ox_find(x, tensor) >= 0) {
        return err_set(BAECHI_EPARSE, "%s: node '%s': output '%s' is produced twice", x->file, node,
                       tensor);
    }
    return ox_add_tensor(x, tensor, id);
}

/*
 * Node i has no op: folded; a parameter's transpose (the parameter, held
 * by its reader); a pattern's inner node (its op comes with the last, and
 * its FLOPs in gsum).
 */
static int node_hide(struct ox *x, size_t i, const char *name, bool fold, bool act, double flops)
{
    const Onnx__NodeProto *nd = x->g->node[i];
    const struct gx *gx = &x->gx;
    struct ox_tensor *out = x->out;
    int32_t n_out = (int32_t)nd->n_output, gi = gx->grp[i];
    int rc;

    for (int32_t k = 0; k < n_out; k++) {
        int32_t id;

        if (!nd->output[k][0]) {
            continue;
        }
        if ((rc = new_output(x, nd->output[k], name, &id))) {
            return rc;
        }
        out[k].name = x->t[id].name;
        out[k].op = -1;
        out[k].act = !fold && !gx->pview[i] && act;
        out[k].folded = fold;
        out[k].internal = !fold && !gx->pview[i];
        out[k].trainable = gx->pview[i];
        out[k].n_cons = 1;
        x->t[id] = out[k];
    }
    if (fold) {
        x->st.n_folded++;
    } else if (!gx->pview[i]) {
        x->gsum[gi] += flops * (act ? x->scale : 1);
    }
    return 0;
}

/*
 * The inputs of the op just added for node nd (of pattern gr, or NULL): a
 * pattern's are those of its nodes that come from outside, each read once.
 * Adds their bytes to *bytes, a folded trainable initializer's to
 * *persistent; *act when one is data.
 */
static int op_inputs(struct ox *x, const Onnx__NodeProto *nd, const struct grp *gr, bool *act,
                     double *bytes, int64_t *persistent)
{
    const Onnx__GraphProto *g = x->g;
    int rc;

    for (int32_t m = 0; m < (gr ? gr->n : 1); m++) {
        const Onnx__NodeProto *mn = gr ? g->node[gr->node[m]] : nd;

        for (size_t k = 0; k < mn->n_input; k++) {
            int32_t id = mn->input[k][0] ? ox_find(x, mn->input[k]) : -1;
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
                *act = true;
            }
            *bytes += (double)ox_tensor_bytes(x, t);
            if (t->op < 0) { /* a folded trainable initializer */
                *persistent += ox_tensor_bytes(x, t);
                x->st.params = sat_add_i64(x->st.params, onnx_elems(t));
            } else if ((rc = workload_add_input(x->w, t->op, t->port, 0, 0))) {
                return rc;
            }
        }
    }
    return 0;
}

/* Node i's op (a pattern's, for its last node): inputs, outputs, bytes and FLOPs. */
static int node_emit(struct ox *x, size_t i, const char *name, bool act, double flops)
{
    const Onnx__NodeProto *nd = x->g->node[i];
    int32_t gi = x->gx.grp[i];
    const struct grp *gr = gi >= 0 ? &x->gx.g[gi] : NULL;
    struct ox_tensor *out = x->out;
    int32_t op, n_out = (int32_t)nd->n_output;
    int64_t persistent = 0;
    double bytes = 0;
    int rc;

    if ((rc = workload_add_op(x->w, name, gr ? gr->type : nd->op_type, &op)) ||
        (rc = op_inputs(x, nd, gr, &act, &bytes, &persistent))) {
        return rc;
    }
    for (int32_t k = 0; k < n_out; k++) {
        int32_t id;

        out[k].act = act;
        if (!nd->output[k][0]) {
            continue;
        }
        if ((rc = new_output(x, nd->output[k], name, &id))) {
            return rc;
        }
        out[k].name = x->t[id].name;
        out[k].op = op;
        out[k].port = x->w->op[op].n_out;
        out[k].n_cons = 0;
        out[k].folded = false;
        out[k].internal = false;
        x->t[id] = out[k];
        if ((rc = workload_add_output(x->w, ox_tensor_bytes(x, &x->t[id])))) {
            return rc;
        }
        bytes += (double)ox_tensor_bytes(x, &x->t[id]);
    }
    if (act) {
        flops *= x->scale;
    }
    if (gr) {
        flops += x->gsum[gi];
        x->st.n_fused += gr->n;
    }
    x->w->op[op].flops = flops;
    x->w->op[op].bytes = bytes;
    x->w->op[op].persistent = persistent;
    x->st.flops += flops;
    return 0;
}

int ox_import_node(struct ox *x, size_t i)
{
    const Onnx__GraphProto *g = x->g;
    const Onnx__NodeProto *nd = g->node[i];
    int32_t gi = x->gx.grp[i];
    const struct grp *gr = gi >= 0 ? &x->gx.g[gi] : NULL;
    bool last = !gr || gr->node[gr->n - 1] == (int32_t)i, all_folded = true;
    double flops = 0;
    bool act = false, fold;
    char name[1024];
    int rc;

    if ((rc = node_name(x, g, gr ? (size_t)gr->node[0] : i, name, sizeof(name))) ||
        (rc = node_inputs(x, nd, name, &act, &all_folded)) ||
        (rc = node_outputs(x, nd, name, &flops))) {
        return rc;
    }
    /* known at import time (shape arithmetic, small constants): no op */
    fold = ox_node_folds(x, i, (int32_t)nd->n_output, all_folded);
    x->st.n_nodes++;
    if (fold || x->gx.pview[i] || !last) {
        return node_hide(x, i, name, fold, act, flops);
    }
    return node_emit(x, i, name, act, flops);
}
