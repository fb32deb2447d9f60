/*
 * lp_memo.c - the favourite-child LP's solutions kept for reuse within one
 * `auto` placement (lp_memo.h).  The key is the LP's inputs serialised, so
 * that equality is checked on everything the solve reads, not on a hash.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/lp_memo.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lp_memo_init(struct lp_memo *m)
{
    memset(m, 0, sizeof(*m));
}

void lp_memo_release(struct lp_memo *m)
{
    for (int32_t i = 0; i < m->n; i++) {
        free(m->e[i].key);
        free(m->e[i].msg);
        lp_result_release(&m->e[i].r);
    }
    free(m->e);
    memset(m, 0, sizeof(*m));
}

void lp_memo_solvers(const struct lp_memo *m, char *buf, size_t size)
{
    unsigned glpk = 1u << PLACER_LP_GLPK, clp = 1u << PLACER_LP_CLP, flow = 1u << PLACER_LP_FLOW;

    snprintf(buf, size, "%s",
             m->solvers_run == glpk   ? "glpk"
             : m->solvers_run == clp  ? "clp"
             : m->solvers_run == flow ? "flow"
             : m->solvers_run         ? "mixed"
                                      : "");
}

struct key_buf {
    unsigned char *p;
    size_t len;
};

static void key_put(struct key_buf *k, const void *src, size_t n)
{
    if (k->p) {
        memcpy(k->p + k->len, src, n);
    }
    k->len += n;
}

/* What the solve reads (lp.c: lp_build, warm_basis, the limits), in order;
 * with k->p NULL only the length is counted. */
static void key_write(struct key_buf *k, const struct pgraph *p, const struct lp_limits *lim)
{
    size_t n = (size_t)p->n, e = (size_t)p->m;

    key_put(k, &p->n, sizeof(p->n));
    key_put(k, &p->m, sizeof(p->m));
    key_put(k, p->weight, n * sizeof(*p->weight));
    key_put(k, p->out_start, (n + 1) * sizeof(*p->out_start));
    key_put(k, p->in_start, (n + 1) * sizeof(*p->in_start));
    key_put(k, p->in_edge, e * sizeof(*p->in_edge));
    key_put(k, p->src, e * sizeof(*p->src));
    key_put(k, p->dst, e * sizeof(*p->dst));
    key_put(k, p->ecomm, e * sizeof(*p->ecomm));
    key_put(k, &lim->time_limit_s, sizeof(lim->time_limit_s));
    key_put(k, &lim->iteration_limit, sizeof(lim->iteration_limit));
    key_put(k, &lim->solver, sizeof(lim->solver));
}

/* A copy of stored result s into r (x newly allocated).  BAECHI_ENOMEM. */
static int result_copy(const struct lp_result *s, int32_t n_x, struct lp_result *r)
{
    *r = *s;
    r->x = NULL;
    if (s->x) {
        if (!(r->x = mem_alloc_array((size_t)n_x + 1, sizeof(double)))) {
            return err_set(BAECHI_ENOMEM, "out of memory for the favourite-child LP's solution");
        }
        memcpy(r->x, s->x, ((size_t)n_x + 1) * sizeof(double));
    }
    return 0;
}

/* Stores the outcome rc of a solve into a new entry owning key. */
static int memo_store(struct lp_memo *m, struct key_buf *k, int rc, const struct lp_result *r,
                      int32_t n_x)
{
    struct lp_memo_entry *en;
    int crc;

    if (ARRAY_RESERVE(m->e, m->alloc, (size_t)m->n + 1)) {
        return BAECHI_ENOMEM;
    }
    en = &m->e[m->n];
    memset(en, 0, sizeof(*en));
    if (rc != 0 && !(en->msg = mem_strdup(err_msg()))) {
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    if ((crc = result_copy(r, n_x, &en->r)) != 0) {
        free(en->msg);
        return crc;
    }
    en->key = k->p;
    en->key_len = k->len;
    en->rc = rc;
    k->p = NULL;
    m->n++;
    return 0;
}

int lp_memo_solve(struct lp_memo *m, const struct pgraph *p, const struct lp_limits *lim,
                  struct lp_result *r)
{
    struct key_buf k = {NULL, 0};
    int rc;

    key_write(&k, p, lim);
    if (!(k.p = mem_alloc(k.len))) {
        return err_set(BAECHI_ENOMEM, "out of memory for the favourite-child LP's key");
    }
    k.len = 0;
    key_write(&k, p, lim);
    for (int32_t i = 0; i < m->n; i++) {
        const struct lp_memo_entry *en = &m->e[i];
        if (en->key_len != k.len || memcmp(en->key, k.p, k.len) != 0) {
            continue;
        }
        free(k.p);
        m->n_reused++;
        if ((rc = result_copy(&en->r, p->m, r)) != 0) {
            return rc;
        }
        return en->rc ? err_set(en->rc, "%s", en->msg) : 0;
    }
    rc = lp_favourite_child_limited(p, lim, r);
    m->n_solved++;
    m->solvers_run |= 1u << r->solver;
    m->iterations_run += r->iterations;
    if (rc == 0 || rc == BAECHI_ESOLVER) {
        /* the error's message is kept before anything can overwrite it */
        int src = memo_store(m, &k, rc, r, p->m);
        if (src != 0) {
            free(k.p);
            lp_result_release(r);
            return src;
        }
    }
    free(k.p);
    return rc;
}
