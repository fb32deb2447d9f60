/*
 * bound_cases.c - the random small cases of the bound's exhaustive tests
 * (bound_cases.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "tests/unit/bound_cases.h"

#include "tests/unit/simtest.h"

#include <stdio.h>

int bound_case_chain(struct graph *g, int n, uint64_t *s)
{
    struct workload w;
    int rc;

    workload_init(&w);
    if ((rc = workload_set_name(&w, "chain")) != 0) {
        goto out;
    }
    for (int i = 0; i < n && !rc; i++) {
        char name[16];
        int32_t idx;

        snprintf(name, sizeof(name), "c%d", i);
        if ((rc = workload_add_op(&w, name, "Op", &idx)) != 0) {
            break;
        }
        w.op[idx].time_us = (double)(1 + simtest_rand(s) % 60);
        w.op[idx].temp = (int64_t)(simtest_rand(s) % 300);
        rc = workload_add_output(&w, (int64_t)(simtest_rand(s) % 3000));
        if (!rc && i > 0) {
            rc = workload_add_input(&w, i - 1, 0, 0, 0);
        }
        if (!rc && i > 1 && simtest_rand(s) % 3 == 0) {
            rc = workload_add_input(&w, i - 2, simtest_rand(s) % 2 ? 0 : WL_PORT_CONTROL, 0, 0);
        }
    }
    if (rc == 0 && (rc = workload_check(&w)) == 0) {
        rc = graph_build(g, &w);
    }
out:
    workload_release(&w);
    return rc;
}

/* Adds op `name` with time t_us and temp; its outputs and inputs follow. */
static int add_op(struct workload *w, const char *name, uint64_t *s, int64_t t_us)
{
    int32_t idx;
    int rc = workload_add_op(w, name, "Op", &idx);

    if (rc == 0) {
        w->op[idx].time_us = (double)t_us;
        w->op[idx].temp = (int64_t)(simtest_rand(s) % 200);
    }
    return rc;
}

int bound_case_training(struct graph *g, int n, uint64_t *s)
{
    struct workload w;
    int m = (n - 1) / 2, rc;
    int32_t loss = m;
    char name[16];

    workload_init(&w);
    if ((rc = workload_set_name(&w, "training")) != 0) {
        goto out;
    }
    /* ops 0 .. m-1: F1 .. Fm, port 0 the activation, port 1 the weights */
    for (int i = 0; i < m && !rc; i++) {
        snprintf(name, sizeof(name), "f%d", i + 1);
        rc = add_op(&w, name, s, 1 + (int64_t)(simtest_rand(s) % 30));
        rc = rc ? rc : workload_add_output(&w, 200 + (int64_t)(simtest_rand(s) % 2500));
        rc = rc ? rc : workload_add_output(&w, (int64_t)(simtest_rand(s) % 800));
        if (!rc && i > 0) {
            rc = workload_add_input(&w, i - 1, 0, 0, 0);
        }
    }
    /* op m: the loss, a small tensor */
    rc = rc ? rc : add_op(&w, "loss", s, 1 + (int64_t)(simtest_rand(s) % 5));
    rc = rc ? rc : workload_add_output(&w, (int64_t)(simtest_rand(s) % 50));
    rc = rc ? rc : workload_add_input(&w, m - 1, 0, 0, 0);
    /* ops m+1 .. 2m: Bm .. B1, B_i reading the gradient, F_i's activation
     * and F_i's weights */
    for (int i = m; i >= 1 && !rc; i--) {
        int32_t prev = i == m ? loss : loss + (m - i);

        snprintf(name, sizeof(name), "b%d", i);
        rc = add_op(&w, name, s, 2 + (int64_t)(simtest_rand(s) % 60));
        rc = rc ? rc : workload_add_output(&w, 200 + (int64_t)(simtest_rand(s) % 2500));
        rc = rc ? rc : workload_add_input(&w, prev, 0, 0, 0);
        rc = rc ? rc : workload_add_input(&w, i - 1, 0, 0, 0);
        rc = rc ? rc : workload_add_input(&w, i - 1, 1, 0, 0);
    }
    if (!rc && n % 2 == 0) { /* the update: after B1, with F1's weights */
        rc = add_op(&w, "update", s, 1 + (int64_t)(simtest_rand(s) % 10));
        rc = rc ? rc : workload_add_input(&w, 2 * m, 0, 0, 0);
        rc = rc ? rc : workload_add_input(&w, 0, 1, 0, 0);
    }
    if (rc == 0 && (rc = workload_check(&w)) == 0) {
        rc = graph_build(g, &w);
    }
out:
    workload_release(&w);
    return rc;
}

int bound_case_draw(int k, uint64_t *s, int max_ops2, int max_ops3, struct graph *g,
                    struct cluster *c)
{
    int32_t nd = 2 + (int32_t)(simtest_rand(s) % 2);
    int n = 3 + (int)(simtest_rand(s) % (uint64_t)((nd == 2 ? max_ops2 : max_ops3) - 2));
    struct graph_mem_totals mt;
    int64_t mem;
    double slope = (double)(simtest_rand(s) % 40) / 1000.0;
    double icpt = (double)(simtest_rand(s) % 30);
    int rc;

    switch (k % 2 == 0 ? BOUND_CASE_RANDOM : (enum bound_case_shape)(k % 4)) {
    case BOUND_CASE_CHAIN:
        rc = bound_case_chain(g, n, s);
        break;
    case BOUND_CASE_TRAINING:
        rc = bound_case_training(g, n, s);
        break;
    case BOUND_CASE_RANDOM:
    default:
        rc = simtest_random_graph(g, n, nd, (uint64_t)k + 7);
        break;
    }
    if (rc != 0) {
        return rc;
    }
    for (int32_t v = 0; v < g->n_ops; v++) {
        g->persist_bytes[v] = simtest_rand(s) % 5 ? (int64_t)(simtest_rand(s) % 1500) : 0;
    }
    graph_mem_totals(g, &mt);
    mem = (int64_t)((double)mt.persistent * (0.4 + (double)(simtest_rand(s) % 80) / 100.0)) +
          mt.temp_max + (int64_t)((double)mt.outputs * (double)(simtest_rand(s) % 100) / 100.0);
    if (simtest_rand(s) % 8 == 0) {
        mem = 0; /* unlimited */
    }
    if ((rc = simtest_cluster(c, nd, mem, slope, icpt,
                              (enum channel_model)(simtest_rand(s) % 3))) != 0) {
        graph_release(g);
        return rc;
    }
    if (simtest_rand(s) % 4 == 0) {
        c->dev[0].speed = 2.0;
    }
    return 0;
}
