/*
 * lp.c - the favourite-child LP of m-SCT (baechi-spec §4.1) and its rounding
 * (§4.2).  The only GLPK user of the suite.
 *
 *   minimise w
 *   s.t.  0 <= x_e <= 1, s_i >= 0                        (1) (2) as bounds
 *         s_i - s_j + c_e x_e <= -p_i   for e = (i -> j)  (3)
 *         Σ_{e in out(i)} x_e >= outdeg(i) - 1            (4)
 *         Σ_{e in in(j)}  x_e >= indeg(j) - 1             (5)
 *         s_i - w <= -p_i                                 (6)
 *
 * Rows implied by others are left out (same polytope, same vertices): (4)
 * and (5) for degree 1 (x >= 0 is a bound) and (6) for non-sinks.
 *
 * Solved with GLPK's primal simplex, so the solution is a vertex, as the
 * original's MOSEK basic solution is.  deviation: the LP is degenerate and
 * the vertex GLPK returns need not be MOSEK's, so favourite sets can differ
 * from the Python runs (§4.1, §12.8); unavoidable.
 *
 * GLPK is fenced here (as igraph's glpk_support.h does): an error hook that
 * longjmps back to the single entry point, the environment freed, and
 * BAECHI_ESOLVER returned with GLPK's message.  No other longjmp.
 *
 * Out of memory inside GLPK: its allocator (glp_alloc) reports a failed
 * malloc, or a request beyond glp_mem_limit, through the error hook, so it
 * comes back here as BAECHI_ESOLVER with r->out_of_memory set.  Only the
 * creation of GLPK's environment aborts on a failed malloc when it happens
 * implicitly (glp_error_hook's first call): it is created explicitly first
 * with glp_init_env, whose failure is a return code.  The memory limit is
 * LP_MEM_LIMIT_MB_MIN plus LP_MEM_KIB_PER_NONZERO per non-zero of the
 * matrix, more than ten times GLPK's own peak (glp_mem_usage: GNMT's LP,
 * 25,739 non-zeros, 6.4 MB, 0.24 KiB each; Inception-V3 0.27 KiB; a chain of
 * 20,000 ops 0.18 KiB), so that a limit is reached only by a runaway; or
 * BAECHI_GLPK_MEM_LIMIT_MB from the environment (a test hook: a tiny limit
 * forces the out-of-memory path; docs/placers.md).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/placer_internal.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"
#include "placers/lp_backend.h"
#include "placers/lp_sct_flow.h"

#include <errno.h>
#include <glpk.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LP_MEM_LIMIT_MB_MIN    256
#define LP_MEM_KIB_PER_NONZERO 4
#define LP_MEM_LIMIT_MB_MAX    (1 << 30)
#define LP_MEM_LIMIT_ENV       "BAECHI_GLPK_MEM_LIMIT_MB"
#define LP_WRITE_MPS_ENV       "BAECHI_LP_WRITE_MPS"

static _Thread_local char lp_msg[256];

static int lp_term_hook(void *info, const char *s)
{
    size_t n = strlen(lp_msg);
    (void)info;
    if (n + strlen(s) >= sizeof(lp_msg)) {
        lp_msg[0] = '\0';
        n = 0;
    }
    strncat(lp_msg, s, sizeof(lp_msg) - n - 1);
    return 1; /* never print */
}

static void lp_error_hook(void *info)
{
    longjmp(*(jmp_buf *)info, 1);
}

/* Removes trailing newlines and blanks of lp_msg; the start of its last line. */
static char *lp_msg_last_line(void)
{
    size_t n = strlen(lp_msg);
    char *start;

    while (n > 0 && (lp_msg[n - 1] == '\n' || lp_msg[n - 1] == ' ')) {
        lp_msg[--n] = '\0';
    }
    start = strrchr(lp_msg, '\n');
    return start ? start + 1 : lp_msg;
}

/*
 * GLPK's last non-empty line of output: messages stay one line.  After an
 * error GLPK prints the cause ("glp_alloc: no memory available") and then
 * "Error detected in file env/alloc.c at line 89": the cause is kept.
 */
static void lp_last_line(char *buf, size_t size)
{
    char *start = lp_msg_last_line();

    if (strncmp(start, "Error detected in file", 22) == 0 && start > lp_msg) {
        start[-1] = '\0';
        start = lp_msg_last_line();
    }
    snprintf(buf, size, "%s", start[0] ? start : "unknown error");
}

/* Whether GLPK's message says that its allocator failed. */
static bool lp_msg_out_of_memory(const char *msg)
{
    return strstr(msg, "no memory available") || strstr(msg, "memory allocation limit exceeded");
}

/* GLPK's memory limit for an LP of `nonzeros` entries (MB; see the top). */
static int lp_mem_limit_mb(size_t nonzeros)
{
    const char *env = getenv(LP_MEM_LIMIT_ENV);
    double mb;

    if (env && env[0]) {
        char *end;
        long v = strtol(env, &end, 10);

        if (*end == '\0' && v >= 1 && v <= LP_MEM_LIMIT_MB_MAX) {
            return (int)v;
        }
    }
    mb = LP_MEM_LIMIT_MB_MIN + (double)nonzeros * LP_MEM_KIB_PER_NONZERO / 1024.0;
    return mb < LP_MEM_LIMIT_MB_MAX ? (int)mb : LP_MEM_LIMIT_MB_MAX;
}

/* After a GLPK error (the longjmp of lp_error_hook): GLPK's state is
 * unusable, so the whole environment goes; its last line into msg. */
static void lp_fence_failed(char *msg, size_t size)
{
    glp_error_hook(NULL, NULL);
    glp_free_env();
    lp_last_line(msg, size);
}

/*
 * Opens the fence: GLPK's environment created (its only allocation that
 * would abort on failure, see the top), its output into lp_msg, its errors
 * to jb, its memory limited to mem_limit_mb (0: none).  BAECHI_ESOLVER with
 * *out_of_memory set when the environment cannot be created.
 */
static int lp_fence_open(jmp_buf *jb, int mem_limit_mb, bool *out_of_memory)
{
    int rc = glp_init_env();

    if (rc != 0 && rc != 1) { /* 1: it existed already */
        *out_of_memory = rc == 2;
        return err_set(BAECHI_ESOLVER, "GLPK could not start: %s",
                       rc == 2 ? "out of memory" : "unsupported programming model");
    }
    lp_msg[0] = '\0';
    glp_term_hook(lp_term_hook, NULL);
    glp_error_hook(lp_error_hook, jb);
    if (mem_limit_mb > 0) {
        glp_mem_limit(mem_limit_mb);
    }
    return 0;
}

/* Closes the fence and frees this thread's GLPK environment: GLPK 5.0 keeps
 * it per thread (built with TLS) and nothing frees it when a thread ends, so
 * each thread that solved once would leak it; the next solve makes a new
 * one.  Every problem is deleted before. */
static void lp_fence_close(void)
{
    glp_error_hook(NULL, NULL);
    glp_term_hook(NULL, NULL);
    glp_free_env(); /* and with it the memory limit set by lp_fence_open */
}

void lp_result_release(struct lp_result *r)
{
    free(r->x);
    r->x = NULL;
}

/*
 * A primal feasible starting basis (phase 1 skipped): every x_e = 1 (all
 * communication paid, nonbasic at its upper bound), s_j = its ASAP start,
 * basic in the row (3) of its critical in-edge (tight), sources at 0, w basic
 * in the row (6) of the critical sink; every other row's slack basic.  The
 * basis matrix is triangular in topological order, so it is nonsingular.
 */
static int warm_basis(const struct pgraph *p, glp_prob *lp)
{
    int32_t E = p->m, N = p->n;
    int32_t *order = NULL, *indeg = NULL;
    double *s = NULL;
    int32_t head = 0, tail = 0, crit_sink = -1;
    double best = -1;
    int sink_row;

    order = mem_alloc_array((size_t)N + 1, sizeof(int32_t));
    indeg = mem_alloc_array((size_t)N + 1, sizeof(int32_t));
    s = mem_calloc((size_t)N + 1, sizeof(double));
    if (!order || !indeg || !s) {
        free(order);
        free(indeg);
        free(s);
        return BAECHI_ENOMEM;
    }
    for (int32_t v = 0; v < N; v++) {
        indeg[v] = p->in_start[v + 1] - p->in_start[v];
        if (indeg[v] == 0) {
            order[tail++] = v;
        }
    }
    while (head < tail) {
        int32_t u = order[head++];
        for (int32_t e = p->out_start[u]; e < p->out_start[u + 1]; e++) {
            if (--indeg[p->dst[e]] == 0) {
                order[tail++] = p->dst[e];
            }
        }
    }
    for (int i = 1; i <= glp_get_num_rows(lp); i++) {
        glp_set_row_stat(lp, i, GLP_BS);
    }
    for (int32_t e = 0; e < E; e++) {
        glp_set_col_stat(lp, e + 1, GLP_NU);
    }
    glp_set_col_stat(lp, E + N + 1, GLP_BS);
    sink_row = glp_get_num_rows(lp); /* rows (6) are the last ones, sinks in node order */
    for (int32_t v = 0; v < N; v++) {
        sink_row -= p->out_start[v + 1] == p->out_start[v];
    }
    for (int32_t k = 0; k < tail; k++) {
        int32_t v = order[k];
        int32_t ce = -1;
        for (int32_t i = p->in_start[v]; i < p->in_start[v + 1]; i++) {
            int32_t e = p->in_edge[i];
            double t = s[p->src[e]] + (double)p->weight[p->src[e]] + (double)p->ecomm[e];
            if (ce < 0 || t > s[v]) {
                s[v] = t;
                ce = e;
            }
        }
        if (ce < 0) {
            glp_set_col_stat(lp, E + v + 1, GLP_NL);
        } else {
            glp_set_col_stat(lp, E + v + 1, GLP_BS);
            glp_set_row_stat(lp, ce + 1, GLP_NU);
        }
    }
    for (int32_t v = 0, r = sink_row; v < N; v++) {
        if (p->out_start[v + 1] != p->out_start[v]) {
            continue;
        }
        r++;
        if (s[v] + (double)p->weight[v] > best) {
            best = s[v] + (double)p->weight[v];
            crit_sink = r;
        }
    }
    if (crit_sink > 0) {
        glp_set_row_stat(lp, crit_sink, GLP_NU);
    }
    free(order);
    free(indeg);
    free(s);
    return tail == N ? 0 : err_set(BAECHI_EINVAL, "favourite-child LP: the graph has a cycle");
}

/*
 * BAECHI_LP_WRITE_MPS=PATH (a probe, as BAECHI_GLPK_MEM_LIMIT_MB is a test
 * hook): the LP GLPK is about to solve, written to PATH in free MPS, so that
 * other solvers and options can be measured on exactly this LP
 * (scripts/lp-probe/, docs/limits.md "Size and time of the LP").  Solving
 * goes on; a file that cannot be written is an I/O error.
 */
static int lp_write_mps(glp_prob *lp)
{
    const char *path = getenv(LP_WRITE_MPS_ENV);

    if (!path || !path[0] || glp_write_mps(lp, GLP_MPS_FILE, NULL, path) == 0) {
        return 0;
    }
    /* GLPK opens the file with fopen: its errno says why */
    return err_set_io(errno, "cannot write the favourite-child LP to '%s' (%s)", path,
                      LP_WRITE_MPS_ENV);
}

/*
 * One glp_simplex call within the iteration limit: parm->it_lim is what is
 * left of `iteration_limit` (cumulative over the attempts: glp_get_it_cnt
 * counts every call on lp).  The stop reason into *stop.
 */
static void lp_attempt(glp_prob *lp, glp_smcp *parm, int64_t iteration_limit, int *ret, int *status,
                       enum lp_stop *stop)
{
    if (iteration_limit > 0) {
        int64_t left = iteration_limit - glp_get_it_cnt(lp);

        if (left <= 0) {
            *ret = GLP_EITLIM;
            *stop = LP_STOP_ITERATIONS;
            return;
        }
        parm->it_lim = left > INT32_MAX ? INT32_MAX : (int)left;
    }
    *ret = glp_simplex(lp, parm);
    *status = glp_get_status(lp);
    if (*ret == GLP_EITLIM && *status == GLP_OPT) {
        *ret = 0; /* the limit met at the optimum: GLPK checks the limit first */
    }
    *stop = *ret == GLP_EITLIM   ? LP_STOP_ITERATIONS
            : *ret == GLP_ETMLIM ? LP_STOP_TIME
                                 : LP_STOP_NONE;
}

/* Whether the last attempt left something to retry: not solved, and no limit reached. */
static bool lp_retry(int ret, int status, enum lp_stop stop)
{
    return stop == LP_STOP_NONE && !(ret == 0 && status == GLP_OPT);
}

/*
 * The LP's rows in GLPK's layout, shared by both solvers so that they solve
 * the same LP: entries ia/ja/ar[1..nnz] (1-based rows and columns), row r's
 * bounds row_lo/row_hi[r] (-HUGE_VAL / HUGE_VAL: none).  Columns: x_e are
 * 1..E, s_i E+1..E+N, w E+N+1.
 */
struct lp_model {
    int n_rows, n_cols, nnz;
    int *ia, *ja;
    double *ar;
    double *row_lo, *row_hi;
};

/* Appends one row with bounds lo, hi; its number. */
static int lp_model_row(struct lp_model *m, double lo, double hi)
{
    m->n_rows++;
    m->row_lo[m->n_rows] = lo;
    m->row_hi[m->n_rows] = hi;
    return m->n_rows;
}

static void lp_model_add(struct lp_model *m, int row, int col, double v)
{
    m->nnz++;
    m->ia[m->nnz] = row, m->ja[m->nnz] = col, m->ar[m->nnz] = v;
}

/* The rows of the LP at the top, in that order: (3), (4), (5), (6). */
static void lp_build(const struct pgraph *p, struct lp_model *m)
{
    int32_t E = p->m, N = p->n;
    int row;

    m->n_rows = m->nnz = 0;
    m->n_cols = E + N + 1;
    /* (3) */
    for (int32_t e = 0; e < E; e++) {
        int32_t i = p->src[e], j = p->dst[e];
        row = lp_model_row(m, -HUGE_VAL, -(double)p->weight[i]);
        lp_model_add(m, row, E + i + 1, 1.0);
        lp_model_add(m, row, E + j + 1, -1.0);
        lp_model_add(m, row, e + 1, (double)p->ecomm[e]);
    }
    /* (4) */
    for (int32_t i = 0; i < N; i++) {
        int32_t deg = p->out_start[i + 1] - p->out_start[i];
        if (deg <= 1) {
            continue; /* x >= 0: already a bound */
        }
        row = lp_model_row(m, (double)(deg - 1), HUGE_VAL);
        for (int32_t e = p->out_start[i]; e < p->out_start[i + 1]; e++) {
            lp_model_add(m, row, e + 1, 1.0);
        }
    }
    /* (5) */
    for (int32_t j = 0; j < N; j++) {
        int32_t deg = p->in_start[j + 1] - p->in_start[j];
        if (deg <= 1) {
            continue;
        }
        row = lp_model_row(m, (double)(deg - 1), HUGE_VAL);
        for (int32_t k = p->in_start[j]; k < p->in_start[j + 1]; k++) {
            lp_model_add(m, row, p->in_edge[k] + 1, 1.0);
        }
    }
    /* (6), only for sinks: s_i + p_i <= s_j <= ... <= w holds through (3) otherwise */
    for (int32_t i = 0; i < N; i++) {
        if (p->out_start[i + 1] > p->out_start[i]) {
            continue;
        }
        row = lp_model_row(m, -HUGE_VAL, -(double)p->weight[i]);
        lp_model_add(m, row, E + i + 1, 1.0);
        lp_model_add(m, row, E + N + 1, -1.0);
    }
}

int64_t lp_favourite_child_nonzeros(const struct pgraph *p)
{
    int64_t nnz = 3 * (int64_t)p->m;

    for (int32_t i = 0; i < p->n; i++) {
        int32_t out = p->out_start[i + 1] - p->out_start[i];
        int32_t in = p->in_start[i + 1] - p->in_start[i];

        nnz += (out > 1 ? out : 0) + (in > 1 ? in : 0) + (out == 0 ? 2 : 0);
    }
    return nnz;
}

/* The solve itself with GLPK, inside the fence.  0, or an error code of warm_basis. */
static int lp_solve(const struct pgraph *p, const struct lp_limits *lim, glp_prob *lp,
                    struct lp_result *r, const struct lp_model *m)
{
    int32_t E = p->m, N = p->n;
    int rc;
    int *ret = &r->glp_ret, *status = &r->glp_status;
    glp_smcp parm;
    glp_set_obj_dir(lp, GLP_MIN);
    glp_add_cols(lp, E + N + 1);
    for (int32_t e = 0; e < E; e++) {
        glp_set_col_bnds(lp, e + 1, GLP_DB, 0.0, 1.0);
    }
    for (int32_t i = 0; i < N; i++) {
        glp_set_col_bnds(lp, E + i + 1, GLP_LO, 0.0, 0.0);
    }
    glp_set_col_bnds(lp, E + N + 1, GLP_FR, 0.0, 0.0);
    glp_set_obj_coef(lp, E + N + 1, 1.0);
    glp_add_rows(lp, m->n_rows);
    for (int row = 1; row <= m->n_rows; row++) {
        if (m->row_lo[row] == -HUGE_VAL) {
            glp_set_row_bnds(lp, row, GLP_UP, 0.0, m->row_hi[row]);
        } else {
            glp_set_row_bnds(lp, row, GLP_LO, m->row_lo[row], 0.0);
        }
    }
    glp_load_matrix(lp, m->nnz, m->ia, m->ja, m->ar);
    rc = warm_basis(p, lp);
    if (rc != 0) {
        return rc;
    }
    if ((rc = lp_write_mps(lp)) != 0) {
        return rc;
    }

    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_ERR;
    parm.presolve = GLP_OFF; /* keep the warm basis */
    if (lim->time_limit_s > 0) {
        parm.tm_lim =
            lim->time_limit_s * 1000.0 > 2e9 ? 2000000000 : (int)(lim->time_limit_s * 1000.0);
    }
    lp_attempt(lp, &parm, lim->iteration_limit, ret, status, &r->stopped);
    /*
     * The warm basis is triangular, but with communication costs of 1e4 to
     * 1e7 µs next to 0/1 variables the bases the simplex walks through can be
     * ill-conditioned (GNMT with 0.0375 µs/B: "basis matrix is singular",
     * GLP_EFAIL; the GNMT training graph at 80 steps, fused: "singular to
     * working precision" at the warm basis itself).  Retry, each from
     * scratch: scaled, from the same warm basis (the GNMT training graph:
     * 3,152 iterations, 2 s; glp_adv_basis instead took 32,141 iterations,
     * 40-60 s); the dual simplex after presolve from the standard basis; the
     * interior point method (its solution need not be a vertex; the rounding
     * of §4.2 does not need one).  A limit ends the retries: it is the
     * user's.  The caller falls back to m-ETF when all of them fail.
     */
    if (lp_retry(*ret, *status, r->stopped)) {
        glp_scale_prob(lp, GLP_SF_AUTO);
        if ((rc = warm_basis(p, lp)) != 0) {
            return rc;
        }
        lp_attempt(lp, &parm, lim->iteration_limit, ret, status, &r->stopped);
        snprintf(r->status, sizeof(r->status), "optimal (retry: scaled)");
    }
    if (lp_retry(*ret, *status, r->stopped)) {
        glp_std_basis(lp);
        parm.presolve = GLP_ON;
        parm.meth = GLP_DUALP;
        lp_attempt(lp, &parm, lim->iteration_limit, ret, status, &r->stopped);
        snprintf(r->status, sizeof(r->status), "optimal (retry: presolve)");
    }
    r->iterations = glp_get_it_cnt(lp);
    if (lp_retry(*ret, *status, r->stopped)) {
        glp_iptcp iparm;

        glp_init_iptcp(&iparm);
        iparm.msg_lev = GLP_MSG_ERR;
        *ret = glp_interior(lp, &iparm);
        if (*ret == 0 && glp_ipt_status(lp) == GLP_OPT) {
            for (int32_t e = 0; e < E; e++) {
                r->x[e] = glp_ipt_col_prim(lp, e + 1);
            }
            r->makespan_us = glp_ipt_col_prim(lp, E + N + 1);
            *status = GLP_OPT;
            snprintf(r->status, sizeof(r->status), "optimal (interior point)");
            return 0;
        }
        *status = glp_ipt_status(lp);
        if (*ret == 0) {
            *ret = GLP_EFAIL;
        }
    }
    if (*status == GLP_OPT || *status == GLP_FEAS) {
        for (int32_t e = 0; e < E; e++) {
            r->x[e] = glp_get_col_prim(lp, e + 1);
        }
        r->makespan_us = glp_get_col_prim(lp, E + N + 1);
    }
    return 0;
}

/* GLPK's verdict on the solved (or stopped) LP: 0, or BAECHI_ESOLVER with a message. */
static int lp_glpk_verdict(const struct lp_limits *lim, struct lp_result *r)
{
    char msg[200];
    int ret = r->glp_ret, status = r->glp_status;

    if (status == GLP_OPT && ret == 0) {
        if (!r->status[0]) {
            snprintf(r->status, sizeof(r->status), "optimal");
        }
        return 0;
    }
    if (r->stopped == LP_STOP_ITERATIONS && status == GLP_FEAS) {
        /* the simplex is deterministic: the same basis after the same count */
        snprintf(r->status, sizeof(r->status), "iteration limit (feasible)");
        return 0;
    }
    lp_last_line(msg, sizeof(msg));
    if (r->stopped == LP_STOP_TIME) {
        /* deviation: a wall-time limit never gives a result (which
         * basis it stops at depends on the machine's load): an error */
        return err_set(BAECHI_ESOLVER, "favourite-child LP: time limit of %g s reached",
                       lim->time_limit_s);
    }
    if (r->stopped == LP_STOP_ITERATIONS) {
        return err_set(BAECHI_ESOLVER,
                       "favourite-child LP: iteration limit of %lld reached without a "
                       "feasible solution",
                       (long long)lim->iteration_limit);
    }
    return err_set(BAECHI_ESOLVER,
                   "favourite-child LP not solved (glp_simplex returned %d, status %d): %s", ret,
                   status, msg);
}

/* The LP m with GLPK, inside its fence. */
static int lp_glpk_run(const struct pgraph *p, const struct lp_limits *lim,
                       const struct lp_model *m, struct lp_result *r)
{
    jmp_buf jb;
    glp_prob *volatile lp = NULL;
    int rc;
    char msg[200];
    size_t cap = (size_t)5 * (size_t)p->m + (size_t)2 * (size_t)p->n + 1;

    if ((rc = lp_fence_open(&jb, lp_mem_limit_mb(cap), &r->out_of_memory)) != 0) {
        return rc;
    }
    if (setjmp(jb)) {
        lp_fence_failed(msg, sizeof(msg));
        r->out_of_memory = lp_msg_out_of_memory(msg);
        return err_set(BAECHI_ESOLVER, "GLPK failed on the favourite-child LP: %s", msg);
    }
    lp = glp_create_prob();
    rc = lp_solve(p, lim, lp, r, m);
    glp_delete_prob(lp);
    if (rc == 0) {
        rc = lp_glpk_verdict(lim, r); /* before the fence closes: GLPK's last message */
    }
    lp_fence_close();
    return rc;
}

/*
 * The LP m with CLP (lp_clp.cpp): m's rows turned column-major, CLP's dual
 * simplex after its presolve (no warm basis: the dual simplex starts from
 * a dual feasible one of its own).  Iterations count against the same
 * limit; a stop at the limit gives a result only when the columns are
 * primal feasible (the dual simplex usually stops infeasible: then the
 * caller falls back, as for GLPK).
 */
static int lp_clp_run(const struct pgraph *p, const struct lp_limits *lim, const struct lp_model *m,
                      struct lp_result *r)
{
    int32_t E = p->m, N = p->n;
    int nc = m->n_cols;
    int *start = mem_calloc((size_t)nc + 2, sizeof(int));
    int *row = mem_alloc_array((size_t)m->nnz + 1, sizeof(int));
    double *val = mem_alloc_array((size_t)m->nnz + 1, sizeof(double));
    double *bounds = mem_alloc_array(3 * (size_t)nc + 2 * (size_t)m->n_rows + 1, sizeof(double));
    double *col = mem_alloc_array((size_t)nc + 1, sizeof(double));
    struct lp_clp_problem q;
    struct lp_clp_result cr;
    int rc = 0;

    if (!start || !row || !val || !bounds || !col) {
        rc = err_set(BAECHI_ENOMEM, "out of memory for the favourite-child LP of %d columns", nc);
        goto done;
    }
    for (int k = 1; k <= m->nnz; k++) { /* count per column, then prefix sums: CSC */
        start[m->ja[k]]++;
    }
    for (int j = 1; j <= nc; j++) {
        start[j] += start[j - 1];
    }
    for (int k = 1; k <= m->nnz; k++) { /* start[j - 1] is column j's next free slot */
        int at = start[m->ja[k] - 1]++;
        row[at] = m->ia[k] - 1;
        val[at] = m->ar[k];
    }
    for (int j = nc; j > 0; j--) {
        start[j] = start[j - 1];
    }
    start[0] = 0;
    q = (struct lp_clp_problem){.n_rows = m->n_rows,
                                .n_cols = nc,
                                .col_start = start,
                                .row_index = row,
                                .value = val,
                                .col_lo = bounds,
                                .col_hi = bounds + nc,
                                .obj = bounds + 2 * nc,
                                .row_lo = bounds + 3 * nc,
                                .row_hi = bounds + 3 * nc + m->n_rows};
    for (int j = 0; j < nc; j++) {
        bounds[j] = j < E ? 0.0 : j < E + N ? 0.0 : -LP_CLP_INF;
        bounds[nc + j] = j < E ? 1.0 : LP_CLP_INF;
        bounds[2 * nc + j] = j == E + N ? 1.0 : 0.0;
    }
    for (int i = 0; i < m->n_rows; i++) {
        bounds[3 * nc + i] = m->row_lo[i + 1] == -HUGE_VAL ? -LP_CLP_INF : m->row_lo[i + 1];
        bounds[3 * nc + m->n_rows + i] =
            m->row_hi[i + 1] == HUGE_VAL ? LP_CLP_INF : m->row_hi[i + 1];
    }
    if (lp_clp_solve(&q, lim->iteration_limit, lim->time_limit_s, col, &cr) != 0) {
        r->out_of_memory = cr.out_of_memory;
        rc = err_set(BAECHI_ESOLVER, "CLP failed on the favourite-child LP: %s", cr.msg);
        goto done;
    }
    r->iterations = cr.iterations;
    r->stopped = cr.status == LP_CLP_ITERATIONS ? LP_STOP_ITERATIONS
                 : cr.status == LP_CLP_TIME     ? LP_STOP_TIME
                                                : LP_STOP_NONE;
    if (cr.status == LP_CLP_OPTIMAL || (cr.status == LP_CLP_ITERATIONS && cr.primal_feasible)) {
        for (int32_t e = 0; e < E; e++) {
            r->x[e] = col[e];
        }
        r->makespan_us = col[E + N];
        snprintf(r->status, sizeof(r->status), "%s",
                 cr.status == LP_CLP_OPTIMAL ? "optimal" : "iteration limit (feasible)");
    } else if (cr.status == LP_CLP_TIME) {
        rc = err_set(BAECHI_ESOLVER, "favourite-child LP: time limit of %g s reached",
                     lim->time_limit_s);
    } else if (cr.status == LP_CLP_ITERATIONS) {
        rc = err_set(BAECHI_ESOLVER,
                     "favourite-child LP: iteration limit of %lld reached without a feasible "
                     "solution",
                     (long long)lim->iteration_limit);
    } else {
        rc = err_set(BAECHI_ESOLVER, "favourite-child LP not solved (CLP: %s)",
                     cr.status == LP_CLP_INFEASIBLE  ? "infeasible"
                     : cr.status == LP_CLP_UNBOUNDED ? "unbounded"
                                                     : "numerical trouble");
    }
done:
    free(start);
    free(row);
    free(val);
    free(bounds);
    free(col);
    return rc;
}

/*
 * CLP, and under `auto` with no iteration limit of the user's a budget of
 * iterations set by the LP's size (lp_backend.h): CLP stopped by it, the
 * LP goes to the flow solver (lp_sct_flow.h), and r says so (solver flow,
 * iterations CLP's and the flow's steps together).  deviation: the
 * original solves every LP exactly (MOSEK); an LP that the simplex does not
 * finish within the budget gets an approximate solution with a certified
 * gap (docs/limits.md, "m-SCT's LP").
 */
static int lp_clp_then_flow(const struct pgraph *p, const struct lp_limits *lim,
                            const struct lp_model *m, struct lp_result *r)
{
    struct lp_limits b = *lim;
    bool budget = lim->solver == PLACER_LP_AUTO && lim->iteration_limit == 0;
    int64_t clp_iterations;
    int rc;

    if (budget) {
        b.iteration_limit = lp_auto_clp_budget(m->n_rows);
    }
    rc = lp_clp_run(p, &b, m, r);
    if (!budget || r->stopped != LP_STOP_ITERATIONS || (rc != 0 && rc != BAECHI_ESOLVER)) {
        return rc;
    }
    clp_iterations = r->iterations;
    r->stopped = LP_STOP_NONE;
    r->solver = PLACER_LP_FLOW;
    if ((rc = lp_sct_flow_run(p, r)) == 0) {
        r->iterations += clp_iterations;
    }
    return rc;
}

int lp_favourite_child_limited(const struct pgraph *p, const struct lp_limits *lim,
                               struct lp_result *r)
{
    struct lp_model m = {0};
    size_t cap = (size_t)5 * (size_t)p->m + (size_t)2 * (size_t)p->n + 1;
    size_t rows = (size_t)p->m + 3 * (size_t)p->n + 1;
    int rc = 0;

    memset(r, 0, sizeof(*r));
    r->makespan_us = NAN;
    r->x = mem_calloc((size_t)p->m + 1, sizeof(double));
    m.ia = mem_alloc_array(cap, sizeof(int));
    m.ja = mem_alloc_array(cap, sizeof(int));
    m.ar = mem_alloc_array(cap, sizeof(double));
    m.row_lo = mem_alloc_array(rows, sizeof(double));
    m.row_hi = mem_alloc_array(rows, sizeof(double));
    if (!r->x || !m.ia || !m.ja || !m.ar || !m.row_lo || !m.row_hi) {
        rc = err_set(BAECHI_ENOMEM, "out of memory for the favourite-child LP of %d edges",
                     (int)p->m);
        goto done;
    }
    lp_build(p, &m);
    r->n_rows = m.n_rows;
    r->n_cols = m.n_cols;
    r->nonzeros = m.nnz;
    r->solver = lp_solver_choose(lim->solver, m.nnz);
    rc = r->solver == PLACER_LP_FLOW  ? lp_sct_flow_run(p, r)
         : r->solver == PLACER_LP_CLP ? lp_clp_then_flow(p, lim, &m, r)
                                      : lp_glpk_run(p, lim, &m, r);
done:
    free(m.ia);
    free(m.ja);
    free(m.ar);
    free(m.row_lo);
    free(m.row_hi);
    if (rc != 0) {
        lp_result_release(r);
    }
    return rc;
}

int lp_favourite_child(const struct pgraph *p, double time_limit_s, struct lp_result *r)
{
    struct lp_limits lim = {time_limit_s, 0, PLACER_LP_AUTO};

    return lp_favourite_child_limited(p, &lim, r);
}

int lp_selftest_error(void)
{
    jmp_buf jb;
    glp_prob *volatile lp = NULL;
    char msg[200];
    bool oom = false;
    int rc;

    if ((rc = lp_fence_open(&jb, 0, &oom)) != 0) {
        return rc;
    }
    if (setjmp(jb)) {
        lp_fence_failed(msg, sizeof(msg));
        return err_set(BAECHI_ESOLVER, "GLPK failed: %s", msg);
    }
    lp = glp_create_prob();
    glp_add_cols(lp, 1);
    glp_set_col_bnds(lp, 5, GLP_LO, 0.0, 0.0); /* column 5 does not exist: a GLPK error */
    glp_delete_prob(lp);
    lp_fence_close();
    return 0;
}

void sct_assign_favourites(const struct pgraph *p, const double *x, double theta, int32_t *fav,
                           int32_t *n_fav_edges, int32_t *n_fav)
{
    int32_t *parent = fav + p->n; /* caller gives 2n entries */
    int32_t edges = 0, nodes = 0;

    for (int32_t i = 0; i < p->n; i++) {
        fav[i] = -1;
        parent[i] = -1;
    }
    /* edges in graph iteration order: source-major = edge id order */
    for (int32_t e = 0; e < p->m; e++) {
        int32_t i = p->src[e], j = p->dst[e];
        /* Python round(x - θ + 0.5): half to even (nearbyint, default mode) */
        if (nearbyint(x[e] - theta + 0.5) != 0.0) {
            continue;
        }
        edges++;
        fav[i] = j;
        if (parent[j] != -1) {
            fav[parent[j]] = -1; /* quirk §4.2 kept: even if it changed meanwhile */
        }
        parent[j] = i;
    }
    for (int32_t i = 0; i < p->n; i++) {
        nodes += fav[i] >= 0;
    }
    *n_fav_edges = edges;
    *n_fav = nodes;
}
