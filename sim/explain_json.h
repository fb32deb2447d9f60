/*
 * explain_json.h - the memory explanation (sim/explain.h) as JSON: the
 * value of the key "memory_explain" of `baechi sim --explain-memory --json`
 * (docs/explain-memory.md), written here so that the program and the C API
 * (baechi_explain_memory) give the same text.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_SIM_EXPLAIN_JSON_H
#define BAECHI_SIM_EXPLAIN_JSON_H

#include "core/cluster.h"
#include "core/graph.h"
#include "sim/explain.h"

#include <stdio.h>

/* How many of the largest live allocations are listed per device. */
#define MEM_EXPLAIN_TOP 20

/*
 * Writes the JSON value of x, an explanation of a run of g on c: an array,
 * one object per device {id, name, limit_bytes, peak, oom}, each snapshot
 * {time_us, at_op, total_bytes, n_live, by_kind: {kind: bytes}, top: [{op,
 * tensor, kind, bytes, since_us}]}, oom null when the device fit.  Write
 * errors are the caller's to check (ferror).
 */
void mem_explain_write_json(FILE *f, const struct mem_explain *x, const struct graph *g,
                            const struct cluster *c);

#endif
