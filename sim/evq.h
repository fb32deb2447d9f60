/*
 * evq.h - the event queue: a binary heap in an array, 0-based index math
 * (igraph indheap.c), events stored by value.
 *
 * Order: time_us, then key1 (the spec's tie-break: topological index), then
 * key2 (device id), then insertion sequence, so equal keys leave first in,
 * first out and every run is deterministic (git prio-queue.c).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_SIM_EVQ_H
#define BAECHI_SIM_EVQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct evq_event {
    int64_t time_us;
    int32_t key1; /* tie-break 1, typically the op's topological index */
    int32_t key2; /* tie-break 2, typically a device id */
    int32_t kind; /* what happens (the user's enum) */
    int32_t a, b; /* payload (op id, tensor id, device ...) */
    uint64_t seq; /* set by evq_push */
};

struct evq {
    struct evq_event *heap;
    size_t nr, alloc;
    uint64_t next_seq;
};

void evq_init(struct evq *q);
void evq_release(struct evq *q);

/* Reserves room for n events. */
int evq_reserve(struct evq *q, size_t n);

/* Adds an event (copied); returns 0 or BAECHI_ENOMEM. */
int evq_push(struct evq *q, const struct evq_event *ev);

/* Removes the smallest event into *ev; false when empty. */
bool evq_pop(struct evq *q, struct evq_event *ev);

/* The smallest event without removing it, or NULL. */
static inline const struct evq_event *evq_peek(const struct evq *q)
{
    return q->nr ? &q->heap[0] : NULL;
}

static inline bool evq_empty(const struct evq *q)
{
    return q->nr == 0;
}

/* Heap property holds (tests). */
bool evq_check(const struct evq *q);

#endif
