/*
 * cluster_yaml.c - cluster files (YAML) (see cluster.h; the format with
 * every rule is in docs/formats.md; the built-in presets in
 * cluster_preset.c).
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

enum cl_key {
    CK_FORMAT = 1 << 0,
    CK_NAME = 1 << 1,
    CK_DESC = 1 << 2,
    CK_SOURCE = 1 << 3,
    CK_DEVICES = 1 << 4,
    CK_COMM = 1 << 5,
    CK_NODES = 1 << 6,
};

/* Error about the current value of key r->key in `ctx` ("device 'gpu0'", "comm", ...). */
int cluster_yaml_value_err(struct cl_reader *rd, const char *ctx, const char *why)
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
int cluster_yaml_get_string(struct cl_reader *rd, const char *ctx, char **out, bool optional)
{
    struct yrd *r = &rd->r;

    if (optional && yrd_is_null(r)) {
        return 0;
    }
    if (!yrd_is_scalar(r) || yrd_is_null(r) || yrd_text_len(r) == 0) {
        return cluster_yaml_value_err(rd, ctx, "expected a string");
    }
    if (memchr(yrd_text(r), '\0', yrd_text_len(r))) {
        return cluster_yaml_value_err(rd, ctx, "must not contain a NUL character");
    }
    free(*out);
    *out = mem_strdup(yrd_text(r));
    return *out ? 0 : BAECHI_ENOMEM;
}

static int range_check(struct cl_reader *rd, const char *ctx, double x, const struct range *rg)
{
    char why[128];

    if (x >= rg->lo && x <= rg->hi) {
        return 0;
    }
    snprintf(why, sizeof(why), "must be in [%g, %g]%s", rg->lo, rg->hi, rg->unit);
    return cluster_yaml_value_err(rd, ctx, why);
}

/* A plain number in `rg`. */
int cluster_yaml_get_number(struct cl_reader *rd, const char *ctx, double *out,
                            const struct range *rg)
{
    const char *why;

    if (!yrd_is_scalar(&rd->r) || !yrd_plain(&rd->r)) {
        return cluster_yaml_value_err(rd, ctx, "expected a number");
    }
    if ((why = yio_parse_double(yrd_text(&rd->r), out))) {
        return cluster_yaml_value_err(rd, ctx, why);
    }
    return range_check(rd, ctx, *out, rg);
}

int cluster_yaml_get_with_unit(struct cl_reader *rd, const char *ctx, const struct unit *units,
                               size_t n_units, const char *hint, const struct range *rg,
                               double *out)
{
    const char *s, *why;
    char num[64];
    size_t len;

    if (!yrd_is_scalar(&rd->r) || yrd_is_null(&rd->r)) {
        return cluster_yaml_value_err(rd, ctx, hint);
    }
    s = yrd_text(&rd->r);
    len = strspn(s, "+-0123456789.eE");
    /* "1e" of "1eB" is not a number: back off a trailing exponent marker */
    while (len > 0 && (s[len - 1] == 'e' || s[len - 1] == 'E')) {
        len--;
    }
    if (len == 0 || len >= sizeof(num)) {
        return cluster_yaml_value_err(rd, ctx, hint);
    }
    memcpy(num, s, len);
    num[len] = '\0';
    if ((why = yio_parse_double(num, out))) {
        return cluster_yaml_value_err(rd, ctx, strcmp(why, "expected a number") == 0 ? hint : why);
    }
    s += len;
    while (*s == ' ') {
        s++;
    }
    for (size_t i = 0; i < n_units; i++) {
        if (strcmp(s, units[i].suffix) == 0) {
            *out *= units[i].mult;
            if (!isfinite(*out)) {
                return cluster_yaml_value_err(rd, ctx, "is too large");
            }
            if (!(*out > 0)) {
                return cluster_yaml_value_err(rd, ctx, "must be > 0");
            }
            return range_check(rd, ctx, *out, rg);
        }
    }
    return cluster_yaml_value_err(rd, ctx, hint);
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
        return cluster_yaml_get_string(rd, NULL, &c->name, false);
    case CK_DESC:
        return cluster_yaml_get_string(rd, NULL, &c->description, true);
    case CK_SOURCE:
        return cluster_yaml_get_string(rd, NULL, &c->source, true);
    case CK_DEVICES:
        return cluster_yaml_read_devices(rd);
    case CK_NODES:
        return cluster_yaml_read_nodes(rd);
    default:
        return cluster_yaml_read_comm(rd);
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

    if ((rc = yrd_map_read(&rd->r, &map, rd, &seen)) || (rc = cluster_yaml_resolve_pairs(rd))) {
        return rc;
    }
    return cluster_yaml_finish_nodes(rd);
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
