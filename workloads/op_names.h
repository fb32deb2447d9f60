/*
 * op_names.h - unique op names for the workloads a library part builds
 * (the ONNX importer's ops, the training synthesis's gradient and update
 * ops): a name from a base that is not yet in the workload, base, else
 * base_1, base_2, ..., cut to a caller's buffer without half a UTF-8
 * character.
 *
 * One helper for every builder: a name as long as the buffer, with a
 * suffix appended, would be cut back to itself and the search for a free
 * name never end; the base is therefore cut to leave room for the suffix.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_WORKLOADS_OP_NAMES_H
#define BAECHI_WORKLOADS_OP_NAMES_H

#include "core/strmap.h"
#include "core/workload.h"

#include <stddef.h>
#include <stdint.h>

/* Room op_names_unique() keeps after the base for "_N" (N an int) and the NUL. */
#define OP_NAMES_SUFFIX_ROOM 16

/*
 * The next suffix to try per base, so that n ops of one base cost O(n)
 * name look-ups, not O(n^2).  Valid while the names it returned are added
 * to the one workload it is used with.
 */
struct op_names {
    struct strpool pool;   /* the bases (keys of next_of) */
    struct strmap next_of; /* base -> index in next */
    int32_t *next;
    size_t n_next, alloc_next;
};

void op_names_init(struct op_names *u);
void op_names_release(struct op_names *u); /* NULL: nothing */

/*
 * Writes into buf (size > OP_NAMES_SUFFIX_ROOM bytes) a name not in w:
 * base cut to its first size - OP_NAMES_SUFFIX_ROOM bytes at a UTF-8
 * boundary, else that cut with "_N" appended, N the smallest not yet
 * tried for this base.  Does not add it to w.  0, BAECHI_ENOMEM, or
 * BAECHI_EINVAL when size leaves no room for a suffix.  O(length of base)
 * per call, and one look-up per name tried.
 */
int op_names_unique(struct op_names *u, const struct workload *w, const char *base, char *buf,
                    size_t size);

/* The length of the longest prefix of s's first n bytes that does not end
 * inside a UTF-8 sequence (names are cut to fit buffers; half a character
 * would make the written YAML invalid). */
int op_names_utf8_prefix(const char *s, size_t n);

#endif
