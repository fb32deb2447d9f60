/*
 * costmodel.c - roofline cost model with per-class presets (see costmodel.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/costmodel.h"

#include "core/alloc.h"
#include "core/err.h"
#include "workloads/gen_build.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct preset {
    double peak_flops;
    double mem_bw_bytes_per_s;
};

/* The preset kinds, and their peaks in the same order (one list: the
 * error messages below are made from it). */
static const char *const preset_names[] = {"rtx2080", "p100", "v100", "a100", "h100", "h200", NULL};

/*
 * Datasheet numbers (FP32 without tensor cores, boost clock; memory
 * bandwidth of the board), not measured.  Sources: NVIDIA product briefs and
 * datasheets: GeForce RTX 2080 (2944 CUDA cores x 1.71 GHz x 2 = 10.07
 * TFLOP/s, 448 GB/s GDDR6), Tesla P100 SXM2 (10.6 TFLOP/s, 732 GB/s), Tesla
 * V100 SXM2 (15.7 TFLOP/s, 900 GB/s), A100 SXM4 80 GB (19.5 TFLOP/s,
 * 2,039 GB/s), H100 SXM5 (67 TFLOP/s, 3.35 TB/s), H200 SXM (67 TFLOP/s,
 * 4.8 TB/s).
 */
static const struct preset presets[] = {
    {10.07e12, 448e9}, {10.6e12, 732e9},   {15.7e12, 900e9},
    {19.5e12, 2039e9}, {67.0e12, 3.35e12}, {67.0e12, 4.8e12},
};

_Static_assert(sizeof(presets) / sizeof(presets[0]) ==
                   sizeof(preset_names) / sizeof(preset_names[0]) - 1,
               "one peak per preset name");

const char *const *costmodel_preset_names(void)
{
    return preset_names;
}

/* The index of preset `kind` (case-insensitive), -1 when none. */
static int find_preset(const char *kind)
{
    for (int i = 0; kind && preset_names[i]; i++) {
        if (strcasecmp(preset_names[i], kind) == 0) {
            return i;
        }
    }
    return -1;
}

static void set_defaults(struct costmodel *m)
{
    m->flops_eff = COSTMODEL_DEFAULT_FLOPS_EFF;
    m->bw_eff = COSTMODEL_DEFAULT_BW_EFF;
    m->launch_us = COSTMODEL_DEFAULT_LAUNCH_US;
}

int costmodel_preset(struct costmodel *m, const char *kind)
{
    int p = find_preset(kind);
    char known[128];

    if (p < 0) {
        return err_set(BAECHI_EINVAL, "unknown device class '%s' for the cost model (known: %s)",
                       kind ? kind : "(none)", gb_join_names(preset_names, known, sizeof(known)));
    }
    set_defaults(m);
    m->kind = preset_names[p];
    m->peak_flops = presets[p].peak_flops;
    m->mem_bw_bytes_per_s = presets[p].mem_bw_bytes_per_s;
    m->datasheet = true;
    return 0;
}

int costmodel_from_device(struct costmodel *m, const struct cluster_device *d)
{
    int i = find_preset(d->kind);
    const struct preset *p = i >= 0 ? &presets[i] : NULL;
    bool has_flops = isfinite(d->peak_flops) && d->peak_flops > 0;
    bool has_bw = isfinite(d->mem_bw_bytes_per_s) && d->mem_bw_bytes_per_s > 0;
    char known[128];

    if (!p && !(has_flops && has_bw)) {
        return err_set(BAECHI_EINVAL,
                       "device '%s': the cost model needs a known kind (%s) or both peak_flops "
                       "and mem_bw",
                       d->name ? d->name : "?", gb_join_names(preset_names, known, sizeof(known)));
    }
    set_defaults(m);
    m->kind = d->kind ? d->kind : d->name;
    m->datasheet = p != NULL;
    m->peak_flops = p ? p->peak_flops : 0;
    m->mem_bw_bytes_per_s = p ? p->mem_bw_bytes_per_s : 0;
    if (has_flops) {
        m->peak_flops = d->peak_flops;
        m->datasheet = false;
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

int costmodel_from_spec(struct costmodel *m, const char *spec, char *kind_buf, size_t kind_len)
{
    struct cluster c;
    char path[4096], perr[512];
    const char *colon = strrchr(spec, ':');
    long dev = 0;
    int rc;

    if (costmodel_preset(m, spec) == 0) {
        return 0;
    }
    snprintf(perr, sizeof(perr), "%s", err_msg());
    snprintf(path, sizeof(path), "%s", spec);
    if (colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1)) {
        dev = strtol(colon + 1, NULL, 10);
        path[colon - spec] = '\0';
    }
    err_clear();
    cluster_init(&c);
    if ((rc = cluster_load(&c, path)) != 0) {
        char cerr[512];

        snprintf(cerr, sizeof(cerr), "%s", err_msg());
        cluster_release(&c);
        if (!strchr(path, '/') && !strstr(path, ".yaml") && !strstr(path, ".yml")) {
            return err_set(BAECHI_EINVAL, "%s", perr); /* meant as a preset kind */
        }
        return err_set(rc, "device '%s': not a cost-model preset, and the cluster: %s", spec, cerr);
    }
    if (dev >= c.n_devices) {
        rc = err_set(BAECHI_EINVAL, "device '%s': cluster '%s' has %d devices (0..%d)", spec,
                     c.name ? c.name : path, (int)c.n_devices, (int)c.n_devices - 1);
    } else if ((rc = costmodel_from_device(m, &c.dev[dev])) == 0) {
        snprintf(kind_buf, kind_len, "%s", m->kind ? m->kind : "calibrated");
        m->kind = kind_buf;
    }
    cluster_release(&c);
    return rc;
}

int costmodel_check(const struct costmodel *m)
{
    if (!(isfinite(m->peak_flops) && m->peak_flops > 0) ||
        !(isfinite(m->mem_bw_bytes_per_s) && m->mem_bw_bytes_per_s > 0)) {
        return err_set(BAECHI_EINVAL, "cost model '%s': peak FLOP/s and bandwidth must be > 0",
                       m->kind ? m->kind : "?");
    }
    if (!(m->flops_eff > 0 && m->flops_eff <= 1) || !(m->bw_eff > 0 && m->bw_eff <= 1)) {
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

int costmodel_apply(const struct costmodel *m, struct workload *w, unsigned flags, int32_t *n_set)
{
    int32_t n = 0;
    int rc;

    if ((rc = costmodel_check(m))) {
        return rc;
    }
    for (int32_t i = 0; i < w->n_ops; i++) {
        struct wl_op *op = &w->op[i];
        double t;

        if (isfinite(op->time_us) && !(flags & COSTMODEL_OVERRIDE)) {
            continue;
        }
        t = costmodel_op_us(m, op->flops, op->bytes);
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
        char src_key[] = "source", dev_key[] = "device", roof[] = "roofline", cal[] = "calibrated";
        char *keys[2] = {src_key, dev_key};
        struct yval items[2] = {
            {.kind = YVAL_SCALAR, .scalar = m->datasheet ? roof : cal},
            {.kind = YVAL_SCALAR, .scalar = (char *)m->kind},
        };
        struct yval v = {.kind = YVAL_MAP, .n = 2, .keys = keys, .items = items};

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
    for (int32_t i = 0; i < w->n_top_ext; i++) {
        const struct yval *v = &w->top_ext[i].val;

        if (strcmp(w->top_ext[i].key, WORKLOAD_TIMES_KEY) != 0 || v->kind != YVAL_MAP) {
            continue;
        }
        for (int32_t j = 0; j < v->n; j++) {
            if (strcmp(v->keys[j], "device") == 0 && v->items[j].kind == YVAL_SCALAR) {
                return v->items[j].scalar;
            }
        }
    }
    return w->reference_device;
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
