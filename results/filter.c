/*
 * filter.c - dimensions, metrics, --where and did-you-mean (filter.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "results/filter.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"
#include "core/strbuf.h"
#include "core/strdist.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Parameter K of a `gen:`/`import:` workload spec ("gen:gpt?size=medium&
 * schedule=gpipe"), as text; NULL when absent (keys written with '_', as
 * `baechi sweep` stores them when the file does).  N is the length of "&K=".
 */
#define SPEC_P_ "('&' || replace(r.workload_spec, '?', '&') || '&')"
#define SPEC_ARG_(k, n)                                                                            \
    "(CASE WHEN instr(" SPEC_P_ ", '&" k "=') > 0 THEN substr(substr(" SPEC_P_ ", instr(" SPEC_P_  \
    ", '&" k "=') + " n "), 1, instr(substr(" SPEC_P_ ", instr(" SPEC_P_ ", '&" k "=') + " n       \
    "), '&') - 1) END)"

/* micro_batches: the spec's parameter, else the _mbN of the generated
 * workloads' names (gpt-medium_b8_mb4_h100), else 1 */
#define MICRO_BATCHES_SQL                                                                          \
    "coalesce(CAST(" SPEC_ARG_("micro_batches",                                                    \
                               "15") " AS INTEGER), CASE WHEN "                                    \
                                     "instr(r.workload, '_mb') > 0 THEN "                          \
                                     "NULLIF(CAST(substr(r.workload, instr(r.workload, '_mb') "    \
                                     "+ 3) AS INTEGER), 0) ELSE 1 END)"

/* pipeline: schedule (default 1f1b), " V=n" for interleaved, "+MODE" for
 * recomputation, of a gen:/import: spec; NULL for a workload file */
#define PIPELINE_SQL                                                                               \
    "(CASE WHEN r.workload_spec LIKE 'gen:%' OR r.workload_spec LIKE 'import:%' THEN "             \
    "coalesce(" SPEC_ARG_("schedule", "10") ", '1f1b') || CASE WHEN " SPEC_ARG_(                   \
        "schedule",                                                                                \
        "10") " = 'interleaved' THEN ' V=' || coalesce(" SPEC_ARG_("virtual_stages",               \
                                                                   "16") ", '1') ELSE '' "         \
                                                                         "END || coalesce('+' || " \
                                                                         "NULLIF(" SPEC_ARG_(      \
                                                                             "recompute",          \
                                                                             "11") ", 'none'), "   \
                                                                                   "'') END)"

/* strategy: a parallelised graph's strategy (what follows ':' in the
 * names of data/sweeps/parallel.yaml, "gpt-medium:DP+ZeRO-1") for runs of
 * the `given` placer, the placer configuration for the others: one line
 * per strategy and per op placer (docs/parallel-study.md) */
#define STRATEGY_SQL                                                                               \
    "(CASE WHEN r.placer = 'given' AND instr(r.workload, ':') > 0 THEN substr(r.workload, "        \
    "instr(r.workload, ':') + 1) ELSE " RESULTS_CONFIG_SQL " END)"

static const struct rdim dims[] = {
    {"workload", NULL, RESULTS_WORKLOAD_SQL, 't', "workload", true, "r.workload"},
    {"cluster", NULL, RESULTS_CLUSTER_SQL, 't', "cluster", true, "r.cluster"},
    {"devices", "n_devices", "r.n_devices", 'i', "number of devices (GPUs)", true, NULL},
    {"memory_fraction", "fraction", "r.memory_fraction", 'r', "memory fraction of each device",
     true, NULL},
    {"comm_factor", NULL, "r.comm_factor", 'r', "communication cost factor (x)", true, NULL},
    {"compute_factor", NULL, "r.compute_factor", 'r', "compute time factor (x)", true, NULL},
    {"placer", NULL, "r.placer", 't', "placer", false, NULL},
    {"config", NULL, RESULTS_CONFIG_SQL, 't', "placer configuration", false, NULL},
    {"grouper", NULL, "r.grouper", 't', "grouper", false, NULL},
    {"fusion", NULL, "r.fusion", 'b', "operator fusion", false, NULL},
    {"n_ops", "ops", "r.n_ops", 'i', "graph size (ops)", false, NULL},
    /* not a column: the _bN of the generated workloads' names (gnmt_v2_b128_fwd) */
    {"batch", NULL, "NULLIF(CAST(substr(r.workload, instr(r.workload, '_b') + 2) AS INTEGER), 0)",
     'i', "batch size (from the workload name)", false, NULL},
    {"seed", NULL, "r.seed", 'i', "seed", false, NULL},
    /* not columns: read from the workload's spec (and name) */
    {"micro_batches", NULL, MICRO_BATCHES_SQL, 'i', "micro-batches M", false, NULL},
    {"pipeline", NULL, PIPELINE_SQL, 't', "pipeline schedule (+recomputation)", false, NULL},
    {"strategy", NULL, STRATEGY_SQL, 't', "parallelism or placer", false, NULL},
    {"sweep", NULL, "r.sweep", 't', "sweep", false, NULL},
    {"model", "sim_model", "r.sim_model", 't', "simulator model", false, NULL},
    {"status", NULL, "r.status", 't', "status", false, NULL},
    {NULL, NULL, NULL, 0, NULL, false, NULL},
};

static const struct rmetric metrics[] = {
    {"step", "step_ms", "r.step_us / 1000.0", "step time (ms)", "step_ms", true, NULL},
    {"peak", "peak_gib", "r.max_peak_bytes / 1073741824.0", "peak memory, largest device (GiB)",
     "peak_gib", true, NULL},
    {"peak0", "peak0_gib",
     "(SELECT d.peak_bytes FROM devices d WHERE d.run_id = r.id AND d.device = 0) / "
     "1073741824.0",
     "peak memory, device 0 (GiB)", "peak0_gib", true,
     "(SELECT d.oom FROM devices d WHERE d.run_id = r.id AND d.device = 0)"},
    {"placement", "placement_ms", "r.placement_ms", "placement time (ms)", "placement_ms", false,
     NULL},
    {"bound_ratio", "bound", "CAST(r.step_us AS REAL) / NULLIF(r.lower_bound_us, 0)",
     "step time / lower bound (x)", "bound_ratio", true, NULL},
    {NULL, NULL, NULL, NULL, NULL, false, NULL},
};

const struct rdim *rdim_find(const char *name)
{
    for (const struct rdim *d = dims; d->name; d++) {
        if (strcmp(d->name, name) == 0 || (d->alias && strcmp(d->alias, name) == 0)) {
            return d;
        }
    }
    return NULL;
}

const struct rmetric *rmetric_find(const char *name)
{
    for (const struct rmetric *m = metrics; m->name; m++) {
        if (strcmp(m->name, name) == 0 || (m->alias && strcmp(m->alias, name) == 0)) {
            return m;
        }
    }
    return NULL;
}

/* ------------------------------------------------------------ rsql */

void rsql_init(struct rsql *q)
{
    memset(q, 0, sizeof(*q));
}

void rsql_release(struct rsql *q)
{
    for (int i = 0; i < q->nowned; i++) {
        free(q->owned[i]);
    }
    free(q->owned);
    free(q->p);
    free(q->sql);
    memset(q, 0, sizeof(*q));
}

int rsql_cat(struct rsql *q, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || ARRAY_RESERVE(q->sql, q->alloc, q->len + (size_t)n + 1)) {
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    va_start(ap, fmt);
    vsnprintf(q->sql + q->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    q->len += (size_t)n;
    return 0;
}

static int add_param(struct rsql *q, struct db_param p)
{
    if (ARRAY_RESERVE(q->p, q->palloc, (size_t)q->np + 1)) {
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    q->p[q->np++] = p;
    return rsql_cat(q, "?");
}

int rsql_text(struct rsql *q, const char *s)
{
    char *c;

    if (ARRAY_RESERVE(q->owned, q->oalloc, (size_t)q->nowned + 1) || !(c = mem_strdup(s))) {
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    q->owned[q->nowned++] = c;
    return add_param(q, (struct db_param){.type = DB_PARAM_TEXT, .s = c});
}

int rsql_real(struct rsql *q, double d)
{
    return add_param(q, (struct db_param){.type = DB_PARAM_REAL, .d = d});
}

int rsql_append(struct rsql *q, const struct rsql *o)
{
    const char *s = o->sql ? o->sql : "";
    int k = 0;

    /* re-bind each "?" of the other text in order (values never hold SQL) */
    for (; *s; s++) {
        if (*s == '?' && k < o->np) {
            const struct db_param *p = &o->p[k++];
            int rc = p->type == DB_PARAM_TEXT   ? rsql_text(q, p->s ? p->s : "")
                     : p->type == DB_PARAM_REAL ? rsql_real(q, p->d)
                                                : add_param(q, *p);
            if (rc) {
                return rc;
            }
        } else if (rsql_cat(q, "%c", *s)) {
            return BAECHI_ENOMEM;
        }
    }
    return 0;
}

/* ------------------------------------------------------------ did you mean */

static bool contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);

    for (; n && *hay; hay++) {
        if (strncasecmp(hay, needle, n) == 0) {
            return true;
        }
    }
    return false;
}

const char *results_suggest(const char *s, const char *const *names, int n)
{
    const char *best = NULL;
    size_t bestd = (size_t)-1, limit = (strlen(s) + 2) / 3; /* m-eft -> m-etf: 2 */

    for (int i = 0; i < n; i++) {
        size_t d = names[i] ? strdist(s, names[i]) : (size_t)-1;
        if (d < bestd) {
            bestd = d;
            best = names[i];
        }
    }
    if (best && bestd <= limit) {
        return best;
    }
    /* a stem of a longer name: "gnmt" for "gnmt_v2_b128_fwd" */
    for (int i = 0; strlen(s) >= 3 && i < n; i++) {
        if (names[i] && contains_ci(names[i], s)) {
            return names[i];
        }
    }
    return NULL;
}

/* ------------------------------------------------------------ --where */

void rfilter_init(struct rfilter *f)
{
    memset(f, 0, sizeof(*f));
}

static void cond_release(struct rcond *c)
{
    for (int i = 0; i < c->nval; i++) {
        free(c->val[i]);
    }
    free(c->val);
    free(c->text);
}

void rfilter_release(struct rfilter *f)
{
    for (int i = 0; i < f->n; i++) {
        cond_release(&f->c[i]);
    }
    free(f->c);
    memset(f, 0, sizeof(*f));
}

static int bool_value(const char *s)
{
    static const char *const t[] = {"1", "true", "yes", "on", NULL};
    static const char *const n[] = {"0", "false", "no", "off", NULL};

    for (int i = 0; t[i]; i++) {
        if (strcasecmp(s, t[i]) == 0) {
            return 1;
        }
        if (strcasecmp(s, n[i]) == 0) {
            return 0;
        }
    }
    return -1;
}

static bool is_number(const char *s, double *out)
{
    char *e;
    double d;

    if (!*s) {
        return false;
    }
    d = strtod(s, &e);
    if (*e || !isfinite(d)) {
        return false;
    }
    *out = d;
    return true;
}

static int unknown_key(const char *expr, const char *key)
{
    const char *names[32];
    const char *sug;
    int n = 0, rc = 0;
    struct strbuf list = STRBUF_INIT;

    for (const struct rdim *d = dims; d->name && n < 32 && rc == 0; d++) {
        names[n++] = d->name;
        rc = strbuf_addf(&list, "%s%s", list.len ? ", " : "", d->name);
    }
    if (rc == 0) {
        sug = results_suggest(key, names, n);
        rc = err_set(BAECHI_EINVAL, "--where '%s': unknown key '%s'%s%s%s (keys: %s)", expr, key,
                     sug ? "; did you mean '" : "", sug ? sug : "", sug ? "'?" : "", list.buf);
    }
    strbuf_release(&list);
    return rc;
}

static int add_cond(struct rfilter *f, const char *expr, const char *key, const char *op,
                    const char *value, bool split)
{
    const struct rdim *d = rdim_find(key);
    struct rcond c;
    const char *p = value;
    int rc = 0;

    if (!d) {
        return unknown_key(expr, key);
    }
    memset(&c, 0, sizeof(c));
    c.dim = d;
    snprintf(c.op, sizeof(c.op), "%s", op);
    if (op[0] == '<' || op[0] == '>') {
        if (d->kind == 't' || d->kind == 'b') {
            return err_set(BAECHI_EINVAL, "--where '%s': '%s' compares only numeric keys", expr,
                           op);
        }
        split = false;
    }
    if (!(c.text = mem_strdup(expr))) {
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    for (;;) {
        const char *end = split ? strchr(p, ',') : NULL;
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char *v = mem_alloc(n + 1), **nv;
        double x;

        if (!v) {
            rc = err_set(BAECHI_ENOMEM, "out of memory");
            break;
        }
        memcpy(v, p, n);
        v[n] = '\0';
        nv = mem_realloc(c.val, sizeof(char *) * (size_t)(c.nval + 1));
        if (!nv) {
            free(v);
            rc = err_set(BAECHI_ENOMEM, "out of memory");
            break;
        }
        c.val = nv;
        c.val[c.nval++] = v;
        if (!*v) {
            rc = err_set(BAECHI_EINVAL, "--where '%s': an empty value", expr);
            break;
        }
        if ((d->kind == 'i' || d->kind == 'r') && !is_number(v, &x)) {
            rc = err_set(BAECHI_EINVAL, "--where '%s': %s takes a number, not '%s'", expr, d->name,
                         v);
            break;
        }
        if (d->kind == 'b' && bool_value(v) < 0) {
            rc = err_set(BAECHI_EINVAL, "--where '%s': %s takes true or false, not '%s'", expr,
                         d->name, v);
            break;
        }
        if (!end) {
            break;
        }
        p = end + 1;
    }
    if (!rc && ARRAY_RESERVE(f->c, f->alloc, (size_t)f->n + 1)) {
        rc = err_set(BAECHI_ENOMEM, "out of memory");
    }
    if (rc) {
        cond_release(&c);
        return rc;
    }
    f->c[f->n++] = c;
    return 0;
}

int rfilter_add(struct rfilter *f, const char *expr)
{
    static const char *const ops[] = {"!=", "<=", ">=", "=", "<", ">", NULL};
    const char *at = NULL, *op = NULL;
    struct strbuf key = STRBUF_INIT;
    size_t klen;
    int rc;

    for (const char *s = expr; *s && !at; s++) {
        for (int i = 0; ops[i]; i++) {
            if (strncmp(s, ops[i], strlen(ops[i])) == 0) {
                at = s;
                op = ops[i];
                break;
            }
        }
    }
    if (!at) {
        return err_set(BAECHI_EINVAL,
                       "--where '%s': expected KEY=VALUE[,VALUE...] (or !=, <, <=, >, >=)", expr);
    }
    klen = (size_t)(at - expr);
    while (klen && isspace((unsigned char)expr[klen - 1])) {
        klen--;
    }
    if (klen == 0) {
        return err_set(BAECHI_EINVAL, "--where '%s': no key before '%s'", expr, op);
    }
    at += strlen(op);
    while (isspace((unsigned char)*at)) {
        at++;
    }
    /* a key of any length: a long one is unknown, not missing */
    if ((rc = strbuf_add(&key, expr, klen)) == 0) {
        rc = add_cond(f, expr, key.buf, op, at, true);
    }
    strbuf_release(&key);
    return rc;
}

int rfilter_add_eq(struct rfilter *f, const char *key, const char *value)
{
    struct strbuf expr = STRBUF_INIT;
    int rc;

    if ((rc = strbuf_addf(&expr, "%s=%s", key, value)) == 0) {
        rc = add_cond(f, expr.buf, key, "=", value, false);
    }
    strbuf_release(&expr);
    return rc;
}

const struct rcond *rfilter_get(const struct rfilter *f, const char *dim)
{
    const struct rdim *d = rdim_find(dim);

    for (int i = 0; f && d && i < f->n; i++) {
        if (f->c[i].dim == d) {
            return &f->c[i];
        }
    }
    return NULL;
}

static int bind_value(struct rsql *q, const struct rdim *d, const char *v)
{
    double x = 0;

    if (d->kind == 'b') {
        return rsql_real(q, bool_value(v));
    }
    if (d->kind == 'i' || d->kind == 'r') {
        is_number(v, &x);
        return rsql_real(q, x);
    }
    return rsql_text(q, v);
}

struct note_ctx {
    const char *what; /* "workloads" */
};

static int note_one(void *ctx, int ncol, const char *const *names, const char *const *vals)
{
    const struct note_ctx *n = ctx;

    (void)ncol;
    (void)names;
    err_warn("%s different %s are named '%s'; shown as name@hash", vals[1] ? vals[1] : "?", n->what,
             vals[0] ? vals[0] : "");
    return 0;
}

int results_note_collisions(struct db *db, const struct rsql *scope)
{
    static const char *const cols[][3] = {{"workload", "workload_hash", "workloads"},
                                          {"cluster", "cluster_hash", "clusters"}};
    int rc = 0;

    for (size_t i = 0; !rc && i < sizeof(cols) / sizeof(*cols); i++) {
        struct note_ctx n = {cols[i][2]};
        struct rsql q;

        /* the names in scope, counted over the whole database as the labels are */
        rsql_init(&q);
        if (!(rc = rsql_cat(&q,
                            "SELECT s.name, COUNT(DISTINCT coalesce(substr(q.%s, 1, 6), '?')) "
                            "FROM (SELECT DISTINCT r.%s AS name ",
                            cols[i][1], cols[i][0])) &&
            !(rc = rsql_append(&q, scope)) &&
            !(rc = rsql_cat(&q,
                            ") s JOIN main.runs q ON q.%s = s.name GROUP BY s.name HAVING "
                            "COUNT(DISTINCT q.%s) > 1 ORDER BY s.name",
                            cols[i][0], cols[i][1]))) {
            rc = db_query_params(db, q.sql, q.p, q.np, note_one, &n);
        }
        rsql_release(&q);
    }
    return rc;
}

/* "sql OP ?" for one value; with a name_sql and = (or !=), "(name_sql = ? OR sql = ?)". */
static int cond_term(struct rsql *q, const struct rdim *d, const char *op, const char *v)
{
    int rc;

    if (!d->name_sql || strcmp(op, "=") != 0) {
        return (rc = rsql_cat(q, "%s %s ", d->sql, op)) ? rc : bind_value(q, d, v);
    }
    if ((rc = rsql_cat(q, "(%s = ", d->name_sql)) || (rc = bind_value(q, d, v)) ||
        (rc = rsql_cat(q, " OR %s = ", d->sql)) || (rc = bind_value(q, d, v))) {
        return rc;
    }
    return rsql_cat(q, ")");
}

int rfilter_sql(const struct rfilter *f, struct rsql *q)
{
    int rc = 0;

    for (int i = 0; f && i < f->n; i++) {
        const struct rcond *c = &f->c[i];
        bool neg = strcmp(c->op, "!=") == 0;
        bool eq = neg || strcmp(c->op, "=") == 0;

        CHECK(rsql_cat(q, " AND %s(", neg ? "NOT " : ""));
        for (int k = 0; k < c->nval; k++) {
            CHECK(rsql_cat(q, "%s", k ? " OR " : ""));
            CHECK(cond_term(q, c->dim, eq ? "=" : c->op, c->val[k]));
        }
        CHECK(rsql_cat(q, ")"));
    }
cleanup:
    return rc;
}

struct strs {
    char **v;
    int n;
    size_t alloc;
};

static int collect(void *ctx, int ncol, const char *const *names, const char *const *vals)
{
    struct strs *s = ctx;

    (void)ncol;
    (void)names;
    if (ARRAY_RESERVE(s->v, s->alloc, (size_t)s->n + 1) ||
        !(s->v[s->n] = mem_strdup(vals[0] ? vals[0] : "(none)"))) {
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    s->n++;
    return 0;
}

static void strs_release(struct strs *s)
{
    for (int i = 0; i < s->n; i++) {
        free(s->v[i]);
    }
    free(s->v);
}

static int count_one(void *ctx, int ncol, const char *const *names, const char *const *vals)
{
    (void)ncol;
    (void)names;
    *(long *)ctx = vals[0] ? strtol(vals[0], NULL, 10) : 0;
    return 0;
}

int rfilter_check(struct db *db, const struct rfilter *f, const struct rsql *scope)
{
    int rc = 0;

    for (int i = 0; !rc && f && i < f->n; i++) {
        const struct rcond *c = &f->c[i];
        if (strcmp(c->op, "=") != 0) {
            continue;
        }
        for (int k = 0; !rc && k < c->nval; k++) {
            struct rsql q;
            struct strs s = {0};
            long n = 0;
            char list[600];
            size_t len = 0;
            const char *sug;

            rsql_init(&q);
            if (!(rc = rsql_cat(&q, "SELECT COUNT(*) ")) && !(rc = rsql_append(&q, scope)) &&
                !(rc = rsql_cat(&q, " AND ")) && !(rc = cond_term(&q, c->dim, "=", c->val[k]))) {
                rc = db_query_params(db, q.sql, q.p, q.np, count_one, &n);
            }
            rsql_release(&q);
            if (rc || n > 0) {
                continue;
            }
            rsql_init(&q);
            if (!(rc = rsql_cat(&q, "SELECT DISTINCT %s ", c->dim->sql)) &&
                !(rc = rsql_append(&q, scope)) && !(rc = rsql_cat(&q, " ORDER BY 1"))) {
                rc = db_query_params(db, q.sql, q.p, q.np, collect, &s);
            }
            rsql_release(&q);
            for (int j = 0; !rc && j < s.n && len < sizeof(list) - 1; j++) {
                len +=
                    (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", j ? ", " : "", s.v[j]);
            }
            sug = rc ? NULL : results_suggest(c->val[k], (const char *const *)s.v, s.n);
            if (!rc) {
                rc = s.n == 0
                         ? err_set(BAECHI_EINVAL, "--where '%s': no runs to select from", c->text)
                         : err_set(BAECHI_EINVAL,
                                   "--where '%s': no run has %s '%s'%s%s%s (stored: %s)", c->text,
                                   c->dim->name, c->val[k], sug ? "; did you mean '" : "",
                                   sug ? sug : "", sug ? "'?" : "", list);
            }
            strs_release(&s);
        }
    }
    return rc;
}
