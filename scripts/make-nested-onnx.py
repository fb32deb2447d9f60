#!/usr/bin/env python3
"""make-nested-onnx.py - writes an ONNX model whose subgraphs nest N deep.

The main graph holds one If node; its then_branch holds another If, and so
on, N graphs in all (the main graph is level 1); each else_branch and the
innermost then_branch are one Identity.  With --types M, the main graph
also gets an input whose type is a sequence of a sequence ... of a tensor,
M TypeProto deep.  Written with the Python standard library only (the
protobuf wire format by hand, onnx.proto's field numbers), so that the
fuzz corpus and the tests need no onnx package.  A 3,000-deep file is about
100 KB and crashed protobuf-c's recursive unpacker before the importer
bounded the nesting (workloads/onnx_depth.h).

    scripts/make-nested-onnx.py DEPTH OUT.onnx [--types M] [--truncate BYTES]

--truncate cuts the file to its first BYTES bytes (a malformed model).
"""
import argparse
import sys


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field_varint(num, v):
    return varint(num << 3) + varint(v)


def field_bytes(num, data):
    if isinstance(data, str):
        data = data.encode()
    return varint(num << 3 | 2) + varint(len(data)) + data


# onnx.proto field numbers
NODE_INPUT, NODE_OUTPUT, NODE_OP_TYPE, NODE_ATTRIBUTE, NODE_NAME = 1, 2, 4, 5, 3
ATTR_NAME, ATTR_G, ATTR_TYPE, ATTR_GRAPH = 1, 6, 20, 5
GRAPH_NODE, GRAPH_NAME, GRAPH_INPUT, GRAPH_OUTPUT = 1, 2, 11, 12
VI_NAME, VI_TYPE = 1, 2
TYPE_TENSOR, TYPE_SEQUENCE = 1, 4
TENSOR_ELEM, TENSOR_SHAPE = 1, 2
SHAPE_DIM, DIM_VALUE = 1, 1
MODEL_IR, MODEL_PRODUCER, MODEL_GRAPH, MODEL_OPSET = 1, 2, 7, 8
OPSET_VERSION = 2
FLOAT, BOOL = 1, 9


def tensor_type(elem, dims):
    shape = b"".join(field_bytes(SHAPE_DIM, field_varint(DIM_VALUE, d)) for d in dims)
    return field_bytes(TYPE_TENSOR, field_varint(TENSOR_ELEM, elem) + field_bytes(TENSOR_SHAPE, shape))


def value_info(name, typ):
    return field_bytes(VI_NAME, name) + field_bytes(VI_TYPE, typ)


def node(op, inputs, outputs, name, attrs=b""):
    return (b"".join(field_bytes(NODE_INPUT, i) for i in inputs) +
            b"".join(field_bytes(NODE_OUTPUT, o) for o in outputs) +
            field_bytes(NODE_NAME, name) + field_bytes(NODE_OP_TYPE, op) + attrs)


def graph_attr(name, g):
    return field_bytes(NODE_ATTRIBUTE, field_bytes(ATTR_NAME, name) +
                       field_varint(ATTR_TYPE, ATTR_GRAPH) + field_bytes(ATTR_G, g))


def leaf(level):
    """A subgraph: y = Identity(x) (x from the enclosing scope)."""
    return (field_bytes(GRAPH_NODE, node("Identity", ["x"], ["y%d" % level], "id%d" % level)) +
            field_bytes(GRAPH_NAME, "leaf%d" % level) +
            field_bytes(GRAPH_OUTPUT, value_info("y%d" % level, tensor_type(FLOAT, [1, 4]))))


def nested(depth):
    """The graph of level 2 .. depth, built from the inside out (no recursion)."""
    g = leaf(depth)
    for level in range(depth - 1, 1, -1):
        n = node("If", ["cond"], ["y%d" % level], "if%d" % level,
                 graph_attr("then_branch", g) + graph_attr("else_branch", leaf(level)))
        g = (field_bytes(GRAPH_NODE, n) + field_bytes(GRAPH_NAME, "g%d" % level) +
             field_bytes(GRAPH_OUTPUT, value_info("y%d" % level, tensor_type(FLOAT, [1, 4]))))
    return g


def model(depth, types):
    body = b""
    if depth >= 2:
        body += field_bytes(GRAPH_NODE, node(
            "If", ["cond"], ["y"], "if1",
            graph_attr("then_branch", nested(depth)) + graph_attr("else_branch", leaf(1))))
    else:
        body += field_bytes(GRAPH_NODE, node("Identity", ["x"], ["y"], "id1"))
    body += field_bytes(GRAPH_NAME, "main")
    body += field_bytes(GRAPH_INPUT, value_info("cond", tensor_type(BOOL, [])))
    body += field_bytes(GRAPH_INPUT, value_info("x", tensor_type(FLOAT, [1, 4])))
    if types > 0:
        t = tensor_type(FLOAT, [1])
        for _ in range(types - 1):
            t = field_bytes(TYPE_SEQUENCE, field_bytes(1, t))
        body += field_bytes(GRAPH_INPUT, value_info("seq", t))
    body += field_bytes(GRAPH_OUTPUT, value_info("y", tensor_type(FLOAT, [1, 4])))
    return (field_varint(MODEL_IR, 8) + field_bytes(MODEL_PRODUCER, "make-nested-onnx") +
            field_bytes(MODEL_OPSET, field_varint(OPSET_VERSION, 17)) +
            field_bytes(MODEL_GRAPH, body))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("depth", type=int, help="graphs nested in one another (1: no subgraph)")
    ap.add_argument("out", help="the .onnx file to write")
    ap.add_argument("--types", type=int, default=0, help="TypeProto nesting of an extra input")
    ap.add_argument("--truncate", type=int, default=-1, help="keep only the first BYTES bytes")
    a = ap.parse_args()
    if a.depth < 1:
        sys.exit("make-nested-onnx.py: depth must be at least 1")
    data = model(a.depth, a.types)
    if a.truncate >= 0:
        data = data[:a.truncate]
    with open(a.out, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main()
