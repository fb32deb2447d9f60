/*
 * placement.c - placements: op -> device, the `given` rule, the check, and
 * the placement file (YAML; format in placement.h and docs/formats.md).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/placement.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"
#include "core/limits.h"
#include "core/yio.h"

#include <stdlib.h>
#include <string.h>

int placement_init(struct placement *p, int32_t n_ops)
{
    memset(p, 0, sizeof(*p));
    if (n_ops < 0) {
        return err_set(BAECHI_EINVAL, "negative op count %d", n_ops);
    }
    p->device_of = mem_alloc_array(n_ops > 0 ? (size_t)n_ops : 1, sizeof(*p->device_of));
    if (!p->device_of) {
        return BAECHI_ENOMEM;
    }
    for (int32_t i = 0; i < n_ops; i++) {
        p->device_of[i] = -1;
    }
    p->n_ops = n_ops;
    return 0;
}

static void kv_release(struct placement_kv *kv, int32_t n)
{
    for (int32_t i = 0; i < n; i++) {
        free(kv[i].key);
        free(kv[i].value);
    }
    free(kv);
}

void placement_release(struct placement *p)
{
    if (!p) {
        return;
    }
    free(p->device_of);
    free(p->workload);
    free(p->cluster);
    free(p->placer);
    free(p->cluster_hash);
    kv_release(p->options, p->n_options);
    kv_release(p->stats, p->n_stats);
    memset(p, 0, sizeof(*p));
}

static int set_str(char **dst, const char *s)
{
    char *c = NULL;

    if (s && !(c = mem_strdup(s))) {
        return BAECHI_ENOMEM;
    }
    free(*dst);
    *dst = c;
    return 0;
}

int placement_set_meta(struct placement *p, const char *workload, const char *cluster,
                       const char *placer)
{
    int rc;

    if ((rc = set_str(&p->workload, workload)) || (rc = set_str(&p->cluster, cluster)) ||
        (rc = set_str(&p->placer, placer))) {
        return rc;
    }
    return 0;
}

int placement_set_made_for(struct placement *p, const char *cluster_hash, int32_t n_devices,
                           double memory_fraction)
{
    int rc;

    if ((rc = set_str(&p->cluster_hash, cluster_hash))) {
        return rc;
    }
    p->n_devices = n_devices > 0 ? n_devices : 0;
    p->memory_fraction = memory_fraction > 0 ? memory_fraction : 0;
    return 0;
}

double placement_memory_fraction(const struct placement *p)
{
    double f;

    if (p->memory_fraction > 0) {
        return p->memory_fraction;
    }
    for (int32_t i = 0; i < p->n_options; i++) {
        if (strcmp(p->options[i].key, "memory_fraction") == 0 &&
            !yio_parse_double(p->options[i].value, &f) && f >= LIMIT_FRACTION_MIN &&
            f <= LIMIT_FRACTION_MAX) {
            return f;
        }
    }
    return 0;
}

/* Appends key: value, or replaces the value of an existing key. */
static int kv_add(struct placement_kv **kv, int32_t *n, const char *key, const char *value)
{
    struct placement_kv *a;
    char *k, *v;

    for (int32_t i = 0; i < *n; i++) {
        if (strcmp((*kv)[i].key, key) == 0) {
            return set_str(&(*kv)[i].value, value);
        }
    }
    if (*n == INT32_MAX) {
        return err_set(BAECHI_EINVAL, "too many entries");
    }
    a = mem_realloc(*kv, ((size_t)*n + 1) * sizeof(*a));
    if (!a) {
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    *kv = a;
    k = mem_strdup(key);
    v = mem_strdup(value);
    if (!k || !v) {
        free(k);
        free(v);
        return BAECHI_ENOMEM;
    }
    a[*n].key = k;
    a[*n].value = v;
    (*n)++;
    return 0;
}

int placement_add_option(struct placement *p, const char *key, const char *value)
{
    return kv_add(&p->options, &p->n_options, key, value);
}

int placement_add_stat(struct placement *p, const char *key, const char *value)
{
    return kv_add(&p->stats, &p->n_stats, key, value);
}

int placement_from_given(struct placement *p, const struct graph *g)
{
    int32_t *group_dev;

    if (p->n_ops != g->n_ops) {
        return err_set(BAECHI_EINVAL, "placement has %d ops, graph has %d", p->n_ops, g->n_ops);
    }
    if (!(group_dev =
              mem_alloc_array(g->n_groups > 0 ? (size_t)g->n_groups : 1, sizeof(int32_t)))) {
        return BAECHI_ENOMEM;
    }
    for (int32_t k = 0; k < g->n_groups; k++) {
        group_dev[k] = -1;
    }
    /* 1. a group takes the device given to its first member (op order) that has one */
    for (int32_t u = 0; u < g->n_ops; u++) {
        if (g->given_device[u] >= 0 && group_dev[g->group[u]] < 0) {
            group_dev[g->group[u]] = g->given_device[u];
        }
    }
    /* 2. producers first (topological order): given, else the group's, else the first producer's */
    for (int32_t t = 0; t < g->n_ops; t++) {
        int32_t v = g->topo_op[t];
        int32_t grp = g->group[v];
        int32_t d = g->given_device[v];

        if (d < 0) {
            d = group_dev[grp];
        }
        for (int32_t k = g->in_start[v]; d < 0 && k < g->in_start[v + 1]; k++) {
            d = p->device_of[g->edge_src[g->in_edge[k]]]; /* -1 only in a fused graph */
        }
        if (d < 0) {
            d = 0;
        }
        if (group_dev[grp] < 0) {
            /* the whole group follows (also for device 0, so that no group is split) */
            group_dev[grp] = d;
        }
        p->device_of[v] = d;
    }
    free(group_dev);
    return 0;
}

int placement_check(const struct placement *p, const struct graph *g, const struct cluster *c)
{
    int32_t *group_dev;
    int warned = 0;

    if (p->n_ops != g->n_ops) {
        return err_set(BAECHI_EINVAL, "placement has %d ops, the graph has %d", p->n_ops, g->n_ops);
    }
    for (int32_t u = 0; u < g->n_ops; u++) {
        int32_t d = p->device_of[u];

        if (d < 0) {
            return err_set(BAECHI_EINVAL, "op '%s' has no device", g->op_name[u]);
        }
        if (d >= c->n_devices) {
            return err_set(BAECHI_EINVAL,
                           "op '%s' is placed on device %d, but cluster '%s' has %d device%s "
                           "(0..%d)",
                           g->op_name[u], d, c->name ? c->name : "?", c->n_devices,
                           c->n_devices == 1 ? "" : "s", c->n_devices - 1);
        }
    }
    if (!(group_dev =
              mem_alloc_array(g->n_groups > 0 ? (size_t)g->n_groups : 1, sizeof(int32_t)))) {
        return BAECHI_ENOMEM;
    }
    for (int32_t k = 0; k < g->n_groups; k++) {
        group_dev[k] = -1;
    }
    for (int32_t u = 0; u < g->n_ops; u++) {
        int32_t k = g->group[u];

        if (group_dev[k] < 0) {
            group_dev[k] = p->device_of[u];
        } else if (group_dev[k] != p->device_of[u] && group_dev[k] != INT32_MAX) {
            if (warned < 3) {
                err_warn("colocation group '%s' is split: op '%s' is on device %d, an earlier "
                         "member on device %d",
                         g->group_name[k], g->op_name[u], p->device_of[u], group_dev[k]);
            }
            warned++;
            group_dev[k] = INT32_MAX; /* warn once per group */
        }
    }
    if (warned > 3) {
        err_warn("%d more colocation groups are split", warned - 3);
    }
    free(group_dev);
    return 0;
}

/* ---------------------------------------------------------------- reader */

enum pl_key {
    PK_FORMAT = 1 << 0,
    PK_WORKLOAD = 1 << 1,
    PK_CLUSTER = 1 << 2,
    PK_PLACER = 1 << 3,
    PK_OPTIONS = 1 << 4,
    PK_STATS = 1 << 5,
    PK_DEVICES = 1 << 6,
    PK_CLUSTER_HASH = 1 << 7,
    PK_N_DEVICES = 1 << 8,
    PK_MEMFRAC = 1 << 9,
};

struct pl_reader {
    struct yrd r;
    struct placement *p;
    const struct graph *g;
    const struct workload *w; /* may be NULL: then names of pruned ops are not known */
    int32_t *line;            /* op -> line of its entry (0 = not named yet) */
    bool devices_later;       /* the devices are the fast reader's (pl_fast_read) */
};

static int pl_string(struct pl_reader *rd, char **out)
{
    struct yrd *r = &rd->r;
    char what[96];

    if (yrd_is_null(r)) {
        FREE_AND_NULL(*out);
        return 0;
    }
    if (!yrd_is_scalar(r)) {
        return yrd_err_here(r, "%s: expected a string, got %s", r->key,
                            yrd_what(r, what, sizeof(what)));
    }
    return set_str(out, yrd_text(r));
}

static int pl_kv(struct pl_reader *rd, bool stats)
{
    struct yrd *r = &rd->r;
    const char *section = stats ? "stats" : "options";
    char what[96];
    int rc;

    if (yrd_is_null(r)) {
        return 0;
    }
    if (r->ev.type != YAML_MAPPING_START_EVENT) {
        return yrd_err_here(r, "%s: expected a mapping of key: value, got %s", section,
                            yrd_what(r, what, sizeof(what)));
    }
    while ((rc = yrd_key(r)) == 0) {
        struct placement_kv *kv = stats ? rd->p->stats : rd->p->options;
        int32_t n = stats ? rd->p->n_stats : rd->p->n_options;

        for (int32_t i = 0; i < n; i++) {
            if (strcmp(kv[i].key, r->key) == 0) {
                return yrd_err(r, r->key_line, r->key_col, "%s: duplicate key '%s'", section,
                               r->key);
            }
        }
        if ((rc = yrd_next(r))) {
            return rc;
        }
        if (!yrd_is_scalar(r)) {
            return yrd_err_here(r, "%s: %s: expected a single value, got %s", section, r->key,
                                yrd_what(r, what, sizeof(what)));
        }
        if ((rc = stats ? placement_add_stat(rd->p, r->key, yrd_text(r))
                        : placement_add_option(rd->p, r->key, yrd_text(r)))) {
            return rc;
        }
    }
    return rc == YRD_END ? 0 : rc;
}

static int pl_devices(struct pl_reader *rd)
{
    struct yrd *r = &rd->r;
    const struct graph *g = rd->g;
    char what[96];
    int rc;

    if (r->ev.type != YAML_MAPPING_START_EVENT) {
        return yrd_err_here(r, "devices: expected a mapping of op name: device, got %s",
                            yrd_what(r, what, sizeof(what)));
    }
    /* the index first: graph_find cannot tell out of memory from "no such op" */
    if ((rc = graph_index_names((struct graph *)g))) {
        return rc;
    }
    while ((rc = yrd_key(r)) == 0) {
        int32_t u = graph_find(g, r->key);
        int32_t kl = r->key_line, kc = r->key_col;
        int64_t d;
        const char *why;

        if ((rc = yrd_next(r))) {
            return rc;
        }
        if (!yrd_is_scalar(r) || !yrd_plain(r)) {
            return yrd_err_here(r, "devices: op '%s': expected a device number, got %s", r->key,
                                yrd_what(r, what, sizeof(what)));
        }
        if ((why = yio_parse_size(yrd_text(r), &d)) ||
            strspn(yrd_text(r), "0123456789") != yrd_text_len(r)) {
            return yrd_err_here(r, "devices: op '%s': %s, got %s", r->key,
                                why ? why : "expected a device number (0, 1, ...)",
                                yrd_what(r, what, sizeof(what)));
        }
        if (d > LIMIT_OP_DEVICE_MAX) {
            return yrd_err_here(r, "devices: op '%s': device %lld is too large", r->key,
                                (long long)d);
        }
        if (u < 0) {
            if (rd->w && workload_find(rd->w, r->key) >= 0) {
                continue; /* an op that graph_build pruned as dangling */
            }
            return yrd_err(r, kl, kc, "devices: unknown op '%s'%s", r->key,
                           rd->w ? " (not in the workload)" : " (not in the graph)");
        }
        if (rd->line[u] > 0) {
            return yrd_err(r, kl, kc, "devices: op '%s' is listed twice (first at line %d)", r->key,
                           rd->line[u]);
        }
        rd->line[u] = kl;
        rd->p->device_of[u] = (int32_t)d;
    }
    return rc == YRD_END ? 0 : rc;
}

/* n_devices and memory_fraction: plain numbers in their ranges. */
static int pl_number(struct pl_reader *rd, unsigned bit)
{
    struct yrd *r = &rd->r;
    char what[96];
    const char *why = NULL;
    int64_t n = 0;
    double f = 0;

    if (!yrd_is_scalar(r) || !yrd_plain(r)) {
        return yrd_err_here(r, "%s: expected a number, got %s", r->key,
                            yrd_what(r, what, sizeof(what)));
    }
    if (bit == PK_N_DEVICES) {
        if ((why = yio_parse_size(yrd_text(r), &n)) == NULL && (n < 1 || n > LIMIT_MAX_DEVICES)) {
            why = "is outside 1..4096";
        }
        rd->p->n_devices = (int32_t)n;
    } else {
        if ((why = yio_parse_double(yrd_text(r), &f)) == NULL &&
            !(f >= LIMIT_FRACTION_MIN && f <= LIMIT_FRACTION_MAX)) {
            why = "is outside (0, 1]";
        }
        rd->p->memory_fraction = f;
    }
    if (why) {
        return yrd_err_here(r, "%s: %s, got %s", r->key, why, yrd_what(r, what, sizeof(what)));
    }
    return 0;
}

/* Stringified PLACEMENT_FORMAT etc. for the "missing 'format'" hints. */
#define PL_STR_(x) #x
#define PL_STR(x)  PL_STR_(x)

static int pl_top_value(void *arg, unsigned bit)
{
    struct pl_reader *rd = arg;

    switch (bit) {
    case PK_FORMAT:
        return yrd_format(&rd->r, "placement", PLACEMENT_FORMAT);
    case PK_WORKLOAD:
        return pl_string(rd, &rd->p->workload);
    case PK_CLUSTER:
        return pl_string(rd, &rd->p->cluster);
    case PK_PLACER:
        return pl_string(rd, &rd->p->placer);
    case PK_OPTIONS:
        return pl_kv(rd, false);
    case PK_STATS:
        return pl_kv(rd, true);
    case PK_CLUSTER_HASH:
        return pl_string(rd, &rd->p->cluster_hash);
    case PK_N_DEVICES:
    case PK_MEMFRAC:
        return pl_number(rd, bit);
    default:
        return pl_devices(rd);
    }
}

static int pl_top(struct pl_reader *rd)
{
    static const struct yrd_key keys[] = {
        {"format", PK_FORMAT, " (write 'format: " PL_STR(PLACEMENT_FORMAT) "')"},
        {"workload", PK_WORKLOAD, NULL},
        {"cluster", PK_CLUSTER, NULL},
        {"cluster_hash", PK_CLUSTER_HASH, NULL},
        {"n_devices", PK_N_DEVICES, NULL},
        {"memory_fraction", PK_MEMFRAC, NULL},
        {"placer", PK_PLACER, NULL},
        {"options", PK_OPTIONS, NULL},
        {"stats", PK_STATS, NULL},
        {"devices", PK_DEVICES, ""},
    };
    static const struct yrd_map map = {
        .keys = keys,
        .n_keys = sizeof(keys) / sizeof(keys[0]),
        .unknown_hint = " (a placement has format, workload, cluster, placer, options, stats, "
                        "devices; extensions start with 'x-')",
        .value = pl_top_value,
    };
    struct yrd *r = &rd->r;
    unsigned seen = 0;
    int rc;

    if ((rc = yrd_map_read(r, &map, rd, &seen))) {
        return rc;
    }
    if (rd->devices_later) {
        return 0; /* the fast reader's lines come next */
    }
    for (int32_t u = 0; u < rd->g->n_ops; u++) {
        if (rd->p->device_of[u] < 0) {
            return yrd_err(r, 0, 0, "op '%s' has no device in the placement", rd->g->op_name[u]);
        }
    }
    return 0;
}

/* ------------------------------------------- the writer's devices, fast */

/*
 * The writer's layout of the devices (issue 22: `sim` of a 1M-op workload
 * spent a fifth of its time in libyaml's reading of its placement): a line
 * "devices:" at column 0, then, to the end of the text, only lines
 * "  NAME: DEVICE\n", NAME a plain scalar of [A-Za-z0-9_./+-] (not starting
 * with '-' or '+' unless a digit or '.' follows) or a double-quoted one of
 * printable ASCII without escapes, of at most PL_FAST_KEY_MAX bytes (below
 * libyaml's 1024 for a simple key), DEVICE 1-9 digits.  The
 * rest of the file (the header) is read by libyaml as before, with
 * "devices: {}" in place of the lines; then the lines are applied as
 * pl_devices() would.  Anything else -- another layout, a name not in the
 * graph, a name twice, a device out of range, an op left without a device,
 * any error in the header -- and the whole file is read again by libyaml
 * alone, whose verdict and message count.  BAECHI_YAML_FAST=0 turns this
 * off.  deviation: beyond the original (its reader is Python's), speed only.
 */
#define PL_FAST_KEY_MAX 1000
#define PL_FAST_AHEAD   16 /* lines scanned (and their map slots loaded) ahead */

/* Not taken by the fast reader: read with libyaml alone. */
#define PL_NOT_TAKEN (-1)

struct pl_fast_line {
    const char *name;
    size_t len;
    int32_t device, line;
};

static bool pl_plain_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '/' || c == '+' || c == '-';
}

/* "  NAME: DIGITS\n" at *at (before end): its fields, *at moved past it. */
static bool pl_fast_scan(const char **at, const char *end, struct pl_fast_line *l)
{
    const char *s = *at, *q;
    int32_t d = 0;

    if (end - s < 7 || s[0] != ' ' || s[1] != ' ') {
        return false;
    }
    s += 2;
    if (*s == '"') { /* the writer's quotes (a name YAML would read as a word) */
        for (q = ++s; q < end && *q >= ' ' && *q <= '~' && *q != '"' && *q != '\\'; q++) {
        }
        if (q >= end || *q != '"') {
            return false; /* an escape, a control or non-ASCII byte, or no end */
        }
        l->name = s;
        l->len = (size_t)(q++ - s);
    } else {
        for (q = s; q < end && pl_plain_char((unsigned char)*q); q++) {
        }
        l->name = s;
        l->len = (size_t)(q - s);
        if (l->len > 0 && (*s == '-' || *s == '+') &&
            (l->len < 2 || !((s[1] >= '0' && s[1] <= '9') || s[1] == '.'))) {
            return false;
        }
    }
    if (l->len == 0 || l->len > PL_FAST_KEY_MAX) {
        return false;
    }
    if (end - q < 4 || q[0] != ':' || q[1] != ' ') {
        return false;
    }
    for (s = q += 2; q < end && *q >= '0' && *q <= '9' && q - s < 9; q++) {
        d = d * 10 + (*q - '0');
    }
    if (q == s || q >= end || *q != '\n' || d > LIMIT_OP_DEVICE_MAX) {
        return false;
    }
    l->device = d;
    *at = q + 1;
    return true;
}

/*
 * The lines text[start..len) applied to rd's placement, PL_FAST_AHEAD at a
 * time: scanned, their slots in the name map loaded side by side, then
 * looked up.  0 or PL_NOT_TAKEN.
 */
static int pl_fast_lines(struct pl_reader *rd, const char *text, size_t len, size_t start,
                         int32_t line)
{
    const char *at = text + start, *end = text + len;
    const struct strmap *by_name = &rd->g->by_name;
    struct pl_fast_line ahead[PL_FAST_AHEAD];

    if (at == end) {
        return PL_NOT_TAKEN; /* "devices:" and nothing: libyaml's null */
    }
    while (at < end) {
        int n = 0;

        for (; n < PL_FAST_AHEAD && at < end; n++) {
            if (!pl_fast_scan(&at, end, &ahead[n])) {
                return PL_NOT_TAKEN;
            }
            ahead[n].line = line++;
            strmap_prefetch(by_name, ahead[n].name, ahead[n].len);
        }
        for (int i = 0; i < n; i++) {
            int32_t u = strmap_get(by_name, ahead[i].name, ahead[i].len);

            if (u < 0) {
                if (rd->w && strmap_get(&rd->w->by_name, ahead[i].name, ahead[i].len) >= 0) {
                    continue; /* an op that graph_build pruned as dangling */
                }
                return PL_NOT_TAKEN;
            }
            if (rd->line[u] > 0) {
                return PL_NOT_TAKEN;
            }
            rd->line[u] = ahead[i].line;
            rd->p->device_of[u] = ahead[i].device;
        }
    }
    for (int32_t u = 0; u < rd->g->n_ops; u++) {
        if (rd->p->device_of[u] < 0) {
            return PL_NOT_TAKEN;
        }
    }
    return 0;
}

/*
 * The line "devices:" at column 0: *at its first byte, *line its 1-based
 * number.  Only the header is searched (the first "devices:" line).
 */
static bool pl_fast_find(const char *text, size_t len, size_t *at, int32_t *line)
{
    const char *p = text, *end = text + len;
    int32_t n = 1;

    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));

        if (!nl) {
            return false;
        }
        if (nl - p == 8 && memcmp(p, "devices:", 8) == 0) {
            *at = (size_t)(p - text);
            *line = n;
            return true;
        }
        p = nl + 1;
        n++;
    }
    return false;
}

static int pl_read_events(struct placement *p, const struct graph *g, const struct workload *w,
                          const char *text, size_t len, const char *name);

/* The header through libyaml, then the lines: 0 or PL_NOT_TAKEN (or ENOMEM). */
static int pl_fast_read(struct placement *p, const struct graph *g, const struct workload *w,
                        const char *text, size_t len, const char *name, size_t at, int32_t line)
{
    static const char empty[] = "devices: {}\n";
    struct pl_reader rd;
    char *head = NULL;
    int rc = 0;

    memset(&rd, 0, sizeof(rd));
    rd.devices_later = true;
    CHECK(placement_init(p, g->n_ops));
    rd.p = p;
    rd.g = g;
    rd.w = w;
    rd.line = mem_calloc(g->n_ops > 0 ? (size_t)g->n_ops : 1, sizeof(int32_t));
    head = mem_alloc_array(at + sizeof(empty), 1);
    if (!rd.line || !head) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    memcpy(head, text, at);
    memcpy(head + at, empty, sizeof(empty));
    CHECK(yrd_open(&rd.r, head, at + sizeof(empty) - 1, name ? name : "<placement>"));
    CHECK(yrd_begin(&rd.r));
    CHECK(pl_top(&rd));
    CHECK(yrd_end(&rd.r));
    rc = pl_fast_lines(&rd, text, len, at + 9, line + 1);
cleanup:
    yrd_close(&rd.r);
    free(rd.line);
    free(head);
    if (rc) {
        placement_release(p);
    }
    return rc;
}

int placement_read_yaml_mode(struct placement *p, const struct graph *g, const struct workload *w,
                             const char *text, size_t len, const char *name,
                             enum placement_read_mode mode)
{
    const char *env = getenv("BAECHI_YAML_FAST");
    size_t at;
    int32_t line;
    int rc;

    if (mode == PLACEMENT_READ_AUTO && env && strcmp(env, "0") == 0) {
        mode = PLACEMENT_READ_LIBYAML;
    }
    if (mode != PLACEMENT_READ_LIBYAML) {
        memset(p, 0, sizeof(*p));
        rc = pl_fast_find(text, len, &at, &line) ? pl_fast_read(p, g, w, text, len, name, at, line)
                                                 : PL_NOT_TAKEN;
        if (rc == 0 || mode == PLACEMENT_READ_FAST) {
            return rc == PL_NOT_TAKEN ? BAECHI_EPARSE : rc;
        }
    }
    return pl_read_events(p, g, w, text, len, name);
}

int placement_read_yaml_string(struct placement *p, const struct graph *g, const struct workload *w,
                               const char *text, size_t len, const char *name)
{
    return placement_read_yaml_mode(p, g, w, text, len, name, PLACEMENT_READ_AUTO);
}

/* The whole file through libyaml's events. */
static int pl_read_events(struct placement *p, const struct graph *g, const struct workload *w,
                          const char *text, size_t len, const char *name)
{
    struct pl_reader rd;
    int rc = 0;

    memset(&rd, 0, sizeof(rd));
    CHECK(placement_init(p, g->n_ops));
    rd.p = p;
    rd.g = g;
    rd.w = w;
    if (!(rd.line = mem_calloc(g->n_ops > 0 ? (size_t)g->n_ops : 1, sizeof(int32_t)))) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    CHECK(yrd_open(&rd.r, text, len, name ? name : "<placement>"));
    CHECK(yrd_begin(&rd.r));
    CHECK(pl_top(&rd));
    CHECK(yrd_end(&rd.r));
cleanup:
    yrd_close(&rd.r);
    free(rd.line);
    if (rc) {
        placement_release(p);
    }
    return rc;
}

int placement_read_yaml_workload(struct placement *p, const struct graph *g,
                                 const struct workload *w, const char *path)
{
    char *text = NULL;
    size_t len = 0;
    int rc;

    if ((rc = yio_read_file(path, &text, &len))) {
        memset(p, 0, sizeof(*p));
        return rc;
    }
    rc = placement_read_yaml_string(p, g, w, text, len, path);
    free(text);
    return rc;
}

/* ---------------------------------------------------------------- writer */

static void write_kv(struct ywr *y, const char *section, const struct placement_kv *kv, int32_t n)
{
    if (n == 0) {
        return;
    }
    ywr_scalar(y, section, YWR_PLAIN);
    ywr_map_start(y, true);
    for (int32_t i = 0; i < n; i++) {
        ywr_scalar(y, kv[i].key, YWR_ANY);
        /* values are printed as given: numbers and words stay plain */
        ywr_scalar(y, kv[i].value, kv[i].value[0] ? YWR_PLAIN : YWR_QUOTED);
    }
    ywr_map_end(y);
}

int placement_write_yaml(const struct placement *p, const struct graph *g, FILE *f)
{
    struct ywr y;

    if (p->n_ops != g->n_ops) {
        return err_set(BAECHI_EINVAL, "placement has %d ops, graph has %d", p->n_ops, g->n_ops);
    }
    if (ywr_open(&y, f)) {
        return ywr_close(&y);
    }
    ywr_map_start(&y, false);
    ywr_scalar(&y, "format", YWR_PLAIN);
    ywr_int(&y, PLACEMENT_FORMAT);
    if (p->workload) {
        ywr_scalar(&y, "workload", YWR_PLAIN);
        ywr_scalar(&y, p->workload, YWR_ANY);
    }
    if (p->cluster) {
        ywr_scalar(&y, "cluster", YWR_PLAIN);
        ywr_scalar(&y, p->cluster, YWR_ANY);
    }
    if (p->cluster_hash) {
        ywr_scalar(&y, "cluster_hash", YWR_PLAIN);
        ywr_scalar(&y, p->cluster_hash, YWR_QUOTED); /* hex digits only could read as a number */
    }
    if (p->n_devices > 0) {
        ywr_scalar(&y, "n_devices", YWR_PLAIN);
        ywr_int(&y, p->n_devices);
    }
    if (p->memory_fraction > 0) {
        ywr_scalar(&y, "memory_fraction", YWR_PLAIN);
        ywr_double(&y, p->memory_fraction);
    }
    if (p->placer) {
        ywr_scalar(&y, "placer", YWR_PLAIN);
        ywr_scalar(&y, p->placer, YWR_ANY);
    }
    write_kv(&y, "options", p->options, p->n_options);
    write_kv(&y, "stats", p->stats, p->n_stats);
    ywr_scalar(&y, "devices", YWR_PLAIN);
    ywr_map_start(&y, false);
    for (int32_t u = 0; u < g->n_ops; u++) {
        ywr_scalar(&y, g->op_name[u], YWR_ANY);
        ywr_int(&y, p->device_of[u]);
    }
    ywr_map_end(&y);
    ywr_map_end(&y);
    return ywr_close(&y);
}
