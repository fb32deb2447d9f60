/*
 * costmodel.c - roofline cost model with per-class presets (see costmodel.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/costmodel.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/strbuf.h"
#include "workloads/ops.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const *costmodel_preset_names(void)
{
    return devices_names();
}

static void set_defaults(struct costmodel *m)
{
    m->flops_eff = COSTMODEL_DEFAULT_FLOPS_EFF;
    m->bw_eff = COSTMODEL_DEFAULT_BW_EFF;
    m->gemm_eff_max = COSTMODEL_DEFAULT_GEMM_EFF;
    m->gemm_simt_eff_max = COSTMODEL_DEFAULT_GEMM_SIMT_EFF;
    m->gemm_half_us = COSTMODEL_DEFAULT_GEMM_HALF_US;
    m->launch_us = COSTMODEL_DEFAULT_LAUNCH_US;
    m->dtype = -1;
    m->elem_bytes = 0;
}

/* The rates of table row k. */
static void set_kind(struct costmodel *m, const struct devices_kind *k)
{
    m->peak_flops = k->flops[DEVICES_FP32];
    for (int t = 0; t < DEVICES_N_DTYPES; t++) {
        m->gemm_flops[t] = k->flops[t];
    }
    m->mem_bw_bytes_per_s = k->mem_bw_bytes_per_s;
    m->tensor_cores = k->tensor_cores;
    m->datasheet = true;
}

/* One measured rate for every data type, and the flat efficiency of the
 * first cost model: a calibrated device keeps the times it gave before. */
static void set_measured_flops(struct costmodel *m, double flops)
{
    m->peak_flops = flops;
    for (int t = 0; t < DEVICES_N_DTYPES; t++) {
        m->gemm_flops[t] = flops;
    }
    m->gemm_eff_max = m->gemm_simt_eff_max = m->flops_eff;
    m->gemm_half_us = 0;
    m->datasheet = false;
}

/* Appends the device table's names, ", " between them (all of them: a
 * char[128] once bounded the list). */
static int known_devices(struct strbuf *out)
{
    const char *const *names = devices_names();
    int rc = 0;

    for (int i = 0; names[i] && rc == 0; i++) {
        rc = strbuf_addf(out, "%s%s", i ? ", " : "", names[i]);
    }
    return rc;
}

int costmodel_preset(struct costmodel *m, const char *kind)
{
    const struct devices_kind *k = kind ? devices_find(kind) : NULL;

    /* a preset is a table name exactly; cluster kinds match by their stem */
    if (!k || strcasecmp(k->name, kind) != 0) {
        struct strbuf known = STRBUF_INIT;
        int rc;

        if ((rc = known_devices(&known)) == 0) {
            rc = err_set(BAECHI_EINVAL, "unknown device class '%s' for the cost model (known: %s)",
                         kind ? kind : "(none)", known.buf);
        }
        strbuf_release(&known);
        return rc;
    }
    memset(m, 0, sizeof(*m));
    set_defaults(m);
    set_kind(m, k);
    m->kind = k->name;
    return 0;
}

int costmodel_from_device(struct costmodel *m, const struct cluster_device *d)
{
    const struct devices_kind *k = devices_find(d->kind);
    bool has_flops = isfinite(d->peak_flops) && d->peak_flops > 0;
    bool has_bw = isfinite(d->mem_bw_bytes_per_s) && d->mem_bw_bytes_per_s > 0;

    if (!k && !(has_flops && has_bw)) {
        struct strbuf known = STRBUF_INIT;
        int rc;

        if ((rc = known_devices(&known)) == 0) {
            rc = err_set(BAECHI_EINVAL,
                         "device '%s': the cost model needs a known kind (%s) or both "
                         "peak_flops and mem_bw",
                         d->name ? d->name : "?", known.buf);
        }
        strbuf_release(&known);
        return rc;
    }
    memset(m, 0, sizeof(*m));
    set_defaults(m);
    if (k) {
        set_kind(m, k);
    }
    m->kind = d->kind ? d->kind : d->name;
    if (has_flops) {
        set_measured_flops(m, d->peak_flops);
    }
    if (has_bw) {
        m->mem_bw_bytes_per_s = d->mem_bw_bytes_per_s;
        m->datasheet = false;
    }
    if (isfinite(d->launch_us) && d->launch_us >= 0) {
        m->launch_us = d->launch_us;
    }
    return costmodel_check(m);
}

/* Known data types, for messages: "fp32 tf32 fp16 bf16 fp8". */
static const char *dtype_list(char *buf, size_t size, const struct costmodel *m)
{
    size_t len = 0;

    buf[0] = '\0';
    for (int t = 0; t < DEVICES_N_DTYPES && len < size; t++) {
        if (!m || m->gemm_flops[t] > 0) {
            len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? " " : "",
                                    devices_dtype_name((enum devices_dtype)t));
        }
    }
    return buf;
}

/*
 * Splits a last ":<word>" that is not a device number off spec into
 * *dtype (-1 when none).  Returns the length of the rest.
 */
static int split_dtype(const char *spec, int *dtype, size_t *rest_len)
{
    const char *colon = strrchr(spec, ':');
    char known[64];

    *dtype = -1;
    *rest_len = strlen(spec);
    if (!colon || !colon[1] || strchr(colon, '/') ||
        strspn(colon + 1, "0123456789") == strlen(colon + 1)) {
        return 0;
    }
    if ((*dtype = devices_dtype_parse(colon + 1)) < 0) {
        return err_set(BAECHI_EINVAL, "device '%s': unknown data type '%s' (known: %s)", spec,
                       colon + 1, dtype_list(known, sizeof(known), NULL));
    }
    *rest_len = (size_t)(colon - spec);
    return 0;
}

static int from_spec(struct costmodel *m, const char *spec, struct strbuf *kind);

int costmodel_from_spec(struct costmodel *m, const char *spec, struct strbuf *kind)
{
    struct strbuf base = STRBUF_INIT;
    char known[64];
    size_t n;
    int dtype, rc;

    if ((rc = split_dtype(spec, &dtype, &n))) {
        return rc;
    }
    /* a path of any length (a char[4096] refused longer ones) */
    if ((rc = strbuf_add(&base, spec, n)) || (rc = from_spec(m, base.buf, kind))) {
        goto cleanup;
    }
    if (dtype >= 0 && !(m->gemm_flops[dtype] > 0)) {
        rc = err_set(BAECHI_EINVAL, "device '%s': %s has no %s units (it has: %s)", spec,
                     m->kind ? m->kind : base.buf, devices_dtype_name((enum devices_dtype)dtype),
                     dtype_list(known, sizeof(known), m));
        goto cleanup;
    }
    m->dtype = dtype;
cleanup:
    strbuf_release(&base);
    return rc;
}

static int from_spec(struct costmodel *m, const char *spec, struct strbuf *kind)
{
    struct cluster c;
    struct strbuf path = STRBUF_INIT, perr = STRBUF_INIT, cerr = STRBUF_INIT;
    const char *colon = strrchr(spec, ':');
    size_t len = strlen(spec);
    long dev = 0;
    int rc;

    if (costmodel_preset(m, spec) == 0) {
        return 0;
    }
    /* the preset's message, kept whole for later (a char[512] cut it) */
    if ((rc = strbuf_addstr(&perr, err_msg()))) {
        return rc;
    }
    if (colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1)) {
        dev = strtol(colon + 1, NULL, 10);
        len = (size_t)(colon - spec);
    }
    if ((rc = strbuf_add(&path, spec, len))) {
        strbuf_release(&perr);
        return rc;
    }
    err_clear();
    cluster_init(&c);
    if ((rc = cluster_load(&c, path.buf)) != 0) {
        int rc2 = strbuf_addstr(&cerr, err_msg());

        cluster_release(&c);
        if (rc2) {
            rc = rc2;
        } else if (!strchr(path.buf, '/') && !strstr(path.buf, ".yaml") &&
                   !strstr(path.buf, ".yml")) {
            rc = err_set(BAECHI_EINVAL, "%s", perr.buf); /* meant as a preset kind */
        } else {
            rc = err_set(rc, "device '%s': not a cost-model preset, and the cluster: %s", spec,
                         cerr.buf);
        }
        goto cleanup;
    }
    if (dev >= c.n_devices) {
        rc = err_set(BAECHI_EINVAL, "device '%s': cluster '%s' has %d devices (0..%d)", spec,
                     c.name ? c.name : path.buf, (int)c.n_devices, (int)c.n_devices - 1);
    } else if ((rc = costmodel_from_device(m, &c.dev[dev])) == 0) {
        /* the cluster's text goes with it: a copy, whole */
        strbuf_reset(kind);
        if ((rc = strbuf_addstr(kind, m->kind ? m->kind : "calibrated")) == 0) {
            m->kind = kind->buf;
        }
    }
    cluster_release(&c);
cleanup:
    strbuf_release(&path);
    strbuf_release(&perr);
    strbuf_release(&cerr);
    return rc;
}

int costmodel_check(const struct costmodel *m)
{
    if (!(isfinite(m->peak_flops) && m->peak_flops > 0) ||
        !(isfinite(m->mem_bw_bytes_per_s) && m->mem_bw_bytes_per_s > 0)) {
        return err_set(BAECHI_EINVAL, "cost model '%s': peak FLOP/s and bandwidth must be > 0",
                       m->kind ? m->kind : "?");
    }
    if (!(m->flops_eff > 0 && m->flops_eff <= 1) || !(m->bw_eff > 0 && m->bw_eff <= 1) ||
        !(m->gemm_eff_max > 0 && m->gemm_eff_max <= 1) ||
        !(m->gemm_simt_eff_max > 0 && m->gemm_simt_eff_max <= 1) ||
        !(isfinite(m->gemm_half_us) && m->gemm_half_us >= 0)) {
        return err_set(BAECHI_EINVAL, "cost model '%s': efficiencies must be in (0, 1]",
                       m->kind ? m->kind : "?");
    }
    if (!(isfinite(m->launch_us) && m->launch_us >= 0)) {
        return err_set(BAECHI_EINVAL, "cost model '%s': launch overhead must be >= 0 µs",
                       m->kind ? m->kind : "?");
    }
    return 0;
}

double costmodel_op_us(const struct costmodel *m, double flops, double bytes)
{
    double tc, tm;

    if (!isfinite(flops) && !isfinite(bytes)) {
        return NAN;
    }
    tc = isfinite(flops) ? flops / (m->peak_flops * m->flops_eff) : 0;
    tm = isfinite(bytes) ? bytes / (m->mem_bw_bytes_per_s * m->bw_eff) : 0;
    return (tc > tm ? tc : tm) * 1e6 + m->launch_us;
}

enum devices_dtype costmodel_dtype(const struct costmodel *m, int elem_bytes)
{
    enum devices_dtype t;

    if (m->dtype >= 0 && m->dtype < DEVICES_N_DTYPES) {
        return (enum devices_dtype)m->dtype;
    }
    t = devices_dtype_of_elem(elem_bytes);
    /* deviation: fp8 data on a kind without fp8 units (A100 and older) is
     * timed as fp16, the narrowest type its tensor cores take */
    if (t == DEVICES_FP8 && !(m->gemm_flops[t] > 0)) {
        t = DEVICES_FP16;
    }
    return m->gemm_flops[t] > 0 ? t : DEVICES_FP32;
}

bool costmodel_is_gemm(const char *type)
{
    const struct ops_row *r = type ? ops_find(type) : NULL;
    size_t n = type ? strlen(type) : 0;

    if (!r && n > 4 && n < 96 && strcmp(type + n - 4, "Grad") == 0) {
        char base[96];

        memcpy(base, type, n - 4);
        base[n - 4] = '\0';
        r = ops_find(base);
    }
    return r && (r->cat == OPS_CAT_MATMUL || r->cat == OPS_CAT_CONV || r->cat == OPS_CAT_RNN);
}

double costmodel_gemm_us(const struct costmodel *m, enum devices_dtype t, double flops,
                         double bytes)
{
    double rate = m->gemm_flops[t] > 0 ? m->gemm_flops[t] : m->peak_flops;
    double emax = t != DEVICES_FP32 && m->tensor_cores ? m->gemm_eff_max : m->gemm_simt_eff_max;
    double n_half = rate * m->gemm_half_us * 1e-6;
    double tc = 0, tm;

    if (!isfinite(flops) && !isfinite(bytes)) {
        return NAN;
    }
    if (isfinite(flops) && flops > 0) {
        /* time at eff = emax n / (n + n_half): (n + n_half) / (rate emax) */
        tc = (flops + n_half) / (rate * emax);
    }
    tm = isfinite(bytes) ? bytes / (m->mem_bw_bytes_per_s * m->bw_eff) : 0;
    return (tc > tm ? tc : tm) * 1e6 + m->launch_us;
}

/* The value of key `key` of the top-level x-times map of w, NULL when none. */
static const char *times_field(const struct workload *w, const char *key)
{
    for (int32_t i = 0; i < w->n_top_ext; i++) {
        const struct yval *v = &w->top_ext[i].val;

        if (strcmp(w->top_ext[i].key, WORKLOAD_TIMES_KEY) != 0 || v->kind != YVAL_MAP) {
            continue;
        }
        for (int32_t j = 0; j < v->n; j++) {
            if (strcmp(v->keys[j], key) == 0 && v->items[j].kind == YVAL_SCALAR) {
                return v->items[j].scalar;
            }
        }
    }
    return NULL;
}

/* The element size of w's ops: m->elem_bytes, else its x-times dtype's, else 4. */
static int workload_elem_bytes(const struct costmodel *m, const struct workload *w)
{
    static const int bytes_of[DEVICES_N_DTYPES] = {4, 4, 2, 2, 1};
    int t;

    if (m->elem_bytes > 0) {
        return m->elem_bytes;
    }
    t = devices_dtype_parse(times_field(w, "dtype"));
    return t >= 0 ? bytes_of[t] : 4;
}

int costmodel_apply(const struct costmodel *m, struct workload *w, unsigned flags, int32_t *n_set)
{
    int32_t n = 0;
    int rc;
    enum devices_dtype dt;

    if ((rc = costmodel_check(m))) {
        return rc;
    }
    dt = costmodel_dtype(m, workload_elem_bytes(m, w));
    for (int32_t i = 0; i < w->n_ops; i++) {
        struct wl_op *op = &w->op[i];
        double t;

        if (isfinite(op->time_us) && !(flags & COSTMODEL_OVERRIDE)) {
            continue;
        }
        t = costmodel_is_gemm(op->type) ? costmodel_gemm_us(m, dt, op->flops, op->bytes)
                                        : costmodel_op_us(m, op->flops, op->bytes);
        if (isnan(t)) {
            continue;
        }
        op->time_us = round(t * 100.0) / 100.0;
        n++;
    }
    if (n > 0 && !w->reference_device && m->kind) {
        w->reference_device = mem_strdup(m->kind);
        if (!w->reference_device) {
            return err_set(BAECHI_ENOMEM, "out of memory");
        }
    }
    if (n > 0 && m->kind) {
        /* where the times come from, so that commands can warn on another device */
        /* yval has no const members: the strings are only read (workload_set_top_ext copies) */
        char src_key[] = "source", dev_key[] = "device", dt_key[] = "dtype", roof[] = "roofline",
             cal[] = "calibrated";
        char *keys[3] = {src_key, dev_key, dt_key};
        struct yval items[3] = {
            {.kind = YVAL_SCALAR, .scalar = m->datasheet ? roof : cal},
            {.kind = YVAL_SCALAR, .scalar = (char *)m->kind},
            {.kind = YVAL_SCALAR, .scalar = (char *)devices_dtype_name(dt)},
        };
        struct yval v = {.kind = YVAL_MAP, .n = 3, .keys = keys, .items = items};

        if ((rc = workload_set_top_ext(w, WORKLOAD_TIMES_KEY, &v))) {
            return rc;
        }
    }
    if (n_set) {
        *n_set = n;
    }
    return 0;
}

/* The part of a device kind name before its first '-' ("h100" of "h100-sxm5-80gb"). */
static size_t kind_stem_len(const char *kind)
{
    return strcspn(kind, "-");
}

static const char *times_device(const struct workload *w)
{
    const char *d = times_field(w, "device");

    return d ? d : w->reference_device;
}

void costmodel_warn_times(const struct workload *w, const char *cluster, const char *k)
{
    const char *t = times_device(w);
    size_t nt, nk;

    if (!t || !k) {
        return;
    }
    nt = kind_stem_len(t);
    nk = kind_stem_len(k);
    if (nt != nk || strncasecmp(t, k, nt) != 0) {
        err_warn("the op times of workload '%s' were made for device '%s', cluster '%s' has '%s' "
                 "(re-time: baechi workload annotate --device %s, docs/workloads.md)",
                 w->name, t, cluster ? cluster : "?", k, cluster ? cluster : k);
    }
}
