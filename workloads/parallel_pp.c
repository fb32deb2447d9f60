/*
 * parallel_pp.c - pipeline stages of the parallel transform: contiguous runs of
 * layers of equal count or equal forward time (parallel.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/parallel_internal.h"

#include "core/alloc.h"
#include "core/err.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The layer key of a group: up to its "h<l>" or "layer_<l>" component; *layer
 * whether it has one. */
static size_t layer_key(const char *g, bool *layer)
{
    const char *c = g;

    while (*c) {
        const char *e = strchr(c, '/');
        size_t n = e ? (size_t)(e - c) : strlen(c);
        size_t pre = c[0] == 'h' ? 1 : strncmp(c, "layer_", 6) == 0 ? 6 : 0;
        size_t k = pre;

        while (pre && k < n && c[k] >= '0' && c[k] <= '9') {
            k++;
        }
        if (pre && k == n && k > pre) {
            *layer = true;
            return (size_t)(c - g) + n;
        }
        c = e ? e + 1 : c + n;
    }
    *layer = false;
    return strlen(g);
}

/* Stage of every op: layer keys in order of first appearance, layers cut into
 * P equal runs (by forward time when the graph has no numbered layers, or
 * when asked: then every key weighs its forward time). */
int parallel_pp_assign_stages(struct ctx *x)
{
    const struct workload *w = x->w;
    const int32_t P = x->o->pp;
    struct strmap keys;
    struct strpool kp;
    int32_t *key_of = NULL, n_keys = 0, n_layers = 0, *key_stage = NULL;
    double *weight = NULL, total = 0, acc = 0;
    bool *is_layer = NULL;
    int rc = BAECHI_ENOMEM;

    strmap_init(&keys);
    strpool_init(&kp);
    if (!(key_of = mem_calloc((size_t)x->n + 1, sizeof(*key_of))) ||
        !(key_stage = mem_calloc((size_t)x->n + 1, sizeof(*key_stage))) ||
        !(weight = mem_calloc((size_t)x->n + 1, sizeof(*weight))) ||
        !(is_layer = mem_calloc((size_t)x->n + 1, sizeof(*is_layer)))) {
        goto done;
    }
    for (int32_t i = 0; i < x->n; i++) {
        const char *g = workload_group(w, i);
        bool layer;
        size_t n = layer_key(g, &layer);
        int32_t k = strmap_get(&keys, g, n);

        if (k < 0) {
            char *s = strpool_add(&kp, g, n);

            if (!s || strmap_put(&keys, s, n_keys, NULL)) {
                goto done;
            }
            k = n_keys++;
            is_layer[k] = layer;
            n_layers += layer;
        }
        key_of[i] = k;
        if (w->op[i].phase == PHASE_FORWARD) {
            double t = isfinite(w->op[i].time_us) ? w->op[i].time_us : 1.0;

            weight[k] += t;
        }
    }
    for (int32_t k = 0; k < n_keys; k++) {
        weight[k] = n_layers > 0 && !x->o->pp_by_time ? (is_layer[k] ? 1.0 : 0.0) : weight[k];
        total += weight[k];
    }
    if ((n_layers > 0 && !x->o->pp_by_time && n_layers < P) ||
        ((n_layers == 0 || x->o->pp_by_time) && n_keys < P)) {
        rc = err_set(BAECHI_EINVAL, "pipeline parallelism: %d stages but '%s' has only %d %s",
                     (int)P, w->name, (int)(n_layers && !x->o->pp_by_time ? n_layers : n_keys),
                     n_layers && !x->o->pp_by_time ? "layers" : "groups");
        goto done;
    }
    for (int32_t k = 0, s = 0; k < n_keys; k++) {
        /* a layer starts stage s + 1 once the stages before hold their share */
        if (weight[k] > 0 && s + 1 < P && acc >= total * (s + 1) / P - 1e-9 * total) {
            s++;
        }
        key_stage[k] = s;
        acc += weight[k];
    }
    for (int32_t i = 0; i < x->n; i++) {
        x->stage[i] = key_stage[key_of[i]];
    }
    rc = 0;
done:
    strmap_release(&keys);
    strpool_release(&kp);
    free(key_of);
    free(key_stage);
    free(weight);
    free(is_layer);
    return rc;
}
