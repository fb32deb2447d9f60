/*
 * gen_cap.c - the size cap of generated and parallelised graphs
 * (gen_cap.h).  Beyond the original.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/gen_cap.h"

#include "core/err.h"

#include <stdio.h>
#include <string.h>

/* The dimensions the op count grows with: their requested values. */
enum { DIM_LAYERS, DIM_SEQ, DIM_MICRO, N_DIMS };

static int32_t dim_get(const struct gen_opts *o, int k)
{
    switch (k) {
    case DIM_LAYERS:
        return o->layers;
    case DIM_SEQ:
        return o->seq;
    default:
        return o->forward_only ? 1 : o->train.micro_batches;
    }
}

static void dim_set(struct gen_opts *o, int k, int32_t v)
{
    switch (k) {
    case DIM_LAYERS:
        o->layers = v;
        break;
    case DIM_SEQ:
        o->seq = v;
        break;
    default:
        o->train.micro_batches = v;
        /* a batch that 2 and 3 micro-batches divide (workload gen refuses
         * others); the batch changes sizes, not the op count */
        o->batch = 6;
        break;
    }
}

int gen_cap_ops(const char *name, const struct gen_opts *o, int64_t *ops_out)
{
    int dims[N_DIMS], n_dims = 0;
    double total = 0;

    *ops_out = -1;
    for (int k = 0; k < N_DIMS; k++) {
        if (dim_get(o, k) > 3) { /* 0 (a preset) and small values: as they are */
            dims[n_dims++] = k;
        }
    }
    if (n_dims == 0) {
        return 0; /* at most a preset's graph (and the probes end here) */
    }
    /* f(x) = Σ over the corners c in {2, 3}^n of f(c) Π (c_i == 2 ? 3 - x_i : x_i - 2) */
    for (int corner = 0; corner < (1 << n_dims); corner++) {
        struct gen_opts p = *o;
        struct workload w;
        double weight = 1;
        int rc;

        p.device = NULL; /* times do not change the count */
        p.name = "gen-cap-probe";
        for (int i = 0; i < n_dims; i++) {
            int32_t at = corner & (1 << i) ? 3 : 2;
            double x = (double)dim_get(o, dims[i]);

            dim_set(&p, dims[i], at);
            weight *= at == 2 ? 3 - x : x - 2;
        }
        if ((rc = gen_model(&w, name, &p, NULL)) != 0) {
            if (rc == BAECHI_ENOMEM) {
                return rc;
            }
            err_clear();
            return 0; /* refused at a probe's values: left to the generator */
        }
        total += weight * (double)w.n_ops;
        workload_release(&w);
    }
    *ops_out = total > 9e18 ? INT64_MAX : (int64_t)(total + 0.5);
    return 0;
}

int gen_cap_check(const char *name, const struct gen_opts *o)
{
    static const char *const flag[N_DIMS] = {"--layers", "--seq", "--micro-batches"};
    char opts[128] = "";
    size_t len = 0;
    int64_t ops;
    int rc = gen_cap_ops(name, o, &ops);

    if (rc != 0 || ops <= GEN_CAP_OPS) {
        return rc;
    }
    for (int k = 0; k < N_DIMS; k++) {
        int n = dim_get(o, k) > 1 ? snprintf(opts + len, sizeof(opts) - len, " %s %d", flag[k],
                                             (int)dim_get(o, k))
                                  : 0;

        len += n > 0 && (size_t)n < sizeof(opts) - len ? (size_t)n : 0;
    }
    return err_set(BAECHI_EINVAL,
                   "%s with%s would have %lld ops, more than the %d a generated graph may have "
                   "(docs/limits.md): use fewer --layers, a shorter --seq or fewer "
                   "--micro-batches",
                   name, opts, (long long)ops, GEN_CAP_OPS);
}

int gen_cap_parallel(const struct workload *in, const struct parallel_opts *o)
{
    /* symmetric: a representative per class is written (docs/symmetry.md):
     * the cap counts the ops written */
    double ops = 1.5 * (double)in->n_ops * (double)parallel_ranks_written(o);
    const int64_t cap = o->symmetric ? GEN_CAP_SYMMETRIC_OPS : GEN_CAP_OPS;

    if (ops > (double)cap) {
        return err_set(
            BAECHI_EINVAL,
            "parallelising '%s' (%d ops) with --dp %d --tp %d would give about %.0f ops, "
            "more than the %d a generated graph may have (docs/limits.md): use fewer "
            "devices or a smaller graph",
            in->name ? in->name : "?", (int)in->n_ops, (int)o->dp, (int)o->tp, ops, (int)cap);
    }
    return 0;
}
