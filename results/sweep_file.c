/*
 * sweep_file.c - the sweep file reader (sweep.h, docs/sweeps.md "The
 * file"): YAML through core/yio.h, so that every error carries
 * file:line:col and the offending key or value.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "results/sweep.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"
#include "core/limits.h"
#include "core/yio.h"
#include "placers/lp_clp.h"
#include "results/sweep_internal.h"
#include "workloads/gen_params.h"
#include "workloads/gen_cap.h"

#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void list_release(struct sweep_list *l)
{
    for (int32_t i = 0; i < l->n; i++) {
        free(l->item[i].text);
    }
    free(l->item);
    memset(l, 0, sizeof(*l));
}

void sweep_spec_release(struct sweep_spec *s)
{
    free(s->path);
    free(s->dir);
    free(s->name);
    list_release(&s->workloads);
    list_release(&s->clusters);
    list_release(&s->placers);
    free(s->devices);
    free(s->groupers);
    free(s->fusion);
    free(s->memory_fractions);
    free(s->comm_factors);
    free(s->compute_factors);
    free(s->seeds);
    free(s->lp_solvers);
    for (int32_t i = 0; i < s->n_exclude; i++) {
        free(s->exclude[i].workload);
        free(s->exclude[i].cluster);
        free(s->exclude[i].placer);
        free(s->exclude[i].grouper);
        free(s->exclude[i].fusion);
    }
    free(s->exclude);
    memset(s, 0, sizeof(*s));
}

/* Reads a scalar or a list of scalars (the current event) into l. */
static int read_list(struct yrd *r, const char *key, struct sweep_list *l)
{
    bool seq = r->ev.type == YAML_SEQUENCE_START_EVENT;
    int32_t line = yrd_line(r), col = yrd_col(r);
    int rc;

    list_release(l);
    for (;;) {
        char what[64];
        if (seq && (rc = yrd_next(r)) != 0) {
            return rc;
        }
        if (seq && r->ev.type == YAML_SEQUENCE_END_EVENT) {
            break;
        }
        if (!yrd_is_scalar(r) || yrd_is_null(r) || yrd_text_len(r) == 0) {
            return yrd_err_here(r, "%s: expected a value or a list of values, got %s", key,
                                yrd_what(r, what, sizeof(what)));
        }
        if (ARRAY_RESERVE(l->item, l->alloc, (size_t)l->n + 1)) {
            return BAECHI_ENOMEM;
        }
        if (!(l->item[l->n].text = mem_strdup(yrd_text(r)))) {
            return BAECHI_ENOMEM;
        }
        l->item[l->n].line = yrd_line(r);
        l->item[l->n].col = yrd_col(r);
        l->n++;
        if (!seq) {
            break;
        }
    }
    if (l->n == 0) {
        return yrd_err(r, line, col, "%s: the list is empty", key);
    }
    return 0;
}

static int item_err(const struct yrd *r, const char *key, const struct sweep_item *it,
                    const char *why)
{
    return yrd_err(r, it->line, it->col, "%s: '%s' %s", key, it->text, why);
}

/* Every item in [lo, hi] (core/limits.h, docs/limits.md). */
static int to_doubles(const struct yrd *r, const char *key, const struct sweep_list *l, double lo,
                      double hi, double **out, int32_t *n)
{
    if (!(*out = mem_calloc((size_t)l->n, sizeof(double)))) {
        return BAECHI_ENOMEM;
    }
    for (int32_t i = 0; i < l->n; i++) {
        const char *why = yio_parse_double(l->item[i].text, &(*out)[i]);
        char buf[96];
        if (why) {
            return item_err(r, key, &l->item[i], why);
        }
        if (!((*out)[i] >= lo && (*out)[i] <= hi)) {
            snprintf(buf, sizeof(buf), "is out of range: expected a number in [%g, %g]", lo, hi);
            return item_err(r, key, &l->item[i], buf);
        }
    }
    *n = l->n;
    return 0;
}

static int to_int(const struct yrd *r, const char *key, const struct sweep_item *it, int64_t lo,
                  int64_t hi, int64_t *out)
{
    const char *why = yio_parse_size(it->text, out);
    char buf[96];

    if (why) {
        return item_err(r, key, it, why);
    }
    if (*out < lo || *out > hi) {
        snprintf(buf, sizeof(buf), "is out of range: expected an integer in %lld..%lld",
                 (long long)lo, (long long)hi);
        return item_err(r, key, it, buf);
    }
    return 0;
}

/*
 * Parses gen:MODEL?k=v&... or import:FILE?k=v&... in `buf` (a writable copy
 * of the spec, cut into pieces here: g's strings point into it), the
 * parameters those of `baechi workload gen` / `workload import` with the
 * same bounds (workloads/gen_params.h), so that a sweep is refused before
 * its first run instead of generating a 10^5-layer model.  An import's file
 * is left as written (sweep_resolve() it).  NULL when fine, else why
 * (static text, or this thread's until its next call).
 */
const char *sweep_gen_parse(char *buf, struct gen_spec *g)
{
    const char *const *names = gen_model_names();
    bool import = strncmp(buf, "import:", 7) == 0;
    char *q, *name = buf + (import ? 7 : 4);
    bool known = false;

    q = strchr(name, '?');
    if (q) {
        *q++ = '\0';
    }
    if (import) {
        gen_spec_init(g, GEN_SOURCE_IMPORT, name);
        if (!*name) {
            return "names no file (expected import:FILE.onnx[?key=value&...])";
        }
    } else {
        gen_spec_init(g, strcmp(name, "synthetic") == 0 ? GEN_SOURCE_SYNTHETIC : GEN_SOURCE_MODEL,
                      name);
        if (!*name) {
            return "names no model (expected gen:MODEL[?key=value&...])";
        }
        known = g->source == GEN_SOURCE_SYNTHETIC;
        for (int i = 0; names[i]; i++) {
            known |= strcmp(names[i], name) == 0;
        }
        if (!known) {
            return "names an unknown model (gen: inception-v3, gnmt, transformer, gpt, "
                   "synthetic)";
        }
    }
    while (q && *q) {
        char *k = q, *val, *amp = strchr(q, '&');

        if (amp) {
            *amp = '\0';
        }
        q = amp ? amp + 1 : NULL;
        val = strchr(k, '=');
        if (!val || !val[1]) {
            return "has a parameter without a value (expected key=value)";
        }
        *val++ = '\0';
        if (gen_spec_set(g, k, val)) {
            return err_msg(); /* this thread's until its next error */
        }
    }
    /* the rules between parameters, as the CLI checks them; the message is
     * this thread's until its next error */
    return gen_spec_check(g) ? err_msg() : NULL;
}

bool sweep_is_generated(const char *spec)
{
    return strncmp(spec, "gen:", 4) == 0 || strncmp(spec, "import:", 7) == 0;
}

/* Path of a workload or cluster file relative to the sweep file (malloc'ed). */
char *sweep_resolve(const struct sweep_spec *s, const char *p)
{
    char *out = NULL;

    if (p[0] == '/' || !s->dir || strcmp(s->dir, ".") == 0) {
        return mem_strdup(p);
    }
    if (mem_asprintf(&out, "%s/%s", s->dir, p) < 0) {
        err_set(BAECHI_ENOMEM, "out of memory");
        return NULL;
    }
    return out;
}

static int check_workloads(const struct yrd *r, const struct sweep_spec *s)
{
    for (int32_t i = 0; i < s->workloads.n; i++) {
        const struct sweep_item *it = &s->workloads.item[i];
        const char *why = NULL;
        char *p = NULL, *buf = NULL, cap_why[400];
        struct gen_spec g;

        if (sweep_is_generated(it->text)) {
            if (!(buf = mem_strdup(it->text))) {
                return BAECHI_ENOMEM;
            }
            why = sweep_gen_parse(buf, &g);
            if (!why && g.source == GEN_SOURCE_MODEL &&
                gen_cap_check(g.model, &g.gen) == BAECHI_EINVAL) {
                snprintf(cap_why, sizeof(cap_why), "is too large: %s", err_msg());
                why = cap_why; /* refused before the first run (gen_cap.h) */
            }
            if (!why && g.source == GEN_SOURCE_IMPORT) {
                if (!(p = sweep_resolve(s, g.model))) {
                    free(buf);
                    return BAECHI_ENOMEM;
                }
                if (access(p, R_OK) != 0) {
                    why = "names a file that is not readable (relative to the sweep file)";
                }
            }
        } else {
            if (!(p = sweep_resolve(s, it->text))) {
                return BAECHI_ENOMEM;
            }
            if (access(p, R_OK) != 0) {
                why = "is not a readable file (relative to the sweep file) nor gen:MODEL or "
                      "import:FILE";
            }
        }
        free(p);
        free(buf);
        if (why) {
            return item_err(r, "workloads", it, why);
        }
    }
    return 0;
}

/* Every cluster has the device counts asked for: `devices: [8]` on a
 * 4-device cluster is refused here rather than becoming an error row. */
static int check_device_counts(const struct yrd *r, const struct sweep_spec *s,
                               const struct sweep_item *it, const char *spec,
                               const struct sweep_list *devl)
{
    struct cluster c;
    char why[200];
    int rc = cluster_load(&c, spec);

    if (rc) {
        /* out of memory is no fault of the sweep file: no file:line */
        return rc == BAECHI_ENOMEM ? rc : item_err(r, "clusters", it, err_msg());
    }
    for (int32_t i = 0; i < s->n_devices && i < devl->n; i++) {
        if (s->devices[i] > c.n_devices) {
            snprintf(why, sizeof(why),
                     "asks for %d devices, and cluster '%.60s' has %d (give each cluster its own "
                     "sweep file, or fewer devices)",
                     (int)s->devices[i], it->text, (int)c.n_devices);
            cluster_release(&c);
            return item_err(r, "devices", &devl->item[i], why);
        }
    }
    cluster_release(&c);
    return 0;
}

static int check_clusters(const struct yrd *r, const struct sweep_spec *s,
                          const struct sweep_list *devl)
{
    const char *const *presets = cluster_preset_names();

    for (int32_t i = 0; i < s->clusters.n; i++) {
        const struct sweep_item *it = &s->clusters.item[i];
        bool ok = false;
        for (int k = 0; presets[k]; k++) {
            ok |= strcmp(presets[k], it->text) == 0;
        }
        if (ok) {
            int rc = check_device_counts(r, s, it, it->text, devl);
            if (rc) {
                return rc;
            }
        } else {
            char *p = sweep_resolve(s, it->text);
            int rc = 0;
            if (!p) {
                return BAECHI_ENOMEM;
            }
            ok = access(p, R_OK) == 0;
            if (ok) {
                rc = check_device_counts(r, s, it, p, devl);
            }
            free(p);
            if (rc) {
                return rc;
            }
        }
        if (!ok) {
            return item_err(r, "clusters", it, "is neither a cluster preset nor a readable file");
        }
    }
    return 0;
}

static int read_exclude(struct yrd *r, struct sweep_spec *s)
{
    int rc;
    char what[64];

    if (r->ev.type != YAML_SEQUENCE_START_EVENT) {
        return yrd_err_here(r, "exclude: expected a list of mappings, got %s",
                            yrd_what(r, what, sizeof(what)));
    }
    for (;;) {
        struct sweep_exclude *e;
        if ((rc = yrd_next(r)) != 0) {
            return rc;
        }
        if (r->ev.type == YAML_SEQUENCE_END_EVENT) {
            return 0;
        }
        if (r->ev.type != YAML_MAPPING_START_EVENT) {
            return yrd_err_here(r,
                                "exclude: expected a mapping (workload, cluster, placer), got %s",
                                yrd_what(r, what, sizeof(what)));
        }
        e = mem_realloc(s->exclude, sizeof(*e) * (size_t)(s->n_exclude + 1));
        if (!e) {
            return err_set(BAECHI_ENOMEM, "out of memory");
        }
        s->exclude = e;
        e = &s->exclude[s->n_exclude++];
        memset(e, 0, sizeof(*e));
        while ((rc = yrd_key(r)) == 0) {
            char **f = strcmp(r->key, "workload") == 0  ? &e->workload
                       : strcmp(r->key, "cluster") == 0 ? &e->cluster
                       : strcmp(r->key, "placer") == 0  ? &e->placer
                       : strcmp(r->key, "grouper") == 0 ? &e->grouper
                       : strcmp(r->key, "fusion") == 0  ? &e->fusion
                                                        : NULL;
            if (!f) {
                return yrd_err(r, r->key_line, r->key_col,
                               "exclude: unknown key '%s' (workload, cluster, placer, grouper, "
                               "fusion)",
                               r->key);
            }
            if ((rc = yrd_next(r)) != 0) {
                return rc;
            }
            if (!yrd_is_scalar(r) || yrd_is_null(r)) {
                return yrd_err_here(r, "exclude: %s: expected a value", r->key);
            }
            if (f == &e->grouper && placer_grouper_parse(yrd_text(r), &e->grouper_v)) {
                return yrd_err_here(r, "exclude: grouper: '%s' is not a grouper (tf, coplace)",
                                    yrd_text(r));
            }
            if (f == &e->fusion && yio_parse_bool(yrd_text(r), &e->fusion_v)) {
                return yrd_err_here(r, "exclude: fusion: '%s' is not true or false", yrd_text(r));
            }
            free(*f);
            if (!(*f = mem_strdup(yrd_text(r)))) {
                return BAECHI_ENOMEM;
            }
        }
        if (rc != YRD_END) {
            return rc;
        }
    }
}

static const char *const known_keys =
    "name, workloads, clusters, devices, placers, groupers, fusion, memory_fractions, "
    "comm_factors, compute_factors, seeds, repeats, models, store_placement, sct_threshold, "
    "lp_time_limit, lp_solver, placement_repeats, exclude";

/* One of the single-valued keys: name, repeats, placement_repeats, store_placement,
 * sct_threshold, lp_time_limit. */
static int read_one(struct yrd *r, const char *k, const struct sweep_list *l, struct sweep_spec *s)
{
    const struct sweep_item *it = &l->item[0];
    int64_t x;
    int rc = 0;

    if (l->n != 1) {
        return item_err(r, k, &l->item[1], "is one value too many (expected one value)");
    }
    if (strcmp(k, "name") == 0) {
        free(s->name);
        if (!(s->name = mem_strdup(it->text))) {
            return BAECHI_ENOMEM;
        }
    } else if (strcmp(k, "repeats") == 0) {
        CHECK(to_int(r, k, it, 1, 1000000, &x));
        s->repeats = (int32_t)x;
    } else if (strcmp(k, "placement_repeats") == 0) {
        CHECK(to_int(r, k, it, 1, 100, &x));
        s->placement_repeats = (int32_t)x;
    } else if (strcmp(k, "store_placement") == 0) {
        if (yio_parse_bool(it->text, &s->store_placement)) {
            return item_err(r, k, it, "is not a boolean (true or false)");
        }
    } else {
        double d;
        const char *why = yio_parse_double(it->text, &d);
        if (why) {
            return item_err(r, k, it, why);
        }
        if (strcmp(k, "sct_threshold") == 0) {
            if (!(d >= LIMIT_THRESHOLD_MIN && d <= LIMIT_THRESHOLD_MAX)) {
                return item_err(r, k, it, "is out of range: expected a number in [0, 1]");
            }
            s->sct_threshold = d;
        } else {
            if (!(d <= LIMIT_LP_TIME_MAX_S)) {
                return item_err(r, k, it, "is out of range: expected seconds in [0, 1e+06]");
            }
            s->lp_time_limit_s = d;
        }
    }
cleanup:
    return rc;
}

/* devices or seeds: integers in their ranges. */
static int read_ints(struct yrd *r, const char *k, const struct sweep_list *l, struct sweep_spec *s)
{
    bool dev = k[0] == 'd';
    void *a = mem_calloc((size_t)l->n, dev ? sizeof(int32_t) : sizeof(uint64_t));
    int64_t x;
    int rc = 0;

    if (!a) {
        return BAECHI_ENOMEM;
    }
    if (dev) {
        free(s->devices);
        s->devices = a;
        s->n_devices = l->n;
    } else {
        free(s->seeds);
        s->seeds = a;
        s->n_seeds = l->n;
    }
    for (int32_t i = 0; i < l->n; i++) {
        CHECK(to_int(r, k, &l->item[i], 0, dev ? LIMIT_MAX_DEVICES : LIMIT_SEED_MAX, &x));
        if (dev) {
            s->devices[i] = (int32_t)x;
        } else {
            s->seeds[i] = (uint64_t)x;
        }
    }
cleanup:
    return rc;
}

/* An item's parser: true when the text is a valid value (stored in *out).
 * A verdict, not an error code: none of them allocates. */
typedef bool (*item_parse_fn)(const char *text, void *out);

static bool parse_grouper(const char *text, void *out)
{
    if (placer_grouper_parse(text, out) != 0) {
        err_clear(); /* item_err says it with the file:line */
        return false;
    }
    return true;
}

static bool parse_bool(const char *text, void *out)
{
    return yio_parse_bool(text, out) == 0;
}

/* An LP solver of --lp-solver; `clp` only when the build has it, so that a
 * sweep is refused before its first run rather than storing error rows. */
static bool parse_lp_solver(const char *text, void *out)
{
    enum placer_lp_solver *v = out;

    if (placer_lp_solver_parse(text, v) != 0) {
        err_clear();
        return false;
    }
    return *v != PLACER_LP_CLP || lp_clp_available();
}

/* The items of l parsed one by one into a new array *out of elem-byte values; why: a bad one. */
static int read_parsed(const struct yrd *r, const char *k, const struct sweep_list *l, size_t elem,
                       item_parse_fn parse, const char *why, void **out)
{
    char *a = mem_calloc((size_t)l->n, elem);

    if (!a) {
        return BAECHI_ENOMEM;
    }
    for (int32_t i = 0; i < l->n; i++) {
        if (!parse(l->item[i].text, a + (size_t)i * elem)) {
            free(a);
            return item_err(r, k, &l->item[i], why);
        }
    }
    *out = a;
    return 0;
}

static int read_body(struct yrd *r, struct sweep_spec *s)
{
    struct sweep_list tmp = {0}, devl = {0};
    unsigned seen = 0;
    int rc, bit;
    static const char *const keys[] = {
        "name",          "workloads", "clusters",         "devices",           "placers",
        "groupers",      "fusion",    "memory_fractions", "comm_factors",      "compute_factors",
        "seeds",         "repeats",   "models",           "store_placement",   "sct_threshold",
        "lp_time_limit", "lp_solver", "exclude",          "placement_repeats", NULL};
    int32_t wl_line = 0, top_line = yrd_line(r), top_col = yrd_col(r);

    while ((rc = yrd_key(r)) == 0) {
        const char *k = r->key;
        for (bit = 0; keys[bit] && strcmp(keys[bit], k) != 0; bit++) {
        }
        if (!keys[bit]) {
            rc = yrd_err(r, r->key_line, r->key_col, "unknown key '%s' (known: %s)", k, known_keys);
            goto cleanup;
        }
        if (seen & (1u << bit)) {
            rc = yrd_err(r, r->key_line, r->key_col, "duplicate key '%s'", k);
            goto cleanup;
        }
        seen |= 1u << bit;
        CHECK(yrd_next(r));
        if (strcmp(k, "exclude") == 0) {
            CHECK(read_exclude(r, s));
            continue;
        }
        CHECK(read_list(r, k, &tmp));
        if (strcmp(k, "workloads") == 0) {
            wl_line = r->key_line;
            s->workloads = tmp;
            memset(&tmp, 0, sizeof(tmp));
        } else if (strcmp(k, "clusters") == 0) {
            s->clusters = tmp;
            memset(&tmp, 0, sizeof(tmp));
        } else if (strcmp(k, "placers") == 0) {
            for (int32_t i = 0; i < tmp.n; i++) {
                if (!placer_find(tmp.item[i].text)) {
                    rc = item_err(r, k, &tmp.item[i], "is not a placer (see baechi place --list)");
                    goto cleanup;
                }
            }
            s->placers = tmp;
            memset(&tmp, 0, sizeof(tmp));
        } else if (strcmp(k, "name") == 0 || strcmp(k, "repeats") == 0 ||
                   strcmp(k, "store_placement") == 0 || strcmp(k, "sct_threshold") == 0 ||
                   strcmp(k, "lp_time_limit") == 0 || strcmp(k, "placement_repeats") == 0) {
            CHECK(read_one(r, k, &tmp, s));
        } else if (strcmp(k, "devices") == 0 || strcmp(k, "seeds") == 0) {
            CHECK(read_ints(r, k, &tmp, s));
            if (k[0] == 'd') { /* kept for their positions (check_clusters) */
                devl = tmp;
                memset(&tmp, 0, sizeof(tmp));
            }
        } else if (strcmp(k, "groupers") == 0) {
            void *a = NULL;
            CHECK(read_parsed(r, k, &tmp, sizeof(*s->groupers), parse_grouper,
                              "is not a grouper (tf or coplace)", &a));
            free(s->groupers);
            s->groupers = a;
            s->n_groupers = tmp.n;
        } else if (strcmp(k, "lp_solver") == 0) {
            void *a = NULL;
            CHECK(
                read_parsed(r, k, &tmp, sizeof(*s->lp_solvers), parse_lp_solver,
                            lp_clp_available()
                                ? "is not an LP solver (glpk, clp, flow, auto)"
                                : "is not an LP solver of this build (glpk, flow, auto; clp is not "
                                  "built in: install coinor-libclp-dev and rebuild)",
                            &a));
            free(s->lp_solvers);
            s->lp_solvers = a;
            s->n_lp_solvers = tmp.n;
        } else if (strcmp(k, "fusion") == 0) {
            void *a = NULL;
            CHECK(read_parsed(r, k, &tmp, sizeof(bool), parse_bool,
                              "is not a boolean (true or false)", &a));
            free(s->fusion);
            s->fusion = a;
            s->n_fusion = tmp.n;
        } else if (strcmp(k, "models") == 0) {
            if (tmp.n > 2) {
                rc = item_err(r, k, &tmp.item[2], "is one model too many (timed, baechi)");
                goto cleanup;
            }
            s->n_models = tmp.n;
            for (int32_t i = 0; i < tmp.n; i++) {
                if (sim_model_parse(tmp.item[i].text, &s->models[i])) {
                    rc = item_err(r, k, &tmp.item[i], "is not a simulator model (timed, baechi)");
                    goto cleanup;
                }
            }
            if (tmp.n == 2 && s->models[0] == s->models[1]) {
                rc = item_err(r, k, &tmp.item[1], "is listed twice");
                goto cleanup;
            }
        } else {
            double **a = strcmp(k, "memory_fractions") == 0 ? &s->memory_fractions
                         : strcmp(k, "comm_factors") == 0   ? &s->comm_factors
                                                            : &s->compute_factors;
            int32_t *n = strcmp(k, "memory_fractions") == 0 ? &s->n_memory_fractions
                         : strcmp(k, "comm_factors") == 0   ? &s->n_comm_factors
                                                            : &s->n_compute_factors;
            free(*a);
            *a = NULL;
            /* the ranges of --memory-fraction, --comm-factor, --compute-factor */
            CHECK(to_doubles(r, k, &tmp, strcmp(k, "comm_factors") == 0 ? 0 : LIMIT_FRACTION_MIN,
                             k[0] == 'm' ? LIMIT_FRACTION_MAX : LIMIT_FACTOR_MAX, a, n));
        }
        list_release(&tmp);
    }
    if (rc != YRD_END) {
        goto cleanup;
    }
    rc = 0;
    if (!(seen & (1u << 1))) {
        rc = yrd_err(r, top_line, top_col, "missing key 'workloads'");
    } else if (!(seen & (1u << 2))) {
        rc = yrd_err(r, top_line, top_col, "missing key 'clusters'");
    } else if (!(seen & (1u << 4))) {
        rc = yrd_err(r, top_line, top_col, "missing key 'placers'");
    }
    if (!rc) {
        rc = check_workloads(r, s);
    }
    if (!rc) {
        rc = check_clusters(r, s, &devl);
    }
    (void)wl_line;
cleanup:
    list_release(&tmp);
    list_release(&devl);
    return rc;
}

static int set_defaults(struct sweep_spec *s)
{
#define DEFAULT1(arr, n, type, v)                                                                  \
    do {                                                                                           \
        if (!(arr)) {                                                                              \
            if (!((arr) = mem_calloc(1, sizeof(type)))) {                                          \
                return BAECHI_ENOMEM;                                                              \
            }                                                                                      \
            (arr)[0] = (v);                                                                        \
            (n) = 1;                                                                               \
        }                                                                                          \
    } while (0)
    DEFAULT1(s->devices, s->n_devices, int32_t, 0);
    DEFAULT1(s->groupers, s->n_groupers, enum placer_grouper, PLACER_GROUPER_TF);
    DEFAULT1(s->fusion, s->n_fusion, bool, false);
    DEFAULT1(s->memory_fractions, s->n_memory_fractions, double, 1.0);
    DEFAULT1(s->comm_factors, s->n_comm_factors, double, 1.0);
    DEFAULT1(s->compute_factors, s->n_compute_factors, double, 1.0);
    DEFAULT1(s->seeds, s->n_seeds, uint64_t, PLACER_DEFAULT_SEED);
    DEFAULT1(s->lp_solvers, s->n_lp_solvers, enum placer_lp_solver, PLACER_LP_AUTO);
#undef DEFAULT1
    if (s->n_models == 0) {
        s->models[0] = SIM_MODEL_TIMED;
        s->n_models = 1;
    }
    if (!s->name) {
        char *b = mem_strdup(s->path), *base, *dot;
        if (!b) {
            return BAECHI_ENOMEM;
        }
        base = basename(b);
        if ((dot = strrchr(base, '.')) && dot != base) {
            *dot = '\0';
        }
        s->name = mem_strdup(base);
        free(b);
        if (!s->name) {
            return BAECHI_ENOMEM;
        }
    }
    return 0;
}

int sweep_spec_parse(struct sweep_spec *s, const char *text, size_t len, const char *path)
{
    struct yrd r;
    bool open = false;
    int rc;
    char *d = NULL;

    memset(s, 0, sizeof(*s));
    s->repeats = 1;
    s->placement_repeats = 1;
    s->sct_threshold = 0.1;
    s->lp_time_limit_s = 0;
    if (!(s->path = mem_strdup(path)) || !(d = mem_strdup(path))) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    if (!(s->dir = mem_strdup(dirname(d)))) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    CHECK(yrd_open(&r, text, len, path));
    open = true;
    CHECK(yrd_begin(&r));
    CHECK(read_body(&r, s));
    CHECK(yrd_end(&r));
    CHECK(set_defaults(s));
cleanup:
    free(d);
    if (open) {
        yrd_close(&r);
    }
    if (rc) {
        sweep_spec_release(s);
    }
    return rc;
}
