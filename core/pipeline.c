/*
 * pipeline.c - pipeline schedule names and in-flight counts (pipeline.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/pipeline.h"

#include "core/err.h"

#include <string.h>

static const char *const schedule_names[PIPELINE_N_SCHEDULES] = {
    [PIPELINE_GPIPE] = "gpipe",
    [PIPELINE_1F1B] = "1f1b",
    [PIPELINE_INTERLEAVED] = "interleaved",
};

const char *pipeline_schedule_name(enum pipeline_schedule s)
{
    return (unsigned)s < PIPELINE_N_SCHEDULES ? schedule_names[s] : "?";
}

int pipeline_schedule_parse(const char *name, enum pipeline_schedule *out)
{
    for (int i = 0; i < PIPELINE_N_SCHEDULES; i++) {
        if (name && strcmp(name, schedule_names[i]) == 0) {
            *out = (enum pipeline_schedule)i;
            return 0;
        }
    }
    return err_set(BAECHI_EINVAL, "unknown pipeline schedule '%s' (gpipe, 1f1b, interleaved)",
                   name ? name : "");
}

int pipeline_opts_check(const struct pipeline_opts *o)
{
    if ((unsigned)o->schedule >= PIPELINE_N_SCHEDULES) {
        return err_set(BAECHI_EINVAL, "unknown pipeline schedule %d", (int)o->schedule);
    }
    if (o->virtual_stages < 1 || o->virtual_stages > PIPELINE_VIRTUAL_STAGES_MAX) {
        return err_set(BAECHI_EINVAL, "virtual stages must be in 1..%d, not %d",
                       PIPELINE_VIRTUAL_STAGES_MAX, (int)o->virtual_stages);
    }
    if (o->virtual_stages > 1 && o->schedule != PIPELINE_INTERLEAVED) {
        return err_set(BAECHI_EINVAL, "virtual stages (%d) need the interleaved schedule, not %s",
                       (int)o->virtual_stages, pipeline_schedule_name(o->schedule));
    }
    return 0;
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

int64_t pipeline_in_flight(const struct pipeline_opts *o, int32_t k, int32_t s, int32_t m)
{
    int64_t v = o->virtual_stages > 0 ? o->virtual_stages : 1;
    switch (o->schedule) {
    case PIPELINE_GPIPE:
        return (int64_t)m * v;
    case PIPELINE_1F1B:
        return min64(m, (int64_t)k - s);
    case PIPELINE_INTERLEAVED:
        return min64((int64_t)m * v, 2 * ((int64_t)k - s - 1) + (v - 1) * k + 1);
    }
    return (int64_t)m * v;
}
