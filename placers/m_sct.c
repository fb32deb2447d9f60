/*
 * m_sct.c - m-SCT and m-SCT-reserve (baechi-spec §4): the favourite-child LP
 * (lp.c), threshold rounding and favourite assignment (§4.2), then list
 * scheduling with the SCT device rule (§4.3) in the original's loop
 * (list_sched.c, ls_run_reference with favourites).
 *
 * deviation (§4.4): an urgent candidate must have a schedule time on the
 * device (the original accepts one that the colocation filter removed, and
 * then crashes on a None key or places the group without its memory check).
 *
 * deviation: m-SCT never ends with an internal error on valid input.  When
 * the favourite-child LP is not solved after its retries (lp.c), GLPK runs
 * out of memory, or the LP would be too large (below), the placement is
 * m-ETF's, with a warning saying so and `lp_status: "fallback: m-etf
 * (<reason>)"` (also when --lp-time-limit is reached: a wall-time limit
 * never gives a result, which would depend on the machine's load) in the placement's statistics (so
 * in the placement file, the JSON and the database); the placer stays m-sct (docs/placers.md).
 * m-SCT without favourite children is m-ETF's rule, so this is the placement the LP's rounding
 * would give if it chose no favourite at all.  Out of memory outside GLPK (our own arrays) is
 * BAECHI_ENOMEM, not a fallback.
 *
 * Size bound: an op with more than SCT_MAX_DEGREE inputs (or outputs) makes
 * both the LP (a row of that many columns, a degenerate vertex search) and
 * the original's scheduling loop, which scans every ready op at each step,
 * grow quadratically: one op with 10,000 inputs took 10 s, 100,000 inputs
 * more than 300 s.  Such a graph falls back to m-ETF (milliseconds) before
 * the LP is built.  Skipping favourites only for the excess fan-in would
 * leave the quadratic loop, so the whole placement goes to m-ETF.  The LP
 * itself grows quadratically with its size even on a chain (GLPK pivots
 * once per edge: 10,000 ops 1.6 s, 20,000 ops 6.3 s), so an LP of more than
 * SCT_MAX_LP_COLUMNS columns (edges + nodes + 1) falls back too; the
 * paper's models (GNMT, Inception-V3, Transformer, GPT, training graphs
 * included) stay below 10,000 ops, far under it.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/list_sched.h"

#include "core/alloc.h"
#include "core/err.h"
#include "placers/lp_backend.h"
#include "placers/lp_memo.h"

#include <math.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Devices of m-SCT (and m-ETF): ls_init's limit, checked before the LP. */
#define SCT_MAX_DEVICES 64

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* See the comment at the top: beyond this fan-in or fan-out, or this many
 * LP columns, m-ETF. */
#define SCT_MAX_DEGREE     4096
#define SCT_MAX_LP_COLUMNS 65536
/* The same when CLP solves it (lp_backend.h): the 30k-op layered graph's LP
 * (119,476 columns) takes 21 s of CPU, the 100k-op one's (about 400,000)
 * more than 120 s (docs/limits.md) */
#define SCT_MAX_LP_COLUMNS_CLP 131072
/* The same with `--lp-solver flow` (lp_sct_flow.h): its time grows linearly
 * (LP_SCT_FLOW_STEPS passes over the edges; the 10k-op layered graph's
 * 39,694 columns take about 4 s), so about a minute at this size */
#define SCT_MAX_LP_COLUMNS_FLOW 1048576

static int32_t max_degree(const struct pgraph *p)
{
    int32_t best = 0;

    for (int32_t v = 0; v < p->n; v++) {
        int32_t in = p->in_start[v + 1] - p->in_start[v];
        int32_t out = p->out_start[v + 1] - p->out_start[v];

        best = in > best ? in : best;
        best = out > best ? out : best;
    }
    return best;
}

/* Reasons of a fallback, short enough for lp_status (31 bytes in all). */
#define SCT_WHY_DEGREE "high degree"
#define SCT_WHY_SIZE   "LP too large"
#define SCT_WHY_OOM    "out of memory"
#define SCT_WHY_SOLVER "LP not solved"
#define SCT_WHY_TIME   "time limit"
#define SCT_WHY_ITERS  "LP iterations"

static const char *fallback_why(const struct lp_result *lr)
{
    if (lr->out_of_memory) {
        return SCT_WHY_OOM;
    }
    if (lr->stopped == LP_STOP_TIME) {
        return SCT_WHY_TIME;
    }
    return lr->stopped == LP_STOP_ITERATIONS ? SCT_WHY_ITERS : SCT_WHY_SOLVER;
}

static int fallback_etf(const struct palgo_ctx *x, bool reserve, int32_t *device_of,
                        struct placer_stats *st, const char *why)
{
    int rc = m_etf_place(x, reserve, device_of, st);

    st->lp_makespan_us = NAN;
    st->n_favourites = st->n_favourite_edges = 0;
    snprintf(st->lp_status, sizeof(st->lp_status), "fallback: m-etf (%s)", why);
    return rc;
}

int m_sct_place(const struct palgo_ctx *x, bool reserve, int32_t *device_of,
                struct placer_stats *st)
{
    struct lp_result lr = {0};
    struct lp_limits lim;
    struct ls_state s;
    int32_t *fav = NULL;
    int64_t est = -1;
    double t0 = now_ms();
    int32_t max_cols;
    int rc;

    if (x->n_dev < 1 || x->n_dev > SCT_MAX_DEVICES) {
        /* before the LP, which would be solved and then thrown away: the
         * scheduling loop (list_sched.c) holds at most this many */
        return err_set(BAECHI_EINVAL, "m-etf/m-sct support 1 to %d devices, not %d",
                       SCT_MAX_DEVICES, (int)x->n_dev);
    }
    if (max_degree(x->p) > SCT_MAX_DEGREE) {
        err_warn("m-sct: an op has %d inputs or outputs (more than %d): the favourite-child LP "
                 "and the SCT loop grow quadratically; placing with m-ETF instead",
                 (int)max_degree(x->p), SCT_MAX_DEGREE);
        return fallback_etf(x, reserve, device_of, st, SCT_WHY_DEGREE);
    }
    switch (lp_solver_choose(x->opt->lp_solver, lp_favourite_child_nonzeros(x->p))) {
    case PLACER_LP_CLP:
        max_cols = SCT_MAX_LP_COLUMNS_CLP;
        break;
    case PLACER_LP_FLOW:
        max_cols = SCT_MAX_LP_COLUMNS_FLOW;
        break;
    default:
        max_cols = SCT_MAX_LP_COLUMNS;
    }
    if ((int64_t)x->p->m + x->p->n + 1 > max_cols) {
        err_warn("m-sct: the favourite-child LP would have %lld columns (more than %d) and "
                 "take minutes to hours; placing with m-ETF instead",
                 (long long)x->p->m + x->p->n + 1, max_cols);
        return fallback_etf(x, reserve, device_of, st, SCT_WHY_SIZE);
    }
    lim.time_limit_s = x->opt->lp_time_limit_s;
    lim.iteration_limit = x->opt->lp_iteration_limit;
    lim.solver = x->opt->lp_solver;
    /* auto's candidates share one solve per distinct LP (lp_memo.h) */
    rc = x->opt->lp_memo ? lp_memo_solve(x->opt->lp_memo, x->p, &lim, &lr)
                         : lp_favourite_child_limited(x->p, &lim, &lr);
    if (rc != 0) {
        if (rc != BAECHI_ESOLVER) {
            return rc;
        }
        err_warn("m-sct: %s%s; placing with m-ETF instead (the placement is m-ETF's)", err_msg(),
                 lr.out_of_memory ? " (out of memory)" : "");
        st->lp_ms = now_ms() - t0;
        st->lp_iterations = lr.iterations;
        snprintf(st->lp_solver, sizeof(st->lp_solver), "%s", placer_lp_solver_name(lr.solver));
        st->lp_rows = lr.n_rows, st->lp_cols = lr.n_cols, st->lp_nonzeros = lr.nonzeros;
        return fallback_etf(x, reserve, device_of, st, fallback_why(&lr));
    }
    st->lp_ms = now_ms() - t0;
    st->lp_iterations = lr.iterations;
    snprintf(st->lp_solver, sizeof(st->lp_solver), "%s", placer_lp_solver_name(lr.solver));
    st->lp_rows = lr.n_rows, st->lp_cols = lr.n_cols, st->lp_nonzeros = lr.nonzeros;
    st->lp_makespan_us = lr.makespan_us;
    snprintf(st->lp_status, sizeof(st->lp_status), "%s", lr.status);
    fav = mem_alloc_array(2 * (size_t)x->p->n + 1, sizeof(int32_t));
    if (!fav) {
        lp_result_release(&lr);
        return BAECHI_ENOMEM;
    }
    sct_assign_favourites(x->p, lr.x, x->opt->sct_threshold, fav, &st->n_favourite_edges,
                          &st->n_favourites);
    lp_result_release(&lr);
    if ((rc = ls_init(&s, x->p, x->n_dev, x->limit, reserve, x->opt->persistent_at_place)) == 0) {
        rc = ls_run_reference(&s, fav, &est);
        rc = ls_finish(x, &s, rc, reserve ? "m-sct-reserve" : "m-sct", device_of, st);
        if (rc == 0) {
            st->estimate_us = est;
        }
        ls_release(&s);
    }
    free(fav);
    return rc;
}
