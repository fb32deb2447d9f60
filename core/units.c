/*
 * units.c - numbers as people read them: bytes and times with their unit.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/units.h"

#include <stdio.h>

void units_fmt_bytes(int64_t bytes, char *buf, size_t size)
{
    static const char *const unit[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = (double)bytes;
    int u = -1;

    if (bytes < 1024 && bytes > -1024) {
        snprintf(buf, size, "%lld B", (long long)bytes);
        return;
    }
    while ((v >= 1024 || v <= -1024) && u < 4) {
        v /= 1024;
        u++;
    }
    snprintf(buf, size, "%.2f %s", v, unit[u]);
}

void units_fmt_us(double us, char *buf, size_t size)
{
    if (us < 1000 && us > -1000) {
        snprintf(buf, size, "%.0f µs", us);
    } else if (us < 1e6 && us > -1e6) {
        snprintf(buf, size, "%.3f ms", us / 1e3);
    } else {
        snprintf(buf, size, "%.3f s", us / 1e6);
    }
}
