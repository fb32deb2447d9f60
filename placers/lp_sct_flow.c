/*
 * lp_sct_flow.c - m-SCT's favourite-child LP by smoothed longest paths and
 * accelerated projected gradient steps over the matching polytope, with a
 * certified gap (the method and the certificate: lp_sct_flow.h; the
 * measurements that chose it: docs/limits.md, "m-SCT's LP").
 *
 * Beyond the original (MOSEK's interior point solved the LP exactly).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/lp_sct_flow.h"

#include "core/alloc.h"
#include "core/err.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Dykstra rounds of one projection onto P (then made feasible by scaling). */
#define FLOW_DYKSTRA_ROUNDS 8
/* Rounds of coordinate descent on the matching bound's dual (u, v). */
#define FLOW_DUAL_ROUNDS 6
/* The smoothing: mu from FLOW_MU_FIRST to FLOW_MU_LAST times the longest
 * path without favourites, geometrically over the steps. */
#define FLOW_MU_FIRST 1e-3
#define FLOW_MU_LAST  2e-6
/* Backtracking: halvings of one step at most, and the step's growth after
 * an accepted one. */
#define FLOW_BACKTRACK_MAX 30
#define FLOW_STEP_GROWTH   1.25
/* Every this many steps the exact F of the iterate and the bound of its
 * flow are computed (the best kept). */
#define FLOW_CHECK_EVERY 10

struct flow {
    const struct pgraph *p;
    int32_t n, m;
    int32_t *order;        /* topological */
    double *a, *b, *phi;   /* n: soft start, soft tail, node marginal */
    double *y;             /* m: edge marginal (the flow) */
    double *len;           /* m: c_e (1 - z_e) of the last evaluation */
    double *pa, *pb, *tmp; /* m: Dykstra's corrections and scratch */
    double *u, *v;         /* n: the matching bound's dual */
    double *yavg, *phiavg; /* the mean flow of the checks in the second half */
    int n_avg;
};

static double edge_c(const struct pgraph *p, int32_t e)
{
    return (double)p->ecomm[e];
}

static double node_p(const struct pgraph *p, int32_t v)
{
    return (double)p->weight[v];
}

/* Kahn's order into f->order; BAECHI_EINVAL on a cycle. */
static int flow_order(struct flow *f)
{
    const struct pgraph *p = f->p;
    int32_t *deg = mem_alloc_array((size_t)f->n + 1, sizeof(int32_t));
    int32_t head = 0, tail = 0;

    if (!deg) {
        return err_set(BAECHI_ENOMEM, "out of memory for the favourite-child LP's flow solver");
    }
    for (int32_t v = 0; v < f->n; v++) {
        deg[v] = p->in_start[v + 1] - p->in_start[v];
        if (deg[v] == 0) {
            f->order[tail++] = v;
        }
    }
    while (head < tail) {
        int32_t u = f->order[head++];
        for (int32_t e = p->out_start[u]; e < p->out_start[u + 1]; e++) {
            if (--deg[p->dst[e]] == 0) {
                f->order[tail++] = p->dst[e];
            }
        }
    }
    free(deg);
    return tail == f->n ? 0 : err_set(BAECHI_EINVAL, "favourite-child LP: the graph has a cycle");
}

/* The exact longest path F(z). */
static double flow_longest(struct flow *f, const double *z)
{
    const struct pgraph *p = f->p;
    double best = 0;

    for (int32_t k = 0; k < f->n; k++) {
        int32_t v = f->order[k];
        double s = 0;

        for (int32_t i = p->in_start[v]; i < p->in_start[v + 1]; i++) {
            int32_t e = p->in_edge[i], u = p->src[e];
            double t = f->a[u] + node_p(p, u) + edge_c(p, e) * (1 - z[e]);
            s = t > s ? t : s;
        }
        f->a[v] = s;
        best = s + node_p(p, v) > best ? s + node_p(p, v) : best;
    }
    return best;
}

/*
 * The soft longest path F_mu(z) (forward pass into f->a); with marginals,
 * also the backward pass and the flow y, phi.
 */
static double flow_smooth(struct flow *f, const double *z, double mu, bool marginals)
{
    const struct pgraph *p = f->p;
    double mx = -HUGE_VAL, sum = 0, total;

    for (int32_t k = 0; k < f->n; k++) {
        int32_t v = f->order[k];
        double m = -HUGE_VAL, s = 0;

        if (p->in_start[v] == p->in_start[v + 1]) {
            f->a[v] = 0;
            continue;
        }
        for (int32_t i = p->in_start[v]; i < p->in_start[v + 1]; i++) {
            int32_t e = p->in_edge[i], u = p->src[e];
            f->len[e] = edge_c(p, e) * (1 - z[e]);
            double t = f->a[u] + node_p(p, u) + f->len[e];
            m = t > m ? t : m;
        }
        for (int32_t i = p->in_start[v]; i < p->in_start[v + 1]; i++) {
            int32_t e = p->in_edge[i], u = p->src[e];
            s += exp((f->a[u] + node_p(p, u) + f->len[e] - m) / mu);
        }
        f->a[v] = m + mu * log(s);
    }
    for (int32_t v = 0; v < f->n; v++) {
        if (p->out_start[v] == p->out_start[v + 1]) {
            double t = f->a[v] + node_p(p, v);
            mx = t > mx ? t : mx;
        }
    }
    for (int32_t v = 0; v < f->n; v++) {
        if (p->out_start[v] == p->out_start[v + 1]) {
            sum += exp((f->a[v] + node_p(p, v) - mx) / mu);
        }
    }
    total = mx + mu * log(sum);
    if (!marginals) {
        return total;
    }
    for (int32_t k = f->n - 1; k >= 0; k--) {
        int32_t v = f->order[k];
        double m = -HUGE_VAL, s = 0;

        if (p->out_start[v] == p->out_start[v + 1]) {
            f->b[v] = 0;
        } else {
            for (int32_t e = p->out_start[v]; e < p->out_start[v + 1]; e++) {
                double t = f->len[e] + node_p(p, p->dst[e]) + f->b[p->dst[e]];
                m = t > m ? t : m;
            }
            for (int32_t e = p->out_start[v]; e < p->out_start[v + 1]; e++) {
                s += exp((f->len[e] + node_p(p, p->dst[e]) + f->b[p->dst[e]] - m) / mu);
            }
            f->b[v] = m + mu * log(s);
        }
        f->phi[v] = exp((f->a[v] + node_p(p, v) + f->b[v] - total) / mu);
        for (int32_t e = p->out_start[v]; e < p->out_start[v + 1]; e++) {
            int32_t w = p->dst[e];
            f->y[e] =
                exp((f->a[v] + node_p(p, v) + f->len[e] + node_p(p, w) + f->b[w] - total) / mu);
        }
    }
    return total;
}

/*
 * Projects the k entries z[idx[0..k)] (idx NULL: z[base..base+k)) onto
 * { u in [0,1]^k : Σ u <= 1 }: clipped to the box when that sums to at most
 * 1, else onto the simplex Σ u = 1, u >= 0 (Michelot's algorithm: the
 * threshold over the entries above it, until that set is stable).
 */
static void flow_project_group(double *z, const int32_t *idx, int32_t base, int32_t k)
{
    double s = 0, tau;
    int32_t cnt = k, prev = k + 1;

#define AT(t) z[idx ? idx[base + (t)] : base + (t)]
    for (int32_t t = 0; t < k; t++) {
        double w = AT(t);
        s += w < 0 ? 0 : w > 1 ? 1 : w;
    }
    if (s <= 1) {
        for (int32_t t = 0; t < k; t++) {
            AT(t) = AT(t) < 0 ? 0 : AT(t) > 1 ? 1 : AT(t);
        }
        return;
    }
    s = 0;
    for (int32_t t = 0; t < k; t++) {
        s += AT(t);
    }
    tau = (s - 1) / k;
    /* tau only grows and the set only shrinks (at most k rounds); rounding
     * could make it oscillate, so it is held monotone */
    for (int32_t round = 0; round < k && cnt != prev; round++) {
        double next;

        prev = cnt;
        s = 0;
        cnt = 0;
        for (int32_t t = 0; t < k; t++) {
            if (AT(t) > tau) {
                s += AT(t);
                cnt++;
            }
        }
        if (cnt == 0) {
            break;
        }
        next = (s - 1) / cnt;
        tau = next > tau ? next : tau;
    }
    for (int32_t t = 0; t < k; t++) {
        AT(t) = AT(t) - tau > 0 ? AT(t) - tau : 0;
    }
#undef AT
}

static void flow_project_out(const struct pgraph *p, double *z)
{
    for (int32_t i = 0; i < p->n; i++) {
        flow_project_group(z, NULL, p->out_start[i], p->out_start[i + 1] - p->out_start[i]);
    }
}

static void flow_project_in(const struct pgraph *p, double *z)
{
    for (int32_t j = 0; j < p->n; j++) {
        flow_project_group(z, p->in_edge, p->in_start[j], p->in_start[j + 1] - p->in_start[j]);
    }
}

/*
 * z := (approximately) the projection of z onto P: Dykstra's alternating
 * projections between the out- and the in-degree sets for a fixed number of
 * rounds, then each out-group above 1 scaled down (which keeps the in-groups
 * within theirs): z is always in P.
 */
static void flow_project(struct flow *f, double *z)
{
    const struct pgraph *p = f->p;

    memset(f->pa, 0, (size_t)f->m * sizeof(double));
    memset(f->pb, 0, (size_t)f->m * sizeof(double));
    for (int r = 0; r < FLOW_DYKSTRA_ROUNDS; r++) {
        for (int32_t e = 0; e < f->m; e++) {
            f->tmp[e] = z[e] + f->pa[e];
            z[e] = f->tmp[e];
        }
        flow_project_out(p, z);
        for (int32_t e = 0; e < f->m; e++) {
            f->pa[e] = f->tmp[e] - z[e];
            f->tmp[e] = z[e] + f->pb[e];
            z[e] = f->tmp[e];
        }
        flow_project_in(p, z);
        for (int32_t e = 0; e < f->m; e++) {
            f->pb[e] = f->tmp[e] - z[e];
        }
    }
    for (int32_t i = 0; i < p->n; i++) {
        double s = 0;
        for (int32_t e = p->out_start[i]; e < p->out_start[i + 1]; e++) {
            s += z[e];
        }
        if (s > 1) {
            for (int32_t e = p->out_start[i]; e < p->out_start[i + 1]; e++) {
                z[e] /= s;
            }
        }
    }
}

/* The exact minimum over u >= 0 of u + Σ_t (a_t - u)^+: the second largest
 * a_t (0 below it). */
static double flow_second(double first, double second)
{
    (void)first;
    return second > 0 ? second : 0;
}

/*
 * The certified lower bound of the LP from the unit flow (y, phi) (see
 * lp_sct_flow.h): the flow's mean path length at z = 0 less an upper bound
 * of the maximum-weight matching of weights c_e y_e, from a dual (u, v)
 * improved by exact coordinate minimisations.
 */
static double flow_lower(struct flow *f, const double *y, const double *phi)
{
    const struct pgraph *p = f->p;
    double mean = 0, match = 0;

    for (int32_t v = 0; v < f->n; v++) {
        mean += phi[v] * node_p(p, v);
        f->u[v] = f->v[v] = 0;
    }
    for (int32_t e = 0; e < f->m; e++) {
        mean += y[e] * edge_c(p, e);
    }
    for (int r = 0; r < FLOW_DUAL_ROUNDS; r++) {
        for (int32_t i = 0; i < f->n; i++) {
            double m1 = -HUGE_VAL, m2 = -HUGE_VAL;
            for (int32_t e = p->out_start[i]; e < p->out_start[i + 1]; e++) {
                double t = y[e] * edge_c(p, e) - f->v[p->dst[e]];
                if (t > m1) {
                    m2 = m1, m1 = t;
                } else if (t > m2) {
                    m2 = t;
                }
            }
            f->u[i] = flow_second(m1, m2);
        }
        for (int32_t j = 0; j < f->n; j++) {
            double m1 = -HUGE_VAL, m2 = -HUGE_VAL;
            for (int32_t k = p->in_start[j]; k < p->in_start[j + 1]; k++) {
                int32_t e = p->in_edge[k];
                double t = y[e] * edge_c(p, e) - f->u[p->src[e]];
                if (t > m1) {
                    m2 = m1, m1 = t;
                } else if (t > m2) {
                    m2 = t;
                }
            }
            f->v[j] = flow_second(m1, m2);
        }
    }
    for (int32_t v = 0; v < f->n; v++) {
        match += f->u[v] + f->v[v];
    }
    for (int32_t e = 0; e < f->m; e++) {
        double t = y[e] * edge_c(p, e) - f->u[p->src[e]] - f->v[p->dst[e]];
        match += t > 0 ? t : 0;
    }
    return mean - match;
}

static void flow_free(struct flow *f)
{
    free(f->order);
    free(f->a);
    free(f->b);
    free(f->phi);
    free(f->y);
    free(f->len);
    free(f->pa);
    free(f->pb);
    free(f->tmp);
    free(f->u);
    free(f->v);
    free(f->yavg);
    free(f->phiavg);
}

static int flow_alloc(struct flow *f, const struct pgraph *p)
{
    size_t n = (size_t)p->n + 1, m = (size_t)p->m + 1;
    int rc;

    memset(f, 0, sizeof(*f));
    f->p = p;
    f->n = p->n;
    f->m = p->m;
    f->order = mem_alloc_array(n, sizeof(int32_t));
    f->a = mem_calloc(n, sizeof(double));
    f->b = mem_calloc(n, sizeof(double));
    f->phi = mem_calloc(n, sizeof(double));
    f->u = mem_calloc(n, sizeof(double));
    f->v = mem_calloc(n, sizeof(double));
    f->phiavg = mem_calloc(n, sizeof(double));
    f->y = mem_calloc(m, sizeof(double));
    f->len = mem_calloc(m, sizeof(double));
    f->pa = mem_calloc(m, sizeof(double));
    f->pb = mem_calloc(m, sizeof(double));
    f->tmp = mem_calloc(m, sizeof(double));
    f->yavg = mem_calloc(m, sizeof(double));
    if (!f->order || !f->a || !f->b || !f->phi || !f->u || !f->v || !f->phiavg || !f->y ||
        !f->len || !f->pa || !f->pb || !f->tmp || !f->yavg) {
        flow_free(f);
        return err_set(BAECHI_ENOMEM,
                       "out of memory for the favourite-child LP's flow solver (%d edges)",
                       (int)p->m);
    }
    if ((rc = flow_order(f)) != 0) {
        flow_free(f);
    }
    return rc;
}

/* The iterates of FISTA: z (feasible), the previous one, the point of the
 * gradient, the trial, the best by exact F, and the gradient. */
struct flow_iter {
    double *z, *zp, *w, *zt, *best, *g;
};

static void flow_iter_free(struct flow_iter *it)
{
    free(it->z);
    free(it->zp);
    free(it->w);
    free(it->zt);
    free(it->best);
    free(it->g);
}

/* Checks the trial zt: its exact F (the best z kept) and the bound of the
 * flow at the gradient's point (the best bound kept); in the second half,
 * the flow joins the mean whose bound is taken at the end. */
static void flow_check(struct flow *f, struct flow_iter *it, bool second_half,
                       struct lp_sct_flow_result *r)
{
    double fz = flow_longest(f, it->zt);
    double lb = flow_lower(f, f->y, f->phi);

    if (fz < r->makespan_us) {
        r->makespan_us = fz;
        memcpy(it->best, it->zt, (size_t)f->m * sizeof(double));
    }
    r->lower_us = lb > r->lower_us ? lb : r->lower_us;
    if (second_half) {
        for (int32_t e = 0; e < f->m; e++) {
            f->yavg[e] += f->y[e];
        }
        for (int32_t v = 0; v < f->n; v++) {
            f->phiavg[v] += f->phi[v];
        }
        f->n_avg++;
    }
}

/* One accelerated step from it->z at smoothing mu with step *eta (shrunk by
 * backtracking, then grown); *t is FISTA's momentum, reset on a restart. */
static void flow_step(struct flow *f, struct flow_iter *it, double mu, double *eta, double *t,
                      struct lp_sct_flow_result *r)
{
    double tn = (1 + sqrt(1 + 4 * *t * *t)) / 2, beta = (*t - 1) / tn, fw, dot = 0;
    int32_t m = f->m;

    for (int32_t e = 0; e < m; e++) {
        it->w[e] = it->z[e] + beta * (it->z[e] - it->zp[e]);
    }
    fw = flow_smooth(f, it->w, mu, true);
    r->evaluations++;
    for (int32_t e = 0; e < m; e++) {
        it->g[e] = -edge_c(f->p, e) * f->y[e];
    }
    for (int k = 0; k < FLOW_BACKTRACK_MAX; k++) {
        double lin = 0, quad = 0, ft;

        for (int32_t e = 0; e < m; e++) {
            it->zt[e] = it->w[e] - *eta * it->g[e];
        }
        flow_project(f, it->zt);
        for (int32_t e = 0; e < m; e++) {
            double d = it->zt[e] - it->w[e];
            lin += it->g[e] * d;
            quad += d * d;
        }
        ft = flow_smooth(f, it->zt, mu, false);
        r->evaluations++;
        if (ft <= fw + lin + quad / (2 * *eta) + 1e-12 * fabs(fw)) {
            break;
        }
        *eta /= 2;
    }
    /* O'Donoghue and Candès' gradient restart: the step goes against the momentum */
    for (int32_t e = 0; e < m; e++) {
        dot += it->g[e] * (it->zt[e] - it->z[e]);
    }
    *t = dot > 0 ? 1 : tn;
    memcpy(it->zp, it->z, (size_t)m * sizeof(double));
    memcpy(it->z, it->zt, (size_t)m * sizeof(double));
    *eta *= FLOW_STEP_GROWTH;
}

int lp_sct_flow_solve(const struct pgraph *p, int64_t steps, double *x,
                      struct lp_sct_flow_result *r)
{
    struct flow f;
    struct flow_iter it = {0};
    size_t m = (size_t)p->m + 1;
    double f0, mu0, mu1, eta, t = 1, cmax = 1;
    int rc;

    memset(r, 0, sizeof(*r));
    if ((rc = flow_alloc(&f, p)) != 0) {
        return rc;
    }
    it.z = mem_calloc(m, sizeof(double));
    it.zp = mem_calloc(m, sizeof(double));
    it.w = mem_calloc(m, sizeof(double));
    it.zt = mem_calloc(m, sizeof(double));
    it.best = mem_calloc(m, sizeof(double));
    it.g = mem_calloc(m, sizeof(double));
    if (!it.z || !it.zp || !it.w || !it.zt || !it.best || !it.g) {
        rc =
            err_set(BAECHI_ENOMEM,
                    "out of memory for the favourite-child LP's flow solver (%d edges)", (int)p->m);
        goto done;
    }
    for (int32_t e = 0; e < p->m; e++) {
        cmax = edge_c(p, e) > cmax ? edge_c(p, e) : cmax;
    }
    f0 = flow_longest(&f, it.z); /* z = 0: no favourite child, every transfer paid */
    r->makespan_us = f0;
    mu0 = FLOW_MU_FIRST * f0;
    mu1 = FLOW_MU_LAST * f0;
    eta = 1 / cmax;
    for (int64_t k = 0; k < steps; k++) {
        double mu = mu0 * pow(mu1 / mu0, steps > 1 ? (double)k / (double)(steps - 1) : 1);

        flow_step(&f, &it, mu, &eta, &t, r);
        r->steps++;
        if (k % FLOW_CHECK_EVERY == FLOW_CHECK_EVERY - 1 || k == steps - 1) {
            /* f.y is the flow at the gradient's point it.w: a unit flow all the same */
            flow_check(&f, &it, 2 * k >= steps, r);
        }
    }
    if (f.n_avg > 0) {
        for (int32_t e = 0; e < p->m; e++) {
            f.yavg[e] /= f.n_avg;
        }
        for (int32_t v = 0; v < p->n; v++) {
            f.phiavg[v] /= f.n_avg;
        }
        double lb = flow_lower(&f, f.yavg, f.phiavg);
        r->lower_us = lb > r->lower_us ? lb : r->lower_us;
    }
    for (int32_t e = 0; e < p->m; e++) {
        x[e] = 1 - it.best[e];
    }
    r->gap = r->makespan_us > 0 ? (r->makespan_us - r->lower_us) / r->makespan_us : 0;
    r->gap = r->gap > 0 ? r->gap : 0;
done:
    flow_iter_free(&it);
    flow_free(&f);
    return rc;
}

int lp_sct_flow_run(const struct pgraph *p, struct lp_result *r)
{
    struct lp_sct_flow_result fr;
    int rc = lp_sct_flow_solve(p, LP_SCT_FLOW_STEPS, r->x, &fr);

    if (rc != 0) {
        return rc;
    }
    r->makespan_us = fr.makespan_us;
    r->iterations = fr.steps;
    snprintf(r->status, sizeof(r->status), "flow: gap %.3f%%", 100 * fr.gap);
    return 0;
}
