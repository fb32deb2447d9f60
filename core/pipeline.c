/*
 * pipeline.c - pipeline schedule names and in-flight counts (pipeline.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/pipeline.h"

#include "core/err.h"
#include "core/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const schedule_names[PIPELINE_N_SCHEDULES] = {
    [PIPELINE_GPIPE] = "gpipe",
    [PIPELINE_1F1B] = "1f1b",
    [PIPELINE_INTERLEAVED] = "interleaved",
};

void pipeline_opts_init(struct pipeline_opts *o)
{
    o->schedule = PIPELINE_1F1B;
    o->virtual_stages = 1;
}

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

/* One item of the PIPELINE_KEY mapping into *o; why names what is wrong. */
static const char *read_item(const char *key, const struct yval *v, struct pipeline_opts *o)
{
    char *end;
    long x;

    if (v->kind != YVAL_SCALAR || !v->scalar) {
        return "a value must be a scalar";
    }
    if (strcmp(key, "schedule") == 0) {
        return pipeline_schedule_parse(v->scalar, &o->schedule) ? "unknown schedule (gpipe, "
                                                                  "1f1b, interleaved)"
                                                                : NULL;
    }
    if (strcmp(key, "virtual_stages") == 0) {
        x = strtol(v->scalar, &end, 10);
        if (*end || end == v->scalar || x < 1 || x > PIPELINE_VIRTUAL_STAGES_MAX) {
            return "virtual_stages must be an integer in 1..64";
        }
        o->virtual_stages = (int32_t)x;
        return NULL;
    }
    return "unknown key (schedule, virtual_stages)";
}

int pipeline_opts_read(const struct workload *w, struct pipeline_opts *o, bool *found)
{
    pipeline_opts_init(o);
    if (found) {
        *found = false;
    }
    for (int32_t i = 0; i < w->n_top_ext; i++) {
        const struct yval *v = &w->top_ext[i].val;
        const char *why = v->kind == YVAL_MAP ? NULL : "expected a mapping";
        struct strbuf check_why = STRBUF_INIT;
        int rc;
        int32_t j = 0;

        if (strcmp(w->top_ext[i].key, PIPELINE_KEY) != 0) {
            continue;
        }
        for (; !why && j < v->n; j++) {
            why = read_item(v->keys[j], &v->items[j], o);
        }
        if (!why && pipeline_opts_check(o)) {
            /* err_set formats into err_msg()'s buffer: copy the reason first */
            if ((rc = strbuf_addstr(&check_why, err_msg()))) {
                return rc;
            }
            why = check_why.buf;
        }
        if (why) {
            const struct yval *bad = j > 0 ? &v->items[j - 1] : NULL;

            rc = err_set(BAECHI_EPARSE, "%s: %s%s%s: %s%s%s%s", w->path ? w->path : "workload",
                         PIPELINE_KEY, bad ? "." : "", bad ? v->keys[j - 1] : "", why,
                         bad && bad->kind == YVAL_SCALAR && bad->scalar ? " (not '" : "",
                         bad && bad->kind == YVAL_SCALAR && bad->scalar ? bad->scalar : "",
                         bad && bad->kind == YVAL_SCALAR && bad->scalar ? "')" : "");
            strbuf_release(&check_why);
            return rc;
        }
        if (found) {
            *found = true;
        }
    }
    return 0;
}

int pipeline_opts_write(struct workload *w, const struct pipeline_opts *o)
{
    /* yval has no const members: the strings are only read (set_top_ext copies) */
    char vs[16], name[16], sched_key[] = "schedule", vs_key[] = "virtual_stages";
    char *keys[2] = {sched_key, vs_key};
    struct yval items[2] = {
        {.kind = YVAL_SCALAR, .scalar = name},
        {.kind = YVAL_SCALAR, .scalar = vs},
    };
    struct yval map = {.kind = YVAL_MAP, .n = 2, .keys = keys, .items = items};

    snprintf(name, sizeof(name), "%s", pipeline_schedule_name(o->schedule));
    snprintf(vs, sizeof(vs), "%d", (int)o->virtual_stages);
    return workload_set_top_ext(w, PIPELINE_KEY, &map);
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
