#!/usr/bin/python3
"""measure-memory.py - measures what PyTorch keeps for a training step.

For ResNet-50, Inception-V3, MobileNet-V2, DenseNet-121, VGG-16 (torchvision,
weights=None, train mode, fp32, CPU), one GPT-2 small block (plain torch,
d_model 768, 12 heads, seq 1024), an LSTM seq2seq, a 2-layer GRU, two
nn.TransformerEncoderLayer and four GPT-2 blocks under
torch.utils.checkpoint (the classes below), records with
torch.autograd.graph.saved_tensors_hooks the bytes autograd saves for
backward during one forward pass + loss, and measures parameter, gradient and
optimizer-state bytes (SGD, SGD with momentum, Adam: one optimizer step each,
summing the tensors of optimizer.state).  Writes a small JSON fixture that the
C side (training synthesis, generated and imported graphs) is checked
against; see docs/pytorch-memory.md.

    /usr/bin/python3 scripts/measure-memory.py [OUT.json] [--only M,...] [--verbose]

Default OUT.json: tests/data/pytorch-memory.json.  Uses Debian's python3-torch
and python3-torchvision; no network, no pretrained weights.  --verbose prints
every saved tensor (node, attribute, shape, dtype, storage, kind) to stderr.

Counting rules:
  - every tensor passed to the pack hook is recorded; a storage (identified
    by its data_ptr, sized by its nbytes) is counted once however many saved
    tensors (views, in-place results) refer to it;
  - a saved tensor whose storage is a parameter's counts as saved_param_bytes,
    a module buffer's (BatchNorm's running_mean / running_var, the GPT
    block has none) as saved_buffer_bytes, the input batch's as
    saved_input_bytes, the labels' as saved_label_bytes; saved_bytes holds the rest (activations and buffers
    such as BatchNorm's save_mean / save_invstd, MaxPool's indices, dropout
    masks);
  - by_node attributes each saved storage to the autograd node types that
    save it (read back through the nodes' _saved_* attributes, which call the
    unpack hook): a node type's "bytes" counts the storages it is the first
    to save in forward order (nodes ordered by their first pack), so the
    "bytes" of all node types sum to saved_bytes; "shared_bytes" counts those
    already saved by an earlier node (e.g. the input of a convolution that is
    the result saved by the in-place ReLU before it).
"""
import json
import math
import sys
import time

import torch
import torch.utils.checkpoint
import torchvision


class GPT2Block(torch.nn.Module):
    """One GPT-2 (pre-norm) decoder block, as one layer of `baechi workload gen
    gpt --size small` (workloads/gen_gpt.c): h/ln_1, h/attn/qkv (fused), the
    scores, softmax (causal), context, h/attn/out, residual add, h/ln_2,
    h/mlp/c_fc, gelu (tanh form), h/mlp/c_proj, residual add.  Dropout p=0
    (omitted).  The causal mask is an additive float tensor (0 / -inf) built
    in forward from the scores' shape (full_like + triu; tracing folds it
    into a Constant, which scripts/export-onnx.py strips); its Add saves
    nothing for backward (masked_fill would save a bool mask)."""

    def __init__(self, d=768, heads=12):
        super().__init__()
        self.d, self.heads = d, heads
        self.ln_1 = torch.nn.LayerNorm(d)
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.out = torch.nn.Linear(d, d)
        self.ln_2 = torch.nn.LayerNorm(d)
        self.c_fc = torch.nn.Linear(d, 4 * d)
        self.c_proj = torch.nn.Linear(4 * d, d)

    def forward(self, x):
        b, s, d = x.shape
        hd = d // self.heads
        q, k, v = self.qkv(self.ln_1(x)).split(d, dim=-1)
        q = q.view(b, s, self.heads, hd).transpose(1, 2)
        k = k.view(b, s, self.heads, hd).transpose(1, 2)
        v = v.view(b, s, self.heads, hd).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
        mask = torch.full_like(att[0, 0], float("-inf")).triu(1)
        att = torch.softmax(att + mask, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, s, d)
        x = x + self.out(y)
        h = torch.nn.functional.gelu(self.c_fc(self.ln_2(x)), approximate="tanh")
        return x + self.c_proj(h)


class GPT2LM(torch.nn.Module):
    """A one-block GPT-2 small language model, as `baechi workload gen gpt
    --size small --layers 1` builds it: token (50,257 x 768) and position
    (1,024 x 768) embeddings, one GPT2Block, ln_f and the LM head tied to the
    token embedding; trained with cross_entropy over the vocabulary (kind
    "lm": token ids in, logits.view(-1, V) against labels).  Exported by
    scripts/export-onnx.py as tests/data/onnx/gpt2_lm.onnx."""

    def __init__(self, vocab=50257, d=768, seq=1024):
        super().__init__()
        self.wte = torch.nn.Embedding(vocab, d)
        self.wpe = torch.nn.Embedding(seq, d)
        self.h = GPT2Block(d)
        self.ln_f = torch.nn.LayerNorm(d)
        self.vocab, self.seq = vocab, seq

    def forward(self, tokens):
        pos = torch.arange(tokens.shape[1], device=tokens.device)
        x = self.h(self.wte(tokens) + self.wpe(pos))
        return self.ln_f(x) @ self.wte.weight.t()


class LstmSeq2Seq(torch.nn.Module):
    """An LSTM encoder-decoder (input 64, hidden 128, 1 layer each, seq 32,
    batch first):
    the decoder starts from the encoder's final (h, c) and reads the same
    sequence (teacher forcing with one input), then a Linear 128 -> 64.
    Exported by scripts/export-onnx.py as tests/data/onnx/lstm_seq2seq.onnx."""

    def __init__(self, d=64, hidden=128):
        super().__init__()
        self.enc = torch.nn.LSTM(d, hidden, batch_first=True)
        self.dec = torch.nn.LSTM(d, hidden, batch_first=True)
        self.out = torch.nn.Linear(hidden, d)

    def forward(self, x):
        _, state = self.enc(x)
        y, _ = self.dec(x, state)
        return self.out(y)


class GruNet(torch.nn.Module):
    """A 2-layer GRU (input 64, hidden 128, seq 32, batch first) then a Linear 128 -> 64.
    Exported by scripts/export-onnx.py as tests/data/onnx/gru.onnx."""

    def __init__(self, d=64, hidden=128):
        super().__init__()
        self.gru = torch.nn.GRU(d, hidden, num_layers=2, batch_first=True)
        self.out = torch.nn.Linear(hidden, d)

    def forward(self, x):
        return self.out(self.gru(x)[0])


class TransformerEnc(torch.nn.Module):
    """Two nn.TransformerEncoderLayer (d 256, 4 heads, ffn 1024, ReLU, post
    norm, batch first, dropout 0) over seq 128: nn.MultiheadAttention's
    explicit path in torch 1.13 (the packed in-projection copied into one
    contiguous q/k/v storage, q scaled into a new storage, bmm, softmax,
    bmm).  torch 1.13 has no scaled_dot_product_attention (SDPA, torch 2.0):
    its flash / memory-efficient kernels are not measured here.  Exported
    by scripts/export-onnx.py as tests/data/onnx/transformer_enc.onnx."""

    def __init__(self, d=256, heads=4, ffn=1024, layers=2):
        super().__init__()
        layer = torch.nn.TransformerEncoderLayer(d, heads, ffn, dropout=0.0, batch_first=True)
        self.enc = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)

    def forward(self, x):
        return self.enc(x)


class GPT2Checkpointed(torch.nn.Module):
    """Four GPT2Blocks, each under torch.utils.checkpoint (the reentrant
    variant of torch 1.13, which saves each block's input through
    save_for_backward and recomputes the block inside backward): what
    `workload gen gpt --size small --layers 4 --recompute full` models for
    its layers h0..h3.  The input requires a gradient (the reentrant
    checkpoint needs one to propagate gradients)."""

    def __init__(self, n=4):
        super().__init__()
        self.blocks = torch.nn.ModuleList([GPT2Block() for _ in range(n)])

    def forward(self, x):
        for b in self.blocks:
            x = torch.utils.checkpoint.checkpoint(b, x)
        return x


def models():
    """(name, constructor, input shape, batch, kind) of each measured model."""
    tv = torchvision.models
    return [
        ("resnet50", lambda: tv.resnet50(weights=None), (3, 224, 224), 2, "cnn"),
        ("inception_v3", lambda: tv.inception_v3(weights=None, aux_logits=False,
                                                 init_weights=False), (3, 299, 299), 2, "cnn"),
        ("mobilenet_v2", lambda: tv.mobilenet_v2(weights=None), (3, 224, 224), 2, "cnn"),
        ("densenet121", lambda: tv.densenet121(weights=None), (3, 224, 224), 2, "cnn"),
        ("vgg16", lambda: tv.vgg16(weights=None), (3, 224, 224), 2, "cnn"),
        ("gpt2_block", GPT2Block, (1024, 768), 1, "gpt"),
        ("lstm_seq2seq", LstmSeq2Seq, (32, 64), 4, "rnn"),
        ("gru", GruNet, (32, 64), 4, "rnn"),
        ("transformer_enc", TransformerEnc, (128, 256), 2, "gpt"),
        ("gpt2_ckpt4", GPT2Checkpointed, (1024, 768), 1, "ckpt"),
        ("gpt2_lm", GPT2LM, (1024,), 1, "lm"),
    ]


def sptr(t):
    return t.storage().data_ptr()


def snbytes(t):
    return t.storage().nbytes()


def tbytes(t):
    return t.numel() * t.element_size()


def saved_attrs(node):
    """(attribute, tensor) of every saved tensor of an autograd node."""
    for a in dir(node):
        if not a.startswith("_saved_"):
            continue
        yield a[len("_saved_"):], getattr(node, a)


def measure(name, ctor, shape, batch, kind, verbose=False):
    torch.manual_seed(0)
    model = ctor()
    model.train()
    x = torch.randint(0, 50257, (batch, *shape)) if kind == "lm" else torch.randn(batch, *shape)
    if kind == "ckpt":
        x.requires_grad_(True)
    params = list(model.parameters())
    param_ptrs = {sptr(p) for p in params}
    buffer_ptrs = {sptr(b) for b in model.buffers()}
    param_bytes = sum(tbytes(p) for p in params)
    grad_bytes = sum(tbytes(p) for p in params if p.requires_grad)

    packed = []  # saved tensors, in pack (= forward) order
    last = [None]

    def pack(t):
        packed.append(t)
        return len(packed) - 1

    def unpack(i):
        last[0] = i
        return packed[i]

    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        out = model(x)
        # the loss a training script of the model runs, as `baechi workload
        # import --train` adds it by default (docs/onnx-import.md, "The
        # loss"): cross-entropy over classes (cnn) or the vocabulary (lm),
        # mse for the RNNs' linear heads over real-valued sequences (rnn),
        # none for blocks and encoders without a head (out.sum(): nothing
        # saved)
        if kind == "cnn":
            labels = torch.randint(0, out.shape[1], (batch,))
            loss = torch.nn.functional.cross_entropy(out, labels)
        elif kind == "lm":
            labels = torch.randint(0, out.shape[-1], out.shape[:-1])
            loss = torch.nn.functional.cross_entropy(out.reshape(-1, out.shape[-1]),
                                                     labels.reshape(-1))
        elif kind == "rnn":
            labels = torch.randn_like(out)
            loss = torch.nn.functional.mse_loss(out, labels)
        else:
            labels = None
            loss = out.sum()
    label_ptr = sptr(labels) if labels is not None else None
    input_ptr = sptr(x)

    def kind_of(t):
        p = sptr(t)
        if p in param_ptrs:
            return "param"
        if p in buffer_ptrs:
            return "buffer"
        if p == input_ptr:
            return "input"
        if p == label_ptr:
            return "label"
        return "act"

    # Walk the autograd graph; read each node's saved tensors back, noting
    # which pack each one came from.
    nodes, seen, stack = [], set(), [loss.grad_fn]
    while stack:
        n = stack.pop()
        if n is None or n in seen:
            continue
        seen.add(n)
        sv = []
        for attr, val in saved_attrs(n):
            vals = val if isinstance(val, (list, tuple)) else [val]
            for v in vals:
                if isinstance(v, torch.Tensor):
                    last[0] = None
                    # re-read: the unpack hook records the pack index
                    v = getattr(n, "_saved_" + attr)
                    if isinstance(v, (list, tuple)):
                        # a list attribute: one unpack per element, so find
                        # each by identity
                        for e in v:
                            idx = next(i for i, t in enumerate(packed) if t is e)
                            sv.append((attr, idx))
                        break
                    sv.append((attr, last[0]))
        nodes.append((min([i for _, i in sv if i is not None], default=1 << 60), n, sv))
        stack.extend(f for f, _ in n.next_functions)
    nodes.sort(key=lambda e: e[0])

    reached = {i for _, _, sv in nodes for _, i in sv}
    unreached = [i for i in range(len(packed)) if i not in reached]

    # Totals over all packed tensors.
    stor = {}
    nodedup = 0
    for t in packed:
        stor.setdefault(sptr(t), (snbytes(t), kind_of(t)))
        if kind_of(t) == "act":
            nodedup += tbytes(t)
    tot = {"act": 0, "param": 0, "buffer": 0, "input": 0, "label": 0}
    for nb, k in stor.values():
        tot[k] += nb

    # Per node type.
    by_node, counted = {}, set()
    for _, n, sv in nodes:
        e = by_node.setdefault(n.name(), {"count": 0, "bytes": 0, "shared_bytes": 0,
                                          "param_bytes": 0, "saved": {}})
        e["count"] += 1
        mine = set()
        for attr, i in sv:
            t = packed[i]
            k, p = kind_of(t), sptr(t)
            a = e["saved"].setdefault(attr, {"n": 0, "tensor_bytes": 0, "kind": []})
            a["n"] += 1
            a["tensor_bytes"] += tbytes(t)
            dt = str(t.dtype).replace("torch.", "")
            tag = k if k != "act" else "act:" + dt
            if tag not in a["kind"]:
                a["kind"].append(tag)
            if verbose:
                print("%-14s %-34s %-14s %-22s %-8s s%x %9d %s" % (
                    name, n.name(), attr, tuple(t.shape), dt, p, snbytes(t), k),
                    file=sys.stderr)
            if p in mine:
                continue
            mine.add(p)
            if k != "act":
                e[k + "_bytes"] = e.get(k + "_bytes", 0) + snbytes(t)
            else:
                if p in counted:
                    e["shared_bytes"] += snbytes(t)
                else:
                    counted.add(p)
                    e["bytes"] += snbytes(t)
    assert sum(e["bytes"] for e in by_node.values()) == tot["act"] or unreached

    # Gradients and optimizer state.
    n_packed = len(packed)
    loss.backward()
    packed.clear()
    grads = sum(tbytes(p.grad) for p in params if p.grad is not None)
    opt = {}
    for oname, mk in [("sgd", lambda: torch.optim.SGD(params, lr=0.0)),
                      ("momentum", lambda: torch.optim.SGD(params, lr=0.0, momentum=0.9)),
                      ("adam", lambda: torch.optim.Adam(params, lr=0.0))]:
        o = mk()
        o.step()
        b, step_b = 0, 0
        for st in o.state.values():
            for key, v in st.items():
                if isinstance(v, torch.Tensor):
                    b += tbytes(v)
                    if key == "step":
                        step_b += tbytes(v)
        opt[oname] = b
        if step_b:
            opt[oname + "_step_tensors"] = step_b
        del o

    rec = {
        "model": name,
        "batch": batch,
        "input_shape": [batch] + list(shape),
        "dtype_bytes": 4,
        "loss": {"cnn": "cross-entropy", "lm": "cross-entropy", "rnn": "mse"}.get(kind, "none"),
        "saved_bytes": tot["act"],
        "saved_bytes_nodedup": nodedup,
        "saved_param_bytes": tot["param"],
        "saved_buffer_bytes": tot["buffer"],
        "saved_input_bytes": tot["input"],
        "saved_label_bytes": tot["label"],
        "saved_tensors": n_packed,
        "param_bytes": param_bytes,
        "grad_bytes": grad_bytes,
        "grad_bytes_measured": grads,
        "optimizer_state_bytes": opt,
        "by_node": dict(sorted(by_node.items())),
        "torch_version": torch.__version__,
    }
    if unreached:
        rec["unattributed_saved_tensors"] = len(unreached)
    return rec


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    out = args[0] if args else "tests/data/pytorch-memory.json"
    verbose = "--verbose" in sys.argv
    only = None
    for a in sys.argv[1:]:
        if a.startswith("--only="):
            only = a[len("--only="):].split(",")
    torch.set_num_threads(1)
    recs = []
    for name, ctor, shape, batch, kind in models():
        if only and name not in only:
            continue
        t0 = time.time()
        r = measure(name, ctor, shape, batch, kind, verbose)
        recs.append(r)
        print("%-13s batch %d: saved %.2f MiB (no dedup %.2f), params %.2f MiB, %.1f s" % (
            name, batch, r["saved_bytes"] / 2**20, r["saved_bytes_nodedup"] / 2**20,
            r["param_bytes"] / 2**20, time.time() - t0))
    # Batch checks: saved bytes against batch (the GPT block's attention
    # operands are views of the qkv output at batch 1, copies above).
    checks = []
    for name, ctor, shape, batch, kind in models():
        if (only and name not in only) or name not in ("resnet50", "gpt2_block"):
            continue
        b = 1 if kind == "cnn" else 2
        r = measure(name, ctor, shape, b, kind)
        del r["by_node"]
        checks.append(r)
        print("%-13s batch %d: saved %.2f MiB (batch check)" % (name, b, r["saved_bytes"] / 2**20))
    with open(out, "w") as f:
        json.dump({"what": "bytes autograd saves for backward, parameters, gradients and "
                           "optimizer state, measured by scripts/measure-memory.py; see "
                           "docs/pytorch-memory.md",
                   "models": recs, "batch_checks": checks}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
