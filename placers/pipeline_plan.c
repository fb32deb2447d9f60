/*
 * pipeline_plan.c - PipeDream's partitioning dynamic programme over a chain
 * of layers (pipeline_plan.h).
 *
 * Rows of the cost table are computed one start unit i at a time, in
 * increasing i: when row i is reached, A(i, s) is final for every s (its
 * candidates all start before i), so row i extends every A(i, s - 1) to
 * A(j, s) and the table of stage costs is never stored whole.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/pipeline_plan.h"

#include "core/alloc.h"
#include "core/checked.h"
#include "core/err.h"

#include <math.h>
#include <stdlib.h>

#define NONE INT64_MAX

void pipeline_plan_release(struct pipeline_plan *p)
{
    free(p->start);
    free(p->time_us);
    free(p->mem_bytes);
    p->start = NULL;
    p->time_us = p->mem_bytes = NULL;
    p->bottleneck_us = 0;
}

int64_t pipeline_plan_mem_bytes(const struct pipeline_chain *c, int32_t i, int32_t j,
                                int64_t in_flight)
{
    int64_t persist = 0, saved = 0, work = 0;

    for (int32_t u = i; u < j; u++) {
        persist = sat_add_i64(persist, c->persist_bytes[u]);
        saved = sat_add_i64(saved, c->saved_bytes[u]);
        work = c->work_bytes[u] > work ? c->work_bytes[u] : work;
    }
    return sat_add_i64(sat_add_i64(persist, sat_mul_i64(in_flight, saved)), work);
}

static int64_t stage_time(int64_t compute_us, double speed, int64_t recv_us)
{
    return sat_add_i64(sat_i64_from_double(nearbyint((double)compute_us / speed)), recv_us);
}

/* Extends every finished A(i, s - 1) by the stages [i, j), j > i (row i). */
static void relax_row(const struct pipeline_chain *c, const struct pipeline_stages *st, int32_t i,
                      const int64_t *recv, int64_t *best, int32_t *arg)
{
    int32_t n = c->n, S = st->n_stages;
    int64_t compute = 0, persist = 0, saved = 0, work = 0;

    for (int32_t j = i + 1; j <= n; j++) {
        int32_t u = j - 1;

        compute = sat_add_i64(compute, c->compute_us[u]);
        persist = sat_add_i64(persist, c->persist_bytes[u]);
        saved = sat_add_i64(saved, c->saved_bytes[u]);
        work = c->work_bytes[u] > work ? c->work_bytes[u] : work;
        /* stage s starts at i: s <= i (earlier stages non-empty) and the
         * S - 1 - s later stages need n - j >= S - 1 - s units */
        for (int32_t s = 0; s < S && s <= i; s++) {
            int64_t prev = s == 0 ? (i == 0 ? 0 : NONE) : best[(size_t)(s - 1) * (n + 1) + i];
            int64_t mem, t, cand;
            size_t at = (size_t)s * (n + 1) + j;

            if (prev == NONE || n - j < S - 1 - s) {
                continue;
            }
            mem = sat_add_i64(sat_add_i64(persist, sat_mul_i64(st->in_flight[s], saved)), work);
            if (mem > st->limit_bytes[s]) {
                continue;
            }
            t = stage_time(compute, st->speed[s], recv ? recv[j - i - 1] : 0);
            cand = prev > t ? prev : t;
            if (cand < best[at]) {
                best[at] = cand;
                arg[at] = i;
            }
        }
    }
}

/* The stages of the optimum back from A(n, S - 1), with their times and memory. */
static int trace_back(const struct pipeline_chain *c, const struct pipeline_stages *st,
                      const int32_t *arg, struct pipeline_plan *out)
{
    int32_t n = c->n, S = st->n_stages, j = n;
    int64_t *recv = NULL;
    int rc = 0;

    out->start[S] = n;
    for (int32_t s = S - 1; s >= 0; s--) {
        j = arg[(size_t)s * (n + 1) + j];
        out->start[s] = j;
    }
    if (c->recv_row && !(recv = mem_alloc_array((size_t)n, sizeof(int64_t)))) {
        return BAECHI_ENOMEM;
    }
    out->bottleneck_us = 0;
    for (int32_t s = 0; s < S; s++) {
        int32_t a = out->start[s], b = out->start[s + 1];
        int64_t compute = 0;

        if (recv) {
            CHECK(c->recv_row(c->recv_arg, a, recv));
        }
        for (int32_t u = a; u < b; u++) {
            compute = sat_add_i64(compute, c->compute_us[u]);
        }
        out->time_us[s] = stage_time(compute, st->speed[s], recv ? recv[b - a - 1] : 0);
        out->mem_bytes[s] = pipeline_plan_mem_bytes(c, a, b, st->in_flight[s]);
        if (out->time_us[s] > out->bottleneck_us) {
            out->bottleneck_us = out->time_us[s];
        }
    }
cleanup:
    free(recv);
    return rc;
}

int pipeline_plan_solve(const struct pipeline_chain *c, const struct pipeline_stages *st,
                        struct pipeline_plan *out)
{
    int32_t n = c->n, S = st->n_stages;
    int64_t *best = NULL, *recv = NULL;
    int32_t *arg = NULL;
    size_t cells;
    int rc = 0;

    out->start = NULL;
    out->time_us = out->mem_bytes = NULL;
    out->bottleneck_us = 0;
    if (S < 1 || n < 1 || S > n) {
        return err_set(BAECHI_EINVAL,
                       "pipeline: %d stages for %d layers (need 1 <= stages <= layers)", (int)S,
                       (int)n);
    }
    cells = (size_t)S * ((size_t)n + 1);
    best = mem_alloc_array(cells, sizeof(int64_t));
    arg = mem_alloc_array(cells, sizeof(int32_t));
    out->start = mem_alloc_array((size_t)S + 1, sizeof(int32_t));
    out->time_us = mem_alloc_array((size_t)S, sizeof(int64_t));
    out->mem_bytes = mem_alloc_array((size_t)S, sizeof(int64_t));
    if (c->recv_row) {
        recv = mem_alloc_array((size_t)n, sizeof(int64_t));
    }
    if (!best || !arg || !out->start || !out->time_us || !out->mem_bytes ||
        (c->recv_row && !recv)) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    for (size_t k = 0; k < cells; k++) {
        best[k] = NONE;
        arg[k] = -1;
    }
    /* the last stage may start at n - 1 at the latest: rows i <= n - 1 */
    for (int32_t i = 0; i < n; i++) {
        if (recv) {
            CHECK(c->recv_row(c->recv_arg, i, recv));
        }
        relax_row(c, st, i, recv, best, arg);
    }
    if (best[(size_t)(S - 1) * (n + 1) + n] == NONE) {
        rc = BAECHI_EINFEASIBLE;
        goto cleanup;
    }
    rc = trace_back(c, st, arg, out);
cleanup:
    if (rc != 0) {
        pipeline_plan_release(out);
    }
    free(best);
    free(arg);
    free(recv);
    return rc;
}
