/*
 * test_workload_yaml.c - the workload file reader and writer
 * (core/workload_yaml.c; format: workload-format.md, docs/formats.md):
 * GNMT loads, lossless round trips, every validation rule with its message.
 */
#include "core/alloc.h"
#include "core/err.h"
#include "core/strmap.h"
#include "core/workload.h"
#include "core/workload_yaml.h"
#include "core/yio.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GNMT "data/workloads/gnmt_v2/gnmt_v2_b128_fwd.yaml"
#define ALL  "tests/data/fmt-all-features.yaml"

static bool same_double(double a, double b)
{
    return (isnan(a) && isnan(b)) || a == b;
}

static bool same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Field-by-field equality of two workloads (everything but path). */
static void assert_same_workload(const struct workload *a, const struct workload *b)
{
    cr_assert_str_eq(a->name, b->name);
    cr_assert(same_str(a->description, b->description));
    cr_assert(same_str(a->source, b->source));
    cr_assert(same_str(a->reference_device, b->reference_device));
    cr_assert_eq(a->n_top_ext, b->n_top_ext);
    for (int32_t i = 0; i < a->n_top_ext; i++) {
        cr_assert_str_eq(a->top_ext[i].key, b->top_ext[i].key);
        cr_assert(yval_equal(&a->top_ext[i].val, &b->top_ext[i].val), "top ext %s",
                  a->top_ext[i].key);
    }
    cr_assert_eq(a->n_ops, b->n_ops);
    for (int32_t i = 0; i < a->n_ops; i++) {
        const struct wl_op *x = &a->op[i], *y = &b->op[i];

        cr_assert_str_eq(x->name, y->name);
        cr_assert_str_eq(x->type, y->type);
        cr_assert(same_double(x->time_us, y->time_us), "op %s time", x->name);
        cr_assert(same_double(x->flops, y->flops), "op %s flops", x->name);
        cr_assert(same_double(x->bytes, y->bytes), "op %s bytes", x->name);
        cr_assert_eq(x->temp, y->temp);
        cr_assert_eq(x->persistent, y->persistent);
        cr_assert(same_str(x->group, y->group), "op %s group", x->name);
        cr_assert_eq(x->phase, y->phase);
        cr_assert_eq(x->has_phase, y->has_phase);
        cr_assert_eq(x->device, y->device);
        cr_assert_eq(x->n_out, y->n_out);
        for (int32_t k = 0; k < x->n_out; k++) {
            cr_assert_eq(a->out_bytes[x->out_off + k], b->out_bytes[y->out_off + k]);
        }
        cr_assert_eq(x->n_in, y->n_in);
        for (int32_t k = 0; k < x->n_in; k++) {
            cr_assert_eq(a->input[x->in_off + k].producer, b->input[y->in_off + k].producer);
            cr_assert_eq(a->input[x->in_off + k].port, b->input[y->in_off + k].port);
        }
        cr_assert_eq(x->n_ext, y->n_ext);
        for (int32_t k = 0; k < x->n_ext; k++) {
            cr_assert_str_eq(a->ext[x->ext_off + k].key, b->ext[y->ext_off + k].key);
            cr_assert(yval_equal(&a->ext[x->ext_off + k].val, &b->ext[y->ext_off + k].val),
                      "op %s ext %s", x->name, a->ext[x->ext_off + k].key);
        }
    }
}

/* Writes w into a malloc'ed string. */
static char *write_to_string(const struct workload *w, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);

    cr_assert_not_null(f);
    cr_assert_eq(workload_write_yaml(w, f), 0, "%s", err_msg());
    fclose(f);
    return buf;
}

/* read file -> write -> read -> compare -> write -> same bytes */
static void round_trip(const char *path)
{
    struct workload a, b, c;
    char *t1, *t2;
    size_t n1, n2;

    cr_assert_eq(workload_read_yaml(&a, path), 0, "%s", err_msg());
    t1 = write_to_string(&a, &n1);
    cr_assert_eq(workload_read_yaml_string(&b, t1, n1, "written.yaml"), 0, "%s\n%s", err_msg(), t1);
    assert_same_workload(&a, &b);
    t2 = write_to_string(&b, &n2);
    cr_assert_eq(n1, n2);
    cr_assert_eq(memcmp(t1, t2, n1), 0, "second write differs");
    cr_assert_eq(workload_read_yaml_string(&c, t2, n2, "again.yaml"), 0, "%s", err_msg());
    assert_same_workload(&a, &c);
    free(t1);
    free(t2);
    workload_release(&a);
    workload_release(&b);
    workload_release(&c);
}

Test(workload_yaml, gnmt_loads)
{
    struct workload w;
    double sum = 0;

    cr_assert_eq(workload_read_yaml(&w, GNMT), 0, "%s", err_msg());
    cr_assert_eq(w.n_ops, 2828);
    cr_assert_str_eq(w.name, "gnmt_v2_b128_fwd");
    cr_assert_str_eq(w.path, GNMT);
    cr_assert_str_eq(w.op[0].name, "dataset/tensors/component_0");
    cr_assert(isnan(w.op[0].time_us));
    cr_assert_eq(w.op[0].n_ext, 1);
    cr_assert_str_eq(w.ext[w.op[0].ext_off].key, "x-profiled");
    cr_assert_str_eq(w.ext[w.op[0].ext_off].val.scalar, "false");
    cr_assert_eq(w.op[4].time_us, 18);
    cr_assert_eq(w.op[0].line, 10);
    cr_assert_eq(w.op[0].col, 5);
    for (int32_t i = 0; i < w.n_ops; i++) {
        if (!isnan(w.op[i].time_us)) {
            sum += w.op[i].time_us;
        }
    }
    /* Σ compute ≈ 115.9 ms (DESIGN.md reference numbers) */
    cr_assert(sum > 115.8e3 && sum < 116.0e3, "sum %f", sum);
    workload_release(&w);
}

Test(workload_yaml, gnmt_round_trip)
{
    round_trip(GNMT);
}

Test(workload_yaml, all_features_round_trip)
{
    round_trip(ALL);
}

Test(workload_yaml, all_features_values)
{
    struct workload w;
    const struct wl_op *mm, *init, *n123;
    const struct wl_input *in;
    int32_t i;

    cr_assert_eq(workload_read_yaml(&w, ALL), 0, "%s", err_msg());
    cr_assert_eq(w.n_ops, 6);
    cr_assert_str_eq(w.description, "Two lines of text,\nwith a trailing newline.\n");
    cr_assert_str_eq(w.reference_device, "rtx2080ti");
    cr_assert_eq(w.n_top_ext, 3);
    cr_assert_eq(w.top_ext[0].val.kind, YVAL_MAP);
    cr_assert_eq(w.top_ext[0].val.n, 3);
    cr_assert_eq(w.top_ext[0].val.items[1].kind, YVAL_SEQ);
    cr_assert(w.top_ext[0].val.items[1].items[1].quoted);
    cr_assert(!w.top_ext[0].val.items[1].items[0].quoted);
    cr_assert(w.top_ext[1].val.quoted);
    i = workload_find(&w, "matmul");
    cr_assert_eq(i, 2);
    mm = &w.op[i];
    cr_assert_eq(mm->time_us, 12.5);
    cr_assert_eq(mm->flops, 2.1e9);
    cr_assert_eq(mm->bytes, 8.4e6);
    cr_assert_eq(mm->temp, 512);
    cr_assert_str_eq(mm->group, "layer1");
    cr_assert_eq(mm->device, -1);
    cr_assert_eq(mm->n_in, 4);
    in = &w.input[mm->in_off];
    cr_assert_eq(in[0].producer, 0); /* "input:0" */
    cr_assert_eq(in[0].port, 0);
    cr_assert_eq(in[1].producer, 1); /* "weights" = port 0 */
    cr_assert_eq(in[1].port, 0);
    cr_assert_eq(in[2].producer, 4); /* "^init", defined later */
    cr_assert_eq(in[2].port, WL_PORT_CONTROL);
    cr_assert_eq(in[3].producer, 3); /* "later:1", defined later */
    cr_assert_eq(in[3].port, 1);
    cr_assert_eq(in[3].line, 26);
    cr_assert_eq(mm->n_ext, 3);
    cr_assert_str_eq(w.ext[mm->ext_off + 2].val.scalar, "~"); /* x-null: (empty) */
    init = &w.op[4];
    cr_assert_eq(init->phase, PHASE_UPDATE);
    cr_assert_eq(init->device, 0);
    cr_assert_eq(init->n_out, 0);
    cr_assert_eq(w.op[3].phase, PHASE_BACKWARD);
    cr_assert(w.op[0].has_phase);
    cr_assert(!w.op[2].has_phase);
    n123 = &w.op[5];
    cr_assert_str_eq(n123->name, "123");
    cr_assert_str_eq(n123->type, "true");
    cr_assert_eq(n123->temp, 2500000);
    cr_assert_eq(w.op[1].persistent, 4096);
    cr_assert_eq(w.op[1].device, 1);
    cr_assert_eq(w.op[1].time_us, 0.25);
    workload_release(&w);
}

Test(workload_yaml, writer_layout)
{
    struct workload w;
    char *t;
    size_t n;

    cr_assert_eq(workload_read_yaml(&w, ALL), 0, "%s", err_msg());
    t = write_to_string(&w, &n);
    /* keys in the documented order; flow mappings one per line; numbers as integers */
    cr_assert(strstr(t, "- {name: matmul, type: MatMul, time_us: 12.5, flops: 2100000000, "
                        "bytes: 8400000, outputs: [2048, 16], temp: 512, group: layer1, "
                        "inputs: [\"input:0\", \"weights:0\", \"^init\", \"later:1\"], x-empty: "
                        "{}, x-list: [], x-null: ~}\n"),
              "%s", t);
    cr_assert(strstr(t, "- {name: init, type: NoOp, outputs: [], device: 0, phase: update, "
                        "x-q: \"123\", x-p: 123}\n"),
              "%s", t);
    cr_assert(strstr(t, "- {name: \"123\", type: \"true\", outputs: [0], temp: 2500000, "), "%s",
              t);
    cr_assert_eq(strncmp(t, "format: 1\nname: all-features\n", 29), 0, "%s", t);
    free(t);
    workload_release(&w);
}

Test(workload_yaml, gnmt_writer_matches_source_layout)
{
    /* The writer reproduces the shipped GNMT file except its two comment lines
     * and the indentation of the op list. */
    struct workload w;
    char *src = NULL, *t, *p, *q;
    size_t n, srclen;

    cr_assert_eq(yio_read_file(GNMT, &src, &srclen), 0);
    cr_assert_eq(workload_read_yaml(&w, GNMT), 0, "%s", err_msg());
    t = write_to_string(&w, &n);
    p = strstr(src, "format: 1");
    cr_assert_not_null(p);
    q = t;
    while (*p) {
        if (strncmp(p, "  - {", 5) == 0 && strncmp(q, "- {", 3) == 0) {
            p += 2;
        }
        cr_assert_eq(*p, *q, "differs at output byte %zu", (size_t)(q - t));
        p++;
        q++;
    }
    cr_assert_eq(*q, '\0');
    free(src);
    free(t);
    workload_release(&w);
}

Test(workload_yaml, missing_file_is_eio)
{
    struct workload w;

    cr_assert_eq(workload_read_yaml(&w, "tests/data/no-such-file.yaml"), BAECHI_EIO);
    cr_assert(strstr(err_msg(), "no-such-file.yaml"), "%s", err_msg());
    workload_release(&w);
}

/* Expects BAECHI_EPARSE and a message containing `needle`. */
static void expect_err(const char *text, const char *needle)
{
    struct workload w;
    int rc = workload_read_yaml_string(&w, text, strlen(text), "t.yaml");

    cr_assert_eq(rc, BAECHI_EPARSE, "rc %d for:\n%s\nmessage: %s", rc, text, err_msg());
    cr_assert(strstr(err_msg(), needle), "message '%s' lacks '%s'", err_msg(), needle);
    cr_assert_eq(strncmp(err_msg(), "t.yaml", 6), 0, "%s", err_msg());
    workload_release(&w);
}

#define HDR "format: 1\nname: t\nops:\n"

Test(workload_yaml, header_errors)
{
    expect_err("", "t.yaml: empty file");
    expect_err("# only a comment\n", "t.yaml: empty file");
    expect_err("- a\n- b\n", "t.yaml:1:1: top level must be a mapping");
    expect_err("just text\n", "top level must be a mapping");
    expect_err("name: t\nops:\n  - {name: a, type: T}\n",
               "t.yaml:1:1: missing required key 'format'");
    expect_err("format: 2\nname: t\n", "t.yaml:1:9: unsupported workload format '2'");
    expect_err("format: one\n", "unsupported workload format 'one'");
    expect_err("format: 1\nops:\n  - {name: a, type: T}\n", "missing required key 'name'");
    expect_err("format: 1\nname: t\n", "missing required key 'ops'");
    expect_err("format: 1\nname: t\nops: []\n", "t.yaml:3:6: ops: the list is empty");
    expect_err("format: 1\nname: t\nops: 5\n", "ops: expected a list of ops");
    expect_err("format: 1\nname: t\nnmae: x\n", "t.yaml:3:1: unknown key 'nmae'");
    expect_err("format: 1\nname: t\nname: u\n", "t.yaml:3:1: duplicate key 'name'");
    expect_err("format: 1\nname: [a]\n", "name: expected a string, got a list");
    expect_err("format: 1\nname:\n", "name: expected a string");
    expect_err("format: 1\nx-a: 1\nx-a: 2\n", "t.yaml:3:1: duplicate key 'x-a'");
    expect_err(HDR "  - {name: a, type: T}\n---\nformat: 1\n", "more than one YAML document");
}

Test(workload_yaml, syntax_errors)
{
    expect_err("format: 1\nname: t\nops:\n\t- {name: a}\n", "t.yaml:4:1: YAML syntax error");
    expect_err(HDR "  - {name: a, type: T\n", "YAML syntax error");
    expect_err("format: 1\nx-k:\n  b: 1\n c: 2\n", "t.yaml:4:2: YAML syntax error");
    expect_err("format: 1\nname: &x t\nsource: *x\n", "t.yaml:3:9: aliases are not supported (*x)");
    expect_err("format: !!int 1\n", "tags are not supported");
    expect_err("format: 1\n? [a]\n: b\n", "mapping keys must be plain strings");
    expect_err("\x01\x02\xff\xfe junk", "not a text file");
    expect_err("format: 1\nname: \xc3\x28\n", "t.yaml:2:8: not a text file");
}

Test(workload_yaml, op_errors)
{
    expect_err(HDR "  - {type: T}\n", "t.yaml:4:5: op #1: missing required key 'name'");
    expect_err(HDR "  - {name: a}\n", "t.yaml:4:5: op 'a': missing required key 'type'");
    expect_err(HDR "  - {name: a, type: T}\n  - {name: a, type: U}\n",
               "t.yaml:5:5: duplicate op name 'a' (first defined at line 4)");
    expect_err(HDR "  - {name: a, type: T, tme_us: 1}\n",
               "t.yaml:4:24: op 'a': unknown key 'tme_us'");
    expect_err(HDR "  - {name: a, type: T, temp: 1, temp: 2}\n", "op 'a': duplicate key 'temp'");
    expect_err(HDR "  - {name: a, type: T, x-k: 1, x-k: 2}\n", "op 'a': duplicate key 'x-k'");
    expect_err(HDR "  - {name: a, type: T, x-k: {b: 1, b: 2}}\n", "duplicate key 'b'");
    expect_err(HDR "  - a\n", "t.yaml:4:5: op #1: expected a mapping");
    expect_err(HDR "  - {name: '', type: T}\n", "op #1: name: must not be empty");
    expect_err(HDR "  - {name: ~, type: T}\n", "op #1: name: expected a string, got null");
    expect_err(HDR "  - {name: a, type: [T]}\n", "op 'a': type: expected a string, got a list");
}

Test(workload_yaml, number_errors)
{
    expect_err(HDR "  - {name: a, type: T, time_us: -1}\n",
               "t.yaml:4:33: op 'a': time_us: must not be negative, got '-1'");
    expect_err(HDR "  - {name: a, type: T, time_us: .nan}\n", "time_us: must be a finite number");
    expect_err(HDR "  - {name: a, type: T, flops: .inf}\n", "flops: must be a finite number");
    expect_err(HDR "  - {name: a, type: T, bytes: NaN}\n", "bytes: must be a finite number");
    expect_err(HDR "  - {name: a, type: T, time_us: 1e400}\n", "time_us: is too large");
    expect_err(HDR "  - {name: a, type: T, time_us: fast}\n",
               "time_us: expected a number, got 'fast'");
    expect_err(HDR "  - {name: a, type: T, time_us: '5'}\n", "time_us: expected a number, got '5'");
    expect_err(HDR "  - {name: a, type: T, time_us: 0x10}\n", "time_us: expected a number");
    expect_err(HDR "  - {name: a, type: T, outputs: [1180591620717411303424]}\n",
               "op 'a': outputs: does not fit in 64 bits, got '1180591620717411303424'");
    expect_err(HDR "  - {name: a, type: T, outputs: [1e19]}\n", "outputs: does not fit in 64 bits");
    expect_err(HDR "  - {name: a, type: T, outputs: [-4]}\n", "outputs: must not be negative");
    expect_err(HDR "  - {name: a, type: T, outputs: [1.5]}\n", "outputs: must be an integer");
    expect_err(HDR "  - {name: a, type: T, outputs: 4}\n", "outputs: expected a list of sizes");
    expect_err(HDR "  - {name: a, type: T, temp: -1}\n", "temp: must not be negative");
    expect_err(HDR "  - {name: a, type: T, persistent: 9223372036854775808}\n",
               "persistent: does not fit in 64 bits");
    expect_err(HDR "  - {name: a, type: T, device: -1}\n", "device: must not be negative");
    expect_err(HDR "  - {name: a, type: T, device: 1.5}\n", "device: expected a device number");
    expect_err(HDR "  - {name: a, type: T, device: gpu0}\n", "device: expected a device number");
    expect_err(HDR "  - {name: a, type: T, phase: sideways}\n",
               "op 'a': phase: expected forward, backward or update, got 'sideways'");
}

Test(workload_yaml, input_errors)
{
    expect_err(HDR "  - {name: a, type: T, inputs: [\"b:0\"]}\n",
               "t.yaml:4:33: op 'a': input 'b:0' names unknown op 'b'");
    expect_err(HDR "  - {name: a, type: T, inputs: [\"^b\"]}\n", "input '^b' names unknown op 'b'");
    expect_err(HDR "  - {name: a, type: T, inputs: [b]}\n", "input 'b' names unknown op 'b'");
    expect_err(HDR
               "  - {name: a, type: T, outputs: [1]}\n  - {name: b, type: T, inputs: [\"a:1\"]}\n",
               "t.yaml:5:33: op 'b': input 'a:1': op 'a' has 1 output, no port 1");
    expect_err(HDR "  - {name: a, type: T}\n  - {name: b, type: T, inputs: [a]}\n",
               "op 'b': input 'a': op 'a' has 0 outputs, no port 0");
    expect_err(HDR
               "  - {name: a, type: T, outputs: [1]}\n  - {name: b, type: T, inputs: [\"a:x\"]}\n",
               "input 'a:x': bad port 'x'");
    expect_err(HDR "  - {name: a, type: T, outputs: [1]}\n  - {name: b, type: T, inputs: "
                   "[\"a:99999999999\"]}\n",
               "no port");
    expect_err(HDR "  - {name: a, type: T, inputs: [\"\"]}\n",
               "op 'a': inputs: expected \"producer:port\"");
    expect_err(HDR "  - {name: a, type: T, inputs: \"a:0\"}\n", "inputs: expected a list");
}

Test(workload_yaml, input_forms)
{
    static const char text[] =
        HDR "  - {name: c, type: T, inputs: [\"a:1\", a, \"^b\", \"x:1:0\"]}\n"
            "  - {name: a, type: T, outputs: [1, 2]}\n"
            "  - {name: b, type: T}\n"
            "  - {name: \"x:1\", type: T, outputs: [3]}\n";
    struct workload w;
    const struct wl_input *in;

    cr_assert_eq(workload_read_yaml_string(&w, text, strlen(text), "t.yaml"), 0, "%s", err_msg());
    in = &w.input[w.op[0].in_off];
    cr_assert_eq(in[0].producer, 1);
    cr_assert_eq(in[0].port, 1);
    cr_assert_eq(in[1].producer, 1);
    cr_assert_eq(in[1].port, 0);
    cr_assert_eq(in[2].producer, 2);
    cr_assert_eq(in[2].port, WL_PORT_CONTROL);
    cr_assert_eq(in[3].producer, 3); /* a name with a colon */
    cr_assert_eq(in[3].port, 0);
    workload_release(&w);
}

Test(workload_yaml, block_style_ops_and_comments)
{
    static const char text[] = "# c\nformat: 1   # c\nname: t\nops:\n"
                               "- name: a\n  type: T\n  outputs:\n  - 5\n"
                               "- name: b\n  type: T\n  inputs:\n  - a:0\n";
    struct workload w;

    cr_assert_eq(workload_read_yaml_string(&w, text, strlen(text), "t.yaml"), 0, "%s", err_msg());
    cr_assert_eq(w.n_ops, 2);
    cr_assert_eq(w.out_bytes[0], 5);
    cr_assert_eq(w.input[0].producer, 0);
    cr_assert_eq(w.op[1].line, 9);
    cr_assert_eq(w.op[1].col, 3);
    workload_release(&w);
}

Test(workload_yaml, fmt_double_round_trips)
{
    static const double xs[] = {0,         1,
                                0.1,       12.5,
                                1e15,      123456789012345678.0,
                                1e-300,    2.1e9,
                                1.0 / 3,   4.4e-6,
                                1e300,     9007199254740993.0,
                                0.0001754, 2.2222222222222222e-6};
    char buf[64];

    for (size_t i = 0; i < sizeof(xs) / sizeof(xs[0]); i++) {
        double y;

        yio_fmt_double(xs[i], buf, sizeof(buf));
        cr_assert_null(yio_parse_double(buf, &y), "%s", buf);
        cr_assert_eq(y, xs[i], "%s", buf);
    }
    yio_fmt_double(170, buf, sizeof(buf));
    cr_assert_str_eq(buf, "170");
    yio_fmt_double(0.1, buf, sizeof(buf));
    cr_assert_str_eq(buf, "0.1");
    yio_fmt_double(1.0 / 3, buf, sizeof(buf));
    cr_assert_str_eq(buf, "0.3333333333333333");
}

Test(workload_yaml, parse_size)
{
    int64_t v;

    cr_assert_null(yio_parse_size("9223372036854775807", &v));
    cr_assert_eq(v, INT64_MAX);
    cr_assert_not_null(yio_parse_size("9223372036854775808", &v));
    cr_assert_null(yio_parse_size("+12", &v));
    cr_assert_eq(v, 12);
    cr_assert_null(yio_parse_size("2.5e6", &v));
    cr_assert_eq(v, 2500000);
    cr_assert_not_null(yio_parse_size("1_000", &v));
    cr_assert_not_null(yio_parse_size("", &v));
    cr_assert_not_null(yio_parse_size("1e", &v));
    cr_assert_not_null(yio_parse_size(".", &v));
}

/*
 * issue 13, item 8: the writer refuses what the reader rejects (one rule,
 * workload_check): an inf, a 1e300 or a negative time, nothing written.
 */
Test(workload_yaml, writer_refuses_what_reader_rejects)
{
    static const double bad[] = {INFINITY, 1e300, 1e15 * 2, -1};
    struct workload w;

    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f;

        cr_assert_eq(workload_read_yaml(&w, ALL), 0, "%s", err_msg());
        w.op[1].time_us = bad[k];
        f = open_memstream(&buf, &len);
        cr_assert_not_null(f);
        cr_expect_neq(workload_write_yaml(&w, f), 0, "time_us %g was written", bad[k]);
        cr_expect(strstr(err_msg(), "time_us") != NULL, "%s", err_msg());
        fclose(f);
        cr_expect_eq(len, 0, "%zu bytes written for time_us %g", len, bad[k]);
        free(buf);
        workload_release(&w);
    }
    /* the largest accepted time round-trips */
    cr_assert_eq(workload_read_yaml(&w, ALL), 0, "%s", err_msg());
    w.op[1].time_us = 1e15;
    {
        size_t len;
        char *t = write_to_string(&w, &len);
        struct workload b;

        cr_expect_eq(workload_read_yaml_string(&b, t, len, "max.yaml"), 0, "%s", err_msg());
        workload_release(&b);
        free(t);
    }
    workload_release(&w);
}

/* ---- the fast reader of the ops (workload_read_yaml_mode, core/yio_flow.h) ---- */

#include <dirent.h>

/* Both readings of text agree: the same code and message, or the same
 * workload, line and column numbers included.  Returns whether it read. */
static bool same_both_ways(const char *text, size_t len, const char *what)
{
    struct workload a, b;
    int ra, rb;
    char *ma;

    err_set_quiet(1);
    ra = workload_read_yaml_mode(&a, text, len, "f.yaml", WORKLOAD_READ_LIBYAML, NULL);
    ma = strdup(ra ? err_msg() : "");
    rb = workload_read_yaml_mode(&b, text, len, "f.yaml", WORKLOAD_READ_AUTO, NULL);
    cr_assert_eq(ra, rb, "%s: libyaml %d, auto %d (%s)", what, ra, rb, rb ? err_msg() : ma);
    if (ra) {
        cr_assert_str_eq(ma, err_msg(), "%s: messages differ", what);
    } else {
        assert_same_workload(&a, &b);
        for (int32_t i = 0; i < a.n_ops; i++) {
            cr_assert_eq(a.op[i].line, b.op[i].line, "%s: op %d line", what, i);
            cr_assert_eq(a.op[i].col, b.op[i].col, "%s: op %d col", what, i);
        }
        for (size_t i = 0; i < a.n_input; i++) {
            cr_assert_eq(a.input[i].line, b.input[i].line, "%s: input %zu line", what, i);
            cr_assert_eq(a.input[i].col, b.input[i].col, "%s: input %zu col", what, i);
        }
    }
    free(ma);
    workload_release(&a);
    workload_release(&b);
    return ra == 0;
}

/* Calls fn on every regular file of dir. */
static int each_file(const char *dir, void (*fn)(const char *path, int *counts), int *counts)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    cr_assert_not_null(d, "%s", dir);
    while ((e = readdir(d))) {
        char path[1024];

        if (e->d_name[0] == '.') {
            continue;
        }
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        fn(path, counts);
        n++;
    }
    closedir(d);
    return n;
}

/* counts: [0] files read, [1] read by the fast reader, [2] bad files the
 * fast reader started on (then libyaml judged) */
static void check_fixture(const char *path, int *counts)
{
    char *text;
    size_t len;
    bool fast = false;
    struct workload w;

    if (yio_read_file(path, &text, &len)) {
        return; /* a directory */
    }
    counts[0] += same_both_ways(text, len, path);
    if (workload_read_yaml_mode(&w, text, len, path, WORKLOAD_READ_FAST_ONLY, &fast) == 0) {
        counts[1] += fast;
        workload_release(&w);
    } else {
        counts[2] += fast;
    }
    free(text);
}

Test(workload_yaml, fast_reader_same_as_libyaml_on_every_fixture)
{
    static const char *const dirs[] = {"tests/data",
                                       "tests/data/bad",
                                       "tests/fuzz/seeds/sweep",
                                       "tests/fuzz/seeds/placement",
                                       "tests/fuzz/seeds/profile",
                                       "data/workloads/gnmt_v2",
                                       "data/clusters",
                                       "examples"};
    int counts[3] = {0};

    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        DIR *d = opendir(dirs[i]);

        if (d) {
            closedir(d);
            each_file(dirs[i], check_fixture, counts);
        }
    }
    /* not vacuous: GNMT and good fixtures went the fast way, bad ones too */
    cr_assert_geq(counts[1], 2, "read by the fast reader: %d", counts[1]);
    cr_assert_geq(counts[2], 5, "bad files the fast reader started: %d", counts[2]);
}

/* A small workload in the writer's layout, then every byte of its ops
 * replaced by characters that matter to YAML: both readings agree. */
Test(workload_yaml, fast_reader_same_as_libyaml_on_mutations)
{
    static const char base[] =
        "format: 1\nname: m\nops:\n"
        "- {name: a, type: Const, time_us: 1.5, outputs: [64, 0], persistent: 8}\n"
        "- {name: b/c, type: MatMul, outputs: [32], temp: 4, device: 1, phase: backward, "
        "inputs: [\"a:1\", \"^a\"], x-k: [1, \"s\"]}\n"
        "- {name: d, type: Add, flops: 2e3, outputs: [], group: g, inputs: [\"b/c\"], x-p: "
        "false}\n";
    static const char subst[] = " :,\"'[]{}#-\n\t.~!&*\\|>%@`a0_?";
    const size_t start = strlen("format: 1\nname: m\nops:\n");
    char text[sizeof(base)];
    int ok = 0;

    cr_assert(same_both_ways(base, sizeof(base) - 1, "base"));
    for (size_t i = start; i < sizeof(base) - 1; i++) {
        for (size_t k = 0; k < sizeof(subst) - 1; k++) {
            char what[64];

            memcpy(text, base, sizeof(base));
            text[i] = subst[k];
            snprintf(what, sizeof(what), "byte %zu = '%c'", i, subst[k]);
            ok += same_both_ways(text, sizeof(base) - 1, what);
        }
    }
    cr_assert_gt(ok, 100, "mutations that still read: %d", ok);
}

/* The writer's output goes the fast way, and reads back to the same bytes. */
Test(workload_yaml, fast_reader_round_trip)
{
    static const char *const paths[] = {GNMT, ALL, "tests/data/fmt-small.yaml"};

    for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
        struct workload a, b;
        char *t1, *t2;
        size_t n1, n2;
        bool fast = false;

        cr_assert_eq(workload_read_yaml(&a, paths[i]), 0, "%s", err_msg());
        t1 = write_to_string(&a, &n1);
        /* fmt-all-features has names the writer quotes with escapes: libyaml reads those */
        cr_assert_eq(workload_read_yaml_mode(&b, t1, n1, "w.yaml",
                                             i == 1 ? WORKLOAD_READ_AUTO : WORKLOAD_READ_FAST_ONLY,
                                             &fast),
                     0, "%s: %s", paths[i], err_msg());
        cr_assert(fast || i == 1, "%s: the writer's output did not go the fast way", paths[i]);
        assert_same_workload(&a, &b);
        t2 = write_to_string(&b, &n2);
        cr_assert_eq(n1, n2, "%s", paths[i]);
        cr_assert_eq(memcmp(t1, t2, n1), 0, "%s: second write differs", paths[i]);
        free(t1);
        free(t2);
        workload_release(&a);
        workload_release(&b);
    }
}

/* ---- op lines read straight into ops (core/workload_flow.h, issue 22) ---- */

/* Reads text with `mode` and with libyaml alone: the same workload, marks included. */
static void same_as_libyaml(const char *text, size_t len, enum workload_read_mode mode,
                            const char *what)
{
    struct workload a, b;

    cr_assert_eq(workload_read_yaml_mode(&a, text, len, "f.yaml", WORKLOAD_READ_LIBYAML, NULL), 0,
                 "%s: %s", what, err_msg());
    cr_assert_eq(workload_read_yaml_mode(&b, text, len, "f.yaml", mode, NULL), 0, "%s: mode %d: %s",
                 what, (int)mode, err_msg());
    assert_same_workload(&a, &b);
    for (int32_t i = 0; i < a.n_ops; i++) {
        cr_assert_eq(a.op[i].line, b.op[i].line, "%s: op %d line", what, i);
        cr_assert_eq(a.op[i].col, b.op[i].col, "%s: op %d col", what, i);
    }
    for (size_t i = 0; i < a.n_input; i++) {
        cr_assert_eq(a.input[i].producer, b.input[i].producer, "%s: input %zu", what, i);
        cr_assert_eq(a.input[i].port, b.input[i].port, "%s: input %zu port", what, i);
        cr_assert_eq(a.input[i].line, b.input[i].line, "%s: input %zu line", what, i);
        cr_assert_eq(a.input[i].col, b.input[i].col, "%s: input %zu col", what, i);
    }
    workload_release(&a);
    workload_release(&b);
}

/*
 * A large file in the writer's layout with every key and value form the
 * writer emits (numbers integral, decimal and with exponents, empty and
 * multi-port outputs, groups, devices, every phase, quoted names, x- keys
 * with scalars, ports,
 * control inputs, inputs naming later ops, a port out of range for the
 * early resolution to decline): every line read straight, the same as
 * libyaml's reading and the fast reader's events; then written and read
 * back to the same bytes.
 */
Test(workload_yaml, direct_op_lines_same_as_libyaml)
{
    static const char *const phases[] = {"forward", "backward", "update"};
    static const char *const times[] = {"5",  "0.25", "1e-3", "1.5e+9", "123456789012345",
                                        "+7", "007"};
    enum { N = 3000 };
    char *text = NULL, *t2;
    size_t len = 0, n2;
    FILE *f = open_memstream(&text, &len);
    struct workload w;

    cr_assert_not_null(f);
    fprintf(f, "format: 1\nname: big\nops:\n");
    for (int i = 0; i < N; i++) {
        if (i % 7 == 3) {
            fprintf(f, "- {name: \"true%d\"", i); /* the writer quotes what reads as a bool */
        } else {
            fprintf(f, "- {name: op%d", i);
        }
        fprintf(f, ", type: T%d, time_us: %s", i % 3, times[i % 7]);
        if (i % 5 == 1) {
            fprintf(f, ", flops: %d.5, bytes: 2e%d", i, i % 9);
        }
        fprintf(f, ", outputs: [%s]", i % 11 == 10 ? "" : i % 4 == 0 ? "64, 0, 1.6e3" : "128");
        if (i % 6 == 2) {
            fprintf(f, ", temp: %d, persistent: 9", i);
        }
        if (i % 9 == 4) {
            fprintf(f, ", group: \"g/%d\", device: %d", i % 4, i % 65536);
        }
        if (i % 8 == 5) {
            fprintf(f, ", phase: %s", phases[i % 3]);
        }
        if (i % 10 == 7) {
            fprintf(f, ", x-micro-batch: %d, x-s: \"q %d\", x-t: true", i % 4, i);
        }
        if (i > 0) {
            int p = (i - 1) % 11 == 10 ? i - 2 : i - 1; /* an op with outputs */
            int q = i + 2 < N && (i + 2) % 11 != 10 ? i + 2 : p;
            int port = p % 4 == 0 ? 2 : 0;

            if ((p % 7 == 3) != 0) {
                fprintf(f, ", inputs: [\"^true%d\", \"true%d:%d\"]", p, p, port);
            } else if (i % 13 == 0) {
                fprintf(f, ", inputs: [\"op%d:%d\", \"%s%d\", \"^op%d\"]", p, port,
                        q % 7 == 3 ? "true" : "op", q, p);
            } else {
                fprintf(f, ", inputs: [\"op%d:%d\"]", p, port);
            }
        }
        fprintf(f, "}\n");
    }
    fclose(f);
    same_as_libyaml(text, len, WORKLOAD_READ_FAST_DIRECT, "direct");
    same_as_libyaml(text, len, WORKLOAD_READ_FAST_EVENTS, "events");
    same_as_libyaml(text, len, WORKLOAD_READ_AUTO, "auto");
    /* the writer's output of it goes the same way, to the same bytes */
    cr_assert_eq(workload_read_yaml_string(&w, text, len, "f.yaml"), 0, "%s", err_msg());
    free(text);
    text = write_to_string(&w, &len);
    workload_release(&w);
    same_as_libyaml(text, len, WORKLOAD_READ_FAST_DIRECT, "written");
    cr_assert_eq(workload_read_yaml_mode(&w, text, len, "w.yaml", WORKLOAD_READ_FAST_DIRECT, NULL),
                 0);
    t2 = write_to_string(&w, &n2);
    cr_assert(n2 == len && memcmp(text, t2, len) == 0, "the second write differs");
    free(t2);
    free(text);
    workload_release(&w);
}

/* A line with an x- key whose value is a list goes through events; the
 * others stay straight. */
Test(workload_yaml, direct_op_lines_leave_the_rest_to_events)
{
    static const char ext[] = "format: 1\nname: m\nops:\n"
                              "- {name: a, type: C, outputs: [8]}\n"
                              "- {name: b, type: C, outputs: [8], x-k: [1], inputs: [\"a:0\"]}\n"
                              "- {name: c, type: C, outputs: [], inputs: [\"b:0\"]}\n";

    /* values the event path rejects or reads otherwise: never taken straight */
    static const char *const declined[] = {
        "name: null",      "name: NULL",       "name: Null",     "name: \"\"",     "type: [a]",
        "time_us: \"5\"",  "time_us: .nan",    "time_us: -1",    "time_us: 1e999", "temp: 1.5",
        "temp: -0",        "outputs: [\"1\"]", "outputs: 8",     "device: 65536",  "device: -1",
        "device: 1.0",     "phase: Forward",   "phase: null",    "inputs: [null]", "inputs: [\"\"]",
        "inputs: \"a:0\"", "temp: 1, temp: 2", "x-k: 1, x-k: 2", "bogus: 1",
    };
    struct workload w;

    cr_assert_eq(workload_read_yaml_mode(&w, ext, sizeof(ext) - 1, "e.yaml",
                                         WORKLOAD_READ_FAST_DIRECT, NULL),
                 BAECHI_EPARSE);
    same_as_libyaml(ext, sizeof(ext) - 1, WORKLOAD_READ_FAST_ONLY, "x- key");
    for (size_t i = 0; i < sizeof(declined) / sizeof(declined[0]); i++) {
        /* op b's own pairs, the one with the declined pair's key replaced by it */
        static const char *const keys[] = {"name:", "type:", "outputs:", "inputs:"};
        const char *pairs[] = {"name: b", "type: C", "outputs: [8]", "inputs: [\"a:0\"]", ""};
        char text[256];
        int n;

        pairs[4] = declined[i];
        for (size_t k = 0; k < 4; k++) {
            if (strncmp(declined[i], keys[k], strlen(keys[k])) == 0) {
                pairs[k] = declined[i];
                pairs[4] = "";
            }
        }
        n = snprintf(text, sizeof(text),
                     "format: 1\nname: m\nops:\n- {name: a, type: C, outputs: [8]}\n"
                     "- {%s, %s, %s, %s%s%s}\n",
                     pairs[0], pairs[1], pairs[2], pairs[3], *pairs[4] ? ", " : "", pairs[4]);

        err_set_quiet(1);
        cr_expect_neq(
            workload_read_yaml_mode(&w, text, (size_t)n, "d.yaml", WORKLOAD_READ_FAST_DIRECT, NULL),
            0, "'%s' was taken straight", declined[i]);
        same_both_ways(text, (size_t)n, declined[i]);
    }
}

/* Every byte of a workload that the direct reader takes whole, replaced by
 * characters that matter to YAML or to the reader's rules: the same verdict
 * and message, or the same workload, as libyaml's alone. */
Test(workload_yaml, direct_op_lines_same_as_libyaml_on_mutations)
{
    static const char base[] =
        "format: 1\nname: m\nops:\n"
        "- {name: a, type: Const, time_us: 1.5, outputs: [64, 0], persistent: 8, temp: 1}\n"
        "- {name: b, type: MatMul, outputs: [32], device: 12, phase: backward, "
        "inputs: [\"a:1\", \"^a\", \"d:0\"]}\n"
        "- {name: d, type: Add, flops: 2e3, bytes: 10, outputs: [1], group: g, inputs: [\"b\"]}\n";
    static const char subst[] = " :,\"'[]{}#-\n\t.~!&*\\|>%@`a0_?^+9e";
    const size_t start = strlen("format: 1\nname: m\nops:\n");
    char text[sizeof(base)];
    int ok = 0;

    same_as_libyaml(base, sizeof(base) - 1, WORKLOAD_READ_FAST_DIRECT, "base");
    for (size_t i = start; i < sizeof(base) - 1; i++) {
        for (size_t k = 0; k < sizeof(subst) - 1; k++) {
            char what[64];

            memcpy(text, base, sizeof(base));
            text[i] = subst[k];
            snprintf(what, sizeof(what), "byte %zu = '%c'", i, subst[k]);
            ok += same_both_ways(text, sizeof(base) - 1, what);
        }
    }
    cr_assert_gt(ok, 100, "mutations that still read: %d", ok);
}

/* ---- the memory under a large load (issue 22: a 1M-op workload in a second) ---- */

/*
 * The string pool's chunks double from 64 KB up to 4 MB, and a string
 * longer than a chunk gets one of its own: 12 MB of names, one of 5 MB
 * among them, all still intact at the end (a chunk sized short of its
 * string would overwrite the next).
 */
Test(workload_yaml, string_pool_chunks_grow)
{
    struct strpool pool;
    const size_t n = 600000, big_len = (size_t)5 << 20;
    const char **at = calloc(n, sizeof(*at));
    char *big = malloc(big_len);
    const char *big_at = NULL;
    char name[32];

    cr_assert(at && big);
    memset(big, 'b', big_len);
    strpool_init(&pool);
    for (size_t i = 0; i < n; i++) {
        snprintf(name, sizeof(name), "layer%zu/op%zu", i % 97, i);
        cr_assert(at[i] = strpool_add(&pool, name, strlen(name)));
        if (i == n / 2) {
            cr_assert(big_at = strpool_add(&pool, big, big_len));
        }
    }
    cr_expect_gt(pool.nr_chunk, 3);
    cr_expect_lt(pool.nr_chunk, 20, "%zu chunks for 12 MB: they do not grow", pool.nr_chunk);
    for (size_t i = 0; i < n; i++) {
        snprintf(name, sizeof(name), "layer%zu/op%zu", i % 97, i);
        cr_assert_str_eq(at[i], name);
    }
    cr_expect_eq(memcmp(big_at, big, big_len), 0);
    cr_expect_eq(big_at[big_len], '\0');
    strpool_release(&pool);
    free(big);
    free(at);
}

/*
 * A block past the size from which the allocator asks for 2 MB pages keeps
 * its contents through growth and shrinking (realloc moves it by mremap
 * only while the advice covers its whole mapping).
 */
Test(workload_yaml, large_blocks_keep_their_contents)
{
    size_t n = (size_t)3 << 20;
    unsigned char *p = mem_alloc(n), *q;

    cr_assert(p);
    for (size_t i = 0; i < n; i++) {
        p[i] = (unsigned char)(i * 7 + 1);
    }
    for (size_t grow = n * 3; grow <= n * 9; grow *= 3) {
        cr_assert(q = mem_realloc(p, grow));
        p = q;
        memset(p + grow / 3, 0xab, grow - grow / 3);
    }
    cr_assert(q = mem_realloc(p, n - 1));
    p = q;
    for (size_t i = 0; i < n - 1; i++) {
        if (p[i] != (unsigned char)(i * 7 + 1)) {
            cr_assert_fail("byte %zu changed", i);
        }
    }
    free(p);
}

/* An op name longer than the old label buffers (char[300] and char[320]):
 * the messages name the whole op (issue 34 item 3). */
Test(workload_yaml, long_op_name_in_messages)
{
    const char *tails[] = {", tme_us: 1}\n", ", temp: 1, temp: 2}\n", ", x-k: 1, x-k: 2}\n",
                           ", time_us: [1]}\n"};
    const char *wants[] = {"': unknown key 'tme_us'", "': duplicate key 'temp'",
                           "': duplicate key 'x-k'", "': time_us: expected a number"};
    char name[600], text[800], want[700];

    memset(name, 'o', sizeof(name) - 1);
    name[sizeof(name) - 1] = '\0';
    for (int i = 0; i < 4; i++) {
        snprintf(text, sizeof(text), HDR "  - {name: %s, type: T%s", name, tails[i]);
        snprintf(want, sizeof(want), "op '%s%s", name, wants[i]);
        expect_err(text, want);
    }
}
