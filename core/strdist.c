/*
 * strdist.c - the edit distance behind "did you mean" (strdist.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/strdist.h"

#include "core/alloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

size_t strdist(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), d;
    size_t *block, *row0, *row1, *row2;

    block = mem_calloc(3 * (lb + 1), sizeof(size_t));
    if (!block) {
        return (size_t)-1;
    }
    /* three rows: the one before last is what a transposition looks back to */
    row0 = block;
    row1 = row0 + lb + 1;
    row2 = row1 + lb + 1;
    for (size_t j = 0; j <= lb; j++) {
        row1[j] = j;
    }
    for (size_t i = 1; i <= la; i++) {
        row2[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            size_t v = row1[j - 1] + cost;

            if (row1[j] + 1 < v) {
                v = row1[j] + 1;
            }
            if (row2[j - 1] + 1 < v) {
                v = row2[j - 1] + 1;
            }
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                row0[j - 2] + 1 < v) {
                v = row0[j - 2] + 1;
            }
            row2[j] = v;
        }
        {
            size_t *t = row0;
            row0 = row1;
            row1 = row2;
            row2 = t;
        }
    }
    d = row1[lb];
    free(block);
    return d;
}
