/*
 * fuzz_profile.c - profiler trace JSON (calibrate/annotate.c) matched to a
 * small fixed workload (tests/data/cal-annotate.yaml): annotate, write the
 * workload back and read it again.  annotate_profile reads a path, so the
 * input goes through a memfd (/proc/self/fd/N), rewritten for each run.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "tests/fuzz/fuzz.h"

#include "calibrate/annotate.h"
#include "core/workload.h"
#include "core/workload_yaml.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const char workload_text[] =
    "format: 1\n"
    "name: cal-annotate\n"
    "ops:\n"
    "  - {name: A, type: MatMul, time_us: 1, outputs: [64]}\n"
    "  - {name: B, type: Add, time_us: 1, outputs: [64], inputs: [\"A:0\"]}\n"
    "  - {name: r1, type: Relu, time_us: 1, outputs: [64], inputs: [\"B:0\"]}\n"
    "  - {name: r2, type: Relu, time_us: 1, outputs: [64], inputs: [\"r1:0\"]}\n"
    "  - {name: D, type: Softmax, time_us: 7, inputs: [\"r2:0\"]}\n";

static int write_w(FILE *f, const void *w)
{
    return workload_write_yaml(w, f);
}

int fuzz_one_input(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    struct annotate_report rep;
    struct workload w, w2;
    char *text;
    size_t len;
    int rc;

    if (fd < 0) {
        if ((fd = memfd_create("baechi-fuzz-profile", 0)) < 0) {
            abort();
        }
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size) {
        abort();
    }
    if (workload_read_yaml_string(&w, workload_text, strlen(workload_text), "w.yaml")) {
        abort();
    }
    rc = annotate_profile(&w, path, &rep);
    fuzz_check_rejection(rc);
    if (rc == 0) {
        annotate_report_release(&rep);
        text = fuzz_write(write_w, &w, &len);
        if ((rc = workload_read_yaml_string(&w2, text, len, "fuzz-written.yaml"))) {
            fuzz_fail("an annotated workload written by the suite does not read back", rc);
        }
        workload_release(&w2);
        free(text);
    }
    workload_release(&w);
    return 0;
}
