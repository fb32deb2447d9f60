/*
 * simtest.h - helpers for the simulator's unit tests: a graph from a compact
 * table of ops (through the workload API and graph_build, as real inputs
 * go), a cluster with a given comm model, and seeded random DAGs.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_TESTS_UNIT_SIMTEST_H
#define BAECHI_TESTS_UNIT_SIMTEST_H

#include "core/cluster.h"
#include "core/graph.h"
#include "core/workload.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One op: outputs "100 20" (bytes per port), inputs "A:0 B ^C". */
struct simtest_op {
    const char *name;
    int64_t time_us;
    const char *outputs;
    int64_t temp;
    int64_t persistent;
    int32_t device;
    const char *inputs;
};

static inline int32_t simtest_find(const struct simtest_op *ops, int n, const char *name,
                                   size_t len)
{
    for (int i = 0; i < n; i++) {
        if (strlen(ops[i].name) == len && strncmp(ops[i].name, name, len) == 0) {
            return i;
        }
    }
    return -1;
}

/* Builds g from the table; devices stay in g->given_device.  Returns 0 or a code. */
static inline int simtest_graph(struct graph *g, const struct simtest_op *ops, int n)
{
    struct workload w;
    int rc;

    workload_init(&w);
    if ((rc = workload_set_name(&w, "simtest")) != 0) {
        goto out;
    }
    for (int i = 0; i < n; i++) {
        int32_t idx;
        const char *p;

        if ((rc = workload_add_op(&w, ops[i].name, "Op", &idx)) != 0) {
            goto out;
        }
        w.op[idx].time_us = (double)ops[i].time_us;
        w.op[idx].temp = ops[i].temp;
        w.op[idx].persistent = ops[i].persistent;
        w.op[idx].device = ops[i].device;
        for (p = ops[i].outputs; p && *p;) {
            char *end;
            long long b = strtoll(p, &end, 10);

            if (end == p) {
                break;
            }
            if ((rc = workload_add_output(&w, b)) != 0) {
                goto out;
            }
            p = end;
        }
        for (p = ops[i].inputs; p && *p;) {
            const char *tok, *colon;
            size_t len;
            int32_t port = 0, prod;
            int control = 0;

            while (*p == ' ') {
                p++;
            }
            if (!*p) {
                break;
            }
            if (*p == '^') {
                control = 1;
                p++;
            }
            tok = p;
            while (*p && *p != ' ') {
                p++;
            }
            colon = memchr(tok, ':', (size_t)(p - tok));
            len = colon ? (size_t)(colon - tok) : (size_t)(p - tok);
            if (colon) {
                port = atoi(colon + 1);
            }
            prod = simtest_find(ops, n, tok, len);
            if (prod < 0) {
                fprintf(stderr, "simtest: unknown producer in '%s'\n", ops[i].inputs);
                rc = -1;
                goto out;
            }
            rc = workload_add_input(&w, prod, control ? WL_PORT_CONTROL : port, 0, 0);
            if (rc) {
                goto out;
            }
        }
    }
    if ((rc = workload_check(&w)) != 0) {
        goto out;
    }
    rc = graph_build(g, &w);
out:
    workload_release(&w);
    return rc;
}

/* n identical devices of mem_bytes, comm model (slope, intercept), channel model. */
static inline int simtest_cluster(struct cluster *c, int32_t n, int64_t mem_bytes, double slope,
                                  double intercept, enum channel_model channel)
{
    cluster_init(c);
    c->comm.slope_us_per_byte = slope;
    c->comm.intercept_us = intercept;
    c->channel = channel;
    return cluster_add_devices(c, n, mem_bytes, 1.0);
}

/* xorshift64*: deterministic random numbers for tests. */
static inline uint64_t simtest_rand(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ULL;
}

enum { SIMTEST_DAG2_MAX = 64 };

/*
 * A seeded random DAG of n (<= SIMTEST_DAG2_MAX) ops "n0".. in which each
 * op after the first reads two earlier ops' outputs (one tensor of
 * out_bytes, a byte string as in simtest_op), computes 5-54 µs, uses temp
 * bytes and holds persistent bytes drawn below persist_mod (none, and no
 * draw, when 0).  0 or simtest_graph's error; -1 when n is too large.
 */
static inline int simtest_dag2(struct graph *g, int n, uint64_t s, const char *out_bytes,
                               int64_t temp, int64_t persist_mod)
{
    struct simtest_op ops[SIMTEST_DAG2_MAX];
    char names[SIMTEST_DAG2_MAX][8], inputs[SIMTEST_DAG2_MAX][32];

    if (n > SIMTEST_DAG2_MAX) {
        return -1;
    }
    for (int i = 0; i < n; i++) {
        int64_t t, p;
        snprintf(names[i], sizeof(names[i]), "n%d", i);
        inputs[i][0] = '\0';
        if (i > 0) {
            int p1 = (int)(simtest_rand(&s) % (uint64_t)i);
            int p2 = (int)(simtest_rand(&s) % (uint64_t)i);
            snprintf(inputs[i], sizeof(inputs[i]), "n%d:0 n%d:0", p1, p2);
        }
        t = 5 + (int64_t)(simtest_rand(&s) % 50);
        p = persist_mod > 0 ? (int64_t)(simtest_rand(&s) % (uint64_t)persist_mod) : 0;
        ops[i] = (struct simtest_op){names[i], t, out_bytes, temp, p, -1, inputs[i]};
    }
    return simtest_graph(g, ops, n);
}

/*
 * A random DAG of n ops (op i reads 0..3 tensors of earlier ops, 1..2 output
 * ports, some control inputs), random costs and memory, devices in
 * 0..n_devices-1.  Op 0 feeds op 1 so nothing is left dangling by chance.
 */
static inline int simtest_random_graph(struct graph *g, int n, int32_t n_devices, uint64_t seed)
{
    struct workload w;
    int rc;
    uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 1;

    workload_init(&w);
    if ((rc = workload_set_name(&w, "random")) != 0) {
        goto out;
    }
    for (int i = 0; i < n; i++) {
        char name[32];
        int32_t idx;
        int nout = 1 + (int)(simtest_rand(&s) % 2), nin;

        snprintf(name, sizeof(name), "op%d", i);
        if ((rc = workload_add_op(&w, name, "Op", &idx)) != 0) {
            goto out;
        }
        w.op[idx].time_us = (double)(1 + simtest_rand(&s) % 50);
        w.op[idx].temp = (int64_t)(simtest_rand(&s) % 3 == 0 ? simtest_rand(&s) % 1000 : 0);
        w.op[idx].persistent = (int64_t)(simtest_rand(&s) % 4 == 0 ? simtest_rand(&s) % 1500 : 0);
        w.op[idx].device = (int32_t)(simtest_rand(&s) % (uint64_t)n_devices);
        for (int k = 0; k < nout; k++) {
            if ((rc = workload_add_output(&w, (int64_t)(simtest_rand(&s) % 4000))) != 0) {
                goto out;
            }
        }
        nin = i == 0 ? 0 : (int)(simtest_rand(&s) % 4);
        if (i == 1) {
            rc = workload_add_input(&w, 0, 0, 0, 0);
            if (rc) {
                goto out;
            }
            continue;
        }
        for (int k = 0; k < nin; k++) {
            int32_t prod = (int32_t)(simtest_rand(&s) % (uint64_t)i);
            int32_t nports = w.op[prod].n_out;
            int32_t port =
                simtest_rand(&s) % 5 == 0 ? WL_PORT_CONTROL : (int32_t)(simtest_rand(&s) % nports);

            if ((rc = workload_add_input(&w, prod, port, 0, 0)) != 0) {
                goto out;
            }
        }
    }
    if ((rc = workload_check(&w)) != 0) {
        goto out;
    }
    rc = graph_build(g, &w);
out:
    workload_release(&w);
    return rc;
}

#endif
