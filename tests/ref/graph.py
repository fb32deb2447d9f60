#!/usr/bin/env python3
"""The original's graph building (baechi-spec §1.2-§1.5), transcribed
independently of the C code, shared by the reference transcriptions here:
ops in file order, weight int(time_us) (1 when absent or <= 0), one edge per
(producer, consumer) with its distinct tensors (data inputs first, in input
order, then control inputs as 4-byte tensors), dangling ops pruned and the
rest renumbered, in-edges by producer id, FIFO Kahn topological order.
"""
import yaml


def load(path):
    with open(path) as f:
        return yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def parse_input(s):
    if s.startswith("^"):
        return s[1:], None
    if ":" in s:
        name, port = s.rsplit(":", 1)
        return name, int(port)
    return s, 0


def build(wl, comm):
    """§1.2-§1.5: ops, edges (tensor lists), pruning, adjacency orders, topo."""
    ops = wl["ops"]
    index = {op["name"]: i for i, op in enumerate(ops)}
    n = len(ops)
    edges = {}
    for v, op in enumerate(ops):
        inputs = [parse_input(s) for s in op.get("inputs", []) or []]
        for name, port in inputs:
            if port is None:
                continue
            u = index[name]
            lst = edges.setdefault((u, v), [])
            tname = "%s:%d" % (name, port)
            b = ops[u]["outputs"][port]
            if all(t != tname for t, _, _ in lst):
                lst.append((tname, max(b, 0), comm(max(b, 0))))
        for name, port in inputs:
            if port is None and (index[name], v) not in edges:
                edges[(index[name], v)] = [("^" + name, 4, comm(4))]
    has = [False] * n
    for u, v in edges:
        has[u] = has[v] = True
    keep = [i for i in range(n) if has[i]]
    new = {old: k for k, old in enumerate(keep)}
    m = len(keep)
    succ = [[] for _ in range(m)]
    pred = [[] for _ in range(m)]  # (producer, tensors), producer id ascending
    for (u, v), ts in sorted(edges.items(), key=lambda kv: (new[kv[0][0]], new[kv[0][1]])):
        succ[new[u]].append(new[v])
        pred[new[v]].append((new[u], ts))
    left = [len(pred[v]) for v in range(m)]
    queue = [v for v in range(m) if not left[v]]
    topo = [0] * m
    h = 0
    while h < len(queue):
        u = queue[h]
        topo[u] = h
        h += 1
        for v in succ[u]:
            left[v] -= 1
            if not left[v]:
                queue.append(v)
    g = {"keep": keep, "succ": succ, "pred": pred, "topo": topo, "m": m}
    g["weight"], g["out"], g["temp"], g["pers"], g["group"] = [], [], [], [], []
    for i in keep:
        op = ops[i]
        t = op.get("time_us")
        w = int(t) if t is not None else 1
        g["weight"].append(w if w > 0 else 1)
        g["out"].append(sum(max(b, 0) for b in op.get("outputs", []) or []))
        g["temp"].append(op.get("temp", 0))
        g["pers"].append(op.get("persistent", 0))
        g["group"].append(op.get("group", op["name"]))
    return g
