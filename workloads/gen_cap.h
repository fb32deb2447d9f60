/*
 * gen_cap.h - the size cap of generated and parallelised graphs (issue 30
 * item 6; beyond the original): every generator option is in its range,
 * but their product is not (`--layers 10000 --micro-batches 1024` is about
 * 300 million ops, and a 150-byte sweep file asking for it exhausted the
 * machine).  The op count is computed BEFORE the graph is built and a graph
 * over GEN_CAP_OPS ops is refused (BAECHI_EINVAL, a message naming the
 * options: exit 2 on the command line).  docs/limits.md states the cap and
 * the memory a graph at the cap takes.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_WORKLOADS_GEN_CAP_H
#define BAECHI_WORKLOADS_GEN_CAP_H

#include "core/workload.h"
#include "workloads/gen.h"
#include "workloads/parallel.h"

#include <stdint.h>

/* The most ops a generated (or parallelised) graph may have. */
#define GEN_CAP_OPS 1000000

/* The most ops a `--symmetric` parallelisation may write: its representatives
 * (four ranks a stage, docs/symmetry.md) of GPT-3 175B at 96 micro-batches
 * are 1,042,600 ops, which `run` simulates in about 830 MB at 1,024 and at
 * 16,384 GPUs; twice the cap of other graphs keeps such a file under about
 * 1.6 GB. */
#define GEN_CAP_SYMMETRIC_OPS 2000000

/*
 * The op count of gen_model(name, o) without building it: the generators'
 * op counts are affine in each of --layers, --seq (GNMT unrolls per time
 * step) and --micro-batches (a copy of forward and backward per
 * micro-batch), so the count is multilinear in them and the graphs at 2 and
 * 3 of each of those that exceed 3 (at most 8 small graphs) give it
 * exactly.  A probe that fails (an option combination the generator
 * refuses) leaves the check to the generator: *ops_out = -1.
 */
int gen_cap_ops(const char *name, const struct gen_opts *o, int64_t *ops_out);

/* 0, or BAECHI_EINVAL when gen_cap_ops is above GEN_CAP_OPS (its error
 * when a probe ran out of memory). */
int gen_cap_check(const char *name, const struct gen_opts *o);

/* 0, or BAECHI_EINVAL when parallel_apply(in, o) would give more than
 * GEN_CAP_OPS ops (GEN_CAP_SYMMETRIC_OPS with --symmetric): estimated as
 * 3/2 x ops x the ranks written a stage (D x T, or parallel_ranks_written;
 * each rank's share of the graph, and the collectives: at most 0.4 x on
 * the generated models with ZeRO 3, whose all-gathers are the most). */
int gen_cap_parallel(const struct workload *in, const struct parallel_opts *o);

#endif
