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
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/list_sched.h"

#include "core/array.h"
#include "core/err.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int m_sct_place(const struct palgo_ctx *x, bool reserve, int32_t *device_of,
                struct placer_stats *st)
{
    struct lp_result lr = {0};
    struct ls_state s;
    int32_t *fav = NULL;
    int64_t est = -1;
    double t0 = now_ms();
    int rc;

    if ((rc = lp_favourite_child(x->p, x->opt->lp_time_limit_s, &lr)) != 0) {
        return rc;
    }
    st->lp_ms = now_ms() - t0;
    st->lp_makespan_us = lr.makespan_us;
    snprintf(st->lp_status, sizeof(st->lp_status), "%s", lr.status);
    fav = array_malloc(2 * (size_t)x->p->n + 1, sizeof(int32_t));
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
