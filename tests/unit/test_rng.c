/*
 * test_rng.c - core/rng: splitmix64's known outputs (Vigna's reference
 * splitmix64.c), so that a change of the one generator the random placer,
 * the auto placer and the synthetic workloads share cannot go unnoticed.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include <criterion/criterion.h>

#include "core/rng.h"

#include <stdint.h>

Test(rng, splitmix64_seed_0_first_outputs)
{
    static const uint64_t want[] = {0xe220a8397b1dcdafULL, 0x6e789e6aa1b965f4ULL,
                                    0x06c45d188009454fULL};
    uint64_t state = 0;

    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        uint64_t got = rng_next(&state);
        cr_assert_eq(got, want[i], "output %zu: %016llx, want %016llx", i, (unsigned long long)got,
                     (unsigned long long)want[i]);
    }
    cr_assert_eq(state, 3 * 0x9e3779b97f4a7c15ULL, "the state advances by the golden ratio");
}

Test(rng, splitmix64_seed_42_and_independent_states)
{
    static const uint64_t want[] = {0xbdd732262feb6e95ULL, 0x28efe333b266f103ULL,
                                    0x47526757130f9f52ULL};
    uint64_t a = 42, b = 42;

    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        cr_assert_eq(rng_next(&a), want[i], "output %zu", i);
    }
    /* b was not touched by the draws from a */
    cr_assert_eq(rng_next(&b), want[0]);
}
