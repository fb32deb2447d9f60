/*
 * parallel_tp.c - Megatron-LM tensor parallelism (Shoeybi et al. 2019) in the
 * parallel transform: the roles of the attention and MLP blocks' ops, the
 * split sizes, and the all-reduces (parallel.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/parallel_internal.h"
#include "workloads/ops.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/strmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The Megatron role of forward op s[0..n) by its name (ops.h: the names
 * the suite recognises live beside the op types). */
enum tp_role parallel_tp_role(const char *s, size_t n)
{
    switch (ops_tp_role_of_name(s, n)) {
    case OPS_TP_ENTRY:
        return TP_ENTRY;
    case OPS_TP_INNER:
        return TP_INNER;
    case OPS_TP_EXIT:
        return TP_EXIT;
    default:
        return TP_NONE;
    }
}

/* Divisor of output `port` of op i under TP (parallel.h: split tensors). */
int64_t parallel_out_div(const struct ctx *x, int32_t i, int32_t port)
{
    const struct wl_op *op = &x->w->op[i];
    enum tp_role r = x->role[x->base[i]];

    if (r == TP_NONE) {
        return 1;
    }
    if (r == TP_SEQ) { /* forward: every output; backward: the activations' gradients */
        return op->phase == PHASE_FORWARD || x->seq_port[op->out_off + port] ? x->o->tp : 1;
    }
    if (op->phase == PHASE_FORWARD) {
        return r == TP_EXIT || r == TP_XENT ? 1 : x->o->tp;
    }
    if (r == TP_ENTRY) { /* the input's gradient is whole (a partial sum), the weight's split */
        return port == op->n_out - 1 && (x->upd[x->base[i]] >= 0 || x->vocab[x->base[i]]) ? x->o->tp
                                                                                          : 1;
    }
    return x->o->tp;
}

int64_t parallel_tp_share(const struct ctx *x, int32_t i, int64_t full, int64_t div)
{
    if (div > 1 && x->vocab[x->base[i]]) {
        return full / x->vocab_rows * (x->vocab_padded / div);
    }
    return full / div;
}

double parallel_tp_compute_div(const struct ctx *x, int32_t i)
{
    if (x->role[x->base[i]] == TP_NONE ||
        (x->role[x->base[i]] == TP_SEQ && x->w->op[i].phase == PHASE_UPDATE)) {
        return 1;
    }
    if (x->vocab[x->base[i]]) {
        return (double)x->o->tp * (double)x->vocab_rows / (double)x->vocab_padded;
    }
    return x->o->tp;
}

/*
 * An untied input embedding (gen gpt --embeddings untied, Llama): besides
 * the head's table, a table of whole vocabulary rows that only Gathers
 * read is vocabulary-parallel too (Megatron's VocabParallelEmbedding): its
 * V'/T rows per rank, each lookup masked and all-reduced.  0 always.
 */
static int find_untied_embedding(struct ctx *x)
{
    const struct workload *w = x->w;

    for (int32_t t = 0; t < x->n; t++) {
        const struct wl_op *op = &w->op[t];
        int32_t lookups = 0, others = 0;

        if (op->phase != PHASE_FORWARD || op->n_in != 0 || op->persistent <= 0 ||
            x->vocab[x->base[t]] || op->persistent % x->vocab_rows != 0 ||
            strcmp(op->type, "VariableV2") != 0) {
            continue;
        }
        for (int32_t g = 0; g < x->n; g++) {
            const struct wl_op *o = &w->op[g];

            for (int32_t k = 0; k < o->n_in && o->phase == PHASE_FORWARD; k++) {
                if (w->input[o->in_off + k].producer == t) {
                    bool lookup = k == 0 && ops_is_table_lookup(o->type);

                    lookups += lookup;
                    others += !lookup;
                }
            }
        }
        if (lookups == 0 || others > 0) {
            continue;
        }
        x->role[x->base[t]] = TP_INNER;
        x->vocab[x->base[t]] = true;
        for (int32_t g = 0; g < x->n; g++) {
            const struct wl_op *o = &w->op[g];

            if (o->phase == PHASE_FORWARD && ops_is_table_lookup(o->type) && o->n_in >= 1 &&
                w->input[o->in_off].producer == t) {
                x->role[x->base[g]] = TP_EXIT;
                x->vocab[x->base[g]] = true;
            }
        }
    }
    return 0;
}

int parallel_tp_find_vocab(struct ctx *x)
{
    const struct workload *w = x->w;
    const int64_t T = x->o->tp;

    for (int32_t l = 0; l < x->n && x->vocab_rows == 0; l++) {
        const struct wl_op *op = &w->op[l];
        const struct wl_input *in = &w->input[op->in_off];
        const struct wl_op *m;
        int32_t t;
        int64_t logits, labels, table;

        if (op->phase != PHASE_FORWARD || !ops_is_softmax_cross_entropy(op->type) || op->n_in < 2 ||
            in[0].port == WL_PORT_CONTROL || in[1].port == WL_PORT_CONTROL) {
            continue;
        }
        m = &w->op[in[0].producer];
        if (m->phase != PHASE_FORWARD || !ops_is_dense_product(m->type) || m->n_in < 2 ||
            w->input[m->in_off + 1].port == WL_PORT_CONTROL) {
            continue;
        }
        t = w->input[m->in_off + 1].producer;
        logits = w->out_bytes[m->out_off + in[0].port];
        labels = w->out_bytes[w->op[in[1].producer].out_off + in[1].port];
        table = w->out_bytes[w->op[t].out_off + w->input[m->in_off + 1].port];
        /* logits s.b.V and labels s.b at one element size: V = their ratio */
        if (w->op[t].persistent <= 0 || w->op[t].n_in != 0 || labels <= 0 || logits % labels ||
            table % (logits / labels) || w->op[t].persistent % (logits / labels)) {
            continue;
        }
        x->vocab_rows = logits / labels;
        /* deviation: Megatron pads at T = 1 too; without --tp the table keeps V */
        x->vocab_padded = (x->vocab_rows + 128 * T - 1) / (128 * T) * (128 * T);
        /* the table rows, the LM head (column-parallel: logits V'/T) and the
         * loss on the split logits; the lookups below */
        x->role[x->base[t]] = TP_INNER;
        x->role[x->base[in[0].producer]] = TP_ENTRY;
        x->role[x->base[l]] = TP_XENT;
        x->vocab[x->base[t]] = x->vocab[x->base[in[0].producer]] = x->vocab[x->base[l]] = true;
        for (int32_t g = 0; g < x->n; g++) {
            const struct wl_op *o = &w->op[g];

            if (o->phase == PHASE_FORWARD && ops_is_table_lookup(o->type) && o->n_in >= 1 &&
                w->input[o->in_off].port != WL_PORT_CONTROL && w->input[o->in_off].producer == t) {
                x->role[x->base[g]] = TP_EXIT; /* masked lookup of V'/T rows, all-reduced */
                x->vocab[x->base[g]] = true;
            }
        }
    }
    return x->vocab_rows > 0 ? find_untied_embedding(x) : 0;
}

/* Bytes of output `port` of op i on one rank. */
int64_t parallel_out_bytes(const struct ctx *x, int32_t i, int32_t port)
{
    return parallel_tp_share(x, i, x->w->out_bytes[x->w->op[i].out_off + port],
                             parallel_out_div(x, i, port));
}

/* TP splits must be exact: every split size a multiple of T. */
/* Grouped-query attention (gen gpt --kv-heads, `x-attention: {heads, kv_heads}`): each
 * rank holds kv_heads / T K/V heads, as Megatron-LM's query groups; 0 or BAECHI_EINVAL. */
static int check_kv_heads(const struct ctx *x)
{
    const struct workload *w = x->w;

    for (int32_t e = 0; e < w->n_top_ext && x->o->tp > 1; e++) {
        const struct yval *v = &w->top_ext[e].val;

        if (strcmp(w->top_ext[e].key, "x-attention") != 0 || v->kind != YVAL_MAP) {
            continue;
        }
        for (int32_t k = 0; k < v->n; k++) {
            long kv = v->items[k].kind == YVAL_SCALAR ? strtol(v->items[k].scalar, NULL, 10) : 0;

            if (strcmp(v->keys[k], "kv_heads") == 0 && kv > 0 && kv % x->o->tp != 0) {
                return err_set(BAECHI_EINVAL,
                               "tensor parallelism: --tp %d does not divide the %ld K/V heads of "
                               "grouped-query attention (each rank holds kv_heads / T of them; "
                               "x-attention in the workload)",
                               (int)x->o->tp, kv);
            }
        }
    }
    return 0;
}

int parallel_tp_check_split(const struct ctx *x)
{
    const struct workload *w = x->w;
    int rc = check_kv_heads(x);

    if (rc) {
        return rc;
    }

    for (int32_t i = 0; i < x->n; i++) {
        const struct wl_op *op = &w->op[i];

        if (x->role[x->base[i]] == TP_NONE) {
            continue;
        }
        if (x->role[x->base[i]] == TP_SEQ) { /* parameters whole; outputs checked below */
            for (int32_t k = 0; k < op->n_out; k++) {
                if (w->out_bytes[op->out_off + k] % parallel_out_div(x, i, k) != 0) {
                    return err_set(BAECHI_EINVAL,
                                   "sequence parallelism: output %d of op '%s' (%lld bytes) is "
                                   "not a multiple of --tp %d (the sequence must divide by T)",
                                   (int)k, op->name, (long long)w->out_bytes[op->out_off + k],
                                   (int)x->o->tp);
                }
            }
            continue;
        }
        if (x->vocab[x->base[i]]) { /* split by rows of V: sizes must be whole rows */
            if (op->persistent % x->vocab_rows != 0) {
                return err_set(BAECHI_EINVAL,
                               "tensor parallelism: op '%s' holds %lld bytes, not rows of the "
                               "vocabulary (%lld)",
                               op->name, (long long)op->persistent, (long long)x->vocab_rows);
            }
            for (int32_t k = 0; k < op->n_out; k++) {
                if (parallel_out_div(x, i, k) > 1 &&
                    w->out_bytes[op->out_off + k] % x->vocab_rows != 0) {
                    return err_set(BAECHI_EINVAL,
                                   "tensor parallelism: output %d of op '%s' (%lld bytes) is not "
                                   "rows of the vocabulary (%lld)",
                                   (int)k, op->name, (long long)w->out_bytes[op->out_off + k],
                                   (long long)x->vocab_rows);
                }
            }
            continue;
        }
        if (op->persistent % x->o->tp != 0) {
            return err_set(BAECHI_EINVAL,
                           "tensor parallelism: op '%s' holds %lld bytes, not a multiple of "
                           "--tp %d (the heads and widths must divide by T)",
                           op->name, (long long)op->persistent, (int)x->o->tp);
        }
        for (int32_t k = 0; k < op->n_out; k++) {
            if (w->out_bytes[op->out_off + k] % parallel_out_div(x, i, k) != 0) {
                return err_set(BAECHI_EINVAL,
                               "tensor parallelism: output %d of op '%s' (%lld bytes) is not a "
                               "multiple of --tp %d (the heads and widths must divide by T)",
                               (int)k, op->name, (long long)w->out_bytes[op->out_off + k],
                               (int)x->o->tp);
            }
        }
    }
    return 0;
}

/* The all-reduce of the gradient of the input of TP group `key` (the
 * column-parallel ops reading one tensor): one collective over every entry
 * gradient of the group, which read it instead. */
int parallel_tp_plan_backward(struct ctx *x, int32_t g, const int32_t *next_member)
{
    struct coll c = {"AllReduce", "all-reduce", "", true, 0, 0, PHASE_BACKWARD, 0, 0, -1, false};
    int32_t at, rc;

    c.in_off = (int32_t)x->n_cin;
    c.bytes = c.out = parallel_out_bytes(x, g, 0);
    c.group_op = g;
    if (x->o->sp) { /* each rank keeps its part of the sequence */
        c.type = "ReduceScatter";
        c.kind = "reduce-scatter";
        c.out = c.bytes / x->o->tp;
    }
    if ((rc = parallel_coll_id(x, &c, "tp/%s/ar", x->w->op[g].name))) {
        return rc;
    }
    for (int32_t m = g; m >= 0; m = next_member[m]) {
        if ((rc = parallel_add_cin(x, m, 0))) {
            return rc;
        }
        c.n_in++;
    }
    if ((rc = parallel_push_coll(x, x->stage[g], &c, &at))) {
        return rc;
    }
    for (int32_t m = g; m >= 0; m = next_member[m]) {
        x->redirect[x->w->op[m].out_off] = at;
    }
    return 0;
}

/* The TP group of entry gradient g: the output port its forward copy reads;
 * -1 when g passes no gradient on (its input needs none). */
int32_t parallel_tp_key(const struct ctx *x, int32_t g)
{
    const struct workload *w = x->w;
    const struct wl_op *op = &w->op[g];
    size_t n = strlen(op->name);
    int32_t f;

    if (op->phase != PHASE_BACKWARD || x->role[x->base[g]] != TP_ENTRY || n < 5 ||
        op->n_out < (x->upd[x->base[g]] >= 0 ? 2 : 1)) {
        return -1;
    }
    /* the forward op: the name less "/grad", looked up in place (a copy
     * into a char[1024] cut longer names, and the gradient lost its group) */
    if ((f = strmap_get(&w->by_name, op->name, n - 5)) < 0 || w->op[f].n_in < 1 ||
        w->input[w->op[f].in_off].port == WL_PORT_CONTROL) {
        return -1;
    }
    return w->op[w->input[w->op[f].in_off].producer].out_off + w->input[w->op[f].in_off].port;
}

int parallel_tp_check_roles(const struct ctx *x, int32_t n_split)
{
    const struct workload *w = x->w;
    const struct wl_op *bad = NULL;

    for (int32_t i = 0; i < x->n && x->o->tp > 1; i++) {
        const struct wl_op *op = &w->op[i];

        if (!bad && op->phase == PHASE_FORWARD && op->persistent > 0 &&
            x->role[x->base[i]] == TP_NONE && ops_names_weight_product(op->type)) {
            bad = op;
        }
    }
    if (x->o->tp > 1 && (bad || n_split == 0)) {
        return err_set(BAECHI_EINVAL,
                       "tensor parallelism: %s%s%s is not in an attention or MLP block this "
                       "transform recognises (the GPT generator's h<l>/attn/{qkv,scores,softmax,"
                       "context,out} and h<l>/mlp/{c_fc,gelu,c_proj}, the Transformer's "
                       ".../self_attention, .../cross_attention and .../ffn/{fc1,relu,fc2})",
                       bad ? "op '" : "no op of '", bad ? bad->name : w->name,
                       bad ? "' (a matmul with parameters)" : "'");
    }
    return 0;
}

/* The vocabulary-parallel cross-entropy's all-reduces over the TP group
 * (Megatron's vocab_parallel_cross_entropy: the logits' max, the target
 * logit, the sum of exponentials: one fp32 value per token each, here the
 * bytes of the labels, one element per token), before loss op i, which
 * reads it.  deviation: one all-reduce of the three's bytes (one latency
 * instead of three). */
int parallel_tp_plan_xent(struct ctx *x, int32_t i, int32_t p)
{
    const struct workload *w = x->w;
    const struct wl_op *op = &w->op[i];
    const struct wl_input *in = &w->input[op->in_off];
    struct coll c = {"AllReduce", "all-reduce", "", true, 0, 0, PHASE_FORWARD, 0, 1, -1, false};
    int32_t at;
    int rc;

    c.in_off = (int32_t)x->n_cin;
    c.bytes = c.out = 3 * w->out_bytes[w->op[in[1].producer].out_off + in[1].port];
    c.group_op = i;
    if ((rc = parallel_coll_id(x, &c, "tp/%s/xent", op->name))) {
        return rc;
    }
    if ((rc = parallel_add_cin(x, in[0].producer, in[0].port)) ||
        (rc = parallel_push_coll(x, p, &c, &at))) {
        return rc;
    }
    x->extra_in[i] = at;
    return 0;
}

int parallel_tp_plan_forward(struct ctx *x, int32_t i, int32_t p)
{
    const struct wl_op *op = &x->w->op[i];
    struct coll c = {"AllReduce", "all-reduce", "", true, 0, 0, PHASE_FORWARD, 0, 1, -1, false};
    int32_t at;
    int rc;

    c.in_off = (int32_t)x->n_cin;
    c.bytes = c.out = parallel_out_bytes(x, i, 0);
    c.group_op = i;
    if (x->o->sp) { /* each rank keeps its part of the sequence */
        c.type = "ReduceScatter";
        c.kind = "reduce-scatter";
        c.out = c.bytes / x->o->tp;
    }
    if ((rc = parallel_coll_id(x, &c, "tp/%s/ar", op->name))) {
        return rc;
    }
    if ((rc = parallel_add_cin(x, i, 0)) || (rc = parallel_push_coll(x, p, &c, &at))) {
        return rc;
    }
    x->redirect[op->out_off] = at;
    return 0;
}

void parallel_tp_propagate(struct ctx *x)
{
    const struct workload *w = x->w;

    for (int32_t i = 0; i < x->n; i++) {
        const struct wl_op *op = &w->op[i];

        if (op->phase != PHASE_FORWARD || x->role[x->base[i]] != TP_NONE || op->persistent > 0 ||
            op->n_out < 1) {
            continue;
        }
        for (int32_t k = 0; k < op->n_in; k++) {
            const struct wl_input *in = &w->input[op->in_off + k];
            int32_t j = in->producer, bj;

            if (in->port == WL_PORT_CONTROL || w->op[j].phase != PHASE_FORWARD) {
                continue;
            }
            bj = x->base[j];
            if ((x->role[bj] == TP_ENTRY || x->role[bj] == TP_INNER) && !x->vocab[bj] &&
                w->out_bytes[w->op[j].out_off + in->port] == w->out_bytes[op->out_off]) {
                x->role[x->base[i]] = TP_INNER;
                break;
            }
        }
    }
}

/* Whether forward output (j, port) is split along the sequence under --sp:
 * a SEQ op's, or a row-parallel output after its reduce-scatter. */
static bool seq_forward(const struct ctx *x, int32_t j, int32_t port)
{
    enum tp_role r = x->role[x->base[j]];

    return x->w->op[j].phase == PHASE_FORWARD && (r == TP_SEQ || (r == TP_EXIT && port == 0));
}

/* Backward op g of a SEQ op: its outputs are the gradients of the forward
 * op's inputs that need one (train.h), in order, then its parameters'. */
static void seq_backward(struct ctx *x, int32_t g, const bool *has_grad)
{
    const struct workload *w = x->w;
    const struct wl_op *op = &w->op[g];
    size_t n = strlen(op->name);
    int32_t f, k = 0;

    if (n < 6 || strcmp(op->name + n - 5, "/grad") != 0) {
        return;
    }
    if ((f = strmap_get(&w->by_name, op->name, n - 5)) < 0) { /* the forward op */
        return;
    }
    for (int32_t j = 0; j < w->op[f].n_in && k < op->n_out; j++) {
        const struct wl_input *in = &w->input[w->op[f].in_off + j];

        if (in->port == WL_PORT_CONTROL || !has_grad[x->base[in->producer]]) {
            continue;
        }
        x->seq_port[op->out_off + k++] = x->seq_port[w->op[in->producer].out_off + in->port];
    }
}

/* deviation: the all-reduce of the LayerNorm weight gradients over the TP
 * group (Megatron's _allreduce_layernorm_grads) is not modelled. */
int parallel_tp_sequence(struct ctx *x)
{
    const struct workload *w = x->w;
    bool *has_grad = mem_calloc((size_t)x->n + 1, sizeof(*has_grad));

    if (!has_grad) {
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    /* forward: what reads a sequence-split tensor and has no TP role is
     * split along the sequence too (LayerNorm, dropout, residual Add) */
    for (int32_t i = 0; i < x->n; i++) {
        const struct wl_op *op = &w->op[i];

        if (op->phase != PHASE_FORWARD) {
            continue;
        }
        for (int32_t k = 0; k < op->n_in && x->role[x->base[i]] == TP_NONE; k++) {
            const struct wl_input *in = &w->input[op->in_off + k];

            if (in->port != WL_PORT_CONTROL && seq_forward(x, in->producer, in->port)) {
                x->role[x->base[i]] = TP_SEQ;
            }
        }
        for (int32_t k = 0; k < op->n_out; k++) {
            x->seq_port[op->out_off + k] = seq_forward(x, i, k);
        }
    }
    for (int32_t i = 0; i < x->n; i++) {
        has_grad[x->base[i]] |= w->op[i].phase == PHASE_BACKWARD;
    }
    /* backward: a SEQ op's activation gradients, a column-parallel group's
     * input gradient after its reduce-scatter */
    for (int32_t i = 0; i < x->n; i++) {
        const struct wl_op *op = &w->op[i];

        if (op->phase != PHASE_BACKWARD) {
            continue;
        }
        if (x->role[x->base[i]] == TP_SEQ) {
            seq_backward(x, i, has_grad);
        } else if (x->role[x->base[i]] == TP_ENTRY && parallel_tp_key(x, i) >= 0) {
            x->seq_port[op->out_off] = true;
        }
    }
    free(has_grad);
    return 0;
}

/*
 * A backward all-gather of a forward tensor (the sequence-split input of a
 * column-parallel matmul, re-gathered for its weight gradient) waits for the
 * gradients its reader i gets from stage p's backward ops (control inputs,
 * *n_in counted): Megatron's LinearWithGradAccumulationAndAsyncCommunication
 * launches it in the linear's backward.  Read by nothing but its forward
 * producer, it would run in the forward pass and hold the whole gathered
 * tensor until backward, where Korthikanti et al. (2022, §4.2.2) keep only
 * the 1/T share (the LayerNorm outputs' 2sbh/t each in the saved bytes).
 */
static int gather_after_gradient(struct ctx *x, int32_t i, int32_t skip, int32_t p, int32_t *n_in)
{
    const struct workload *w = x->w;
    const struct wl_op *op = &w->op[i];
    int rc;

    for (int32_t k = 0; k < op->n_in; k++) {
        const struct wl_input *in = &w->input[op->in_off + k];

        if (k == skip || in->port == WL_PORT_CONTROL ||
            w->op[in->producer].phase != PHASE_BACKWARD || x->stage[in->producer] != p) {
            continue;
        }
        if ((rc = parallel_add_cin(x, in->producer, WL_PORT_CONTROL))) {
            return rc;
        }
        (*n_in)++;
    }
    return 0;
}

int parallel_tp_plan_gathers(struct ctx *x, int32_t i, int32_t p)
{
    const struct workload *w = x->w;
    const struct wl_op *op = &w->op[i];
    enum tp_role r = x->role[x->base[i]];
    int32_t ph = op->phase == PHASE_FORWARD ? 0 : 1;
    int rc;

    if (r == TP_NONE || r == TP_SEQ) {
        return 0;
    }
    for (int32_t k = 0; k < op->n_in; k++) {
        const struct wl_input *in = &w->input[op->in_off + k];
        int32_t port, key;

        if (in->port == WL_PORT_CONTROL) {
            continue;
        }
        port = w->op[in->producer].out_off + in->port;
        if (!x->seq_port[port]) {
            continue;
        }
        key = 2 * port + ph;
        if (x->ag_at[key] < 0 || x->ag_stage[key] != p) {
            struct coll c = {"AllGather", "all-gather", "", true, 0, 0, op->phase, 0, 1, -1, false};

            c.in_off = (int32_t)x->n_cin;
            c.bytes = c.out = w->out_bytes[port];
            c.group_op = i;
            c.follow = true;
            if ((rc = parallel_coll_id(x, &c, "tp/%s/%d/ag", op->name, (int)k))) {
                return rc;
            }
            if ((rc = parallel_add_cin(x, in->producer, in->port)) ||
                (ph == 1 && (rc = gather_after_gradient(x, i, k, p, &c.n_in))) ||
                (rc = parallel_push_coll(x, p, &c, &x->ag_at[key]))) {
                return rc;
            }
            x->ag_stage[key] = p;
        }
        x->in_redirect[op->in_off + k] = x->ag_at[key];
    }
    return 0;
}
