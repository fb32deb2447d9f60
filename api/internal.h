/*
 * internal.h - what the files of the C API share: the structs behind the
 * opaque handles of include/baechi.h, and the helpers that make them.
 * Never installed; nothing outside api/ includes it.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_API_INTERNAL_H
#define BAECHI_API_INTERNAL_H

#include "include/baechi.h"

#include "core/cluster.h"
#include "core/graph.h"
#include "core/placement.h"
#include "core/workload.h"
#include "placers/placer.h"
#include "sim/sim.h"
#include "sim/trace.h"

#include <stdbool.h>
#include <stdint.h>

struct baechi_workload {
    char *path; /* as given, NULL when parsed from a string */
    struct workload w;
    struct graph g;
};

struct baechi_cluster {
    char *spec; /* as given */
    struct cluster c;
};

struct baechi_options {
    struct placer_options opt;
    bool trace;
    /* since 1.2: the options schedule and virtual_stages, overriding a
     * micro-batched workload's x-pipeline as `run --schedule` does
     * (api_pipeline_apply) */
    bool have_schedule;
    struct pipeline_opts pipe; /* virtual_stages 0: not given */
};

/* The defaults of every option (baechi_options.c): the placer's, and no
 * schedule or virtual stages given. */
void api_options_init(struct baechi_options *o);

/* The pipeline schedule under o for graph g: g's (its x-pipeline), with o's
 * schedule and virtual_stages in its place when given (a schedule given
 * without virtual stages means one), as cli/pipeline_cli.c does.  Leaves
 * *pipe as it is for a graph without micro-batches.  BAECHI_EINVAL when the
 * result is no valid schedule (virtual stages above 1 but not interleaved). */
int api_pipeline_apply(const struct baechi_options *o, const struct graph *g,
                       struct pipeline_opts *pipe);

struct baechi_placement {
    struct placement p;
    struct placer_stats st;
    struct baechi_options made_with; /* valid when placed */
    bool placed;
};

struct baechi_result {
    struct sim_result r;
    struct trace t;
    bool have_trace;
    int32_t n_ops;
};

/*
 * A workload handle for w, made by a generator, the ONNX importer or the
 * training synthesis (released here in every case): w goes through its
 * YAML text and back, as `baechi workload gen -o f.yaml` then `baechi place
 * f.yaml` do, so that every number is the one the program computes from the
 * file.  `what` names it in messages.  *out NULL on failure.
 */
int api_workload_adopt(struct workload *w, const char *what, struct baechi_workload **out);

/* The world of a simulation under o (placer_world), on copies: g and
 * *weights (free), cw (cluster_release) are the caller's on success. */
int api_world_of(const struct baechi_workload *w, const struct baechi_cluster *c,
                 const struct baechi_placement *p, const struct baechi_options *o, struct graph *g,
                 int64_t **weights, struct cluster *cw);

/* What baechi_simulate and baechi_explain_memory start with: the options
 * (api_options_for; *o replaced), the model by name (NULL: so's), then
 * api_world_of. */
int api_sim_world(const struct baechi_workload *w, const struct baechi_cluster *c,
                  const struct baechi_placement *p, const struct baechi_options **o,
                  struct baechi_options *defaults, const char *model, struct sim_options *so,
                  struct graph *g, int64_t **weights, struct cluster *cw);

/* o, else the options p was placed with, else the defaults (in *defaults). */
const struct baechi_options *api_options_for(const struct baechi_placement *p,
                                             const struct baechi_options *o,
                                             struct baechi_options *defaults);

#endif
