/*
 * trace.h - a recording of one simulated step, and its export as a Chrome
 * trace (JSON "traceEvents"; opens in Perfetto and chrome://tracing).
 *
 * The simulator appends spans while it runs (when given a trace); the writer
 * puts one process per device with a "compute" track, a "send" and a "recv"
 * track (or, with per-link channels, one "link -> <dst>" track per link)
 * for transfers, and a "memory" counter track.  Every slice on one track
 * nests with the others on it, as Perfetto requires: a track whose spans
 * would overlap partly is split into lanes ("send #2").  Event args carry
 * op names, op types, tensor names and sizes in bytes.  Times are µs, as
 * Chrome traces expect; memory counters are bytes.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_SIM_TRACE_H
#define BAECHI_SIM_TRACE_H

#include "core/cluster.h"
#include "core/graph.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct trace_compute {
    int32_t op, device;
    int64_t start_us, end_us;
    bool coll; /* a collective's rank (drawn on the "collective" track) */
};

/* A transfer occupies the sender's channel from start_us to end_us and the
 * receiver's from recv_start_us to recv_end_us (the same interval in the
 * timed model; in the baechi model the receiver's channel may be taken
 * later than the sender's). */
struct trace_transfer {
    int32_t tensor, src, dst;
    int64_t bytes;
    int64_t start_us, end_us;
    int64_t recv_start_us, recv_end_us;
};

/* A memory counter sample: device used `bytes` from time_us on. */
struct trace_mem {
    int32_t device;
    int64_t time_us, bytes;
};

/* Memory by kind (sim.h enum mem_kind, TRACE_MEM_KINDS of them) from time_us on. */
#define TRACE_MEM_KINDS 7
struct trace_kmem {
    int32_t device;
    int64_t time_us;
    int64_t bytes[TRACE_MEM_KINDS];
};

struct trace {
    enum channel_model channel; /* how transfers are drawn: per device, send/recv, per link */
    struct trace_compute *compute;
    size_t n_compute, alloc_compute;
    size_t n_coll; /* entries of compute[] that are collectives' ranks */
    struct trace_transfer *transfer;
    size_t n_transfer, alloc_transfer;
    struct trace_mem *mem;
    size_t n_mem, alloc_mem;
    struct trace_kmem *kmem; /* recorded by sim_run for every simulation it traces */
    size_t n_kmem, alloc_kmem;
};

void trace_init(struct trace *t, enum channel_model channel);
void trace_release(struct trace *t);

int trace_add_compute(struct trace *t, int32_t op, int32_t device, int64_t start_us,
                      int64_t end_us);
/* A collective's rank op on its device (sim/collective.h): a "collective"
 * track per device that has one, the slice's args name the collective (id,
 * kind, algorithm, bytes, ranks). */
int trace_add_coll(struct trace *t, int32_t op, int32_t device, int64_t start_us, int64_t end_us);

int trace_add_transfer(struct trace *t, int32_t tensor, int32_t src, int32_t dst, int64_t bytes,
                       int64_t start_us, int64_t end_us, int64_t recv_start_us,
                       int64_t recv_end_us);
int trace_add_mem(struct trace *t, int32_t device, int64_t time_us, int64_t bytes);

/* A sample of the device's memory by kind (TRACE_MEM_KINDS values, copied):
 * written as the counter track "memory by kind", one series per kind. */
int trace_add_mem_kinds(struct trace *t, int32_t device, int64_t time_us, const int64_t *bytes);

/* Writes the Chrome trace JSON (0, BAECHI_ENOMEM or BAECHI_EIO). */
int trace_write_chrome(const struct trace *t, const struct graph *g, const struct cluster *c,
                       FILE *f);

#endif
