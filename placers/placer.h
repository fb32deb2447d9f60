/*
 * placer.h - one interface for every placement algorithm, the registry:
 *
 *     graph + cluster + options  ->  placement (device of every op) + statistics
 *
 * placer_run() runs the original pipeline (baechi-spec §0.2): the grouper
 * (`tf` or `coplace`, §6.1), optionally operator fusion (§6.3), the algorithm
 * on the (fused) graph with colocation as a hard constraint, and maps the
 * result back to every op of the graph.  The algorithms (§2-§4) and the
 * baselines are looked up by name in a registry (placer_find, placer_list).
 *
 * Its parts, each a header of its own that the placers include without
 * this one (inside placers/, only the registry, placer.c, and `auto`'s
 * candidates, which run the other placers through it, include placer.h):
 *   placer_options.h  the options and statistics of every placer;
 *   grouper.h         colocation groups (§6.1);
 *   placer_world.h    the world a placement is made for and simulated in;
 *   lp_solver.h       which LP solver m-SCT and the bound use.
 * This header includes them all, for the library's users.
 *
 * Units: time in integer µs, memory in bytes (the original's units).
 *
 * Errors: BAECHI_EINVAL (bad option, unknown placer), BAECHI_EINFEASIBLE (no
 * placement: m-TOPO leftover ops, ETF/SCT memory deadlock, a group that
 * cannot fit; err_msg() names the ops and the memory missing), BAECHI_ESOLVER
 * (GLPK failed; never an abort), BAECHI_ENOMEM.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_PLACERS_PLACER_H
#define BAECHI_PLACERS_PLACER_H

#include "core/cluster.h"
#include "core/graph.h"
#include "core/placement.h"
#include "placers/grouper.h"
#include "placers/lp_solver.h"
#include "placers/placer_options.h"
#include "placers/placer_world.h"

#include <stdbool.h>
#include <stdint.h>

/* Flags of a registry entry. */
enum placer_flags {
    PLACER_ESTIMATES = 1 << 0,     /* makes its own makespan estimate */
    PLACER_BASELINE = 1 << 1,      /* not one of the paper's algorithms */
    PLACER_ALGORITHM = 1 << 2,     /* one of the paper's algorithms (§2-§4) by its own name */
    PLACER_MEMORY_RULE = 1 << 3,   /* m-ETF/m-SCT: honours persistent_at_place (§7.6) */
    PLACER_LP = 1 << 4,            /* m-SCT: solves the favourite-child LP (records its keys) */
    PLACER_SEEDED = 1 << 5,        /* its placement depends on the seed (records it) */
    PLACER_PAPER_OPTIONS = 1 << 6, /* runs under placer_options_paper (fusion + coplace) */
    PLACER_WHOLE = 1 << 7          /* runs the whole pipeline itself (no grouping, no record) */
};

/* What a registry row's function gets (placers/placer_internal.h). */
struct placer_call;

struct placer_desc {
    const char *name;    /* "m-etf", ... */
    const char *summary; /* one line */
    unsigned flags;
    /* places call->g into call->out (placer_run prepares the call) */
    int (*fn)(const struct placer_call *call);
};

/* The registry, NULL-name terminated, in display order. */
const struct placer_desc *placer_list(void);

/* Entry of `name` (also the original's spelling with '_': "m_etf"), or NULL. */
const struct placer_desc *placer_find(const char *name);

/*
 * Places graph g on cluster c with placer `name` ("paper" selects m-etf and
 * sets fusion + coplace in a copy of opt).  `out` is initialised here
 * (placement_init) and filled: device_of, meta (workload name from
 * `workload_name`, may be NULL), options and stats as strings.  `st` is
 * initialised here.  On failure `out` and `st` hold nothing to free.
 */
int placer_run(const char *name, const struct graph *g, const struct cluster *c,
               const struct placer_options *opt, const char *workload_name, struct placement *out,
               struct placer_stats *st);

#endif
