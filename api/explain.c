/*
 * explain.c - baechi_explain_memory (include/baechi.h): the memory
 * explanation of `baechi sim --explain-memory --json` as its JSON text.
 *
 * Why JSON and not accessors: the explanation is a nested record (devices,
 * two snapshots each, kinds, top tensors) whose JSON is already the stable
 * contract of the program (docs/explain-memory.md).  One writer
 * (sim/explain_json.c) serves both, so the library can never disagree with
 * the program, and a binding turns it into its own dicts in one call
 * (Python's json.loads) instead of a dozen accessors per level.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "include/baechi.h"

#include "api/internal.h"
#include "core/alloc.h"
#include "core/err.h"
#include "sim/explain.h"
#include "sim/explain_json.h"
#include "sim/sim.h"
#include "sim/symmetry.h"

#include <stdio.h>
#include <stdlib.h>

int baechi_explain_memory(const struct baechi_workload *w, const struct baechi_cluster *c,
                          const struct baechi_placement *p, const char *model,
                          const struct baechi_options *o, char **json)
{
    struct baechi_options defaults;
    struct sim_options so = {.model = SIM_MODEL_TIMED, .trace = NULL};
    struct sim_result r;
    struct mem_explain x;
    struct cluster cw;
    struct graph g;
    int64_t *weights = NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *f;
    int rc;

    *json = NULL;
    if ((rc = api_sim_world(w, c, p, &o, &defaults, model, &so, &g, &weights, &cw)) != 0) {
        return rc;
    }
    sim_result_init(&r);
    mem_explain_init(&x);
    CHECK(sim_symmetry_run(&w->w, &g, &cw, p->p.device_of, &so, &r, NULL));
    CHECK(mem_explain_run(&g, &cw, p->p.device_of, so.model, &r, MEM_EXPLAIN_TOP, &x));
    if (!(f = mem_open_memstream(&text, &len))) {
        rc = err_set(BAECHI_ENOMEM, "out of memory");
        goto cleanup;
    }
    mem_explain_write_json(f, &x, &g, &cw);
    if ((ferror(f) | fclose(f)) || !text) { /* !text: fclose's realloc failed */
        free(text);
        rc = err_set(BAECHI_ENOMEM, "out of memory writing the memory explanation");
        goto cleanup;
    }
    *json = text;
cleanup:
    mem_explain_release(&x);
    sim_result_release(&r);
    free(weights);
    cluster_release(&cw);
    return rc;
}
