/*
 * explain.c - the live set at each device's peak (see explain.h).
 *
 * The observer keeps every allocation of the replayed simulation in one
 * array, found again for its free through an open-addressing hash on
 * (what, device, op or tensor).  A snapshot scans the array for the
 * device's live entries: at most two snapshots per device, so the cost is
 * O(devices x allocations) on top of the simulation.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "sim/explain.h"

#include "sim/sim_internal.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"
#include "core/workload.h"

#include <stdlib.h>
#include <string.h>

struct entry {
    uint64_t key;
    int64_t bytes;
    int64_t since_us;
    int32_t op, tensor, device;
    uint8_t kind;
};

struct observer {
    const struct graph *g;
    const struct sim_result *r;
    struct mem_explain *x;
    int32_t top_n;
    const uint8_t *saved; /* per op: a forward output a backward op reads */
    struct entry *e;
    size_t n_e, alloc_e;
    int32_t *slot; /* hash: entry index + 1, 0 = empty */
    size_t n_slot; /* a power of two */
    int64_t *used; /* per device */
    int rc;        /* the first failure inside the callback */
};

static uint64_t mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return k;
}

static int grow_hash(struct observer *o)
{
    size_t n = o->n_slot ? o->n_slot * 2 : 1024;
    int32_t *s = mem_calloc(n, sizeof(*s));

    if (!s) {
        return BAECHI_ENOMEM;
    }
    for (size_t i = 0; i < o->n_e; i++) {
        size_t h = mix(o->e[i].key) & (n - 1);

        while (s[h]) {
            h = (h + 1) & (n - 1);
        }
        s[h] = (int32_t)i + 1;
    }
    free(o->slot);
    o->slot = s;
    o->n_slot = n;
    return 0;
}

/* The entry of `key`, or -1. */
static int32_t find(const struct observer *o, uint64_t key, size_t *at)
{
    size_t h = mix(key) & (o->n_slot - 1);

    while (o->slot[h]) {
        if (o->e[o->slot[h] - 1].key == key) {
            *at = h;
            return o->slot[h] - 1;
        }
        h = (h + 1) & (o->n_slot - 1);
    }
    *at = h;
    return -1;
}

static int cmp_live(const void *a, const void *b)
{
    const struct mem_live *x = a, *y = b;

    if (x->bytes != y->bytes) {
        return x->bytes > y->bytes ? -1 : 1;
    }
    if (x->op != y->op) {
        return x->op < y->op ? -1 : 1;
    }
    return x->tensor < y->tensor ? -1 : x->tensor > y->tensor;
}

static int snapshot(struct observer *o, int32_t d, int64_t time_us, int32_t op,
                    struct mem_snapshot *s)
{
    struct mem_live *all;
    int32_t n = 0;

    memset(s, 0, sizeof(*s));
    s->valid = true;
    s->time_us = time_us;
    s->at_op = op;
    if (!(all = mem_alloc_array(o->n_e + 1, sizeof(*all)))) {
        return BAECHI_ENOMEM;
    }
    for (size_t i = 0; i < o->n_e; i++) {
        const struct entry *e = &o->e[i];

        if (e->device != d || e->bytes == 0) {
            continue;
        }
        all[n++] = (struct mem_live){e->op, e->tensor, e->bytes, e->since_us, e->kind};
        s->kind_bytes[e->kind] += e->bytes;
        s->total_bytes += e->bytes;
    }
    qsort(all, (size_t)n, sizeof(*all), cmp_live);
    s->n_live = n;
    s->n_top = n < o->top_n ? n : o->top_n;
    s->top = all;
    if (s->n_top < n) {
        struct mem_live *t = mem_realloc(all, (size_t)(s->n_top ? s->n_top : 1) * sizeof(*all));

        if (t) {
            s->top = t;
        }
    }
    return 0;
}

static void on_mem(void *ctx, int32_t d, int64_t time_us, int64_t delta, enum sim_mem_what what,
                   int32_t op, int32_t tensor, bool alloc)
{
    struct observer *o = ctx;
    struct mem_explain_device *xd = &o->x->dev[d];
    const struct sim_device_stats *st = &o->r->dev[d];
    uint64_t key = ((uint64_t)what << 60) | ((uint64_t)(uint32_t)d << 32) |
                   (uint32_t)(what == SIM_MEM_RECEIVED ? tensor : op);
    size_t at;
    int32_t i;

    if (o->rc) {
        return;
    }
    if ((o->n_e + 1) * 2 > o->n_slot && (o->rc = grow_hash(o)) != 0) {
        return;
    }
    if ((i = find(o, key, &at)) < 0) {
        if ((o->rc = ARRAY_RESERVE(o->e, o->alloc_e, o->n_e + 1)) != 0) {
            return;
        }
        i = (int32_t)o->n_e++;
        o->e[i] = (struct entry){
            key, 0, time_us, op, tensor, d, (uint8_t)sim_mem_kind(o->g, o->saved, what, op)};
        o->slot[at] = i + 1;
    }
    if (o->e[i].bytes == 0) {
        o->e[i].since_us = time_us;
    }
    o->e[i].bytes += delta;
    o->used[d] += delta;
    if (!alloc) {
        return;
    }
    /* The model compares after allocations only; intermediate sums of one
     * allocation's parts never exceed its final sum. */
    if (!xd->peak.valid && o->used[d] == st->peak_bytes) {
        o->rc = snapshot(o, d, time_us, op, &xd->peak);
    }
    if (!o->rc && !xd->oom.valid && st->limit_bytes > 0 && o->used[d] > st->limit_bytes) {
        o->rc = snapshot(o, d, time_us, op, &xd->oom);
    }
}

void mem_explain_init(struct mem_explain *x)
{
    memset(x, 0, sizeof(*x));
}

void mem_explain_release(struct mem_explain *x)
{
    /* x->dev is NULL when its allocation failed */
    for (int32_t d = 0; x->dev && d < x->n_devices; d++) {
        free(x->dev[d].peak.top);
        free(x->dev[d].oom.top);
    }
    free(x->dev);
    mem_explain_init(x);
}

int mem_explain_run(const struct graph *g, const struct cluster *c, const int32_t *device_of,
                    enum sim_model model, const struct sim_result *r, int32_t top_n,
                    struct mem_explain *x)
{
    struct observer o = {.g = g, .r = r, .x = x, .top_n = top_n > 0 ? top_n : 1};
    struct sim_mem_obs obs = {on_mem, &o};
    struct sim_options so = {.model = model, .trace = NULL, .mem_obs = &obs};
    struct sim_result again;
    uint8_t *saved = NULL;
    int rc = 0;

    mem_explain_init(x);
    sim_result_init(&again);
    if (r->n_devices != c->n_devices) {
        return err_set(BAECHI_EINVAL, "memory explanation: a result of %d devices for %d",
                       r->n_devices, c->n_devices);
    }
    x->model = model;
    x->n_devices = c->n_devices;
    x->dev = mem_calloc((size_t)c->n_devices + 1, sizeof(*x->dev));
    o.used = mem_calloc((size_t)c->n_devices + 1, sizeof(*o.used));
    if (!x->dev || !o.used) {
        rc = err_set(BAECHI_ENOMEM, "out of memory explaining memory");
        goto cleanup;
    }
    CHECK(sim_saved_ops(g, &saved));
    o.saved = saved;
    CHECK(sim_run(g, c, device_of, &so, &again));
    if (o.rc) {
        rc = err_set(o.rc, "out of memory explaining memory");
        goto cleanup;
    }
    if (again.step_us != r->step_us) {
        BUG("memory explanation: the replay took %lld µs, the run %lld µs",
            (long long)again.step_us, (long long)r->step_us);
    }
    for (int32_t d = 0; d < c->n_devices; d++) {
        x->dev[d].limit_bytes = r->dev[d].limit_bytes;
        if (!x->dev[d].peak.valid) { /* nothing was ever allocated there */
            x->dev[d].peak.valid = true;
            x->dev[d].peak.at_op = -1;
        }
    }
cleanup:
    if (rc) {
        mem_explain_release(x);
    }
    sim_result_release(&again);
    free(o.e);
    free(o.slot);
    free(o.used);
    free(saved);
    return rc;
}
