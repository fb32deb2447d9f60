/*
 * onnx_depth.c - the nesting bound of ONNX models (onnx_depth.h): an
 * iterative walk of the protobuf wire format (protobuf.dev, "Encoding":
 * varint, 64-bit, length-delimited and 32-bit fields; groups are refused,
 * as protobuf-c refuses them) over the messages of onnx.proto that can
 * nest without bound.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/onnx_depth.h"

#include "core/err.h"

#include <stdbool.h>

/* The messages of onnx.proto on a path to a recursion: graphs through
 * nodes and attributes, types through sequence, map and optional types. */
enum od_msg {
    OD_NONE = 0, /* a field not walked into (a string, bytes, another message) */
    OD_MODEL,
    OD_TRAINING, /* TrainingInfoProto */
    OD_FUNCTION, /* FunctionProto */
    OD_GRAPH,
    OD_NODE,
    OD_ATTRIBUTE,
    OD_VALUE_INFO,
    OD_TYPE,
    OD_TYPE_ELEM /* TypeProto.Sequence, .Map, .Optional: hold a TypeProto */
};

/* The child message of field `field` of message `m` (onnx.proto's field
 * numbers, the same since IR version 3), OD_NONE for any other field. */
static enum od_msg od_child(enum od_msg m, uint64_t field)
{
    switch (m) {
    case OD_MODEL: /* graph = 7, training_info = 20, functions = 25 */
        return field == 7    ? OD_GRAPH
               : field == 20 ? OD_TRAINING
               : field == 25 ? OD_FUNCTION
                             : OD_NONE;
    case OD_TRAINING: /* initialization = 1, algorithm = 2 */
        return field == 1 || field == 2 ? OD_GRAPH : OD_NONE;
    case OD_FUNCTION: /* node = 7 */
        return field == 7 ? OD_NODE : OD_NONE;
    case OD_GRAPH: /* node = 1, input = 11, output = 12, value_info = 13 */
        return field == 1 ? OD_NODE : field >= 11 && field <= 13 ? OD_VALUE_INFO : OD_NONE;
    case OD_NODE: /* attribute = 5 */
        return field == 5 ? OD_ATTRIBUTE : OD_NONE;
    case OD_ATTRIBUTE: /* g = 6, graphs = 11, tp = 14, type_protos = 15 */
        return field == 6 || field == 11    ? OD_GRAPH
               : field == 14 || field == 15 ? OD_TYPE
                                            : OD_NONE;
    case OD_VALUE_INFO: /* type = 2 */
        return field == 2 ? OD_TYPE : OD_NONE;
    case OD_TYPE: /* sequence_type = 4, map_type = 5, optional_type = 9 */
        return field == 4 || field == 5 || field == 9 ? OD_TYPE_ELEM : OD_NONE;
    case OD_TYPE_ELEM: /* Sequence.elem_type = 1, Map.value_type = 2, Optional.elem_type = 1 */
        return field == 1 || field == 2 ? OD_TYPE : OD_NONE;
    case OD_NONE:
        break;
    }
    return OD_NONE;
}

/*
 * The deepest walk: model, training info or function, then per graph
 * level a graph, a node and an attribute, then a value_info and per type
 * level a type and its element message (plus slack).
 */
#define OD_MAX_FRAMES (3 * ONNX_MAX_GRAPH_DEPTH + 2 * ONNX_MAX_TYPE_DEPTH + 8)

struct od_frame {
    size_t end; /* offset of the first byte after the message */
    enum od_msg msg;
};

/* A varint at data[*pos] ending before `end` (at most 10 bytes, 64 bits);
 * false when it is cut off or longer. */
static bool od_varint(const uint8_t *data, size_t end, size_t *pos, uint64_t *v)
{
    uint64_t x = 0;

    for (int i = 0; i < 10; i++) {
        if (*pos >= end) {
            return false;
        }
        uint64_t b = data[*pos] & 0x7f;

        if (i == 9 && b > 1) { /* past 64 bits */
            return false;
        }
        x |= b << (7 * i);
        if (!(data[(*pos)++] & 0x80)) {
            *v = x;
            return true;
        }
    }
    return false;
}

static int od_bad(const char *name, const char *what, size_t at)
{
    return err_set(BAECHI_EPARSE,
                   "%s: not a valid ONNX model (the protobuf does not parse: %s at byte %zu)", name,
                   what, at);
}

int onnx_check_depth(const uint8_t *data, size_t len, const char *name, int *graph_depth)
{
    struct od_frame st[OD_MAX_FRAMES];
    int n = 1, graphs = 0, types = 0, deepest = 0, rc = 0;
    size_t pos = 0;

    st[0].end = len;
    st[0].msg = OD_MODEL;
    while (n > 0) {
        struct od_frame *top = &st[n - 1];
        size_t at = pos;
        uint64_t tag, v;
        enum od_msg child;

        if (pos == top->end) { /* the message is done */
            graphs -= top->msg == OD_GRAPH;
            types -= top->msg == OD_TYPE;
            n--;
            continue;
        }
        if (!od_varint(data, top->end, &pos, &tag)) {
            rc = od_bad(name, "a field tag cut off or over 64 bits", at);
            break;
        }
        switch (tag & 7) {
        case 0: /* varint */
            if (!od_varint(data, top->end, &pos, &v)) {
                rc = od_bad(name, "a varint cut off or over 64 bits", at);
            }
            break;
        case 1: /* 64-bit */
        case 5: /* 32-bit */
            if (top->end - pos < ((tag & 7) == 1 ? 8u : 4u)) {
                rc = od_bad(name, "a fixed-size field cut off", at);
            }
            pos += (tag & 7) == 1 ? 8 : 4;
            break;
        case 2: /* length-delimited: a string, bytes, packed values or a message */
            if (!od_varint(data, top->end, &pos, &v)) {
                rc = od_bad(name, "a length cut off", at);
                break;
            }
            if (v > top->end - pos) {
                rc = od_bad(name, "a field longer than its message", at);
                break;
            }
            if ((child = od_child(top->msg, tag >> 3)) == OD_NONE) {
                pos += (size_t)v;
                break;
            }
            graphs += child == OD_GRAPH;
            types += child == OD_TYPE;
            deepest = graphs > deepest ? graphs : deepest;
            if (graphs > ONNX_MAX_GRAPH_DEPTH) {
                rc = err_set(BAECHI_EPARSE,
                             "%s: ONNX subgraphs nested more than %d deep (graph level %d starts "
                             "at byte %zu): refused before unpacking, at most %d levels are read",
                             name, ONNX_MAX_GRAPH_DEPTH, graphs, at, ONNX_MAX_GRAPH_DEPTH);
                break;
            }
            if (types > ONNX_MAX_TYPE_DEPTH) {
                rc = err_set(BAECHI_EPARSE,
                             "%s: ONNX types nested more than %d deep (type level %d starts at "
                             "byte %zu): refused before unpacking, at most %d levels are read",
                             name, ONNX_MAX_TYPE_DEPTH, types, at, ONNX_MAX_TYPE_DEPTH);
                break;
            }
            if (n == OD_MAX_FRAMES) { /* cannot happen within the limits above */
                rc = od_bad(name, "messages nested too deep", at);
                break;
            }
            st[n].end = pos + (size_t)v;
            st[n].msg = child;
            n++;
            break;
        default: /* 3, 4: groups (protobuf-c refuses them); 6, 7: none */
            rc = od_bad(name, "an unsupported wire type", at);
            break;
        }
        if (rc) {
            break;
        }
    }
    if (graph_depth) {
        *graph_depth = deepest;
    }
    return rc;
}
