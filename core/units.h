/*
 * units.h - numbers as people read them.  Every number the suite prints
 * carries its unit (README "Units"); these two are the shared formatters.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CORE_UNITS_H
#define BAECHI_CORE_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Human-readable byte size with unit ("1.50 GiB", "512 B"). */
void units_fmt_bytes(int64_t bytes, char *buf, size_t size);

/* Human-readable time from µs with unit ("78.7 ms", "950 µs", "1.20 s"). */
void units_fmt_us(double us, char *buf, size_t size);

#endif
