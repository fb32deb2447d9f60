/*
 * recompute.c - activation recomputation (see recompute.h for the rules).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/recompute.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/strbuf.h"
#include "core/strmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const mode_names[] = {"none", "full", "selective"};

int train_parse_recompute(const char *s, enum train_recompute *mode)
{
    for (int i = 0; i < 3; i++) {
        if (strcmp(s, mode_names[i]) == 0) {
            *mode = (enum train_recompute)i;
            return 0;
        }
    }
    return err_set(BAECHI_EINVAL, "unknown recompute mode '%s' (known: none, full, selective)", s);
}

const char *train_recompute_name(enum train_recompute mode)
{
    return (unsigned)mode < 3 ? mode_names[mode] : "?";
}

void recompute_release(struct recompute *r)
{
    free(r->seg);
    free(r->need);
    free(r->rid);
    free(r->done);
    free(r->key);
    free(r->key_len);
    memset(r, 0, sizeof(*r));
}

/* Whether s[0..len) ends in '.' and digits (an nn.ModuleList item). */
static bool numbered(const char *s, size_t len)
{
    size_t i = len;

    while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9') {
        i--;
    }
    return i < len && i > 0 && s[i - 1] == '.';
}

/* The layer of op v (recompute.h): of its group, or of its name scope when
 * it has no group, the components up to the first numbered one, else the
 * first component; NULL when none. */
static const char *layer_of(const struct wl_op *op, size_t *len)
{
    const char *s = op->group ? op->group : op->name;
    const char *lead, *end, *first = NULL;

    if (!s) {
        return NULL;
    }
    lead = s[0] == '/' ? s + 1 : s;
    end = op->group ? s + strlen(s) : strrchr(s, '/'); /* a name: its scope */
    if (!end || end <= lead) {
        return NULL;
    }
    for (const char *c = lead; c < end;) {
        const char *slash = memchr(c, '/', (size_t)(end - c));
        const char *stop = slash ? slash : end;

        if (!first) {
            first = stop;
        }
        if (numbered(c, (size_t)(stop - c))) {
            *len = (size_t)(stop - s);
            return s;
        }
        c = stop + 1;
    }
    *len = (size_t)(first - s);
    return *len > 0 ? s : NULL;
}

/* Which ops depend on the step's data: the data sources (no data input, no
 * parameters, differentiable or a data op) and what reads them. */
static void mark_data(const struct recompute_graph *g, bool *dd)
{
    for (int32_t p = 0; p < g->n; p++) {
        int32_t v = g->topo[p];
        const struct wl_op *op = &g->fwd->op[v];
        bool any = false;

        for (int32_t k = 0; k < op->n_in; k++) {
            const struct wl_input *in = &g->fwd->input[op->in_off + k];

            if (in->port != WL_PORT_CONTROL) {
                any = true;
                dd[v] = dd[v] || dd[in->producer];
            }
        }
        if (ops_is_data(op->type) || (!any && op->persistent <= 0 && ops_has_gradient(op->type))) {
            dd[v] = true;
        }
    }
}

/* full: one segment per layer. */
static int segments_full(struct recompute *r, const bool *dd)
{
    const struct recompute_graph *g = &r->g;
    struct strpool pool;
    struct strmap map;
    int rc = 0;

    strpool_init(&pool);
    strmap_init(&map);
    for (int32_t v = 0; v < g->n && !rc; v++) {
        size_t len = 0;
        const char *k = layer_of(&g->fwd->op[v], &len);
        int32_t id;

        if (!k || !dd[v]) {
            continue;
        }
        id = strmap_get(&map, k, len);
        if (id < 0) {
            char *copy = strpool_add(&pool, k, len);

            id = r->n_seg;
            rc = copy ? strmap_put(&map, copy, id, NULL) : BAECHI_ENOMEM;
            r->n_seg++;
        }
        r->seg[v] = id;
    }
    strmap_release(&map);
    strpool_release(&pool);
    return rc;
}

static bool is_matmul(const char *type)
{
    const struct ops_row *row = ops_find(type);

    return row && row->cat == OPS_CAT_MATMUL;
}

/* The producer of op v's data input k, -1 for a control input. */
static int32_t data_producer(const struct workload *w, int32_t v, int32_t k)
{
    const struct wl_input *in = &w->input[w->op[v].in_off + k];

    return in->port == WL_PORT_CONTROL ? -1 : in->producer;
}

/*
 * selective: per softmax, its scores matmul and the scale / mask region
 * before it (back through OPS_IN_SOFTMAX_PATTERN ops up to a matmul), and
 * after it a dropout and the matmul with V.
 */
static void segments_selective(struct recompute *r, const bool *dd)
{
    const struct recompute_graph *g = &r->g;
    const struct workload *w = g->fwd;

    for (int32_t p = 0; p < g->n; p++) {
        int32_t s = g->topo[p], id = r->n_seg;

        if (!dd[s] || strcmp(w->op[s].type, "Softmax") != 0 || r->seg[s] >= 0) {
            continue;
        }
        r->n_seg++;
        r->seg[s] = id;
        /* backwards, in reverse topological order: the region's producers */
        for (int32_t q = p; q >= 0; q--) {
            int32_t u = g->topo[q];

            if (r->seg[u] != id || is_matmul(w->op[u].type)) {
                continue;
            }
            for (int32_t k = 0; k < w->op[u].n_in; k++) {
                int32_t x = data_producer(w, u, k);

                if (x >= 0 && dd[x] && r->seg[x] < 0 &&
                    (is_matmul(w->op[x].type) ||
                     ops_has_flag(w->op[x].type, OPS_IN_SOFTMAX_PATTERN))) {
                    r->seg[x] = id;
                }
            }
        }
        /* forwards: a dropout on the probabilities, then the matmul with V */
        for (int32_t u = s, hop = 0; u >= 0 && hop < 2; hop++) {
            int32_t next = -1;

            for (int32_t e = g->cstart[u]; e < g->cstart[u + 1]; e++) {
                int32_t c = g->slot_op[g->cons[e]];

                if (r->seg[c] >= 0) {
                    continue;
                }
                if (is_matmul(w->op[c].type)) {
                    r->seg[c] = id;
                } else if (hop == 0 && strcmp(w->op[c].type, "Dropout") == 0) {
                    r->seg[c] = id;
                    next = c;
                }
            }
            u = next;
        }
    }
}

/* What the gradient ops of a segment read inside it, and, transitively,
 * the producers in the segment of what is recomputed. */
static void mark_needed(struct recompute *r)
{
    const struct recompute_graph *g = &r->g;
    const struct workload *w = g->fwd;

    for (int32_t p = g->n - 1; p >= 0; p--) {
        int32_t u = g->topo[p];
        enum ops_save rule;

        if (r->seg[u] < 0) {
            continue;
        }
        rule = g->save_all_inputs ? OPS_SAVE_INPUTS : ops_save_of(w->op[u].type);
        if (g->rg[u] && (rule == OPS_SAVE_RESULT || g->extra[u] > 0)) {
            r->need[u] = true;
        }
        for (int32_t k = 0, first = 1; k < w->op[u].n_in; k++) {
            int32_t x = data_producer(w, u, k);
            bool saved =
                g->rg[u] && (rule == OPS_SAVE_INPUTS || (rule == OPS_SAVE_FIRST_INPUT && first));

            if (x < 0) {
                continue;
            }
            first = 0;
            if (r->seg[x] == r->seg[u] && (r->need[u] || saved)) {
                r->need[x] = true;
            }
        }
    }
}

int recompute_plan(struct recompute *r, const struct recompute_graph *g, enum train_recompute mode)
{
    size_t n = (size_t)g->n;
    bool *dd = NULL;
    int rc = 0;

    memset(r, 0, sizeof(*r));
    r->g = *g;
    r->mode = mode;
    if (mode == TRAIN_RECOMPUTE_NONE) {
        return 0;
    }
    r->seg = mem_calloc(n + 1, sizeof(*r->seg));
    r->need = mem_calloc(n + 1, sizeof(*r->need));
    r->rid = mem_calloc(n * (size_t)g->n_mb + 1, sizeof(*r->rid));
    dd = mem_calloc(n + 1, sizeof(*dd));
    if (!r->seg || !r->need || !r->rid || !dd) {
        rc = BAECHI_ENOMEM;
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        r->seg[i] = -1;
    }
    for (size_t i = 0; i < n * (size_t)g->n_mb; i++) {
        r->rid[i] = -1;
    }
    mark_data(g, dd);
    if (mode == TRAIN_RECOMPUTE_FULL) {
        rc = segments_full(r, dd);
    } else {
        segments_selective(r, dd);
        /* nothing to recompute is an option without effect: say so (issue 33 item 2) */
        if (r->n_seg == 0) {
            rc = err_set(BAECHI_EINVAL, "--recompute selective recomputes the attention core "
                                        "(Softmax and its matmuls) and this graph has none: use "
                                        "full or none");
        }
    }
    if (rc) {
        goto done;
    }
    mark_needed(r);
    r->done = mem_calloc((size_t)r->n_seg * (size_t)g->n_mb + 1, sizeof(*r->done));
    if (!r->done) {
        rc = BAECHI_ENOMEM;
    }
done:
    free(dd);
    return rc;
}

int32_t recompute_source(const struct recompute *r, int32_t m, int32_t p, const int32_t *fid)
{
    int32_t id = r->rid ? r->rid[(size_t)m * r->g.n + p] : -1;

    return id >= 0 ? id : fid[p];
}

/* The gradient ops (already added) that bring the gradient into segment s
 * from outside, in micro-batch m: their ids in deps[], their number. */
static int32_t incoming(const struct recompute *r, int32_t s, int32_t m, const int32_t *bwd,
                        int32_t first_bwd, int32_t *deps, int32_t max)
{
    const struct recompute_graph *g = &r->g;
    int32_t nd = 0;

    for (int32_t v = 0; v < g->n; v++) {
        if (r->seg[v] != s) {
            continue;
        }
        for (int32_t e = g->cstart[v]; e < g->cstart[v + 1]; e++) {
            int32_t slot = g->cons[e], c = g->slot_op[slot];
            int32_t id = bwd[(size_t)(g->rep[c] ? m : 0) * g->n + c];
            bool dup = false;

            if (r->seg[c] == s || !g->rg[c] || g->gport[slot] < 0 || id < first_bwd) {
                continue;
            }
            for (int32_t i = 0; i < nd; i++) {
                dup = dup || deps[i] == id;
            }
            if (!dup && nd < max) {
                deps[nd++] = id;
            }
        }
    }
    return nd;
}

/* The name of the recomputed copy of `name` of layer key[0..len), with
 * "_<n>" when n > 0, into *out (emptied first). */
static int copy_name(struct strbuf *out, const char *name, const char *key, size_t len, int n)
{
    int rc;

    if (key && strncmp(name, key, len) == 0 && name[len] == '/') {
        rc = strbuf_setf(out, "%.*s/recompute%s", (int)len, key, name + len);
    } else {
        rc = strbuf_setf(out, "%s/recompute", name);
    }
    if (rc == 0 && n > 0) {
        rc = strbuf_addf(out, "_%d", n);
    }
    return rc;
}

/* Adds the recomputed copy of forward op v (micro-batch m). */
static int add_copy(struct recompute *r, struct workload *out, int32_t v, int32_t m,
                    const int32_t *fid, const int32_t *deps, int32_t nd)
{
    const struct recompute_graph *g = &r->g;
    const struct wl_op *op = &g->fwd->op[v];
    const int32_t src = fid[v];
    bool inside = false;
    struct strbuf name = STRBUF_INIT;
    size_t len = 0;
    const char *key = layer_of(op, &len);
    struct wl_op *dst;
    int32_t id;
    int rc;

    rc = copy_name(&name, out->op[src].name, key, len, 0);
    for (int n = 1; rc == 0 && workload_find(out, name.buf) >= 0 && n < 1000; n++) {
        rc = copy_name(&name, out->op[src].name, key, len, n);
    }
    if (rc == 0) {
        rc = workload_add_op(out, name.buf, op->type, &id);
    }
    strbuf_release(&name);
    if (rc) {
        return rc;
    }
    for (int32_t k = 0; k < out->op[src].n_out; k++) {
        if ((rc = workload_add_output(out, out->out_bytes[out->op[src].out_off + k]))) {
            return rc;
        }
    }
    for (int32_t k = 0; k < op->n_in; k++) {
        const struct wl_input *in = &g->fwd->input[op->in_off + k];
        int32_t p = in->producer, from = fid[p];

        if (in->port != WL_PORT_CONTROL && r->seg[p] == r->seg[v] &&
            r->rid[(size_t)m * g->n + p] >= 0) {
            from = r->rid[(size_t)m * g->n + p];
            inside = true;
        }
        if ((rc = workload_add_input(out, from, in->port, in->line, in->col))) {
            return rc;
        }
    }
    for (int32_t i = 0; !inside && i < nd; i++) {
        if ((rc = workload_add_input(out, deps[i], WL_PORT_CONTROL, 0, 0))) {
            return rc;
        }
    }
    for (int32_t k = 0; k < out->op[src].n_ext; k++) {
        const struct wl_ext *e = &out->ext[out->op[src].ext_off + k];
        struct yval val;

        /* the ext array may move while this op's are added: copy first */
        if ((rc = yval_copy(&val, &e->val))) {
            return rc;
        }
        rc = workload_add_ext(out, out->ext[out->op[src].ext_off + k].key, &val);
        yval_release(&val);
        if (rc) {
            return rc;
        }
    }
    if ((rc = workload_set_group(out, id, workload_group(g->fwd, v)))) {
        return rc;
    }
    dst = &out->op[id];
    dst->time_us = out->op[src].time_us;
    dst->flops = out->op[src].flops;
    dst->bytes = out->op[src].bytes;
    dst->temp = out->op[src].temp;
    dst->persistent = 0;
    dst->phase = PHASE_BACKWARD;
    dst->has_phase = true;
    dst->device = out->op[src].device;
    r->rid[(size_t)m * g->n + v] = id;
    return 0;
}

int recompute_before_grad(struct recompute *r, struct workload *out, int32_t v, int32_t m,
                          const int32_t *fid, const int32_t *bwd, int32_t first_bwd)
{
    const struct recompute_graph *g = &r->g;
    int32_t s = r->seg ? r->seg[v] : -1, nd, deps[64];
    int rc;

    if (s < 0 || r->done[(size_t)s * g->n_mb + m]) {
        return 0;
    }
    r->done[(size_t)s * g->n_mb + m] = 1;
    nd = incoming(r, s, m, bwd, first_bwd, deps, 64);
    if (nd == 0) {
        return 0; /* nothing brings a gradient in yet: the loss's layer */
    }
    for (int32_t p = 0; p < g->n; p++) {
        int32_t u = g->topo[p];

        if (r->seg[u] == s && r->need[u] && (rc = add_copy(r, out, u, m, fid, deps, nd))) {
            return rc;
        }
    }
    return 0;
}
