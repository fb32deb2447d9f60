/*
 * yio_number.c - numbers, sizes and booleans of YAML files as text, both
 * ways (see yio.h): one number syntax accepted everywhere (no hex, no
 * octal, no nan/inf, no locale), and the shortest text that reads back as
 * the same double.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/yio.h"
#include "core/yio_internal.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* [+]digits[.digits][e[+-]digits] or [+].digits[...]: the only number syntax accepted. */
static bool number_syntax(const char *s, bool *integral_text)
{
    const char *p = s;
    int digits = 0;

    *integral_text = true;
    if (*p == '+') {
        p++;
    }
    while (isdigit((unsigned char)*p)) {
        p++;
        digits++;
    }
    if (*p == '.') {
        *integral_text = false;
        p++;
        while (isdigit((unsigned char)*p)) {
            p++;
            digits++;
        }
    }
    if (digits == 0) {
        return false;
    }
    if (*p == 'e' || *p == 'E') {
        *integral_text = false;
        p++;
        if (*p == '+' || *p == '-') {
            p++;
        }
        if (!isdigit((unsigned char)*p)) {
            return false;
        }
        while (isdigit((unsigned char)*p)) {
            p++;
        }
    }
    return *p == '\0';
}

bool yio_is_nan_or_inf(const char *s)
{
    static const char *const words[] = {".nan", ".NaN", ".NAN",     "nan",      "NaN",
                                        "NAN",  ".inf", ".Inf",     ".INF",     "inf",
                                        "Inf",  "INF",  "infinity", "Infinity", "INFINITY"};

    if (*s == '+' || *s == '-') {
        s++;
    }
    if (*s != '.' && *s != 'n' && *s != 'N' && *s != 'i' && *s != 'I') {
        return false; /* a digit, mostly: no word to compare */
    }
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        if (strcmp(s, words[i]) == 0) {
            return true;
        }
    }
    return false;
}

int yio_parse_bool(const char *s, bool *b)
{
    static const char *const yes[] = {"true", "True", "TRUE", "yes", "on", "1", NULL};
    static const char *const no[] = {"false", "False", "FALSE", "no", "off", "0", NULL};

    for (int i = 0; yes[i]; i++) {
        if (strcmp(s, yes[i]) == 0) {
            *b = true;
            return 0;
        }
        if (strcmp(s, no[i]) == 0) {
            *b = false;
            return 0;
        }
    }
    return -1;
}

const char *yio_parse_double(const char *s, double *out)
{
    bool integral;
    double x;

    if (yio_is_nan_or_inf(s)) {
        return "must be a finite number";
    }
    if (s[0] == '-') {
        return number_syntax(s + 1, &integral) ? "must not be negative" : "expected a number";
    }
    if (!number_syntax(s, &integral)) {
        return "expected a number";
    }
    errno = 0;
    x = strtod(s, NULL);
    if (!isfinite(x)) {
        return "is too large (not a finite double)";
    }
    *out = x;
    return NULL;
}

const char *yio_parse_size(const char *s, int64_t *out)
{
    bool integral;

    if (yio_is_nan_or_inf(s)) {
        return "must be a finite integer";
    }
    if (s[0] == '-') {
        return number_syntax(s + 1, &integral) ? "must not be negative" : "expected an integer";
    }
    if (!number_syntax(s, &integral)) {
        return "expected an integer";
    }
    if (integral) {
        long long v;

        errno = 0;
        v = strtoll(s, NULL, 10);
        if (errno == ERANGE) {
            return "does not fit in 64 bits";
        }
        *out = (int64_t)v;
        return NULL;
    } else {
        double x = strtod(s, NULL);

        if (!isfinite(x) || x >= 9223372036854775808.0) {
            return "does not fit in 64 bits";
        }
        if (x != floor(x)) {
            return "must be an integer";
        }
        *out = (int64_t)x;
        return NULL;
    }
}

void yio_fmt_double(double x, char *buf, size_t size)
{
    if (x == 0) {
        snprintf(buf, size, "0");
        return;
    }
    if (x == floor(x) && fabs(x) < 1e15) {
        snprintf(buf, size, "%.0f", x);
        return;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, size, "%.*g", prec, x);
        if (prec == 17 || strtod(buf, NULL) == x) {
            return;
        }
    }
}
