/*
 * auto_judge.c - the judge of the `auto` placer (auto_internal.h): both
 * simulators (sim_run) on the world the options describe.  A placement is
 * feasible when neither model runs out of memory; the memory accounting is
 * the simulators' own, not an estimate.  Placements compare by (timed
 * overflow, baechi overflow, timed step).  Also the messages when nothing
 * fits.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/auto_internal.h"

#include "core/checked.h"
#include "core/err.h"
#include "core/strbuf.h"
#include "core/units.h"
#include "sim/sim.h"
#include "sim/sim_incr.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool auto_score_better(const struct auto_score *a, const struct auto_score *b)
{
    if (a->over_timed != b->over_timed) {
        return a->over_timed < b->over_timed;
    }
    if (a->over_baechi != b->over_baechi) {
        return a->over_baechi < b->over_baechi;
    }
    return a->step_us < b->step_us;
}

static int64_t overflow(const struct sim_result *r)
{
    int64_t over = 0;

    for (int32_t d = 0; d < r->n_devices; d++) {
        const struct sim_device_stats *x = &r->dev[d];
        if (x->limit_bytes > 0 && x->peak_bytes > x->limit_bytes) {
            over += x->peak_bytes - x->limit_bytes;
        }
    }
    return over;
}

/* Whether two timed runs agree in what the score and the search read:
 * step, each op's start and end, each device's peak, busy time and OOM flag. */
static bool same_run(const struct auto_ctx *s, const struct sim_result *a,
                     const struct sim_result *b)
{
    if (a->step_us != b->step_us) {
        return false;
    }
    for (int32_t d = 0; d < a->n_devices; d++) {
        if (a->dev[d].peak_bytes != b->dev[d].peak_bytes || a->dev[d].oom != b->dev[d].oom ||
            a->dev[d].busy_us != b->dev[d].busy_us) {
            return false;
        }
    }
    for (int32_t v = 0; v < s->n_ops; v++) {
        if (a->start_us[v] != b->start_us[v] || a->end_us[v] != b->end_us[v]) {
            return false;
        }
    }
    return true;
}

/* Debug (s->check_incr): the trial in full against its incremental run; a
 * trial cut short must be no better than the cutoff in full either. */
static int check_trial(struct auto_ctx *s, const int32_t *dev, bool cut, int64_t cutoff_us)
{
    struct sim_options so = {.model = SIM_MODEL_TIMED, .trace = NULL};
    bool ok;
    int rc;

    sim_result_release(&s->rt_check);
    if ((rc = sim_run(s->g, s->c, dev, &so, &s->rt_check)) != 0) {
        return rc;
    }
    ok = cut ? overflow(&s->rt_check) > 0 || s->rt_check.step_us >= cutoff_us
             : same_run(s, &s->rt_trial, &s->rt_check);
    s->n_checked++;
    s->n_mismatch += !ok;
    return 0;
}

/* The timed run of dev into s->rt_trial: resumed from the best's (cut short
 * when it cannot beat a feasible best), or in full before the search. */
static int eval_timed(struct auto_ctx *s, const int32_t *dev, const struct auto_score *best,
                      struct auto_score *out)
{
    struct sim_options so = {.model = SIM_MODEL_TIMED, .trace = NULL};
    int64_t cutoff = best && auto_score_feasible(best) ? best->step_us : 0;
    uint64_t v;
    bool cut = false;
    int rc;

    if (!s->incr) {
        sim_result_release(&s->rt_trial);
        if ((rc = sim_run(s->g, s->c, dev, &so, &s->rt_trial)) != 0) {
            return rc;
        }
        s->visits += s->cost;
    } else {
        if ((rc = sim_incr_run(s->incr, dev, cutoff, &s->rt_trial, &cut, &v)) != 0 ||
            (s->check_incr && (rc = check_trial(s, dev, cut, cutoff)) != 0)) {
            return rc;
        }
        s->visits += v + 1;
    }
    s->n_eval++;
    out->over_timed = overflow(&s->rt_trial);
    out->step_us = cut && s->rt_trial.step_us < cutoff ? cutoff : s->rt_trial.step_us;
    out->over_baechi = INT64_MAX;
    out->baechi_step_us = -1;
    /* cut short: over a limit, or a step >= a feasible best's, so never better */
    return 0;
}

int auto_eval(struct auto_ctx *s, const int32_t *dev, const struct auto_score *best, bool force,
              struct auto_score *out, bool *done)
{
    struct sim_options so = {.model = SIM_MODEL_BAECHI, .trace = NULL};
    int rc;

    if (!force && s->visits + s->cost > s->budget) {
        *done = true;
        return 0;
    }
    sim_result_release(&s->rb_trial);
    s->rb_trial_valid = false;
    if ((rc = eval_timed(s, dev, best, out)) != 0) {
        return rc;
    }
    if (out->over_timed == 0 &&
        (!best || !auto_score_feasible(best) || out->step_us < best->step_us)) {
        if (!force && s->visits + s->cost > s->budget) {
            *done = true;
            return 0;
        }
        if ((rc = sim_run(s->g, s->c, dev, &so, &s->rb_trial)) != 0) {
            return rc;
        }
        s->visits += s->cost;
        s->n_eval++;
        s->rb_trial_valid = true;
        out->over_baechi = overflow(&s->rb_trial);
        out->baechi_step_us = s->rb_trial.step_us;
    }
    return 0;
}

/* With s->incr: the full timed run of s->best becomes the base, replaces
 * rt_best, and is compared with the run it replaces. */
static int rebase(struct auto_ctx *s)
{
    struct sim_result t;
    uint64_t v;
    int rc;

    if ((rc = sim_incr_base(s->incr, s->best, &s->rt_check, &v)) != 0) {
        return rc;
    }
    s->visits += v + 1;
    s->n_checked++;
    if (!same_run(s, &s->rt_check, &s->rt_best)) {
        s->n_mismatch++;
        /* the full run is the truth (never seen: the tests count these) */
        s->best_score.over_timed = overflow(&s->rt_check);
        s->best_score.step_us = s->rt_check.step_us;
    }
    /* the OOM records name the op that crossed the limit: keep the full run's */
    t = s->rt_best;
    s->rt_best = s->rt_check;
    s->rt_check = t;
    return 0;
}

/* Op v's compute on device d as the simulators count it, 0 for a
 * collective's rank (it runs on the links, not one at a time). */
static int64_t op_load(const struct auto_ctx *s, int32_t v, int32_t d)
{
    return s->g->n_coll && s->g->coll_of[v] >= 0 ? 0
                                                 : cluster_compute_us(s->c, d, s->g->weight_us[v]);
}

void auto_sums_best(struct auto_ctx *s)
{
    int32_t nd = s->n_dev;

    memset(s->sums_best, 0, 2 * (size_t)nd * sizeof(*s->sums_best));
    for (int32_t v = 0; v < s->n_ops; v++) {
        int32_t d = s->best[v];

        s->sums_best[d] = sat_add_i64(s->sums_best[d], op_load(s, v, d));
        s->sums_best[nd + d] += s->g->persist_bytes[v];
    }
}

/* Op v of the trial moved from the best's device: its sums follow. */
static void sums_move(struct auto_ctx *s, int32_t v)
{
    int32_t nd = s->n_dev, from = s->best[v], to = s->trial[v];

    if (from == to) {
        return;
    }
    s->sums_trial[from] -= op_load(s, v, from);
    s->sums_trial[to] = sat_add_i64(s->sums_trial[to], op_load(s, v, to));
    s->sums_trial[nd + from] -= s->g->persist_bytes[v];
    s->sums_trial[nd + to] += s->g->persist_bytes[v];
}

bool auto_prune(struct auto_ctx *s, const struct auto_move *m)
{
    const struct auto_score *b = &s->best_score;
    const int32_t *st = m->kind == AUTO_MV_CO ? s->co_start : s->tf_start;
    const int32_t *op = m->kind == AUTO_MV_CO ? s->co_op : s->tf_op;
    int32_t nd = s->n_dev;
    int64_t over = 0, load = 0;

    memcpy(s->sums_trial, s->sums_best, 2 * (size_t)nd * sizeof(*s->sums_trial));
    for (int32_t i = st[m->a]; i < st[m->a + 1]; i++) {
        sums_move(s, op[i]);
    }
    for (int32_t i = m->kind == AUTO_MV_SWAP ? s->tf_start[m->b] : 0;
         m->kind == AUTO_MV_SWAP && i < s->tf_start[m->b + 1]; i++) {
        sums_move(s, s->tf_op[i]);
    }
    for (int32_t d = 0; d < nd; d++) {
        int64_t lim = s->rt_best.dev[d].limit_bytes;

        if (lim > 0 && s->sums_trial[nd + d] > lim) {
            over += s->sums_trial[nd + d] - lim;
        }
        load = s->sums_trial[d] > load ? s->sums_trial[d] : load;
    }
    /* the timed peak is at least the persistent bytes, and the timed
     * overflow is compared first; then (both fit) the timed step */
    if (over > 0 && over >= b->over_timed) {
        return true;
    }
    return auto_score_feasible(b) && load >= b->step_us;
}

int auto_accept(struct auto_ctx *s, const struct auto_score *sc)
{
    struct sim_result t;

    memcpy(s->best, s->trial, (size_t)s->n_ops * sizeof(int32_t));
    s->best_score = *sc;
    t = s->rt_best;
    s->rt_best = s->rt_trial;
    s->rt_trial = t;
    t = s->rb_best;
    s->rb_best = s->rb_trial;
    s->rb_trial = t;
    s->rb_best_valid = s->rb_trial_valid;
    s->rb_trial_valid = false;
    s->screen_stale = true;
    auto_sums_best(s);
    return s->incr ? rebase(s) : 0;
}

int auto_incr_start(struct auto_ctx *s)
{
    int rc;

    if (!s->use_incr || s->incr || !sim_incr_supported(s->g)) {
        return 0;
    }
    if ((rc = sim_incr_new(s->g, s->c, &s->incr)) != 0) {
        return rc;
    }
    return rebase(s);
}

/* Certainly infeasible, without searching: a group's persistent bytes
 * (held for the whole step on one device in both models) exceed the largest
 * device, or all persistent bytes exceed all memory. */
int auto_precheck(const struct auto_ctx *s)
{
    const struct graph *g = s->g;
    const struct cluster *c = s->c;
    int64_t total_p = 0, total_m = 0, max_m = 0;
    int32_t max_d = 0;

    for (int32_t d = 0; d < c->n_devices; d++) {
        if (c->dev[d].mem_bytes <= 0) {
            return 0; /* unlimited */
        }
        total_m += c->dev[d].mem_bytes;
        if (c->dev[d].mem_bytes > max_m) {
            max_m = c->dev[d].mem_bytes;
            max_d = d;
        }
    }
    for (int32_t k = 0; k < s->n_tf; k++) {
        int64_t p = 0;
        for (int32_t i = s->tf_start[k]; i < s->tf_start[k + 1]; i++) {
            p += g->persist_bytes[s->tf_op[i]];
        }
        total_p += p;
        if (p > max_m) {
            char ps[32], ms[32], miss[32]; /* with units (issue 33 item 4) */

            units_fmt_bytes(p, ps, sizeof(ps));
            units_fmt_bytes(max_m, ms, sizeof(ms));
            units_fmt_bytes(p - max_m, miss, sizeof(miss));
            return err_set(BAECHI_EINFEASIBLE,
                           "auto: no placement fits: colocation group '%s' (op '%s', %d ops) "
                           "holds %s of persistent memory, more than the largest device '%s' "
                           "(%s, missing %s)",
                           g->group_name[g->group[s->tf_op[s->tf_start[k]]]],
                           g->op_name[s->tf_op[s->tf_start[k]]],
                           (int)(s->tf_start[k + 1] - s->tf_start[k]), ps, c->dev[max_d].name, ms,
                           miss);
        }
    }
    if (total_p > total_m) {
        int32_t big = 0;
        for (int32_t v = 1; v < g->n_ops; v++) {
            if (g->persist_bytes[v] > g->persist_bytes[big]) {
                big = v;
            }
        }
        char ps[32], ms[32], miss[32], bs[32];

        units_fmt_bytes(total_p, ps, sizeof(ps));
        units_fmt_bytes(total_m, ms, sizeof(ms));
        units_fmt_bytes(total_p - total_m, miss, sizeof(miss));
        units_fmt_bytes(g->persist_bytes[big], bs, sizeof(bs));
        return err_set(BAECHI_EINFEASIBLE,
                       "auto: no placement fits: the persistent memory (%s) exceeds the memory "
                       "of all %d devices (%s, missing %s); the largest is op '%s' (%s)",
                       ps, (int)c->n_devices, ms, miss, g->op_name[big], bs);
    }
    return 0;
}

/* The message of a search that found nothing that fits. */
int auto_infeasible(struct auto_ctx *s)
{
    const struct sim_result *r =
        s->best_score.over_timed > 0 || !s->rb_best_valid ? &s->rt_best : &s->rb_best;
    const char *model = r == &s->rt_best ? "timed" : "baechi";
    int32_t worst = 0, n_on = 0;
    int64_t worst_over = -1;
    struct strbuf ops = STRBUF_INIT; /* whole at any length (a char[512] cut it) */
    int rc = 0;

    for (int32_t d = 0; d < r->n_devices; d++) {
        int64_t o = r->dev[d].peak_bytes - r->dev[d].limit_bytes;
        if (r->dev[d].limit_bytes > 0 && o > worst_over) {
            worst_over = o;
            worst = d;
        }
    }
    for (int32_t i = 0; i < r->n_oom && rc == 0; i++) {
        if (r->oom[i].device == worst) {
            rc = strbuf_addf(&ops, "'%s' (first over the limit)", s->g->op_name[r->oom[i].op]);
        }
    }
    for (int32_t k = 0; k < s->n_tf; k++) {
        if (s->best[s->tf_op[s->tf_start[k]]] == worst) {
            s->order[n_on++] = k;
        }
    }
    qsort_r(s->order, (size_t)n_on, sizeof(int32_t), auto_cmp_mem_desc, s->tf_mem);
    for (int32_t i = 0; i < n_on && i < AUTO_MSG_GROUPS && rc == 0; i++) {
        int32_t k = s->order[i];
        char ms[32]; /* a byte count with its unit */

        units_fmt_bytes(s->tf_mem[k], ms, sizeof(ms));
        rc = strbuf_addf(&ops, "%s'%s' (%s)", ops.len ? ", " : "",
                         s->g->op_name[s->tf_op[s->tf_start[k]]], ms);
    }
    char over_s[32], lim_s[32];

    units_fmt_bytes(worst_over, over_s, sizeof(over_s)); /* with units (issue 33 item 4) */
    units_fmt_bytes(r->dev[worst].limit_bytes, lim_s, sizeof(lim_s));
    if (rc == 0) {
        rc = err_set(BAECHI_EINFEASIBLE,
                     "auto: no placement fits: device %d '%s' needs %s more than its limit of %s "
                     "in the %s simulation (best of %" PRId64
                     " evaluations); ops that could not fit there: %s",
                     (int)worst, s->c->dev[worst].name, over_s, lim_s, model, s->n_eval, ops.buf);
    }
    strbuf_release(&ops);
    return rc;
}

int auto_start_from(struct auto_ctx *s, const int32_t *dev)
{
    struct auto_score sc;
    bool done = false;
    int rc;

    memcpy(s->trial, dev, (size_t)s->n_ops * sizeof(int32_t));
    s->trial_known = false;
    if ((rc = auto_eval(s, s->trial, NULL, true, &sc, &done)) != 0) {
        return rc;
    }
    return auto_accept(s, &sc);
}
