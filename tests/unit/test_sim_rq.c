/*
 * test_sim_rq.c - the simulator's ready queue (sim/sim_internal.h): the
 * sorted run beside the heap and the bottom-up pop give the order of a plain
 * minimum search, for pushes in order, out of order and interleaved with
 * pops.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include <criterion/criterion.h>

#include "sim/sim_internal.h"
#include "tests/unit/simtest.h"

#define N_ITEMS 2000

static bool item_less(const struct sim_rq_item *x, const struct sim_rq_item *y)
{
    if (x->prio != y->prio) {
        return x->prio < y->prio;
    }
    return x->time_us < y->time_us || (x->time_us == y->time_us && x->topo < y->topo);
}

/* The smallest of the naive queue's n items, removed. */
static struct sim_rq_item naive_pop(struct sim_rq_item *v, int *n)
{
    int best = 0;
    struct sim_rq_item it;

    for (int i = 1; i < *n; i++) {
        if (item_less(&v[i], &v[best])) {
            best = i;
        }
    }
    it = v[best];
    v[best] = v[--*n];
    return it;
}

Test(sim_rq, pops_in_key_order_whatever_the_push_order)
{
    static struct sim_rq_item naive[N_ITEMS];

    for (uint64_t seed = 1; seed <= 40; seed++) {
        struct sim_rq q = {0};
        uint64_t s = seed;
        int n = 0, pushed = 0, popped = 0;

        while (pushed < N_ITEMS || n > 0) {
            uint64_t r = simtest_rand(&s);
            bool push = pushed < N_ITEMS && (n == 0 || r % 3 != 0);

            if (push) {
                /* seeds 1..10: ascending (all in the run); others: bursts in
                 * order, then random times and priorities */
                int64_t t = seed <= 10 ? pushed : (r >> 8) % 4 == 0 ? pushed : (int64_t)(r % 500);
                int32_t prio = seed % 4 == 3 ? (int32_t)((r >> 20) % 3) : 0;
                struct sim_rq_item it = {prio, t, pushed, pushed};

                cr_assert_eq(sim_rq_push_prio(&q, it.prio, it.time_us, it.topo, it.op), 0);
                naive[n++] = it;
                pushed++;
            } else {
                struct sim_rq_item a = sim_rq_pop(&q), b = naive_pop(naive, &n);

                cr_assert_eq(a.op, b.op, "seed %llu pop %d: op %d, expected %d",
                             (unsigned long long)seed, popped, a.op, b.op);
                cr_assert_eq(a.time_us, b.time_us);
                popped++;
            }
            cr_assert_eq(q.nr, (size_t)n);
        }
        sim_rq_release(&q);
    }
}
