/*
 * explain.h - `--explain-memory` of `baechi sim` and `baechi run`: what is
 * live at each device's peak (sim/explain.h), as text tables and as the
 * JSON value of the key "memory_explain" (docs/explain-memory.md).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CLI_EXPLAIN_H
#define BAECHI_CLI_EXPLAIN_H

#include "core/cluster.h"
#include "core/graph.h"
#include "sim/explain.h"
#include "sim/explain_json.h"

#include <stdio.h>

/* How many of the largest live allocations are listed per device. */
#define EXPLAIN_TOP MEM_EXPLAIN_TOP

/* One table per device: the peak, totals per kind, the largest tensors;
 * the same at the first over-limit allocation when there was one. */
void explain_print_text(FILE *f, const struct mem_explain *x, const struct graph *g,
                        const struct cluster *c);

/* The JSON value (an array, one object per device): sim/explain_json.h. */
void explain_print_json(FILE *f, const struct mem_explain *x, const struct graph *g,
                        const struct cluster *c);

#endif
