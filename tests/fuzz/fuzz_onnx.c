/*
 * fuzz_onnx.c - ONNX import (workloads/onnx_import.c, onnx_shape.c) from
 * memory: import (batch 1 and --batch 7), build the graph, synthesize the
 * training graph, write the workload and read it back.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "tests/fuzz/fuzz.h"

#include "core/graph.h"
#include "core/workload.h"
#include "core/workload_yaml.h"
#include "workloads/onnx_import.h"
#include "workloads/train.h"

#include <string.h>

static int write_w(FILE *f, const void *w)
{
    return workload_write_yaml(w, f);
}

int fuzz_one_input(const uint8_t *data, size_t size)
{
    struct onnx_import_opts o = {size % 2 ? 7 : 0, size % 3 ? ONNX_LOSS_DEFAULT : ONNX_LOSS_NONE};
    struct onnx_import_stats st;
    struct workload w, w2, tr;
    struct train_opts to;
    struct graph g;
    char *text;
    size_t len;
    int rc;

    rc = onnx_import_buffer(&w, data, size, "fuzz.onnx", &o, &st);
    fuzz_check_rejection(rc);
    if (rc) {
        return 0;
    }
    memset(&g, 0, sizeof(g));
    rc = graph_build(&g, &w);
    fuzz_check_rejection(rc);
    graph_release(&g);
    train_opts_init(&to);
    rc = train_synthesize(&tr, &w, &to, NULL);
    fuzz_check_rejection(rc);
    if (rc == 0) {
        workload_release(&tr);
    }
    text = fuzz_write(write_w, &w, &len);
    if ((rc = workload_read_yaml_string(&w2, text, len, "fuzz-written.yaml"))) {
        fuzz_fail("an imported workload written by the suite does not read back", rc);
    }
    workload_release(&w2);
    free(text);
    workload_release(&w);
    return 0;
}
