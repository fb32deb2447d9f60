/*
 * sim_incr.h - incremental re-simulation of the timed model (deviation:
 * beyond the original, which simulates every placement from the start).
 * For a search that tries many small changes of one placement (placers/
 * auto_search.c): a base run of a placement saves the simulator's whole
 * state at checkpoints (about every n/32 ended ops, between two event
 * times); a trial placement resumes from the last checkpoint before the
 * first event that can see a moved op, i.e. before the earliest end, in the
 * base run, of a producer of a moved op (an op without inputs has no
 * prefix: its trial runs from the start).  Until that event the two runs
 * handle the same events in the same order; the persistent bytes of the
 * moved ops (allocated at time 0) shift the devices' memory by a constant
 * over the prefix, which is added to the saved bytes and peaks.
 *
 * A trial's result equals sim_run's (timed model) in step, start and end
 * of every op, per-device peak, busy time, op count, final bytes, OOM flag
 * and the link matrices.  Not filled: peak_kind_bytes (zeros), and the op
 * and time of an OOM whose first crossing lies in a shifted prefix (-1).
 *
 * With a cutoff, a trial stops as soon as its step is certainly >= the
 * cutoff (an op ends at t with a chain of ops after it that takes at least
 * `tail` at the fastest device's speed, or, once every moved op has
 * started, on the base's placement with its transfers: t + tail >=
 * cutoff; or a device's
 * ops not started yet, which it runs one at a time, cannot end before the
 * cutoff) or an allocation crosses a device's limit; *cut says so and r is
 * incomplete.
 *
 * Work is counted, not timed, so callers can budget it: a run's visits are
 * Σ (1 + out-degree) over the ops it ends, plus n_ops / 16 for restoring a
 * checkpoint; a full run costs n_ops + n_edges.
 *
 * Only for graphs without collectives, shared storage (x-alias) and
 * micro-batches (sim_incr_supported): there the placement changes the
 * state before any event (alias roots, the pipeline stages).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_SIM_SIM_INCR_H
#define BAECHI_SIM_SIM_INCR_H

#include "core/cluster.h"
#include "core/graph.h"
#include "sim/sim.h"

#include <stdbool.h>
#include <stdint.h>

struct sim_incr;

/* Whether g can be re-simulated incrementally (see above). */
bool sim_incr_supported(const struct graph *g);

/* A new re-simulator for g on c (both kept by pointer).  0, BAECHI_EINVAL
 * (an unsupported graph), BAECHI_ENOMEM. */
int sim_incr_new(const struct graph *g, const struct cluster *c, struct sim_incr **out);
void sim_incr_free(struct sim_incr *in);

/*
 * A full timed run of device_of (checked as sim_run does) into r (released
 * and filled), recording checkpoints; it becomes the base of later trials.
 * *visits: the work done.  0, BAECHI_EINVAL, BAECHI_ENOMEM.
 */
int sim_incr_base(struct sim_incr *in, const int32_t *device_of, struct sim_result *r,
                  uint64_t *visits);

/*
 * A trial: the timed run of device_of resumed from the base (a full run
 * when there is no base), into r: empty, or a result of the same graph and
 * cluster, whose arrays a trial keeps (released and filled otherwise).  cutoff_us > 0:
 * stop early as above (*cut).  *visits: the work done.  0, BAECHI_EINVAL,
 * BAECHI_ENOMEM.
 */
int sim_incr_run(struct sim_incr *in, const int32_t *device_of, int64_t cutoff_us,
                 struct sim_result *r, bool *cut, uint64_t *visits);

#endif
