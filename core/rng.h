/*
 * rng.h - the suite's one pseudo-random generator: splitmix64 (Steele, Lea
 * and Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014;
 * the constants of Vigna's reference splitmix64.c).
 *
 * The state is the caller's: no globals, so two threads (or two placers in
 * one thread) never share a sequence, and a seed gives the same sequence on
 * every machine.  The random baseline placer, the `auto` placer's search and
 * the synthetic workload generator all draw from it; their outputs depend on
 * the exact sequence, so it must never change.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CORE_RNG_H
#define BAECHI_CORE_RNG_H

#include <stdint.h>

/*
 * Advances *state by the golden-ratio increment and returns the mixed value.
 * Any state is valid (0 included); period 2^64.  Seed 0 gives
 * 0xe220a8397b1dcdaf, then 0x6e789e6aa1b965f4, 0x06c45d188009454f.
 */
uint64_t rng_next(uint64_t *state);

#endif
