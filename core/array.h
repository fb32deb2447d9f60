/*
 * array.h - growable arrays with overflow-checked sizes (git ALLOC_GROW,
 * lua luaM_growvector): one idiom, (ptr, nr, alloc), no malloc per element.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CORE_ARRAY_H
#define BAECHI_CORE_ARRAY_H

#include <stddef.h>
#include <stdint.h>

/*
 * Makes room for at least `need` elements of `elem` bytes in *pp, whose
 * capacity is *alloc elements.  Grows by 1.5x.  Returns 0, or BAECHI_ENOMEM
 * (with a message) leaving *pp and *alloc unchanged.
 */
int array_reserve_(void **pp, size_t *alloc, size_t need, size_t elem);

#define ARRAY_RESERVE(p, alloc, need) array_reserve_((void **)&(p), &(alloc), (need), sizeof(*(p)))

#define FREE_AND_NULL(p)                                                                           \
    do {                                                                                           \
        free(p);                                                                                   \
        (p) = NULL;                                                                                \
    } while (0)

#endif
