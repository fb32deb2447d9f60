/*
 * test_annotate.c - profile import (calibrate/annotate.h) on a small
 * PyTorch-profiler-style Chrome trace, tests/data/cal-trace.json.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "calibrate/annotate.h"
#include "core/err.h"
#include "core/workload_yaml.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#define W_PATH "tests/data/cal-annotate.yaml"
#define T_PATH "tests/data/cal-trace.json"

static double time_of(const struct workload *w, const char *name)
{
    int32_t i = workload_find(w, name);

    cr_assert(i >= 0, "no op %s", name);
    return w->op[i].time_us;
}

Test(annotate, matches_by_rules)
{
    struct workload w;
    struct annotate_report r;

    cr_assert_eq(workload_read_yaml(&w, W_PATH), 0, "%s", err_msg());
    cr_assert_eq(annotate_profile(&w, T_PATH, &r), 0, "%s", err_msg());
    /* A: host annotation, kernels launched inside it: median(12.5 + 2.5, 17.5 + 2.5) */
    cr_assert_float_eq(time_of(&w, "A"), 17.5, 1e-9);
    cr_assert_eq(r.rule[workload_find(&w, "A")], ANNOTATE_HOST_NAME);
    /* B: the GPU annotation wins over the host one */
    cr_assert_float_eq(time_of(&w, "B"), 33.0, 1e-9);
    cr_assert_eq(r.rule[workload_find(&w, "B")], ANNOTATE_GPU_NAME);
    /* r1, r2: type Relu -> aten::relu events in time order, their kernels */
    cr_assert_float_eq(time_of(&w, "r1"), 3.0, 1e-9);
    cr_assert_float_eq(time_of(&w, "r2"), 5.0, 1e-9);
    cr_assert_eq(r.rule[workload_find(&w, "r2")], ANNOTATE_TYPE);
    /* D: unmatched, keeps its time */
    cr_assert_float_eq(time_of(&w, "D"), 7.0, 1e-9);
    cr_assert_eq(r.n_ops, 5);
    cr_assert_eq(r.n_matched, 4);
    cr_assert_eq(r.by_rule[ANNOTATE_NONE], 1);
    cr_assert_eq(r.unmatched[0], workload_find(&w, "D"));
    cr_assert_eq(r.n_events, 17); /* the instant event is not counted */
    cr_assert_eq(r.n_gpu_events, 6);
    annotate_report_release(&r);
    workload_release(&w);
}

Test(annotate, host_time_without_gpu_events)
{
    const char *trace = "[{\"ph\": \"X\", \"name\": \"A\", \"ts\": 0, \"dur\": 41, \"pid\": 1, "
                        "\"tid\": 1},"
                        " {\"ph\": \"X\", \"name\": \"A\", \"ts\": 100, \"dur\": 45, \"pid\": 1, "
                        "\"tid\": 1},"
                        " {\"ph\": \"X\", \"name\": \"A\", \"ts\": 200, \"dur\": 60, \"pid\": 1, "
                        "\"tid\": 1}]";
    char path[] = "/tmp/baechi-annotate-XXXXXX";
    int fd = mkstemp(path);
    FILE *f;
    struct workload w;
    struct annotate_report r;

    cr_assert(fd >= 0);
    f = fdopen(fd, "w");
    fputs(trace, f);
    fclose(f);
    cr_assert_eq(workload_read_yaml(&w, W_PATH), 0);
    cr_assert_eq(annotate_profile(&w, path, &r), 0, "%s", err_msg());
    cr_assert_float_eq(time_of(&w, "A"), 45.0, 1e-9); /* median of 3 steps, a bare array */
    cr_assert_eq(r.n_matched, 1);
    annotate_report_release(&r);
    workload_release(&w);
    remove(path);
}

Test(annotate, errors_name_the_file)
{
    char path[] = "/tmp/baechi-annotate-XXXXXX";
    int fd = mkstemp(path);
    FILE *f;
    struct workload w;
    struct annotate_report r;

    err_set_quiet(1);
    cr_assert(fd >= 0);
    f = fdopen(fd, "w");
    fputs("{\"traceEvents\": [\n  {\"ph\": \"X\",, }\n]}", f);
    fclose(f);
    cr_assert_eq(workload_read_yaml(&w, W_PATH), 0);
    cr_assert_eq(annotate_profile(&w, path, &r), BAECHI_EPARSE);
    cr_assert(strstr(err_msg(), path) != NULL && strstr(err_msg(), ":2:") != NULL, "%s", err_msg());
    cr_assert_eq(annotate_profile(&w, "/nonexistent/trace.json", &r), BAECHI_EIO);
    f = fopen(path, "w");
    fputs("{\"events\": []}", f);
    fclose(f);
    cr_assert_eq(annotate_profile(&w, path, &r), BAECHI_EPARSE);
    cr_assert(strstr(err_msg(), "traceEvents") != NULL, "%s", err_msg());
    f = fopen(path, "w");
    fputs("[{\"ph\": \"X\", \"name\": \"A\", \"ts\": 1}]", f);
    fclose(f);
    cr_assert_eq(annotate_profile(&w, path, &r), BAECHI_EPARSE);
    cr_assert(strstr(err_msg(), "dur") != NULL, "%s", err_msg());
    cr_assert_float_eq(time_of(&w, "A"), 1.0, 1e-12); /* untouched after errors */
    workload_release(&w);
    remove(path);
}
