#!/usr/bin/python3
"""export-onnx.py - exports the ONNX fixtures of tests/data/onnx/.

Uses Debian's python3-torch, python3-torchvision and python3-onnx (run it
with /usr/bin/python3); no network, no pretrained weights (weights=None).
The weight payloads are stripped (each initializer keeps its name, type and
dims, so the importer still sees every parameter's size) to keep the files
small.  Models are exported in training mode (BatchNormalization kept, not
folded into convolutions) with batch 1; `baechi workload import --batch N`
scales activations and FLOPs by N.

    /usr/bin/python3 scripts/export-onnx.py [OUTDIR]
    /usr/bin/python3 scripts/export-onnx.py OUTDIR --small   # the small ones only

Models: resnet50, inception_v3, mobilenet_v2, densenet121, vgg16
(torchvision), tiny_gpt (below), gpt2_lm (the GPT2LM of
scripts/measure-memory.py: gpt2_block with embeddings and tied LM head) and gpt2_block (one GPT-2 small block, d 768,
12 heads, seq 1024: the GPT2Block of scripts/measure-memory.py, so that the
imported graph and the measured fixture tests/data/pytorch-memory.json
describe the same module; mobilenet_v2 is also the placement benchmark's
imported training graph, `baechi bench placement`).  Dropout modules are replaced by Identity before
export (training-mode dropout exports a random mask).

Small fixtures of the importer's Transformer and RNN support (small()):
two_input (nn.Transformer with src and tgt), shape_slice (slices and a
reshape sized by shape arithmetic), ln_gelu and ln_gelu-opset17 (LayerNorm
decomposed and as one node, GELU's erf form), lstm and gru_rnn, lstm_seq2seq and gru (the RNNs of
scripts/measure-memory.py), and
reshape-by-data (a Reshape whose shape is data; made with onnx.helper).

Writes, for each model M: M.onnx (with value_info from ONNX shape
inference; each is checked with onnx.checker, see check()) and, for resnet50, resnet50-noshapes.onnx (without value_info, to
exercise the importer's own shape inference).
"""
import importlib.util
import math
import os
import sys

import onnx
import onnx.shape_inference
import torch
import torchvision


class TinyGPT(torch.nn.Module):
    """A 2-layer GPT-style decoder (d 64, 4 heads, vocab 512, seq 16) from
    plain ops: Gather, LayerNormalization, MatMul, Softmax, Gelu, Add."""

    def __init__(self, vocab=512, d=64, heads=4, layers=2, seq=16):
        super().__init__()
        self.heads = heads
        self.wte = torch.nn.Embedding(vocab, d)
        self.wpe = torch.nn.Parameter(torch.zeros(seq, d))
        self.blocks = torch.nn.ModuleList()
        for _ in range(layers):
            self.blocks.append(torch.nn.ModuleDict({
                "ln_1": torch.nn.LayerNorm(d),
                "qkv": torch.nn.Linear(d, 3 * d),
                "proj": torch.nn.Linear(d, d),
                "ln_2": torch.nn.LayerNorm(d),
                "fc": torch.nn.Linear(d, 4 * d),
                "out": torch.nn.Linear(4 * d, d),
            }))
        self.ln_f = torch.nn.LayerNorm(d)

    def forward(self, tokens):
        b, s = tokens.shape
        x = self.wte(tokens) + self.wpe
        for blk in self.blocks:
            h = blk["ln_1"](x)
            q, k, v = blk["qkv"](h).split(x.shape[-1], dim=-1)
            q = q.reshape(b, s, self.heads, -1).transpose(1, 2)
            k = k.reshape(b, s, self.heads, -1).transpose(1, 2)
            v = v.reshape(b, s, self.heads, -1).transpose(1, 2)
            a = torch.softmax(q @ k.transpose(-1, -2) / 4.0, dim=-1) @ v
            x = x + blk["proj"](a.transpose(1, 2).reshape(b, s, -1))
            h = blk["ln_2"](x)
            x = x + blk["out"](torch.nn.functional.gelu(blk["fc"](h)))
        return self.ln_f(x) @ self.wte.weight.t()


class TwoInputTransformer(torch.nn.Module):
    """A tiny encoder-decoder Transformer with two graph inputs, `src` and
    `tgt` (d 32, 2 heads, one encoder and one decoder layer, feed-forward 64,
    no dropout), as nn.Transformer is called in a seq2seq model."""

    def __init__(self, d=32):
        super().__init__()
        self.t = torch.nn.Transformer(d_model=d, nhead=2, num_encoder_layers=1,
                                      num_decoder_layers=1, dim_feedforward=64, dropout=0.0,
                                      batch_first=True)

    def forward(self, src, tgt):
        return self.t(src, tgt)


class ShapeSlice(torch.nn.Module):
    """A QKV split by slicing, then a head reshape whose target shape comes
    from shape arithmetic (Shape -> Gather -> Unsqueeze -> Concat -> Reshape)
    and a slice whose bound does (Shape -> Gather -> Sub -> Slice): exported
    with dynamic batch and sequence axes, then pinned to (2, 5, 48)."""

    def __init__(self, d=48):
        super().__init__()
        self.qkv = torch.nn.Linear(d, 3 * d)

    def forward(self, x):
        y = self.qkv(x)
        n = y.size(-1) // 3
        q, k, v = y[..., :n], y[..., n:2 * n], y[..., 2 * n:]
        b, s = x.size(0), x.size(1)
        q = q.reshape(b, s, 4, n // 4)
        return q.sum() + k[:, : s - 1].sum() + v.sum()


class LnGelu(torch.nn.Module):
    """Linear -> LayerNorm -> GELU (erf form) -> Linear (d 32 -> 64 -> 32)."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(32, 64)
        self.ln = torch.nn.LayerNorm(64)
        self.out = torch.nn.Linear(64, 32)

    def forward(self, x):
        return self.out(torch.nn.functional.gelu(self.ln(self.fc(x))))


class TinyLSTM(torch.nn.Module):
    """One LSTM layer (input 16, hidden 32) over 8 steps, batch 2."""

    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(16, 32)

    def forward(self, x):
        return self.lstm(x)[0]


class GruRnn(torch.nn.Module):
    """A GRU (input 16, hidden 32) then an Elman RNN (hidden 24, tanh),
    bidirectional, over 8 steps, batch 2."""

    def __init__(self):
        super().__init__()
        self.gru = torch.nn.GRU(16, 32)
        self.rnn = torch.nn.RNN(32, 24, bidirectional=True)

    def forward(self, x):
        return self.rnn(self.gru(x)[0])[0]


FLOATS = (onnx.TensorProto.FLOAT, onnx.TensorProto.DOUBLE, onnx.TensorProto.FLOAT16,
          onnx.TensorProto.BFLOAT16)



class TransformerBase(torch.nn.Module):
    """The Transformer of `baechi workload gen transformer --size base`
    (workloads/gen_transformer.c): one embedding (37,000 x 512) shared by
    source, target and the output projection, sinusoidal positions, post-norm
    encoder-decoder of 6 + 6 layers, 8 heads, FFN 2048; no dropout; source and
    target of one length (40).  tests/cli/t125 compares its imported training
    graph with the generated one."""

    def __init__(self, vocab=37000, d=512, seq=40):
        super().__init__()
        self.emb = torch.nn.Embedding(vocab, d)
        pos = torch.zeros(seq, d)
        p = torch.arange(seq).unsqueeze(1)
        div = torch.exp(torch.arange(0, d, 2) * (-math.log(10000.0) / d))
        pos[:, 0::2] = torch.sin(p * div)
        pos[:, 1::2] = torch.cos(p * div)
        self.register_buffer("pos", pos)
        self.tf = torch.nn.Transformer(d, 8, 6, 6, 2048, dropout=0.0, batch_first=True)
        self.d = d

    def forward(self, src, tgt):
        s = self.emb(src) * math.sqrt(self.d) + self.pos
        t = self.emb(tgt) * math.sqrt(self.d) + self.pos
        return self.tf(s, t) @ self.emb.weight.t()

def numel(t):
    n = 1
    for d in t.dims:
        n *= d
    return n


def strip(model):
    """Drops the payload of floating-point initializers of more than 16
    elements (weights), and of floating-point Constant nodes of more than 16
    elements (the GPT block's 1024 x 1024 causal mask, which tracing folds
    into a constant); integer tensors (shapes, axes) stay."""
    tensors = list(model.graph.initializer)
    for node in model.graph.node:
        if node.op_type == "Constant":
            tensors += [a.t for a in node.attribute if a.type == onnx.AttributeProto.TENSOR]
    for t in tensors:
        if t.data_type in FLOATS and numel(t) > 16:
            t.ClearField("raw_data")
            t.ClearField("float_data")
            t.ClearField("double_data")
            t.ClearField("int32_data")
    return model


def check(path):
    """onnx.checker on a fixture: the stripped payloads are refilled with
    zeros in memory first (a stripped tensor alone fails the checker: "should
    contain one and only one value field"); full_check adds ONNX shape
    inference."""
    m = onnx.load(path)
    tensors = list(m.graph.initializer)
    for node in m.graph.node:
        tensors += [a.t for a in node.attribute if a.type == onnx.AttributeProto.TENSOR]
    size = {onnx.TensorProto.FLOAT: 4, onnx.TensorProto.DOUBLE: 8,
            onnx.TensorProto.FLOAT16: 2, onnx.TensorProto.BFLOAT16: 2}
    for t in tensors:
        if (t.data_type in FLOATS and not t.HasField("raw_data") and not t.float_data and
                not t.double_data and not t.int32_data and not t.external_data):
            t.raw_data = bytes(numel(t) * size[t.data_type])
    onnx.checker.check_model(m, full_check=True)
    del m


def export(net, example, path, shapes=True, opset=14, inputs=("input",), dynamic=False):
    # Training mode keeps BatchNormalization nodes (eval mode folds them into
    # the convolutions); batch 1, so that shapes fold into constants.
    net.train()
    torch.onnx.export(net, example, path, opset_version=opset, input_names=list(inputs),
                      output_names=["output"], training=torch.onnx.TrainingMode.TRAINING,
                      do_constant_folding=False,
                      dynamic_axes={inputs[0]: {0: "batch", 1: "seq"}} if dynamic else None)
    m = onnx.load(path)
    if dynamic:
        # sizes traced as Shape -> Gather -> ... ops, then the input's
        # shape pinned to the example's: shape arithmetic the importer folds
        for d, v in zip(m.graph.input[0].type.tensor_type.shape.dim, example.shape):
            d.dim_value = v
    if shapes:
        m = onnx.shape_inference.infer_shapes(m)
    else:
        m.graph.ClearField("value_info")
    strip(m)
    onnx.save(m, path)
    check(path)
    print("%s: %d nodes, %d initializers, %d bytes" % (
        path, len(m.graph.node), len(m.graph.initializer), os.path.getsize(path)))


def no_dropout(net):
    """Replaces every Dropout module by Identity (training-mode dropout
    exports a random mask)."""
    for name, m in list(net.named_modules()):
        for cn, c in list(m.named_children()):
            if isinstance(c, torch.nn.Dropout):
                setattr(m, cn, torch.nn.Identity())
    return net


def measured(name):
    """A model class of scripts/measure-memory.py (one definition), built."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "measure-memory.py")
    spec = importlib.util.spec_from_file_location("measure_memory", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, name)()


def gpt2_block():
    """The GPT2Block of scripts/measure-memory.py (one definition)."""
    return measured("GPT2Block")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "tests/data/onnx"
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    r50 = torchvision.models.resnet50(weights=None)
    export(r50, torch.zeros(1, 3, 224, 224), os.path.join(out, "resnet50.onnx"))
    export(r50, torch.zeros(1, 3, 224, 224), os.path.join(out, "resnet50-noshapes.onnx"),
           shapes=False)
    inc = torchvision.models.inception_v3(weights=None, aux_logits=False, init_weights=False)
    inc.dropout = torch.nn.Identity()  # training-mode dropout exports a random mask
    export(inc, torch.zeros(1, 3, 299, 299), os.path.join(out, "inception_v3.onnx"))
    export(TinyGPT(), torch.zeros(1, 16, dtype=torch.long), os.path.join(out, "tiny_gpt.onnx"))
    tv = torchvision.models
    export(no_dropout(tv.mobilenet_v2(weights=None)), torch.zeros(1, 3, 224, 224),
           os.path.join(out, "mobilenet_v2.onnx"))
    export(tv.densenet121(weights=None), torch.zeros(1, 3, 224, 224),
           os.path.join(out, "densenet121.onnx"))
    export(no_dropout(tv.vgg16(weights=None)), torch.zeros(1, 3, 224, 224),
           os.path.join(out, "vgg16.onnx"))
    export(gpt2_block(), torch.zeros(1, 1024, 768), os.path.join(out, "gpt2_block.onnx"))
    gpt2_lm(out)
    small(out)


def gpt2_lm(out):
    """The GPT2LM of scripts/measure-memory.py: one GPT-2 small block with
    its embeddings and tied LM head (token ids in, logits out)."""
    export(measured("GPT2LM"), torch.zeros(1, 1024, dtype=torch.long),
           os.path.join(out, "gpt2_lm.onnx"))


def small(out):
    """The small fixtures of the importer's Transformer and RNN support."""
    torch.manual_seed(0)
    export(TwoInputTransformer(), (torch.zeros(1, 10, 32), torch.zeros(1, 7, 32)),
           os.path.join(out, "two_input.onnx"), inputs=("src", "tgt"))
    export(ShapeSlice(), torch.zeros(2, 5, 48), os.path.join(out, "shape_slice.onnx"),
           shapes=False, dynamic=True)  # no value_info: the importer folds the shapes itself
    export(LnGelu(), torch.zeros(2, 5, 32), os.path.join(out, "ln_gelu.onnx"))
    export(LnGelu(), torch.zeros(2, 5, 32), os.path.join(out, "ln_gelu-opset17.onnx"), opset=17)
    export(TinyLSTM(), torch.zeros(8, 2, 16), os.path.join(out, "lstm.onnx"))
    export(GruRnn(), torch.zeros(8, 2, 16), os.path.join(out, "gru_rnn.onnx"))
    # the RNNs of the PyTorch memory fixture (batch 1; imported with -b 4)
    export(measured("LstmSeq2Seq"), torch.zeros(1, 32, 64), os.path.join(out, "lstm_seq2seq.onnx"))
    export(measured("GruNet"), torch.zeros(1, 32, 64), os.path.join(out, "gru.onnx"))
    export(no_dropout(measured("TransformerEnc")), torch.zeros(1, 128, 256),
           os.path.join(out, "transformer_enc.onnx"))
    reshape_by_data(os.path.join(out, "reshape-by-data.onnx"))
    export(no_dropout(TransformerBase()),
           (torch.zeros(1, 40, dtype=torch.long), torch.zeros(1, 40, dtype=torch.long)),
           os.path.join(out, "transformer_base.onnx"), inputs=("src", "tgt"))


def reshape_by_data(path):
    """A Reshape whose target shape is a graph input (data, not known at
    import time): the importer's warning names that input."""
    h = onnx.helper
    x = h.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, 6])
    shp = h.make_tensor_value_info("shape", onnx.TensorProto.INT64, [2])
    y = h.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["a", "b"])
    g = h.make_graph([h.make_node("Reshape", ["x", "shape"], ["y"], name="r")], "g", [x, shp], [y])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 14)])
    onnx.checker.check_model(m)
    onnx.save(m, path)
    print("%s: 1 node, %d bytes" % (path, os.path.getsize(path)))


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[2] == "--small":
        small(sys.argv[1])
    else:
        main()
