/*
 * cluster_yaml.c - cluster files (YAML) (see cluster.h; the format with
 * every rule is in docs/formats.md; the built-in presets in
 * cluster_preset.c).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/cluster.h"

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

/* deviation: a cluster may hold more devices than a placement or --devices
 * names (LIMIT_MAX_DEVICES): the 16,384-GPU presets place small graphs on a
 * few of them. */
#define CLUSTER_MAX_DEVICES 16384

enum cl_key {
    CK_FORMAT = 1 << 0,
    CK_NAME = 1 << 1,
    CK_DESC = 1 << 2,
    CK_SOURCE = 1 << 3,
    CK_DEVICES = 1 << 4,
    CK_COMM = 1 << 5,
    CK_NODES = 1 << 6,
};

enum nodes_key {
    NK_COUNT = 1 << 0,
    NK_GPUS = 1 << 1,
    NK_INTRA = 1 << 2,
    NK_INTER = 1 << 3,
    NK_TIERS = 1 << 4,
    NK_OVERSUB = 1 << 5,
    NK_LEAF = 1 << 6,
    NK_POD = 1 << 7,
};

enum link_key {
    LK_BW = 1 << 0,
    LK_LATENCY = 1 << 1,
    LK_SLOPE = 1 << 2,
    LK_INTERCEPT = 1 << 3,
    LK_PER = 1 << 4,
    LK_EFF = 1 << 5,
};

enum dev_key {
    DK_NAME = 1 << 0,
    DK_COUNT = 1 << 1,
    DK_KIND = 1 << 2,
    DK_MEMORY = 1 << 3,
    DK_SPEED = 1 << 4,
    DK_PEAK = 1 << 5,
    DK_BW = 1 << 6,
    DK_LAUNCH = 1 << 7,
};

enum comm_key {
    MK_SLOPE = 1 << 0,
    MK_INTERCEPT = 1 << 1,
    MK_CHANNEL = 1 << 2,
    MK_PAIRS = 1 << 3,
    MK_EFF = 1 << 4,
};

/* A per-pair override as read; src/dst resolved once all devices are known. */
struct pair_raw {
    char *src, *dst; /* index or device name */
    int32_t src_line, src_col, dst_line, dst_col, line, col;
    double slope, intercept; /* NAN when absent */
};

struct cl_reader {
    struct yrd r;
    struct cluster *c;
    struct strmap by_name;
    struct strpool names;
    size_t alloc_dev;
    struct pair_raw *pair;
    size_t n_pair, alloc_pair;
    int64_t n_nodes;               /* `nodes: count`, 0 when absent */
    int32_t nodes_line, nodes_col; /* where `nodes` starts (messages) */
    struct comm_model *link;       /* the intra/inter model being read */
    double *link_eff;              /* and its collective efficiency */
    double link_bw;                /* its bandwidth, bytes/s; NAN when absent */
    bool link_per_node;            /* the link being read: `per: node` */
    bool inter_per_node;           /* inter_node's bandwidth is the node's, not a GPU's */
    const char *link_ctx;          /* "nodes: intra_node" or "nodes: inter_node" */
};

/* Error about the current value of key r->key in `ctx` ("device 'gpu0'", "comm", ...). */
static int value_err(struct cl_reader *rd, const char *ctx, const char *why)
{
    char what[96];

    if (ctx) {
        return yrd_err_here(&rd->r, "%s: %s: %s, got %s", ctx, rd->r.key, why,
                            yrd_what(&rd->r, what, sizeof(what)));
    }
    return yrd_err_here(&rd->r, "%s: %s, got %s", rd->r.key, why,
                        yrd_what(&rd->r, what, sizeof(what)));
}

/* A scalar string value (non-empty unless `optional`, where null means absent). */
static int get_string(struct cl_reader *rd, const char *ctx, char **out, bool optional)
{
    struct yrd *r = &rd->r;

    if (optional && yrd_is_null(r)) {
        return 0;
    }
    if (!yrd_is_scalar(r) || yrd_is_null(r) || yrd_text_len(r) == 0) {
        return value_err(rd, ctx, "expected a string");
    }
    if (memchr(yrd_text(r), '\0', yrd_text_len(r))) {
        return value_err(rd, ctx, "must not contain a NUL character");
    }
    free(*out);
    *out = mem_strdup(yrd_text(r));
    return *out ? 0 : BAECHI_ENOMEM;
}

/* The range of a number (core/limits.h, docs/limits.md). */
struct range {
    double lo, hi;
    const char *unit; /* for the message: "µs", "" */
};

static const struct range r_speed = {LIMIT_SPEED_MIN, LIMIT_SPEED_MAX, ""};
static const struct range r_flops = {LIMIT_PEAK_FLOPS_MIN, LIMIT_PEAK_FLOPS_MAX, " FLOP/s"};
static const struct range r_bw = {LIMIT_BANDWIDTH_MIN, LIMIT_BANDWIDTH_MAX, " bytes/s"};
static const struct range r_launch = {0, LIMIT_LAUNCH_US_MAX, " µs"};
static const struct range r_slope = {0, LIMIT_SLOPE_MAX, " µs/byte"};
static const struct range r_icpt = {0, LIMIT_INTERCEPT_MAX, " µs"};
static const struct range r_eff = {0.01, 1, ""};
static const struct range r_oversub = {1, 64, ""};

static int range_check(struct cl_reader *rd, const char *ctx, double x, const struct range *rg)
{
    char why[128];

    if (x >= rg->lo && x <= rg->hi) {
        return 0;
    }
    snprintf(why, sizeof(why), "must be in [%g, %g]%s", rg->lo, rg->hi, rg->unit);
    return value_err(rd, ctx, why);
}

/* A plain number in `rg`. */
static int get_number(struct cl_reader *rd, const char *ctx, double *out, const struct range *rg)
{
    const char *why;

    if (!yrd_is_scalar(&rd->r) || !yrd_plain(&rd->r)) {
        return value_err(rd, ctx, "expected a number");
    }
    if ((why = yio_parse_double(yrd_text(&rd->r), out))) {
        return value_err(rd, ctx, why);
    }
    return range_check(rd, ctx, *out, rg);
}

/*
 * A number with an optional unit from `units` (suffix -> multiplier; the
 * empty suffix is the base unit).  "13.4e12", "989 TFLOPS", "616GB/s".
 */
struct unit {
    const char *suffix;
    double mult;
};

static int get_with_unit(struct cl_reader *rd, const char *ctx, const struct unit *units,
                         size_t n_units, const char *hint, const struct range *rg, double *out)
{
    const char *s, *why;
    char num[64];
    size_t len;

    if (!yrd_is_scalar(&rd->r) || yrd_is_null(&rd->r)) {
        return value_err(rd, ctx, hint);
    }
    s = yrd_text(&rd->r);
    len = strspn(s, "+-0123456789.eE");
    /* "1e" of "1eB" is not a number: back off a trailing exponent marker */
    while (len > 0 && (s[len - 1] == 'e' || s[len - 1] == 'E')) {
        len--;
    }
    if (len == 0 || len >= sizeof(num)) {
        return value_err(rd, ctx, hint);
    }
    memcpy(num, s, len);
    num[len] = '\0';
    if ((why = yio_parse_double(num, out))) {
        return value_err(rd, ctx, strcmp(why, "expected a number") == 0 ? hint : why);
    }
    s += len;
    while (*s == ' ') {
        s++;
    }
    for (size_t i = 0; i < n_units; i++) {
        if (strcmp(s, units[i].suffix) == 0) {
            *out *= units[i].mult;
            if (!isfinite(*out)) {
                return value_err(rd, ctx, "is too large");
            }
            if (!(*out > 0)) {
                return value_err(rd, ctx, "must be > 0");
            }
            return range_check(rd, ctx, *out, rg);
        }
    }
    return value_err(rd, ctx, hint);
}

static const struct unit flops_units[] = {
    {"", 1},           {"FLOPS", 1},     {"FLOP/s", 1},     {"kFLOPS", 1e3},  {"kFLOP/s", 1e3},
    {"MFLOPS", 1e6},   {"MFLOP/s", 1e6}, {"GFLOPS", 1e9},   {"GFLOP/s", 1e9}, {"TFLOPS", 1e12},
    {"TFLOP/s", 1e12}, {"PFLOPS", 1e15}, {"PFLOP/s", 1e15},
};

static const struct unit bw_units[] = {
    {"", 1},
    {"B/s", 1},
    {"kB/s", 1e3},
    {"KB/s", 1e3},
    {"MB/s", 1e6},
    {"GB/s", 1e9},
    {"TB/s", 1e12},
    {"KiB/s", 1024.0},
    {"MiB/s", 1024.0 * 1024},
    {"GiB/s", 1024.0 * 1024 * 1024},
    {"TiB/s", 1024.0 * 1024 * 1024 * 1024},
    /* bits, as NICs are sold (400 Gb/s InfiniBand NDR = 50e9 bytes/s) */
    {"Mb/s", 1e6 / 8},
    {"Gb/s", 1e9 / 8},
    {"Tb/s", 1e12 / 8},
};

/* One entry of `devices` as read (count > 1 makes name0, name1, ...). */
struct dev_reader {
    struct cl_reader *rd;
    struct cluster_device d;
    int64_t count;
    unsigned seen;
    struct strbuf ctx; /* "device #2", then "device 'gpu'" once the name is read */
};

static int dev_memory(struct dev_reader *dv)
{
    struct cl_reader *rd = dv->rd;
    struct yrd *r = &rd->r;

    if (!yrd_is_scalar(r) || yrd_is_null(r)) {
        return value_err(rd, dv->ctx.buf,
                         "expected a size in bytes (e.g. 16GiB, 80GB, 6914897920)");
    }
    if (yrd_text(r)[0] == '-') {
        return value_err(rd, dv->ctx.buf, "must not be negative");
    }
    if (!yio_parse_size(yrd_text(r), &dv->d.mem_bytes)) {
        /* an integer */
    } else if (cluster_parse_bytes(yrd_text(r), &dv->d.mem_bytes)) {
        struct strbuf msg = STRBUF_INIT;
        int rc;

        /* the size's own message, kept whole (a char[600] once cut it) */
        if ((rc = strbuf_addstr(&msg, err_msg())) == 0) {
            rc = yrd_err_here(r, "%s: memory: %s", dv->ctx.buf, msg.buf);
        }
        strbuf_release(&msg);
        return rc;
    }
    if (dv->d.mem_bytes <= 0) {
        return value_err(rd, dv->ctx.buf, "must be > 0 bytes");
    }
    return 0;
}

/* The mapping's message prefix: the device's name, whole, once read. */
static int dev_label(void *arg, struct strbuf *out)
{
    return strbuf_addstr(out, ((struct dev_reader *)arg)->ctx.buf);
}

static int dev_value(void *arg, unsigned bit)
{
    struct dev_reader *dv = arg;
    struct cl_reader *rd = dv->rd;
    struct yrd *r = &rd->r;
    int rc;

    switch (bit) {
    case DK_NAME:
        if ((rc = get_string(rd, dv->ctx.buf, &dv->d.name, false))) {
            return rc;
        }
        return strbuf_setf(&dv->ctx, "device '%s'", dv->d.name);
    case DK_KIND:
        return get_string(rd, dv->ctx.buf, &dv->d.kind, false);
    case DK_COUNT:
        if (!yrd_is_scalar(r) || !yrd_plain(r) || yio_parse_size(yrd_text(r), &dv->count)) {
            return value_err(rd, dv->ctx.buf, "expected a device count (1, 2, ...)");
        }
        if (dv->count < 1 || dv->count > CLUSTER_MAX_DEVICES) {
            return value_err(rd, dv->ctx.buf, "must be between 1 and 4096");
        }
        return 0;
    case DK_MEMORY:
        return dev_memory(dv);
    case DK_SPEED:
        return get_number(rd, dv->ctx.buf, &dv->d.speed, &r_speed);
    case DK_PEAK:
        return get_with_unit(
            rd, dv->ctx.buf, flops_units, sizeof(flops_units) / sizeof(flops_units[0]),
            "expected FLOP/s (e.g. 13.4e12 or 989TFLOPS)", &r_flops, &dv->d.peak_flops);
    case DK_BW:
        return get_with_unit(rd, dv->ctx.buf, bw_units, sizeof(bw_units) / sizeof(bw_units[0]),
                             "expected bytes/s (e.g. 616e9, 616GB/s or 3.35TB/s)", &r_bw,
                             &dv->d.mem_bw_bytes_per_s);
    default:
        return get_number(rd, dv->ctx.buf, &dv->d.launch_us, &r_launch);
    }
}

/* Adds the device just read, dv->count times. */
static int dev_add(struct dev_reader *dv, int32_t line, int32_t col)
{
    struct cl_reader *rd = dv->rd;
    struct cluster *c = rd->c;

    if (c->n_devices + dv->count > CLUSTER_MAX_DEVICES) {
        return yrd_err(&rd->r, line, col, "%s: too many devices (at most %d)", dv->ctx.buf,
                       CLUSTER_MAX_DEVICES);
    }
    if (ARRAY_RESERVE(c->dev, rd->alloc_dev, (size_t)(c->n_devices + dv->count))) {
        return BAECHI_ENOMEM;
    }
    for (int64_t k = 0; k < dv->count; k++) {
        struct cluster_device *nd = &c->dev[c->n_devices];
        char *name = NULL;
        const char *pooled;
        int32_t old;

        if (dv->seen & DK_COUNT) {
            size_t n = strlen(dv->d.name) + 24;

            if (!(name = mem_alloc(n))) {
                return err_set(BAECHI_ENOMEM, "out of memory");
            }
            snprintf(name, n, "%s%lld", dv->d.name, (long long)k);
        } else if (!(name = mem_strdup(dv->d.name))) {
            return BAECHI_ENOMEM;
        }
        if (!(pooled = strpool_add(&rd->names, name, strlen(name))) ||
            strmap_put(&rd->by_name, pooled, c->n_devices, &old)) {
            free(name);
            return BAECHI_ENOMEM;
        }
        if (old >= 0) {
            int rc = yrd_err(&rd->r, line, col, "duplicate device name '%s' (device %d has it)",
                             name, old);

            free(name);
            return rc;
        }
        *nd = dv->d;
        nd->name = name;
        nd->kind = NULL;
        if (dv->d.kind && !(nd->kind = mem_strdup(dv->d.kind))) {
            free(name);
            return BAECHI_ENOMEM;
        }
        c->n_devices++;
    }
    return 0;
}

static int read_device(struct cl_reader *rd, int32_t index)
{
    static const struct yrd_key keys[] = {
        {"name", DK_NAME, ""},
        {"count", DK_COUNT, NULL},
        {"kind", DK_KIND, NULL},
        {"memory", DK_MEMORY, " (bytes, e.g. 16GiB)"},
        {"speed", DK_SPEED, NULL},
        {"peak_flops", DK_PEAK, NULL},
        {"memory_bandwidth", DK_BW, NULL},
        {"launch_us", DK_LAUNCH, NULL},
    };
    struct yrd *r = &rd->r;
    struct dev_reader dv;
    struct yrd_map map = {
        .keys = keys,
        .n_keys = sizeof(keys) / sizeof(keys[0]),
        .unknown_hint = " (allowed: name, count, kind, memory, speed, peak_flops, "
                        "memory_bandwidth, launch_us; extensions start with 'x-')",
        .value = dev_value,
        .label = dev_label,
    };
    int32_t line = yrd_line(r), col = yrd_col(r);
    int rc = 0;

    memset(&dv, 0, sizeof(dv));
    strbuf_init(&dv.ctx);
    dv.rd = rd;
    dv.count = 1;
    dv.d.speed = 1.0;
    dv.d.peak_flops = NAN;
    dv.d.mem_bw_bytes_per_s = NAN;
    dv.d.launch_us = NAN;
    if (r->ev.type != YAML_MAPPING_START_EVENT) {
        char what[96];

        return yrd_err_here(r, "device #%d: expected a mapping ({name: ..., memory: ...}), got %s",
                            index + 1, yrd_what(r, what, sizeof(what)));
    }
    CHECK(strbuf_addf(&dv.ctx, "device #%d", index + 1));
    CHECK(yrd_map_read(r, &map, &dv, &dv.seen));
    CHECK(dev_add(&dv, line, col));
cleanup:
    free(dv.d.name);
    free(dv.d.kind);
    strbuf_release(&dv.ctx);
    return rc;
}

static int read_devices(struct cl_reader *rd)
{
    struct yrd *r = &rd->r;
    int32_t line = yrd_line(r), col = yrd_col(r), n = 0;
    int rc;

    if (r->ev.type != YAML_SEQUENCE_START_EVENT) {
        return value_err(rd, NULL, "expected a list of devices");
    }
    for (;;) {
        if ((rc = yrd_next(r))) {
            return rc;
        }
        if (r->ev.type == YAML_SEQUENCE_END_EVENT) {
            break;
        }
        if ((rc = read_device(rd, n++))) {
            return rc;
        }
    }
    if (rd->c->n_devices == 0) {
        return yrd_err(r, line, col, "devices: the list is empty (a cluster needs a device)");
    }
    return 0;
}

static int pair_endpoint(struct cl_reader *rd, char **out, int32_t *line, int32_t *col)
{
    struct yrd *r = &rd->r;

    if (!yrd_is_scalar(r) || yrd_is_null(r) || yrd_text_len(r) == 0) {
        return value_err(rd, "comm: pairs", "expected a device index or name");
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
        return get_number(rd, "comm: pairs", &p->slope, &r_slope);
    default:
        return get_number(rd, "comm: pairs", &p->intercept, &r_icpt);
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
        return value_err(rd, "comm", "expected pairs as {src: 0, dst: 1, slope_us_per_byte: ...}");
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
        return get_number(rd, "comm", &c->comm.slope_us_per_byte, &r_slope);
    case MK_INTERCEPT:
        return get_number(rd, "comm", &c->comm.intercept_us, &r_icpt);
    case MK_EFF:
        return get_number(rd, "comm", &c->coll_efficiency, &r_eff);
    case MK_CHANNEL:
        if (!yrd_is_scalar(r)) {
            return value_err(rd, "comm", "expected shared, duplex or link");
        } else if (strcmp(yrd_text(r), "shared") == 0) {
            c->channel = CHANNEL_SHARED;
        } else if (strcmp(yrd_text(r), "duplex") == 0) {
            c->channel = CHANNEL_DUPLEX;
        } else if (strcmp(yrd_text(r), "link") == 0) {
            c->channel = CHANNEL_LINK;
        } else {
            return value_err(rd, "comm", "expected shared, duplex or link");
        }
        return 0;
    default:
        if (r->ev.type != YAML_SEQUENCE_START_EVENT) {
            return value_err(rd, "comm", "expected a list of {src, dst, ...} overrides");
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

static int read_comm(struct cl_reader *rd)
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
        return value_err(rd, NULL, "expected a mapping (slope_us_per_byte, intercept_us, ...)");
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

static int resolve_pairs(struct cl_reader *rd)
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

/* ---------------------------------------------------------------- nodes */

static int link_value(void *arg, unsigned bit)
{
    struct cl_reader *rd = arg;
    struct yrd *r = &rd->r;

    switch (bit) {
    case LK_BW:
        return get_with_unit(rd, rd->link_ctx, bw_units, sizeof(bw_units) / sizeof(bw_units[0]),
                             "expected bytes/s (e.g. 450GB/s, 400Gb/s or 50e9)", &r_bw,
                             &rd->link_bw);
    case LK_LATENCY:
    case LK_INTERCEPT:
        return get_number(rd, rd->link_ctx, &rd->link->intercept_us, &r_icpt);
    case LK_SLOPE:
        return get_number(rd, rd->link_ctx, &rd->link->slope_us_per_byte, &r_slope);
    case LK_EFF:
        return get_number(rd, rd->link_ctx, rd->link_eff, &r_eff);
    default:
        if (yrd_is_scalar(r) && strcmp(yrd_text(r), "gpu") == 0) {
            rd->link_per_node = false;
        } else if (yrd_is_scalar(r) && strcmp(yrd_text(r), "node") == 0) {
            rd->link_per_node = true;
        } else {
            return value_err(rd, rd->link_ctx, "expected gpu or node");
        }
        return 0;
    }
}

/* intra_node / inter_node: {bandwidth, latency_us} or {slope_us_per_byte, intercept_us}. */
static int read_link(struct cl_reader *rd, struct comm_model *m, double *eff, bool inter)
{
    static const struct yrd_key keys[] = {{"bandwidth", LK_BW, NULL},
                                          {"latency_us", LK_LATENCY, NULL},
                                          {"slope_us_per_byte", LK_SLOPE, NULL},
                                          {"intercept_us", LK_INTERCEPT, NULL},
                                          {"coll_efficiency", LK_EFF, NULL},
                                          {"per", LK_PER, NULL}};
    struct yrd_map map = {
        .keys = keys,
        .n_keys = sizeof(keys) / sizeof(keys[0]) - (inter ? 0 : 1),
        .unknown_hint = inter ? " (allowed: bandwidth, per, latency_us, slope_us_per_byte, "
                                "intercept_us, coll_efficiency; extensions start with 'x-')"
                              : " (allowed: bandwidth, latency_us, slope_us_per_byte, "
                                "intercept_us, coll_efficiency; extensions start with 'x-')",
        .value = link_value,
        .ctx = inter ? "nodes: inter_node" : "nodes: intra_node",
    };
    struct yrd *r = &rd->r;
    int32_t line = yrd_line(r), col = yrd_col(r);
    unsigned seen = 0;
    int rc;

    if (r->ev.type != YAML_MAPPING_START_EVENT) {
        return value_err(rd, "nodes", "expected a mapping ({bandwidth: 450GB/s, latency_us: 5})");
    }
    rd->link = m;
    rd->link_eff = eff;
    rd->link_ctx = map.ctx;
    rd->link_bw = NAN;
    rd->link_per_node = false;
    if ((rc = yrd_map_read(r, &map, rd, &seen))) {
        return rc;
    }
    if ((seen & LK_BW) && (seen & LK_SLOPE)) {
        return yrd_err(r, line, col, "%s: give bandwidth or slope_us_per_byte, not both", map.ctx);
    }
    if ((seen & LK_LATENCY) && (seen & LK_INTERCEPT)) {
        return yrd_err(r, line, col, "%s: give latency_us or intercept_us, not both", map.ctx);
    }
    if (!(seen & (LK_BW | LK_SLOPE))) {
        return yrd_err(r, line, col, "%s: missing required key 'bandwidth' (or slope_us_per_byte)",
                       map.ctx);
    }
    if ((seen & LK_PER) && !(seen & LK_BW)) {
        return yrd_err(r, line, col, "%s: 'per' goes with 'bandwidth'", map.ctx);
    }
    if (seen & LK_BW) {
        m->slope_us_per_byte = 1e6 / rd->link_bw;
        rd->inter_per_node = inter && rd->link_per_node;
    }
    return 0;
}

static int nodes_value(void *arg, unsigned bit)
{
    struct cl_reader *rd = arg;
    struct yrd *r = &rd->r;
    struct cluster *c = rd->c;
    int64_t v;

    switch (bit) {
    case NK_COUNT:
    case NK_GPUS:
        if (!yrd_is_scalar(r) || !yrd_plain(r) || yio_parse_size(yrd_text(r), &v) || v < 1 ||
            v > CLUSTER_MAX_DEVICES) {
            return value_err(rd, "nodes", "expected a count in 1..16384");
        }
        if (bit == NK_COUNT) {
            rd->n_nodes = v;
        } else {
            c->nodes.gpus_per_node = (int32_t)v;
        }
        return 0;
    case NK_TIERS:
        if (!yrd_is_scalar(r) || !yrd_plain(r) || yio_parse_size(yrd_text(r), &v) ||
            (v != 2 && v != 3)) {
            return value_err(rd, "nodes: tiers", "expected 2 or 3 (fat-tree tiers)");
        }
        c->nodes.tiers = (int32_t)v;
        return 0;
    case NK_LEAF:
    case NK_POD:
        if (!yrd_is_scalar(r) || !yrd_plain(r) || yio_parse_size(yrd_text(r), &v) || v < 1 ||
            v > CLUSTER_MAX_DEVICES) {
            return value_err(rd, bit == NK_LEAF ? "nodes: nodes_per_leaf" : "nodes: nodes_per_pod",
                             "expected a count in 1..16384");
        }
        *(bit == NK_LEAF ? &c->nodes.nodes_per_leaf : &c->nodes.nodes_per_pod) = (int32_t)v;
        return 0;
    case NK_OVERSUB:
        return get_number(rd, "nodes: oversubscription", &c->nodes.oversubscription, &r_oversub);
    case NK_INTRA:
        return read_link(rd, &c->nodes.intra, &c->nodes.intra_coll_efficiency, false);
    default:
        return read_link(rd, &c->nodes.inter, &c->nodes.inter_coll_efficiency, true);
    }
}

static int read_nodes(struct cl_reader *rd)
{
    static const struct yrd_key keys[] = {{"gpus_per_node", NK_GPUS, " (e.g. 8)"},
                                          {"count", NK_COUNT, NULL},
                                          {"intra_node", NK_INTRA, NULL},
                                          {"inter_node", NK_INTER, NULL},
                                          {"tiers", NK_TIERS, NULL},
                                          {"oversubscription", NK_OVERSUB, NULL},
                                          {"nodes_per_leaf", NK_LEAF, NULL},
                                          {"nodes_per_pod", NK_POD, NULL}};
    static const struct yrd_map map = {
        .keys = keys,
        .n_keys = sizeof(keys) / sizeof(keys[0]),
        .unknown_hint = " (allowed: gpus_per_node, count, intra_node, inter_node, tiers, "
                        "oversubscription, nodes_per_leaf, nodes_per_pod; extensions start "
                        "with 'x-')",
        .value = nodes_value,
        .ctx = "nodes",
    };
    unsigned seen = 0;

    rd->nodes_line = yrd_line(&rd->r);
    rd->nodes_col = yrd_col(&rd->r);
    if (rd->r.ev.type != YAML_MAPPING_START_EVENT) {
        return value_err(rd, NULL, "expected a mapping (gpus_per_node, count, intra_node, ...)");
    }
    return yrd_map_read(&rd->r, &map, rd, &seen);
}

/* The node section against the devices; then its per-pair models. */
static int finish_nodes(struct cl_reader *rd)
{
    struct cluster *c = rd->c;
    int32_t g = c->nodes.gpus_per_node;
    struct comm_model *m[2] = {&c->nodes.intra, &c->nodes.inter};

    if (g == 0) {
        return 0;
    }
    if (c->n_devices % g != 0) {
        return yrd_err(&rd->r, rd->nodes_line, rd->nodes_col,
                       "nodes: %d device%s do not split into nodes of gpus_per_node = %d",
                       c->n_devices, c->n_devices == 1 ? "" : "s", g);
    }
    if (rd->n_nodes > 0 && rd->n_nodes * g != c->n_devices) {
        return yrd_err(&rd->r, rd->nodes_line, rd->nodes_col,
                       "nodes: count %lld x gpus_per_node %d = %lld devices, but the cluster "
                       "has %d",
                       (long long)rd->n_nodes, g, (long long)rd->n_nodes * g, c->n_devices);
    }
    if (rd->inter_per_node) {
        /* the node's NICs are shared by its GPUs: each gets 1/g of them */
        c->nodes.inter.slope_us_per_byte *= (double)g;
    }
    for (int i = 0; i < 2; i++) {
        if (!isnan(m[i]->slope_us_per_byte) && isnan(m[i]->intercept_us)) {
            m[i]->intercept_us = c->comm.intercept_us;
        }
    }
    if (c->nodes.tiers >= 2 && c->nodes.nodes_per_leaf == 0) {
        c->nodes.nodes_per_leaf = 32; /* a DGX SuperPOD scalable unit */
    }
    if (c->nodes.tiers >= 3 && c->nodes.nodes_per_pod == 0) {
        c->nodes.nodes_per_pod =
            8 * c->nodes.nodes_per_leaf; /* 8 SUs: the largest two-tier block */
    }
    if (c->nodes.tiers >= 3 && c->nodes.nodes_per_pod % c->nodes.nodes_per_leaf != 0) {
        return yrd_err(&rd->r, rd->nodes_line, rd->nodes_col,
                       "nodes: nodes_per_pod %d is not a multiple of nodes_per_leaf %d",
                       c->nodes.nodes_per_pod, c->nodes.nodes_per_leaf);
    }
    if (c->nodes.tiers == 0 &&
        (c->nodes.nodes_per_leaf || c->nodes.nodes_per_pod || c->nodes.oversubscription != 1.0)) {
        return yrd_err(&rd->r, rd->nodes_line, rd->nodes_col,
                       "nodes: nodes_per_leaf, nodes_per_pod and oversubscription need 'tiers'");
    }
    /* large clusters: pair models on demand (cluster_comm_model), no n*n table */
    return c->n_devices <= CLUSTER_EXPAND_MAX_DEVICES ? cluster_expand_nodes(c) : 0;
}

#define CL_STR_(x) #x
#define CL_STR(x)  CL_STR_(x)

static int top_value(void *arg, unsigned bit)
{
    struct cl_reader *rd = arg;
    struct cluster *c = rd->c;

    switch (bit) {
    case CK_FORMAT:
        return yrd_format(&rd->r, "cluster", CLUSTER_FORMAT);
    case CK_NAME:
        return get_string(rd, NULL, &c->name, false);
    case CK_DESC:
        return get_string(rd, NULL, &c->description, true);
    case CK_SOURCE:
        return get_string(rd, NULL, &c->source, true);
    case CK_DEVICES:
        return read_devices(rd);
    case CK_NODES:
        return read_nodes(rd);
    default:
        return read_comm(rd);
    }
}

static int read_top(struct cl_reader *rd)
{
    static const struct yrd_key keys[] = {
        {"format", CK_FORMAT, " (write 'format: " CL_STR(CLUSTER_FORMAT) "')"},
        {"name", CK_NAME, ""},
        {"description", CK_DESC, NULL},
        {"source", CK_SOURCE, NULL},
        {"devices", CK_DEVICES, ""},
        {"comm", CK_COMM, NULL},
        {"nodes", CK_NODES, NULL},
    };
    static const struct yrd_map map = {
        .keys = keys,
        .n_keys = sizeof(keys) / sizeof(keys[0]),
        .unknown_hint = " (allowed: format, name, description, source, devices, comm, nodes; "
                        "extensions start with 'x-')",
        .value = top_value,
    };
    unsigned seen = 0;
    int rc;

    if ((rc = yrd_map_read(&rd->r, &map, rd, &seen)) || (rc = resolve_pairs(rd))) {
        return rc;
    }
    return finish_nodes(rd);
}

int cluster_read_yaml_string(struct cluster *c, const char *text, size_t len, const char *name)
{
    struct cl_reader rd;
    int rc = 0;

    cluster_init(c);
    memset(&rd, 0, sizeof(rd));
    rd.c = c;
    strmap_init(&rd.by_name);
    strpool_init(&rd.names);
    CHECK(yrd_open(&rd.r, text, len, name ? name : "<cluster>"));
    CHECK(yrd_begin(&rd.r));
    CHECK(read_top(&rd));
    CHECK(yrd_end(&rd.r));
cleanup:
    yrd_close(&rd.r);
    strmap_release(&rd.by_name);
    strpool_release(&rd.names);
    for (size_t i = 0; i < rd.n_pair; i++) {
        free(rd.pair[i].src);
        free(rd.pair[i].dst);
    }
    free(rd.pair);
    if (rc) {
        cluster_release(c);
    }
    return rc;
}

int cluster_read_yaml(struct cluster *c, const char *path)
{
    char *text = NULL;
    size_t len = 0;
    int rc;

    if ((rc = yio_read_file(path, &text, &len))) {
        cluster_init(c);
        return rc;
    }
    rc = cluster_read_yaml_string(c, text, len, path);
    free(text);
    if (rc == 0 && !(c->path = mem_strdup(path))) {
        cluster_release(c);
        rc = BAECHI_ENOMEM;
    }
    return rc;
}
