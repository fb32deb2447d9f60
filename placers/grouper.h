/*
 * grouper.h - colocation groups as the placers see them (baechi-spec
 * §6.1): `tf`, the workload's groups, and `coplace`, where an op whose
 * outputs feed one consumer op joins its group (grouper.c).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_PLACERS_GROUPER_H
#define BAECHI_PLACERS_GROUPER_H

#include "core/graph.h"

#include <stdint.h>

enum placer_grouper {
    PLACER_GROUPER_TF = 0,     /* the workload's colocation groups (§6.1 `tf`) */
    PLACER_GROUPER_COPLACE = 1 /* + an op with one consumer op joins its group (§6.1) */
};

/*
 * Colocation groups after grouper `grouper` (§6.1): group_of[op] in
 * 0..*n_groups-1, numbered by first appearance in op order; group_of holds
 * g->n_ops entries.  When rep_name is not NULL (g->n_ops entries, caller-
 * allocated), rep_name[k] is group k's name: the shortest member group name,
 * ties lexicographic (the original's representative), pointing into g's pool.
 */
int placer_group(const struct graph *g, enum placer_grouper grouper, int32_t *group_of,
                 int32_t *n_groups, const char **rep_name);

/* "tf" / "coplace" -> grouper; 0 or BAECHI_EINVAL. */
int placer_grouper_parse(const char *s, enum placer_grouper *gr);
const char *placer_grouper_name(enum placer_grouper gr);

#endif
