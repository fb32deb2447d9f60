/*
 * rng.c - splitmix64 with an explicit state (see rng.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/rng.h"

uint64_t rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
