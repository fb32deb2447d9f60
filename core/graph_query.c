/*
 * graph_query.c - what the suite asks of a built graph (see graph.h): names
 * to ids, tensor names, totals, the critical path, and graph_check.
 * Building the graph is graph.c.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/graph.h"

#include "core/alloc.h"
#include "core/checked.h"
#include "core/err.h"
#include "core/json_out.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int graph_index_names(struct graph *g)
{
    int rc;

    if (g->by_name.nr == (size_t)g->n_ops) {
        return 0;
    }
    if ((rc = strmap_reserve(&g->by_name, (size_t)g->n_ops))) {
        return rc;
    }
    for (int32_t u = 0; u < g->n_ops; u++) {
        if ((rc = strmap_put(&g->by_name, g->op_name[u], u, NULL))) {
            return rc;
        }
    }
    return 0;
}

int32_t graph_find(const struct graph *g, const char *name)
{
    /* The index is built on first use: most runs never look names up.
     * (Not thread-safe on that first call; see graph_index_names.) */
    if (g->by_name.nr != (size_t)g->n_ops && graph_index_names((struct graph *)g)) {
        return -1;
    }
    return strmap_get(&g->by_name, name, strlen(name));
}

void graph_tensor_name(const struct graph *g, int32_t t, char *buf, size_t size)
{
    int32_t u = g->tensor_op[t];

    if (graph_tensor_is_control(g, t)) {
        snprintf(buf, size, "^%s", g->op_name[u]);
    } else {
        snprintf(buf, size, "%s:%d", g->op_name[u], t - g->port_start[u]);
    }
}

void graph_tensor_name_json(const struct graph *g, int32_t t, FILE *f)
{
    int32_t u = g->tensor_op[t];

    putc('"', f);
    if (graph_tensor_is_control(g, t)) {
        putc('^', f);
        json_out_chars(f, g->op_name[u]);
    } else {
        json_out_chars(f, g->op_name[u]);
        fprintf(f, ":%d", t - g->port_start[u]);
    }
    putc('"', f);
}

int64_t graph_total_compute_us(const struct graph *g)
{
    int64_t s = 0;

    for (int32_t u = 0; u < g->n_ops; u++) {
        s = sat_add_i64(s, g->weight_us[u]); /* 10,000 ops of 1e15 µs pass int64 */
    }
    return s;
}

int graph_critical_path_us(const struct graph *g, int64_t *cp_us)
{
    int64_t *fin = mem_calloc((size_t)g->n_ops, sizeof(*fin));
    int32_t *order = NULL, *left = NULL;
    int64_t best = 0;

    *cp_us = 0;
    if (!fin) {
        return err_set(BAECHI_ENOMEM, "out of memory computing the critical path");
    }
    order = g->topo_op;
    if (g->fused) {
        /* A fused graph's inherited topo[] may be inconsistent: order afresh. */
        int32_t head = 0, tail = 0;

        order = mem_alloc_array((size_t)g->n_ops, sizeof(*order));
        left = mem_alloc_array((size_t)g->n_ops, sizeof(*left));
        if (!order || !left) {
            free(order);
            free(left);
            free(fin);
            return err_set(BAECHI_ENOMEM, "out of memory computing the critical path");
        }
        for (int32_t v = 0; v < g->n_ops; v++) {
            left[v] = graph_in_degree(g, v);
            if (!left[v]) {
                order[tail++] = v;
            }
        }
        while (head < tail) {
            int32_t u = order[head++];

            for (int32_t e = g->out_start[u]; e < g->out_start[u + 1]; e++) {
                if (--left[g->edge_dst[e]] == 0) {
                    order[tail++] = g->edge_dst[e];
                }
            }
        }
    }
    for (int32_t i = 0; i < g->n_ops; i++) {
        int32_t u = order[i];
        int64_t start = 0;

        for (int32_t k = g->in_start[u]; k < g->in_start[u + 1]; k++) {
            int64_t f = fin[g->edge_src[g->in_edge[k]]];

            if (f > start) {
                start = f;
            }
        }
        fin[u] = sat_add_i64(start, g->weight_us[u]);
        if (fin[u] > best) {
            best = fin[u];
        }
    }
    if (order != g->topo_op) {
        free(order);
    }
    free(left);
    free(fin);
    *cp_us = best;
    return 0;
}

void graph_mem_totals(const struct graph *g, struct graph_mem_totals *t)
{
    memset(t, 0, sizeof(*t));
    for (int32_t u = 0; u < g->n_ops; u++) {
        t->persistent += g->persist_bytes[u];
        t->outputs += g->out_bytes[u];
        t->temp += g->temp_bytes[u];
        if (g->temp_bytes[u] > t->temp_max) {
            t->temp_max = g->temp_bytes[u];
        }
    }
}

int graph_check(const struct graph *g)
{
    int32_t n = g->n_ops, m = g->n_edges;
    char *seen = NULL;
    int rc = 0;

    if (g->out_start[0] != 0 || g->out_start[n] != m || g->in_start[0] != 0 ||
        g->in_start[n] != m) {
        return err_set(BAECHI_EINVAL, "CSR offsets do not cover %d edges", m);
    }
    for (int32_t u = 0; u < n; u++) {
        if (g->out_start[u] > g->out_start[u + 1] || g->in_start[u] > g->in_start[u + 1]) {
            return err_set(BAECHI_EINVAL, "CSR offsets of op %d decrease", u);
        }
        for (int32_t e = g->out_start[u]; e < g->out_start[u + 1]; e++) {
            if (g->edge_src[e] != u) {
                return err_set(BAECHI_EINVAL, "edge %d listed under op %d has source %d", e, u,
                               g->edge_src[e]);
            }
            if (!g->fused && e > g->out_start[u] && g->edge_dst[e - 1] >= g->edge_dst[e]) {
                return err_set(BAECHI_EINVAL, "out-edges of op %d not by increasing consumer", u);
            }
            if (!g->fused && g->topo[u] >= g->topo[g->edge_dst[e]]) {
                return err_set(BAECHI_EINVAL, "edge %d -> %d against the topological order", u,
                               g->edge_dst[e]);
            }
            for (int32_t k = g->et_start[e]; k < g->et_start[e + 1]; k++) {
                int32_t t = g->et_tensor[k];

                if (t < 0 || t >= g->n_tensors || (!g->fused && g->tensor_op[t] != u)) {
                    return err_set(BAECHI_EINVAL, "edge %d carries tensor %d not made by op %d", e,
                                   t, u);
                }
            }
            if (g->et_start[e] >= g->et_start[e + 1]) {
                return err_set(BAECHI_EINVAL, "edge %d carries no tensor", e);
            }
        }
        for (int32_t k = g->in_start[u]; k < g->in_start[u + 1]; k++) {
            int32_t e = g->in_edge[k];

            if (e < 0 || e >= m || g->edge_dst[e] != u) {
                return err_set(BAECHI_EINVAL, "in-edge list of op %d is wrong", u);
            }
            if (k > g->in_start[u] && g->edge_src[g->in_edge[k - 1]] >= g->edge_src[e]) {
                return err_set(BAECHI_EINVAL, "in-edges of op %d not by increasing producer", u);
            }
        }
        if (g->weight_us[u] < 1) {
            return err_set(BAECHI_EINVAL, "op %d has weight %lld < 1", u,
                           (long long)g->weight_us[u]);
        }
    }
    seen = mem_calloc((size_t)n, 1);
    if (!seen) {
        return BAECHI_ENOMEM;
    }
    for (int32_t i = 0; i < n; i++) {
        int32_t u = g->topo_op[i];

        if (u < 0 || u >= n || seen[u] || g->topo[u] != i) {
            rc = err_set(BAECHI_EINVAL, "topo order is not a permutation at %d", i);
            break;
        }
        seen[u] = 1;
    }
    free(seen);
    return rc;
}
