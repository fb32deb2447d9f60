/*
 * limits.h - the range of every number the file formats and the placer
 * options accept: one table for the readers, the writers and the command
 * line (docs/limits.md lists the same numbers with their units).  A reader
 * rejects a value outside its range with file:line:col; a writer refuses to
 * write one; the arithmetic on values inside the ranges saturates instead of
 * wrapping (core/checked.h).
 *
 * Why these bounds: they are far beyond any real machine or model (a step of
 * 1e15 µs is 31 years; a device 1e6 times faster or slower than the
 * reference one does not exist), and close enough that products of two of
 * them stay finite in a double and, after saturation, in an int64.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CORE_LIMITS_H
#define BAECHI_CORE_LIMITS_H

#include <math.h>
#include <stdint.h>

/* Workload: per-op numbers (time_us, flops, bytes are doubles; absent = NaN). */
#define LIMIT_TIME_US_MAX   1e15  /* µs, op time_us */
#define LIMIT_OP_FLOPS_MAX  1e24  /* FLOP, op flops */
#define LIMIT_OP_BYTES_MAX  1e24  /* bytes, op bytes (memory traffic) */
#define LIMIT_OP_DEVICE_MAX 65535 /* op device index (a placement hint) */
#define LIMIT_MAX_DEVICES   4096  /* devices in a cluster */

/* Cluster: devices and the communication model. */
#define LIMIT_SPEED_MIN      1e-6 /* device speed, relative to the reference device */
#define LIMIT_SPEED_MAX      1e6
#define LIMIT_PEAK_FLOPS_MIN 1e6  /* FLOP/s */
#define LIMIT_PEAK_FLOPS_MAX 1e21 /* FLOP/s */
#define LIMIT_BANDWIDTH_MIN  1e6  /* bytes/s */
#define LIMIT_BANDWIDTH_MAX  1e18 /* bytes/s */
#define LIMIT_LAUNCH_US_MAX  1e9  /* µs */
#define LIMIT_SLOPE_MAX      1e6  /* µs/byte */
#define LIMIT_INTERCEPT_MAX  1e9  /* µs */

/* Placer options (command line and sweep files alike). */
#define LIMIT_FRACTION_MIN  1e-9 /* --memory-fraction, memory_fractions: (0, 1] */
#define LIMIT_FRACTION_MAX  1.0  /* a device keeps at most all its memory */
#define LIMIT_FACTOR_MAX    1e9  /* --comm-factor [0, max], --compute-factor [min, max] */
#define LIMIT_LP_TIME_MAX_S 1e6  /* --lp-time-limit, lp_time_limit, seconds */
#define LIMIT_LP_ITERS_MAX  2e9  /* --lp-iteration-limit (GLPK's it_lim is an int) */
#define LIMIT_THRESHOLD_MIN 0.0  /* --threshold, sct_threshold: m-SCT's rounding */
#define LIMIT_THRESHOLD_MAX 1.0
#define LIMIT_SEED_MAX      2147483647 /* --seed, seeds */

/*
 * Every computed time (compute, communication, a step) is clamped to this
 * many µs: sums of a few of them still fit in an int64 (INT64_MAX / 4 µs is
 * about 73,000 years).
 */
#define LIMIT_TIME_SAT_US (INT64_MAX / 4)

/* A time in µs (already rounded as the caller wants) as an int64, clamped to
 * +-LIMIT_TIME_SAT_US; NaN (inf x 0) counts as too large. */
static inline int64_t limit_sat_time_us(double t)
{
    if (!(t < (double)LIMIT_TIME_SAT_US)) {
        return LIMIT_TIME_SAT_US;
    }
    if (t < -(double)LIMIT_TIME_SAT_US) {
        return -LIMIT_TIME_SAT_US;
    }
    return (int64_t)t;
}

#endif
