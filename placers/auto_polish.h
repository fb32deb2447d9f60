/*
 * auto_polish.h - the `auto` placer's search phases around its local
 * search (beyond the original: Baechi has no search at all).
 *
 *  1. Stage seeds, before the local search: the colocation groups in the
 *     order of their first forward op (every op is forward on a graph
 *     without phases), cut into S = 2 .. D contiguous stages, stage s on
 *     device s.  For each S the cuts start where the groups' bytes
 *     (persistent + output + temp) are balanced; then each cut in turn, in
 *     two sweeps (a cut's best place moves when its neighbours move), tries the
 *     AUTO_POLISH_CUTS positions, between its neighbours and within half a
 *     stage's bytes of its balanced place, that the fewest
 *     tensor bytes cross (a tensor counted once however many consumers it
 *     has on the other side), and keeps the one the judge likes best.  A
 *     group with no forward op (backward, update) goes, in topological
 *     order, to the device that already holds most of its input bytes.
 *     Every seed is judged as every move is (auto_eval), and becomes the
 *     best placement only when it is better; the seeds stop at half of the
 *     budget the candidates left (AUTO_POLISH_SEED_SHARE).  Why: on a training graph
 *     that fits no one device the step is the chain's compute plus its
 *     cuts, and the local search, moving one group at a time from a
 *     placer's interleaved start, rarely reaches a split with few cuts
 *     (docs/auto.md, "The polish phases", has the cells it moved).
 *  2. The local search (auto_search_run), as it was.
 *  3. A final pass over the critical path of the best placement's timed
 *     run, with what the search left of the budget (it runs when the search
 *     stalls; a reserved share of the budget for it measured worse: on
 *     GNMT the search gains more per evaluation than this pass): walking
 *     back from the last op to end, each op whose last input arrived over
 *     a link has its colocation group moved to the producer's device, and
 *     the producer's to the consumer's, first improvement, then the path
 *     is traced again.  The judge rejects a move that does not fit memory.
 *
 * Deterministic: the seeds and the pass use no random numbers and the
 * budget counts work, so identical input, budget and seed give an identical
 * placement.  Every phase keeps a change only when it is strictly better,
 * so the result is never worse than the best candidate.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_PLACERS_AUTO_POLISH_H
#define BAECHI_PLACERS_AUTO_POLISH_H

#include "placers/auto_internal.h"

/* Positions tried for each cut of a stage seed, by simulation. */
#define AUTO_POLISH_CUTS 8

/* The stage seeds spend at most 1/AUTO_POLISH_SEED_SHARE of the budget left
 * after the candidates (they need at most 99 timed runs on 4 devices, 455
 * on 8, each seed's baechi run when it is the best of its S). */
#define AUTO_POLISH_SEED_SHARE 2

/* Counters of the phases, for the placement's statistics. */
struct auto_polish_stats {
    int32_t seed_stages; /* S of the stage seed kept, 0 when none was better */
    int32_t pass_improvements;
};

/*
 * The three phases above on s, from its best placement (s->best, judged).
 * 0, or BAECHI_ENOMEM / an error of the judge.
 */
int auto_polish_run(struct auto_ctx *s, struct auto_polish_stats *st);

#endif
