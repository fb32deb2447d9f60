/*
 * fuzz_placement.c - placement YAML (core/placement.c) against a small
 * fixed workload (tests/data/t1.yaml plus an op that graph_build prunes) and
 * cluster: read, check against the cluster, write back, read again.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "tests/fuzz/fuzz.h"

#include "core/cluster.h"
#include "core/graph.h"
#include "core/placement.h"
#include "core/workload.h"
#include "core/workload_yaml.h"

#include <string.h>

static const char workload_text[] =
    "format: 1\n"
    "name: t1\n"
    "ops:\n"
    "  - {name: A, type: Op, time_us: 10, outputs: [100], temp: 50, device: 0}\n"
    "  - {name: B, type: Op, time_us: 5, outputs: [20], inputs: [\"A:0\"], device: 1}\n"
    "  - {name: C, type: Op, time_us: 3, temp: 10, inputs: [\"A:0\", \"B:0\"], device: 0}\n";

static const char cluster_text[] = "format: 1\n"
                                   "name: two\n"
                                   "devices:\n"
                                   "  - {name: gpu0, memory: 1000}\n"
                                   "  - {name: gpu1, memory: 1000}\n";

static struct workload w;
static struct graph g;
static struct cluster c;

static void setup(void)
{
    static int done;

    if (done) {
        return;
    }
    done = 1;
    if (workload_read_yaml_string(&w, workload_text, strlen(workload_text), "t1.yaml") ||
        graph_build(&g, &w) ||
        cluster_read_yaml_string(&c, cluster_text, strlen(cluster_text), "two.yaml")) {
        fprintf(stderr, "fuzz_placement: setup: %s\n", err_msg());
        abort();
    }
}

struct wctx {
    const struct placement *p;
};

static int write_p(FILE *f, const void *ctx)
{
    return placement_write_yaml(((const struct wctx *)ctx)->p, &g, f);
}

int fuzz_one_input(const uint8_t *data, size_t size)
{
    struct placement p, p2;
    struct wctx ctx;
    char *text;
    size_t len;
    int rc;

    setup();
    rc = placement_read_yaml_string(&p, &g, &w, (const char *)data, size, "fuzz.yaml");
    fuzz_check_rejection(rc);
    /* the fast devices lines never change a verdict or a device (libyaml's alone) */
    if (placement_read_yaml_mode(&p2, &g, &w, (const char *)data, size, "fuzz.yaml",
                                 PLACEMENT_READ_LIBYAML) != rc ||
        (rc == 0 && memcmp(p.device_of, p2.device_of, (size_t)g.n_ops * sizeof(int32_t)) != 0)) {
        fuzz_fail("the fast devices lines and libyaml disagree", rc);
    }
    if (rc == 0) {
        placement_release(&p2);
    }
    if (rc) {
        return 0;
    }
    fuzz_check_rejection(placement_check(&p, &g, &c));
    ctx.p = &p;
    text = fuzz_write(write_p, &ctx, &len);
    if ((rc = placement_read_yaml_string(&p2, &g, &w, text, len, "fuzz-written.yaml"))) {
        fuzz_fail("a placement written by the suite does not read back", rc);
    }
    placement_release(&p2);
    free(text);
    placement_release(&p);
    return 0;
}
