/*
 * explain.c - printing the memory explanation (see explain.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "cli/explain.h"

#include "core/units.h"
#include "sim/explain_json.h"
#include "sim/sim.h"

#include <inttypes.h>

static void text_snapshot(FILE *f, const struct mem_snapshot *s, int64_t limit,
                          const struct graph *g, const char *what)
{
    char a[48], b[48], lim[48];

    units_fmt_bytes(s->total_bytes, a, sizeof(a));
    units_fmt_us((double)s->time_us, b, sizeof(b));
    units_fmt_bytes(limit, lim, sizeof(lim));
    fprintf(f, "  %s: %s of %s at %s", what, a, lim, b);
    if (limit > 0 && s->total_bytes > limit) {
        units_fmt_bytes(s->total_bytes - limit, lim, sizeof(lim));
        fprintf(f, " (over by %s)", lim);
    }
    if (s->at_op >= 0) {
        fprintf(f, " (allocation of '%s')", g->op_name[s->at_op]);
    }
    fprintf(f, ", %d live allocation%s\n", s->n_live, s->n_live == 1 ? "" : "s");
    if (s->total_bytes <= 0) {
        return;
    }
    fputs("    by kind:", f);
    for (int k = 0; k < MEM_KIND_N; k++) {
        if (s->kind_bytes[k] == 0) {
            continue;
        }
        units_fmt_bytes(s->kind_bytes[k], a, sizeof(a));
        fprintf(f, "  %s %s (%.1f %%)", mem_kind_name(k), a,
                100.0 * (double)s->kind_bytes[k] / (double)s->total_bytes);
    }
    fputc('\n', f);
    fprintf(f, "    %12s  %-11s  %12s  %s\n", "bytes", "kind", "live since", "tensor");
    for (int32_t i = 0; i < s->n_top; i++) {
        const struct mem_live *l = &s->top[i];
        char t[96];

        units_fmt_bytes(l->bytes, a, sizeof(a));
        units_fmt_us((double)l->since_us, b, sizeof(b));
        if (l->tensor >= 0) {
            graph_tensor_name(g, l->tensor, t, sizeof(t));
        }
        fprintf(f, "    %12s  %-11s  %12s  %s%s\n", a, mem_kind_name(l->kind), b,
                l->tensor >= 0 ? "copy of " : "", l->tensor >= 0 ? t : g->op_name[l->op]);
    }
    if (s->n_live > s->n_top) {
        fprintf(f, "    ... %d smaller allocations\n", s->n_live - s->n_top);
    }
}

void explain_print_text(FILE *f, const struct mem_explain *x, const struct graph *g,
                        const struct cluster *c)
{
    fprintf(f,
            "memory at the peak (%s model; kinds: parameters, optimizer state, gradients, "
            "activations saved for backward, other activations, received copies, temp):\n",
            sim_model_name(x->model));
    for (int32_t d = 0; d < x->n_devices; d++) {
        fprintf(f, "%s\n", c->dev[d].name);
        text_snapshot(f, &x->dev[d].peak, x->dev[d].limit_bytes, g, "peak");
        if (x->dev[d].oom.valid) {
            text_snapshot(f, &x->dev[d].oom, x->dev[d].limit_bytes, g,
                          "OUT OF MEMORY at the first over-limit allocation");
        }
    }
}

void explain_print_json(FILE *f, const struct mem_explain *x, const struct graph *g,
                        const struct cluster *c)
{
    mem_explain_write_json(f, x, g, c);
}
