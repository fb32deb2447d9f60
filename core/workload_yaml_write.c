/*
 * workload_yaml_write.c - writes workload files (format 1) in the canonical
 * layout (see workload_yaml.h; the reader is workload_yaml.c).  Moved out of
 * workload_yaml.c when its reader grew (issue 22), unchanged.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/workload_yaml.h"

#include "core/array.h"
#include "core/err.h"
#include "core/yio.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void write_op(struct ywr *y, const struct workload *w, int32_t i, char **buf, size_t *alloc)
{
    const struct wl_op *op = &w->op[i];
    static const char *const phases[] = {"forward", "backward", "update"};

    ywr_map_start(y, true);
    ywr_scalar(y, "name", YWR_PLAIN);
    ywr_scalar(y, op->name, YWR_ANY);
    ywr_scalar(y, "type", YWR_PLAIN);
    ywr_scalar(y, op->type, YWR_ANY);
    if (!isnan(op->time_us)) {
        ywr_scalar(y, "time_us", YWR_PLAIN);
        ywr_double(y, op->time_us);
    }
    if (!isnan(op->flops)) {
        ywr_scalar(y, "flops", YWR_PLAIN);
        ywr_double(y, op->flops);
    }
    if (!isnan(op->bytes)) {
        ywr_scalar(y, "bytes", YWR_PLAIN);
        ywr_double(y, op->bytes);
    }
    ywr_scalar(y, "outputs", YWR_PLAIN);
    ywr_seq_start(y, true);
    for (int32_t k = 0; k < op->n_out; k++) {
        ywr_int(y, w->out_bytes[op->out_off + k]);
    }
    ywr_seq_end(y);
    if (op->temp != 0) {
        ywr_scalar(y, "temp", YWR_PLAIN);
        ywr_int(y, op->temp);
    }
    if (op->persistent != 0) {
        ywr_scalar(y, "persistent", YWR_PLAIN);
        ywr_int(y, op->persistent);
    }
    if (op->group) {
        ywr_scalar(y, "group", YWR_PLAIN);
        ywr_scalar(y, op->group, YWR_ANY);
    }
    if (op->device >= 0) {
        ywr_scalar(y, "device", YWR_PLAIN);
        ywr_int(y, op->device);
    }
    if (op->has_phase || op->phase != PHASE_FORWARD) {
        ywr_scalar(y, "phase", YWR_PLAIN);
        ywr_scalar(y, phases[op->phase], YWR_PLAIN);
    }
    if (op->n_in > 0) {
        ywr_scalar(y, "inputs", YWR_PLAIN);
        ywr_seq_start(y, true);
        for (int32_t k = 0; k < op->n_in; k++) {
            const struct wl_input *in = &w->input[op->in_off + k];
            const char *p;
            size_t need;

            if (in->producer < 0 || in->producer >= w->n_ops) {
                y->rc = err_set(BAECHI_EINVAL, "op '%s': input %d names no op", op->name, k);
                return;
            }
            p = w->op[in->producer].name;
            need = strlen(p) + 16;
            if (ARRAY_RESERVE(*buf, *alloc, need)) {
                y->rc = BAECHI_ENOMEM;
                return;
            }
            if (in->port == WL_PORT_CONTROL) {
                snprintf(*buf, need, "^%s", p);
            } else {
                snprintf(*buf, need, "%s:%d", p, in->port);
            }
            ywr_scalar(y, *buf, YWR_QUOTED);
        }
        ywr_seq_end(y);
    }
    for (int32_t k = 0; k < op->n_ext; k++) {
        const struct wl_ext *e = &w->ext[op->ext_off + k];

        ywr_scalar(y, e->key, YWR_ANY);
        ywr_yval(y, &e->val);
    }
    ywr_map_end(y);
}

int workload_write_yaml(const struct workload *w, FILE *f)
{
    struct ywr y;
    char *buf = NULL;
    size_t alloc = 0;

    /* One rule for the reader and the writer: what workload_read_yaml()
     * would reject (an inf or 1e300 time_us, a negative size) is never
     * written; nothing reaches the file. */
    if (workload_check(w)) {
        return BAECHI_EINVAL;
    }
    if (ywr_open(&y, f)) {
        return ywr_close(&y);
    }
    ywr_map_start(&y, false);
    ywr_scalar(&y, "format", YWR_PLAIN);
    ywr_int(&y, WORKLOAD_FORMAT);
    ywr_scalar(&y, "name", YWR_PLAIN);
    ywr_scalar(&y, w->name ? w->name : "unnamed", YWR_ANY);
    if (w->description) {
        ywr_scalar(&y, "description", YWR_PLAIN);
        ywr_scalar(&y, w->description, YWR_LITERAL);
    }
    if (w->source) {
        ywr_scalar(&y, "source", YWR_PLAIN);
        ywr_scalar(&y, w->source, YWR_LITERAL);
    }
    if (w->reference_device) {
        ywr_scalar(&y, "reference_device", YWR_PLAIN);
        ywr_scalar(&y, w->reference_device, YWR_ANY);
    }
    for (int32_t i = 0; i < w->n_top_ext; i++) {
        ywr_scalar(&y, w->top_ext[i].key, YWR_ANY);
        ywr_yval(&y, &w->top_ext[i].val);
    }
    ywr_scalar(&y, "ops", YWR_PLAIN);
    ywr_seq_start(&y, false);
    for (int32_t i = 0; i < w->n_ops && y.rc == 0; i++) {
        write_op(&y, w, i, &buf, &alloc);
    }
    ywr_seq_end(&y);
    ywr_map_end(&y);
    free(buf);
    return ywr_close(&y);
}
