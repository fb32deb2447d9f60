/*
 * calibrate.c - the calibration pipeline (see calibrate.h).
 *
 * deviation: the original (baechi-spec §10) times one pair with TensorFlow
 * FULL_TRACE steps and fits all 20 x 30 samples; here every ordered pair is
 * timed directly by the backend (CUDA events around cudaMemcpyPeerAsync, or
 * host timing of a copy task) and the fit runs over the per-size medians, so
 * that one outlier run cannot move the line.  The fit itself is the same
 * ordinary least squares with intercept.
 * deviation: the original's sizes are 2^0..2^29 float32 elements (4 B to
 * 2 GiB); the defaults here are 2^0..2^29 bytes (--min-exp/--max-exp).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "calibrate/calibrate.h"
#include "core/alloc.h"
#include "core/json_out.h"

#include "core/array.h"
#include "core/err.h"
#include "workloads/costmodel.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const double range_bounds[CALIB_N_RANGES + 1] = {1.0, 65536.0, 16777216.0, INFINITY};
static const char *const range_name[CALIB_N_RANGES] = {"1 B-64 KiB", "64 KiB-16 MiB", ">= 16 MiB"};

void calib_options_default(struct calib_options *o, const char *backend, bool quick)
{
    bool cuda = strcmp(backend, "cuda") == 0;

    memset(o, 0, sizeof(*o));
    o->min_exp = 0;
    /* 2^29 bytes as the original; the CPU backend stops at 64 MiB by default */
    o->max_exp = quick ? 20 : (cuda ? 29 : 26);
    o->warmup = quick ? 1 : 5;
    o->iters = quick ? 3 : 20;
    if (cuda) {
        static const int32_t n[] = {256, 512, 1024, 2048, 4096, 8192};

        o->n_gemm = quick ? 2 : 6;
        memcpy(o->gemm_n, n, sizeof(n));
        o->membw_bytes = quick ? (64 << 20) : (1 << 30);
    } else {
        static const int32_t n[] = {32, 64, 128, 256, 512};

        o->n_gemm = quick ? 2 : 5;
        memcpy(o->gemm_n, n, sizeof(n));
        o->membw_bytes = quick ? (1 << 20) : (64 << 20);
    }
    o->gemm_iters = quick ? 2 : 5;
    o->launch_iters = quick ? 20 : 200;
    o->group_rel_tol = 0.15;
    o->group_abs_us = 2.0;
}

void calib_result_release(struct calib_result *r)
{
    for (int32_t i = 0; i < r->n_pairs; i++) {
        free(r->pair[i].median_us);
    }
    free(r->pair);
    free(r->group);
    free(r->dev);
    free(r->size_bytes);
    free(r->allreduce.median_us);
    memset(r, 0, sizeof(*r));
}

/* Pools the medians of the pairs selected by `group` (-1 = all) and fits them. */
static int fit_pool(const struct calib_result *r, int32_t group, struct fit_line *fit,
                    struct fit_range_err *err)
{
    size_t n = (size_t)r->n_pairs * (size_t)r->n_sizes, k = 0;
    double *x = mem_alloc_array(n ? n : 1, sizeof(double)),
           *y = mem_alloc_array(n ? n : 1, sizeof(double));
    int rc = 0;

    if (!x || !y) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    for (int32_t p = 0; p < r->n_pairs; p++) {
        if (group >= 0 && r->pair[p].group != group) {
            continue;
        }
        for (int32_t s = 0; s < r->n_sizes; s++) {
            x[k] = r->size_bytes[s];
            y[k] = r->pair[p].median_us[s];
            k++;
        }
    }
    CHECK(fit_linear(x, y, (int32_t)k, fit));
    if (err) {
        fit_range_errors(fit, x, y, (int32_t)k, range_bounds, CALIB_N_RANGES + 1, err);
    }
cleanup:
    free(x);
    free(y);
    return rc;
}

static int measure_transfers(struct bench *b, const struct calib_options *o, struct calib_result *r)
{
    int32_t n = b->n_devices;
    double *samples = mem_alloc_array((size_t)o->iters, sizeof(double));
    int rc = 0;

    if (!samples) {
        return BAECHI_ENOMEM;
    }
    r->n_pairs = n * (n - 1);
    r->pair = mem_calloc((size_t)(r->n_pairs ? r->n_pairs : 1), sizeof(*r->pair));
    if (!r->pair) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    for (int32_t s = 0, p = 0; s < n; s++) {
        for (int32_t d = 0; d < n; d++) {
            struct calib_pair *cp;

            if (s == d) {
                continue;
            }
            cp = &r->pair[p++];
            cp->src = s;
            cp->dst = d;
            cp->path = b->ops->copy_path(b, s, d);
            cp->median_us = mem_calloc((size_t)r->n_sizes, sizeof(double));
            if (!cp->median_us) {
                rc = BAECHI_ENOMEM;
                goto cleanup;
            }
            for (int32_t k = 0; k < r->n_sizes; k++) {
                CHECK(b->ops->copy_us(b, s, d, (int64_t)r->size_bytes[k], o->warmup, o->iters,
                                      samples));
                cp->median_us[k] = fit_median(samples, o->iters);
            }
            CHECK(fit_linear(r->size_bytes, cp->median_us, r->n_sizes, &cp->fit));
            fit_range_errors(&cp->fit, r->size_bytes, cp->median_us, r->n_sizes, range_bounds,
                             CALIB_N_RANGES + 1, cp->err);
        }
    }
    if (r->n_pairs > 0) {
        struct fit_line *fits = mem_calloc((size_t)r->n_pairs, sizeof(*fits));
        int32_t *gid = mem_calloc((size_t)r->n_pairs, sizeof(*gid));

        if (!fits || !gid) {
            free(fits);
            free(gid);
            rc = BAECHI_ENOMEM;
            goto cleanup;
        }
        for (int32_t p = 0; p < r->n_pairs; p++) {
            fits[p] = r->pair[p].fit;
        }
        r->n_groups = fit_group(fits, r->n_pairs, o->group_rel_tol, o->group_abs_us, gid);
        for (int32_t p = 0; p < r->n_pairs; p++) {
            r->pair[p].group = gid[p];
        }
        free(fits);
        free(gid);
        r->group = mem_calloc((size_t)r->n_groups, sizeof(*r->group));
        if (!r->group) {
            rc = BAECHI_ENOMEM;
            goto cleanup;
        }
        for (int32_t g = 0; g < r->n_groups; g++) {
            CHECK(fit_pool(r, g, &r->group[g].fit, r->group[g].err));
        }
        for (int32_t p = 0; p < r->n_pairs; p++) {
            struct calib_group *g = &r->group[r->pair[p].group];

            if (g->n_pairs++ == 0) {
                g->path = r->pair[p].path;
            }
        }
        CHECK(fit_pool(r, -1, &r->all, NULL));
        r->have_fit = true;
    }
cleanup:
    free(samples);
    return rc;
}

/* The ring all-reduce over every device, per size, and its per-link reading. */
static int measure_allreduce(struct bench *b, const struct calib_options *o, struct calib_result *r)
{
    struct calib_coll *a = &r->allreduce;
    double n;
    int rc;

    if (!b->ops->allreduce_us || r->n_devices < 2) {
        return 0;
    }
    if (!(a->median_us = mem_calloc((size_t)r->n_sizes, sizeof(double)))) {
        return BAECHI_ENOMEM;
    }
    for (int32_t k = 0; k < r->n_sizes; k++) {
        rc = b->ops->allreduce_us(b, (int64_t)r->size_bytes[k], o->warmup, o->iters,
                                  &a->median_us[k]);
        if (rc == BAECHI_EUNSUPPORTED) {
            /* the rest of the calibration stands without it (a GPU machine
             * without NCCL): say why in the summary instead of failing */
            snprintf(a->skipped, sizeof(a->skipped), "%s", err_msg());
            free(a->median_us);
            a->median_us = NULL;
            return 0;
        }
        if (rc) {
            return rc;
        }
    }
    if ((rc = fit_linear(r->size_bytes, a->median_us, r->n_sizes, &a->fit))) {
        return rc;
    }
    a->have = true;
    a->n = r->n_devices;
    n = (double)a->n;
    /* a negative fit (noise on small sizes) clamps to 0, as the pairs' fits do */
    a->link_slope_us_per_byte = fmax(0, a->fit.slope * n / (2 * (n - 1)));
    a->link_alpha_us = fmax(0, a->fit.intercept / (2 * (n - 1)));
    return 0;
}

int calibrate_run(struct bench *b, const struct calib_options *o, struct calib_result *r)
{
    time_t now = time(NULL);
    struct tm tm;
    int rc = 0;

    memset(r, 0, sizeof(*r));
    r->opt = *o;
    snprintf(r->backend, sizeof(r->backend), "%s", b->ops->name);
    snprintf(r->driver, sizeof(r->driver), "%s", b->driver);
    snprintf(r->runtime, sizeof(r->runtime), "%s", b->runtime);
    snprintf(r->gemm, sizeof(r->gemm), "%s", b->gemm);
    gmtime_r(&now, &tm);
    strftime(r->date, sizeof(r->date), "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (o->min_exp < 0 || o->max_exp > 40 || o->min_exp >= o->max_exp || o->iters < 1 ||
        o->warmup < 0) {
        return err_set(BAECHI_EINVAL, "bad transfer sizes 2^%d..2^%d or iterations %d",
                       (int)o->min_exp, (int)o->max_exp, (int)o->iters);
    }
    r->n_devices = b->n_devices;
    r->n_sizes = o->max_exp - o->min_exp + 1;
    r->dev = mem_calloc((size_t)r->n_devices, sizeof(*r->dev));
    r->size_bytes = mem_calloc((size_t)r->n_sizes, sizeof(double));
    if (!r->dev || !r->size_bytes) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    for (int32_t k = 0; k < r->n_sizes; k++) {
        r->size_bytes[k] = ldexp(1.0, o->min_exp + k);
    }
    for (int32_t d = 0; d < r->n_devices; d++) {
        struct calib_device *cd = &r->dev[d];

        CHECK(b->ops->device_info(b, d, &cd->info));
        cd->peak_flops = 0;
        for (int32_t i = 0; i < o->n_gemm; i++) {
            CHECK(b->ops->gemm_flops(b, d, o->gemm_n[i], o->gemm_iters, &cd->gemm_flops[i]));
            cd->peak_flops = fmax(cd->peak_flops, cd->gemm_flops[i]);
        }
        CHECK(b->ops->mem_bw(b, d, o->membw_bytes, o->gemm_iters, &cd->mem_bw_bytes_per_s));
        CHECK(b->ops->launch_us(b, d, o->launch_iters, &cd->launch_us));
    }
    CHECK(measure_transfers(b, o, r));
    CHECK(measure_allreduce(b, o, r));
cleanup:
    if (rc) {
        calib_result_release(r);
    }
    return rc;
}

/* The cost-model class of a device name ("NVIDIA H200" -> "h200") when the presets know it. */
static char *device_kind(const char *name)
{
    const char *last = name, *p;
    char buf[32];
    size_t k = 0;
    struct costmodel m;

    for (p = name; *p; p++) {
        if (*p == ' ' && p[1]) {
            last = p + 1;
        }
    }
    for (p = last; *p && k + 1 < sizeof(buf); p++) {
        if (isalnum((unsigned char)*p)) {
            buf[k++] = (char)tolower((unsigned char)*p);
        }
    }
    buf[k] = '\0';
    err_set_quiet(1);
    if (k == 0 || costmodel_preset(&m, buf) != 0) {
        err_set_quiet(0);
        err_clear();
        return NULL;
    }
    err_set_quiet(0);
    return mem_strdup(buf);
}

int calibrate_to_cluster(const struct calib_result *r, const char *name, const char *command,
                         struct cluster *c)
{
    char src[2048];
    size_t off;
    int32_t n = r->n_devices;
    int rc = 0;

    cluster_init(c);
    CHECK(cluster_add_devices(c, n, 0, 1.0));
    free(c->name);
    c->name = mem_strdup(name);
    if (!c->name) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    for (int32_t d = 0; d < n; d++) {
        struct cluster_device *cd = &c->dev[d];
        char dn[BENCH_NAME_MAX + 16];

        snprintf(dn, sizeof(dn), "%s%d", strcmp(r->backend, "cuda") == 0 ? "gpu" : "cpu", (int)d);
        free(cd->name);
        cd->name = mem_strdup(dn);
        if (!cd->name) {
            rc = BAECHI_ENOMEM;
            goto cleanup;
        }
        cd->kind = strcmp(r->backend, "cuda") == 0 ? device_kind(r->dev[d].info.name) : NULL;
        cd->mem_bytes = r->dev[d].info.mem_usable_bytes;
        cd->speed = 1.0;
        cd->peak_flops = r->dev[d].peak_flops;
        cd->mem_bw_bytes_per_s = r->dev[d].mem_bw_bytes_per_s;
        cd->launch_us = r->dev[d].launch_us;
    }
    /* deviation: a fitted intercept can come out slightly negative when large
       sizes dominate the least squares; the model clamps it to 0 */
    if (r->have_fit) {
        c->comm.slope_us_per_byte = fmax(r->all.slope, 0.0);
        c->comm.intercept_us = fmax(r->all.intercept, 0.0);
        if (r->n_groups > 1) {
            c->pair = mem_calloc((size_t)n * (size_t)n, sizeof(*c->pair));
            if (!c->pair) {
                rc = BAECHI_ENOMEM;
                goto cleanup;
            }
            for (int32_t i = 0; i < n * n; i++) {
                c->pair[i].slope_us_per_byte = NAN;
                c->pair[i].intercept_us = NAN;
            }
            for (int32_t p = 0; p < r->n_pairs; p++) {
                const struct fit_line *f = &r->group[r->pair[p].group].fit;
                struct comm_model *m = &c->pair[r->pair[p].src * n + r->pair[p].dst];

                m->slope_us_per_byte = fmax(f->slope, 0.0);
                m->intercept_us = fmax(f->intercept, 0.0);
            }
        }
    }
    c->channel = CHANNEL_DUPLEX;
    off = (size_t)snprintf(src, sizeof(src),
                           "measured by '%s' on %s (%s backend; %s; %s; GEMM: %s): ",
                           command ? command : "baechi calibrate", r->date, r->backend, r->driver,
                           r->runtime, r->gemm);
    for (int32_t d = 0; d < n && off < sizeof(src); d++) {
        off += (size_t)snprintf(src + off, sizeof(src) - off, "%s%s", d ? ", " : "",
                                r->dev[d].info.name);
    }
    /* the fit's quality goes with the cluster (provenance) and is said aloud when poor */
    if (r->have_fit && off < sizeof(src)) {
        char q[400], w[700] = "";
        double worst = 0;
        int bad = 0;
        if (fit_check(&r->all, NULL, range_name, 0, q, sizeof(q))) {
            err_warn("calibration: the pooled transfer fit is poor: %s", q);
            snprintf(w, sizeof(w), "all pairs: %s", q);
            bad++;
        }
        for (int32_t g = 0; g < r->n_groups; g++) {
            for (int k = 0; k < CALIB_N_RANGES; k++) {
                if (r->group[g].err[k].n > 0) {
                    worst = fmax(worst, r->group[g].err[k].worst_rel);
                }
            }
            if (fit_check(&r->group[g].fit, r->group[g].err, range_name, CALIB_N_RANGES, q,
                          sizeof(q))) {
                size_t len = strlen(w);
                err_warn("calibration: the fit of group %d (%s) is poor: %s", (int)g,
                         r->group[g].path, q);
                snprintf(w + len, sizeof(w) - len, "%sgroup %d: %s", len ? "; " : "", (int)g, q);
                bad++;
            }
        }
        off += (size_t)snprintf(src + off, sizeof(src) - off,
                                "; fit quality: R² %.5f over all pairs, worst error %.1f %% over "
                                "%d group%s%s%s",
                                r->all.r2, 100 * worst, (int)r->n_groups,
                                r->n_groups == 1 ? "" : "s", bad ? "; WARNING: " : "", w);
    }
    c->source = mem_strdup(src);
    c->description = mem_strdup(
        r->have_fit ? "calibrated: comm model fitted by least squares, peak_flops and mem_bw "
                      "measured (GEMM, copy kernel), memory = usable at calibration"
                    : "calibrated on one device: no transfer measured, comm model is the "
                      "original's default (0.0001754 us/B + 134 us)");
    if (!c->source || !c->description) {
        rc = BAECHI_ENOMEM;
    }
cleanup:
    if (rc) {
        cluster_release(c);
    }
    return rc;
}

static void print_range_errors(FILE *f, const struct fit_range_err *err)
{
    for (int k = 0; k < CALIB_N_RANGES; k++) {
        if (err[k].n > 0) {
            fprintf(f, " %s %.1f%%", range_name[k], 100 * err[k].worst_rel);
        } else {
            fprintf(f, " %s -", range_name[k]);
        }
    }
}

static void fmt_bw(double bytes_per_s, char *buf, size_t size)
{
    if (!isfinite(bytes_per_s) || bytes_per_s <= 0) {
        snprintf(buf, size, "bandwidth not resolved");
    } else {
        snprintf(buf, size, "%.2f GB/s", bytes_per_s / 1e9);
    }
}

int calibrate_write_yaml(const struct calib_result *r, const struct cluster *c, FILE *f)
{
    int rc = cluster_write_yaml(c, f);

    if (rc) {
        return rc;
    }
    fprintf(f, "# calibration (%s backend, %s)\n", r->backend, r->date);
    for (int32_t d = 0; d < r->n_devices; d++) {
        const struct calib_device *cd = &r->dev[d];

        fprintf(f,
                "# device %d: %s; usable %.0f MiB of %.0f MiB; GEMM peak %.1f GFLOP/s; copy "
                "bandwidth %.2f GB/s; launch overhead %.2f us\n",
                (int)d, cd->info.name, (double)cd->info.mem_usable_bytes / 1048576.0,
                (double)cd->info.mem_total_bytes / 1048576.0, cd->peak_flops / 1e9,
                cd->mem_bw_bytes_per_s / 1e9, cd->launch_us);
    }
    if (!r->have_fit) {
        fprintf(f, "# no device pair: the communication model is the default\n");
        return ferror(f) ? err_set(BAECHI_EIO, "write error") : 0;
    }
    fprintf(f, "# transfers 2^%d..2^%d B, %d timed after %d warm-up, median per size\n",
            (int)r->opt.min_exp, (int)r->opt.max_exp, (int)r->opt.iters, (int)r->opt.warmup);
    fprintf(f, "# all pairs: %.6g us/B + %.3f us (R^2 %.5f)\n", r->all.slope, r->all.intercept,
            r->all.r2);
    if (r->allreduce.have) {
        fprintf(f,
                "# ring all-reduce over %d devices: %.6g us/B + %.3f us (R^2 %.5f); per link "
                "%.6g us/B, alpha %.3f us\n",
                (int)r->allreduce.n, r->allreduce.fit.slope, r->allreduce.fit.intercept,
                r->allreduce.fit.r2, r->allreduce.link_slope_us_per_byte,
                r->allreduce.link_alpha_us);
    }
    for (int32_t g = 0; g < r->n_groups; g++) {
        const struct calib_group *cg = &r->group[g];

        fprintf(f, "# group %d (%s, %d pairs): %.6g us/B + %.3f us, R^2 %.5f, worst error", (int)g,
                cg->path, (int)cg->n_pairs, cg->fit.slope, cg->fit.intercept, cg->fit.r2);
        print_range_errors(f, cg->err);
        fputc('\n', f);
    }
    for (int32_t p = 0; p < r->n_pairs; p++) {
        const struct calib_pair *cp = &r->pair[p];

        fprintf(f, "# pair %d->%d group %d: %.6g us/B + %.3f us, R^2 %.5f\n", (int)cp->src,
                (int)cp->dst, (int)cp->group, cp->fit.slope, cp->fit.intercept, cp->fit.r2);
    }
    return ferror(f) ? err_set(BAECHI_EIO, "write error") : 0;
}

void calibrate_print_summary(const struct calib_result *r, FILE *f)
{
    char bw[32];

    fprintf(f, "calibration: %s backend, %d devices, %s\n", r->backend, (int)r->n_devices, r->date);
    fprintf(f, "  %s; %s; GEMM: %s\n", r->driver, r->runtime, r->gemm);
    for (int32_t d = 0; d < r->n_devices; d++) {
        const struct calib_device *cd = &r->dev[d];

        fmt_bw(cd->mem_bw_bytes_per_s, bw, sizeof(bw));
        fprintf(f, "  device %d  %s\n", (int)d, cd->info.name);
        fprintf(f, "    usable memory   %.1f MiB (of %.1f MiB)\n",
                (double)cd->info.mem_usable_bytes / 1048576.0,
                (double)cd->info.mem_total_bytes / 1048576.0);
        fprintf(f, "    GEMM            ");
        for (int32_t i = 0; i < r->opt.n_gemm; i++) {
            fprintf(f, "%sn=%d %.2f GFLOP/s", i ? ", " : "", (int)r->opt.gemm_n[i],
                    cd->gemm_flops[i] / 1e9);
        }
        fprintf(f, "\n    memory bandwidth %s (copy, read + write)\n", bw);
        fprintf(f, "    launch overhead %.2f µs\n", cd->launch_us);
    }
    if (!r->have_fit) {
        fprintf(f, "transfers: one device, nothing to measure; the default model stays\n");
        return;
    }
    fprintf(f, "transfers: sizes 2^%d..2^%d B, median of %d after %d warm-up\n",
            (int)r->opt.min_exp, (int)r->opt.max_exp, (int)r->opt.iters, (int)r->opt.warmup);
    for (int32_t p = 0; p < r->n_pairs; p++) {
        const struct calib_pair *cp = &r->pair[p];

        fmt_bw(cp->fit.slope > 0 ? 1e6 / cp->fit.slope : INFINITY, bw, sizeof(bw));
        fprintf(f, "  %d -> %d  %-22s %.6g µs/B + %.2f µs (%s), R² %.4f, worst error", (int)cp->src,
                (int)cp->dst, cp->path, cp->fit.slope, cp->fit.intercept, bw, cp->fit.r2);
        print_range_errors(f, cp->err);
        fprintf(f, ", group %d\n", (int)cp->group);
    }
    for (int32_t g = 0; g < r->n_groups; g++) {
        const struct calib_group *cg = &r->group[g];

        fmt_bw(cg->fit.slope > 0 ? 1e6 / cg->fit.slope : INFINITY, bw, sizeof(bw));
        fprintf(f, "  group %d: %d pairs, %s, %.6g µs/B + %.2f µs (%s), R² %.4f\n", (int)g,
                (int)cg->n_pairs, cg->path, cg->fit.slope, cg->fit.intercept, bw, cg->fit.r2);
    }
    fprintf(f, "  all pairs: %.6g µs/B + %.2f µs, R² %.4f (the cluster's default model)\n",
            r->all.slope, r->all.intercept, r->all.r2);
    if (r->allreduce.skipped[0]) {
        fprintf(f, "collectives: not measured: %s\n", r->allreduce.skipped);
    }
    if (r->allreduce.have) {
        const struct calib_coll *a = &r->allreduce;

        fprintf(f,
                "collectives: ring all-reduce over %d devices: %.6g µs/B + %.2f µs, R² %.4f;\n"
                "  per link (2(n-1)/n·S/B + 2(n-1)·α): %.6g µs/B (%.3g GB/s), α %.2f µs\n",
                (int)a->n, a->fit.slope, a->fit.intercept, a->fit.r2, a->link_slope_us_per_byte,
                a->link_slope_us_per_byte > 0 ? 1e-3 / a->link_slope_us_per_byte : 0.0,
                a->link_alpha_us);
    }
}

static void json_fit(FILE *f, const struct fit_line *fit, const struct fit_range_err *err)
{
    fprintf(f, "{\"slope_us_per_byte\": %.9g, \"intercept_us\": %.6g, \"r2\": %.6g", fit->slope,
            fit->intercept, fit->r2);
    if (err) {
        fprintf(f, ", \"worst_rel_error\": [");
        for (int k = 0; k < CALIB_N_RANGES; k++) {
            fprintf(f, "%s{\"range\": \"%s\", \"points\": %d, \"worst\": %.6g}", k ? ", " : "",
                    range_name[k], (int)err[k].n, err[k].worst_rel);
        }
        fputc(']', f);
    }
    fputc('}', f);
}

void calibrate_print_json(const struct calib_result *r, FILE *f)
{
    fprintf(f, "{\"backend\": \"%s\", \"date\": \"%s\", \"driver\": ", r->backend, r->date);
    json_out_str(f, r->driver);
    fprintf(f, ", \"runtime\": ");
    json_out_str(f, r->runtime);
    fprintf(f, ", \"gemm\": ");
    json_out_str(f, r->gemm);
    fprintf(f, ", \"devices\": [");
    for (int32_t d = 0; d < r->n_devices; d++) {
        const struct calib_device *cd = &r->dev[d];

        fprintf(f, "%s{\"name\": ", d ? ", " : "");
        json_out_str(f, cd->info.name);
        fprintf(f,
                ", \"mem_usable_bytes\": %lld, \"mem_total_bytes\": %lld, \"peak_flops\": %.6g, "
                "\"mem_bw_bytes_per_s\": %.6g, \"launch_us\": %.4g}",
                (long long)cd->info.mem_usable_bytes, (long long)cd->info.mem_total_bytes,
                cd->peak_flops, cd->mem_bw_bytes_per_s, cd->launch_us);
    }
    fprintf(f, "], \"sizes_bytes\": [");
    for (int32_t k = 0; k < r->n_sizes; k++) {
        fprintf(f, "%s%.0f", k ? ", " : "", r->size_bytes[k]);
    }
    fprintf(f, "], \"pairs\": [");
    for (int32_t p = 0; p < r->n_pairs; p++) {
        const struct calib_pair *cp = &r->pair[p];

        fprintf(f, "%s{\"src\": %d, \"dst\": %d, \"path\": \"%s\", \"group\": %d, \"fit\": ",
                p ? ", " : "", (int)cp->src, (int)cp->dst, cp->path, (int)cp->group);
        json_fit(f, &cp->fit, cp->err);
        fprintf(f, ", \"median_us\": [");
        for (int32_t k = 0; k < r->n_sizes; k++) {
            fprintf(f, "%s%.4g", k ? ", " : "", cp->median_us[k]);
        }
        fprintf(f, "]}");
    }
    fprintf(f, "], \"groups\": [");
    for (int32_t g = 0; g < r->n_groups; g++) {
        fprintf(f, "%s{\"pairs\": %d, \"path\": \"%s\", \"fit\": ", g ? ", " : "",
                (int)r->group[g].n_pairs, r->group[g].path);
        json_fit(f, &r->group[g].fit, r->group[g].err);
        fputc('}', f);
    }
    fprintf(f, "]");
    if (r->have_fit) {
        fprintf(f, ", \"all\": ");
        json_fit(f, &r->all, NULL);
    }
    if (r->allreduce.have) {
        const struct calib_coll *a = &r->allreduce;

        fprintf(f, ", \"allreduce\": {\"ranks\": %d, \"fit\": ", (int)a->n);
        json_fit(f, &a->fit, NULL);
        fprintf(f, ", \"link_slope_us_per_byte\": %.9g, \"link_alpha_us\": %.6g, \"median_us\": [",
                a->link_slope_us_per_byte, a->link_alpha_us);
        for (int32_t k = 0; k < r->n_sizes; k++) {
            fprintf(f, "%s%.4g", k ? ", " : "", a->median_us[k]);
        }
        fprintf(f, "]}");
    }
    fprintf(f, "}\n");
}
