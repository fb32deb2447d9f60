/*
 * cluster_yaml_devices.c - a cluster file's `devices`: each entry
 * a device or `count` of them (name0, name1, ...), with its memory, speed,
 * peak FLOP/s, memory bandwidth and launch overhead (docs/formats.md).
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

static const struct unit flops_units[] = {
    {"", 1},           {"FLOPS", 1},     {"FLOP/s", 1},     {"kFLOPS", 1e3},  {"kFLOP/s", 1e3},
    {"MFLOPS", 1e6},   {"MFLOP/s", 1e6}, {"GFLOPS", 1e9},   {"GFLOP/s", 1e9}, {"TFLOPS", 1e12},
    {"TFLOP/s", 1e12}, {"PFLOPS", 1e15}, {"PFLOP/s", 1e15},
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
        return cluster_yaml_value_err(rd, dv->ctx.buf,
                                      "expected a size in bytes (e.g. 16GiB, 80GB, 6914897920)");
    }
    if (yrd_text(r)[0] == '-') {
        return cluster_yaml_value_err(rd, dv->ctx.buf, "must not be negative");
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
        return cluster_yaml_value_err(rd, dv->ctx.buf, "must be > 0 bytes");
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
        if ((rc = cluster_yaml_get_string(rd, dv->ctx.buf, &dv->d.name, false))) {
            return rc;
        }
        return strbuf_setf(&dv->ctx, "device '%s'", dv->d.name);
    case DK_KIND:
        return cluster_yaml_get_string(rd, dv->ctx.buf, &dv->d.kind, false);
    case DK_COUNT:
        if (!yrd_is_scalar(r) || !yrd_plain(r) || yio_parse_size(yrd_text(r), &dv->count)) {
            return cluster_yaml_value_err(rd, dv->ctx.buf, "expected a device count (1, 2, ...)");
        }
        if (dv->count < 1 || dv->count > CLUSTER_MAX_DEVICES) {
            return cluster_yaml_value_err(rd, dv->ctx.buf, "must be between 1 and 4096");
        }
        return 0;
    case DK_MEMORY:
        return dev_memory(dv);
    case DK_SPEED:
        return cluster_yaml_get_number(rd, dv->ctx.buf, &dv->d.speed, &r_speed);
    case DK_PEAK:
        return cluster_yaml_get_with_unit(
            rd, dv->ctx.buf, flops_units, sizeof(flops_units) / sizeof(flops_units[0]),
            "expected FLOP/s (e.g. 13.4e12 or 989TFLOPS)", &r_flops, &dv->d.peak_flops);
    case DK_BW:
        return cluster_yaml_get_with_unit(
            rd, dv->ctx.buf, bw_units, sizeof(bw_units) / sizeof(bw_units[0]),
            "expected bytes/s (e.g. 616e9, 616GB/s or 3.35TB/s)", &r_bw, &dv->d.mem_bw_bytes_per_s);
    default:
        return cluster_yaml_get_number(rd, dv->ctx.buf, &dv->d.launch_us, &r_launch);
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

int cluster_yaml_read_devices(struct cl_reader *rd)
{
    struct yrd *r = &rd->r;
    int32_t line = yrd_line(r), col = yrd_col(r), n = 0;
    int rc;

    if (r->ev.type != YAML_SEQUENCE_START_EVENT) {
        return cluster_yaml_value_err(rd, NULL, "expected a list of devices");
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
