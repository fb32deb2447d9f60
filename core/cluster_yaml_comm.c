/*
 * cluster_yaml_comm.c - a cluster file's `comm`: the default
 * transfer model (slope, intercept), the channel, collective efficiency and
 * per-pair overrides, whose endpoints (index or device name) are resolved
 * once every device is read (docs/formats.md).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/cluster_yaml_internal.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"
#include "core/strbuf.h"
#include "core/limits.h"
#include "core/strmap.h"
#include "core/yio.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum comm_key {
    MK_SLOPE = 1 << 0,
    MK_INTERCEPT = 1 << 1,
    MK_CHANNEL = 1 << 2,
    MK_PAIRS = 1 << 3,
    MK_EFF = 1 << 4,
};

static int pair_endpoint(struct cl_reader *rd, char **out, int32_t *line, int32_t *col)
{
    struct yrd *r = &rd->r;

    if (!yrd_is_scalar(r) || yrd_is_null(r) || yrd_text_len(r) == 0) {
        return cluster_yaml_value_err(rd, "comm: pairs", "expected a device index or name");
    }
    *line = yrd_line(r);
    *col = yrd_col(r);
    free(*out);
    *out = mem_strdup(yrd_text(r));
    return *out ? 0 : BAECHI_ENOMEM;
}

static int pair_value(void *arg, unsigned bit)
{
    struct cl_reader *rd = arg;
    struct pair_raw *p = &rd->pair[rd->n_pair - 1];

    switch (bit) {
    case 1:
        return pair_endpoint(rd, &p->src, &p->src_line, &p->src_col);
    case 2:
        return pair_endpoint(rd, &p->dst, &p->dst_line, &p->dst_col);
    case 4:
        return cluster_yaml_get_number(rd, "comm: pairs", &p->slope, &r_slope);
    default:
        return cluster_yaml_get_number(rd, "comm: pairs", &p->intercept, &r_icpt);
    }
}

static int read_pair(struct cl_reader *rd)
{
    static const struct yrd_key keys[] = {
        {"src", 1, ""}, {"dst", 2, ""}, {"slope_us_per_byte", 4, NULL}, {"intercept_us", 8, NULL}};
    static const struct yrd_map map = {
        .keys = keys,
        .n_keys = sizeof(keys) / sizeof(keys[0]),
        .unknown_hint =
            " (allowed: src, dst, slope_us_per_byte, intercept_us; extensions start with 'x-')",
        .value = pair_value,
        .ctx = "comm: pairs",
    };
    struct yrd *r = &rd->r;
    struct pair_raw *p;
    unsigned seen = 0;
    int rc;

    if (r->ev.type != YAML_MAPPING_START_EVENT) {
        return cluster_yaml_value_err(rd, "comm",
                                      "expected pairs as {src: 0, dst: 1, slope_us_per_byte: ...}");
    }
    if (ARRAY_RESERVE(rd->pair, rd->alloc_pair, rd->n_pair + 1)) {
        return BAECHI_ENOMEM;
    }
    p = &rd->pair[rd->n_pair++];
    memset(p, 0, sizeof(*p));
    p->slope = p->intercept = NAN;
    p->line = yrd_line(r);
    p->col = yrd_col(r);
    if ((rc = yrd_map_read(r, &map, rd, &seen))) {
        return rc;
    }
    if (!(seen & 12)) {
        return yrd_err(r, p->line, p->col,
                       "comm: pairs: a pair needs slope_us_per_byte and/or intercept_us");
    }
    return 0;
}

static int comm_value(void *arg, unsigned bit)
{
    struct cl_reader *rd = arg;
    struct yrd *r = &rd->r;
    struct cluster *c = rd->c;
    int rc;

    switch (bit) {
    case MK_SLOPE:
        return cluster_yaml_get_number(rd, "comm", &c->comm.slope_us_per_byte, &r_slope);
    case MK_INTERCEPT:
        return cluster_yaml_get_number(rd, "comm", &c->comm.intercept_us, &r_icpt);
    case MK_EFF:
        return cluster_yaml_get_number(rd, "comm", &c->coll_efficiency, &r_eff);
    case MK_CHANNEL:
        if (!yrd_is_scalar(r)) {
            return cluster_yaml_value_err(rd, "comm", "expected shared, duplex or link");
        } else if (strcmp(yrd_text(r), "shared") == 0) {
            c->channel = CHANNEL_SHARED;
        } else if (strcmp(yrd_text(r), "duplex") == 0) {
            c->channel = CHANNEL_DUPLEX;
        } else if (strcmp(yrd_text(r), "link") == 0) {
            c->channel = CHANNEL_LINK;
        } else {
            return cluster_yaml_value_err(rd, "comm", "expected shared, duplex or link");
        }
        return 0;
    default:
        if (r->ev.type != YAML_SEQUENCE_START_EVENT) {
            return cluster_yaml_value_err(rd, "comm",
                                          "expected a list of {src, dst, ...} overrides");
        }
        for (;;) {
            if ((rc = yrd_next(r)) || r->ev.type == YAML_SEQUENCE_END_EVENT) {
                return rc;
            }
            if ((rc = read_pair(rd))) {
                return rc;
            }
        }
    }
}

int cluster_yaml_read_comm(struct cl_reader *rd)
{
    static const struct yrd_key keys[] = {{"slope_us_per_byte", MK_SLOPE, NULL},
                                          {"intercept_us", MK_INTERCEPT, NULL},
                                          {"channel", MK_CHANNEL, NULL},
                                          {"pairs", MK_PAIRS, NULL},
                                          {"coll_efficiency", MK_EFF, NULL}};
    static const struct yrd_map map = {
        .keys = keys,
        .n_keys = sizeof(keys) / sizeof(keys[0]),
        .unknown_hint = " (allowed: slope_us_per_byte, intercept_us, channel, pairs, "
                        "coll_efficiency; extensions start with 'x-')",
        .value = comm_value,
        .ctx = "comm",
    };
    unsigned seen = 0;

    if (rd->r.ev.type != YAML_MAPPING_START_EVENT) {
        return cluster_yaml_value_err(rd, NULL,
                                      "expected a mapping (slope_us_per_byte, intercept_us, ...)");
    }
    return yrd_map_read(&rd->r, &map, rd, &seen);
}

/* A pair endpoint: a device index or a device name. */
static int resolve_endpoint(struct cl_reader *rd, const char *s, int32_t line, int32_t col,
                            const char *which, int32_t *out)
{
    int32_t n = rd->c->n_devices;
    int32_t i = strmap_get(&rd->by_name, s, strlen(s));
    int64_t v;

    if (i >= 0) {
        *out = i;
        return 0;
    }
    if (s[0] == '-' || yio_parse_size(s, &v) || strspn(s, "0123456789") != strlen(s)) {
        return yrd_err(&rd->r, line, col, "comm: pairs: %s '%s' is not a device index or name",
                       which, s);
    }
    if (v >= n) {
        return yrd_err(&rd->r, line, col,
                       "comm: pairs: %s %lld out of range (the cluster has %d device%s: 0..%d)",
                       which, (long long)v, n, n == 1 ? "" : "s", n - 1);
    }
    *out = (int32_t)v;
    return 0;
}

int cluster_yaml_resolve_pairs(struct cl_reader *rd)
{
    struct cluster *c = rd->c;
    size_t nn = (size_t)c->n_devices * (size_t)c->n_devices;
    int rc;

    if (rd->n_pair == 0) {
        return 0;
    }
    if (c->n_devices > LIMIT_MAX_DEVICES) {
        /* the overrides live in an n x n table: 4 GiB at 16,384 devices */
        return yrd_err(&rd->r, rd->pair[0].line, rd->pair[0].col,
                       "comm: pairs: per-pair overrides need a cluster of at most %d devices, "
                       "this one has %d (use nodes: for links by node)",
                       LIMIT_MAX_DEVICES, (int)c->n_devices);
    }
    if (!(c->pair = mem_alloc_array(nn, sizeof(*c->pair)))) {
        return BAECHI_ENOMEM;
    }
    for (size_t i = 0; i < nn; i++) {
        c->pair[i].slope_us_per_byte = NAN;
        c->pair[i].intercept_us = NAN;
    }
    for (size_t k = 0; k < rd->n_pair; k++) {
        const struct pair_raw *p = &rd->pair[k];
        struct comm_model *m;
        int32_t s, d;

        if ((rc = resolve_endpoint(rd, p->src, p->src_line, p->src_col, "src", &s)) ||
            (rc = resolve_endpoint(rd, p->dst, p->dst_line, p->dst_col, "dst", &d))) {
            return rc;
        }
        if (s == d) {
            return yrd_err(&rd->r, p->line, p->col,
                           "comm: pairs: src and dst are the same device (%d, '%s'); a device "
                           "does not send to itself",
                           s, c->dev[s].name);
        }
        m = &c->pair[(size_t)s * (size_t)c->n_devices + (size_t)d];
        if (!isnan(m->slope_us_per_byte)) {
            return yrd_err(&rd->r, p->line, p->col,
                           "comm: pairs: duplicate override for %d -> %d ('%s' -> '%s')", s, d,
                           c->dev[s].name, c->dev[d].name);
        }
        m->slope_us_per_byte = isnan(p->slope) ? c->comm.slope_us_per_byte : p->slope;
        m->intercept_us = isnan(p->intercept) ? c->comm.intercept_us : p->intercept;
    }
    return 0;
}
