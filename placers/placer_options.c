/*
 * placer_options.c - the placers' options and statistics (placer_options.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/placer_options.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void placer_options_init(struct placer_options *o)
{
    memset(o, 0, sizeof(*o));
    o->memory_fraction = 1.0;
    o->comm_factor = 1.0;
    o->compute_factor = 1.0;
    o->n_devices = 0;
    o->grouper = PLACER_GROUPER_TF;
    o->sct_threshold = 0.1;
    o->lp_time_limit_s = 0;
    o->seed = PLACER_DEFAULT_SEED;
    o->impl = PLACER_IMPL_FAST;
    o->budget_ms = PLACER_AUTO_BUDGET_MS;
    o->pipeline.schedule = PIPELINE_1F1B;
    o->pipeline.virtual_stages = 1;
}

void placer_options_paper(struct placer_options *o)
{
    o->fusion = true;
    o->grouper = PLACER_GROUPER_COPLACE;
}

void placer_stats_init(struct placer_stats *s)
{
    memset(s, 0, sizeof(*s));
    s->estimate_us = -1;
    s->lp_makespan_us = NAN;
}

void placer_stats_release(struct placer_stats *s)
{
    free(s->peak_bytes);
    free(s->limit_bytes);
    placer_stats_init(s);
}
