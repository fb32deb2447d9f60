/*
 * test_api.c - the public C API (include/baechi.h, api/baechi.c): loading
 * from strings, options by name, placing, simulating with both models and
 * the world of the options, error codes and messages, out-of-range getters.
 * The numbers against `baechi run --json` are checked by tests/python and
 * tests/cli/t020 (the installed library).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include <criterion/criterion.h>

#include "include/baechi.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* A -> B -> C with a fork A -> C; 100 MB outputs, 10 MB of weights on A. */
static const char w_yaml[] = "format: 1\n"
                             "name: tiny\n"
                             "ops:\n"
                             "  - {name: A, type: MatMul, time_us: 100, outputs: [100000000],"
                             " persistent: 10000000}\n"
                             "  - {name: B, type: Relu, time_us: 50, outputs: [100000000],"
                             " inputs: [A]}\n"
                             "  - {name: C, type: Add, time_us: 20, outputs: [4],"
                             " inputs: [A, B]}\n";

static const char c_yaml[] = "format: 1\n"
                             "name: two\n"
                             "devices:\n"
                             "  - {name: g0, memory: 1GB}\n"
                             "  - {name: g1, memory: 1GB}\n";

static void load(struct baechi_workload **w, struct baechi_cluster **c)
{
    baechi_set_warning_handler(NULL, NULL);
    cr_assert_eq(baechi_workload_parse(w_yaml, strlen(w_yaml), "tiny.yaml", w), BAECHI_SUCCESS,
                 "%s", baechi_errmsg());
    cr_assert_eq(baechi_cluster_parse(c_yaml, strlen(c_yaml), "two.yaml", c), BAECHI_SUCCESS, "%s",
                 baechi_errmsg());
}

Test(api, load_from_strings)
{
    struct baechi_workload *w;
    struct baechi_cluster *c;

    load(&w, &c);
    cr_assert_str_eq(baechi_workload_name(w), "tiny");
    cr_assert_eq(baechi_workload_n_ops(w), 3);
    cr_assert_str_eq(baechi_workload_op_name(w, 1), "B");
    cr_assert_null(baechi_workload_op_name(w, 3));
    cr_assert_null(baechi_workload_op_name(w, -1));
    cr_assert_eq(baechi_workload_total_compute_us(w), 170);
    cr_assert_eq(baechi_workload_critical_path_us(w), 170);
    cr_assert_eq(baechi_cluster_n_devices(c), 2);
    cr_assert_str_eq(baechi_cluster_device_name(c, 1), "g1");
    cr_assert_eq(baechi_cluster_device_memory_bytes(c, 0), 1000000000);
    cr_assert_eq(baechi_cluster_device_memory_bytes(c, 2), -1);
    baechi_cluster_free(c);
    baechi_workload_free(w);
    baechi_workload_free(NULL);
    baechi_cluster_free(NULL);
}

Test(api, parse_errors_name_the_file_and_line)
{
    static const char bad[] = "format: 1\nname: x\nops:\n  - {name: A, type: T, time_us: -1}\n";
    struct baechi_workload *w = (void *)1;

    cr_assert_eq(baechi_workload_parse(bad, strlen(bad), "bad.yaml", &w), BAECHI_ERR_PARSE);
    cr_assert_null(w);
    cr_assert(strstr(baechi_errmsg(), "bad.yaml:4") != NULL, "%s", baechi_errmsg());
    cr_assert_eq(baechi_workload_load("/nonexistent/w.yaml", &w), BAECHI_ERR_IO);
    cr_assert(strstr(baechi_errmsg(), "/nonexistent/w.yaml") != NULL, "%s", baechi_errmsg());
}

Test(api, options_by_name)
{
    struct baechi_options *o = baechi_options_new();

    cr_assert_not_null(o);
    cr_assert_eq(baechi_options_set(o, "memory_fraction", "0.5"), BAECHI_SUCCESS);
    cr_assert_eq(baechi_options_set(o, "memory-fraction", "0.25"), BAECHI_SUCCESS);
    cr_assert_eq(baechi_options_set(o, "fusion", "yes"), BAECHI_SUCCESS);
    cr_assert_eq(baechi_options_set(o, "grouper", "coplace"), BAECHI_SUCCESS);
    cr_assert_eq(baechi_options_set(o, "memory_fraction", "0"), BAECHI_ERR_INVAL);
    cr_assert(strstr(baechi_errmsg(), "memory_fraction") != NULL, "%s", baechi_errmsg());
    cr_assert_eq(baechi_options_set(o, "fusion", "maybe"), BAECHI_ERR_INVAL);
    cr_assert_eq(baechi_options_set(o, "devices", "4097"), BAECHI_ERR_INVAL);
    cr_assert_eq(baechi_options_set(o, "grouper", "nope"), BAECHI_ERR_INVAL);
    cr_assert_eq(baechi_options_set(o, "colour", "red"), BAECHI_ERR_INVAL);
    cr_assert(strstr(baechi_errmsg(), "unknown option 'colour'") != NULL, "%s", baechi_errmsg());
    cr_assert_eq(baechi_options_set(o, NULL, "1"), BAECHI_ERR_INVAL);
    baechi_options_free(o);
}

Test(api, place_and_simulate_both_models)
{
    struct baechi_workload *w;
    struct baechi_cluster *c;
    struct baechi_placement *p;
    struct baechi_result *rt, *rb;

    load(&w, &c);
    cr_assert_eq(baechi_place(w, c, "single", NULL, &p), BAECHI_SUCCESS, "%s", baechi_errmsg());
    cr_assert_str_eq(baechi_placement_placer(p), "single");
    cr_assert_eq(baechi_placement_n_ops(p), 3);
    for (int32_t i = 0; i < 3; i++) {
        cr_assert_eq(baechi_placement_device_of(p, i), 0);
    }
    cr_assert_eq(baechi_placement_device_of(p, 3), -1);
    cr_assert_eq(baechi_simulate(w, c, p, "timed", NULL, &rt), BAECHI_SUCCESS, "%s",
                 baechi_errmsg());
    cr_assert_eq(baechi_simulate(w, c, p, "baechi", NULL, &rb), BAECHI_SUCCESS, "%s",
                 baechi_errmsg());
    cr_assert_str_eq(baechi_result_model(rt), "timed");
    cr_assert_str_eq(baechi_result_model(rb), "baechi");
    /* One device: the step is the sum of the compute times. */
    cr_assert_eq(baechi_result_step_us(rt), 170);
    cr_assert_eq(baechi_result_step_us(rb), 170);
    cr_assert_eq(baechi_result_lower_bound_us(rt), 170);
    cr_assert_eq(baechi_result_n_devices(rt), 2);
    cr_assert_eq(baechi_result_n_ops(rt, 0), 3);
    cr_assert_eq(baechi_result_n_ops(rt, 1), 0);
    cr_assert_eq(baechi_result_busy_us(rt, 0), 170);
    cr_assert_eq(baechi_result_oom(rt), 0);
    /* A's and B's outputs and C's are alive together when C runs; the
     * timed model holds A's weights beside its output (a MatMul's output is
     * no variable's value: docs/training-memory.md), the baechi model
     * inside it (out - persistent, the original's rule). */
    cr_assert_eq(baechi_result_peak_bytes(rt, 0), 210000004);
    cr_assert_eq(baechi_result_peak_bytes(rb, 0), 200000004);
    cr_assert_eq(baechi_result_limit_bytes(rt, 0), 1000000000);
    cr_assert_eq(baechi_result_peak_bytes(rt, 2), -1);
    cr_assert_eq(baechi_result_link_bytes(rt, 0, 1), 0);
    cr_assert_eq(baechi_result_link_bytes(rt, 0, 2), -1);
    cr_assert_eq(baechi_result_op_start_us(rt, 2), 150);
    cr_assert_eq(baechi_result_op_end_us(rt, 2), 170);
    cr_assert_eq(baechi_result_op_end_us(rt, 3), -1);
    /* No trace was asked for. */
    cr_assert_eq(baechi_result_write_trace(rt, w, c, "/tmp/never.json"), BAECHI_ERR_INVAL);
    baechi_result_free(rt);
    baechi_result_free(rb);
    baechi_placement_free(p);
    baechi_cluster_free(c);
    baechi_workload_free(w);
}

Test(api, world_of_the_options_and_infeasible)
{
    struct baechi_workload *w;
    struct baechi_cluster *c;
    struct baechi_placement *p = NULL;
    struct baechi_options *o = baechi_options_new();
    struct baechi_result *r;

    load(&w, &c);
    /* 0.1 x 1 GB = 100 MB per device: `single` ignores memory, and the
     * simulation of its placement runs out (the world follows the options
     * the placement was made with). */
    cr_assert_eq(baechi_options_set(o, "memory_fraction", "0.1"), 0);
    cr_assert_eq(baechi_place(w, c, "single", o, &p), BAECHI_SUCCESS, "%s", baechi_errmsg());
    cr_assert_eq(baechi_simulate(w, c, p, NULL, NULL, &r), BAECHI_SUCCESS, "%s", baechi_errmsg());
    cr_assert_eq(baechi_result_limit_bytes(r, 0), 100000000);
    cr_assert_eq(baechi_result_oom(r), 1);
    cr_assert_eq(baechi_result_device_oom(r, 0), 1);
    baechi_result_free(r);
    baechi_placement_free(p);
    /* m-ETF knows it cannot fit A's weights and output in 100 MB. */
    p = (void *)1;
    cr_assert_eq(baechi_place(w, c, "m-etf", o, &p), BAECHI_ERR_INFEASIBLE);
    cr_assert_null(p);
    cr_assert(strstr(baechi_errmsg(), "bytes") != NULL, "%s", baechi_errmsg());
    cr_assert_eq(baechi_place(w, c, "m-eft", NULL, &p), BAECHI_ERR_INVAL);
    cr_assert(strstr(baechi_errmsg(), "unknown placer 'm-eft'") != NULL, "%s", baechi_errmsg());
    baechi_options_free(o);
    baechi_cluster_free(c);
    baechi_workload_free(w);
}

Test(api, placement_round_trip_and_trace)
{
    struct baechi_workload *w;
    struct baechi_cluster *c;
    struct baechi_placement *p, *q;
    struct baechi_options *o = baechi_options_new();
    struct baechi_result *r;
    char dir[] = "/tmp/baechi-api-XXXXXX", path[64], tpath[64];
    FILE *f;
    long n;

    load(&w, &c);
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/p.yaml", dir);
    snprintf(tpath, sizeof(tpath), "%s/t.json", dir);
    cr_assert_eq(baechi_place(w, c, "round-robin", NULL, &p), 0, "%s", baechi_errmsg());
    cr_assert_eq(baechi_placement_write(p, w, path), 0, "%s", baechi_errmsg());
    cr_assert_eq(baechi_placement_load(w, path, &q), 0, "%s", baechi_errmsg());
    for (int32_t i = 0; i < 3; i++) {
        cr_assert_eq(baechi_placement_device_of(q, i), baechi_placement_device_of(p, i));
    }
    cr_assert_eq(baechi_placement_estimate_us(q), -1);
    cr_assert_eq(baechi_options_set(o, "trace", "true"), 0);
    cr_assert_eq(baechi_simulate(w, c, q, "timed", o, &r), 0, "%s", baechi_errmsg());
    cr_assert_eq(baechi_result_write_trace(r, w, c, tpath), 0, "%s", baechi_errmsg());
    cr_assert_not_null(f = fopen(tpath, "r"));
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fclose(f);
    cr_assert_gt(n, 100);
    baechi_result_free(r);
    unlink(path);
    unlink(tpath);
    rmdir(dir);
    baechi_options_free(o);
    baechi_placement_free(q);
    baechi_placement_free(p);
    baechi_cluster_free(c);
    baechi_workload_free(w);
}

/* A placement written through the library carries the world it was made for
 * (placer_run records it, not the CLI): `sim` of the file then sees the
 * devices and memory `run` simulated. */
Test(api, written_placement_records_its_world)
{
    struct baechi_workload *w;
    struct baechi_cluster *c;
    struct baechi_placement *p;
    struct baechi_options *o = baechi_options_new();
    char dir[] = "/tmp/baechi-api-XXXXXX", path[64], text[4096];
    FILE *f;
    size_t n;

    load(&w, &c);
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/p.yaml", dir);
    cr_assert_eq(baechi_options_set(o, "memory_fraction", "0.5"), 0, "%s", baechi_errmsg());
    cr_assert_eq(baechi_options_set(o, "devices", "1"), 0, "%s", baechi_errmsg());
    cr_assert_eq(baechi_place(w, c, "m-etf", o, &p), 0, "%s", baechi_errmsg());
    cr_assert_eq(baechi_placement_write(p, w, path), 0, "%s", baechi_errmsg());
    cr_assert_not_null(f = fopen(path, "r"));
    n = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[n] = 0;
    cr_expect(strstr(text, "\ncluster_hash: ") != NULL, "no cluster_hash in:\n%s", text);
    cr_expect(strstr(text, "\nn_devices: 1\n") != NULL, "no n_devices: 1 in:\n%s", text);
    cr_expect(strstr(text, "\nmemory_fraction: 0.5\n") != NULL, "no memory_fraction in:\n%s", text);
    unlink(path);
    rmdir(dir);
    baechi_options_free(o);
    baechi_placement_free(p);
    baechi_cluster_free(c);
    baechi_workload_free(w);
}

/* A mismatched call fails before the target is opened: the file stays whole. */
Test(api, placement_write_mismatch_leaves_the_file)
{
    static const char w2_yaml[] =
        "format: 1\n"
        "name: two-ops\n"
        "ops:\n"
        "  - {name: A, type: MatMul, time_us: 1, outputs: [8]}\n"
        "  - {name: B, type: Relu, time_us: 1, outputs: [8], inputs: [A]}\n";
    static const char old[] = "keep me\n";
    struct baechi_workload *w, *w2;
    struct baechi_cluster *c;
    struct baechi_placement *p;
    char dir[] = "/tmp/baechi-api-XXXXXX", path[64], buf[64];
    FILE *f;
    size_t n;

    load(&w, &c);
    cr_assert_eq(baechi_workload_parse(w2_yaml, strlen(w2_yaml), "two.yaml", &w2), 0, "%s",
                 baechi_errmsg());
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/p.yaml", dir);
    cr_assert_not_null(f = fopen(path, "w"));
    fputs(old, f);
    fclose(f);
    cr_assert_eq(baechi_place(w, c, "round-robin", NULL, &p), 0, "%s", baechi_errmsg());
    cr_assert_eq(baechi_placement_write(p, w2, path), BAECHI_ERR_INVAL);
    cr_assert_not_null(strstr(baechi_errmsg(), "3 ops"), "%s", baechi_errmsg());
    cr_assert_not_null(f = fopen(path, "r"));
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    cr_assert_str_eq(buf, old);
    /* the matching call replaces it whole, leaving no temporary file */
    cr_assert_eq(baechi_placement_write(p, w, path), 0, "%s", baechi_errmsg());
    cr_assert_eq(unlink(path), 0);
    cr_assert_eq(rmdir(dir), 0, "a temporary file was left in %s", dir);
    baechi_placement_free(p);
    baechi_cluster_free(c);
    baechi_workload_free(w2);
    baechi_workload_free(w);
}

static int n_warnings;

static void count_warning(const char *msg, void *ctx)
{
    (void)msg;
    *(int *)ctx += 1;
}

Test(api, warnings_go_to_the_handler)
{
    struct baechi_workload *w;
    struct baechi_cluster *c;
    struct baechi_placement *p;
    struct baechi_result *r;
    /* A and B share a colocation group but sit on different devices. */
    static const char split[] = "format: 1\nworkload: tiny\nplacer: hand\n"
                                "devices: {A: 0, B: 1, C: 1}\n";
    static const char wg[] = "format: 1\nname: tiny\nops:\n"
                             "  - {name: A, type: T, time_us: 1, outputs: [8], group: g}\n"
                             "  - {name: B, type: T, time_us: 1, outputs: [8], group: g,"
                             " inputs: [A]}\n"
                             "  - {name: C, type: T, time_us: 1, inputs: [B]}\n";

    load(&w, &c);
    baechi_workload_free(w);
    cr_assert_eq(baechi_workload_parse(wg, strlen(wg), "g.yaml", &w), 0, "%s", baechi_errmsg());
    cr_assert_eq(baechi_placement_parse(w, split, strlen(split), "split.yaml", &p), 0, "%s",
                 baechi_errmsg());
    n_warnings = 0;
    baechi_set_warning_handler(count_warning, &n_warnings);
    cr_assert_eq(baechi_simulate(w, c, p, NULL, NULL, &r), 0, "%s", baechi_errmsg());
    baechi_set_warning_handler(NULL, NULL);
    cr_assert_eq(n_warnings, 1);
    baechi_result_free(r);
    baechi_placement_free(p);
    baechi_cluster_free(c);
    baechi_workload_free(w);
}

/* ------------------------------------------------------------ API 1.1 */

static struct baechi_params *params(const char *const *kv)
{
    struct baechi_params *p = baechi_params_new();

    cr_assert_not_null(p);
    for (int i = 0; kv && kv[i]; i += 2) {
        cr_assert_eq(baechi_params_set(p, kv[i], kv[i + 1]), BAECHI_SUCCESS, "%s", baechi_errmsg());
    }
    return p;
}

/* rc of generating `model` with the parameters kv (the handle freed). */
static int generate(const char *model, const char *const *kv)
{
    struct baechi_params *p = params(kv);
    struct baechi_workload *w = (void *)1;
    int rc = baechi_workload_generate(model, p, &w);

    if (rc) {
        cr_assert_null(w);
    }
    baechi_workload_free(w);
    baechi_params_free(p);
    return rc;
}

Test(api, version_minor)
{
    char want[16];

    snprintf(want, sizeof(want), "%d.%d ", BAECHI_API_MAJOR, BAECHI_API_MINOR);
    cr_assert_eq(BAECHI_API_MINOR, 2);
    cr_assert(strncmp(baechi_version(), want, strlen(want)) == 0, "%s", baechi_version());
}

Test(api, generate_models)
{
    static const char *const gpt[] = {"size",      "small", "layers",        "2",  "batch",  "2",
                                      "seq",       "64",    "micro-batches", "2",  "device", "h100",
                                      "optimizer", "adam",  "name",          "g2", NULL};
    static const char *const fwd[] = {"forward_only", "true", "batch", "4", NULL};
    struct baechi_params *p = params(gpt);
    struct baechi_workload *w, *f;

    cr_assert_eq(baechi_workload_generate("gpt", p, &w), BAECHI_SUCCESS, "%s", baechi_errmsg());
    cr_assert_str_eq(baechi_workload_name(w), "g2");
    cr_assert_gt(baechi_workload_n_ops(w), 50);
    cr_assert_gt(baechi_workload_critical_path_us(w), 0);
    baechi_params_free(p);
    p = params(fwd);
    cr_assert_eq(baechi_workload_generate("gnmt", p, &f), BAECHI_SUCCESS, "%s", baechi_errmsg());
    cr_assert_lt(baechi_workload_n_ops(f), 3000);
    baechi_params_free(p);
    baechi_workload_free(f);
    baechi_workload_free(w);
    cr_assert_eq(generate("inception-v3", (const char *const[]){"aux", "1", "batch", "2", NULL}),
                 BAECHI_SUCCESS);
    cr_assert_eq(generate("transformer", (const char *const[]){"size", "base", "layers", "1",
                                                               "forward_only", "yes", NULL}),
                 BAECHI_SUCCESS);
}

Test(api, generate_synthetic)
{
    static const char *const kv[] = {"shape", "fork-join", "ops",        "120", "seed", "4",
                                     "depth", "3",         "group_size", "2",   NULL};
    struct baechi_params *p = params(kv);
    struct baechi_workload *w;

    cr_assert_eq(baechi_workload_generate("synthetic", p, &w), BAECHI_SUCCESS, "%s",
                 baechi_errmsg());
    cr_assert_eq(baechi_workload_n_ops(w), 120);
    baechi_workload_free(w);
    baechi_params_free(p);
    cr_assert_eq(baechi_workload_generate("synthetic", NULL, &w), BAECHI_SUCCESS);
    /* 1,000 ops generated, the dangling ones pruned */
    cr_assert(baechi_workload_n_ops(w) > 900 && baechi_workload_n_ops(w) <= 1000);
    baechi_workload_free(w);
}

Test(api, generate_errors)
{
    struct baechi_workload *w = (void *)1;
    struct baechi_params *p = params(NULL);

    cr_assert_eq(baechi_workload_generate(NULL, NULL, &w), BAECHI_ERR_INVAL);
    cr_assert_null(w);
    cr_assert_neq(generate("nope", NULL), BAECHI_SUCCESS);
    cr_assert(strstr(baechi_errmsg(), "nope") != NULL, "%s", baechi_errmsg());
    cr_assert_eq(generate("gpt", (const char *const[]){"bogus", "1", NULL}), BAECHI_ERR_INVAL);
    cr_assert(strstr(baechi_errmsg(), "unknown parameter 'bogus'") != NULL, "%s", baechi_errmsg());
    cr_assert_eq(generate("gpt", (const char *const[]){"batch", "0", NULL}), BAECHI_ERR_INVAL);
    cr_assert(strstr(baechi_errmsg(), "batch") != NULL, "%s", baechi_errmsg());
    cr_assert_eq(generate("gpt", (const char *const[]){"aux", "maybe", NULL}), BAECHI_ERR_INVAL);
    cr_assert_eq(generate("gpt", (const char *const[]){"ops", "100", NULL}), BAECHI_ERR_INVAL);
    cr_assert(strstr(baechi_errmsg(), "synthetic") != NULL, "%s", baechi_errmsg());
    cr_assert_eq(generate("synthetic", (const char *const[]){"shape", "blob", NULL}),
                 BAECHI_ERR_INVAL);
    cr_assert_eq(generate("gpt", (const char *const[]){"optimizer", "lion", NULL}),
                 BAECHI_ERR_INVAL);
    cr_assert_eq(generate("gpt", (const char *const[]){"micro_batches", "0", NULL}),
                 BAECHI_ERR_INVAL);
    cr_assert_eq(baechi_params_set(p, NULL, "1"), BAECHI_ERR_INVAL);
    cr_assert_eq(baechi_params_set(p, "batch", NULL), BAECHI_ERR_INVAL);
    cr_assert_eq(baechi_params_set(p, "", "1"), BAECHI_ERR_INVAL);
    /* set again: the last value counts */
    cr_assert_eq(baechi_params_set(p, "ops", "0"), BAECHI_SUCCESS);
    cr_assert_eq(baechi_params_set(p, "ops", "30"), BAECHI_SUCCESS);
    cr_assert_eq(baechi_workload_generate("synthetic", p, &w), BAECHI_SUCCESS, "%s",
                 baechi_errmsg());
    cr_assert_eq(baechi_workload_n_ops(w), 30);
    baechi_workload_free(w);
    baechi_params_free(p);
    baechi_params_free(NULL);
}

Test(api, import_onnx_and_train)
{
    static const char *const kv[] = {"train", "true", "batch", "4", "optimizer", "sgd", NULL};
    struct baechi_params *p = params(kv);
    struct baechi_workload *f, *t, *w = (void *)1;

    cr_assert_eq(baechi_workload_import_onnx("tests/data/onnx/lstm.onnx", NULL, &f), BAECHI_SUCCESS,
                 "%s", baechi_errmsg());
    cr_assert_eq(baechi_workload_import_onnx("tests/data/onnx/lstm.onnx", p, &t), BAECHI_SUCCESS,
                 "%s", baechi_errmsg());
    cr_assert_gt(baechi_workload_n_ops(t), baechi_workload_n_ops(f));
    baechi_workload_free(t);
    baechi_params_free(p);
    p = params((const char *const[]){"micro_batches", "2", "device", "a100", NULL});
    cr_assert_eq(baechi_workload_train(f, p, &t), BAECHI_SUCCESS, "%s", baechi_errmsg());
    cr_assert_gt(baechi_workload_n_ops(t), baechi_workload_n_ops(f));
    baechi_workload_free(t);
    baechi_params_free(p);
    p = params((const char *const[]){"batch", "2", NULL});
    cr_assert_eq(baechi_workload_train(f, p, &w), BAECHI_ERR_INVAL);
    cr_assert_null(w);
    cr_assert(strstr(baechi_errmsg(), "batch") != NULL, "%s", baechi_errmsg());
    baechi_params_free(p);
    baechi_workload_free(f);
    cr_assert_eq(baechi_workload_import_onnx("/nonexistent/m.onnx", NULL, &w), BAECHI_ERR_IO);
    cr_assert_eq(baechi_workload_import_onnx("tests/data/onnx/bad-missing-input.onnx", NULL, &w),
                 BAECHI_ERR_PARSE);
    cr_assert_eq(baechi_workload_import_onnx(NULL, NULL, &w), BAECHI_ERR_INVAL);
    p = params((const char *const[]){"device", "nowhere", NULL});
    cr_assert_eq(baechi_workload_import_onnx("tests/data/onnx/lstm.onnx", p, &w), BAECHI_ERR_INVAL);
    cr_assert_null(w);
    baechi_params_free(p);
}

Test(api, explain_memory)
{
    struct baechi_workload *w;
    struct baechi_cluster *c;
    struct baechi_placement *p;
    char *json = (void *)1;

    load(&w, &c);
    cr_assert_eq(baechi_place(w, c, "single", NULL, &p), BAECHI_SUCCESS, "%s", baechi_errmsg());
    cr_assert_eq(baechi_explain_memory(w, c, p, NULL, NULL, &json), BAECHI_SUCCESS, "%s",
                 baechi_errmsg());
    cr_assert(strncmp(json, "[{\"id\": 0, \"name\": \"g0\",", 24) == 0, "%s", json);
    cr_assert(strstr(json, "\"parameters\": 10000000") != NULL, "%s", json);
    cr_assert(strstr(json, "\"oom\": null") != NULL, "%s", json);
    baechi_free(json);
    cr_assert_eq(baechi_explain_memory(w, c, p, "baechi", NULL, &json), BAECHI_SUCCESS);
    baechi_free(json);
    cr_assert_eq(baechi_explain_memory(w, c, p, "nope", NULL, &json), BAECHI_ERR_INVAL);
    cr_assert_null(json);
    baechi_free(NULL);
    baechi_placement_free(p);
    baechi_cluster_free(c);
    baechi_workload_free(w);
}

Test(api, report_json)
{
    static const char *const where[] = {"placer=single", NULL};
    static const char *const bad[] = {"bogus=1", NULL};
    struct baechi_workload *w;
    struct baechi_cluster *c;
    struct baechi_placement *p;
    char dir[] = "/tmp/test-api-XXXXXX", db[64], *json = (void *)1;

    cr_assert_not_null(mkdtemp(dir));
    snprintf(db, sizeof(db), "%s/r.db", dir);
    cr_assert_eq(baechi_report_json(db, NULL, NULL, &json), BAECHI_ERR_IO);
    cr_assert_null(json);
    load(&w, &c);
    cr_assert_eq(baechi_place(w, c, "single", NULL, &p), BAECHI_SUCCESS);
    cr_assert_eq(baechi_db_store(db, w, c, p, NULL), BAECHI_SUCCESS, "%s", baechi_errmsg());
    cr_assert_eq(baechi_report_json(db, NULL, NULL, &json), BAECHI_SUCCESS, "%s", baechi_errmsg());
    cr_assert(strncmp(json, "{\"columns\": [", 13) == 0, "%s", json);
    cr_assert(strstr(json, "\"model\": \"baechi\"") != NULL, "%s", json);
    baechi_free(json);
    cr_assert_eq(baechi_report_json(db, where, "timed", &json), BAECHI_SUCCESS, "%s",
                 baechi_errmsg());
    cr_assert_null(strstr(json, "\"model\": \"baechi\""), "%s", json);
    baechi_free(json);
    cr_assert_eq(baechi_report_json(db, bad, NULL, &json), BAECHI_ERR_INVAL);
    cr_assert(strstr(baechi_errmsg(), "bogus") != NULL, "%s", baechi_errmsg());
    cr_assert_eq(baechi_report_json(db, NULL, "nope", &json), BAECHI_ERR_INVAL);
    cr_assert_eq(baechi_report_json(NULL, NULL, NULL, &json), BAECHI_ERR_INVAL);
    baechi_placement_free(p);
    baechi_cluster_free(c);
    baechi_workload_free(w);
    unlink(db);
    rmdir(dir);
}
