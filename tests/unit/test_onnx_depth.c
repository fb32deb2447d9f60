/*
 * test_onnx_depth.c - the nesting bound of ONNX models (workloads/
 * onnx_depth.h): subgraphs and types just under and over the limits,
 * thousands deep (refused, no crash), and malformed wire data (tags,
 * varints and lengths cut off, groups), built here byte by byte.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/onnx_depth.h"

#include "core/err.h"
#include "core/workload.h"
#include "workloads/onnx_import.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct buf {
    uint8_t *p;
    size_t n;
};

static size_t put_varint(uint8_t *out, uint64_t v)
{
    size_t n = 0;

    do {
        out[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    return n;
}

/* A message built from the inside out: its bytes are p[start, end), with
 * room on both sides, so that wrapping it is linear in the bytes added
 * (20,000 levels took seconds under ASan when each wrap copied it all). */
struct build {
    uint8_t *p;
    size_t start, end, cap;
};

static struct build build_new(const char *inner, size_t n)
{
    struct build b = {malloc(2 * n + 64), n + 32, 2 * n + 32, 2 * n + 64};

    cr_assert_not_null(b.p);
    memcpy(b.p + b.start, inner, n);
    return b;
}

/* at least `front` bytes free before the message and `back` after it */
static void room(struct build *b, size_t front, size_t back)
{
    size_t n = b->end - b->start, cap, start;
    uint8_t *p;

    if (b->start >= front && b->cap - b->end >= back) {
        return;
    }
    cap = 2 * (b->cap + front + back);
    start = (cap - n) / 2;
    p = malloc(cap);
    cr_assert_not_null(p);
    memcpy(p + start, b->p + b->start, n);
    free(b->p);
    *b = (struct build){p, start, start + n, cap};
}

/* b = field `num` (length-delimited) holding b's old bytes, then `tail` */
static void wrap(struct build *b, unsigned num, const char *tail)
{
    size_t tl = tail ? strlen(tail) : 0;
    uint8_t hdr[24];
    size_t h = put_varint(hdr, (uint64_t)num << 3 | 2);

    h += put_varint(hdr + h, b->end - b->start);
    room(b, h, tl);
    b->start -= h;
    memcpy(b->p + b->start, hdr, h);
    if (tl) {
        memcpy(b->p + b->end, tail, tl);
        b->end += tl;
    }
}

/* the message alone, at the start of its block (free(buf.p)) */
static struct buf build_done(struct build *b)
{
    struct buf out = {b->p, b->end - b->start};

    memmove(b->p, b->p + b->start, out.n);
    return out;
}

/* onnx.proto: NodeProto.op_type = 4 ("\x22\x02If"), AttributeProto.name = 1
 * ("\x0a\x01g"), AttributeProto.g = 6, NodeProto.attribute = 5,
 * GraphProto.node = 1, ModelProto.graph = 7 */
static struct buf nested_graphs(int depth)
{
    struct build b = build_new("\x22\x02If", 4); /* the innermost node */

    wrap(&b, 1, NULL); /* graph level `depth` */
    for (int l = depth - 1; l >= 1; l--) {
        wrap(&b, 6, "\x0a\x01g");  /* attribute g */
        wrap(&b, 5, "\x22\x02If"); /* node If with the attribute */
        wrap(&b, 1, NULL);         /* graph level l */
    }
    wrap(&b, 7, NULL); /* ModelProto.graph */
    return build_done(&b);
}

/* ModelProto.graph.input (11) of type (ValueInfoProto.type = 2) sequence of
 * sequence ... (TypeProto.sequence_type = 4, Sequence.elem_type = 1), depth
 * TypeProto in all */
static struct buf nested_types(int depth)
{
    /* tensor_type { elem_type: FLOAT } */
    struct build b = build_new("\x0a\x02\x08\x01", 4);

    for (int l = depth - 1; l >= 1; l--) {
        wrap(&b, 1, NULL); /* Sequence.elem_type */
        wrap(&b, 4, NULL); /* TypeProto.sequence_type */
    }
    wrap(&b, 2, NULL);  /* ValueInfoProto.type */
    wrap(&b, 11, NULL); /* GraphProto.input */
    wrap(&b, 7, NULL);  /* ModelProto.graph */
    return build_done(&b);
}

static int check(const struct buf *b, int *depth)
{
    err_set_quiet(1);
    return onnx_check_depth(b->p, b->n, "m.onnx", depth);
}

Test(onnx_depth, graphs_just_under_the_limit_pass)
{
    struct buf b = nested_graphs(ONNX_MAX_GRAPH_DEPTH);
    int d = 0;

    cr_assert_eq(check(&b, &d), 0, "%s", err_msg());
    cr_assert_eq(d, ONNX_MAX_GRAPH_DEPTH);
    free(b.p);
}

Test(onnx_depth, graphs_just_over_the_limit_are_refused_with_the_depth)
{
    struct buf b = nested_graphs(ONNX_MAX_GRAPH_DEPTH + 1);
    char want[64];

    cr_assert_eq(check(&b, NULL), BAECHI_EPARSE);
    snprintf(want, sizeof(want), "nested more than %d deep", ONNX_MAX_GRAPH_DEPTH);
    cr_assert(strstr(err_msg(), "m.onnx: ") == err_msg(), "%s", err_msg());
    cr_assert(strstr(err_msg(), want), "%s", err_msg());
    free(b.p);
}

/* 20,000 levels (about 300 KB) overflow protobuf-c's recursion on any
 * stack; the walk refuses them and the importer never unpacks them */
Test(onnx_depth, thousands_deep_refused_by_the_importer_without_a_crash)
{
    struct buf b = nested_graphs(20000);
    struct workload w;

    cr_assert_eq(check(&b, NULL), BAECHI_EPARSE);
    cr_assert_eq(onnx_import_buffer(&w, b.p, b.n, "deep.onnx", NULL, NULL), BAECHI_EPARSE);
    cr_assert(strstr(err_msg(), "deep.onnx: ONNX subgraphs nested more than"), "%s", err_msg());
    free(b.p);
}

Test(onnx_depth, types_under_and_over_the_limit)
{
    struct buf ok = nested_types(ONNX_MAX_TYPE_DEPTH), bad = nested_types(ONNX_MAX_TYPE_DEPTH + 1);
    int d = -1;

    cr_assert_eq(check(&ok, &d), 0, "%s", err_msg());
    cr_assert_eq(d, 1); /* the main graph */
    cr_assert_eq(check(&bad, NULL), BAECHI_EPARSE);
    cr_assert(strstr(err_msg(), "types nested more than"), "%s", err_msg());
    free(ok.p);
    free(bad.p);
}

static void refused(const char *bytes, size_t n, const char *why)
{
    struct buf b = {(uint8_t *)bytes, n};

    cr_assert_eq(check(&b, NULL), BAECHI_EPARSE, "%s", why);
    cr_assert(strstr(err_msg(), "m.onnx: not a valid ONNX model"), "%s", err_msg());
    cr_assert(strstr(err_msg(), why), "want '%s' in: %s", why, err_msg());
}

Test(onnx_depth, malformed_wire_data_is_refused)
{
    refused("\x80", 1, "field tag cut off");  /* tag's continuation */
    refused("\x08\x80", 2, "varint cut off"); /* ir_version cut off */
    refused("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12, "over 64 bits");
    refused("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", 11, "over 64 bits");
    refused("\x3a\x85", 2, "length cut off");                      /* graph's length */
    refused("\x3a\x05\x00", 3, "longer than its message");         /* graph past the end */
    refused("\x3a\x03\x0a\x05\x00", 5, "longer than its message"); /* node past the graph */
    refused("\x11\x00\x00", 3, "fixed-size field cut off");        /* a double cut off */
    refused("\x0b\x0c", 2, "unsupported wire type");               /* a group */
}

Test(onnx_depth, empty_and_real_models_pass)
{
    const char *files[] = {"tests/data/onnx/resnet50.onnx", "tests/data/onnx/two_input.onnx",
                           "tests/data/onnx/lstm.onnx"};
    struct buf e = {(uint8_t *)"", 0};

    cr_assert_eq(check(&e, NULL), 0);
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        FILE *f = fopen(files[i], "rb");
        uint8_t *data = malloc(1 << 20);
        size_t n;
        int d = 0;

        cr_assert_not_null(f, "%s", files[i]);
        cr_assert_not_null(data);
        n = fread(data, 1, 1 << 20, f);
        fclose(f);
        cr_assert_lt(n, 1 << 20);
        cr_assert_eq(onnx_check_depth(data, n, files[i], &d), 0, "%s", err_msg());
        cr_assert_eq(d, 1, "%s", files[i]);
        free(data);
    }
}
