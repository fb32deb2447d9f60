/*
 * parallel_summary.c - the model state and collectives of each device of a
 * parallelised graph, read back from the graph (parallel.h,
 * parallel_summarize): what docs/parallelism.md compares with ZeRO's
 * formulas.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/parallel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The value of key `k` of op i's x-collective map, or NULL. */
static const char *coll_field(const struct workload *w, int32_t i, const char *k)
{
    const struct wl_op *op = &w->op[i];

    for (int32_t j = 0; j < op->n_ext; j++) {
        const struct wl_ext *e = &w->ext[op->ext_off + j];

        if (strcmp(e->key, "x-collective") != 0 || e->val.kind != YVAL_MAP) {
            continue;
        }
        for (int32_t m = 0; m < e->val.n; m++) {
            if (strcmp(e->val.keys[m], k) == 0 && e->val.items[m].kind == YVAL_SCALAR) {
                return e->val.items[m].scalar;
            }
        }
    }
    return NULL;
}

void parallel_summarize(const struct workload *w, int32_t n_devices, struct parallel_device *dev)
{
    memset(dev, 0, sizeof(*dev) * (size_t)(n_devices > 0 ? n_devices : 0));
    for (int32_t i = 0; i < w->n_ops; i++) {
        const struct wl_op *op = &w->op[i];
        const char *id = coll_field(w, i, "id"), *bytes = coll_field(w, i, "bytes");
        struct parallel_device *d;

        if (op->device < 0 || op->device >= n_devices) {
            continue;
        }
        d = &dev[op->device];
        d->flops += isfinite(op->flops) ? op->flops : 0;
        if (op->phase == PHASE_FORWARD) {
            d->param_bytes += op->persistent;
        } else if (op->phase == PHASE_UPDATE) {
            d->optimizer_bytes += op->persistent;
        }
        if (!id) {
            continue;
        }
        d->n_collective_ops++;
        d->collective_bytes += bytes ? strtoll(bytes, NULL, 10) : 0;
        if (strstr(id, "/ddp/") && op->n_out > 0) {
            d->grad_bytes += w->out_bytes[op->out_off];
        }
    }
}
