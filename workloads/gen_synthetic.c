/*
 * gen_synthetic.c - seeded synthetic DAGs (see gen_synthetic.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/gen_synthetic.h"

#include "core/array.h"
#include "core/err.h"
#include "core/strbuf.h"
#include "core/rng.h" /* splitmix64: tiny, fast, and the same sequence everywhere */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const shape_names[] = {"layered", "chain", "fork-join", "random"};

void synth_opts_init(struct synth_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->shape = SYNTH_LAYERED;
    o->n_ops = 1000;
    o->seed = 1;
    o->fan_in = 3;
    o->min_bytes = 1024;
    o->max_bytes = 4 << 20;
    o->min_time_us = 5;
    o->max_time_us = 500;
    o->persist_frac = 0.1;
    o->temp_frac = 0.2;
    o->group_size = 1;
}

int synth_shape_parse(const char *s, enum synth_shape *shape)
{
    for (int i = 0; i < 4; i++) {
        if (strcmp(s, shape_names[i]) == 0) {
            *shape = (enum synth_shape)i;
            return 0;
        }
    }
    return err_set(BAECHI_EINVAL, "unknown shape '%s' (layered, chain, fork-join or random)", s);
}

/* Uniform in [lo, hi] (inclusive). */
static int64_t rng_range(uint64_t *state, int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)(hi - lo) + 1;

    return span == 0 ? lo + (int64_t)rng_next(state) : lo + (int64_t)(rng_next(state) % span);
}

static double rng_unit(uint64_t *state)
{
    return (double)(rng_next(state) >> 11) * (1.0 / 9007199254740992.0);
}

/* Adds op i with one output and random costs. */
static int synth_add_op(struct workload *w, const struct synth_opts *o, uint64_t *rng, int32_t i)
{
    char name[32], group[32];
    int64_t bytes = rng_range(rng, o->min_bytes, o->max_bytes);
    struct wl_op *op;
    int rc;

    snprintf(name, sizeof(name), "op%d", i);
    if ((rc = workload_add_op(w, name, "Synthetic", NULL))) {
        return rc;
    }
    op = &w->op[w->n_ops - 1];
    op->time_us = (double)rng_range(rng, o->min_time_us, o->max_time_us);
    if (rng_unit(rng) < o->persist_frac) {
        op->persistent = bytes;
    }
    if (rng_unit(rng) < o->temp_frac) {
        op->temp = bytes;
    }
    if ((rc = workload_add_output(w, bytes))) {
        return rc;
    }
    if (o->group_size > 1) {
        snprintf(group, sizeof(group), "g%d", i / o->group_size);
        return workload_set_group(w, w->n_ops - 1, group);
    }
    return 0;
}

/* Adds `k` distinct inputs drawn from ops [lo, hi). */
static int synth_inputs(struct workload *w, uint64_t *rng, int32_t lo, int32_t hi, int32_t k)
{
    int32_t span = hi - lo;
    int32_t picked[64];
    int32_t n = 0;

    if (k > span) {
        k = span;
    }
    if (k > 64) {
        k = 64;
    }
    while (n < k) {
        int32_t p = lo + (int32_t)rng_range(rng, 0, span - 1);
        bool dup = false;

        for (int32_t j = 0; j < n; j++) {
            dup |= picked[j] == p;
        }
        if (dup) {
            continue;
        }
        picked[n++] = p;
    }
    for (int32_t j = 0; j < n; j++) {
        int rc = workload_add_input(w, picked[j], 0, 0, 0);

        if (rc) {
            return rc;
        }
    }
    return 0;
}

int gen_synthetic(struct workload *w, const struct synth_opts *o)
{
    uint64_t rng = o->seed ^ 0x6261656368692d63ull;
    struct strbuf name = STRBUF_INIT;
    int32_t n = o->n_ops;
    int rc;

    if (n < 2 || o->fan_in < 1 || o->min_bytes < 0 || o->max_bytes < o->min_bytes ||
        o->min_time_us < 0 || o->max_time_us < o->min_time_us || o->group_size < 1 ||
        !(o->persist_frac >= 0 && o->persist_frac <= 1) ||
        !(o->temp_frac >= 0 && o->temp_frac <= 1)) {
        return err_set(BAECHI_EINVAL, "bad synthetic options (ops >= 2, fan-in >= 1, "
                                      "min <= max, fractions in 0..1, group size >= 1)");
    }
    CHECK(strbuf_setf(&name, "synthetic-%s-%d-s%llu", shape_names[o->shape], n,
                      (unsigned long long)o->seed));
    if ((rc = workload_set_name(w, name.buf))) {
        goto cleanup;
    }
    if ((rc = strmap_reserve(&w->by_name, (size_t)n))) {
        goto cleanup;
    }
    switch (o->shape) {
    case SYNTH_CHAIN:
        for (int32_t i = 0; i < n; i++) {
            if ((rc = synth_add_op(w, o, &rng, i))) {
                goto cleanup;
            }
            if (i > 0 && (rc = workload_add_input(w, i - 1, 0, 0, 0))) {
                goto cleanup;
            }
        }
        break;
    case SYNTH_LAYERED: {
        int32_t width = o->width > 0 ? o->width : (int32_t)fmax(2, floor(sqrt((double)n)));

        for (int32_t i = 0; i < n; i++) {
            int32_t layer = i / width;

            if ((rc = synth_add_op(w, o, &rng, i))) {
                goto cleanup;
            }
            if (layer > 0) {
                int32_t lo = (layer - 1) * width;

                if ((rc = synth_inputs(w, &rng, lo, lo + width, o->fan_in))) {
                    goto cleanup;
                }
            }
        }
        break;
    }
    case SYNTH_RANDOM: {
        int32_t window = o->window > 0 ? o->window : 64;

        for (int32_t i = 0; i < n; i++) {
            if ((rc = synth_add_op(w, o, &rng, i))) {
                goto cleanup;
            }
            if (i > 0 && (rc = synth_inputs(w, &rng, i > window ? i - window : 0, i, o->fan_in))) {
                goto cleanup;
            }
        }
        break;
    }
    case SYNTH_FORK_JOIN: {
        int32_t width = o->width > 0 ? o->width : 4;
        int32_t depth = o->depth > 0 ? o->depth : 4;
        int32_t fork = -1, join_prev = -1;

        for (int32_t i = 0; i < n; i++) {
            int32_t block = width * depth + 2;
            int32_t pos = i % block;

            if ((rc = synth_add_op(w, o, &rng, i))) {
                goto cleanup;
            }
            if (pos == 0) {
                fork = i;
                if (join_prev >= 0 && (rc = workload_add_input(w, join_prev, 0, 0, 0))) {
                    goto cleanup;
                }
            } else if (pos == block - 1) {
                for (int32_t b = 0; b < width; b++) {
                    if ((rc = workload_add_input(w, fork + b * depth + depth, 0, 0, 0))) {
                        goto cleanup;
                    }
                }
                join_prev = i;
            } else {
                int32_t k = pos - 1; /* branch b = k / depth, step k % depth */
                int32_t prev = (k % depth == 0) ? fork : i - 1;

                if ((rc = workload_add_input(w, prev, 0, 0, 0))) {
                    goto cleanup;
                }
            }
        }
        break;
    }
    }
    rc = 0;
cleanup:
    strbuf_release(&name);
    return rc;
}
