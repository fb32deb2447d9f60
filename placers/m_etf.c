/*
 * m_etf.c - m-ETF and m-ETF-reserve (baechi-spec §3).
 *
 * The rule: at each event time t, among all (ready op, free device) pairs
 * whose op can start now on that device (input-ready time <= t, memory and
 * colocation permitting), take the op with the smallest topo index, on the
 * lowest device id; repeat; then jump to the next event (a busy device
 * becoming free, or a ready op's earliest start on a free device).
 *
 * Two implementations with identical results (tested on random graphs):
 *
 *   reference  the original's loop (list_sched.c): before every decision the
 *              schedule time of every ready op on every device.  O(V·R·D).
 *   fast       per device two heaps: `wait` keyed by (input-ready time,
 *              topo), `now` keyed by topo for ops whose input-ready time is
 *              <= t.  Keys are cached ready times, which only grow while an
 *              op waits (channels only move forward, and a tensor cached at a
 *              device arrives no earlier than the merged estimate that
 *              counted it), so a stale key is a lower bound and is
 *              revalidated when it reaches the top.  Ops infeasible for
 *              memory are set aside during a query and put back.
 *              O((V·D + stale) log R) with ample memory.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/list_sched.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/checked.h"
#include "core/err.h"
#include "core/strbuf.h"
#include "core/units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hent {
    int64_t k1;
    int32_t k2;
    int32_t v;
};

struct heap {
    struct hent *a;
    size_t n, cap;
};

static bool hless(const struct hent *x, const struct hent *y)
{
    return x->k1 < y->k1 || (x->k1 == y->k1 && x->k2 < y->k2);
}

static int heap_push(struct heap *h, struct hent e)
{
    size_t i;

    if (ARRAY_RESERVE(h->a, h->cap, h->n + 1) != 0) {
        return BAECHI_ENOMEM;
    }
    i = h->n++;
    while (i > 0) {
        size_t par = (i - 1) / 2;
        if (!hless(&e, &h->a[par])) {
            break;
        }
        h->a[i] = h->a[par];
        i = par;
    }
    h->a[i] = e;
    return 0;
}

static void heap_pop(struct heap *h)
{
    struct hent e = h->a[--h->n];
    size_t i = 0;

    for (;;) {
        size_t l = 2 * i + 1, m = i;
        const struct hent *best = &e;
        if (l < h->n && hless(&h->a[l], best)) {
            m = l;
            best = &h->a[l];
        }
        if (l + 1 < h->n && hless(&h->a[l + 1], best)) {
            m = l + 1;
        }
        if (m == i) {
            break;
        }
        h->a[i] = h->a[m];
        i = m;
    }
    if (h->n > 0) {
        h->a[i] = e;
    }
}

struct fast {
    struct ls_state *s;
    struct heap *now, *wait; /* per device */
    struct heap aside;
};

static bool feasible(const struct ls_state *s, int32_t v, int32_t d)
{
    if (s->dev[v] >= 0) {
        return s->dev[v] == d && ls_placeable(s, v, d);
    }
    return ls_group_fits(s, s->p->group[v], d) && ls_placeable(s, v, d);
}

static bool gone(const struct ls_state *s, int32_t v, int32_t d)
{
    return s->done[v] || (s->dev[v] >= 0 && s->dev[v] != d);
}

static int put_back(struct fast *f, struct heap *h)
{
    for (size_t i = 0; i < f->aside.n; i++) {
        if (heap_push(h, f->aside.a[i]) != 0) {
            return BAECHI_ENOMEM;
        }
    }
    f->aside.n = 0;
    return 0;
}

/* The min-topo op that can start at t on free device d, or -1. */
static int fast_pick(struct fast *f, int32_t d, int64_t t, int32_t *out)
{
    struct ls_state *s = f->s;
    struct heap *w = &f->wait[d], *nw = &f->now[d];
    int32_t found = -1;

    while (w->n > 0 && w->a[0].k1 <= t) {
        struct hent e = w->a[0];
        heap_pop(w);
        if (gone(s, e.v, d)) {
            continue;
        }
        if (!ls_rt_valid(s, e.v, d)) {
            e.k1 = ls_ready_time(s, e.v, d);
            if (e.k1 > t) {
                if (heap_push(w, e) != 0) {
                    return BAECHI_ENOMEM;
                }
                continue;
            }
        }
        if (heap_push(nw, (struct hent){s->p->topo[e.v], 0, e.v}) != 0) {
            return BAECHI_ENOMEM;
        }
    }
    while (nw->n > 0) {
        struct hent e = nw->a[0];
        int32_t v = e.v;
        if (gone(s, v, d)) {
            heap_pop(nw);
            continue;
        }
        if (!ls_rt_valid(s, v, d)) {
            int64_t rt = ls_ready_time(s, v, d);
            if (rt > t) {
                heap_pop(nw);
                if (heap_push(w, (struct hent){rt, s->p->topo[v], v}) != 0) {
                    return BAECHI_ENOMEM;
                }
                continue;
            }
        }
        if (feasible(s, v, d)) {
            found = v;
            break;
        }
        heap_pop(nw);
        if (heap_push(&f->aside, e) != 0) {
            return BAECHI_ENOMEM;
        }
    }
    *out = found;
    return put_back(f, nw);
}

/* next_ts of a free device: the smallest input-ready time of a feasible op. */
static int fast_next(struct fast *f, int32_t d, int64_t *out)
{
    struct ls_state *s = f->s;
    struct heap *w = &f->wait[d];
    int64_t best = LS_NONE;

    while (w->n > 0) {
        struct hent e = w->a[0];
        if (gone(s, e.v, d)) {
            heap_pop(w);
            continue;
        }
        if (!ls_rt_valid(s, e.v, d)) {
            heap_pop(w);
            e.k1 = ls_ready_time(s, e.v, d);
            if (heap_push(w, e) != 0) {
                return BAECHI_ENOMEM;
            }
            continue;
        }
        if (feasible(s, e.v, d)) {
            best = e.k1;
            break;
        }
        heap_pop(w);
        if (heap_push(&f->aside, e) != 0) {
            return BAECHI_ENOMEM;
        }
    }
    *out = best;
    return put_back(f, w);
}

static int run_fast(struct ls_state *s, int64_t *estimate_us)
{
    struct fast f = {0};
    int64_t t = 0;
    int rc = 0;

    f.s = s;
    f.now = mem_calloc((size_t)s->D, sizeof(struct heap));
    f.wait = mem_calloc((size_t)s->D, sizeof(struct heap));
    if (!f.now || !f.wait) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    for (;;) {
        int64_t tn = LS_NONE;
        ls_advance(s, t);
        for (int32_t i = 0; i < s->n_fresh; i++) {
            int32_t v = s->fresh[i];
            for (int32_t d = 0; d < s->D; d++) {
                if (s->dev[v] >= 0 && s->dev[v] != d) {
                    continue;
                }
                CHECK(
                    heap_push(&f.wait[d], (struct hent){ls_ready_time(s, v, d), s->p->topo[v], v}));
            }
        }
        s->n_fresh = 0;
        for (;;) {
            int32_t bv = -1, bd = -1;
            for (int32_t d = 0; d < s->D; d++) {
                int32_t v;
                if (s->free_at[d] > t) {
                    continue;
                }
                CHECK(fast_pick(&f, d, t, &v));
                if (v >= 0 && (bv < 0 || s->p->topo[v] < s->p->topo[bv])) {
                    bv = v;
                    bd = d;
                }
            }
            if (bv < 0) {
                break;
            }
            CHECK(ls_commit(s, bv, bd));
        }
        for (int32_t d = 0; d < s->D; d++) {
            int64_t x;
            if (s->free_at[d] > t) {
                x = s->free_at[d];
            } else {
                CHECK(fast_next(&f, d, &x));
            }
            if (x != LS_NONE && (tn == LS_NONE || x < tn)) {
                tn = x;
            }
        }
        if (tn == LS_NONE) {
            break;
        }
        if (tn <= t) {
            BUG("m-etf: next event %lld µs not after %lld µs", (long long)tn, (long long)t);
        }
        t = tn;
    }
    if (s->n_scheduled != s->p->n) {
        rc = ls_deadlock(s);
        goto cleanup;
    }
    *estimate_us = t;
cleanup:
    /* either array may be missing when the other's allocation failed */
    for (int32_t d = 0; d < s->D; d++) {
        if (f.now) {
            free(f.now[d].a);
        }
        if (f.wait) {
            free(f.wait[d].a);
        }
    }
    free(f.now);
    free(f.wait);
    free(f.aside.a);
    return rc;
}

/*
 * "; largest there: 'a' 1.50 GiB, 'b' ..." -- the three nodes holding the
 * most of device d in the placer's accounting (ls_held_bytes); "" if none.
 */
static int largest_holders(const struct palgo_ctx *x, const struct ls_state *s, int32_t d,
                           struct strbuf *out)
{
    int32_t top[3] = {-1, -1, -1};
    int64_t held[3] = {0, 0, 0};
    int rc;

    for (int32_t v = 0; v < s->p->n; v++) {
        int64_t b = ls_held_bytes(s, v, d);

        for (int k = 0; k < 3 && b > 0; k++) {
            if (b > held[k]) { /* insert, shifting the smaller ones down */
                for (int j = 2; j > k; j--) {
                    held[j] = held[j - 1];
                    top[j] = top[j - 1];
                }
                held[k] = b;
                top[k] = v;
                break;
            }
        }
    }
    if (top[0] < 0) {
        return 0;
    }
    rc = strbuf_addstr(out, "; largest there:");
    for (int k = 0; k < 3 && top[k] >= 0 && rc == 0; k++) {
        char b[32]; /* a byte count with its unit */

        units_fmt_bytes(held[k], b, sizeof(b));
        rc = strbuf_addf(out, "%s '%s' %s", k ? "," : "", x->name(x->name_arg, top[k]), b);
    }
    return rc;
}

/* Turns s->fail into a message with op names and bytes. */
static int report_fail(const struct palgo_ctx *x, const struct ls_state *s, const char *algo)
{
    const struct ls_fail *fl = &s->fail;

    if (fl->device >= 0) {
        /* a device over its limit (the faithful accounting allows it) has
         * nothing free, not a negative amount */
        int64_t avail = fl->avail_bytes < 0 ? 0 : fl->avail_bytes;

        struct strbuf holders = STRBUF_INIT; /* whole (a char[512] cut long op names) */
        char need[32], have[32], miss[32];
        int rc;

        if ((rc = largest_holders(x, s, fl->device, &holders))) {
            strbuf_release(&holders);
            return rc;
        }
        /* with units (issue 33 item 4: "needs 793453312 bytes") */
        units_fmt_bytes(fl->need_bytes, need, sizeof(need));
        units_fmt_bytes(avail, have, sizeof(have));
        units_fmt_bytes(sat_add_i64(fl->need_bytes, -avail), miss, sizeof(miss));
        rc = err_set(BAECHI_EINFEASIBLE,
                     "%s: %s: %d of %d ops not scheduled; '%s' needs %s, device %d has %s free "
                     "(missing %s)%s",
                     algo, fl->what, (int)fl->n_left, (int)s->p->n, x->name(x->name_arg, fl->node),
                     need, (int)fl->device, have, miss, holders.buf);
        strbuf_release(&holders);
        return rc;
    }
    return err_set(BAECHI_EINFEASIBLE, "%s: %s: %d of %d ops not scheduled, first '%s'", algo,
                   fl->what, (int)fl->n_left, (int)s->p->n,
                   fl->node >= 0 ? x->name(x->name_arg, fl->node) : "?");
}

int ls_finish(const struct palgo_ctx *x, struct ls_state *s, int rc, const char *algo,
              int32_t *device_of, struct placer_stats *st)
{
    if (rc == BAECHI_EINFEASIBLE) {
        return report_fail(x, s, algo);
    }
    if (rc != 0) {
        return rc;
    }
    memcpy(device_of, s->dev, (size_t)s->p->n * sizeof(int32_t));
    free(st->peak_bytes);
    st->peak_bytes = mem_alloc_array((size_t)s->D, sizeof(int64_t));
    if (!st->peak_bytes) {
        return BAECHI_ENOMEM;
    }
    memcpy(st->peak_bytes, s->peak, (size_t)s->D * sizeof(int64_t));
    return 0;
}

int m_etf_place(const struct palgo_ctx *x, bool reserve, int32_t *device_of,
                struct placer_stats *st)
{
    struct ls_state s;
    int64_t est = -1;
    int rc;

    if ((rc = ls_init(&s, x->p, x->n_dev, x->limit, reserve, x->opt->persistent_at_place)) != 0) {
        return rc;
    }
    if (x->opt->impl == PLACER_IMPL_REFERENCE) {
        rc = ls_run_reference(&s, NULL, &est);
    } else {
        rc = run_fast(&s, &est);
    }
    rc = ls_finish(x, &s, rc, reserve ? "m-etf-reserve" : "m-etf", device_of, st);
    if (rc == 0) {
        st->estimate_us = est;
    }
    ls_release(&s);
    return rc;
}
