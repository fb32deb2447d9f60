/*
 * yio_internal.h - what the parts of the YAML helpers (see yio.h) share:
 *
 *   yio.c         whole files in, the event reader and its messages
 *   yio_number.c  numbers, sizes and booleans as text, both ways
 *   yio_write.c   the event writer
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CORE_YIO_INTERNAL_H
#define BAECHI_CORE_YIO_INTERNAL_H

#include <stdbool.h>

/* "nan", "inf" and their spellings that YAML or strtod would read as a
 * number (yio_number.c): the parsers refuse them, the writer quotes them. */
bool yio_is_nan_or_inf(const char *s);

#endif
