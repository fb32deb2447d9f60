/*
 * onnx_shape_rnn.c - shape inference and FLOPs of the recurrent layers:
 * LSTM, GRU, RNN (see onnx_shape.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/onnx_shape_internal.h"

#include <string.h>

/*
 * LSTM, GRU, RNN (ONNX layout 0: X [seq, batch, input], Y [seq, dirs,
 * batch, hidden], Y_h and Y_c [dirs, batch, hidden]; layout 1: batch
 * first).  FLOPs per time step, direction and sequence: per gate (LSTM 4,
 * GRU 3, RNN 1) the two matrix products, 2 x input x hidden + 2 x hidden x
 * hidden, and the element-wise work per hidden unit: the two biases per
 * gate, one activation per gate, and the state update (LSTM: tanh of the
 * cell and 4 products and sums, 17 in all; GRU: 4, 13 in all; RNN: 3).
 * The hidden size is the attribute, else W's rows / gates.
 */
static int infer_rnn(const struct ox_infer *c)
{
    const Onnx__NodeProto *nd = c->nd;
    const struct ox_tensor *a = c->a, *w = c->b;
    struct ox_tensor *out = c->out;
    int n_out = c->n_out;
    int gates = nd->op_type[0] == 'L' ? 4 : nd->op_type[0] == 'G' ? 3 : 1;
    int elt = gates == 4 ? 17 : gates == 3 ? 13 : 3;
    int64_t h = onnx_attr_i(nd, "hidden_size", 0), dirs = 1, seq, batch, insz;
    bool bf = onnx_attr_i(nd, "layout", 0) != 0;
    char dir[32];
    const char *d = onnx_attr_s(nd, "direction", dir, sizeof(dir));

    if (d && strcmp(d, "bidirectional") == 0) {
        dirs = 2;
    }
    if (h < 0) {
        return onnx_infer_error(c, "hidden_size %lld is negative", (long long)h);
    }
    if (h == 0 && w && w->rank == 3) {
        h = w->dim[1] / gates;
    }
    if (!a || a->rank != 3 || h == 0) {
        return 0;
    }
    seq = bf ? a->dim[1] : a->dim[0];
    batch = bf ? a->dim[0] : a->dim[1];
    insz = a->dim[2];
    for (int k = 0; k < n_out; k++) {
        struct ox_tensor *o = &out[k];
        int r = 0;

        o->elem = a->elem;
        o->nval = 0;
        if (k == 0) {
            o->dim[r++] = bf ? batch : seq;
            if (bf) {
                o->dim[r++] = seq;
            }
        }
        if (bf) {
            if (k > 0) {
                o->dim[r++] = batch;
            }
            o->dim[r++] = dirs;
        } else {
            o->dim[r++] = dirs;
            o->dim[r++] = batch;
        }
        o->dim[r++] = h;
        o->rank = r;
    }
    *c->flops = (double)seq * (double)batch * (double)dirs *
                ((double)gates * (2.0 * (double)insz * (double)h + 2.0 * (double)h * (double)h) +
                 (double)elt * (double)h);
    return 0;
}

onnx_infer_fn onnx_shape_rnn_find(const char *op)
{
    if (strcmp(op, "LSTM") == 0 || strcmp(op, "GRU") == 0 || strcmp(op, "RNN") == 0) {
        return infer_rnn;
    }
    return NULL;
}
