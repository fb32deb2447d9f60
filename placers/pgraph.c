/*
 * pgraph.c - the graph the placement algorithms run on, built from the
 * shared struct graph (baechi-spec §1.2-§1.7).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/placer_internal.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/limits.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int64_t placer_comm_us(double slope, double intercept, int64_t bytes)
{
    /* Python's round(): half to even, i.e. nearbyint in the default mode (§1.3) */
    return limit_sat_time_us(nearbyint(slope * (double)bytes + intercept));
}

/* The group arrays (pgraph_finish_groups builds them). */
static void groups_release(struct pgraph *p)
{
    free(p->group_start);
    free(p->group_node);
    free(p->g_temp_max);
    free(p->g_out_max);
    free(p->g_persist_sum);
    free(p->g_out_sum);
}

void pgraph_release(struct pgraph *p)
{
    free(p->weight);
    free(p->temp);
    free(p->persist);
    free(p->out);
    free(p->group);
    free(p->topo);
    free(p->out_start);
    free(p->in_start);
    free(p->in_edge);
    free(p->src);
    free(p->dst);
    free(p->ecomm);
    free(p->et_start);
    free(p->et_tensor);
    free(p->tcomm);
    free(p->tbytes);
    groups_release(p);
    memset(p, 0, sizeof(*p));
}

int pgraph_finish_groups(struct pgraph *p)
{
    size_t G = (size_t)p->n_groups;
    int32_t *fill = NULL;

    groups_release(p);
    p->group_start = mem_calloc(G + 1, sizeof(int32_t));
    p->group_node = mem_alloc_array((size_t)p->n + 1, sizeof(int32_t));
    p->g_temp_max = mem_calloc(G + 1, sizeof(int64_t));
    p->g_out_max = mem_calloc(G + 1, sizeof(int64_t));
    p->g_persist_sum = mem_calloc(G + 1, sizeof(int64_t));
    p->g_out_sum = mem_calloc(G + 1, sizeof(int64_t));
    fill = mem_calloc(G + 1, sizeof(int32_t));
    if (!p->group_start || !p->group_node || !p->g_temp_max || !p->g_out_max || !p->g_persist_sum ||
        !p->g_out_sum || !fill) {
        free(fill);
        return BAECHI_ENOMEM;
    }
    for (int32_t v = 0; v < p->n; v++) {
        p->group_start[p->group[v] + 1]++;
    }
    for (size_t g = 0; g < G; g++) {
        p->group_start[g + 1] += p->group_start[g];
    }
    for (int32_t v = 0; v < p->n; v++) {
        int32_t g = p->group[v];
        p->group_node[p->group_start[g] + fill[g]++] = v;
        if (p->temp[v] > p->g_temp_max[g]) {
            p->g_temp_max[g] = p->temp[v];
        }
        if (p->out[v] > p->g_out_max[g]) {
            p->g_out_max[g] = p->out[v];
        }
        p->g_persist_sum[g] += p->persist[v];
        p->g_out_sum[g] += p->out[v];
    }
    free(fill);
    return 0;
}

int pgraph_from_graph(struct pgraph *p, const struct graph *g, const struct cluster *c,
                      const int32_t *group_of, int32_t n_groups, double comm_factor,
                      double compute_factor)
{
    size_t n = (size_t)g->n_ops, m = (size_t)g->n_edges, nt = (size_t)g->n_tensors;
    size_t nte = (size_t)g->et_start[g->n_edges];
    double slope = c->comm.slope_us_per_byte * comm_factor;
    double icpt = c->comm.intercept_us * comm_factor;
    int rc;

    memset(p, 0, sizeof(*p));
    p->n = g->n_ops;
    p->m = g->n_edges;
    p->n_tensors = g->n_tensors;
    p->n_groups = n_groups;
    p->weight = mem_alloc_array(n + 1, sizeof(int64_t));
    p->temp = mem_alloc_array(n + 1, sizeof(int64_t));
    p->persist = mem_alloc_array(n + 1, sizeof(int64_t));
    p->out = mem_alloc_array(n + 1, sizeof(int64_t));
    p->group = mem_alloc_array(n + 1, sizeof(int32_t));
    p->topo = mem_alloc_array(n + 1, sizeof(int32_t));
    p->out_start = mem_alloc_array(n + 1, sizeof(int32_t));
    p->in_start = mem_alloc_array(n + 1, sizeof(int32_t));
    p->in_edge = mem_alloc_array(m + 1, sizeof(int32_t));
    p->src = mem_alloc_array(m + 1, sizeof(int32_t));
    p->dst = mem_alloc_array(m + 1, sizeof(int32_t));
    p->ecomm = mem_calloc(m + 1, sizeof(int64_t));
    p->et_start = mem_alloc_array(m + 1, sizeof(int32_t));
    p->et_tensor = mem_alloc_array(nte + 1, sizeof(int32_t));
    p->tcomm = mem_alloc_array(nt + 1, sizeof(int64_t));
    p->tbytes = mem_alloc_array(nt + 1, sizeof(int64_t));
    if (!p->weight || !p->temp || !p->persist || !p->out || !p->group || !p->topo ||
        !p->out_start || !p->in_start || !p->in_edge || !p->src || !p->dst || !p->ecomm ||
        !p->et_start || !p->et_tensor || !p->tcomm || !p->tbytes) {
        pgraph_release(p);
        return BAECHI_ENOMEM;
    }
    for (size_t v = 0; v < n; v++) {
        int64_t w = g->weight_us[v];
        if (compute_factor != 1.0) {
            w = limit_sat_time_us((double)w * compute_factor);
        }
        p->weight[v] = w <= 0 ? 1 : w;
        p->temp[v] = g->temp_bytes[v];
        p->persist[v] = g->persist_bytes[v];
        p->out[v] = g->out_bytes[v];
        p->group[v] = group_of[v];
        p->topo[v] = g->topo[v];
    }
    memcpy(p->out_start, g->out_start, (n + 1) * sizeof(int32_t));
    memcpy(p->in_start, g->in_start, (n + 1) * sizeof(int32_t));
    memcpy(p->in_edge, g->in_edge, m * sizeof(int32_t));
    memcpy(p->src, g->edge_src, m * sizeof(int32_t));
    memcpy(p->dst, g->edge_dst, m * sizeof(int32_t));
    memcpy(p->et_start, g->et_start, (m + 1) * sizeof(int32_t));
    memcpy(p->et_tensor, g->et_tensor, nte * sizeof(int32_t));
    for (size_t x = 0; x < nt; x++) {
        p->tbytes[x] = g->tensor_bytes[x];
        p->tcomm[x] = placer_comm_us(slope, icpt, g->tensor_bytes[x]);
    }
    for (size_t e = 0; e < m; e++) {
        for (int32_t j = p->et_start[e]; j < p->et_start[e + 1]; j++) {
            p->ecomm[e] += p->tcomm[p->et_tensor[j]];
        }
    }
    if ((rc = pgraph_finish_groups(p)) != 0) {
        pgraph_release(p);
        return rc;
    }
    return 0;
}
