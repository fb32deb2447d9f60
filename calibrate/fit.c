/*
 * fit.c - least squares, R², range errors and pair grouping (see fit.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "calibrate/fit.h"

#include "core/alloc.h"
#include "core/err.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fit_linear(const double *x, const double *y, int32_t n, struct fit_line *out)
{
    double mx = 0, my = 0, sxx = 0, sxy = 0, syy = 0, sse = 0;

    memset(out, 0, sizeof(*out));
    if (n < 2) {
        return err_set(BAECHI_EINVAL, "a linear fit needs at least 2 points, got %d", (int)n);
    }
    for (int32_t i = 0; i < n; i++) {
        if (!isfinite(x[i]) || !isfinite(y[i])) {
            return err_set(BAECHI_EINVAL, "non-finite point %d in a linear fit", (int)i);
        }
        mx += x[i];
        my += y[i];
    }
    mx /= n;
    my /= n;
    for (int32_t i = 0; i < n; i++) {
        double dx = x[i] - mx, dy = y[i] - my;

        sxx += dx * dx;
        sxy += dx * dy;
        syy += dy * dy;
    }
    if (sxx <= 0) {
        return err_set(BAECHI_EINVAL, "a linear fit needs two distinct x values");
    }
    out->slope = sxy / sxx;
    out->intercept = my - out->slope * mx;
    out->n = n;
    for (int32_t i = 0; i < n; i++) {
        double r = y[i] - fit_eval(out, x[i]);

        sse += r * r;
    }
    out->r2 = syy > 0 ? 1.0 - sse / syy : (sse <= 0 ? 1.0 : 0.0);
    return 0;
}

double fit_eval(const struct fit_line *f, double x)
{
    return f->slope * x + f->intercept;
}

void fit_range_errors(const struct fit_line *f, const double *x, const double *y, int32_t n,
                      const double *bounds, int32_t n_bounds, struct fit_range_err *out)
{
    for (int32_t r = 0; r + 1 < n_bounds; r++) {
        struct fit_range_err *e = &out[r];

        e->lo = bounds[r];
        e->hi = bounds[r + 1];
        e->worst_rel = 0;
        e->at_x = NAN;
        e->n = 0;
        for (int32_t i = 0; i < n; i++) {
            double rel;

            if (x[i] < e->lo || x[i] >= e->hi || y[i] <= 0) {
                continue;
            }
            e->n++;
            rel = fabs(fit_eval(f, x[i]) - y[i]) / y[i];
            if (rel > e->worst_rel || isnan(e->at_x)) {
                e->worst_rel = rel;
                e->at_x = x[i];
            }
        }
    }
}

static void append(char *buf, size_t size, const char *text)
{
    size_t n = strlen(buf);

    if (n < size) {
        snprintf(buf + n, size - n, "%s%s", n ? "; " : "", text);
    }
}

int fit_check(const struct fit_line *f, const struct fit_range_err *err,
              const char *const *range_name, int32_t n_ranges, char *buf, size_t size)
{
    char t[160];
    int n = 0;

    if (size) {
        buf[0] = '\0';
    }
    if (!(f->r2 >= FIT_MIN_R2)) {
        snprintf(t, sizeof(t), "R² %.4f < %.2f", f->r2, FIT_MIN_R2);
        append(buf, size, t);
        n++;
    }
    if (f->intercept < 0) {
        snprintf(t, sizeof(t), "intercept %.1f µs clamped to 0", f->intercept);
        append(buf, size, t);
        n++;
    }
    for (int32_t k = 0; err && k < n_ranges; k++) {
        if (err[k].n > 0 && err[k].worst_rel > FIT_MAX_REL_ERR) {
            snprintf(t, sizeof(t), "worst error %.1f %% > %.0f %% in %s (at %.0f B)",
                     100 * err[k].worst_rel, 100 * FIT_MAX_REL_ERR,
                     range_name ? range_name[k] : "a size range", err[k].at_x);
            append(buf, size, t);
            n++;
        }
    }
    return n;
}

static int similar(const struct fit_line *a, const struct fit_line *b, double rel_tol,
                   double abs_tol_us)
{
    double smax = fmax(fabs(a->slope), fabs(b->slope));
    double imax = fmax(fabs(a->intercept), fabs(b->intercept));

    return fabs(a->slope - b->slope) <= rel_tol * smax &&
           fabs(a->intercept - b->intercept) <= fmax(rel_tol * imax, abs_tol_us);
}

int32_t fit_group(const struct fit_line *f, int32_t n, double rel_tol, double abs_tol_us,
                  int32_t *group_of)
{
    int32_t n_groups = 0;

    for (int32_t i = 0; i < n; i++) {
        group_of[i] = -1;
        for (int32_t j = 0; j < i; j++) {
            /* j is the first member of its group when no earlier line has its id */
            int first = 1;

            for (int32_t k = 0; k < j && first; k++) {
                first = group_of[k] != group_of[j];
            }
            if (first && similar(&f[i], &f[j], rel_tol, abs_tol_us)) {
                group_of[i] = group_of[j];
                break;
            }
        }
        if (group_of[i] < 0) {
            group_of[i] = n_groups++;
        }
    }
    return n_groups;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

double fit_median(const double *v, int32_t n)
{
    double *tmp, m;

    if (n <= 0) {
        return NAN;
    }
    tmp = mem_alloc_array((size_t)n, sizeof(*tmp));
    if (!tmp) {
        return NAN;
    }
    memcpy(tmp, v, (size_t)n * sizeof(*tmp));
    qsort(tmp, (size_t)n, sizeof(*tmp), cmp_double);
    m = n % 2 ? tmp[n / 2] : 0.5 * (tmp[n / 2 - 1] + tmp[n / 2]);
    free(tmp);
    return m;
}
