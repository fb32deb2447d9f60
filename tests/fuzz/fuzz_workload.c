/*
 * fuzz_workload.c - workload YAML (core/workload_yaml.c): read (the same
 * verdict with libyaml alone as with the fast reader of the ops), build the
 * graph, write back and read again.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "tests/fuzz/fuzz.h"

#include "core/graph.h"
#include "core/workload.h"
#include "core/workload_yaml.h"

#include <string.h>

static int write_w(FILE *f, const void *w)
{
    return workload_write_yaml(w, f);
}

int fuzz_one_input(const uint8_t *data, size_t size)
{
    struct workload w, w2;
    struct graph g;
    char *text;
    size_t len;
    int rc;

    rc = workload_read_yaml_string(&w, (const char *)data, size, "fuzz.yaml");
    fuzz_check_rejection(rc);
    /* the fast reader of the ops never changes a verdict (libyaml's alone) */
    if (workload_read_yaml_mode(&w2, (const char *)data, size, "fuzz.yaml", WORKLOAD_READ_LIBYAML,
                                NULL) != rc) {
        fuzz_fail("the fast reader and libyaml disagree on the verdict", rc);
    }
    workload_release(&w2);
    if (rc) {
        return 0;
    }
    memset(&g, 0, sizeof(g));
    rc = graph_build(&g, &w);
    fuzz_check_rejection(rc);
    if (rc == 0 && (rc = graph_check(&g))) {
        fuzz_fail("graph_build made a graph that graph_check rejects", rc);
    }
    graph_release(&g);
    text = fuzz_write(write_w, &w, &len);
    if ((rc = workload_read_yaml_string(&w2, text, len, "fuzz-written.yaml"))) {
        fuzz_fail("a workload written by the suite does not read back", rc);
    }
    workload_release(&w2);
    free(text);
    workload_release(&w);
    return 0;
}
