/*
 * sim_sched.c - the pipeline schedule of a micro-batched graph in the timed
 * model (sim_internal.h, struct sim_sched; core/pipeline.h for the
 * schedules).
 *
 * Stages: the classes of devices that share a collective (a tensor-
 * parallel group, the data-parallel replicas of a stage: ranks of one
 * collective run the same layers), in the order the forward pass first
 * visits them (the topological order of micro-batch 0's forward ops that
 * have an input, so that data sources placed anywhere do not count as a
 * visit); K of them.  Without collectives every device is its own class.
 * Each device (a slot) keeps its own counts and runs its stage's sequence.
 * Chunks, for the interleaved schedule: the maximal runs of those ops on one
 * device along the same order; a colocation group takes the chunk of its
 * first op, every op of the group (copies of all micro-batches, gradient
 * ops) the group's; chunk i of a device is its virtual stage min(i, V - 1).
 *
 * A unit is the set of one device's compute ops of one (virtual stage,
 * micro-batch) and one direction (forward or backward); collective ranks
 * belong to none (they run off the compute stream).  Each device runs its
 * units in the order Megatron-LM's schedules give (megatron/core/
 * pipeline_parallel/schedules.py): with W warm-up forwards and U = M x V
 * units a direction,
 *   forward k (k < W) .. ; then forward k + W, backward k ..; then the
 *   cool-down backwards;
 * where W = U for gpipe, min(K - s - 1, U) for 1f1b and
 * min(2 (K - s - 1) + (V - 1) K, U) for interleaved (s: the device's
 * stage).  The interleaved forward sequence takes micro-batches in groups
 * of K: for each group, each virtual stage in turn, the group's
 * micro-batches (a last group of r < K micro-batches likewise, r at a
 * time); the backward sequence runs the virtual stages from the last.  That order is a gate, not
 * only a priority: a unit may not start before the unit before it in its direction has ended (a
 * framework issues one micro-batch after another: a second forward does not fill the first's
 * all-reduce waits), forward k not before backward k - W - 1 has ended on the device (so at most W
 * + 1 units' activations are in flight: K - s under 1f1b), and backward k not before forward min(k
 * + W, U - 1) has ended.  "Ended": every op of it and of every earlier unit of its direction. Among
 * ready ops a device prefers the earlier position in its sequence.
 *
 * The optimizer steps after the flush, as Megatron-LM's does: an update op
 * on a stage's device waits until every backward unit of the device has
 * ended (its gradients to the previous stage are then sent: transfers are
 * requested when their producer ends, before any op starts).
 *
 * Ops of no unit and no update (shared variables, their gradients, ops on a
 * device the forward pass never visits) are never held; their priority is
 * their micro-batch (0 when none), as before the schedules.  Without
 * micro-batches nothing is held and every priority is 0.
 *
 * Time O(V + E + ranks) to set up, O(1) per op end but the prefix walk
 * (O(U) a device over the whole step).  Memory: 4 ints per op + 2 D U ints
 * for D devices the forward pass visits.
 *
 * Beyond the original Baechi, which simulates one batch.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "sim/sim_internal.h"

#include "core/alloc.h"
#include "core/err.h"
#include "sim/collective.h"

#include <stdlib.h>
#include <string.h>

/* dir_of of an update op on a stage's device (0 forward, 1 backward). */
#define DIR_UPDATE 2

static int32_t min32(int32_t a, int32_t b)
{
    return a < b ? a : b;
}

/* Index of (virtual stage c, micro-batch m) in a direction's sequence. */
static int32_t unit_index(const struct sim_sched *s, int32_t c, int32_t m)
{
    int32_t k = s->n_stages, v = s->v, full = s->m / k;

    if (s->schedule != PIPELINE_INTERLEAVED) {
        return m;
    }
    if (m / k < full) {
        return (m / k) * k * v + c * k + m % k;
    }
    /* the last group: r = m_total - full k micro-batches */
    return full * k * v + c * (s->m - full * k) + (m - full * k);
}

/* The root of device d's class (union-find with path halving). */
static int32_t class_root(int32_t *parent, int32_t d)
{
    while (parent[d] != d) {
        parent[d] = parent[parent[d]];
        d = parent[d];
    }
    return d;
}

/* Joins the devices of every collective's ranks into classes: parent[d]. */
static void join_collectives(const struct graph *g, const int32_t *device_of, int32_t nd,
                             int32_t *parent)
{
    for (int32_t d = 0; d < nd; d++) {
        parent[d] = d;
    }
    for (int32_t c = 0; c < g->n_coll; c++) {
        int32_t first = g->coll_start[c], r0 = class_root(parent, device_of[g->coll_op[first]]);

        for (int32_t i = first + 1; i < g->coll_start[c + 1]; i++) {
            int32_t r = class_root(parent, device_of[g->coll_op[i]]);

            if (r != r0) {
                parent[r] = r0;
            }
        }
    }
}

/* Stages and chunks from micro-batch 0's forward ops along topological
 * order; slot_of_dev and stage_of_slot. */
static int find_stages(struct sim_sched *s, const struct graph *g, const int32_t *device_of,
                       int32_t nd, int32_t *chunk_of_group, int32_t *chunks_max)
{
    int32_t *runs = mem_calloc((size_t)nd, sizeof(*runs));
    int32_t *parent = mem_alloc_array((size_t)nd, sizeof(*parent));
    int32_t *stage_of_root = mem_alloc_array((size_t)nd, sizeof(*stage_of_root));
    int32_t last = -1;

    if (!runs || !parent || !stage_of_root) {
        free(runs);
        free(parent);
        free(stage_of_root);
        return BAECHI_ENOMEM;
    }
    join_collectives(g, device_of, nd, parent);
    for (int32_t d = 0; d < nd; d++) {
        stage_of_root[d] = -1;
    }
    for (int32_t i = 0; i < g->n_ops; i++) {
        int32_t v = g->topo_op[i], d = device_of[v], r;

        if (g->phase[v] != PHASE_FORWARD || g->micro_batch[v] != 0 || graph_in_degree(g, v) == 0) {
            continue;
        }
        if (s->slot_of_dev[d] < 0) {
            r = class_root(parent, d);
            if (stage_of_root[r] < 0) {
                stage_of_root[r] = s->n_stages++;
            }
            s->stage_of_slot[s->n_slots] = stage_of_root[r];
            s->slot_of_dev[d] = s->n_slots++;
        }
        if (d != last) {
            runs[d]++;
            last = d;
        }
        if (chunk_of_group[g->group[v]] < 0) {
            chunk_of_group[g->group[v]] = runs[d] - 1;
        }
    }
    *chunks_max = 0;
    for (int32_t d = 0; d < nd; d++) {
        *chunks_max = runs[d] > *chunks_max ? runs[d] : *chunks_max;
    }
    free(runs);
    free(parent);
    free(stage_of_root);
    return 0;
}

/* Counts each unit's ops; sets unit_of and dir_of (dir 0 forward, 1 backward). */
static void count_units(struct sim_sched *s, const struct graph *g, const int32_t *device_of,
                        const int32_t *chunk_of_group)
{
    for (int32_t v = 0; v < g->n_ops; v++) {
        int32_t st = s->slot_of_dev[device_of[v]], m = g->micro_batch[v], c = 0, dir;

        s->unit_of[v] = -1;
        if (st >= 0 && g->phase[v] == PHASE_UPDATE) {
            s->unit_of[v] = 0; /* held until the slot's flush (sim_sched_open) */
            s->dir_of[v] = DIR_UPDATE;
            continue;
        }
        if (st < 0 || m < 0 || m >= s->m || coll_is_rank(g, v)) {
            continue;
        }
        dir = g->phase[v] == PHASE_BACKWARD;
        if (s->schedule == PIPELINE_INTERLEAVED && chunk_of_group[g->group[v]] > 0) {
            c = min32(chunk_of_group[g->group[v]], s->v - 1);
        }
        s->unit_of[v] = unit_index(s, dir ? s->v - 1 - c : c, m);
        s->dir_of[v] = (uint8_t)dir;
        s->left[((size_t)st * 2 + dir) * s->total + s->unit_of[v]]++;
    }
}

/* Advances stage st's prefix of ended units in direction dir; true if it moved. */
static bool advance(struct sim_sched *s, int32_t st, int32_t dir)
{
    int32_t *done = &s->done[st * 2 + dir];
    const int32_t *left = s->left + ((size_t)st * 2 + dir) * s->total;
    int32_t d0 = *done;

    while (*done < s->total && left[*done] == 0) {
        (*done)++;
    }
    return *done != d0;
}

int sim_sched_init(struct sim_sched *s, const struct graph *g, const int32_t *device_of, int32_t nd,
                   const struct pipeline_opts *o)
{
    int32_t *chunk_of_group = NULL, chunks_max = 0;
    int rc = 0;

    memset(s, 0, sizeof(*s));
    if (!g->micro_batch) {
        return 0;
    }
    s->schedule = o->schedule;
    s->v = o->schedule == PIPELINE_INTERLEAVED && o->virtual_stages > 1 ? o->virtual_stages : 1;
    for (int32_t v = 0; v < g->n_ops; v++) {
        s->m = g->micro_batch[v] >= s->m ? g->micro_batch[v] + 1 : s->m;
    }
    s->total = s->m * s->v;
    s->slot_of_dev = mem_alloc_array((size_t)nd, sizeof(*s->slot_of_dev));
    s->stage_of_slot = mem_alloc_array((size_t)nd + 1, sizeof(*s->stage_of_slot));
    chunk_of_group = mem_alloc_array((size_t)g->n_groups + 1, sizeof(*chunk_of_group));
    s->unit_of = mem_alloc_array((size_t)g->n_ops, sizeof(*s->unit_of));
    s->dir_of = mem_calloc((size_t)g->n_ops, sizeof(*s->dir_of));
    if (!s->slot_of_dev || !s->stage_of_slot || !chunk_of_group || !s->unit_of || !s->dir_of) {
        rc = BAECHI_ENOMEM;
        goto done;
    }
    for (int32_t d = 0; d < nd; d++) {
        s->slot_of_dev[d] = -1;
    }
    for (int32_t i = 0; i < g->n_groups; i++) {
        chunk_of_group[i] = -1;
    }
    if ((rc = find_stages(s, g, device_of, nd, chunk_of_group, &chunks_max)) != 0) {
        goto done;
    }
    /* Interleaving needs a device to hold several chunks; with one each, the
     * interleaved schedule is 1F1B (Narayanan et al. SC'21 with v = 1), not
     * the GPipe-like order its warm-up would give (issue 33 item 2). */
    if (s->v > 1 && chunks_max < 2) {
        s->interleaved_one_chunk = true;
        s->schedule = PIPELINE_1F1B;
        s->v = 1;
        s->total = s->m;
    }
    s->left = mem_calloc((size_t)s->n_slots * 2 * s->total + 1, sizeof(*s->left));
    s->done = mem_calloc((size_t)s->n_slots * 2 + 1, sizeof(*s->done));
    s->warmup = mem_alloc_array((size_t)s->n_slots + 1, sizeof(*s->warmup));
    if (!s->left || !s->done || !s->warmup) {
        rc = BAECHI_ENOMEM;
        goto done;
    }
    count_units(s, g, device_of, chunk_of_group);
    for (int32_t sl = 0; sl < s->n_slots; sl++) {
        int32_t k = s->n_stages, st = s->stage_of_slot[sl], w = s->total;

        if (s->schedule == PIPELINE_1F1B) {
            w = min32(k - st - 1, s->total);
        } else if (s->schedule == PIPELINE_INTERLEAVED) {
            w = min32(2 * (k - st - 1) + (s->v - 1) * k, s->total);
        }
        s->warmup[sl] = w;
        advance(s, sl, 0);
        advance(s, sl, 1);
    }
    s->on = true;
done:
    free(chunk_of_group);
    return rc;
}

void sim_sched_release(struct sim_sched *s)
{
    free(s->slot_of_dev);
    free(s->stage_of_slot);
    free(s->unit_of);
    free(s->dir_of);
    free(s->left);
    free(s->done);
    free(s->warmup);
    memset(s, 0, sizeof(*s));
}

int32_t sim_sched_prio(const struct sim_sched *s, const struct graph *g, const int32_t *device_of,
                       int32_t v)
{
    int32_t k, w, st;

    if (!g->micro_batch) {
        return 0;
    }
    if (!s->on || s->unit_of[v] < 0) {
        return g->micro_batch[v] > 0 ? g->micro_batch[v] : 0;
    }
    k = s->unit_of[v];
    st = s->slot_of_dev[device_of[v]];
    w = s->warmup[st];
    if (s->dir_of[v] == DIR_UPDATE) {
        return 2 * s->total; /* after every unit */
    }
    if (s->dir_of[v] == 0) {
        return k < w ? k : 2 * k - w;
    }
    return k < s->total - w ? w + 2 * k + 1 : s->total + k;
}

bool sim_sched_open(const struct sim_sched *s, const int32_t *device_of, int32_t v)
{
    int32_t k, w, st;

    if (!s->on || s->forced || s->unit_of[v] < 0) {
        return true;
    }
    k = s->unit_of[v];
    st = s->slot_of_dev[device_of[v]];
    w = s->warmup[st];
    if (s->dir_of[v] == DIR_UPDATE) {
        return s->done[st * 2 + 1] >= s->total; /* the flush */
    }
    if (s->done[st * 2 + s->dir_of[v]] < k) {
        return false; /* one unit after another, as a framework issues them */
    }
    if (s->dir_of[v] == 0) {
        return s->done[st * 2 + 1] >= k - w;
    }
    return s->done[st * 2] >= min32(k + w + 1, s->total);
}

bool sim_sched_op_end(struct sim_sched *s, const int32_t *device_of, int32_t v)
{
    int32_t st, dir;

    if (!s->on || s->unit_of[v] < 0 || s->dir_of[v] == DIR_UPDATE) {
        return false;
    }
    st = s->slot_of_dev[device_of[v]];
    dir = s->dir_of[v];
    s->left[((size_t)st * 2 + dir) * s->total + s->unit_of[v]]--;
    return advance(s, st, dir);
}
