/*
 * calibrate.h - the calibration pipeline on a bench backend: transfer
 * benchmark per ordered device pair (sizes 2^min_exp .. 2^max_exp bytes,
 * baechi-spec §10), medians, least-squares fits with R² and worst relative
 * error per size range, grouping of alike pairs; GEMM throughput, memory
 * bandwidth, launch overhead and usable memory per device; and the fitted
 * cluster (core/cluster.h) with provenance.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CALIBRATE_CALIBRATE_H
#define BAECHI_CALIBRATE_CALIBRATE_H

#include "calibrate/bench.h"
#include "calibrate/fit.h"
#include "core/cluster.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define CALIB_N_RANGES 3 /* [1 B, 64 KiB), [64 KiB, 16 MiB), [16 MiB, ...) */
#define CALIB_MAX_GEMM 8

struct calib_options {
    int32_t min_exp, max_exp;       /* transfer sizes 2^min_exp .. 2^max_exp bytes */
    int32_t warmup, iters;          /* per size (the original: 5 and 20) */
    int32_t gemm_n[CALIB_MAX_GEMM]; /* GEMM sizes */
    int32_t n_gemm;
    int32_t gemm_iters;
    int64_t membw_bytes; /* buffer of the bandwidth test */
    int32_t launch_iters;
    double group_rel_tol; /* fit_group tolerances */
    double group_abs_us;
};

/* Defaults of a backend ("cpu" or "cuda"); quick = a reduced range for tests. */
void calib_options_default(struct calib_options *o, const char *backend, bool quick);

struct calib_pair {
    int32_t src, dst;  /* backend device indices */
    const char *path;  /* how copies travel (static string of the backend) */
    double *median_us; /* per size */
    struct fit_line fit;
    struct fit_range_err err[CALIB_N_RANGES];
    int32_t group;
};

struct calib_group {
    struct fit_line fit; /* pooled over the members' medians */
    struct fit_range_err err[CALIB_N_RANGES];
    int32_t n_pairs;
    const char *path;
};

struct calib_device {
    struct bench_device_info info;
    double gemm_flops[CALIB_MAX_GEMM];
    double peak_flops; /* max over GEMM sizes */
    double mem_bw_bytes_per_s;
    double launch_us;
};

/*
 * A ring all-reduce over every device (bench_ops.allreduce_us; beyond the
 * original), per size, fitted to time = slope·S + intercept and read as the
 * per-link model of sim/collective.h: 2(n-1)/n·S/B + 2(n-1)·α, so
 * link slope = slope·n / (2(n-1)) µs/byte and α = intercept / (2(n-1)) µs.
 */
struct calib_coll {
    bool have;         /* measured (the backend has it and n >= 2) */
    int32_t n;         /* ranks (devices) */
    double *median_us; /* per size */
    struct fit_line fit;
    double link_slope_us_per_byte, link_alpha_us;
    char skipped[200]; /* why not measured when the backend cannot (no NCCL); "" otherwise */
};

struct calib_result {
    char backend[16];
    char date[40]; /* ISO 8601, UTC */
    int32_t n_devices;
    struct calib_device *dev;
    int32_t n_sizes;
    double *size_bytes;
    struct calib_pair *pair; /* n_devices * (n_devices - 1), row-major by src */
    int32_t n_pairs;
    struct calib_group *group;
    int32_t n_groups;
    struct fit_line all; /* pooled over every pair (the cluster's default model) */
    bool have_fit;       /* false with one device (no pairs) */
    char driver[64], runtime[64];
    char gemm[96]; /* what measured peak FLOP/s (bench.h) */
    struct calib_options opt;
    struct calib_coll allreduce;
};

void calib_result_release(struct calib_result *r);

/* Runs everything; fills r (initialised here).  Errors from the backend or ENOMEM. */
int calibrate_run(struct bench *b, const struct calib_options *o, struct calib_result *r);

/*
 * The fitted cluster: one device per backend device (name, kind, usable
 * memory, measured peak FLOP/s and bandwidth), the pooled fit as the default
 * model and each pair's group fit as its override.  `command` goes into the
 * provenance (`source`).  c is initialised here.
 */
int calibrate_to_cluster(const struct calib_result *r, const char *name, const char *command,
                         struct cluster *c);

/* Writes the cluster YAML followed by comment lines with the fits (R², errors, groups). */
int calibrate_write_yaml(const struct calib_result *r, const struct cluster *c, FILE *f);

/* Human summary (units everywhere) or JSON. */
void calibrate_print_summary(const struct calib_result *r, FILE *f);
void calibrate_print_json(const struct calib_result *r, FILE *f);

#endif
