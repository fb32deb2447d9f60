/*
 * fit.h - least-squares fits for calibration: the linear transfer model
 * time_us = slope * bytes + intercept (baechi-spec §10: the original fits
 * sklearn LinearRegression, ordinary least squares with intercept), its R²,
 * the worst relative error per size range, and grouping of device pairs
 * whose fitted links are alike (NVLink vs PCIe vs across sockets).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CALIBRATE_FIT_H
#define BAECHI_CALIBRATE_FIT_H

#include <stddef.h>
#include <stdint.h>

struct fit_line {
    double slope;     /* y per x (µs per byte for transfers) */
    double intercept; /* y at x = 0 (µs) */
    double r2;        /* coefficient of determination; 1 when all y are equal and fitted exactly */
    int32_t n;        /* number of points */
};

/*
 * Ordinary least squares y = slope * x + intercept over n >= 2 points with at
 * least two distinct x.  O(n), two passes (centred sums, numerically stable).
 * Returns 0 or BAECHI_EINVAL (too few points, all x equal, non-finite data).
 */
int fit_linear(const double *x, const double *y, int32_t n, struct fit_line *out);

/* The model's value at x. */
double fit_eval(const struct fit_line *f, double x);

/* The worst relative error |fit - y| / y of the points with lo <= x < hi. */
struct fit_range_err {
    double lo, hi;    /* the range of x (bytes) */
    double worst_rel; /* 0 when the range holds no point */
    double at_x;      /* x of the worst point */
    int32_t n;        /* points in the range */
};

/*
 * Fills out[i] for the ranges [bounds[i], bounds[i+1]), i < n_bounds - 1.
 * Points with y <= 0 are skipped (no relative error).
 */
void fit_range_errors(const struct fit_line *f, const double *x, const double *y, int32_t n,
                      const double *bounds, int32_t n_bounds, struct fit_range_err *out);

/*
 * Groups n fitted lines: line i joins the first group whose first member j
 * has |slope_i - slope_j| <= rel_tol * max(slope_i, slope_j) and
 * |intercept_i - intercept_j| <= max(rel_tol * max(|intercepts|), abs_tol_us).
 * Writes group ids (0.., by first appearance) into group_of[n] and returns the
 * number of groups.  O(n * groups).
 */
int32_t fit_group(const struct fit_line *f, int32_t n, double rel_tol, double abs_tol_us,
                  int32_t *group_of);

/* Below these a fit is reported: R² under FIT_MIN_R2, a range's worst error over FIT_MAX_REL_ERR.
 */
#define FIT_MIN_R2      0.99
#define FIT_MAX_REL_ERR 0.20

/*
 * The quality problems of one fit, as text for a warning: R² below
 * FIT_MIN_R2, a negative intercept (the model clamps it to 0), a size range
 * whose worst relative error exceeds FIT_MAX_REL_ERR (err may be NULL;
 * range_name[i] names err[i]).  Writes them "; "-separated into buf (empty
 * when the fit is sound) and returns their number.
 */
int fit_check(const struct fit_line *f, const struct fit_range_err *err,
              const char *const *range_name, int32_t n_ranges, char *buf, size_t size);

/* Median of n values (sorts a copy; n >= 1; returns NAN for n == 0 or ENOMEM). */
double fit_median(const double *v, int32_t n);

#endif
