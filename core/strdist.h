/*
 * strdist.h - the edit distance behind every "did you mean" (the CLI's
 * commands and options, the results' --where names).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CORE_STRDIST_H
#define BAECHI_CORE_STRDIST_H

#include <stddef.h>

/*
 * Damerau-Levenshtein distance of a and b in its optimal-string-alignment
 * form: insertions, deletions, substitutions and transpositions of two
 * adjacent characters cost 1 each.  Substitutions are case-blind (ASCII),
 * transpositions compare bytes as they are.  (size_t)-1 when out of memory.
 * Time O(|a| |b|), memory O(|b|).
 */
size_t strdist(const char *a, const char *b);

#endif
