/*
 * graph_coll.c - reads the collectives of a graph (graph_coll.h): the
 * `x-collective` key of each op, grouped by id into g->coll.  O(V + ranks).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/graph_coll.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"
#include "core/graph.h"
#include "core/yio.h"

#include <stdbool.h>
#include <string.h>

static const char *const kind_names[] = {"all-reduce", "reduce-scatter", "all-gather", "broadcast",
                                         "all-to-all"};
static const char *const algo_names[] = {"default", "ring", "tree", "hierarchical"};

const char *coll_kind_name(enum coll_kind k)
{
    return (unsigned)k < sizeof(kind_names) / sizeof(kind_names[0]) ? kind_names[k] : "?";
}

const char *coll_algo_name(enum coll_algo a)
{
    return (unsigned)a < sizeof(algo_names) / sizeof(algo_names[0]) ? algo_names[a] : "?";
}

/* Index of s in names[1..n) (from 1: "default" is not written), or -1. */
static int name_index(const char *const *names, int n, int from, const char *s)
{
    for (int i = from; i < n; i++) {
        if (strcmp(names[i], s) == 0) {
            return i;
        }
    }
    return -1;
}

/* What one op's x-collective says, before grouping. */
struct coll_raw {
    const char *id;
    struct graph_coll c;
};

static int op_err(const struct workload *w, const struct wl_op *op, const char *fmt, const char *a)
{
    return workload_fail(w, op->line, op->col, BAECHI_EPARSE, "op '%s': %s: %s%s", op->name,
                         GRAPH_COLL_KEY, fmt, a ? a : "");
}

static int parse_int(const struct yval *v, int64_t *out)
{
    return v->kind != YVAL_SCALAR || v->quoted || !v->scalar || v->scalar[0] == '-' ||
           yio_parse_size(v->scalar, out);
}

/* Parses val (the op's x-collective) into *raw. */
static int parse_one(const struct workload *w, const struct wl_op *op, const struct yval *val,
                     struct coll_raw *raw)
{
    unsigned seen = 0;
    int64_t x;
    int k;

    if (val->kind != YVAL_MAP) {
        return op_err(w, op, "expected a mapping {id, kind, bytes[, root, algo]}", NULL);
    }
    memset(raw, 0, sizeof(*raw));
    raw->c.replicas = 1;
    for (int32_t i = 0; i < val->n; i++) {
        const char *key = val->keys[i];
        const struct yval *v = &val->items[i];
        const char *s = v->kind == YVAL_SCALAR && v->scalar ? v->scalar : NULL;

        if (strcmp(key, "id") == 0) {
            if (!s || !*s) {
                return op_err(w, op, "id: expected a non-empty string", NULL);
            }
            raw->id = s;
            seen |= 1;
        } else if (strcmp(key, "kind") == 0) {
            if (!s || (k = name_index(kind_names, 5, 0, s)) < 0) {
                return op_err(w, op,
                              "kind: expected all-reduce, reduce-scatter, all-gather, broadcast "
                              "or all-to-all, got ",
                              s ? s : "a collection");
            }
            raw->c.kind = (enum coll_kind)k;
            seen |= 2;
        } else if (strcmp(key, "bytes") == 0) {
            if (parse_int(v, &raw->c.bytes)) {
                return op_err(w, op, "bytes: expected an integer >= 0, got ",
                              s ? s : "a collection");
            }
            seen |= 4;
        } else if (strcmp(key, "root") == 0) {
            if (parse_int(v, &x) || x > INT32_MAX) {
                return op_err(w, op, "root: expected a rank index >= 0, got ",
                              s ? s : "a collection");
            }
            raw->c.root = (int32_t)x;
        } else if (strcmp(key, "algo") == 0) {
            if (!s || (k = name_index(algo_names, 4, 1, s)) < 0) {
                return op_err(w, op, "algo: expected ring, tree or hierarchical, got ",
                              s ? s : "a collection");
            }
            raw->c.algo = (enum coll_algo)k;
        } else if (strcmp(key, "replicas") == 0 || strcmp(key, "stride") == 0) {
            if (parse_int(v, &x) || x > INT32_MAX || (key[0] == 'r' && x < 1)) {
                return op_err(w, op,
                              key[0] == 'r' ? "replicas: expected an integer >= 1, got "
                                            : "stride: expected a device count >= 0, got ",
                              s ? s : "a collection");
            }
            *(key[0] == 'r' ? &raw->c.replicas : &raw->c.replica_stride) = (int32_t)x;
        } else if (strncmp(key, "x-", 2) != 0) {
            char msg[160];

            snprintf(msg, sizeof(msg),
                     "unknown key '%.80s' (allowed: id, kind, bytes, root, algo, replicas, stride)",
                     key);
            return op_err(w, op, msg, NULL);
        }
    }
    if (raw->c.replicas > 1 && raw->c.kind == COLL_BROADCAST) {
        return op_err(w, op, "replicas: a broadcast has one root, not one per replica", NULL);
    }
    if (seen != 7) {
        return op_err(w, op, "missing required key ",
                      !(seen & 1)   ? "'id'"
                      : !(seen & 2) ? "'kind'"
                                    : "'bytes'");
    }
    return 0;
}

static const struct yval *find_ext(const struct workload *w, const struct wl_op *op)
{
    for (int32_t k = 0; k < op->n_ext; k++) {
        if (strcmp(w->ext[op->ext_off + k].key, GRAPH_COLL_KEY) == 0) {
            return &w->ext[op->ext_off + k].val;
        }
    }
    return NULL;
}

/* A later rank must agree with the collective's first rank. */
static int check_same(const struct workload *w, const struct wl_op *op, const struct graph *g,
                      int32_t ci, const struct graph_coll *c)
{
    const struct graph_coll *f = &g->coll[ci];
    const char *what =
        f->kind != c->kind                                                               ? "kind"
        : f->bytes != c->bytes                                                           ? "bytes"
        : f->algo != c->algo                                                             ? "algo"
        : f->root != c->root                                                             ? "root"
        : (f->replicas > 1 || c->replicas > 1) && f->replica_stride != c->replica_stride ? "stride"
                                                                                         : NULL;
    char msg[400];

    if (!what) {
        return 0;
    }
    int32_t first = 0;

    while (g->coll_of[first] != ci) {
        first++;
    }
    snprintf(msg, sizeof(msg),
             "%s differs from the first rank of collective '%.100s' (op '%.100s')", what, f->id,
             g->op_name[first]);
    return op_err(w, op, msg, NULL);
}

/* Pass 1: g->coll_of and g->coll, each rank op's replicas in copies[]. */
static int read_ops(struct graph *g, const struct workload *w, struct strmap *ids, size_t *alloc,
                    int32_t *copies)
{
    for (int32_t u = 0; u < g->n_ops; u++) {
        const struct wl_op *op = &w->op[g->wl_index[u]];
        const struct yval *val = find_ext(w, op);
        struct coll_raw raw;
        int32_t ci;
        int rc;

        g->coll_of[u] = -1;
        if (!val) {
            continue;
        }
        if ((rc = parse_one(w, op, val, &raw))) {
            return rc;
        }
        ci = strmap_get(ids, raw.id, strlen(raw.id));
        if (ci < 0) {
            char *id = strpool_add(&g->pool, raw.id, strlen(raw.id));

            ci = g->n_coll;
            if (!id || ARRAY_RESERVE(g->coll, *alloc, (size_t)ci + 1) ||
                strmap_put(ids, id, ci, NULL)) {
                return BAECHI_ENOMEM;
            }
            raw.c.id = id;
            g->coll[g->n_coll++] = raw.c;
        } else if ((rc = check_same(w, op, g, ci, &raw.c))) {
            return rc;
        } else if (raw.c.replicas > g->coll[ci].replicas) {
            g->coll[ci].replicas = raw.c.replicas;
            g->coll[ci].replica_stride = raw.c.replica_stride;
        }
        copies[u] = raw.c.replicas;
        g->coll_of[u] = ci;
    }
    return 0;
}

int graph_read_collectives(struct graph *g, const struct workload *w)
{
    struct strmap ids;
    size_t alloc = 0;
    int32_t *cursor = NULL, *copies = NULL;
    int rc = 0;

    strmap_init(&ids);
    if (!(g->coll_of = mem_alloc_array((size_t)g->n_ops + 1, sizeof(*g->coll_of))) ||
        !(copies = mem_alloc_array((size_t)g->n_ops + 1, sizeof(*copies)))) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    CHECK(read_ops(g, w, &ids, &alloc, copies));
    if (g->n_coll == 0) {
        free(g->coll_of);
        g->coll_of = NULL;
        goto cleanup;
    }
    g->coll_start = mem_calloc((size_t)g->n_coll + 1, sizeof(*g->coll_start));
    g->coll_op = mem_alloc_array((size_t)g->n_ops, sizeof(*g->coll_op));
    g->coll_copies = mem_alloc_array((size_t)g->n_ops, sizeof(*g->coll_copies));
    cursor = mem_alloc_array((size_t)g->n_coll, sizeof(*cursor));
    if (!g->coll_start || !g->coll_op || !g->coll_copies || !cursor) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    for (int32_t u = 0; u < g->n_ops; u++) {
        if (g->coll_of[u] >= 0) {
            g->coll_start[g->coll_of[u] + 1]++;
        }
    }
    for (int32_t c = 0; c < g->n_coll; c++) {
        g->coll_start[c + 1] += g->coll_start[c];
        cursor[c] = g->coll_start[c];
    }
    for (int32_t u = 0; u < g->n_ops; u++) {
        if (g->coll_of[u] >= 0) {
            g->coll_copies[cursor[g->coll_of[u]]] = copies[u];
            g->coll_op[cursor[g->coll_of[u]]++] = u;
        }
    }
    for (int32_t c = 0; c < g->n_coll; c++) {
        int32_t n = g->coll_start[c + 1] - g->coll_start[c];

        if (g->coll[c].root >= n) {
            const struct wl_op *op = &w->op[g->wl_index[g->coll_op[g->coll_start[c]]]];
            char msg[200];

            snprintf(msg, sizeof(msg), "root %d out of range: collective '%.100s' has %d rank%s",
                     g->coll[c].root, g->coll[c].id, n, n == 1 ? "" : "s");
            CHECK(op_err(w, op, msg, NULL));
        }
    }
cleanup:
    free(cursor);
    free(copies);
    strmap_release(&ids);
    return rc;
}
