/*
 * test_fit.c - least squares, R², range errors, grouping (calibrate/fit.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "calibrate/fit.h"
#include "core/err.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Deterministic noise in [-1, 1] (xorshift), so runs are reproducible. */
static double noise(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (double)(*s % 2000001) / 1000000.0 - 1.0;
}

Test(fit, exact_line)
{
    double x[] = {1, 2, 3, 4}, y[] = {5, 7, 9, 11};
    struct fit_line f;

    cr_assert_eq(fit_linear(x, y, 4, &f), 0);
    cr_assert_float_eq(f.slope, 2.0, 1e-12);
    cr_assert_float_eq(f.intercept, 3.0, 1e-12);
    cr_assert_float_eq(f.r2, 1.0, 1e-12);
    cr_assert_eq(f.n, 4);
    cr_assert_float_eq(fit_eval(&f, 10), 23.0, 1e-12);
}

Test(fit, recovers_transfer_model_from_noisy_sizes)
{
    /* the original's model, 0.0001754 µs/B + 134 µs, sizes 2^0..2^29 B, 20 samples each
       with ±2 % multiplicative noise (baechi-spec §10) */
    enum { SIZES = 30, REPS = 20, N = SIZES * REPS };
    double *x = malloc(N * sizeof(double)), *y = malloc(N * sizeof(double));
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    struct fit_line f;

    cr_assert(x && y);
    for (int s = 0; s < SIZES; s++) {
        for (int r = 0; r < REPS; r++) {
            double b = ldexp(1.0, s);

            x[s * REPS + r] = b;
            y[s * REPS + r] = (0.0001754 * b + 134.0) * (1.0 + 0.02 * noise(&seed));
        }
    }
    cr_assert_eq(fit_linear(x, y, N, &f), 0);
    cr_assert(fabs(f.slope - 0.0001754) / 0.0001754 < 0.01, "slope %g", f.slope);
    cr_assert(fabs(f.intercept - 134.0) < 40.0, "intercept %g", f.intercept);
    cr_assert(f.r2 > 0.99, "R² %g", f.r2);
    free(x);
    free(y);
}

Test(fit, recovers_intercept_with_additive_noise)
{
    enum { N = 400 };
    double x[N], y[N];
    uint64_t seed = 42;
    struct fit_line f;

    for (int i = 0; i < N; i++) {
        x[i] = (double)(i % 40) * 1000.0;
        y[i] = 0.002 * x[i] + 7.5 + 0.5 * noise(&seed);
    }
    cr_assert_eq(fit_linear(x, y, N, &f), 0);
    cr_assert_float_eq(f.slope, 0.002, 1e-5);
    cr_assert_float_eq(f.intercept, 7.5, 0.1);
    cr_assert(f.r2 > 0.999 && f.r2 <= 1.0);
}

Test(fit, r2_is_low_for_noise)
{
    enum { N = 200 };
    double x[N], y[N];
    uint64_t seed = 7;
    struct fit_line f;

    for (int i = 0; i < N; i++) {
        x[i] = i;
        y[i] = 100.0 + 10.0 * noise(&seed);
    }
    cr_assert_eq(fit_linear(x, y, N, &f), 0);
    cr_assert(f.r2 < 0.1, "R² %g", f.r2);
}

Test(fit, rejects_degenerate_input)
{
    double x[] = {3, 3, 3}, y[] = {1, 2, 3}, bad[] = {1, NAN, 3}, x2[] = {1, 2, 3};
    struct fit_line f;

    err_set_quiet(1);
    cr_assert_eq(fit_linear(x, y, 3, &f), BAECHI_EINVAL);
    cr_assert_eq(fit_linear(x, y, 1, &f), BAECHI_EINVAL);
    cr_assert_eq(fit_linear(x2, bad, 3, &f), BAECHI_EINVAL);
    cr_assert(err_msg()[0] != '\0');
}

Test(fit, worst_error_per_range)
{
    /* y = x + 10 except one point 50 % off in the middle range */
    double x[] = {1, 10, 100, 1000, 10000}, y[] = {11, 20, 110, 1010, 10010};
    double bounds[] = {0, 50, 5000, INFINITY};
    struct fit_line f = {1.0, 10.0, 1.0, 5};
    struct fit_range_err e[3];

    y[2] = 110.0 / 1.5; /* the model says 110: +50 % relative to the measurement */
    fit_range_errors(&f, x, y, 5, bounds, 4, e);
    cr_assert_eq(e[0].n, 2);
    cr_assert_float_eq(e[0].worst_rel, 0.0, 1e-12);
    cr_assert_eq(e[1].n, 2);
    cr_assert_float_eq(e[1].worst_rel, 0.5, 1e-9);
    cr_assert_float_eq(e[1].at_x, 100.0, 1e-12);
    cr_assert_eq(e[2].n, 1);
    cr_assert_float_eq(e[2].worst_rel, 0.0, 1e-12);
}

Test(fit, groups_alike_links)
{
    /* NVLink-like, PCIe-like and a slightly different NVLink measurement */
    struct fit_line f[] = {
        {1.0 / 300e3, 8.0, 1, 30}, /* ~300 GB/s */
        {1.0 / 25e3, 12.0, 1, 30}, /* ~25 GB/s */
        {1.0 / 290e3, 8.5, 1, 30}, /* NVLink again */
        {1.0 / 24e3, 12.5, 1, 30}, /* PCIe again */
        {1.0 / 10e3, 40.0, 1, 30}, /* across sockets */
    };
    int32_t g[5];

    cr_assert_eq(fit_group(f, 5, 0.15, 2.0, g), 3);
    cr_assert_eq(g[0], 0);
    cr_assert_eq(g[1], 1);
    cr_assert_eq(g[2], 0);
    cr_assert_eq(g[3], 1);
    cr_assert_eq(g[4], 2);
    /* a tight tolerance splits everything */
    cr_assert_eq(fit_group(f, 5, 0.001, 0.0, g), 5);
}

Test(fit, median)
{
    double odd[] = {5, 1, 3}, even[] = {4, 1, 3, 2};

    cr_assert_float_eq(fit_median(odd, 3), 3.0, 1e-12);
    cr_assert_float_eq(fit_median(even, 4), 2.5, 1e-12);
    cr_assert(isnan(fit_median(odd, 0)));
    cr_assert_float_eq(odd[0], 5.0, 0); /* input untouched */
}

/* Calibration warns below R² 0.99, for a clamped intercept, above 20 % worst error. */
Test(fit, quality_check)
{
    const char *names[] = {"small", "large"};
    struct fit_line good = {.slope = 1e-4, .intercept = 10, .r2 = 0.999, .n = 10};
    struct fit_line bad = {.slope = 1e-4, .intercept = -178, .r2 = 0.89, .n = 10};
    struct fit_range_err err[2] = {{.n = 3, .worst_rel = 0.05, .at_x = 64},
                                   {.n = 3, .worst_rel = 49.61, .at_x = 1048576}};
    char buf[400];

    cr_assert_eq(fit_check(&good, NULL, names, 0, buf, sizeof(buf)), 0);
    cr_assert_str_eq(buf, "");
    cr_assert_eq(fit_check(&good, err, names, 1, buf, sizeof(buf)), 0, "5 %% is fine");
    cr_assert_eq(fit_check(&good, err, names, 2, buf, sizeof(buf)), 1);
    cr_assert(strstr(buf, "worst error 4961.0 % > 20 % in large (at 1048576 B)"), "%s", buf);
    cr_assert_eq(fit_check(&bad, err, names, 2, buf, sizeof(buf)), 3);
    cr_assert(strstr(buf, "R² 0.8900 < 0.99; intercept -178.0 µs clamped to 0; worst error"), "%s",
              buf);
    good.r2 = NAN;
    cr_assert_eq(fit_check(&good, NULL, names, 0, buf, sizeof(buf)), 1, "NaN R² is poor");
}
