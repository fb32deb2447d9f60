/*
 * annotate.c - profile import (see annotate.h); the `baechi workload
 * annotate` verb is cli/workload_annotate.c.  JSON is read with jansson
 * (Debian libjansson-dev).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "calibrate/annotate.h"

#include "calibrate/fit.h"
#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"
#include "core/limits.h"
#include "core/strmap.h"
#include "core/workload_yaml.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum ev_kind { EV_OTHER = 0, EV_HOST, EV_CPU_OP, EV_GPU_ANNOT, EV_GPU };

struct ev {
    const char *name; /* owned by the JSON document */
    uint8_t kind;
    int32_t thread; /* interned "pid/tid" */
    double ts, dur; /* µs */
    int64_t ext;    /* "External id", -1 when absent */
};

struct trace_index {
    struct ev *ev;
    size_t n, alloc;
    int32_t *by_thread; /* host events sorted by (thread, ts) */
    size_t n_host;
    struct ev **gpu; /* GPU events sorted by ext */
    size_t n_gpu;
    int32_t *by_name;         /* events sorted by (name, ts) */
    struct strmap name_first; /* name -> first position in by_name */
    struct strmap threads;
    struct strpool pool;
};

void annotate_report_release(struct annotate_report *r)
{
    free(r->unmatched);
    free(r->rule);
    memset(r, 0, sizeof(*r));
}

static uint8_t classify(const char *cat)
{
    if (!cat) {
        return EV_HOST;
    }
    if (strcmp(cat, "cpu_op") == 0 || strcmp(cat, "Operator") == 0) {
        return EV_CPU_OP;
    }
    if (strcmp(cat, "user_annotation") == 0 || strcmp(cat, "python_function") == 0 ||
        strcmp(cat, "CPU") == 0 || strcmp(cat, "cpu") == 0) {
        return EV_HOST;
    }
    if (strcmp(cat, "gpu_user_annotation") == 0) {
        return EV_GPU_ANNOT;
    }
    if (strcmp(cat, "kernel") == 0 || strcmp(cat, "Kernel") == 0 ||
        strcmp(cat, "gpu_memcpy") == 0 || strcmp(cat, "Memcpy") == 0 ||
        strcmp(cat, "gpu_memset") == 0 || strcmp(cat, "Memset") == 0) {
        return EV_GPU;
    }
    return EV_OTHER;
}

static void id_text(const json_t *v, char *buf, size_t size)
{
    if (json_is_integer(v)) {
        snprintf(buf, size, "%lld", (long long)json_integer_value(v));
    } else if (json_is_string(v)) {
        snprintf(buf, size, "%s", json_string_value(v));
    } else if (json_is_real(v)) {
        snprintf(buf, size, "%.17g", json_real_value(v));
    } else {
        snprintf(buf, size, "?");
    }
}

static int intern_thread(struct trace_index *x, const json_t *pid, const json_t *tid, int32_t *id)
{
    char a[64], b[64], key[130];
    int32_t got;
    char *k;
    int rc;

    id_text(pid, a, sizeof(a));
    id_text(tid, b, sizeof(b));
    snprintf(key, sizeof(key), "%s/%s", a, b);
    got = strmap_get(&x->threads, key, strlen(key));
    if (got >= 0) {
        *id = got;
        return 0;
    }
    k = strpool_add(&x->pool, key, strlen(key));
    if (!k) {
        return BAECHI_ENOMEM;
    }
    got = (int32_t)x->threads.nr;
    if ((rc = strmap_put(&x->threads, k, got, NULL)) != 0) {
        return rc;
    }
    *id = got;
    return 0;
}

static int64_t ext_of(const json_t *args)
{
    const json_t *e = json_object_get(args, "External id");

    if (!e) {
        e = json_object_get(args, "external id");
    }
    return json_is_integer(e) ? (int64_t)json_integer_value(e) : -1;
}

static int cmp_thread(const void *a, const void *b, void *ctx)
{
    const struct ev *ev = ctx;
    const struct ev *x = &ev[*(const int32_t *)a], *y = &ev[*(const int32_t *)b];

    if (x->thread != y->thread) {
        return x->thread < y->thread ? -1 : 1;
    }
    if (x->ts != y->ts) {
        return x->ts < y->ts ? -1 : 1;
    }
    return (x->dur < y->dur) - (x->dur > y->dur); /* outer (longer) first */
}

static int cmp_name(const void *a, const void *b, void *ctx)
{
    const struct ev *ev = ctx;
    int32_t i = *(const int32_t *)a, j = *(const int32_t *)b;
    int c = strcmp(ev[i].name, ev[j].name);

    if (c) {
        return c;
    }
    if (ev[i].ts != ev[j].ts) {
        return ev[i].ts < ev[j].ts ? -1 : 1;
    }
    return (i > j) - (i < j);
}

static int cmp_gpu(const void *a, const void *b)
{
    const struct ev *x = *(struct ev *const *)a, *y = *(struct ev *const *)b;

    return (x->ext > y->ext) - (x->ext < y->ext);
}

static void index_release(struct trace_index *x)
{
    free(x->ev);
    free(x->by_thread);
    free(x->gpu);
    free(x->by_name);
    strmap_release(&x->name_first);
    strmap_release(&x->threads);
    strpool_release(&x->pool);
}

static int index_build(struct trace_index *x, const json_t *events, const char *path)
{
    size_t i;
    const json_t *e;
    int rc = 0;

    json_array_foreach(events, i, e)
    {
        const json_t *ph = json_object_get(e, "ph"), *name = json_object_get(e, "name");
        const json_t *ts = json_object_get(e, "ts"), *dur = json_object_get(e, "dur");
        const json_t *cat = json_object_get(e, "cat");
        struct ev *v;

        if (!json_is_object(e) || !json_is_string(ph) || strcmp(json_string_value(ph), "X") != 0) {
            continue;
        }
        if (!json_is_string(name) || !json_is_number(ts) || !json_is_number(dur)) {
            return err_set(BAECHI_EPARSE,
                           "%s: event %zu: a complete event (ph X) needs name, ts and dur", path,
                           i);
        }
        CHECK(ARRAY_RESERVE(x->ev, x->alloc, x->n + 1));
        v = &x->ev[x->n++];
        v->name = json_string_value(name);
        v->kind = classify(json_is_string(cat) ? json_string_value(cat) : NULL);
        v->ts = json_number_value(ts);
        v->dur = json_number_value(dur);
        if (!isfinite(v->ts) || !isfinite(v->dur) || v->dur < 0) {
            return err_set(BAECHI_EPARSE, "%s: event %zu ('%s'): bad ts or dur", path, i, v->name);
        }
        v->ext = ext_of(json_object_get(e, "args"));
        CHECK(intern_thread(x, json_object_get(e, "pid"), json_object_get(e, "tid"), &v->thread));
    }
    x->by_thread = mem_alloc_array(x->n + 1, sizeof(int32_t));
    x->by_name = mem_alloc_array(x->n + 1, sizeof(int32_t));
    x->gpu = mem_alloc_array(x->n + 1, sizeof(struct ev *));
    if (!x->by_thread || !x->by_name || !x->gpu) {
        return BAECHI_ENOMEM;
    }
    for (size_t k = 0; k < x->n; k++) {
        uint8_t kind = x->ev[k].kind;

        x->by_name[k] = (int32_t)k;
        if (kind == EV_HOST || kind == EV_CPU_OP) {
            x->by_thread[x->n_host++] = (int32_t)k;
        } else if (kind == EV_GPU) {
            x->gpu[x->n_gpu++] = &x->ev[k];
        }
    }
    qsort_r(x->by_thread, x->n_host, sizeof(int32_t), cmp_thread, x->ev);
    qsort_r(x->by_name, x->n, sizeof(int32_t), cmp_name, x->ev);
    qsort(x->gpu, x->n_gpu, sizeof(*x->gpu), cmp_gpu);
    CHECK(strmap_reserve(&x->name_first, x->n));
    for (size_t k = 0; k < x->n; k++) {
        const char *nm = x->ev[x->by_name[k]].name;

        if (k == 0 || strcmp(nm, x->ev[x->by_name[k - 1]].name) != 0) {
            CHECK(strmap_put(&x->name_first, nm, (int32_t)k, NULL));
        }
    }
cleanup:
    return rc;
}

/* Σ duration of the GPU events with External id `ext`. */
static double gpu_time_of_ext(const struct trace_index *x, int64_t ext, int *found)
{
    size_t lo = 0, hi = x->n_gpu;
    double sum = 0;

    if (ext < 0) {
        return 0;
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (x->gpu[mid]->ext < ext) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    for (; lo < x->n_gpu && x->gpu[lo]->ext == ext; lo++) {
        sum += x->gpu[lo]->dur;
        *found = 1;
    }
    return sum;
}

/* Rule 2's time of host event k: GPU time launched inside it, else its own duration. */
static double host_time(const struct trace_index *x, int32_t k)
{
    const struct ev *e = &x->ev[k];
    size_t lo = 0, hi = x->n_host;
    double sum = 0;
    int found = 0;

    if (x->n_gpu == 0) {
        return e->dur;
    }
    while (lo < hi) { /* first host event of e's thread with ts >= e->ts */
        size_t mid = lo + (hi - lo) / 2;
        const struct ev *m = &x->ev[x->by_thread[mid]];

        if (m->thread < e->thread || (m->thread == e->thread && m->ts < e->ts)) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    sum += gpu_time_of_ext(x, e->ext, &found);
    for (; lo < x->n_host; lo++) {
        const struct ev *m = &x->ev[x->by_thread[lo]];

        if (m->thread != e->thread || m->ts > e->ts + e->dur) {
            break;
        }
        if (m != e && m->ts + m->dur <= e->ts + e->dur && m->ext != e->ext) {
            sum += gpu_time_of_ext(x, m->ext, &found);
        }
    }
    return found ? sum : e->dur;
}

static void set_time(struct workload *w, int32_t i, const double *t, int32_t n)
{
    w->op[i].time_us = rint(fit_median(t, n) * 100.0) / 100.0;
}

/* Rules 1 and 2 for op i. */
static int match_by_name(struct workload *w, const struct trace_index *x, int32_t i, uint8_t *rule,
                         double *buf)
{
    const char *name = w->op[i].name;
    int32_t first = strmap_get(&x->name_first, name, strlen(name));
    int32_t n = 0;

    if (first < 0) {
        return 0;
    }
    for (size_t k = (size_t)first; k < x->n && strcmp(x->ev[x->by_name[k]].name, name) == 0; k++) {
        if (x->ev[x->by_name[k]].kind == EV_GPU_ANNOT) {
            buf[n++] = x->ev[x->by_name[k]].dur;
        }
    }
    if (n > 0) {
        set_time(w, i, buf, n);
        *rule = ANNOTATE_GPU_NAME;
        return 1;
    }
    for (size_t k = (size_t)first; k < x->n && strcmp(x->ev[x->by_name[k]].name, name) == 0; k++) {
        uint8_t kind = x->ev[x->by_name[k]].kind;

        if (kind == EV_HOST || kind == EV_CPU_OP) {
            buf[n++] = host_time(x, x->by_name[k]);
        }
    }
    if (n > 0) {
        set_time(w, i, buf, n);
        *rule = ANNOTATE_HOST_NAME;
        return 1;
    }
    return 0;
}

/* Rule 3 for the unmatched ops of type `type`. */
static int match_by_type(struct workload *w, const struct trace_index *x, const char *type,
                         uint8_t *rule, double *buf, int32_t *ops, int32_t *evs)
{
    char aten[160];
    int32_t n_ops = 0, n_ev = 0;
    size_t k;

    snprintf(aten, sizeof(aten), "aten::%s", type);
    for (char *c = aten; *c; c++) {
        *c = (char)tolower((unsigned char)*c);
    }
    for (int32_t i = 0; i < w->n_ops; i++) {
        if (rule[i] == ANNOTATE_NONE && strcmp(w->op[i].type, type) == 0) {
            ops[n_ops++] = i;
        }
    }
    for (k = 0; k < x->n; k++) { /* by_name is (name, ts) sorted: collect both names */
        const struct ev *e = &x->ev[x->by_name[k]];

        if (e->kind == EV_CPU_OP && (strcmp(e->name, type) == 0 || strcmp(e->name, aten) == 0)) {
            evs[n_ev++] = x->by_name[k];
        }
    }
    if (n_ops == 0 || n_ev == 0 || n_ev % n_ops != 0) {
        return 0;
    }
    /* time order across both names */
    for (int32_t a = 1; a < n_ev; a++) {
        int32_t v = evs[a], b = a;

        while (b > 0 && x->ev[evs[b - 1]].ts > x->ev[v].ts) {
            evs[b] = evs[b - 1];
            b--;
        }
        evs[b] = v;
    }
    for (int32_t i = 0; i < n_ops; i++) {
        int32_t n = 0;

        for (int32_t j = i; j < n_ev; j += n_ops) {
            buf[n++] = host_time(x, evs[j]);
        }
        set_time(w, ops[i], buf, n);
        rule[ops[i]] = ANNOTATE_TYPE;
    }
    return n_ops;
}

int annotate_profile(struct workload *w, const char *path, struct annotate_report *rep)
{
    json_error_t jerr;
    json_t *root = NULL;
    const json_t *events;
    struct trace_index x;
    double *buf = NULL;
    int32_t *ops = NULL, *evs = NULL;
    int rc = 0;

    memset(rep, 0, sizeof(*rep));
    memset(&x, 0, sizeof(x));
    strmap_init(&x.name_first);
    strmap_init(&x.threads);
    strpool_init(&x.pool);
    root = json_load_file(path, 0, &jerr);
    if (!root) {
        FILE *f = fopen(path, "r");

        if (!f) {
            rc = err_set(BAECHI_EIO, "cannot read profile '%s': %s", path, strerror(errno));
            goto cleanup;
        }
        fclose(f);
        rc = err_set(BAECHI_EPARSE, "%s:%d:%d: not a JSON trace: %s", path, jerr.line, jerr.column,
                     jerr.text);
        goto cleanup;
    }
    events = json_is_array(root) ? root : json_object_get(root, "traceEvents");
    if (!json_is_array(events)) {
        rc = err_set(BAECHI_EPARSE,
                     "%s: no event list (expected a Chrome trace: an array, or an object with "
                     "'traceEvents')",
                     path);
        goto cleanup;
    }
    CHECK(index_build(&x, events, path));
    rep->n_ops = w->n_ops;
    rep->n_events = (int32_t)x.n;
    rep->n_gpu_events = (int32_t)x.n_gpu;
    rep->rule = mem_calloc((size_t)w->n_ops + 1, 1);
    rep->unmatched = mem_calloc((size_t)w->n_ops + 1, sizeof(int32_t));
    buf = mem_alloc_array(x.n + 1, sizeof(double));
    ops = mem_alloc_array((size_t)w->n_ops + 1, sizeof(int32_t));
    evs = mem_alloc_array(x.n + 1, sizeof(int32_t));
    if (!rep->rule || !rep->unmatched || !buf || !ops || !evs) {
        rc = BAECHI_ENOMEM;
        goto cleanup;
    }
    for (int32_t i = 0; i < w->n_ops; i++) {
        match_by_name(w, &x, i, &rep->rule[i], buf);
    }
    for (int32_t i = 0; i < w->n_ops; i++) {
        bool first = true;

        if (rep->rule[i] != ANNOTATE_NONE) {
            continue;
        }
        for (int32_t j = 0; j < i && first; j++) {
            first = strcmp(w->op[j].type, w->op[i].type) != 0 || rep->rule[j] != ANNOTATE_NONE;
        }
        if (first) {
            match_by_type(w, &x, w->op[i].type, rep->rule, buf, ops, evs);
        }
    }
    for (int32_t i = 0, k = 0; i < w->n_ops; i++) {
        rep->by_rule[rep->rule[i]]++;
        if (rep->rule[i] == ANNOTATE_NONE) {
            rep->unmatched[k++] = i;
        }
    }
    rep->n_matched = rep->n_ops - rep->by_rule[ANNOTATE_NONE];
    /* A measured time the workload format does not accept (a 1e300 µs event,
     * two 1e308 ones whose median is inf) is an error in the trace: refuse it
     * here rather than write a file that no reader loads (docs/limits.md). */
    for (int32_t i = 0; i < w->n_ops; i++) {
        double t = w->op[i].time_us;

        if (rep->rule[i] != ANNOTATE_NONE && !(t >= 0 && t <= LIMIT_TIME_US_MAX)) {
            rc = err_set(BAECHI_EPARSE,
                         "%s: op '%s': measured time %g µs is outside the workload format's "
                         "range [0, %g] µs",
                         path, w->op[i].name, t, LIMIT_TIME_US_MAX);
            goto cleanup;
        }
    }
cleanup:
    free(buf);
    free(ops);
    free(evs);
    index_release(&x);
    json_decref(root);
    if (rc) {
        annotate_report_release(rep);
    }
    return rc;
}
