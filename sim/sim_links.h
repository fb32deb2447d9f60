/*
 * sim_links.h - the device pairs (links) a simulation keeps traffic
 * counters and link channels for (sim.h: sim_result's link_bytes and
 * link_transfers; sim_timed.c: CHANNEL_LINK).
 *
 * Up to SIM_LINKS_DENSE_MAX devices every ordered pair is a link, link
 * src * nd + dst (the layout older readers index directly).  Above it only
 * the pairs the placement makes exchange traffic are links: every edge
 * between two devices and every link of a collective's plan
 * (sim/collective.h), so a 16,384-GPU cluster keeps tens of thousands of
 * counters, not 268 million.  In both layouts links go by (src, dst), so
 * a walk over them prints in the same order.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_SIM_LINKS_H
#define BAECHI_SIM_LINKS_H

#include "core/cluster.h"
#include "core/graph.h"

#include <stddef.h>
#include <stdint.h>

/* Clusters up to this many devices keep the dense nd x nd layout. */
#ifndef SIM_LINKS_DENSE_MAX
#define SIM_LINKS_DENSE_MAX 256
#endif

struct sim_links {
    int32_t nd;
    size_t n;           /* links: nd * nd when dense */
    int32_t *src, *dst; /* sparse: n each, sorted by (src, dst); NULL when dense */
    int32_t *slot;      /* sparse: open-addressing hash of link indices, -1 empty */
    int shift;          /* sparse: 64 - log2(slots) */
};

/* The dense layout over nd devices (allocates nothing).  0. */
int sim_links_init_dense(struct sim_links *l, int32_t nd);

/*
 * The links of g placed by device_of on c: dense up to SIM_LINKS_DENSE_MAX
 * devices, else the pairs its edges and collectives use.  0 or
 * BAECHI_ENOMEM.  O(E log E + Σ ranks).
 */
int sim_links_init_placed(struct sim_links *l, const struct graph *g, const struct cluster *c,
                          const int32_t *device_of);

void sim_links_release(struct sim_links *l);

static inline uint64_t sim_links_hash_(const struct sim_links *l, int32_t s, int32_t d)
{
    uint64_t k = (uint64_t)s * (uint64_t)l->nd + (uint64_t)d;

    return (k * 0x9E3779B97F4A7C15ULL) >> l->shift;
}

/* The index of link s -> d, or -1 when the sparse layout has no such link. */
static inline int64_t sim_links_find(const struct sim_links *l, int32_t s, int32_t d)
{
    uint64_t mask, h;

    if (!l->src) {
        return (int64_t)s * l->nd + d;
    }
    mask = (((uint64_t)1) << (64 - l->shift)) - 1;
    for (h = sim_links_hash_(l, s, d);; h = (h + 1) & mask) {
        int32_t i = l->slot[h];

        if (i < 0) {
            return -1;
        }
        if (l->src[i] == s && l->dst[i] == d) {
            return i;
        }
    }
}

/* The index of link s -> d, which the simulation's placement uses (BUG
 * otherwise: sim_links_init_placed missed a pair). */
size_t sim_links_at(const struct sim_links *l, int32_t s, int32_t d);

/* The devices of link i. */
static inline void sim_links_pair(const struct sim_links *l, size_t i, int32_t *s, int32_t *d)
{
    if (!l->src) {
        *s = (int32_t)(i / (size_t)l->nd);
        *d = (int32_t)(i % (size_t)l->nd);
    } else {
        *s = l->src[i];
        *d = l->dst[i];
    }
}

#endif
