/*
 * layers-probe.c - a prototype of the decomposition of m-SCT's LP along the
 * graph's levels (issue 32 item 4; docs/limits.md "m-SCT's LP"), measured
 * on the LP of a free-MPS file written by BAECHI_LP_WRITE_MPS.  Not part of
 * baechi, and not its LP: a rolling horizon that changes which LP is
 * solved, so its value is an upper bound of the full LP's.
 *
 *   layers-probe FILE.mps L H
 *
 * The graph is read back from the LP (rows in lp.c's order: row e <= E is
 * edge e's s_i - s_j + c_e x_e <= -p_i; x columns are the [0,1] ones; a
 * sink's p from its row s_i - w <= -p_i).  Levels: the longest path in hops
 * from a source.  For levels a = 0, L, 2L, ...: the LP of the edges into
 * levels [a, a+H) (their x, the heads' s), earlier starts fixed; the rows
 * (4) over the edges of the window with what earlier windows left of each
 * source's 1 (Σ (1 - x_e) <= 1); w >= s_v + the longest rest of the path
 * from v without communication, for every v with an edge leaving the window
 * or none; GLPK's primal simplex from glp_adv_basis.  The x of the edges
 * into levels [a, a+L) are fixed, their heads' starts computed (ASAP).  The
 * result: the longest path with the fixed x (the full LP's objective is the
 * longest path with its own x), the iterations of all windows and the CPU
 * seconds after reading.
 */
#include <glpk.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct g {
    int E, N;
    int *src, *dst, *ins, *outs, *ine, *oute, *order, *lev;
    double *c, *p, *tail;
};

static void *need(size_t n)
{
    void *q = calloc(n ? n : 1, 1);

    if (!q) {
        fprintf(stderr, "layers-probe: out of memory\n");
        exit(1);
    }
    return q;
}

/* The graph read back from the LP's rows (see the top). */
static void graph_read(glp_prob *lp, struct g *g)
{
    int nc = glp_get_num_cols(lp), nr = glp_get_num_rows(lp), ind[64];
    double val[64];

    g->E = 0;
    for (int j = 1; j <= nc; j++) {
        g->E += glp_get_col_type(lp, j) == GLP_DB;
    }
    g->N = nc - g->E - 1;
    g->src = need(sizeof(int) * (size_t)g->E);
    g->dst = need(sizeof(int) * (size_t)g->E);
    g->c = need(sizeof(double) * (size_t)g->E);
    g->p = need(sizeof(double) * (size_t)g->N);
    for (int r = 1; r <= nr; r++) {
        int k = glp_get_mat_row(lp, r, ind, val), sv = -1, has_w = 0;

        if (r <= g->E) {
            for (int t = 1; t <= k; t++) {
                if (ind[t] <= g->E) {
                    g->c[r - 1] = val[t];
                } else if (val[t] > 0) {
                    g->src[r - 1] = ind[t] - g->E - 1;
                } else {
                    g->dst[r - 1] = ind[t] - g->E - 1;
                }
            }
            g->p[g->src[r - 1]] = -glp_get_row_ub(lp, r);
            continue;
        }
        for (int t = 1; t <= k && k == 2; t++) {
            if (ind[t] == nc) {
                has_w = 1;
            } else {
                sv = ind[t] - g->E - 1;
            }
        }
        if (has_w) {
            g->p[sv] = -glp_get_row_ub(lp, r);
        }
    }
}

/* In and out lists, a topological order, levels, rests of paths. */
static int graph_index(struct g *g)
{
    int E = g->E, N = g->N, head = 0, tail = 0, max_lev = 0;
    int *fi = need(sizeof(int) * (size_t)N), *fo = need(sizeof(int) * (size_t)N);
    int *deg = need(sizeof(int) * (size_t)N);

    g->ins = need(sizeof(int) * (size_t)(N + 1));
    g->outs = need(sizeof(int) * (size_t)(N + 1));
    g->ine = need(sizeof(int) * (size_t)E);
    g->oute = need(sizeof(int) * (size_t)E);
    g->order = need(sizeof(int) * (size_t)N);
    g->lev = need(sizeof(int) * (size_t)N);
    g->tail = need(sizeof(double) * (size_t)N);
    for (int e = 0; e < E; e++) {
        g->ins[g->dst[e] + 1]++;
        g->outs[g->src[e] + 1]++;
    }
    for (int v = 0; v < N; v++) {
        g->ins[v + 1] += g->ins[v];
        g->outs[v + 1] += g->outs[v];
        fi[v] = g->ins[v];
        fo[v] = g->outs[v];
    }
    for (int e = 0; e < E; e++) {
        g->ine[fi[g->dst[e]]++] = e;
        g->oute[fo[g->src[e]]++] = e;
    }
    for (int v = 0; v < N; v++) {
        deg[v] = g->ins[v + 1] - g->ins[v];
        if (!deg[v]) {
            g->order[tail++] = v;
        }
    }
    while (head < tail) {
        int u = g->order[head++];

        for (int k = g->outs[u]; k < g->outs[u + 1]; k++) {
            int v = g->dst[g->oute[k]];

            g->lev[v] = g->lev[v] > g->lev[u] + 1 ? g->lev[v] : g->lev[u] + 1;
            max_lev = max_lev > g->lev[v] ? max_lev : g->lev[v];
            if (--deg[v] == 0) {
                g->order[tail++] = v;
            }
        }
    }
    for (int k = N - 1; k >= 0; k--) {
        int u = g->order[k];
        double best = 0;

        for (int q = g->outs[u]; q < g->outs[u + 1]; q++) {
            double t = g->tail[g->dst[g->oute[q]]];
            best = t > best ? t : best;
        }
        g->tail[u] = g->p[u] + best;
    }
    free(fi);
    free(fo);
    free(deg);
    return max_lev;
}

int main(int argc, char **argv)
{
    struct g g;
    glp_prob *lp;
    int L, H, max_lev, *col, *ia, *ja;
    double *X, *S, *cap, *ar, makespan = 0;
    long iterations = 0;
    size_t cap_nz;
    clock_t t0;

    if (argc < 4 || (L = atoi(argv[2])) < 1 || (H = atoi(argv[3])) < L) {
        fprintf(stderr, "usage: layers-probe FILE.mps L H   (1 <= L <= H levels)\n");
        return 2;
    }
    glp_term_out(GLP_OFF);
    lp = glp_create_prob();
    if (glp_read_mps(lp, GLP_MPS_FILE, NULL, argv[1]) != 0) {
        fprintf(stderr, "layers-probe: cannot read %s\n", argv[1]);
        return 1;
    }
    graph_read(lp, &g);
    glp_delete_prob(lp);
    t0 = clock();
    max_lev = graph_index(&g);
    X = need(sizeof(double) * (size_t)g.E);
    S = need(sizeof(double) * (size_t)g.N);
    cap = need(sizeof(double) * (size_t)g.N);
    col = need(sizeof(int) * (size_t)(g.E + g.N));
    cap_nz = 6 * (size_t)g.E + 4 * (size_t)g.N + 10;
    ia = need(sizeof(int) * cap_nz);
    ja = need(sizeof(int) * cap_nz);
    ar = need(sizeof(double) * cap_nz);
    for (int v = 0; v < g.N; v++) {
        cap[v] = 1;
    }
    for (int a = 0; a <= max_lev; a += L) {
        glp_prob *q = glp_create_prob();
        glp_smcp parm;
        int nc = 0, nr = 0, nz = 0, w;

#define IN_WINDOW(v)   (g.lev[v] >= a && g.lev[v] < a + H)
#define ENTRY(r, j, v) (nz++, ia[nz] = (r), ja[nz] = (j), ar[nz] = (v))
        for (int v = 0; v < g.N; v++) {
            col[g.E + v] = IN_WINDOW(v) ? ++nc : 0;
        }
        for (int e = 0; e < g.E; e++) {
            col[e] = IN_WINDOW(g.dst[e]) ? ++nc : 0;
        }
        w = ++nc;
        glp_add_cols(q, nc);
        for (int j = 0; j < g.E + g.N; j++) {
            if (col[j]) {
                glp_set_col_bnds(q, col[j], j < g.E ? GLP_DB : GLP_LO, 0, 1);
            }
        }
        glp_set_col_bnds(q, w, GLP_FR, 0, 0);
        glp_set_obj_coef(q, w, 1);
        for (int e = 0; e < g.E; e++) { /* (3), a fixed tail's start as a constant */
            int i = g.src[e], j = g.dst[e];

            if (!col[e]) {
                continue;
            }
            glp_add_rows(q, 1);
            nr++;
            glp_set_row_bnds(q, nr, GLP_UP, 0, col[g.E + i] ? -g.p[i] : -(S[i] + g.p[i]));
            if (col[g.E + i]) {
                ENTRY(nr, col[g.E + i], 1.0);
            }
            ENTRY(nr, col[g.E + j], -1.0);
            ENTRY(nr, col[e], g.c[e]);
        }
        for (int v = 0; v < g.N; v++) { /* (4) with what is left of v's 1 */
            int cnt = 0;

            for (int k = g.outs[v]; k < g.outs[v + 1]; k++) {
                cnt += col[g.oute[k]] != 0;
            }
            if (cnt == 0 || (cnt == 1 && cap[v] >= 1 - 1e-12)) {
                continue;
            }
            glp_add_rows(q, 1);
            nr++;
            glp_set_row_bnds(q, nr, GLP_LO, cnt - cap[v] > 0 ? cnt - cap[v] : 0, 0);
            for (int k = g.outs[v]; k < g.outs[v + 1]; k++) {
                if (col[g.oute[k]]) {
                    ENTRY(nr, col[g.oute[k]], 1.0);
                }
            }
        }
        for (int v = 0; v < g.N; v++) { /* (5) */
            if (!col[g.E + v] || g.ins[v + 1] - g.ins[v] <= 1) {
                continue;
            }
            glp_add_rows(q, 1);
            nr++;
            glp_set_row_bnds(q, nr, GLP_LO, g.ins[v + 1] - g.ins[v] - 1, 0);
            for (int k = g.ins[v]; k < g.ins[v + 1]; k++) {
                ENTRY(nr, col[g.ine[k]], 1.0);
            }
        }
        for (int v = 0; v < g.N; v++) { /* (6) with the rest of the path */
            int leaves = g.outs[v + 1] == g.outs[v];
            double rest = g.p[v];

            if (!col[g.E + v]) {
                continue;
            }
            for (int k = g.outs[v]; k < g.outs[v + 1]; k++) {
                if (!col[g.oute[k]]) {
                    double t = g.p[v] + g.tail[g.dst[g.oute[k]]];
                    leaves = 1;
                    rest = t > rest ? t : rest;
                }
            }
            if (!leaves) {
                continue;
            }
            glp_add_rows(q, 1);
            nr++;
            glp_set_row_bnds(q, nr, GLP_UP, 0, -rest);
            ENTRY(nr, col[g.E + v], 1.0);
            ENTRY(nr, w, -1.0);
        }
        glp_load_matrix(q, nz, ia, ja, ar);
        glp_adv_basis(q, 0);
        glp_init_smcp(&parm);
        parm.msg_lev = GLP_MSG_OFF;
        if (glp_simplex(q, &parm) != 0 || glp_get_status(q) != GLP_OPT) {
            fprintf(stderr, "layers-probe: the window at level %d is not solved\n", a);
            return 1;
        }
        iterations += glp_get_it_cnt(q);
        for (int e = 0; e < g.E; e++) {
            if (col[e] && g.lev[g.dst[e]] < a + L) {
                X[e] = glp_get_col_prim(q, col[e]);
                cap[g.src[e]] -= 1 - X[e];
            }
        }
        glp_delete_prob(q);
        for (int k = 0; k < g.N; k++) { /* the fixed levels' starts, ASAP */
            int v = g.order[k];

            if (g.lev[v] < a || g.lev[v] >= a + L) {
                continue;
            }
            for (int t = g.ins[v]; t < g.ins[v + 1]; t++) {
                int e = g.ine[t];
                double z = S[g.src[e]] + g.p[g.src[e]] + g.c[e] * X[e];
                S[v] = z > S[v] ? z : S[v];
            }
        }
    }
    for (int v = 0; v < g.N; v++) {
        makespan = S[v] + g.p[v] > makespan ? S[v] + g.p[v] : makespan;
    }
    printf("layers L=%d H=%d: %d ops, %d levels, longest path %.6f, %ld iterations, "
           "%.2f CPU s\n",
           L, H, g.N, max_lev + 1, makespan, iterations, (double)(clock() - t0) / CLOCKS_PER_SEC);
    return 0;
}
