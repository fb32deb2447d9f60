/*
 * onnx_depth.h - bounds the nesting of an ONNX model before protobuf-c
 * unpacks it.
 *
 * protobuf-c unpacks a sub-message by calling itself, so a model whose
 * messages nest deeply runs the stack out before any check of ours sees
 * the data: ONNX subgraphs (the GRAPH attributes of If, Loop and Scan:
 * GraphProto -> NodeProto -> AttributeProto -> GraphProto ...) nested
 * about 3,000 deep fit in 100 KB and crash the process on an 8 MiB stack,
 * 400 levels on a 1 MiB thread stack.  TypeProto nests the same way
 * (sequence, map and optional types of types).  onnx_check_depth() walks
 * the protobuf wire format with an explicit stack (no recursion, O(len)
 * time, memory bounded by the limits below) and refuses a model nested
 * deeper than they allow, or whose wire data is malformed, before
 * onnx__model_proto__unpack() runs.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_WORKLOADS_ONNX_DEPTH_H
#define BAECHI_WORKLOADS_ONNX_DEPTH_H

#include <stddef.h>
#include <stdint.h>

/*
 * At most this many graphs nested in one another (the main graph is
 * level 1, a subgraph of one of its nodes level 2, ...).  Real models nest
 * a few levels (a Loop in an If in the main graph); exporters of PyTorch
 * and TensorFlow control flow stay under 10.  100 is far above any of them
 * and small for the stack: protobuf-c takes about 2.7 KB per level (three
 * messages: graph, node, attribute; measured: 400 levels overflow a 1 MiB
 * stack, 350 do not), so 100 levels need some 270 KB, which a 512 KB
 * thread stack holds with the rest of the import (a 256 KB one does not).
 */
#define ONNX_MAX_GRAPH_DEPTH 100

/* At most this many TypeProto nested in one another (a sequence of maps
 * of optional tensors is 4); the same reasoning as above. */
#define ONNX_MAX_TYPE_DEPTH 100

/*
 * 0 when the len bytes at data are well-formed protobuf wire data whose
 * graphs and types nest at most ONNX_MAX_GRAPH_DEPTH and
 * ONNX_MAX_TYPE_DEPTH deep; else BAECHI_EPARSE with a message naming
 * `name` (the file), the depth or the malformation and its byte offset.
 * Only the wire format and the nesting are checked: the fields' meaning
 * is protobuf-c's and the importer's business.  *graph_depth (may be NULL)
 * is the deepest graph level seen (up to the first error).  Allocates
 * nothing; safe from any thread.
 */
int onnx_check_depth(const uint8_t *data, size_t len, const char *name, int *graph_depth);

#endif
