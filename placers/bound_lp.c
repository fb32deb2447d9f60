/*
 * bound_lp.c - the LP relaxation of the placement-and-schedule problem
 * behind the certified lower bound (the formulation and its proof are in
 * bound.h).  Beyond the original.
 *
 * deviation (of the layout): GLPK's second user after lp.c, fenced the same
 * way (docs/style.md §4): an error hook that longjmps back to bound_lp, the
 * environment freed, BAECHI_ESOLVER.  The fence is a copy of lp.c's, kept
 * apart so that m-SCT's LP and this one change independently.
 *
 * Work limit: the simplex stops after BOUND_LP_ITERS_PER_ELEMENT x (rows +
 * columns) iterations; then the bound is not used (a stopped simplex gives
 * no lower bound), so the result never depends on the machine's speed.
 * Times are scaled by the average compute per device and memory rows by
 * their limit, so that the LP's numbers are near 1.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/bound.h"

#include "core/alloc.h"
#include "core/err.h"
#include "placers/lp_backend.h"

#include <glpk.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bound_lp_term_hook(void *info, const char *s)
{
    (void)info;
    (void)s;
    return 1; /* never print */
}

static void bound_lp_error_hook(void *info)
{
    longjmp(*(jmp_buf *)info, 1);
}

/* The columns of the LP (1-based, GLPK's). */
struct lpcols {
    int32_t n, nd, ne;
};

static int col_x(const struct lpcols *k, int32_t v, int32_t d)
{
    return 1 + v * k->nd + d;
}
static int col_s(const struct lpcols *k, int32_t v)
{
    return 1 + k->n * k->nd + v;
}
static int col_z(const struct lpcols *k, int32_t e)
{
    return 1 + k->n * (k->nd + 1) + e;
}
static int col_y(const struct lpcols *k, int32_t e, int32_t d)
{
    return 1 + k->n * (k->nd + 1) + k->ne + e * k->nd + d;
}
static int col_t(const struct lpcols *k)
{
    return 1 + k->n * (k->nd + 1) + k->ne * (k->nd + 1);
}

/* One row: ind/val[1..len] (GLPK's layout), its bounds. */
static void add_row(glp_prob *lp, int len, const int *ind, const double *val, int type, double lo,
                    double hi)
{
    int r = glp_add_rows(lp, 1);

    glp_set_mat_row(lp, r, len, ind, val);
    glp_set_row_bnds(lp, r, type, lo, hi);
}

/* Rows of edge e = (u, v) with transfer time comm (scaled): precedence, cut share. */
static void add_edge_rows(glp_prob *lp, const struct lpcols *k, const struct graph *g,
                          const struct cluster *c, int32_t e, double comm, double unit, int *ind,
                          double *val)
{
    int32_t u = g->edge_src[e], v = g->edge_dst[e];
    int len = 0;

    ind[++len] = col_s(k, v), val[len] = 1;
    ind[++len] = col_s(k, u), val[len] = -1;
    for (int32_t d = 0; d < k->nd; d++) {
        ind[++len] = col_x(k, u, d),
        val[len] = -(double)cluster_compute_us(c, d, g->weight_us[u]) / unit;
    }
    if (comm > 0) {
        ind[++len] = col_z(k, e), val[len] = -comm;
    }
    add_row(lp, len, ind, val, GLP_LO, 0, 0);
    if (comm <= 0) {
        return;
    }
    for (int32_t d = 0; d < k->nd; d++) {
        int i3[4] = {0, col_y(k, e, d), col_x(k, u, d), col_x(k, v, d)};
        double a[4] = {0, 1, -1, 1}, b[4] = {0, 1, 1, -1};

        add_row(lp, 3, i3, a, GLP_LO, 0, 0);
        add_row(lp, 3, i3, b, GLP_LO, 0, 0);
    }
    len = 0;
    ind[++len] = col_z(k, e), val[len] = 2;
    for (int32_t d = 0; d < k->nd; d++) {
        ind[++len] = col_y(k, e, d), val[len] = -1;
    }
    add_row(lp, len, ind, val, GLP_LO, 0, 0);
}

/* Builds the LP (docs/bound.md, "The LP") into lp; times divided by unit. */
static void build(glp_prob *lp, const struct lpcols *k, const struct graph *g,
                  const struct cluster *c, double unit, int *ind, double *val)
{
    int ncols = col_t(k);

    glp_set_obj_dir(lp, GLP_MIN);
    glp_add_cols(lp, ncols);
    for (int j = 1; j <= ncols; j++) {
        glp_set_col_bnds(lp, j, GLP_DB, 0, 1); /* x, z, y */
    }
    for (int32_t v = 0; v < k->n; v++) {
        glp_set_col_bnds(lp, col_s(k, v), GLP_LO, 0, 0);
    }
    glp_set_col_bnds(lp, col_t(k), GLP_LO, 0, 0);
    glp_set_obj_coef(lp, col_t(k), 1);
    for (int32_t v = 0; v < k->n; v++) {
        int len = 0;

        for (int32_t d = 0; d < k->nd; d++) {
            ind[++len] = col_x(k, v, d), val[len] = 1;
        }
        add_row(lp, len, ind, val, GLP_FX, 1, 1);
        if (graph_out_degree(g, v) == 0) {
            len = 0;
            ind[++len] = col_t(k), val[len] = 1;
            ind[++len] = col_s(k, v), val[len] = -1;
            for (int32_t d = 0; d < k->nd; d++) {
                ind[++len] = col_x(k, v, d);
                val[len] = -(double)cluster_compute_us(c, d, g->weight_us[v]) / unit;
            }
            add_row(lp, len, ind, val, GLP_LO, 0, 0);
        }
    }
    for (int32_t e = 0; e < k->ne; e++) {
        int64_t comm = 0;

        for (int32_t s = g->et_start[e]; s < g->et_start[e + 1]; s++) {
            comm += bound_comm_min_us(c, g->tensor_bytes[g->et_tensor[s]]);
        }
        add_edge_rows(lp, k, g, c, e, (double)comm / unit, unit, ind, val);
    }
    for (int32_t d = 0; d < k->nd; d++) {
        int len = 0;
        int64_t lim = c->dev[d].mem_bytes;

        ind[++len] = col_t(k), val[len] = 1;
        for (int32_t v = 0; v < k->n; v++) {
            ind[++len] = col_x(k, v, d);
            val[len] = -(double)cluster_compute_us(c, d, g->weight_us[v]) / unit;
        }
        add_row(lp, len, ind, val, GLP_LO, 0, 0);
        if (lim > 0) {
            len = 0;
            for (int32_t v = 0; v < k->n; v++) {
                if (g->persist_bytes[v] > 0) {
                    ind[++len] = col_x(k, v, d);
                    val[len] = (double)g->persist_bytes[v] / (double)lim;
                }
            }
            if (len > 0) {
                add_row(lp, len, ind, val, GLP_UP, 0, 1);
            }
        }
    }
}

/* The certified value of an optimal LP value obj (scaled by unit): the
 * solver's tolerances, a relative 1e-6 and 1 µs below its value. */
static int64_t certified_us(double obj, double unit)
{
    double us = obj * unit;

    us = floor(us - 1e-6 * fabs(us) - 1);
    return us > 0 ? (int64_t)us : 0;
}

/*
 * The LP built in lp (GLPK's problem object, used here only as the model)
 * solved by CLP: its matrix read back column by column (glp_get_mat_col
 * gives the unscaled values), the bounds by type.  The same work limit.
 */
static int solve_clp(glp_prob *lp, int it_lim, double unit, int64_t *lp_us, char *status,
                     size_t status_size)
{
    int nr = glp_get_num_rows(lp), nc = glp_get_num_cols(lp), nnz = glp_get_num_nz(lp);
    int *start = mem_calloc((size_t)nc + 1, sizeof(int));
    int *row = mem_alloc_array((size_t)nnz + 1, sizeof(int)); /* [0] unused: GLPK's 1-based */
    double *val = mem_alloc_array((size_t)nnz + 1, sizeof(double));
    double *bnd = mem_alloc_array(3 * (size_t)nc + 2 * (size_t)nr + 1, sizeof(double));
    double *col = mem_alloc_array((size_t)nc + 1, sizeof(double));
    struct lp_clp_problem q;
    struct lp_clp_result cr;
    int rc = 0, at = 0;

    if (!start || !row || !val || !bnd || !col) {
        rc = err_set(BAECHI_ENOMEM, "out of memory for the bound's LP of %d columns", nc);
        goto done;
    }
    for (int j = 1; j <= nc; j++) {
        int t = glp_get_col_type(lp, j);
        int len = glp_get_mat_col(lp, j, row + at, val + at); /* into [at + 1, at + len] */

        for (int k = 1; k <= len; k++) {
            row[at + k]--; /* CLP's rows are 0-based */
        }
        at += len;
        start[j] = at;
        bnd[j - 1] = t == GLP_FR || t == GLP_UP ? -LP_CLP_INF : glp_get_col_lb(lp, j);
        bnd[nc + j - 1] = t == GLP_FR || t == GLP_LO ? LP_CLP_INF : glp_get_col_ub(lp, j);
        bnd[2 * nc + j - 1] = glp_get_obj_coef(lp, j);
    }
    for (int i = 1; i <= nr; i++) {
        int t = glp_get_row_type(lp, i);

        bnd[3 * nc + i - 1] = t == GLP_FR || t == GLP_UP ? -LP_CLP_INF : glp_get_row_lb(lp, i);
        bnd[3 * nc + nr + i - 1] = t == GLP_FR || t == GLP_LO ? LP_CLP_INF : glp_get_row_ub(lp, i);
    }
    q = (struct lp_clp_problem){.n_rows = nr,
                                .n_cols = nc,
                                .col_start = start,
                                .row_index = row + 1,
                                .value = val + 1,
                                .col_lo = bnd,
                                .col_hi = bnd + nc,
                                .obj = bnd + 2 * nc,
                                .row_lo = bnd + 3 * nc,
                                .row_hi = bnd + 3 * nc + nr};
    if (lp_clp_solve(&q, it_lim, 0, col, &cr) != 0) {
        snprintf(status, status_size, "failed: %.55s", cr.msg); /* only the bound is lost */
    } else if (cr.status == LP_CLP_OPTIMAL) {
        *lp_us = certified_us(cr.objective, unit);
        snprintf(status, status_size, "optimal");
    } else if (cr.status == LP_CLP_ITERATIONS) {
        snprintf(status, status_size, "iteration limit (%d)", it_lim);
    } else if (cr.status == LP_CLP_INFEASIBLE) {
        snprintf(status, status_size, "infeasible: no placement fits memory");
    } else {
        snprintf(status, status_size, "not solved (CLP status %d)", (int)cr.status);
    }
done:
    free(start);
    free(row);
    free(val);
    free(bnd);
    free(col);
    return rc;
}

/* Builds and solves; the certified value into r->lp_us or the status why
 * not, the solver into r->lp_solver.  0 or BAECHI_ENOMEM. */
static int solve(const struct graph *g, const struct cluster *c, enum placer_lp_solver want,
                 int *ind, double *val, struct bound_result *r)
{
    struct lpcols k = {g->n_ops, c->n_devices, g->n_edges};
    double unit = 0;
    glp_prob *lp = glp_create_prob();
    glp_smcp parm;
    enum placer_lp_solver solver;
    char *status = r->lp_status;
    size_t status_size = sizeof(r->lp_status);
    int ret, rc = 0;

    for (int32_t v = 0; v < g->n_ops; v++) {
        unit += (double)g->weight_us[v];
    }
    unit = unit / k.nd > 1 ? unit / k.nd : 1;
    build(lp, &k, g, c, unit, ind, val);
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.presolve = GLP_ON;
    parm.it_lim = BOUND_LP_ITERS_PER_ELEMENT * (glp_get_num_rows(lp) + glp_get_num_cols(lp));
    /* the flow solver is m-SCT's LP's alone (lp_sct_flow.h): the bound's LP goes by size */
    solver = lp_solver_choose(want == PLACER_LP_FLOW ? PLACER_LP_AUTO : want, glp_get_num_nz(lp));
    snprintf(r->lp_solver, sizeof(r->lp_solver), "%s", placer_lp_solver_name(solver));
    if (solver == PLACER_LP_CLP) {
        rc = solve_clp(lp, parm.it_lim, unit, &r->lp_us, status, status_size);
        glp_delete_prob(lp);
        return rc;
    }
    glp_scale_prob(lp, GLP_SF_AUTO);
    ret = glp_simplex(lp, &parm);
    if (ret == 0 && glp_get_status(lp) == GLP_OPT) {
        r->lp_us = certified_us(glp_get_obj_val(lp), unit);
        snprintf(status, status_size, "optimal");
    } else if (ret == GLP_EITLIM) {
        snprintf(status, status_size, "iteration limit (%d)", parm.it_lim);
    } else if (ret == GLP_ENOPFS || glp_get_status(lp) == GLP_NOFEAS) {
        snprintf(status, status_size, "infeasible: no placement fits memory");
    } else {
        snprintf(status, status_size, "not solved (GLPK %d, status %d)", ret, glp_get_status(lp));
    }
    glp_delete_prob(lp);
    return 0;
}

/*
 * Whether the LP can beat the simple bound: when every op fits the largest
 * device and the speeds are equal, x = 1/D on every device with z = 0 is
 * feasible and gives max(critical path, Σ compute / D), the simple bound,
 * so solving would only cost time.
 */
static bool memory_binds(const struct graph *g, const struct cluster *c)
{
    int64_t persist = 0, largest = 0;

    for (int32_t d = 0; d < c->n_devices; d++) {
        if (c->dev[d].mem_bytes <= 0 || c->dev[d].speed != c->dev[0].speed) {
            return c->dev[d].mem_bytes > 0; /* unlimited: never binds; mixed speeds: try */
        }
        largest = c->dev[d].mem_bytes > largest ? c->dev[d].mem_bytes : largest;
    }
    for (int32_t v = 0; v < g->n_ops; v++) {
        persist += g->persist_bytes[v] > 0 ? g->persist_bytes[v] : 0;
    }
    return persist > largest;
}

int bound_lp(const struct graph *g, const struct cluster *c, const struct bound_options *opt,
             struct bound_result *r)
{
    int64_t *lp_us = &r->lp_us;
    char *status = r->lp_status;
    size_t status_size = sizeof(r->lp_status);
    jmp_buf jb;
    int *ind = NULL;
    double *val = NULL;
    size_t row_max = (size_t)g->n_ops + (size_t)c->n_devices + 4;
    int rc = 0;

    *lp_us = -1;
    if (!opt->lp) {
        snprintf(status, status_size, "skipped: off");
        return 0;
    }
    if (g->n_ops > opt->lp_max_ops) {
        snprintf(status, status_size, "skipped: %d ops > %d", g->n_ops, opt->lp_max_ops);
        return 0;
    }
    if (g->n_ops == 0 || c->n_devices < 1) {
        snprintf(status, status_size, "skipped: empty");
        return 0;
    }
    if (!memory_binds(g, c)) {
        snprintf(status, status_size, "skipped: memory does not bind");
        return 0;
    }
    if (c->n_devices > BOUND_LP_MAX_DEVICES) {
        /* V x D + E x (D + 1) columns: 150 ops on 4,096 devices would be
         * about a million (docs/limits.md) */
        snprintf(status, status_size, "skipped: %d devices > %d", c->n_devices,
                 BOUND_LP_MAX_DEVICES);
        return 0;
    }
    ind = mem_alloc_array(row_max + 1, sizeof(*ind));
    val = mem_alloc_array(row_max + 1, sizeof(*val));
    if (!ind || !val) {
        rc = err_set(BAECHI_ENOMEM, "out of memory for the bound's LP of %d ops", g->n_ops);
        goto done;
    }
    rc = glp_init_env();
    if (rc != 0 && rc != 1) { /* 1: it existed already */
        rc = 0;
        snprintf(status, status_size, "failed: GLPK could not start");
        goto done;
    }
    rc = 0;
    glp_term_hook(bound_lp_term_hook, NULL);
    glp_error_hook(bound_lp_error_hook, &jb);
    if (setjmp(jb)) {
        glp_error_hook(NULL, NULL);
        glp_free_env();
        *lp_us = -1; /* only the LP's bound is lost */
        rc = 0;
        snprintf(status, status_size, "failed: GLPK error");
        goto done;
    }
    rc = solve(g, c, opt->lp_solver, ind, val, r);
    glp_error_hook(NULL, NULL);
    glp_term_hook(NULL, NULL);
    glp_free_env();
done:
    free(ind);
    free(val);
    return rc;
}
