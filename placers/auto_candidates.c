/*
 * auto_candidates.c - the starting points of the `auto` placer
 * (auto_internal.h): every other placer (m-TOPO, m-TOPO-nonuniform, m-ETF,
 * m-SCT and their -reserve variants, each with the `tf` and `coplace`
 * groupers, with and without fusion; single, round-robin, random, and the
 * workload's given placement when it has one; on micro-batched graphs the
 * `pipeline` placer, beyond the original), each as it is and with its
 * zero-cost source groups moved next to their first consumer.  m-SCT and
 * m-SCT-reserve of one configuration solve their (identical) LP once
 * (lp_memo.h); only the iterations run are charged to the budget.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/auto_internal.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/placement.h"
#include "placers/lp_memo.h"
#include "placers/placer.h" /* the other placers, run through the registry */
#include "placers/placer_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Cheap source groups: every member has no input and computes in less time
 * than sending its outputs would take (constants, shape arithmetic, BN
 * statistics; an imported Constant costs a 5 µs launch, a transfer 134 µs).
 * They belong next to the first consumer of their first member, so that
 * they do not pay a transfer each: each candidate is also tried that way.
 * (Taking them along on every move of the search was tried: on the
 * benchmark it blocks more improvements than it brings.)
 */
int auto_find_sources(struct auto_ctx *s)
{
    const struct graph *g = s->g;

    s->src_group = mem_alloc_array((size_t)s->n_tf + 1, sizeof(int32_t));
    s->src_to = mem_alloc_array((size_t)s->n_tf + 1, sizeof(int32_t));
    if (!s->src_group || !s->src_to) {
        return BAECHI_ENOMEM;
    }
    for (int32_t k = 0; k < s->n_tf; k++) {
        int32_t first = s->tf_op[s->tf_start[k]], to = -1, best_topo = INT32_MAX;
        bool src = true;

        for (int32_t i = s->tf_start[k]; i < s->tf_start[k + 1] && src; i++) {
            int32_t v = s->tf_op[i];
            src = graph_in_degree(g, v) == 0 &&
                  g->weight_us[v] <= cluster_comm_default_us(s->c, g->out_bytes[v]);
        }
        for (int32_t e = g->out_start[first]; src && e < g->out_start[first + 1]; e++) {
            int32_t w = g->edge_dst[e];
            if (s->tf_of[w] != k && g->topo[w] < best_topo) {
                best_topo = g->topo[w];
                to = w;
            }
        }
        if (src && to >= 0) {
            s->src_group[s->n_src] = k;
            s->src_to[s->n_src++] = to;
        }
    }
    return 0;
}

bool auto_sources_follow(const struct auto_ctx *s, int32_t *dev)
{
    bool moved = false;

    for (int32_t j = 0; j < s->n_src; j++) {
        int32_t k = s->src_group[j], to = dev[s->src_to[j]];
        for (int32_t i = s->tf_start[k]; i < s->tf_start[k + 1]; i++) {
            moved |= dev[s->tf_op[i]] != to;
            dev[s->tf_op[i]] = to;
        }
    }
    return moved;
}

/* ---- candidates ---- */

struct cand {
    const char *placer;
    enum placer_grouper grouper;
    bool fusion;
    bool persist; /* persistent_at_place */
};

/*
 * At most: per algorithm 2 groupers x with and without fusion, plus the
 * 2 m-ETF variants with the SoCC'20 memory rule; then single, round-robin
 * and random (2 groupers each but single), given and pipeline.
 */
enum { AUTO_MAX_CANDIDATES = PLACER_N_ALGORITHMS * 6 + 7 };

static int32_t candidates(const struct graph *g, struct cand *out)
{
    int32_t n = 0;
    bool given = false;

    for (const struct placer_desc *d = placer_list(); d->name; d++) {
        const char *name = d->name;
        bool sct = (d->flags & PLACER_LP) != 0;
        bool etf = (d->flags & PLACER_MEMORY_RULE) && !sct;

        if (!(d->flags & PLACER_ALGORITHM)) {
            continue;
        }

        for (int gr = 0; gr < 2; gr++) {
            for (int fu = 0; fu < 2; fu++) {
                /* m-SCT's LP dominates the time of the candidates (0.1-0.2 s each on
                 * GNMT): only its default and its paper-style configuration */
                if (sct && gr != fu) {
                    continue;
                }
                out[n++] = (struct cand){name, (enum placer_grouper)gr, fu != 0, false};
                /* m-ETF with the SoCC'20 memory rule: cheap, and it places training
                 * graphs where the default rule deadlocks */
                if (etf && gr == fu) {
                    out[n++] = (struct cand){name, (enum placer_grouper)gr, fu != 0, true};
                }
            }
        }
    }
    out[n++] = (struct cand){"single", PLACER_GROUPER_TF, false, false};
    out[n++] = (struct cand){"round-robin", PLACER_GROUPER_TF, false, false};
    out[n++] = (struct cand){"round-robin", PLACER_GROUPER_COPLACE, false, false};
    out[n++] = (struct cand){"random", PLACER_GROUPER_TF, false, false};
    out[n++] = (struct cand){"random", PLACER_GROUPER_COPLACE, false, false};
    for (int32_t v = 0; v < g->n_ops && !given; v++) {
        given = g->given_device[v] >= 0;
    }
    if (given) {
        out[n++] = (struct cand){"given", PLACER_GROUPER_TF, false, false};
    }
    /* contiguous stages only pay off when micro-batches overlap them */
    if (g->micro_batch) {
        out[n++] = (struct cand){PLACER_PIPELINE_NAME, PLACER_GROUPER_TF, false, false};
    }
    if (n > AUTO_MAX_CANDIDATES) {
        BUG("auto: %d candidates, more than AUTO_MAX_CANDIDATES (%d)", (int)n, AUTO_MAX_CANDIDATES);
    }
    return n;
}

static void cand_name(const struct cand *c, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s%s%s", c->placer,
             c->grouper == PLACER_GROUPER_COPLACE ? "+coplace" : "", c->fusion ? "+fusion" : "",
             c->persist ? "+persistent-at-place" : "");
}

static bool cand_is_sct(const struct cand *c)
{
    return strncmp(c->placer, "m-sct", 5) == 0;
}

/*
 * The budget covers the candidates' LPs too: the m-SCT candidates together
 * get 1/AUTO_LP_BUDGET_DIV of it, in equal shares, as simplex iterations (one
 * costs s->cost visits, as much as a simulation: GNMT's training graph, one
 * iteration about 0.5 ms, one simulation 0.9 ms).  Beyond the user's
 * --lp-iteration-limit never.  0: the budget does not pay for an LP: when
 * the share is below the ops of the graph, as the warm-started simplex
 * pivots at least about once per op (GNMT forward 1.2 iterations per op,
 * its training graph 1.0, layered synthetic graphs 3 to 6), it is not run
 * at all rather than stopped at the limit with its iterations spent.
 */
static int64_t lp_share(const struct auto_ctx *s, const struct cand *cands, int32_t n_cand,
                        const struct placer_options *opt)
{
    int64_t n_sct = 0, share;

    for (int32_t i = 0; i < n_cand; i++) {
        n_sct += cand_is_sct(&cands[i]);
    }
    if (n_sct == 0) {
        return 0;
    }
    share = (int64_t)(s->budget / AUTO_LP_BUDGET_DIV / (uint64_t)n_sct / s->cost);
    if (opt->lp_iteration_limit > 0 && opt->lp_iteration_limit < share) {
        share = opt->lp_iteration_limit;
    }
    return share < s->n_ops ? 0 : share;
}

/* Candidate c placed by placer_run into dev; *placed false when that placer
 * gives no placement (infeasible or not applicable: others may fit), or
 * when it is m-SCT and its LP would need more than lp_limit iterations (0:
 * not run at all): skipped, counted in s->n_skipped, its iterations charged
 * to the budget either way.  The m-SCT candidates solve their LP through
 * `memo`: m-SCT and m-SCT-reserve of one grouper and fusion build the same
 * LP, solved once; only the iterations of solves run are charged. */
static int cand_place(struct auto_ctx *s, const struct cand *c, const struct graph *g0,
                      const struct cluster *c0, const struct placer_options *opt, int64_t lp_limit,
                      struct lp_memo *memo, int32_t *dev, bool *placed)
{
    struct placer_options co = *opt;
    struct placement pl;
    struct placer_stats ps;
    int64_t run_before = memo->iterations_run, run;
    bool over;
    int r;

    *placed = false;
    if (cand_is_sct(c) && lp_limit <= 0) {
        s->n_skipped++;
        return 0;
    }
    co.grouper = c->grouper;
    co.fusion = c->fusion;
    co.fusion_check_disjoint = false;
    co.persistent_at_place = c->persist;
    co.refine = false;
    co.lp_iteration_limit = cand_is_sct(c) ? lp_limit : opt->lp_iteration_limit;
    /* the share bounds the LP's work; a wall-time limit would make auto's
     * choice depend on the machine's load */
    co.lp_time_limit_s = 0;
    co.lp_memo = memo;
    r = placer_run(c->placer, g0, c0, &co, NULL, &pl, &ps);
    /* the limit reached: a feasible basis or m-ETF's fallback, neither m-SCT's own */
    over = r == 0 && cand_is_sct(c) &&
           (strncmp(ps.lp_status, "iteration limit", 15) == 0 ||
            strcmp(ps.lp_status, "fallback: m-etf (LP iterations)") == 0);
    run = memo->iterations_run - run_before;
    s->lp_iterations += run;
    s->visits += (uint64_t)run * s->cost;
    placer_stats_release(&ps);
    if (over) {
        s->n_skipped++;
        placement_release(&pl);
        return 0;
    }
    *placed = r == 0;
    if (r == BAECHI_ENOMEM) {
        return r;
    }
    if (r == 0) {
        memcpy(dev, pl.device_of, (size_t)g0->n_ops * sizeof(int32_t));
        placement_release(&pl);
    }
    return 0;
}

int auto_best_candidate(struct auto_ctx *s, const struct graph *g0, const struct cluster *c0,
                        const struct placer_options *opt, char *name)
{
    struct cand cands[AUTO_MAX_CANDIDATES];
    struct lp_memo own, *memo = opt->lp_memo ? opt->lp_memo : &own;
    int32_t *dev = NULL, n_cand, best_cand = -1;
    int64_t lp_limit;
    bool done = false, placed;
    int rc = 0;

    lp_memo_init(&own);
    if (!(dev = mem_alloc_array((size_t)g0->n_ops + 1, sizeof(int32_t)))) {
        return BAECHI_ENOMEM;
    }
    n_cand = candidates(g0, cands);
    lp_limit = lp_share(s, cands, n_cand, opt);
    for (int32_t i = 0; i < n_cand; i++) {
        CHECK(cand_place(s, &cands[i], g0, c0, opt, lp_limit, memo, dev, &placed));
        for (int variant = 0; placed && variant < 2; variant++) {
            struct auto_score sc;

            if (variant == 1 && !auto_sources_follow(s, dev)) {
                break;
            }
            memcpy(s->trial, dev, (size_t)g0->n_ops * sizeof(int32_t));
            s->trial_known = false;
            CHECK(auto_eval(s, s->trial, best_cand >= 0 ? &s->best_score : NULL, true, &sc, &done));
            if (best_cand < 0 || auto_score_better(&sc, &s->best_score)) {
                CHECK(auto_accept(s, &sc));
                best_cand = i;
                cand_name(&cands[i], name, AUTO_NAME_SIZE);
                if (variant == 1) {
                    strncat(name, "+sources", AUTO_NAME_SIZE - strlen(name) - 1);
                }
            }
        }
    }
    if (best_cand < 0) {
        /* cannot happen (single always places), but never leave out empty */
        rc = err_set(BAECHI_EINFEASIBLE, "auto: no placer gave a placement to start from");
    }
cleanup:
    lp_memo_release(&own);
    free(dev);
    return rc;
}
