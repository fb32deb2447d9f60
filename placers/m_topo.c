/*
 * m_topo.c - m-TOPO, uniform (`m-topo`) and non-uniform capacity
 * (`m-topo-nonuniform`), baechi-spec §2.
 *
 * Ops in (topo, id) order fill device 0, then device 1, ...; a whole
 * colocation group goes where its first op (in that order) goes.  Quirks kept
 * (§12.2): admission by temp_max + persistent_sum of the group while the
 * counter grows by Σ(temp + out); the uniform cap ignores the real device
 * limits; strict `<`; no back-filling.  No timing: no estimate.
 *
 * O(V log V).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/placer_internal.h"

#include "core/alloc.h"
#include "core/checked.h"
#include "core/err.h"
#include "core/units.h"

#include <stdlib.h>

/* (topo, id) order; arg is the topo array (a context, not a file-level
 * pointer: two threads may place at once). */
static int cmp_topo(const void *a, const void *b, void *arg)
{
    const int32_t *topo = arg;
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

    if (topo[x] != topo[y]) {
        return topo[x] < topo[y] ? -1 : 1;
    }
    return x < y ? -1 : x > y;
}

int m_topo_place(const struct palgo_ctx *x, bool uniform, int32_t *device_of,
                 struct placer_stats *st)
{
    const struct pgraph *p = x->p;
    int32_t *order = NULL;
    int64_t *used = NULL;
    int64_t required = 0, maxop = 0, cap;
    int32_t idx = 0;
    int rc = 0;

    order = mem_alloc_array((size_t)p->n + 1, sizeof(int32_t));
    used = mem_calloc((size_t)x->n_dev, sizeof(int64_t));
    if (!order || !used) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    for (int32_t v = 0; v < p->n; v++) {
        int64_t mem = p->temp[v] + p->out[v];
        order[v] = v;
        device_of[v] = -1;
        required += mem;
        if (mem > maxop) {
            maxop = mem;
        }
    }
    qsort_r(order, (size_t)p->n, sizeof(int32_t), cmp_topo, p->topo);
    cap = sat_add_i64(required / x->n_dev, maxop);
    /* deviation: when no op needs memory the original's cap is 0 and its
     * strict `used + need < cap` admits nothing ("needs 0 bytes",
     * infeasible); a cap of 1 byte admits every zero-byte group on device 0,
     * and leaves every other case as it was. */
    if (cap == 0) {
        cap = 1;
    }
    for (int32_t d = 0; d < x->n_dev; d++) {
        while (idx < p->n) {
            int32_t v = order[idx];
            if (device_of[v] < 0) {
                int32_t g = p->group[v];
                int64_t need = p->g_temp_max[g] + p->g_persist_sum[g];
                bool ok =
                    uniform ? sat_add_i64(used[d], need) < cap : x->limit[d] - used[d] >= need;
                if (!ok) {
                    break;
                }
                for (int32_t i = p->group_start[g]; i < p->group_start[g + 1]; i++) {
                    int32_t w = p->group_node[i];
                    device_of[w] = d;
                    used[d] += p->temp[w] + p->out[w];
                }
            }
            idx++;
        }
    }
    if (idx != p->n) {
        int32_t v = order[idx];
        int32_t g = p->group[v];
        int64_t need = p->g_temp_max[g] + p->g_persist_sum[g];
        int32_t left = 0;
        int64_t room =
            uniform ? cap - used[x->n_dev - 1] - 1 : x->limit[x->n_dev - 1] - used[x->n_dev - 1];
        for (int32_t w = 0; w < p->n; w++) {
            left += device_of[w] < 0;
        }
        /* the original fills a device past its cap by one group: room can be negative */
        char need_s[32], room_s[32];

        units_fmt_bytes(need, need_s, sizeof(need_s)); /* with units (issue 33 item 4) */
        units_fmt_bytes(room >= 0 ? room : -room, room_s, sizeof(room_s));
        rc = err_set(BAECHI_EINFEASIBLE,
                     "%d operators cannot be placed on devices: first '%s' needs %s (its "
                     "group's temp max + persistent sum), the last device has %s %s %s",
                     (int)left, x->name(x->name_arg, v), need_s, room_s,
                     room >= 0 ? "left under" : "over", uniform ? "the uniform cap" : "its limit");
        goto cleanup;
    }
    st->estimate_us = -1;
cleanup:
    free(order);
    free(used);
    return rc;
}
