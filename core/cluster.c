/*
 * cluster.c - the cluster model: devices, communication and compute time
 * (see cluster.h; the YAML reader and writer are in cluster_yaml.c).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/cluster.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/checked.h"
#include "core/err.h"
#include "core/limits.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void cluster_init(struct cluster *c)
{
    memset(c, 0, sizeof(*c));
    c->comm.slope_us_per_byte = CLUSTER_DEFAULT_SLOPE_US_PER_BYTE;
    c->comm.intercept_us = CLUSTER_DEFAULT_INTERCEPT_US;
    c->channel = CHANNEL_DUPLEX;
    c->nodes.intra.slope_us_per_byte = NAN;
    c->nodes.inter.slope_us_per_byte = NAN;
    c->nodes.intra.intercept_us = NAN;
    c->nodes.inter.intercept_us = NAN;
    c->coll_efficiency = 1.0;
    c->nodes.intra_coll_efficiency = NAN;
    c->nodes.inter_coll_efficiency = NAN;
    c->nodes.oversubscription = 1.0;
}

void cluster_release(struct cluster *c)
{
    for (int32_t i = 0; i < c->n_devices; i++) {
        free(c->dev[i].name);
        free(c->dev[i].kind);
    }
    free(c->dev);
    free(c->pair);
    free(c->path);
    free(c->name);
    free(c->description);
    free(c->source);
    cluster_init(c);
}

static int dup_or_null(char **dst, const char *s)
{
    *dst = NULL;
    return s && !(*dst = mem_strdup(s)) ? BAECHI_ENOMEM : 0;
}

int cluster_copy(struct cluster *dst, const struct cluster *src)
{
    int rc = 0;
    size_t nn = (size_t)src->n_devices * (size_t)src->n_devices;

    cluster_init(dst);
    dst->comm = src->comm;
    dst->channel = src->channel;
    dst->coll_efficiency = src->coll_efficiency;
    dst->nodes = src->nodes;
    CHECK(dup_or_null(&dst->path, src->path));
    CHECK(dup_or_null(&dst->name, src->name));
    CHECK(dup_or_null(&dst->description, src->description));
    CHECK(dup_or_null(&dst->source, src->source));
    if (src->n_devices > 0) {
        if (!(dst->dev = mem_calloc((size_t)src->n_devices, sizeof(*dst->dev)))) {
            rc = BAECHI_ENOMEM;
            goto cleanup;
        }
        for (int32_t i = 0; i < src->n_devices; i++) {
            dst->dev[i] = src->dev[i];
            dst->dev[i].name = dst->dev[i].kind = NULL;
            dst->n_devices = i + 1;
            CHECK(dup_or_null(&dst->dev[i].name, src->dev[i].name));
            CHECK(dup_or_null(&dst->dev[i].kind, src->dev[i].kind));
        }
    }
    if (src->pair) {
        if (!(dst->pair = mem_alloc_array(nn, sizeof(*dst->pair)))) {
            rc = BAECHI_ENOMEM;
            goto cleanup;
        }
        memcpy(dst->pair, src->pair, nn * sizeof(*dst->pair));
    }
cleanup:
    if (rc) {
        cluster_release(dst);
        if (rc == BAECHI_ENOMEM) {
            err_set(rc, "out of memory copying cluster '%s'", src->name ? src->name : "?");
        }
    }
    return rc;
}

int cluster_add_devices(struct cluster *c, int32_t n, int64_t mem_bytes, double speed)
{
    struct cluster_device *dev;
    int32_t old = c->n_devices;

    if (n <= 0 || n > 4096 - old) {
        return err_set(BAECHI_EINVAL, "device count %d out of range (1..%d)", n, 4096 - old);
    }
    if (mem_bytes < 0 || !(speed > 0) || !isfinite(speed)) {
        return err_set(BAECHI_EINVAL, "device memory must be >= 0 and speed > 0");
    }
    if (c->pair) {
        return err_set(BAECHI_EINVAL, "cannot add devices after per-pair overrides are set");
    }
    dev = mem_realloc(c->dev, (size_t)(old + n) * sizeof(*dev));
    if (!dev) {
        return err_set(BAECHI_ENOMEM, "out of memory adding devices");
    }
    c->dev = dev;
    for (int32_t i = old; i < old + n; i++) {
        char name[32];

        snprintf(name, sizeof(name), "gpu%d", i);
        memset(&dev[i], 0, sizeof(dev[i]));
        dev[i].name = mem_strdup(name);
        if (!dev[i].name) {
            c->n_devices = i;
            return BAECHI_ENOMEM;
        }
        dev[i].mem_bytes = mem_bytes;
        dev[i].speed = speed;
        dev[i].peak_flops = NAN;
        dev[i].mem_bw_bytes_per_s = NAN;
        dev[i].launch_us = NAN;
        c->n_devices = i + 1;
    }
    return 0;
}

int cluster_truncate(struct cluster *c, int32_t k)
{
    int32_t n = c->n_devices;

    if (k < 1 || k > n) {
        return err_set(BAECHI_EINVAL, "device count %d out of range: cluster '%s' has %d device%s",
                       k, c->name ? c->name : "?", n, n == 1 ? "" : "s");
    }
    for (int32_t i = k; i < n; i++) {
        free(c->dev[i].name);
        free(c->dev[i].kind);
    }
    if (c->pair) {
        /* Compact the n*n matrix to k*k in place, row by row. */
        for (int32_t s = 0; s < k; s++) {
            memmove(&c->pair[(size_t)s * k], &c->pair[(size_t)s * n], (size_t)k * sizeof(*c->pair));
        }
    }
    c->n_devices = k;
    return 0;
}

void cluster_scale_memory(struct cluster *c, double fraction)
{
    for (int32_t i = 0; i < c->n_devices; i++) {
        /* saturates: a fraction > 1 of a huge memory never wraps negative */
        c->dev[i].mem_bytes = sat_scale_i64(c->dev[i].mem_bytes, fraction);
    }
}

void cluster_scale_comm(struct cluster *c, double factor)
{
    c->comm.slope_us_per_byte *= factor;
    c->comm.intercept_us *= factor;
    c->nodes.intra.slope_us_per_byte *= factor;
    c->nodes.intra.intercept_us *= factor;
    c->nodes.inter.slope_us_per_byte *= factor;
    c->nodes.inter.intercept_us *= factor;
    if (c->pair) {
        for (size_t i = 0; i < (size_t)c->n_devices * (size_t)c->n_devices; i++) {
            c->pair[i].slope_us_per_byte *= factor;
            c->pair[i].intercept_us *= factor;
        }
    }
}

struct comm_model cluster_comm_model(const struct cluster *c, int32_t src, int32_t dst)
{
    if (c->pair) {
        struct comm_model m = c->pair[(size_t)src * (size_t)c->n_devices + (size_t)dst];

        if (!isnan(m.slope_us_per_byte)) {
            return m;
        }
    }
    if (c->nodes.gpus_per_node > 0 && src != dst) {
        const struct comm_model *from =
            cluster_node_of(c, src) == cluster_node_of(c, dst) ? &c->nodes.intra : &c->nodes.inter;

        if (!isnan(from->slope_us_per_byte)) {
            return *from;
        }
    }
    return c->comm;
}

/*
 * Python's int(round(x)) with round-half-to-even: nearbyint() in the default
 * rounding mode (baechi-spec §1.3, §13 T6), never lround().  Negative results
 * (a negative intercept from a poor fit) clamp to 0: time does not run back.
 */
static int64_t comm_round(const struct comm_model *m, int64_t bytes)
{
    double t = nearbyint(m->slope_us_per_byte * (double)bytes + m->intercept_us);

    if (!(t > 0)) {
        return 0;
    }
    if (t > (double)LIMIT_TIME_SAT_US) {
        return LIMIT_TIME_SAT_US;
    }
    return (int64_t)t;
}

int32_t cluster_node_of(const struct cluster *c, int32_t d)
{
    return c->nodes.gpus_per_node > 0 ? d / c->nodes.gpus_per_node : 0;
}

double cluster_coll_efficiency(const struct cluster *c, int32_t src, int32_t dst)
{
    double e = NAN;

    if (c->nodes.gpus_per_node > 0) {
        e = cluster_node_of(c, src) == cluster_node_of(c, dst) ? c->nodes.intra_coll_efficiency
                                                               : c->nodes.inter_coll_efficiency;
    }
    return isnan(e) ? c->coll_efficiency : e;
}

int32_t cluster_n_nodes(const struct cluster *c)
{
    int32_t g = c->nodes.gpus_per_node;

    return g > 0 && c->n_devices > 0 ? (c->n_devices + g - 1) / g : 1;
}

int cluster_expand_nodes(struct cluster *c)
{
    int32_t n = c->n_devices;
    size_t nn = (size_t)n * (size_t)n;

    if (c->nodes.gpus_per_node <= 0 || n <= 1) {
        return 0;
    }
    if (!c->pair) {
        if (!(c->pair = mem_alloc_array(nn, sizeof(*c->pair)))) {
            return BAECHI_ENOMEM;
        }
        for (size_t i = 0; i < nn; i++) {
            c->pair[i].slope_us_per_byte = NAN;
            c->pair[i].intercept_us = NAN;
        }
    }
    for (int32_t s = 0; s < n; s++) {
        for (int32_t d = 0; d < n; d++) {
            struct comm_model *m = &c->pair[(size_t)s * (size_t)n + (size_t)d];
            const struct comm_model *from =
                cluster_node_of(c, s) == cluster_node_of(c, d) ? &c->nodes.intra : &c->nodes.inter;

            if (s != d && isnan(m->slope_us_per_byte) && !isnan(from->slope_us_per_byte)) {
                *m = *from;
            }
        }
    }
    return 0;
}

int64_t cluster_comm_us(const struct cluster *c, int32_t src, int32_t dst, int64_t bytes)
{
    struct comm_model m;

    if (src == dst) {
        return 0;
    }
    m = cluster_comm_model(c, src, dst);
    return comm_round(&m, bytes);
}

int64_t cluster_comm_default_us(const struct cluster *c, int64_t bytes)
{
    return comm_round(&c->comm, bytes);
}

int64_t cluster_compute_us(const struct cluster *c, int32_t d, int64_t weight_us)
{
    double speed = c->dev[d].speed;
    double t;

    if (speed == 1.0) {
        return weight_us;
    }
    /* Readers keep speed in [LIMIT_SPEED_MIN, LIMIT_SPEED_MAX]; a cluster
     * built in code may not: guard anyway, so work > 0 never takes 0 µs and a
     * slow device never overflows. */
    if (!(speed > 0) || !isfinite(speed)) {
        return speed > 0 ? 1 : LIMIT_TIME_SAT_US;
    }
    t = nearbyint((double)weight_us / speed);
    if (!(t < (double)LIMIT_TIME_SAT_US)) {
        return LIMIT_TIME_SAT_US;
    }
    return t < 1 ? 1 : (int64_t)t;
}

const char *cluster_channel_name(enum channel_model m)
{
    switch (m) {
    case CHANNEL_SHARED:
        return "shared";
    case CHANNEL_DUPLEX:
        return "duplex";
    case CHANNEL_LINK:
        return "link";
    }
    return "?";
}

int cluster_parse_bytes(const char *s, int64_t *out)
{
    static const struct {
        const char *suffix;
        double mult;
    } units[] = {
        {"", 1},
        {"B", 1},
        {"kB", 1e3},
        {"KB", 1e3},
        {"MB", 1e6},
        {"GB", 1e9},
        {"TB", 1e12},
        {"KiB", 1024.0},
        {"MiB", 1024.0 * 1024},
        {"GiB", 1024.0 * 1024 * 1024},
        {"TiB", 1024.0 * 1024 * 1024 * 1024},
    };
    char *end;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (end == s || errno || !isfinite(v) || v < 0 || isspace((unsigned char)s[0])) {
        return err_set(BAECHI_EINVAL, "'%s' is not a byte size (e.g. 16GiB, 6.44GiB, 8e9)", s);
    }
    while (*end == ' ') {
        end++;
    }
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcmp(end, units[i].suffix) == 0) {
            double b = floor(v * units[i].mult);

            if (b >= 9.2e18) {
                return err_set(BAECHI_EINVAL, "byte size '%s' does not fit in 64 bits", s);
            }
            *out = (int64_t)b;
            return 0;
        }
    }
    return err_set(BAECHI_EINVAL,
                   "unknown unit in '%s' (use B, kB, MB, GB, TB, KiB, MiB, GiB or TiB)", s);
}
