/*
 * array.c - growable arrays (see array.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/array.h"

#include "core/alloc.h"
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
    if (!(p = mem_realloc_array(*pp, n, elem))) {
        return BAECHI_ENOMEM;
    }
    *pp = p;
    *alloc = n;
    return 0;
}
