/*
 * test_graph.c - graph_build: edges, pruning, ordering rules, topological
 * order, cycles (baechi-spec §1.3-§1.5, §8.2).
 */
#include "core/err.h"
#include "core/graph.h"
#include "core/workload.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Adds op `name` with `n_out` outputs of `bytes` each and time `t`. */
static int32_t add(struct workload *w, const char *name, double t, int n_out, int64_t bytes)
{
    int32_t i;

    cr_assert_eq(workload_add_op(w, name, "Op", &i), 0, "%s", err_msg());
    w->op[i].time_us = t;
    for (int k = 0; k < n_out; k++) {
        cr_assert_eq(workload_add_output(w, bytes), 0);
    }
    return i;
}

static void in(struct workload *w, int32_t prod, int32_t port)
{
    cr_assert_eq(workload_add_input(w, prod, port, 0, 0), 0);
}

Test(graph, edges_tensors_and_dedup)
{
    struct workload w;
    struct graph g;

    workload_init(&w);
    add(&w, "a", 10, 2, 100);
    add(&w, "b", 5, 1, 20);
    add(&w, "c", 3, 0, 0);
    in(&w, 0, 1);
    in(&w, 0, 0);
    in(&w, 0, 1); /* read twice: counts once */
    in(&w, 1, 0);
    in(&w, 1, WL_PORT_CONTROL); /* redundant next to the data edge from b */
    cr_assert_eq(workload_check(&w), 0, "%s", err_msg());
    cr_assert_eq(graph_build(&g, &w), 0, "%s", err_msg());
    cr_assert_eq(graph_check(&g), 0, "%s", err_msg());
    cr_assert_eq(g.n_ops, 3);
    cr_assert_eq(g.n_edges, 2);
    /* Edge a->c carries a:1 then a:0 (first-seen order). */
    cr_assert_eq(g.edge_src[0], 0);
    cr_assert_eq(g.edge_dst[0], 2);
    cr_assert_eq(g.et_start[1] - g.et_start[0], 2);
    cr_assert_eq(g.et_tensor[g.et_start[0]], 1);
    cr_assert_eq(g.et_tensor[g.et_start[0] + 1], 0);
    cr_assert_eq(g.et_start[2] - g.et_start[1], 1);
    cr_assert_eq(g.out_bytes[0], 200);
    cr_assert_eq(g.weight_us[2], 3);
    graph_release(&g);
    workload_release(&w);
}

Test(graph, control_edge_is_a_4_byte_tensor)
{
    struct workload w;
    struct graph g;
    char name[64];

    workload_init(&w);
    add(&w, "init", 1, 0, 0);
    add(&w, "x", 1, 1, 8);
    in(&w, 0, WL_PORT_CONTROL);
    in(&w, 0, WL_PORT_CONTROL); /* twice: one edge, one tensor */
    cr_assert_eq(graph_build(&g, &w), 0, "%s", err_msg());
    cr_assert_eq(g.n_edges, 1);
    cr_assert_eq(g.et_start[1], 1);
    cr_assert(graph_tensor_is_control(&g, g.et_tensor[0]));
    cr_assert_eq(g.tensor_bytes[g.et_tensor[0]], GRAPH_CONTROL_BYTES);
    graph_tensor_name(&g, g.et_tensor[0], name, sizeof(name));
    cr_assert_str_eq(name, "^init");
    graph_release(&g);
    workload_release(&w);
}

Test(graph, weights_follow_the_original)
{
    struct workload w;
    struct graph g;

    workload_init(&w);
    add(&w, "a", NAN, 1, 4); /* unprofiled -> 1 */
    add(&w, "b", 0, 1, 4);   /* <= 0 -> 1 */
    add(&w, "c", 7.9, 0, 0); /* int() truncates */
    in(&w, 0, 0);
    in(&w, 1, 0);
    cr_assert_eq(graph_build(&g, &w), 0, "%s", err_msg());
    cr_assert_eq(g.weight_us[0], 1);
    cr_assert_eq(g.weight_us[1], 1);
    cr_assert_eq(g.weight_us[2], 7);
    graph_release(&g);
    workload_release(&w);
}

Test(graph, dangling_ops_pruned_and_renumbered)
{
    struct workload w;
    struct graph g;

    workload_init(&w);
    add(&w, "lonely", 1, 1, 4);
    add(&w, "a", 1, 1, 4);
    add(&w, "alone_too", 1, 0, 0);
    add(&w, "b", 1, 0, 0);
    in(&w, 1, 0);
    cr_assert_eq(graph_build(&g, &w), 0, "%s", err_msg());
    cr_assert_eq(g.n_ops, 2);
    cr_assert_eq(g.n_pruned, 2);
    cr_assert_str_eq(g.op_name[0], "a");
    cr_assert_str_eq(g.op_name[1], "b");
    cr_assert_eq(g.wl_index[0], 1);
    cr_assert_eq(g.wl_index[1], 3);
    cr_assert_eq(graph_find(&g, "lonely"), -1);
    cr_assert_eq(graph_find(&g, "b"), 1);
    graph_release(&g);
    workload_release(&w);
}

/*
 * Out-edges by consumer id, in-edges by producer id, whatever the input
 * order in the file; FIFO Kahn order.
 */
Test(graph, adjacency_order_and_fifo_kahn)
{
    struct workload w;
    struct graph g;

    workload_init(&w);
    add(&w, "s0", 1, 1, 4); /* 0 */
    add(&w, "s1", 1, 1, 4); /* 1 */
    add(&w, "m", 1, 1, 4);  /* 2: inputs s1, s0 (reverse order) */
    in(&w, 1, 0);
    in(&w, 0, 0);
    add(&w, "late", 1, 1, 4); /* 3: reads s0 */
    in(&w, 0, 0);
    add(&w, "z", 1, 0, 0); /* 4: reads late, m */
    in(&w, 3, 0);
    in(&w, 2, 0);
    cr_assert_eq(graph_build(&g, &w), 0, "%s", err_msg());
    cr_assert_eq(graph_check(&g), 0, "%s", err_msg());
    /* s0's out-edges: to m (2) then late (3). */
    cr_assert_eq(g.edge_dst[g.out_start[0]], 2);
    cr_assert_eq(g.edge_dst[g.out_start[0] + 1], 3);
    /* m's in-edges: from s0 then s1. */
    cr_assert_eq(g.edge_src[g.in_edge[g.in_start[2]]], 0);
    cr_assert_eq(g.edge_src[g.in_edge[g.in_start[2] + 1]], 1);
    /* FIFO Kahn: s0, s1, late (freed by s0 alone), m, z. */
    cr_assert_eq(g.topo_op[0], 0);
    cr_assert_eq(g.topo_op[1], 1);
    cr_assert_eq(g.topo_op[2], 3);
    cr_assert_eq(g.topo_op[3], 2);
    cr_assert_eq(g.topo_op[4], 4);
    {
        int64_t cp = -1;

        cr_assert_eq(graph_critical_path_us(&g, &cp), 0);
        cr_assert_eq(cp, 3);
    }
    cr_assert_eq(graph_total_compute_us(&g), 5);
    graph_release(&g);
    workload_release(&w);
}

Test(graph, cycle_is_reported_by_name)
{
    struct workload w;
    struct graph g;

    workload_init(&w);
    w.path = strdup("cyc.yaml");
    add(&w, "a", 1, 1, 4);
    in(&w, 2, 0);
    w.op[0].line = 3;
    w.op[0].col = 5;
    add(&w, "b", 1, 1, 4);
    in(&w, 0, 0);
    add(&w, "c", 1, 1, 4);
    in(&w, 1, 0);
    cr_assert_eq(graph_build(&g, &w), BAECHI_EPARSE);
    cr_assert(strstr(err_msg(), "cycle"), "%s", err_msg());
    cr_assert(strstr(err_msg(), "a -> b -> c -> a") || strstr(err_msg(), "b -> c -> a -> b") ||
                  strstr(err_msg(), "c -> a -> b -> c"),
              "%s", err_msg());
    cr_assert(strstr(err_msg(), "cyc.yaml:"), "%s", err_msg());
    workload_release(&w);
}

Test(graph, self_loop_is_a_cycle)
{
    struct workload w;
    struct graph g;

    workload_init(&w);
    add(&w, "a", 1, 1, 4);
    in(&w, 0, 0);
    cr_assert_eq(graph_build(&g, &w), BAECHI_EPARSE);
    cr_assert(strstr(err_msg(), "a -> a"), "%s", err_msg());
    workload_release(&w);
}

Test(graph, memory_overflow_rejected)
{
    struct workload w;
    struct graph g;

    workload_init(&w);
    add(&w, "a", 1, 2, INT64_MAX / 2 + 1);
    add(&w, "b", 1, 0, 0);
    in(&w, 0, 0);
    cr_assert_eq(graph_build(&g, &w), BAECHI_EPARSE);
    cr_assert(strstr(err_msg(), "64 bits"), "%s", err_msg());
    workload_release(&w);
}

Test(graph, groups_by_first_appearance)
{
    struct workload w;
    struct graph g;

    workload_init(&w);
    add(&w, "a", 1, 1, 4);
    cr_assert_eq(workload_set_group(&w, 0, "G"), 0);
    add(&w, "b", 1, 1, 4);
    in(&w, 0, 0);
    add(&w, "c", 1, 0, 0);
    cr_assert_eq(workload_set_group(&w, 2, "G"), 0);
    in(&w, 1, 0);
    cr_assert_eq(graph_build(&g, &w), 0, "%s", err_msg());
    cr_assert_eq(g.n_groups, 2);
    cr_assert_str_eq(g.group_name[0], "G");
    cr_assert_str_eq(g.group_name[1], "b");
    cr_assert_eq(g.group[0], g.group[2]);
    cr_assert_eq(g.group_start[1] - g.group_start[0], 2);
    cr_assert_eq(g.group_op[0], 0);
    cr_assert_eq(g.group_op[1], 2);
    graph_release(&g);
    workload_release(&w);
}

/* A path longer than the old char where[512]: the message names it whole,
 * with its line and column (issue 34 item 3). */
Test(graph, long_path_in_messages)
{
    struct workload w;
    struct graph g;
    int32_t a, b;
    size_t n = 900;
    char *want;

    workload_init(&w);
    cr_assert((w.path = malloc(n + 1)) != NULL);
    memset(w.path, 'p', n);
    w.path[n] = '\0';
    cr_assert_eq(workload_add_op(&w, "a", "MatMul", &a), 0);
    cr_assert_eq(workload_add_output(&w, 4), 0);
    cr_assert_eq(workload_add_op(&w, "b", "Relu", &b), 0);
    cr_assert_eq(workload_add_input(&w, a, 0, 0, 0), 0);
    w.op[a].time_us = 1e30; /* past GRAPH_MAX_TIME_US */
    w.op[a].line = 7;
    w.op[a].col = 3;
    cr_assert_eq(graph_build(&g, &w), BAECHI_EPARSE);
    cr_assert((want = malloc(n + 16)) != NULL);
    memcpy(want, w.path, n);
    strcpy(want + n, ":7:3: op 'a'");
    cr_expect(strncmp(err_msg(), want, strlen(want)) == 0, "%s", err_msg());
    free(want);
    workload_release(&w);
}

/* A tensor's name as JSON, whole past the old char[96] and char[512] of
 * the explanation and the trace (issue 34 item 3). */
Test(graph, long_tensor_name_json)
{
    struct workload w;
    struct graph g;
    int32_t a, b;
    char name[700], *text = NULL;
    size_t len = 0;
    FILE *f;

    memset(name, 't', sizeof(name) - 1);
    name[sizeof(name) - 1] = '\0';
    workload_init(&w);
    cr_assert_eq(workload_add_op(&w, name, "MatMul", &a), 0);
    cr_assert_eq(workload_add_output(&w, 4), 0);
    cr_assert_eq(workload_add_op(&w, "b", "Relu", &b), 0);
    cr_assert_eq(workload_add_input(&w, a, 0, 0, 0), 0);
    cr_assert_eq(graph_build(&g, &w), 0, "%s", err_msg());
    cr_assert((f = open_memstream(&text, &len)) != NULL);
    graph_tensor_name_json(&g, g.port_start[graph_find(&g, name)], f);
    fclose(f);
    cr_expect_eq(len, 1 + strlen(name) + 2 + 1);
    cr_expect(text[0] == '"' && strncmp(text + 1, name, strlen(name)) == 0, "%.40s", text);
    cr_expect_str_eq(text + 1 + strlen(name), ":0\"");
    free(text);
    graph_release(&g);
    workload_release(&w);
}
