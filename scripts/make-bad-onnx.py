#!/usr/bin/python3
"""make-bad-onnx.py - writes the malformed ONNX fixtures tests/data/bad/o-*.onnx.

Each is a tiny model that once crashed or misled the importer (issue 13:
axes out of range, a node without op_type, invalid UTF-8, dimension
products, dilations and pads that overflow or go negative).  The protobuf is
encoded here with the standard library only (the field numbers are those of
onnx.proto), so no onnx or protobuf module is needed:

    python3 scripts/make-bad-onnx.py [OUTDIR]     (default tests/data/bad)

tests/data/bad/EXPECT holds the message each must give
(tests/cli/t110-bad-inputs.sh).
"""
import os
import struct
import sys


def varint(n):
    n &= (1 << 64) - 1  # negative int64 as two's complement, 10 bytes
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def key(field, wire):
    return varint(field << 3 | wire)


def f_int(field, n):
    return key(field, 0) + varint(n)


def f_bytes(field, data):
    if isinstance(data, str):
        data = data.encode()
    return key(field, 2) + varint(len(data)) + data


def f_float(field, x):
    return key(field, 5) + struct.pack("<f", x)


# onnx.proto field numbers
FLOAT, INT64 = 1, 7
ATTR_FLOAT, ATTR_INT, ATTR_STRING, ATTR_INTS = 1, 2, 3, 7


def attr_i(name, i):
    return f_bytes(1, name) + f_int(3, i) + f_int(20, ATTR_INT)


def attr_ints(name, ints):
    return f_bytes(1, name) + b"".join(f_int(8, v) for v in ints) + f_int(20, ATTR_INTS)


def node(op_type, inputs, outputs, name, attrs=()):
    b = b"".join(f_bytes(1, i) for i in inputs)
    b += b"".join(f_bytes(2, o) for o in outputs)
    if name is not None:
        b += f_bytes(3, name)
    if op_type is not None:
        b += f_bytes(4, op_type)
    b += b"".join(f_bytes(5, a) for a in attrs)
    return b


def value_info(name, dims, elem=FLOAT):
    shape = b"".join(f_bytes(1, f_int(1, d)) for d in dims)
    tensor = f_int(1, elem) + f_bytes(2, shape)
    return f_bytes(1, name) + f_bytes(2, f_bytes(1, tensor))


def initializer(name, dims, elem, int64s=()):
    b = b"".join(f_int(1, d) for d in dims) + f_int(2, elem)
    b += b"".join(f_int(7, v) for v in int64s)
    return b + f_bytes(8, name)


def model(nodes, inputs, outputs, inits=()):
    g = b"".join(f_bytes(1, n) for n in nodes)
    g += f_bytes(2, "bad")
    g += b"".join(f_bytes(5, t) for t in inits)
    g += b"".join(f_bytes(11, v) for v in inputs)
    g += b"".join(f_bytes(12, v) for v in outputs)
    opset = f_bytes(1, "") + f_int(2, 11)
    return f_int(1, 8) + f_bytes(2, "baechi-test") + f_bytes(7, g) + f_bytes(8, opset)


X = value_info("x", [2, 3])
X4 = value_info("x", [1, 3, 8, 8])
Y = value_info("y", [2, 3])
IDX = initializer("idx", [1], INT64, [0])

FIXTURES = {
    # item 1: axes out of range
    "o-gather-axis.onnx": model(
        [node("Gather", ["x", "idx"], ["y"], "g", [attr_i("axis", 1000)])], [X], [Y], [IDX]),
    "o-gather-axis-neg.onnx": model(
        [node("Gather", ["x", "idx"], ["y"], "g", [attr_i("axis", -1000)])], [X], [Y], [IDX]),
    "o-concat-axis.onnx": model(
        [node("Concat", ["x", "x"], ["y"], "c", [attr_i("axis", 100000)])], [X], [Y]),
    "o-split-axis.onnx": model(
        [node("Split", ["x"], ["y", "z"], "s", [attr_i("axis", 9)])], [X], [Y]),
    "o-softmax-axis.onnx": model(
        [node("Softmax", ["x"], ["y"], "sm", [attr_i("axis", 2)])], [X], [Y]),
    "o-flatten-axis.onnx": model(
        [node("Flatten", ["x"], ["y"], "f", [attr_i("axis", 3)])], [X], [Y]),
    "o-squeeze-axes.onnx": model(
        [node("Squeeze", ["x"], ["y"], "sq", [attr_ints("axes", [4])])], [X], [Y]),
    "o-unsqueeze-axes.onnx": model(
        [node("Unsqueeze", ["x"], ["y"], "us", [attr_ints("axes", [-9])])], [X], [Y]),
    "o-reduce-axes.onnx": model(
        [node("ReduceSum", ["x"], ["y"], "r", [attr_ints("axes", [7])])], [X], [Y]),
    # item 2: no op_type, a 4th input that is an initializer (the consumer
    # scan compared op_type with "BatchNormalization" before any check)
    "o-no-op-type.onnx": model(
        [node(None, ["x", "idx", "idx", "idx"], ["y"], "n")], [X], [Y], [IDX]),
    # item 3: invalid UTF-8 in op_type
    "o-bad-utf8.onnx": model(
        [node(b"Relu\xff", ["x"], ["y"], "r")], [X], [Y]),
    # item 4: products, dilations, pads, strides
    "o-dims-overflow.onnx": model(
        [node("Relu", ["x"], ["y"], "r")], [value_info("x", [1 << 40, 1 << 40])], [Y]),
    "o-reshape-overflow.onnx": model(
        [node("Reshape", ["x", "shape"], ["y"], "rs")], [X], [Y],
        [initializer("shape", [2], INT64, [1 << 40, 1 << 40])]),
    "o-dilation-overflow.onnx": model(
        [node("MaxPool", ["x"], ["y"], "p",
              [attr_ints("kernel_shape", [3, 3]), attr_ints("dilations", [1 << 62, 1])])],
        [X4], [Y]),
    "o-negative-pads.onnx": model(
        [node("Pad", ["x"], ["y"], "pad", [attr_ints("pads", [0, -100, 0, 0])])], [X], [Y]),
    "o-conv-negative-pads.onnx": model(
        [node("MaxPool", ["x"], ["y"], "p",
              [attr_ints("kernel_shape", [1, 1]), attr_ints("pads", [-50, 0, -50, 0])])],
        [X4], [Y]),
    "o-negative-stride.onnx": model(
        [node("MaxPool", ["x"], ["y"], "p",
              [attr_ints("kernel_shape", [2, 2]), attr_ints("strides", [-1, 1])])],
        [X4], [Y]),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "bad")
    for name, data in sorted(FIXTURES.items()):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
