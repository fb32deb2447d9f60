/*
 * auto_repair.c - the repair moves of the `auto` placer (auto_internal.h):
 * when the best placement overflows, move the largest colocation groups off
 * the device that overflows most to the devices with the most room, or swap
 * them with small groups there.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/auto_internal.h"

#include "core/array.h"
#include "core/err.h"
#include "sim/sim.h"

#include <stdlib.h>

int auto_cmp_mem_desc(const void *a, const void *b, void *arg)
{
    const int64_t *mem = arg;
    int32_t p = *(const int32_t *)a, q = *(const int32_t *)b;

    if (mem[p] != mem[q]) {
        return mem[p] > mem[q] ? -1 : 1;
    }
    return p < q ? -1 : p > q;
}

/* Free bytes of a device in a simulation; INT64_MAX when unlimited. */
static int64_t room_bytes(const struct sim_device_stats *x)
{
    return x->limit_bytes > 0 ? x->limit_bytes - x->peak_bytes : INT64_MAX;
}

/* Devices by room, most first, then by id (a stable order). */
static int cmp_room_desc(const void *a, const void *b, void *arg)
{
    const struct sim_result *r = arg;
    int32_t p = *(const int32_t *)a, q = *(const int32_t *)b;
    int64_t rp = room_bytes(&r->dev[p]), rq = room_bytes(&r->dev[q]);

    if (rp != rq) {
        return rp > rq ? -1 : 1;
    }
    return p < q ? -1 : p > q;
}

/* The device over its limit by the most bytes in r, or -1. */
static int32_t worst_device(const struct sim_result *r)
{
    int32_t worst = -1;
    int64_t worst_over = 0;

    for (int32_t d = 0; d < r->n_devices; d++) {
        int64_t o = r->dev[d].limit_bytes > 0 ? r->dev[d].peak_bytes - r->dev[d].limit_bytes : 0;
        if (o > worst_over) {
            worst_over = o;
            worst = d;
        }
    }
    return worst;
}

/* Swaps of a large group of the worst device (order[0..n_on-1], largest
 * first) with a small one of a device with room.  order past n_on is
 * scratch for that device's groups, smallest last. */
static void swap_moves(struct auto_ctx *s, int32_t n_on, const int32_t *tgt, int32_t n_tgt)
{
    for (int32_t t = 0; t < n_tgt && t < AUTO_REPAIR_SWAP_DEVICES; t++) {
        int32_t n_t = 0, *on_t = s->order + n_on;
        for (int32_t k = 0; k < s->n_tf && n_on + n_t < s->n_ops; k++) {
            if (s->best[s->tf_op[s->tf_start[k]]] == tgt[t]) {
                on_t[n_t++] = k;
            }
        }
        qsort_r(on_t, (size_t)n_t, sizeof(int32_t), auto_cmp_mem_desc, s->tf_mem);
        for (int32_t i = 0; i < n_on && i < AUTO_REPAIR_LARGE_GROUPS; i++) {
            for (int32_t j = n_t - 1; j >= 0 && j >= n_t - AUTO_REPAIR_SWAP_SMALL_GROUPS; j--) {
                if (s->tf_mem[on_t[j]] < s->tf_mem[s->order[i]]) {
                    auto_add_move(s, AUTO_MV_SWAP, s->order[i], on_t[j]);
                }
            }
        }
    }
}

/*
 * deviation (from this placer's first version, not from the paper): every
 * other device is a target; the first version considered only the first 64
 * (the targets sat in a fixed array), so clusters of more than 65 devices
 * now get more repair moves (AUTO_MAX_MOVES still bounds a round).
 */
void auto_repair_moves(struct auto_ctx *s)
{
    const struct sim_result *r =
        s->best_score.over_timed > 0 || !s->rb_best_valid ? &s->rt_best : &s->rb_best;
    int32_t worst = worst_device(r), n_on = 0, *tgt = s->targets, n_tgt = 0;

    if (worst < 0) {
        return;
    }
    /* targets by room, most first */
    for (int32_t d = 0; d < r->n_devices; d++) {
        if (d != worst) {
            tgt[n_tgt++] = d;
        }
    }
    qsort_r(tgt, (size_t)n_tgt, sizeof(int32_t), cmp_room_desc, (void *)r);
    /* the tf groups on the worst device, largest first (order is scratch) */
    for (int32_t k = 0; k < s->n_tf; k++) {
        if (s->best[s->tf_op[s->tf_start[k]]] == worst) {
            s->order[n_on++] = k;
        }
    }
    qsort_r(s->order, (size_t)n_on, sizeof(int32_t), auto_cmp_mem_desc, s->tf_mem);
    /* the op that crossed the limit first: its group is the natural one to move */
    for (int32_t i = 0; i < r->n_oom; i++) {
        if (r->oom[i].device == worst) {
            int32_t k = s->tf_of[r->oom[i].op];
            for (int32_t t = 0; t < n_tgt; t++) {
                auto_add_move(s, AUTO_MV_TF, k, tgt[t]);
            }
        }
    }
    for (int32_t i = 0; i < n_on && i < AUTO_REPAIR_LARGE_GROUPS; i++) {
        for (int32_t t = 0; t < n_tgt; t++) {
            auto_add_move(s, AUTO_MV_TF, s->order[i], tgt[t]);
        }
    }
    /* smaller groups too, to the device with the most room */
    for (int32_t i = AUTO_REPAIR_LARGE_GROUPS; i < n_on && i < AUTO_REPAIR_MAX_GROUPS && n_tgt > 0;
         i++) {
        auto_add_move(s, AUTO_MV_TF, s->order[i], tgt[0]);
    }
    swap_moves(s, n_on, tgt, n_tgt);
}
