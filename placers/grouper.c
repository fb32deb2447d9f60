/*
 * grouper.c - colocation groups as the placers see them (baechi-spec §6.1).
 *
 * `tf`: the workload's groups.  The original first unions group names that
 * appear together in one op's list; a workload op carries one group name (the
 * converter already collapsed the lists, workload-format.md), so this step is
 * the identity here.
 *
 * `coplace`: an op whose outputs feed exactly one consumer op joins that
 * consumer's group.  The original repeats renaming steps until nothing
 * changes; the condition depends only on the graph, not on the groups, so
 * the fixpoint is the union-find closure of one pass over the ops, which is
 * what we compute (same partition, O(V + E α)).  A merged group is named
 * after its shortest member name, ties broken lexicographically, as the
 * original names them.  Groups are numbered by first appearance in op order.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/grouper.h"

#include "core/alloc.h"
#include "core/err.h"

#include <stdlib.h>
#include <string.h>

int placer_grouper_parse(const char *s, enum placer_grouper *gr)
{
    if (strcmp(s, "tf") == 0) {
        *gr = PLACER_GROUPER_TF;
        return 0;
    }
    if (strcmp(s, "coplace") == 0) {
        *gr = PLACER_GROUPER_COPLACE;
        return 0;
    }
    return err_set(BAECHI_EINVAL, "unknown grouper '%s' (tf, coplace)", s);
}

const char *placer_grouper_name(enum placer_grouper gr)
{
    return gr == PLACER_GROUPER_COPLACE ? "coplace" : "tf";
}

static int32_t uf_find(int32_t *parent, int32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

/* (len, str) order of the original's representative choice */
static int name_less(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la != lb) {
        return la < lb;
    }
    return strcmp(a, b) < 0;
}

int placer_group(const struct graph *g, enum placer_grouper grouper, int32_t *group_of,
                 int32_t *n_groups, const char **rep_name)
{
    int32_t G = g->n_groups;
    int32_t *parent = NULL, *newid = NULL;
    const char **best = NULL;
    int32_t count = 0;
    int rc = 0;

    if (grouper == PLACER_GROUPER_TF) {
        memcpy(group_of, g->group, (size_t)g->n_ops * sizeof(int32_t));
        *n_groups = G;
        if (rep_name) {
            for (int32_t k = 0; k < G; k++) {
                rep_name[k] = g->group_name[k];
            }
        }
        return 0;
    }
    parent = mem_alloc_array((size_t)G + 1, sizeof(int32_t));
    newid = mem_alloc_array((size_t)G + 1, sizeof(int32_t));
    best = mem_alloc_array((size_t)G + 1, sizeof(char *));
    if (!parent || !newid || !best) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    for (int32_t k = 0; k < G; k++) {
        parent[k] = k;
        newid[k] = -1;
        best[k] = NULL;
    }
    for (int32_t u = 0; u < g->n_ops; u++) {
        if (graph_out_degree(g, u) == 1) {
            int32_t v = g->edge_dst[g->out_start[u]];
            int32_t a = uf_find(parent, g->group[u]), b = uf_find(parent, g->group[v]);
            if (a != b) {
                if (b < a) {
                    int32_t t = a;
                    a = b;
                    b = t;
                }
                parent[b] = a;
            }
        }
    }
    for (int32_t k = 0; k < G; k++) {
        int32_t r = uf_find(parent, k);
        if (!best[r] || name_less(g->group_name[k], best[r])) {
            best[r] = g->group_name[k];
        }
    }
    for (int32_t u = 0; u < g->n_ops; u++) {
        int32_t r = uf_find(parent, g->group[u]);
        if (newid[r] < 0) {
            newid[r] = count;
            if (rep_name) {
                rep_name[count] = best[r];
            }
            count++;
        }
        group_of[u] = newid[r];
    }
    *n_groups = count;
cleanup:
    free(parent);
    free(newid);
    free(best);
    return rc;
}
