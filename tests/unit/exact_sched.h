/*
 * exact_sched.h - the exact optimum over every schedule of a small placed
 * graph, for the tests of the certified lower bound (placers/bound.h):
 * branch and bound over the order in which ops and transfers start, under
 * the rules bound.h states (R1-R3) and, where it is silent, those of the
 * timed simulator (sim/sim_timed.c).
 *
 * The model (a schedule gives every op and every transfer a start time):
 *
 *   ops      op v runs cluster_compute_us(c, d, weight_us[v]) µs on its
 *            device d without preemption, one op at a time per device (R1);
 *   transfers  each tensor is sent once to each other device that has a
 *            consumer of it (sim_timed.c: one copy per receiver), after its
 *            producer ends, taking cluster_comm_us(src, dst, bytes); the
 *            channel model says what it holds while it runs, and nothing
 *            else may hold the same at once (R2; sim_timed.c channel_take):
 *              shared  chan[src] and chan[dst]
 *              duplex  send[src] and recv[dst]
 *              link    link[src][dst]
 *            any order on a channel, not only first come first served;
 *   precedence  a consumer starts after its producers end and after every
 *            tensor it reads from another device has arrived (R2);
 *   memory   (R3) a device holds the persistent bytes of its ops for the
 *            whole step, max(0, out - persistent) + temp of an op from its
 *            start, the temp until its end, the rest until the end of its
 *            last consumer (a sink keeps it); with `received_bytes` also
 *            (bound.h is silent, sim_timed.c does it) a received tensor's
 *            bytes on the receiver from the start of its transfer until the
 *            end of its last consumer there.  At one instant the frees of
 *            what ends then come before the allocations of what starts
 *            then (sim_timed.c's event order); a schedule is feasible when
 *            after the allocations of every instant each limited device
 *            (mem_bytes > 0) holds at most mem_bytes.
 *
 * Two readings where a zero length makes the simulator stricter than the
 * rules: a transfer of 0 µs occupies its channel for no time (an empty
 * interval overlaps nothing; the simulator makes it wait for a busy
 * channel), and, since starting it earlier only holds bytes longer, it is
 * taken to start with the first of its consumers on the receiver.  Both
 * only admit more schedules, so the simulator's schedule stays one of them.
 *
 * Why only starts at time 0 or at the end of something are tried: take a
 * feasible schedule and its earliest start s at another time; let t' be
 * the last end (or 0) before s.  Nothing ends in (t', s) and nothing
 * starts there either (s is the earliest such), so the activity's
 * predecessors and resources are done by t', and the memory in use over
 * [t', s) equals the memory at t', which is at most the memory at s less
 * the activity's own allocation (nothing is freed at s): starting it at t'
 * stays feasible, ends it earlier (only earlier frees and arrivals) and
 * lowers the sum of start times.  Repeating this ends (integer times), so
 * an optimal schedule exists whose every start is at 0 or at an end: the
 * search walks those event times and, at each, decides which eligible
 * activity starts there (in index order, each either started or left).
 *
 * Dominance (the same shift): an activity left at time t while eligible
 * may not start later unless, meanwhile, another activity has taken one of
 * its resources or allocated on the device it allocates on; otherwise
 * starting it at t was feasible and no worse.
 *
 * Limits: graphs of at most EXACT_MAX_OPS ops, EXACT_MAX_DEVICES devices,
 * EXACT_MAX_ACTS ops + transfers; no collectives, views (x-alias) or
 * micro-batches (the simulator's pipeline schedules).  Exponential time:
 * for graphs of about ten ops.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_TESTS_UNIT_EXACT_SCHED_H
#define BAECHI_TESTS_UNIT_EXACT_SCHED_H

#include "core/cluster.h"
#include "core/graph.h"

#include <stdbool.h>
#include <stdint.h>

#define EXACT_MAX_OPS     16
#define EXACT_MAX_DEVICES 4
#define EXACT_MAX_ACTS    64

struct exact_result;

struct exact_options {
    bool memory;         /* enforce the device limits (false: only to show a test can fail) */
    bool received_bytes; /* received copies take bytes (sim_timed.c), beyond R3 */
    bool first;          /* stop at the first schedule below the bound */
    bool no_dominance;   /* search without the dominance rule (to test that rule) */
    /* a schedule to try first (the branch order only: an activity starts
     * first where the hint starts it by then, waits first elsewhere);
     * NULL: start first everywhere */
    const struct exact_result *hint;
};

/* A transfer of a schedule: tensor to device dst, starting at start_us. */
struct exact_xfer {
    int32_t tensor, dst;
    int64_t start_us;
};

struct exact_result {
    int64_t best_us; /* the smallest makespan found below `below_us`, -1 none */
    int64_t nodes;   /* search nodes visited */
    bool fits;       /* the persistent bytes fit every device (else no search) */
    /* the schedule of best_us (when >= 0): every op's start, every transfer */
    int64_t op_start_us[EXACT_MAX_OPS];
    int32_t n_xfers;
    struct exact_xfer xfer[EXACT_MAX_ACTS];
};

/*
 * Searches the schedules of g placed by device_of on c for makespans below
 * below_us: r->best_us is the smallest (with o->first the first found), or
 * -1 when every feasible schedule takes below_us or more (or none is
 * feasible).  Returns 0, or BAECHI_EINVAL for a graph beyond the limits
 * above (with its message).
 */
int exact_sched_min(const struct graph *g, const struct cluster *c, const int32_t *device_of,
                    const struct exact_options *o, int64_t below_us, struct exact_result *r);

/*
 * Checks the schedule in r (r->best_us >= 0) against the model above,
 * written from the graph and the rules, not from the search's tables: the
 * transfers are exactly the needed ones, precedence, no two activities on
 * one resource at once, memory within the limits at every instant (o's
 * readings), and the makespan is r->best_us.  0, or BAECHI_EINVAL with
 * what is wrong.
 */
int exact_sched_check(const struct graph *g, const struct cluster *c, const int32_t *device_of,
                      const struct exact_options *o, const struct exact_result *r);

#endif
