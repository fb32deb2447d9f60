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

#include "core/array.h"
#include "core/err.h"

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

    order = array_malloc((size_t)N + 1, sizeof(int32_t));
    indeg = array_malloc((size_t)N + 1, sizeof(int32_t));
    s = array_calloc((size_t)N + 1, sizeof(double));
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

/* The solve itself, inside the fence.  0, or an error code of warm_basis. */
static int lp_solve(const struct pgraph *p, const struct lp_limits *lim, glp_prob *lp,
                    struct lp_result *r, int *ia, int *ja, double *ar)
{
    int32_t E = p->m, N = p->n;
    int nnz = 0, row = 0;
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

    {
        int n_rows = E;
        for (int32_t i = 0; i < N; i++) {
            n_rows += (p->out_start[i + 1] - p->out_start[i] > 1) +
                      (p->in_start[i + 1] - p->in_start[i] > 1) +
                      (p->out_start[i + 1] == p->out_start[i]);
        }
        glp_add_rows(lp, n_rows);
    }
    /* (3) */
    for (int32_t e = 0; e < E; e++) {
        int32_t i = p->src[e], j = p->dst[e];
        row++;
        glp_set_row_bnds(lp, row, GLP_UP, 0.0, -(double)p->weight[i]);
        ia[++nnz] = row, ja[nnz] = E + i + 1, ar[nnz] = 1.0;
        ia[++nnz] = row, ja[nnz] = E + j + 1, ar[nnz] = -1.0;
        ia[++nnz] = row, ja[nnz] = e + 1, ar[nnz] = (double)p->ecomm[e];
    }
    /* (4) */
    for (int32_t i = 0; i < N; i++) {
        int32_t deg = p->out_start[i + 1] - p->out_start[i];
        if (deg <= 1) {
            continue; /* x >= 0: already a bound */
        }
        row++;
        glp_set_row_bnds(lp, row, GLP_LO, (double)(deg - 1), 0.0);
        for (int32_t e = p->out_start[i]; e < p->out_start[i + 1]; e++) {
            ia[++nnz] = row, ja[nnz] = e + 1, ar[nnz] = 1.0;
        }
    }
    /* (5) */
    for (int32_t j = 0; j < N; j++) {
        int32_t deg = p->in_start[j + 1] - p->in_start[j];
        if (deg <= 1) {
            continue;
        }
        row++;
        glp_set_row_bnds(lp, row, GLP_LO, (double)(deg - 1), 0.0);
        for (int32_t k = p->in_start[j]; k < p->in_start[j + 1]; k++) {
            ia[++nnz] = row, ja[nnz] = p->in_edge[k] + 1, ar[nnz] = 1.0;
        }
    }
    /* (6), only for sinks: s_i + p_i <= s_j <= ... <= w holds through (3) otherwise */
    for (int32_t i = 0; i < N; i++) {
        if (p->out_start[i + 1] > p->out_start[i]) {
            continue;
        }
        row++;
        glp_set_row_bnds(lp, row, GLP_UP, 0.0, -(double)p->weight[i]);
        ia[++nnz] = row, ja[nnz] = E + i + 1, ar[nnz] = 1.0;
        ia[++nnz] = row, ja[nnz] = E + N + 1, ar[nnz] = -1.0;
    }
    glp_load_matrix(lp, nnz, ia, ja, ar);
    rc = warm_basis(p, lp);
    if (rc != 0) {
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

int lp_favourite_child_limited(const struct pgraph *p, const struct lp_limits *lim,
                               struct lp_result *r)
{
    jmp_buf jb;
    glp_prob *volatile lp = NULL;
    int ret, status;
    int rc;
    char msg[200];
    size_t cap = (size_t)5 * (size_t)p->m + (size_t)2 * (size_t)p->n + 1;
    int *volatile ia = NULL, *volatile ja = NULL;
    double *volatile ar = NULL;

    memset(r, 0, sizeof(*r));
    r->makespan_us = NAN;
    r->x = array_calloc((size_t)p->m + 1, sizeof(double));
    ia = array_malloc(cap, sizeof(int));
    ja = array_malloc(cap, sizeof(int));
    ar = array_malloc(cap, sizeof(double));
    if (!r->x || !ia || !ja || !ar) {
        free(ia);
        free(ja);
        free(ar);
        lp_result_release(r);
        return BAECHI_ENOMEM;
    }
    if ((rc = lp_fence_open(&jb, lp_mem_limit_mb(cap), &r->out_of_memory)) != 0) {
        free(ia);
        free(ja);
        free(ar);
        lp_result_release(r);
        return rc;
    }
    if (setjmp(jb)) {
        lp_fence_failed(msg, sizeof(msg));
        lp_result_release(r);
        free(ia);
        free(ja);
        free(ar);
        r->out_of_memory = lp_msg_out_of_memory(msg);
        return err_set(BAECHI_ESOLVER, "GLPK failed on the favourite-child LP: %s", msg);
    }
    lp = glp_create_prob();
    rc = lp_solve(p, lim, lp, r, ia, ja, ar);
    ret = r->glp_ret;
    status = r->glp_status;
    glp_delete_prob(lp);
    free(ia);
    free(ja);
    free(ar);
    lp_fence_close();
    if (rc != 0) {
        lp_result_release(r);
        return rc;
    }
    if (status == GLP_OPT && ret == 0) {
        if (!r->status[0]) {
            snprintf(r->status, sizeof(r->status), "optimal");
        }
    } else if (r->stopped == LP_STOP_ITERATIONS && status == GLP_FEAS) {
        /* the simplex is deterministic: the same basis after the same count */
        snprintf(r->status, sizeof(r->status), "iteration limit (feasible)");
    } else {
        lp_last_line(msg, sizeof(msg));
        lp_result_release(r);
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
                       "favourite-child LP not solved (glp_simplex returned %d, status %d): %s",
                       ret, status, msg);
    }
    return 0;
}

int lp_favourite_child(const struct pgraph *p, double time_limit_s, struct lp_result *r)
{
    struct lp_limits lim = {time_limit_s, 0};

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
