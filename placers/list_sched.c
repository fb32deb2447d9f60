/*
 * list_sched.c - the shared list-scheduling machinery of m-ETF and m-SCT
 * (baechi-spec §3.1-§3.7, §4.3) and the original's event loop.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/list_sched.h"

#include "core/alloc.h"
#include "core/err.h"

#include <stdlib.h>
#include <string.h>

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

int ls_init(struct ls_state *s, const struct pgraph *p, int32_t n_dev, const int64_t *limit,
            bool reserve, bool persist_at_place)
{
    size_t n = (size_t)p->n, D = (size_t)n_dev, G = (size_t)p->n_groups;

    memset(s, 0, sizeof(*s));
    if (n_dev < 1 || n_dev > 64) {
        return err_set(BAECHI_EINVAL, "m-etf/m-sct support 1 to 64 devices, not %d", (int)n_dev);
    }
    s->p = p;
    s->D = n_dev;
    s->limit = limit;
    s->reserve = reserve;
    s->persist_at_place = persist_at_place;
    s->free_at = mem_calloc(D, sizeof(int64_t));
    s->chan = mem_calloc(D, sizeof(int64_t));
    s->cur = mem_calloc(D, sizeof(int64_t));
    s->used = mem_calloc(D, sizeof(int64_t));
    s->peak = mem_calloc(D, sizeof(int64_t));
    s->last_op = mem_alloc_array(D, sizeof(int32_t));
    s->state = mem_calloc(D, 1);
    s->dev_changed = mem_calloc(D, sizeof(int64_t));
    s->dev = mem_alloc_array(n + 1, sizeof(int32_t));
    s->ready_count = mem_calloc(n + 1, sizeof(int32_t));
    s->exec_out = mem_calloc(n + 1, sizeof(int32_t));
    s->start = mem_calloc(n + 1, sizeof(int64_t));
    s->end = mem_calloc(n + 1, sizeof(int64_t));
    s->ready_ts = mem_calloc(n + 1, sizeof(int64_t));
    s->done = mem_calloc(n + 1, 1);
    s->ready = mem_alloc_array(n + 1, sizeof(int32_t));
    s->ready_pos = mem_alloc_array(n + 1, sizeof(int32_t));
    s->fresh = mem_alloc_array(n + 1, sizeof(int32_t));
    s->cache = mem_alloc_array(D * ((size_t)p->n_tensors + 1), sizeof(int64_t));
    s->rt = mem_alloc_array(n * D + 1, sizeof(int64_t));
    s->rt_stamp = mem_alloc_array(n * D + 1, sizeof(int64_t));
    s->rt_mask = mem_calloc(n * D + 1, sizeof(uint64_t));
    s->gdev = mem_alloc_array(G + 1, sizeof(int32_t));
    s->resv_avail = mem_calloc(G + 1, sizeof(int64_t));
    s->resv_limit = mem_calloc(G + 1, sizeof(int64_t));
    s->resv_active = mem_calloc(G + 1, 1);
    s->refcount = mem_calloc(G + 1, sizeof(int32_t));
    if (!s->free_at || !s->chan || !s->cur || !s->used || !s->peak || !s->last_op || !s->state ||
        !s->dev_changed || !s->dev || !s->ready_count || !s->exec_out || !s->start || !s->end ||
        !s->ready_ts || !s->done || !s->ready || !s->ready_pos || !s->fresh || !s->cache ||
        !s->rt || !s->rt_stamp || !s->rt_mask || !s->gdev || !s->resv_avail || !s->resv_limit ||
        !s->resv_active || !s->refcount) {
        ls_release(s);
        return BAECHI_ENOMEM;
    }
    for (size_t d = 0; d < D; d++) {
        s->last_op[d] = -1;
    }
    for (size_t i = 0; i < D * (size_t)p->n_tensors; i++) {
        s->cache[i] = -1;
    }
    for (size_t i = 0; i < n * D; i++) {
        s->rt_stamp[i] = -1;
    }
    for (size_t v = 0; v < n; v++) {
        s->dev[v] = -1;
        s->ready_pos[v] = -1;
    }
    for (size_t g = 0; g < G; g++) {
        s->gdev[g] = -1;
    }
    s->stamp = 1;
    /* the initial ready list: in-degree-0 ops in node order */
    for (int32_t v = 0; v < p->n; v++) {
        if (p->in_start[v + 1] == p->in_start[v]) {
            s->ready_pos[v] = s->n_ready;
            s->ready[s->n_ready++] = v;
            s->fresh[s->n_fresh++] = v;
        }
    }
    return 0;
}

void ls_release(struct ls_state *s)
{
    free(s->free_at);
    free(s->chan);
    free(s->cur);
    free(s->used);
    free(s->peak);
    free(s->last_op);
    free(s->state);
    free(s->dev_changed);
    free(s->dev);
    free(s->ready_count);
    free(s->exec_out);
    free(s->start);
    free(s->end);
    free(s->ready_ts);
    free(s->done);
    free(s->ready);
    free(s->ready_pos);
    free(s->fresh);
    free(s->cache);
    free(s->rt);
    free(s->rt_stamp);
    free(s->rt_mask);
    free(s->gdev);
    free(s->resv_avail);
    free(s->resv_limit);
    free(s->resv_active);
    free(s->refcount);
    memset(s, 0, sizeof(*s));
}

/* ---------------------------------------------------------------- ready times */

bool ls_rt_valid(const struct ls_state *s, int32_t v, int32_t d)
{
    size_t k = (size_t)v * (size_t)s->D + (size_t)d;
    int64_t st = s->rt_stamp[k];
    uint64_t m;

    if (st < 0) {
        return false;
    }
    for (m = s->rt_mask[k]; m; m &= m - 1) {
        if (s->dev_changed[__builtin_ctzll(m)] > st) {
            return false;
        }
    }
    return true;
}

/*
 * ready_time(v, d, dry) of §3.4: when all of v's inputs can be on device d.
 * Dry (commit false): each in-edge's missing tensors as one transfer
 * against the unchanged channels, nothing written.  Not dry: the tensors
 * one by one, channels and d's cache updated.  *mask: the devices whose
 * channels the transfers use (those of a dry estimate depend on, or a
 * commit changed).
 */
static int64_t ready_time(struct ls_state *s, int32_t v, int32_t d, bool commit, uint64_t *mask)
{
    const struct pgraph *p = s->p;
    int64_t *cache_d = s->cache + (size_t)d * (size_t)p->n_tensors;
    int64_t r = 0;
    uint64_t msk = 0;

    for (int32_t i = p->in_start[v]; i < p->in_start[v + 1]; i++) {
        int32_t e = p->in_edge[i];
        int32_t u = p->src[e];
        int32_t src = s->dev[u];
        int64_t t, w = 0;
        bool any = false;

        if (src == d) {
            r = max64(r, s->end[u]);
            continue;
        }
        t = -1;
        for (int32_t j = p->et_start[e]; j < p->et_start[e + 1]; j++) {
            int32_t x = p->et_tensor[j];
            if (cache_d[x] >= 0) {
                t = max64(t, cache_d[x]);
            } else if (!commit) {
                w += p->tcomm[x];
                any = true;
            } else {
                int64_t st = max64(s->end[u], s->chan[src]);
                int64_t rs;
                s->chan[src] = st + p->tcomm[x];
                rs = max64(st, s->chan[d]);
                s->chan[d] = rs + p->tcomm[x];
                cache_d[x] = rs + p->tcomm[x];
                t = max64(t, rs + p->tcomm[x]);
                any = true;
            }
        }
        if (any && !commit) {
            int64_t st = max64(s->end[u], s->chan[src]);
            int64_t rs = max64(st, s->chan[d]);
            t = max64(t, rs + w);
        }
        if (any) {
            msk |= ((uint64_t)1 << src) | ((uint64_t)1 << d);
        }
        r = max64(r, t);
    }
    *mask = msk;
    return r;
}

int64_t ls_ready_time(struct ls_state *s, int32_t v, int32_t d)
{
    size_t k = (size_t)v * (size_t)s->D + (size_t)d;

    if (!ls_rt_valid(s, v, d)) {
        s->rt[k] = ready_time(s, v, d, false, &s->rt_mask[k]);
        s->rt_stamp[k] = s->stamp;
    }
    return s->rt[k];
}

/* ---------------------------------------------------------------- memory */

bool ls_placeable(const struct ls_state *s, int32_t v, int32_t d)
{
    const struct pgraph *p = s->p;
    int64_t avail = s->limit[d] - s->used[d];
    int32_t g = p->group[v];

    if (s->reserve && s->resv_active[g] && s->gdev[g] == d) {
        avail += s->resv_avail[g];
    }
    return p->temp[v] + p->out[v] <= avail;
}

int64_t ls_group_need(const struct ls_state *s, int32_t g)
{
    const struct pgraph *p = s->p;

    if (s->reserve) {
        return p->g_temp_max[g] + p->g_persist_sum[g] + p->g_out_max[g];
    }
    return p->g_persist_sum[g];
}

bool ls_group_fits(const struct ls_state *s, int32_t g, int32_t d)
{
    return ls_group_need(s, g) <= s->limit[d] - s->used[d];
}

static int fail_mem(struct ls_state *s, const char *what, int32_t v, int32_t d, int64_t need,
                    int64_t avail)
{
    s->fail.what = what;
    s->fail.node = v;
    s->fail.device = d;
    s->fail.need_bytes = need;
    s->fail.avail_bytes = avail;
    s->fail.n_left = s->p->n - s->n_scheduled;
    return BAECHI_EINFEASIBLE;
}

static int raw_alloc(struct ls_state *s, int32_t d, int64_t bytes, int32_t v)
{
    if (s->limit[d] - s->used[d] < bytes) {
        return fail_mem(s, "allocation over the device limit", v, d, bytes,
                        s->limit[d] - s->used[d]);
    }
    s->used[d] += bytes;
    if (s->used[d] > s->peak[d]) {
        s->peak[d] = s->used[d];
    }
    return 0;
}

static void raw_free(struct ls_state *s, int32_t d, int64_t bytes)
{
    /* quirk §3.7.2 kept: a negative free is an allocation without a peak update */
    s->used[d] -= bytes;
}

/* DeviceWrapper allocation, group-aware in reserve mode (§3.6). */
static int dev_take_bytes(struct ls_state *s, int32_t d, int64_t bytes, int32_t v)
{
    int32_t g = s->p->group[v];

    if (bytes == 0) {
        return 0;
    }
    if (s->reserve && s->resv_active[g] && s->gdev[g] == d) {
        int64_t shortfall;
        if (s->resv_avail[g] >= bytes) {
            s->resv_avail[g] -= bytes;
            return 0;
        }
        shortfall = bytes - s->resv_avail[g];
        s->resv_avail[g] = 0;
        return raw_alloc(s, d, shortfall, v);
    }
    return raw_alloc(s, d, bytes, v);
}

static void dev_give_bytes(struct ls_state *s, int32_t d, int64_t bytes, int32_t v)
{
    int32_t g = s->p->group[v];

    if (bytes == 0) {
        return;
    }
    if (s->reserve && s->resv_active[g] && s->gdev[g] == d) {
        int64_t a = s->resv_avail[g] + bytes; /* quirk §3.7.2: may go below 0 */
        if (a > s->resv_limit[g]) {
            raw_free(s, d, a - s->resv_limit[g]);
            a = s->resv_limit[g];
        }
        s->resv_avail[g] = a;
        return;
    }
    raw_free(s, d, bytes);
}

/* ---------------------------------------------------------------- the loop */

static void ready_add(struct ls_state *s, int32_t v)
{
    s->ready_pos[v] = s->n_ready;
    s->ready[s->n_ready++] = v;
    s->fresh[s->n_fresh++] = v;
    for (int32_t d = 0; d < s->D; d++) {
        s->rt_stamp[(size_t)v * (size_t)s->D + (size_t)d] = -1;
    }
}

static void ready_remove(struct ls_state *s, int32_t v)
{
    int32_t i = s->ready_pos[v];
    int32_t last = s->ready[--s->n_ready];

    s->ready[i] = last;
    s->ready_pos[last] = i;
    s->ready_pos[v] = -1;
}

void ls_advance(struct ls_state *s, int64_t t)
{
    const struct pgraph *p = s->p;

    for (int32_t d = 0; d < s->D; d++) {
        s->cur[d] = t;
        if (t == s->free_at[d] && s->last_op[d] >= 0) {
            int32_t u = s->last_op[d];
            for (int32_t e = p->out_start[u]; e < p->out_start[u + 1]; e++) {
                int32_t w = p->dst[e];
                if (++s->ready_count[w] == p->in_start[w + 1] - p->in_start[w]) {
                    ready_add(s, w);
                }
            }
        }
        if (s->free_at[d] < t) {
            s->free_at[d] = t;
        }
    }
}

int ls_commit(struct ls_state *s, int32_t v, int32_t d)
{
    const struct pgraph *p = s->p;
    uint64_t changed = 0;
    int64_t r;
    int32_t g = p->group[v];
    int rc;

    r = ready_time(s, v, d, true, &changed);
    s->stamp++;
    for (uint64_t m = changed; m; m &= m - 1) {
        s->dev_changed[__builtin_ctzll(m)] = s->stamp;
    }
    s->ready_ts[v] = r;

    if (s->dev[v] < 0) {
        if (s->reserve) {
            int64_t need = ls_group_need(s, g);
            if ((rc = raw_alloc(s, d, need, v)) != 0) {
                return rc;
            }
            s->resv_active[g] = 1;
            s->resv_avail[g] = s->resv_limit[g] = need;
            s->refcount[g] = p->group_start[g + 1] - p->group_start[g];
        }
        s->gdev[g] = d;
        for (int32_t i = p->group_start[g]; i < p->group_start[g + 1]; i++) {
            int32_t w = p->group_node[i];
            /* quirk §3.7.1 kept: the original asserts every member fits now */
            if (!ls_placeable(s, w, d)) {
                int64_t avail = s->limit[d] - s->used[d] +
                                (s->reserve && s->resv_active[g] ? s->resv_avail[g] : 0);
                return fail_mem(s, "a colocated op does not fit when its group is placed", w, d,
                                p->temp[w] + p->out[w], avail);
            }
            s->dev[w] = d;
            if (s->persist_at_place && (rc = dev_take_bytes(s, d, p->persist[w], w)) != 0) {
                return rc;
            }
        }
    }
    if (s->dev[v] != d) {
        BUG("commit of op %d on device %d but it is placed on %d", (int)v, (int)d, (int)s->dev[v]);
    }
    if ((rc = dev_take_bytes(s, d, p->out[v], v)) != 0 ||
        (rc = dev_take_bytes(s, d, p->temp[v], v)) != 0) {
        return rc;
    }
    s->start[v] = max64(s->free_at[d], r);
    s->end[v] = s->start[v] + p->weight[v];
    s->free_at[d] = s->end[v];
    dev_give_bytes(s, d, p->temp[v], v);
    s->last_op[d] = v;
    for (int32_t i = p->in_start[v]; i < p->in_start[v + 1]; i++) {
        int32_t u = p->src[p->in_edge[i]];
        if (++s->exec_out[u] == p->out_start[u + 1] - p->out_start[u]) {
            int64_t bytes = s->persist_at_place ? p->out[u] : p->out[u] - p->persist[u];
            dev_give_bytes(s, s->dev[u], bytes, u);
        }
    }
    ready_remove(s, v);
    s->done[v] = 1;
    s->n_scheduled++;
    if (s->reserve && --s->refcount[g] == 0) {
        s->resv_active[g] = 0;
        raw_free(s, d, s->resv_avail[g]);
        s->resv_avail[g] = 0;
    }
    return 0;
}

int64_t ls_held_bytes(const struct ls_state *s, int32_t v, int32_t d)
{
    const struct pgraph *p = s->p;
    bool live;

    if (s->dev[v] != d) {
        return 0;
    }
    live = s->done[v] && s->exec_out[v] < p->out_start[v + 1] - p->out_start[v];
    if (s->persist_at_place) {
        return p->persist[v] + (live ? p->out[v] : 0);
    }
    if (!s->done[v]) {
        return 0;
    }
    return live ? p->out[v] : p->persist[v];
}

int ls_deadlock(struct ls_state *s)
{
    const struct pgraph *p = s->p;
    int32_t best_v = -1, best_d = -1;
    int64_t best_need = 0, best_avail = 0, best_short = INT64_MAX;

    /* the ready op closest to fitting somewhere: what is missing, and where */
    for (int32_t i = 0; i < s->n_ready; i++) {
        int32_t v = s->ready[i];
        for (int32_t d = 0; d < s->D; d++) {
            int64_t avail = s->limit[d] - s->used[d];
            int64_t need = p->temp[v] + p->out[v];
            int32_t g = p->group[v];
            if (s->dev[v] >= 0 && s->dev[v] != d) {
                continue;
            }
            if (s->dev[v] < 0 && ls_group_need(s, g) - avail > need - avail) {
                need = ls_group_need(s, g);
            }
            if (s->reserve && s->resv_active[g] && s->gdev[g] == d) {
                avail += s->resv_avail[g];
            }
            if (need - avail < best_short ||
                (need - avail == best_short && p->topo[v] < p->topo[best_v])) {
                best_short = need - avail;
                best_v = v;
                best_d = d;
                best_need = need;
                best_avail = avail;
            }
        }
    }
    if (best_v < 0) {
        for (int32_t v = 0; v < p->n; v++) {
            if (!s->done[v]) {
                best_v = v;
                break;
            }
        }
    }
    return fail_mem(s, "memory deadlock", best_v, best_d, best_need, best_avail);
}

/* ---------------------------------------------------------------- reference loop */

struct ref_ctx {
    int64_t *sched;  /* n * D, LS_NONE */
    int64_t *urgent; /* n */
    const int32_t *fav;
    int32_t *awake_f, *awake_u; /* per device, for next_ts in AWAKE state */
};

static void populate(struct ls_state *s, struct ref_ctx *c)
{
    const struct pgraph *p = s->p;
    int32_t D = s->D;

    for (int32_t i = 0; i < s->n_ready; i++) {
        int32_t v = s->ready[i];
        int64_t *sv = c->sched + (size_t)v * (size_t)D;
        int64_t urg = LS_NONE;
        for (int32_t d = 0; d < D; d++) {
            int64_t x = LS_NONE;
            if ((s->dev[v] < 0 || s->dev[v] == d) && ls_placeable(s, v, d)) {
                x = max64(ls_ready_time(s, v, d), s->free_at[d]);
            }
            sv[d] = x;
            if (x != LS_NONE && x > urg) {
                urg = x;
            }
        }
        c->urgent[v] = urg == LS_NONE ? LS_INF : urg;
        if (s->dev[v] < 0) {
            for (int32_t d = 0; d < D; d++) {
                if (sv[d] != LS_NONE && !ls_group_fits(s, p->group[v], d)) {
                    sv[d] = LS_NONE;
                }
            }
        }
    }
}

/* argmin over ready ops with sched(v, d) != NONE of (sched, topo) */
static int32_t etf_argmin(struct ls_state *s, struct ref_ctx *c, int32_t d)
{
    const struct pgraph *p = s->p;
    int32_t best = -1;
    int64_t bk = 0;

    for (int32_t i = 0; i < s->n_ready; i++) {
        int32_t v = s->ready[i];
        int64_t x = c->sched[(size_t)v * (size_t)s->D + (size_t)d];
        if (x == LS_NONE) {
            continue;
        }
        if (best < 0 || x < bk || (x == bk && p->topo[v] < p->topo[best])) {
            best = v;
            bk = x;
        }
    }
    return best;
}

static int32_t pick_etf(struct ls_state *s, struct ref_ctx *c, int32_t d)
{
    int32_t v;

    if (s->cur[d] < s->free_at[d]) {
        s->state[d] = LS_BUSY;
        return -1;
    }
    s->state[d] = LS_FREE;
    v = etf_argmin(s, c, d);
    if (v >= 0 && c->sched[(size_t)v * (size_t)s->D + (size_t)d] <= s->cur[d]) {
        return v;
    }
    return -1;
}

static int32_t pick_sct(struct ls_state *s, struct ref_ctx *c, int32_t d)
{
    const struct pgraph *p = s->p;
    int32_t D = s->D;
    int32_t l = s->last_op[d];
    int32_t f = l >= 0 ? c->fav[l] : -1;

    if (s->cur[d] < s->free_at[d]) {
        s->state[d] = LS_BUSY;
        return -1;
    }
    s->state[d] = LS_FREE;
    if (f >= 0 && s->dev[f] < 0 && s->ready_pos[f] >= 0) {
        const int64_t *sf = c->sched + (size_t)f * (size_t)D;
        int64_t mn = LS_NONE;
        for (int32_t k = 0; k < D; k++) {
            if (sf[k] != LS_NONE && (mn == LS_NONE || sf[k] < mn)) {
                mn = sf[k];
            }
        }
        if (sf[d] != LS_NONE && sf[d] == mn) {
            int32_t u = -1;
            s->state[d] = LS_AWAKE;
            c->awake_f[d] = f;
            for (int32_t i = 0; i < s->n_ready; i++) {
                int32_t v = s->ready[i];
                if (s->dev[v] >= 0 && s->dev[v] != d) {
                    continue;
                }
                if (!ls_placeable(s, v, d)) {
                    continue;
                }
                /* deviation (§4.4): the original also accepts an urgent op whose
                 * schedule time on d was removed by the colocation filter, which
                 * makes its candidate key None (a TypeError, or the group placed
                 * without its memory check); we require sched(v, d) != NONE */
                if (c->sched[(size_t)v * (size_t)D + (size_t)d] == LS_NONE) {
                    continue;
                }
                if (u < 0 || c->urgent[v] < c->urgent[u] ||
                    (c->urgent[v] == c->urgent[u] && p->topo[v] < p->topo[u])) {
                    u = v;
                }
            }
            c->awake_u[d] = u;
            if (u >= 0 && c->urgent[u] <= s->cur[d]) {
                return u;
            }
            if (sf[d] <= s->cur[d]) {
                return f;
            }
            return -1;
        }
    }
    return pick_etf(s, c, d);
}

static int64_t next_ts(struct ls_state *s, struct ref_ctx *c, int32_t d)
{
    if (s->state[d] == LS_BUSY) {
        return s->free_at[d];
    }
    if (s->state[d] == LS_AWAKE) {
        int32_t f = c->awake_f[d], u = c->awake_u[d];
        int64_t a = LS_NONE, b = LS_NONE;
        if (s->dev[f] < 0 && c->sched[(size_t)f * (size_t)s->D + (size_t)d] != LS_NONE) {
            a = c->sched[(size_t)f * (size_t)s->D + (size_t)d];
        }
        if (u >= 0) {
            b = c->urgent[u];
        }
        if (a == LS_NONE) {
            return b;
        }
        if (b == LS_NONE) {
            return a;
        }
        return a < b ? a : b;
    } else {
        int32_t v = etf_argmin(s, c, d);
        return v >= 0 ? c->sched[(size_t)v * (size_t)s->D + (size_t)d] : LS_NONE;
    }
}

int ls_run_reference(struct ls_state *s, const int32_t *fav, int64_t *estimate_us)
{
    const struct pgraph *p = s->p;
    struct ref_ctx c = {0};
    int64_t t = 0;
    int rc = 0;

    c.fav = fav;
    c.sched = mem_alloc_array((size_t)p->n * (size_t)s->D + 1, sizeof(int64_t));
    c.urgent = mem_alloc_array((size_t)p->n + 1, sizeof(int64_t));
    c.awake_f = mem_alloc_array((size_t)s->D, sizeof(int32_t));
    c.awake_u = mem_alloc_array((size_t)s->D, sizeof(int32_t));
    if (!c.sched || !c.urgent || !c.awake_f || !c.awake_u) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    for (;;) {
        int64_t tn = LS_NONE;
        s->n_fresh = 0;
        ls_advance(s, t);
        for (;;) {
            int32_t bv = -1, bd = -1;
            int64_t bk = 0;
            populate(s, &c);
            for (int32_t d = 0; d < s->D; d++) {
                int32_t v = fav ? pick_sct(s, &c, d) : pick_etf(s, &c, d);
                int64_t k;
                if (v < 0) {
                    continue;
                }
                k = c.sched[(size_t)v * (size_t)s->D + (size_t)d];
                if (bv < 0 || k < bk || (k == bk && p->topo[v] < p->topo[bv])) {
                    bv = v;
                    bd = d;
                    bk = k;
                }
            }
            if (bv < 0) {
                break;
            }
            CHECK(ls_commit(s, bv, bd));
        }
        for (int32_t d = 0; d < s->D; d++) {
            int64_t x = next_ts(s, &c, d);
            if (x != LS_NONE && (tn == LS_NONE || x < tn)) {
                tn = x;
            }
        }
        if (tn == LS_NONE) {
            break;
        }
        if (tn <= t) {
            rc = err_set(BAECHI_EINVAL,
                         "list scheduling: timestamp should move forward (%lld <= "
                         "%lld µs)",
                         (long long)tn, (long long)t);
            goto cleanup;
        }
        t = tn;
    }
    if (s->n_scheduled != p->n) {
        rc = ls_deadlock(s);
        goto cleanup;
    }
    *estimate_us = t;
cleanup:
    free(c.sched);
    free(c.urgent);
    free(c.awake_f);
    free(c.awake_u);
    return rc;
}
