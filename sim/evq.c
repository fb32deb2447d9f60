/*
 * evq.c - the event queue: a binary heap of events stored by value (see
 * evq.h).  0-based index math as in igraph src/core/indheap.c; ties broken
 * by an insertion counter as in git prio-queue.c.  Push and pop are
 * O(log n), peek O(1).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "sim/evq.h"

#include "core/array.h"
#include "core/err.h"

#include <stdlib.h>

#define PARENT(i) (((i)-1) / 2)
#define LEFT(i)   (2 * (i) + 1)

static inline bool ev_less(const struct evq_event *x, const struct evq_event *y)
{
    if (x->time_us != y->time_us) {
        return x->time_us < y->time_us;
    }
    if (x->key1 != y->key1) {
        return x->key1 < y->key1;
    }
    if (x->key2 != y->key2) {
        return x->key2 < y->key2;
    }
    return x->seq < y->seq;
}

void evq_init(struct evq *q)
{
    q->heap = NULL;
    q->nr = 0;
    q->alloc = 0;
    q->next_seq = 0;
}

void evq_release(struct evq *q)
{
    free(q->heap);
    evq_init(q);
}

int evq_reserve(struct evq *q, size_t n)
{
    return ARRAY_RESERVE(q->heap, q->alloc, n);
}

int evq_push(struct evq *q, const struct evq_event *ev)
{
    struct evq_event e = *ev;
    size_t i;
    int rc;

    if (q->nr == q->alloc && (rc = ARRAY_RESERVE(q->heap, q->alloc, q->nr + 1)) != 0) {
        return rc;
    }
    e.seq = q->next_seq++;
    i = q->nr++;
    while (i > 0) {
        size_t p = PARENT(i);

        if (!ev_less(&e, &q->heap[p])) {
            break;
        }
        q->heap[i] = q->heap[p];
        i = p;
    }
    q->heap[i] = e;
    return 0;
}

bool evq_pop(struct evq *q, struct evq_event *ev)
{
    struct evq_event last;
    size_t i = 0, n;

    if (q->nr == 0) {
        return false;
    }
    *ev = q->heap[0];
    n = --q->nr;
    if (n == 0) {
        return true;
    }
    last = q->heap[n];
    for (;;) {
        size_t c = LEFT(i);

        if (c >= n) {
            break;
        }
        if (c + 1 < n && ev_less(&q->heap[c + 1], &q->heap[c])) {
            c++;
        }
        q->heap[i] = q->heap[c];
        i = c;
    }
    /* Floyd's bottom-up removal: the hole sank to a leaf with one
     * comparison per level; the last event rises from there (usually not
     * at all).  Keys are unique (seq), so the pop order is the same. */
    while (i > 0 && ev_less(&last, &q->heap[PARENT(i)])) {
        q->heap[i] = q->heap[PARENT(i)];
        i = PARENT(i);
    }
    q->heap[i] = last;
    return true;
}

bool evq_check(const struct evq *q)
{
    for (size_t i = 1; i < q->nr; i++) {
        if (ev_less(&q->heap[i], &q->heap[PARENT(i)])) {
            return false;
        }
    }
    return true;
}
