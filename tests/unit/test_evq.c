/*
 * test_evq.c - the event queue (evq.h): order, FIFO ties, heap property.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include <criterion/criterion.h>

#include "sim/evq.h"
#include "tests/unit/simtest.h"

static void push(struct evq *q, int64_t t, int32_t k1, int32_t k2, int32_t a)
{
    struct evq_event ev = {.time_us = t, .key1 = k1, .key2 = k2, .a = a};

    cr_assert_eq(evq_push(q, &ev), 0);
}

Test(evq, orders_by_time_then_keys)
{
    struct evq q;
    struct evq_event ev;
    int32_t want[] = {4, 3, 2, 1, 0};

    evq_init(&q);
    cr_expect(evq_empty(&q));
    cr_expect_null(evq_peek(&q));
    push(&q, 10, 0, 0, 0);
    push(&q, 5, 2, 0, 1);
    push(&q, 5, 1, 7, 2);
    push(&q, 5, 1, 3, 3);
    push(&q, 1, 9, 9, 4);
    cr_expect_eq(evq_peek(&q)->a, 4);
    for (int i = 0; i < 5; i++) {
        cr_assert(evq_pop(&q, &ev));
        cr_expect_eq(ev.a, want[i], "pop %d gave %d", i, ev.a);
    }
    cr_expect_not(evq_pop(&q, &ev));
    evq_release(&q);
}

Test(evq, equal_keys_leave_fifo)
{
    struct evq q;
    struct evq_event ev;

    evq_init(&q);
    for (int i = 0; i < 100; i++) {
        push(&q, 7, 1, 1, i);
    }
    for (int i = 0; i < 100; i++) {
        cr_assert(evq_pop(&q, &ev));
        cr_expect_eq(ev.a, i);
    }
    evq_release(&q);
}

Test(evq, random_pushes_and_pops_keep_heap)
{
    struct evq q;
    uint64_t s = 12345;
    int64_t last_t = -1;
    int32_t last_k = -1;
    uint64_t last_seq = 0;

    evq_init(&q);
    cr_assert_eq(evq_reserve(&q, 16), 0);
    for (int i = 0; i < 5000; i++) {
        push(&q, (int64_t)(simtest_rand(&s) % 100), (int32_t)(simtest_rand(&s) % 3), 0, i);
        if (simtest_rand(&s) % 3 == 0) {
            struct evq_event ev;

            cr_assert(evq_pop(&q, &ev));
        }
        cr_assert(evq_check(&q), "heap broken after step %d", i);
    }
    /* drain: non-decreasing (time, key1, seq) */
    while (!evq_empty(&q)) {
        struct evq_event ev;

        cr_assert(evq_pop(&q, &ev));
        cr_assert(evq_check(&q));
        cr_assert(ev.time_us > last_t ||
                  (ev.time_us == last_t &&
                   (ev.key1 > last_k || (ev.key1 == last_k && ev.seq > last_seq))));
        last_t = ev.time_us;
        last_k = ev.key1;
        last_seq = ev.seq;
    }
    evq_release(&q);
}

Test(evq, check_detects_broken_heap)
{
    struct evq q;

    evq_init(&q);
    push(&q, 1, 0, 0, 0);
    push(&q, 2, 0, 0, 1);
    q.heap[0].time_us = 5; /* corrupt the root */
    cr_expect_not(evq_check(&q));
    evq_release(&q);
}
