/*
 * array.c - growable arrays (see array.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/array.h"

#include "core/err.h"

#include <stdlib.h>
#include <string.h>

int array_reserve_(void **pp, size_t *alloc, size_t need, size_t elem)
{
    size_t n;
    void *p;

    if (need <= *alloc) {
        return 0;
    }
    n = *alloc + *alloc / 2 + 16;
    if (n < need) {
        n = need;
    }
    if (elem != 0 && n > SIZE_MAX / elem) {
        return err_set(BAECHI_ENOMEM, "array of %zu elements of %zu bytes overflows", n, elem);
    }
    p = realloc(*pp, n * elem);
    if (!p) {
        return err_set(BAECHI_ENOMEM, "out of memory growing an array to %zu bytes", n * elem);
    }
    *pp = p;
    *alloc = n;
    return 0;
}

void *array_calloc(size_t n, size_t elem)
{
    void *p;

    if (n == 0) {
        n = 1;
    }
    p = calloc(n, elem);
    if (!p) {
        err_set(BAECHI_ENOMEM, "out of memory allocating %zu x %zu bytes", n, elem);
    }
    return p;
}

void *array_malloc(size_t n, size_t elem)
{
    void *p;

    if (n == 0) {
        n = 1;
    }
    if (elem != 0 && n > SIZE_MAX / elem) {
        err_set(BAECHI_ENOMEM, "allocation of %zu x %zu bytes overflows", n, elem);
        return NULL;
    }
    p = malloc(n * elem);
    if (!p) {
        err_set(BAECHI_ENOMEM, "out of memory allocating %zu bytes", n * elem);
    }
    return p;
}

char *array_strdup(const char *s)
{
    char *p = strdup(s);

    if (!p) {
        err_set(BAECHI_ENOMEM, "out of memory copying a string");
    }
    return p;
}
