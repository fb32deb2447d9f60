/*
 * exact_sched.c - the exact optimum over every schedule of a small placed
 * graph (exact_sched.h): depth-first branch and bound over event times.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "tests/unit/exact_sched.h"

#include "core/err.h"

#include <string.h>

/* Resources: compute engines 0..3, channels from RES_CHAN (sim_timed.c's
 * layout: shared chan[d], duplex send[d] / recv[d], link[src][dst]). */
#define RES_CHAN 4
#define MAX_RES  (RES_CHAN + EXACT_MAX_DEVICES * EXACT_MAX_DEVICES)

/* An op or a transfer of more than 0 µs. */
struct act {
    int64_t dur_us;
    int64_t alloc_bytes; /* taken on mem_dev at its start */
    int64_t temp_bytes;  /* an op's, freed at its end */
    int64_t tail_us;     /* the longest chain of durations after its end */
    int64_t hint_us;     /* its start in the hint (branch order) */
    uint64_t pred;       /* activities that end before it starts */
    uint64_t zx;         /* an op's 0-µs transfers (records) it reads */
    uint64_t in_x;       /* an op's received tensors (records) it reads */
    uint32_t in_prod;    /* an op's producers (ops), one per in-edge */
    uint32_t res;        /* resources held while it runs */
    int32_t mem_dev;
    int32_t op; /* -1 for a transfer */
};

/* What an op's memory depends on (op bit masks). */
struct opmask {
    uint32_t anc;  /* its ancestors */
    uint32_t dos;  /* itself and its descendants */
    uint32_t cons; /* its consumers */
    /* what its device surely holds at its start, whatever the order: its
     * ancestors there with a consumer at or after it (held_anc), its
     * persistent bytes, its own allocation, its received inputs */
    uint32_t held_anc;
    int64_t held_bytes;
};

/* One tensor sent to one device. */
struct xrec {
    int64_t bytes;
    int32_t tensor, dst;
    int32_t act;       /* its activity, -1 when it takes 0 µs */
    int32_t consumers; /* ops on dst that read it */
    uint32_t cons;     /* those ops */
};

struct ctx {
    const struct exact_options *o;
    int32_t na, nd, nx;
    struct act a[EXACT_MAX_ACTS];
    struct xrec x[EXACT_MAX_ACTS];
    int32_t act_of[EXACT_MAX_OPS];
    int32_t dev_of[EXACT_MAX_OPS];
    int64_t own_out[EXACT_MAX_OPS]; /* out - persistent, freed after the last consumer */
    int32_t out_deg[EXACT_MAX_OPS];
    struct opmask m[EXACT_MAX_OPS];
    int64_t persist[EXACT_MAX_DEVICES];
    uint32_t on_dev[EXACT_MAX_DEVICES]; /* ops */
    uint64_t x_to[EXACT_MAX_DEVICES];   /* records */
    int32_t n_ops;
    int64_t limit[EXACT_MAX_DEVICES];
    uint64_t all;
    int64_t below, best, nodes;
    bool stop;
    struct exact_result *out;
};

struct state {
    int64_t now;
    uint64_t started, done;
    uint64_t skipped; /* left while eligible, not yet excused (the dominance) */
    uint64_t zdone;   /* 0-µs records whose bytes are taken */
    uint32_t ops_started;
    int64_t end[EXACT_MAX_ACTS];
    int64_t busy[MAX_RES]; /* free after */
    int64_t used[EXACT_MAX_DEVICES];
    int32_t pend_out[EXACT_MAX_OPS];
    int32_t xpend[EXACT_MAX_ACTS];
};

static inline int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static uint32_t xfer_res(enum channel_model m, int32_t src, int32_t dst)
{
    switch (m) {
    case CHANNEL_DUPLEX:
        return (1u << (RES_CHAN + src)) | (1u << (RES_CHAN + EXACT_MAX_DEVICES + dst));
    case CHANNEL_LINK:
        return 1u << (RES_CHAN + src * EXACT_MAX_DEVICES + dst);
    case CHANNEL_SHARED:
    default:
        return (1u << (RES_CHAN + src)) | (1u << (RES_CHAN + dst));
    }
}

/* The record of tensor t sent to dst, made (with its activity, after the
 * producer's activity prod) when new. */
static int xrec_get(struct ctx *x, const struct cluster *c, int32_t t, int32_t src, int32_t dst,
                    int64_t bytes, int32_t prod, int32_t *id)
{
    int64_t dur;

    for (int32_t i = 0; i < x->nx; i++) {
        if (x->x[i].tensor == t && x->x[i].dst == dst) {
            *id = i;
            return 0;
        }
    }
    if (x->nx >= EXACT_MAX_ACTS) {
        return err_set(BAECHI_EINVAL, "exact_sched: more than %d transfers", EXACT_MAX_ACTS);
    }
    *id = x->nx++;
    x->x[*id] = (struct xrec){.bytes = bytes, .tensor = t, .dst = dst, .act = -1};
    dur = cluster_comm_us(c, src, dst, bytes);
    if (dur > 0) {
        struct act *a;

        if (x->na >= EXACT_MAX_ACTS) {
            return err_set(BAECHI_EINVAL, "exact_sched: more than %d activities", EXACT_MAX_ACTS);
        }
        a = &x->a[x->na];
        *a = (struct act){.dur_us = dur,
                          .alloc_bytes = x->o->received_bytes ? bytes : 0,
                          .pred = 1ull << prod,
                          .res = xfer_res(c->channel, src, dst),
                          .mem_dev = dst,
                          .op = -1};
        x->x[*id].act = x->na++;
    }
    return 0;
}

/* Op v's activity, its inputs (producers first: they are earlier in
 * topological order), then its transfers. */
static int add_op(struct ctx *x, const struct graph *g, const struct cluster *c, int32_t v)
{
    int32_t d = x->dev_of[v], ia = x->na;
    struct act *a;
    int rc;

    if (x->na >= EXACT_MAX_ACTS) {
        return err_set(BAECHI_EINVAL, "exact_sched: more than %d activities", EXACT_MAX_ACTS);
    }
    x->act_of[v] = x->na++;
    a = &x->a[ia];
    x->own_out[v] = max64(0, g->out_bytes[v] - g->persist_bytes[v]);
    x->out_deg[v] = graph_out_degree(g, v);
    *a = (struct act){.dur_us = cluster_compute_us(c, d, g->weight_us[v]),
                      .alloc_bytes = x->own_out[v] + g->temp_bytes[v],
                      .temp_bytes = g->temp_bytes[v],
                      .res = 1u << d,
                      .mem_dev = d,
                      .op = v};
    for (int32_t k = g->in_start[v]; k < g->in_start[v + 1]; k++) {
        int32_t e = g->in_edge[k], u = g->edge_src[e];

        a->in_prod |= 1u << u;
        if (x->dev_of[u] == d) {
            a->pred |= 1ull << x->act_of[u];
            continue;
        }
        for (int32_t sl = g->et_start[e]; sl < g->et_start[e + 1]; sl++) {
            int32_t t = g->et_tensor[sl], r = -1;

            for (int32_t i = 0; i < x->nx && r < 0; i++) {
                r = x->x[i].tensor == t && x->x[i].dst == d ? i : -1;
            }
            if (r < 0) {
                BUG("exact_sched: tensor %d to device %d has no record", t, d);
            }
            x->x[r].consumers++;
            x->x[r].cons |= 1u << v;
            a->in_x |= 1ull << r;
            if (x->x[r].act >= 0) {
                a->pred |= 1ull << x->x[r].act;
            } else {
                a->pred |= 1ull << x->act_of[u];
                a->zx |= 1ull << r;
            }
        }
    }
    for (int32_t e = g->out_start[v]; e < g->out_start[v + 1]; e++) {
        int32_t dw = x->dev_of[g->edge_dst[e]];

        if (dw == d) {
            continue;
        }
        for (int32_t sl = g->et_start[e]; sl < g->et_start[e + 1]; sl++) {
            int32_t t = g->et_tensor[sl], r;

            if ((rc = xrec_get(x, c, t, d, dw, g->tensor_bytes[t], ia, &r)) != 0) {
                return rc;
            }
        }
    }
    return 0;
}

/* The static part of op_may_fit. */
static void held_setup(struct ctx *x)
{
    for (int32_t v = 0; v < x->n_ops; v++) {
        x->on_dev[x->dev_of[v]] |= 1u << v;
    }
    for (int32_t r = 0; r < x->nx; r++) {
        x->x_to[x->x[r].dst] |= 1ull << r;
    }
    for (int32_t v = 0; v < x->n_ops; v++) {
        struct opmask *m = &x->m[v];
        const struct act *a = &x->a[x->act_of[v]];

        m->held_bytes = x->persist[x->dev_of[v]] + a->alloc_bytes;
        for (uint32_t k = m->anc & x->on_dev[x->dev_of[v]]; k; k &= k - 1) {
            int32_t u = __builtin_ctz(k);

            if (x->m[u].cons & m->dos) {
                m->held_anc |= 1u << u;
                m->held_bytes += x->own_out[u];
            }
        }
        for (uint64_t k = x->o->received_bytes ? a->in_x : 0; k; k &= k - 1) {
            m->held_bytes += x->x[__builtin_ctzll(k)].bytes;
        }
    }
}

/* Activity i's start in schedule h (0 when h has no such transfer). */
static int64_t hint_start(const struct ctx *x, const struct exact_result *h, int32_t i)
{
    if (x->a[i].op >= 0) {
        return h->op_start_us[x->a[i].op];
    }
    for (int32_t r = 0; r < x->nx; r++) {
        for (int32_t k = 0; x->x[r].act == i && k < h->n_xfers; k++) {
            if (h->xfer[k].tensor == x->x[r].tensor && h->xfer[k].dst == x->x[r].dst) {
                return h->xfer[k].start_us;
            }
        }
    }
    return 0;
}

static int build(struct ctx *x, const struct graph *g, const struct cluster *c,
                 const int32_t *device_of)
{
    int rc;

    if (g->n_ops > EXACT_MAX_OPS || c->n_devices > EXACT_MAX_DEVICES) {
        return err_set(BAECHI_EINVAL, "exact_sched: %d ops on %d devices is beyond %d on %d",
                       g->n_ops, c->n_devices, EXACT_MAX_OPS, EXACT_MAX_DEVICES);
    }
    if (g->n_coll > 0 || g->port_alias || g->micro_batch) {
        return err_set(BAECHI_EINVAL, "exact_sched: collectives, views and micro-batches are "
                                      "not modelled");
    }
    x->nd = c->n_devices;
    for (int32_t d = 0; d < x->nd; d++) {
        x->limit[d] = c->dev[d].mem_bytes;
    }
    for (int32_t v = 0; v < g->n_ops; v++) {
        if (device_of[v] < 0 || device_of[v] >= x->nd) {
            return err_set(BAECHI_EINVAL, "exact_sched: op %d on device %d", v, device_of[v]);
        }
        x->dev_of[v] = device_of[v];
    }
    for (int32_t i = 0; i < g->n_ops; i++) {
        if ((rc = add_op(x, g, c, g->topo_op[i])) != 0) {
            return rc;
        }
    }
    x->n_ops = g->n_ops;
    for (int32_t i = 0; i < g->n_ops; i++) {
        int32_t v = g->topo_op[i];

        x->persist[x->dev_of[v]] += g->persist_bytes[v];
        for (int32_t k = g->in_start[v]; k < g->in_start[v + 1]; k++) {
            int32_t u = g->edge_src[g->in_edge[k]];

            x->m[v].anc |= x->m[u].anc | 1u << u;
            x->m[u].cons |= 1u << v;
        }
    }
    for (int32_t i = g->n_ops - 1; i >= 0; i--) {
        int32_t v = g->topo_op[i];

        x->m[v].dos |= 1u << v;
        for (uint32_t k = x->m[v].cons; k; k &= k - 1) {
            x->m[v].dos |= x->m[__builtin_ctz(k)].dos;
        }
    }
    held_setup(x);
    for (int32_t i = 0; i < x->na && x->o->hint; i++) {
        x->a[i].hint_us = hint_start(x, x->o->hint, i);
    }
    x->all = x->na == 64 ? ~0ull : (1ull << x->na) - 1;
    /* tails, successors after their predecessors */
    for (int32_t i = x->na - 1; i >= 0; i--) {
        x->a[i].tail_us = 0;
        for (int32_t j = i + 1; j < x->na; j++) {
            if (x->a[j].pred >> i & 1) {
                x->a[i].tail_us = max64(x->a[i].tail_us, x->a[j].dur_us + x->a[j].tail_us);
            }
        }
    }
    return 0;
}

/* Bytes activity i takes at its start now (an op also takes its 0-µs
 * transfers' bytes, the first of their consumers on the receiver). */
static int64_t alloc_now(const struct ctx *x, const struct state *s, int32_t i)
{
    const struct act *a = &x->a[i];
    int64_t b = a->alloc_bytes;
    uint64_t z = a->zx & ~s->zdone;

    while (z && x->o->received_bytes) {
        int32_t r = __builtin_ctzll(z);

        z &= z - 1;
        b += x->x[r].bytes;
    }
    return b;
}

static bool eligible(const struct ctx *x, const struct state *s, int32_t i)
{
    const struct act *a = &x->a[i];
    uint64_t bit = 1ull << i;
    int32_t d = a->mem_dev;

    if ((s->started | s->skipped) & bit || (a->pred & ~s->done) != 0) {
        return false;
    }
    for (uint32_t r = a->res; r; r &= r - 1) {
        if (s->busy[__builtin_ctz(r)] > s->now) {
            return false;
        }
    }
    return !x->o->memory || x->limit[d] <= 0 || s->used[d] + alloc_now(x, s, i) <= x->limit[d];
}

static void start(const struct ctx *x, struct state *s, int32_t i)
{
    const struct act *a = &x->a[i];
    int64_t b = alloc_now(x, s, i);

    s->started |= 1ull << i;
    s->ops_started |= a->op >= 0 ? 1u << a->op : 0;
    s->end[i] = s->now + a->dur_us;
    for (uint32_t r = a->res; r; r &= r - 1) {
        s->busy[__builtin_ctz(r)] = s->end[i];
    }
    s->used[a->mem_dev] += b;
    s->zdone |= a->zx;
    /* the left ones that this start excuses: it takes their resource or
     * memory, so they may have waited for it */
    for (uint64_t k = s->skipped; k; k &= k - 1) {
        int32_t j = __builtin_ctzll(k);

        if ((x->a[j].res & a->res) || (b > 0 && x->a[j].mem_dev == a->mem_dev)) {
            s->skipped &= ~(1ull << j);
        }
    }
}

/* Activity i ends now: an op frees its temp, the received copies and the
 * producers' outputs whose last consumer it was. */
static void finish(const struct ctx *x, struct state *s, int32_t i)
{
    const struct act *a = &x->a[i];

    s->done |= 1ull << i;
    if (a->op < 0) {
        return;
    }
    s->used[a->mem_dev] -= a->temp_bytes;
    for (uint64_t k = a->in_x; k; k &= k - 1) {
        int32_t r = __builtin_ctzll(k);

        if (--s->xpend[r] == 0 && x->o->received_bytes) {
            s->used[x->x[r].dst] -= x->x[r].bytes;
        }
    }
    for (uint32_t k = a->in_prod; k; k &= k - 1) {
        int32_t u = __builtin_ctz(k);

        if (--s->pend_out[u] == 0) {
            s->used[x->dev_of[u]] -= x->own_out[u];
        }
    }
}

/*
 * Whether op v (not started) can still start within its device's limit:
 * at its start the device holds its persistent bytes, v's own allocation,
 * every output there that a consumer at or after v still needs (of v's
 * ancestors, and of ops already started: those and their sinks), and the
 * received copies that v or a descendant there reads (v's own, and those
 * already taken).  A necessary condition only.
 */
static bool op_may_fit(const struct ctx *x, const struct state *s, int32_t v)
{
    const struct act *a = &x->a[x->act_of[v]];
    const struct opmask *m = &x->m[v];
    int32_t d = a->mem_dev;
    int64_t held = m->held_bytes;

    if (x->limit[d] <= 0) {
        return true;
    }
    for (uint32_t k = s->ops_started & x->on_dev[d] & ~m->held_anc; k; k &= k - 1) {
        int32_t u = __builtin_ctz(k);

        if (s->pend_out[u] > 0 && (x->out_deg[u] == 0 || (x->m[u].cons & m->dos))) {
            held += x->own_out[u];
        }
    }
    for (uint64_t k = x->o->received_bytes ? x->x_to[d] & ~a->in_x : 0; k; k &= k - 1) {
        int32_t r = __builtin_ctzll(k);
        const struct xrec *xr = &x->x[r];
        bool taken = xr->act >= 0 ? s->started >> xr->act & 1 : s->zdone >> r & 1;

        if (taken && s->xpend[r] > 0 && (xr->cons & m->dos)) {
            held += xr->bytes;
        }
    }
    return held <= x->limit[d];
}

/*
 * A lower bound on the makespan of every completion of s: earliest starts
 * by precedence and free resources, each activity's end plus its tail,
 * and per resource the earliest start of what is left on it plus its
 * total length plus the shortest tail among it.
 */
static int64_t lower(const struct ctx *x, const struct state *s)
{
    int64_t fin[EXACT_MAX_ACTS], rmin[MAX_RES], rsum[MAX_RES], rtail[MAX_RES], lb = 0;

    for (int32_t r = 0; r < MAX_RES; r++) {
        rsum[r] = 0;
        rmin[r] = rtail[r] = INT64_MAX;
    }
    for (int32_t i = 0; i < x->na; i++) {
        const struct act *a = &x->a[i];

        if (s->started >> i & 1) {
            fin[i] = s->end[i];
        } else {
            int64_t e = s->now;

            for (uint64_t k = a->pred; k; k &= k - 1) {
                e = max64(e, fin[__builtin_ctzll(k)]);
            }
            for (uint32_t k = a->res; k; k &= k - 1) {
                int32_t r = __builtin_ctz(k);

                e = max64(e, s->busy[r]);
            }
            for (uint32_t k = a->res; k; k &= k - 1) {
                int32_t r = __builtin_ctz(k);

                rmin[r] = e < rmin[r] ? e : rmin[r];
                rsum[r] += a->dur_us;
                rtail[r] = a->tail_us < rtail[r] ? a->tail_us : rtail[r];
            }
            fin[i] = e + a->dur_us;
        }
        lb = max64(lb, fin[i] + a->tail_us);
    }
    for (int32_t r = 0; r < MAX_RES; r++) {
        if (rsum[r] > 0) {
            lb = max64(lb, rmin[r] + rsum[r] + rtail[r]);
        }
    }
    for (int32_t v = 0; v < x->n_ops && x->o->memory; v++) {
        if (!(s->started >> x->act_of[v] & 1) && !op_may_fit(x, s, v)) {
            return INT64_MAX;
        }
    }
    return lb;
}

/* The schedule of s (every activity ended) into x->out. */
static void record(const struct ctx *x, const struct state *s)
{
    struct exact_result *r = x->out;

    for (int32_t v = 0; v < x->n_ops; v++) {
        int32_t i = x->act_of[v];

        r->op_start_us[v] = s->end[i] - x->a[i].dur_us;
    }
    r->n_xfers = x->nx;
    for (int32_t k = 0; k < x->nx; k++) {
        const struct xrec *xr = &x->x[k];
        int64_t st = INT64_MAX;

        if (xr->act >= 0) {
            st = s->end[xr->act] - x->a[xr->act].dur_us;
        }
        for (uint32_t m = xr->act < 0 ? xr->cons : 0; m; m &= m - 1) {
            int64_t cs = r->op_start_us[__builtin_ctz(m)];

            st = cs < st ? cs : st; /* with its first consumer */
        }
        r->xfer[k] = (struct exact_xfer){.tensor = xr->tensor, .dst = xr->dst, .start_us = st};
    }
}

/* The next activity from `from` on that may start now; x->na when none. */
static int32_t next_eligible(const struct ctx *x, const struct state *s, int32_t from)
{
    while (from < x->na && !eligible(x, s, from)) {
        from++;
    }
    return from;
}

/* lb_us: the parent's bound when s differs from it only in what was left
 * (the same starts, ends and memory), else -1. */
static void search(struct ctx *x, const struct state *s, int32_t from, int64_t lb_us)
{
    struct state s2;
    int64_t lb, next = INT64_MAX;
    int32_t i;
    uint64_t running;

    if (x->stop) {
        return;
    }
    x->nodes++;
    lb = lb_us >= 0 ? lb_us : lower(x, s);
    if (lb >= x->below) {
        return;
    }
    if (s->done == x->all) {
        /* every activity has ended: lb is the makespan */
        x->best = x->below = lb;
        record(x, s);
        x->stop = x->o->first;
        return;
    }
    if ((i = next_eligible(x, s, from)) < x->na) {
        for (int b = 0; b < 2; b++) {
            /* start first, unless the hint waits */
            bool go = (b == 0) == (x->a[i].hint_us <= s->now);

            s2 = *s;
            if (go) {
                start(x, &s2, i);
            } else if (!x->o->no_dominance) {
                s2.skipped |= 1ull << i;
            }
            search(x, &s2, i + 1, go ? -1 : lb);
        }
        return;
    }
    /* nothing more starts now: on to the next end (none: a dead end) */
    running = s->started & ~s->done;
    for (uint64_t k = running; k; k &= k - 1) {
        int32_t j = __builtin_ctzll(k);

        next = s->end[j] < next ? s->end[j] : next;
    }
    if (next == INT64_MAX) {
        return;
    }
    s2 = *s;
    s2.now = next;
    for (uint64_t k = running; k; k &= k - 1) {
        int32_t j = __builtin_ctzll(k);

        if (s->end[j] == next) {
            finish(x, &s2, j);
        }
    }
    search(x, &s2, 0, -1);
}

int exact_sched_min(const struct graph *g, const struct cluster *c, const int32_t *device_of,
                    const struct exact_options *o, int64_t below_us, struct exact_result *r)
{
    struct ctx x;
    struct state s;
    int rc;

    memset(&x, 0, sizeof(x));
    memset(&s, 0, sizeof(s));
    x.o = o;
    x.out = r;
    r->best_us = -1;
    r->n_xfers = 0;
    r->nodes = 0;
    r->fits = true;
    if ((rc = build(&x, g, c, device_of)) != 0) {
        return rc;
    }
    for (int32_t v = 0; v < g->n_ops; v++) {
        int32_t d = x.dev_of[v];

        s.used[d] += g->persist_bytes[v];
        s.pend_out[v] = x.out_deg[v];
        if (o->memory && x.limit[d] > 0 && s.used[d] > x.limit[d]) {
            r->fits = false;
        }
    }
    for (int32_t i = 0; i < x.nx; i++) {
        s.xpend[i] = x.x[i].consumers;
    }
    if (!r->fits) {
        return 0;
    }
    x.below = below_us;
    x.best = -1;
    search(&x, &s, 0, -1);
    r->best_us = x.best;
    r->nodes = x.nodes;
    return 0;
}

/* --- the checker: from the graph and the rules, sharing nothing above --- */

/* One change of a device's memory. */
struct mem_ev {
    int64_t time_us, delta_bytes;
    int32_t dev;
};

/* By time, frees before allocations at one instant. */
static int mem_ev_cmp(const void *pa, const void *pb)
{
    const struct mem_ev *a = pa, *b = pb;

    if (a->time_us != b->time_us) {
        return a->time_us < b->time_us ? -1 : 1;
    }
    return (a->delta_bytes > 0) - (b->delta_bytes > 0);
}

/* Whether two transfers may not run at once on channel model m. */
static bool xfer_conflict(enum channel_model m, int32_t s1, int32_t d1, int32_t s2, int32_t d2)
{
    switch (m) {
    case CHANNEL_DUPLEX:
        return s1 == s2 || d1 == d2;
    case CHANNEL_LINK:
        return s1 == s2 && d1 == d2;
    case CHANNEL_SHARED:
    default:
        return s1 == s2 || s1 == d2 || d1 == s2 || d1 == d2;
    }
}

/* Whether [s1, e1) and [s2, e2) share an instant (an empty one shares none). */
static bool overlap(int64_t s1, int64_t e1, int64_t s2, int64_t e2)
{
    return s1 < e1 && s2 < e2 && s1 < e2 && s2 < e1;
}

/* Transfers: each needed one once, after its producer, before its
 * consumers; their ends into xend. */
static int check_xfers(const struct graph *g, const struct cluster *c, const int32_t *dev,
                       const struct exact_result *r, const int64_t *end, int64_t *xend)
{
    int32_t uses[EXACT_MAX_ACTS] = {0};

    for (int32_t k = 0; k < r->n_xfers; k++) {
        const struct exact_xfer *xf = &r->xfer[k];
        int32_t u = g->tensor_op[xf->tensor];

        xend[k] = xf->start_us + cluster_comm_us(c, dev[u], xf->dst, g->tensor_bytes[xf->tensor]);
        if (xf->dst == dev[u] || xf->start_us < end[u]) {
            return err_set(BAECHI_EINVAL,
                           "tensor %d sent to device %d at %lld, its producer "
                           "ends at %lld",
                           xf->tensor, xf->dst, (long long)xf->start_us, (long long)end[u]);
        }
        for (int32_t j = 0; j < k; j++) {
            if (r->xfer[j].tensor == xf->tensor && r->xfer[j].dst == xf->dst) {
                return err_set(BAECHI_EINVAL, "tensor %d sent twice to %d", xf->tensor, xf->dst);
            }
        }
    }
    for (int32_t e = 0; e < g->n_edges; e++) {
        int32_t u = g->edge_src[e], w = g->edge_dst[e];

        if (r->op_start_us[w] < end[u]) {
            return err_set(BAECHI_EINVAL, "op %d starts before its producer %d ends", w, u);
        }
        for (int32_t sl = g->et_start[e]; sl < g->et_start[e + 1] && dev[u] != dev[w]; sl++) {
            int32_t k = 0;

            while (k < r->n_xfers &&
                   (r->xfer[k].tensor != g->et_tensor[sl] || r->xfer[k].dst != dev[w])) {
                k++;
            }
            if (k == r->n_xfers || r->op_start_us[w] < xend[k]) {
                return err_set(BAECHI_EINVAL, "op %d starts before tensor %d arrives", w,
                               g->et_tensor[sl]);
            }
            uses[k]++;
        }
    }
    for (int32_t k = 0; k < r->n_xfers; k++) {
        if (uses[k] == 0) {
            return err_set(BAECHI_EINVAL, "tensor %d sent to device %d, read by none there",
                           r->xfer[k].tensor, r->xfer[k].dst);
        }
    }
    return 0;
}

/* No two ops on one device, no two transfers on one channel at once. */
static int check_resources(const struct graph *g, const struct cluster *c, const int32_t *dev,
                           const struct exact_result *r, const int64_t *end, const int64_t *xend)
{
    for (int32_t v = 0; v < g->n_ops; v++) {
        for (int32_t w = 0; w < v; w++) {
            if (dev[v] == dev[w] && overlap(r->op_start_us[v], end[v], r->op_start_us[w], end[w])) {
                return err_set(BAECHI_EINVAL, "ops %d and %d overlap on device %d", v, w, dev[v]);
            }
        }
    }
    for (int32_t k = 0; k < r->n_xfers; k++) {
        for (int32_t j = 0; j < k; j++) {
            const struct exact_xfer *a = &r->xfer[k], *b = &r->xfer[j];

            if (xfer_conflict(c->channel, dev[g->tensor_op[a->tensor]], a->dst,
                              dev[g->tensor_op[b->tensor]], b->dst) &&
                overlap(a->start_us, xend[k], b->start_us, xend[j])) {
                return err_set(BAECHI_EINVAL, "transfers of tensors %d and %d overlap", a->tensor,
                               b->tensor);
            }
        }
    }
    return 0;
}

/* The memory of every device at every instant within its limit. */
static int check_memory(const struct graph *g, const struct cluster *c, const int32_t *dev,
                        const struct exact_options *o, const struct exact_result *r,
                        const int64_t *end)
{
    struct mem_ev ev[3 * EXACT_MAX_OPS + 2 * EXACT_MAX_ACTS];
    int64_t used[EXACT_MAX_DEVICES] = {0};
    int32_t ne = 0;

    for (int32_t v = 0; v < g->n_ops; v++) {
        int64_t own = g->out_bytes[v] - g->persist_bytes[v], last = -1;

        own = own > 0 ? own : 0;
        used[dev[v]] += g->persist_bytes[v];
        ev[ne++] = (struct mem_ev){r->op_start_us[v], own + g->temp_bytes[v], dev[v]};
        ev[ne++] = (struct mem_ev){end[v], -g->temp_bytes[v], dev[v]};
        for (int32_t e = g->out_start[v]; e < g->out_start[v + 1]; e++) {
            last = end[g->edge_dst[e]] > last ? end[g->edge_dst[e]] : last;
        }
        if (last >= 0) {
            ev[ne++] = (struct mem_ev){last, -own, dev[v]};
        }
    }
    for (int32_t k = 0; k < r->n_xfers && o->received_bytes; k++) {
        int64_t last = -1, b = g->tensor_bytes[r->xfer[k].tensor];

        for (int32_t e = 0; e < g->n_edges; e++) {
            int32_t w = g->edge_dst[e];

            for (int32_t sl = g->et_start[e]; sl < g->et_start[e + 1]; sl++) {
                if (g->et_tensor[sl] == r->xfer[k].tensor && dev[w] == r->xfer[k].dst) {
                    last = end[w] > last ? end[w] : last;
                }
            }
        }
        ev[ne++] = (struct mem_ev){r->xfer[k].start_us, b, r->xfer[k].dst};
        ev[ne++] = (struct mem_ev){last, -b, r->xfer[k].dst};
    }
    for (int32_t i = 1; i < ne; i++) { /* insertion sort: a few dozen events */
        struct mem_ev e = ev[i];
        int32_t j = i;

        for (; j > 0 && mem_ev_cmp(&ev[j - 1], &e) > 0; j--) {
            ev[j] = ev[j - 1];
        }
        ev[j] = e;
    }
    for (int32_t i = 0; i < ne; i++) {
        used[ev[i].dev] += ev[i].delta_bytes;
        /* after the last allocation of an instant */
        for (int32_t d = 0; d < c->n_devices && (i + 1 == ne || ev[i + 1].time_us != ev[i].time_us);
             d++) {
            if (c->dev[d].mem_bytes > 0 && used[d] > c->dev[d].mem_bytes) {
                return err_set(BAECHI_EINVAL, "device %d holds %lld B > %lld at %lld", d,
                               (long long)used[d], (long long)c->dev[d].mem_bytes,
                               (long long)ev[i].time_us);
            }
        }
    }
    return 0;
}

int exact_sched_check(const struct graph *g, const struct cluster *c, const int32_t *device_of,
                      const struct exact_options *o, const struct exact_result *r)
{
    int64_t end[EXACT_MAX_OPS], xend[EXACT_MAX_ACTS], makespan = 0;
    int rc;

    if (r->best_us < 0 || g->n_ops > EXACT_MAX_OPS) {
        return err_set(BAECHI_EINVAL, "no schedule to check");
    }
    for (int32_t v = 0; v < g->n_ops; v++) {
        end[v] = r->op_start_us[v] + cluster_compute_us(c, device_of[v], g->weight_us[v]);
        makespan = end[v] > makespan ? end[v] : makespan;
        if (r->op_start_us[v] < 0) {
            return err_set(BAECHI_EINVAL, "op %d starts at %lld", v, (long long)r->op_start_us[v]);
        }
    }
    if (makespan != r->best_us) {
        return err_set(BAECHI_EINVAL, "makespan %lld, reported %lld", (long long)makespan,
                       (long long)r->best_us);
    }
    if ((rc = check_xfers(g, c, device_of, r, end, xend)) != 0 ||
        (rc = check_resources(g, c, device_of, r, end, xend)) != 0) {
        return rc;
    }
    return o->memory ? check_memory(g, c, device_of, o, r, end) : 0;
}
