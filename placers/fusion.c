/*
 * fusion.c - operator fusion (baechi-spec §6.3, FusedOpPlacer): edges inside
 * a colocation group are contracted when that cannot create a cycle, exactly
 * in the original's order, so that the fused graph, its adjacency order and
 * its costs are the original's.
 *
 * Rule: fuse u->v (same group) if outdeg(u) == 1 or indeg(v) == 1 in the
 * current, partly fused graph; otherwise only with check_disjoint and no
 * other u~>v path.  (`fusion_allow_cycle` is not offered: it can create
 * cycles that hang the list schedulers.)
 *
 * Quirks kept (§12.9): the survivor keeps its topo index; output memory is
 * recomputed only for survivors, from the distinct tensors on their external
 * out-edges; persistent memory is summed and temp maxed.
 *
 * Complexity: O(E · deg) edge look-ups by scanning adjacency lists, plus one
 * DFS per disjoint-path check.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/placer_internal.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"

#include <stdlib.h>
#include <string.h>

struct ivec {
    int32_t *a;
    int32_t n;
    size_t cap;
};

static int ivec_push(struct ivec *v, int32_t x)
{
    if (ARRAY_RESERVE(v->a, v->cap, (size_t)v->n + 1) != 0) {
        return BAECHI_ENOMEM;
    }
    v->a[v->n++] = x;
    return 0;
}

static void ivec_remove(struct ivec *v, int32_t x)
{
    for (int32_t i = 0; i < v->n; i++) {
        if (v->a[i] == x) {
            memmove(v->a + i, v->a + i + 1, (size_t)(v->n - i - 1) * sizeof(int32_t));
            v->n--;
            return;
        }
    }
}

struct fgraph {
    const struct pgraph *in;
    int32_t n;
    uint8_t *alive;
    int64_t *weight, *temp, *persist, *out;
    struct ivec *outl, *inl; /* edge ids in adjacency order */
    /* edges */
    int32_t *esrc, *edst;
    int64_t *ecomm;
    struct ivec *et; /* tensors per edge */
    uint8_t *ealive;
    size_t ne;
    size_t cap_src, cap_dst, cap_comm, cap_et, cap_alive;
    int32_t *parent;   /* node -> node it was fused into (union-find) */
    uint8_t *absorbed; /* survivor of at least one fusion */
    /* scratch */
    int32_t *mark; /* tensor / node marks */
    int32_t mark_stamp;
    int32_t *stack;
};

static int32_t find_edge(const struct fgraph *f, int32_t a, int32_t b)
{
    const struct ivec *o = &f->outl[a], *i = &f->inl[b];
    if (o->n <= i->n) {
        for (int32_t k = 0; k < o->n; k++) {
            if (f->edst[o->a[k]] == b) {
                return o->a[k];
            }
        }
    } else {
        for (int32_t k = 0; k < i->n; k++) {
            if (f->esrc[i->a[k]] == a) {
                return i->a[k];
            }
        }
    }
    return -1;
}

static int new_edge(struct fgraph *f, int32_t a, int32_t b, int32_t *id)
{
    size_t need = f->ne + 1;

    if (ARRAY_RESERVE(f->esrc, f->cap_src, need) != 0 ||
        ARRAY_RESERVE(f->edst, f->cap_dst, need) != 0 ||
        ARRAY_RESERVE(f->ecomm, f->cap_comm, need) != 0 ||
        ARRAY_RESERVE(f->et, f->cap_et, need) != 0 ||
        ARRAY_RESERVE(f->ealive, f->cap_alive, need) != 0) {
        return BAECHI_ENOMEM;
    }
    *id = (int32_t)f->ne;
    f->esrc[f->ne] = a;
    f->edst[f->ne] = b;
    f->ecomm[f->ne] = 0;
    memset(&f->et[f->ne], 0, sizeof(struct ivec));
    f->ealive[f->ne] = 1;
    f->ne++;
    if (ivec_push(&f->outl[a], *id) != 0 || ivec_push(&f->inl[b], *id) != 0) {
        return BAECHI_ENOMEM;
    }
    return 0;
}

/* add_or_merge(a->b, edge e): 1 when a new edge was made, 0 when merged. */
static int add_or_merge(struct fgraph *f, int32_t a, int32_t b, int32_t e, int *is_new)
{
    int32_t x = find_edge(f, a, b);
    int rc;

    if (x >= 0) {
        for (int32_t j = 0; j < f->et[e].n; j++) {
            int32_t t = f->et[e].a[j];
            bool seen = false;
            for (int32_t k = 0; k < f->et[x].n; k++) {
                if (f->et[x].a[k] == t) {
                    seen = true;
                    break;
                }
            }
            if (!seen) {
                if ((rc = ivec_push(&f->et[x], t)) != 0) {
                    return rc;
                }
                f->ecomm[x] += f->in->tcomm[t];
            }
        }
        *is_new = 0;
        return 0;
    }
    if ((rc = new_edge(f, a, b, &x)) != 0) {
        return rc;
    }
    for (int32_t j = 0; j < f->et[e].n; j++) {
        if ((rc = ivec_push(&f->et[x], f->et[e].a[j])) != 0) {
            return rc;
        }
    }
    f->ecomm[x] = f->ecomm[e];
    *is_new = 1;
    return 0;
}

static void kill_edge(struct fgraph *f, int32_t e)
{
    f->ealive[e] = 0;
    ivec_remove(&f->outl[f->esrc[e]], e);
    ivec_remove(&f->inl[f->edst[e]], e);
}

/* Is v reachable from u without the edge skip (u->v)? */
static bool other_path(struct fgraph *f, int32_t u, int32_t v, int32_t skip)
{
    int32_t sp = 0;
    int32_t st = ++f->mark_stamp;

    f->mark[u] = st;
    f->stack[sp++] = u;
    while (sp > 0) {
        int32_t x = f->stack[--sp];
        for (int32_t k = 0; k < f->outl[x].n; k++) {
            int32_t e = f->outl[x].a[k];
            int32_t y = f->edst[e];
            if (e == skip) {
                continue;
            }
            if (y == v) {
                return true;
            }
            if (f->mark[y] != st) {
                f->mark[y] = st;
                f->stack[sp++] = y;
            }
        }
    }
    return false;
}

static int32_t uf_find(int32_t *parent, int32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

static void recompute_out(struct fgraph *f, int32_t u)
{
    int32_t st = ++f->mark_stamp;
    int64_t sum = 0;

    for (int32_t k = 0; k < f->outl[u].n; k++) {
        int32_t e = f->outl[u].a[k];
        for (int32_t j = 0; j < f->et[e].n; j++) {
            int32_t t = f->et[e].a[j];
            if (f->mark[f->in->n + t] != st) {
                f->mark[f->in->n + t] = st;
                sum += f->in->tbytes[t];
            }
        }
    }
    f->out[u] = sum;
}

static int fuse(struct fgraph *f, int32_t u, int32_t v, int32_t g, struct ivec *q)
{
    const struct pgraph *in = f->in;
    int rc, is_new;

    f->weight[u] += f->weight[v];
    f->persist[u] += f->persist[v];
    if (f->temp[v] > f->temp[u]) {
        f->temp[u] = f->temp[v];
    }
    for (int32_t k = 0; k < f->inl[v].n; k++) {
        int32_t e = f->inl[v].a[k];
        int32_t x = f->esrc[e];
        if (x == u) {
            continue;
        }
        if ((rc = add_or_merge(f, x, u, e, &is_new)) != 0) {
            return rc;
        }
        if (is_new && in->group[x] == g) {
            if ((rc = ivec_push(q, x)) != 0 || (rc = ivec_push(q, u)) != 0) {
                return rc;
            }
        }
    }
    for (int32_t k = 0; k < f->outl[v].n; k++) {
        int32_t e = f->outl[v].a[k];
        int32_t y = f->edst[e];
        if (y == u) {
            continue;
        }
        if ((rc = add_or_merge(f, u, y, e, &is_new)) != 0) {
            return rc;
        }
        if (is_new && in->group[y] == g) {
            if ((rc = ivec_push(q, u)) != 0 || (rc = ivec_push(q, y)) != 0) {
                return rc;
            }
        }
    }
    while (f->inl[v].n > 0) {
        kill_edge(f, f->inl[v].a[0]);
    }
    while (f->outl[v].n > 0) {
        kill_edge(f, f->outl[v].a[0]);
    }
    f->alive[v] = 0;
    f->parent[v] = u;
    f->absorbed[u] = 1; /* output memory recomputed once at the end: it is not read before */
    return 0;
}

static void fgraph_release(struct fgraph *f)
{
    /* either list array may be missing when the other's allocation failed */
    for (int32_t v = 0; v < f->n; v++) {
        if (f->outl) {
            free(f->outl[v].a);
        }
        if (f->inl) {
            free(f->inl[v].a);
        }
    }
    for (size_t e = 0; e < f->ne; e++) {
        free(f->et[e].a);
    }
    free(f->alive);
    free(f->weight);
    free(f->temp);
    free(f->persist);
    free(f->out);
    free(f->outl);
    free(f->inl);
    free(f->esrc);
    free(f->edst);
    free(f->ecomm);
    free(f->et);
    free(f->ealive);
    free(f->parent);
    free(f->absorbed);
    free(f->mark);
    free(f->stack);
}

static int build_output(struct fgraph *f, struct pgraph *out, int32_t *map)
{
    const struct pgraph *in = f->in;
    int32_t *newid = NULL, *eid = NULL;
    int32_t n2 = 0, m2 = 0, nte = 0;
    int rc = 0;

    memset(out, 0, sizeof(*out));
    newid = mem_alloc_array((size_t)f->n + 1, sizeof(int32_t));
    /* eid counts in-edges per node: sized by nodes (a graph may have more
     * nodes than edges: it overran on 12 ops with 8 edges) */
    eid = mem_alloc_array((size_t)f->n + 1, sizeof(int32_t));
    if (!newid || !eid) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    for (int32_t v = 0; v < f->n; v++) {
        newid[v] = f->alive[v] ? n2++ : -1;
        if (f->alive[v]) {
            for (int32_t k = 0; k < f->outl[v].n; k++) {
                nte += f->et[f->outl[v].a[k]].n;
                m2++;
            }
        }
    }
    out->n = n2;
    out->m = m2;
    out->n_tensors = in->n_tensors;
    out->n_groups = in->n_groups;
    out->weight = mem_alloc_array((size_t)n2 + 1, sizeof(int64_t));
    out->temp = mem_alloc_array((size_t)n2 + 1, sizeof(int64_t));
    out->persist = mem_alloc_array((size_t)n2 + 1, sizeof(int64_t));
    out->out = mem_alloc_array((size_t)n2 + 1, sizeof(int64_t));
    out->group = mem_alloc_array((size_t)n2 + 1, sizeof(int32_t));
    out->topo = mem_alloc_array((size_t)n2 + 1, sizeof(int32_t));
    out->out_start = mem_calloc((size_t)n2 + 1, sizeof(int32_t));
    out->in_start = mem_calloc((size_t)n2 + 1, sizeof(int32_t));
    out->in_edge = mem_alloc_array((size_t)m2 + 1, sizeof(int32_t));
    out->src = mem_alloc_array((size_t)m2 + 1, sizeof(int32_t));
    out->dst = mem_alloc_array((size_t)m2 + 1, sizeof(int32_t));
    out->ecomm = mem_alloc_array((size_t)m2 + 1, sizeof(int64_t));
    out->et_start = mem_alloc_array((size_t)m2 + 1, sizeof(int32_t));
    out->et_tensor = mem_alloc_array((size_t)nte + 1, sizeof(int32_t));
    out->tcomm = mem_alloc_array((size_t)in->n_tensors + 1, sizeof(int64_t));
    out->tbytes = mem_alloc_array((size_t)in->n_tensors + 1, sizeof(int64_t));
    if (!out->weight || !out->temp || !out->persist || !out->out || !out->group || !out->topo ||
        !out->out_start || !out->in_start || !out->in_edge || !out->src || !out->dst ||
        !out->ecomm || !out->et_start || !out->et_tensor || !out->tcomm || !out->tbytes) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    memcpy(out->tcomm, in->tcomm, (size_t)in->n_tensors * sizeof(int64_t));
    memcpy(out->tbytes, in->tbytes, (size_t)in->n_tensors * sizeof(int64_t));
    m2 = 0;
    nte = 0;
    for (int32_t v = 0; v < f->n; v++) {
        int32_t w = newid[v];
        if (w < 0) {
            continue;
        }
        out->weight[w] = f->weight[v];
        out->temp[w] = f->temp[v];
        out->persist[w] = f->persist[v];
        out->out[w] = f->out[v];
        out->group[w] = in->group[v];
        out->topo[w] = in->topo[v];
        out->out_start[w] = m2;
        for (int32_t k = 0; k < f->outl[v].n; k++) {
            int32_t e = f->outl[v].a[k];
            out->src[m2] = w;
            out->dst[m2] = newid[f->edst[e]];
            out->ecomm[m2] = f->ecomm[e];
            out->et_start[m2] = nte;
            for (int32_t j = 0; j < f->et[e].n; j++) {
                out->et_tensor[nte++] = f->et[e].a[j];
            }
            out->in_start[newid[f->edst[e]] + 1]++;
            m2++;
        }
    }
    out->out_start[n2] = m2;
    out->et_start[m2] = nte;
    for (int32_t v = 0; v < n2; v++) {
        out->in_start[v + 1] += out->in_start[v];
    }
    /* in-edges by producer id: edges are source-major, so one pass in id order */
    memset(eid, 0, ((size_t)f->n + 1) * sizeof(int32_t));
    for (int32_t e = 0; e < m2; e++) {
        int32_t d = out->dst[e];
        out->in_edge[out->in_start[d] + eid[d]++] = e;
    }
    for (int32_t v = 0; v < in->n; v++) {
        map[v] = newid[uf_find(f->parent, v)];
    }
    rc = pgraph_finish_groups(out);
cleanup:
    if (rc) {
        pgraph_release(out);
    }
    free(newid);
    free(eid);
    return rc;
}

int pgraph_fuse(const struct pgraph *in, bool check_disjoint, struct pgraph *out, int32_t *map)
{
    struct fgraph f;
    struct ivec q = {0};
    size_t n = (size_t)in->n;
    int rc = 0;

    memset(&f, 0, sizeof(f));
    f.in = in;
    f.n = in->n;
    f.alive = mem_alloc_array(n + 1, 1);
    f.weight = mem_alloc_array(n + 1, sizeof(int64_t));
    f.temp = mem_alloc_array(n + 1, sizeof(int64_t));
    f.persist = mem_alloc_array(n + 1, sizeof(int64_t));
    f.out = mem_alloc_array(n + 1, sizeof(int64_t));
    f.outl = mem_calloc(n + 1, sizeof(struct ivec));
    f.inl = mem_calloc(n + 1, sizeof(struct ivec));
    f.parent = mem_alloc_array(n + 1, sizeof(int32_t));
    f.absorbed = mem_calloc(n + 1, 1);
    f.mark = mem_calloc(n + (size_t)in->n_tensors + 1, sizeof(int32_t));
    f.stack = mem_alloc_array(n + 1, sizeof(int32_t));
    if (!f.alive || !f.weight || !f.temp || !f.persist || !f.out || !f.outl || !f.inl ||
        !f.parent || !f.absorbed || !f.mark || !f.stack) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    for (int32_t v = 0; v < in->n; v++) {
        f.alive[v] = 1;
        f.weight[v] = in->weight[v];
        f.temp[v] = in->temp[v];
        f.persist[v] = in->persist[v];
        f.out[v] = in->out[v];
        f.parent[v] = v;
    }
    for (int32_t e = 0; e < in->m; e++) {
        int32_t id;
        CHECK(new_edge(&f, in->src[e], in->dst[e], &id));
        for (int32_t j = in->et_start[e]; j < in->et_start[e + 1]; j++) {
            CHECK(ivec_push(&f.et[id], in->et_tensor[j]));
        }
        f.ecomm[id] = in->ecomm[e];
    }
    /* new_edge appended in-lists in edge order = by producer id, as required */
    for (int32_t g = 0; g < in->n_groups; g++) {
        int32_t head = 0;
        q.n = 0;
        for (int32_t i = in->group_start[g]; i < in->group_start[g + 1]; i++) {
            int32_t u = in->group_node[i];
            for (int32_t k = 0; k < f.outl[u].n; k++) {
                int32_t v = f.edst[f.outl[u].a[k]];
                if (in->group[v] == g) {
                    CHECK(ivec_push(&q, u));
                    CHECK(ivec_push(&q, v));
                }
            }
        }
        while (head < q.n) {
            int32_t u = q.a[head], v = q.a[head + 1];
            int32_t e;
            head += 2;
            if (!f.alive[u] || !f.alive[v] || (e = find_edge(&f, u, v)) < 0) {
                continue;
            }
            if (f.outl[u].n > 1 && f.inl[v].n > 1) {
                if (!check_disjoint || other_path(&f, u, v, e)) {
                    continue;
                }
            }
            CHECK(fuse(&f, u, v, g, &q));
        }
    }
    for (int32_t v = 0; v < in->n; v++) {
        if (f.alive[v] && f.absorbed[v]) {
            recompute_out(&f, v);
        }
    }
    rc = build_output(&f, out, map);
cleanup:
    free(q.a);
    fgraph_release(&f);
    return rc;
}
