/*
 * lp_memo.h - solutions of the favourite-child LP (lp.c) kept for reuse
 * within one `auto` placement: its m-SCT and m-SCT-reserve candidates of the
 * same grouper and fusion build the same LP (the LP reads only the
 * algorithms' graph -- weights, edges and their communication costs -- and
 * never the memory rule that tells the two apart), so it is solved once and
 * its solution handed to both.
 *
 * Beyond the original (which places one configuration per run).  An entry
 * is reused only when everything the solve reads is equal byte for byte:
 * the graph's sizes, weights, edge ends, communication costs, the adjacency
 * order (the warm basis and the rows follow it) and the limits and solver
 * asked for.  So a reused solution is the one a new solve would return (both
 * solvers are deterministic), and the placements do not change; only the
 * iterations run do (lp_memo.iterations_run).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_PLACERS_LP_MEMO_H
#define BAECHI_PLACERS_LP_MEMO_H

#include "placers/placer_internal.h"

#include <stddef.h>
#include <stdint.h>

struct lp_memo_entry {
    unsigned char *key; /* the LP's inputs, serialised (owned) */
    size_t key_len;
    int rc;             /* 0 or BAECHI_ESOLVER (out of memory is never kept) */
    char *msg;          /* rc != 0: the error's message (owned) */
    struct lp_result r; /* r.x owned (NULL when rc != 0) */
};

struct lp_memo {
    struct lp_memo_entry *e;
    int32_t n;
    size_t alloc;
    int64_t iterations_run; /* simplex iterations of the solves actually run */
    int32_t n_solved, n_reused;
    unsigned solvers_run; /* 1 << enum placer_lp_solver of each solve run */
};

void lp_memo_init(struct lp_memo *m);
void lp_memo_release(struct lp_memo *m);

/*
 * lp_favourite_child_limited(p, lim, r) through memo m: a stored solution of
 * the same LP is copied into r (r->x newly allocated; the error and its
 * message set again when that solve failed), else the LP is solved and its
 * outcome stored.  r->iterations is the solve's own count either way (what
 * it took to reach that basis); m->iterations_run grows only by solves run.
 * Returns what the solve returned: 0, BAECHI_ESOLVER or BAECHI_ENOMEM.
 */
/*
 * The solvers of the solves run, as a placement's `lp_solver` statistic:
 * "glpk", "clp" or "flow", "mixed" when several ran (`--lp-solver auto` picks by each
 * LP's size), "" when none ran.
 */
void lp_memo_solvers(const struct lp_memo *m, char *buf, size_t size);

int lp_memo_solve(struct lp_memo *m, const struct pgraph *p, const struct lp_limits *lim,
                  struct lp_result *r);

#endif
