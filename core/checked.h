/*
 * checked.h - arithmetic on sizes and times that cannot overflow silently:
 * one helper for the whole suite (shape inference, memory limits, the cost
 * model, cluster speeds).  Two kinds:
 *
 *   checked_*   report overflow: return true when the exact result does not
 *               fit (then *r is unspecified); the caller turns it into an
 *               error that names the input (git's st_mult, C23 ckd_mul).
 *   sat_*       saturate: clamp to [INT64_MIN, INT64_MAX] (a memory limit of
 *               "fraction x bytes" may exceed int64 but never wraps).
 *
 * Header only (static inline over the compiler's overflow builtins).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CORE_CHECKED_H
#define BAECHI_CORE_CHECKED_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline bool checked_add_i64(int64_t a, int64_t b, int64_t *r)
{
    return __builtin_add_overflow(a, b, r);
}

static inline bool checked_mul_i64(int64_t a, int64_t b, int64_t *r)
{
    return __builtin_mul_overflow(a, b, r);
}

static inline bool checked_mul_size(size_t a, size_t b, size_t *r)
{
    return __builtin_mul_overflow(a, b, r);
}

static inline int64_t sat_add_i64(int64_t a, int64_t b)
{
    int64_t r;

    if (__builtin_add_overflow(a, b, &r)) {
        return b > 0 ? INT64_MAX : INT64_MIN;
    }
    return r;
}

static inline int64_t sat_mul_i64(int64_t a, int64_t b)
{
    int64_t r;

    if (__builtin_mul_overflow(a, b, &r)) {
        return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
    }
    return r;
}

/*
 * A double as int64, truncated toward zero and clamped: NaN gives 0, values
 * beyond the range give INT64_MIN / INT64_MAX.  (A plain cast of an
 * out-of-range double is undefined behaviour.)
 */
static inline int64_t sat_i64_from_double(double v)
{
    if (isnan(v)) {
        return 0;
    }
    /* 2^63 is exactly representable; INT64_MAX is not. */
    if (v >= 9223372036854775808.0) {
        return INT64_MAX;
    }
    if (v <= -9223372036854775808.0) {
        return INT64_MIN;
    }
    return (int64_t)v;
}

/* bytes x f (a memory fraction, a scale factor), truncated and saturated. */
static inline int64_t sat_scale_i64(int64_t bytes, double f)
{
    return sat_i64_from_double((double)bytes * f);
}

#endif
