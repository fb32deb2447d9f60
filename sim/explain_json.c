/*
 * explain_json.c - the memory explanation as JSON (see explain_json.h);
 * moved here from cli/explain.c unchanged, so that the C API writes it too.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "sim/explain_json.h"

#include "core/json_out.h"

#include <inttypes.h>

static void json_snapshot(FILE *f, const struct mem_snapshot *s, const struct graph *g)
{
    fprintf(f, "{\"time_us\": %" PRId64 ", \"at_op\": ", s->time_us);
    if (s->at_op >= 0) {
        json_out_str(f, g->op_name[s->at_op]);
    } else {
        fputs("null", f);
    }
    fprintf(f, ", \"total_bytes\": %" PRId64 ", \"n_live\": %d, \"by_kind\": {", s->total_bytes,
            s->n_live);
    for (int k = 0; k < MEM_KIND_N; k++) {
        fprintf(f, "%s\"%s\": %" PRId64, k ? ", " : "", mem_kind_name(k), s->kind_bytes[k]);
    }
    fputs("}, \"top\": [", f);
    for (int32_t i = 0; i < s->n_top; i++) {
        const struct mem_live *l = &s->top[i];

        fputs(i ? ", {\"op\": " : "{\"op\": ", f);
        json_out_str(f, g->op_name[l->op]);
        fputs(", \"tensor\": ", f);
        if (l->tensor >= 0) {
            graph_tensor_name_json(g, l->tensor, f); /* whole: a char[96] cut it */
        } else {
            fputs("null", f);
        }
        fprintf(f, ", \"kind\": \"%s\", \"bytes\": %" PRId64 ", \"since_us\": %" PRId64 "}",
                mem_kind_name(l->kind), l->bytes, l->since_us);
    }
    fputs("]}", f);
}

void mem_explain_write_json(FILE *f, const struct mem_explain *x, const struct graph *g,
                            const struct cluster *c)
{
    fputc('[', f);
    for (int32_t d = 0; d < x->n_devices; d++) {
        fprintf(f, "%s{\"id\": %d, \"name\": ", d ? ", " : "", (int)d);
        json_out_str(f, c->dev[d].name);
        fprintf(f, ", \"limit_bytes\": %" PRId64, x->dev[d].limit_bytes);
        fputs(", \"peak\": ", f);
        json_snapshot(f, &x->dev[d].peak, g);
        fputs(", \"oom\": ", f);
        if (x->dev[d].oom.valid) {
            json_snapshot(f, &x->dev[d].oom, g);
        } else {
            fputs("null", f);
        }
        fputc('}', f);
    }
    fputc(']', f);
}
