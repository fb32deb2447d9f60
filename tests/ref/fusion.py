#!/usr/bin/env python3
"""A straightforward transcription of the original's operator fusion
(baechi-spec §6.3, without the disjoint-path check and without
allow_cycle), on the graph of graph.build(), written independently of the
C code.  Adjacency keeps insertion order, as the original's networkx graph.

fuse(g) returns (fused graph in graph.build()'s layout, owner) where
owner[v] is the fused node that absorbed op v.
"""
from collections import deque


def fuse(g):
    m = g["m"]
    succ = {u: {} for u in range(m)}  # u -> {consumer: tensor list}, insertion ordered
    pred = {v: {} for v in range(m)}  # v -> {producer: tensor list}
    # Edges in source-major order, consumers ascending (the pruned graph's order).
    edges = []
    for v in range(m):
        for u, ts in g["pred"][v]:
            edges.append((u, v, ts))
    edges.sort(key=lambda e: (e[0], e[1]))
    for u, v, ts in edges:
        lst = list(ts)
        succ[u][v] = lst
        pred[v][u] = lst
    weight = list(g["weight"])
    temp = list(g["temp"])
    pers = list(g["pers"])
    out = list(g["out"])
    alive = [True] * m
    owner = list(range(m))
    absorbed = {u: [u] for u in range(m)}

    def add_or_merge(a, b, ts):
        if b in succ[a]:
            existing = succ[a][b]
            for t in ts:
                if t not in existing:
                    existing.append(t)
            return False
        lst = list(ts)
        succ[a][b] = lst
        pred[b][a] = lst
        return True

    order = []
    groups = {}
    for v in range(m):
        if g["group"][v] not in groups:
            groups[g["group"][v]] = []
            order.append(g["group"][v])
        groups[g["group"][v]].append(v)
    for name in order:
        L = list(groups[name])
        members = set(L)
        q = deque()
        for u in L:
            for v in succ[u]:
                if v in members:
                    q.append((u, v))
        while q:
            u, v = q.popleft()
            if not (alive[u] and alive[v] and v in succ[u]):
                continue
            if len(succ[u]) > 1 and len(pred[v]) > 1:
                continue
            weight[u] += weight[v]
            pers[u] += pers[v]
            temp[u] = max(temp[u], temp[v])
            for x, ts in list(pred[v].items()):
                if x != u and add_or_merge(x, u, ts) and x in members:
                    q.append((x, u))
            for y, ts in list(succ[v].items()):
                if y != u and add_or_merge(u, y, ts) and y in members:
                    q.append((u, y))
            for x in list(pred[v]):
                del succ[x][v]
            for y in list(succ[v]):
                del pred[y][v]
            del succ[v]
            del pred[v]
            alive[v] = False
            members.discard(v)
            absorbed[u].extend(absorbed.pop(v))
            seen = set()
            total = 0
            for y, ts in succ[u].items():
                for name_t, b, _w in ts:
                    if name_t not in seen:
                        seen.add(name_t)
                        total += b
            out[u] = total
    keep = [u for u in range(m) if alive[u]]
    new = {old: k for k, old in enumerate(keep)}
    for u in keep:
        for x in absorbed[u]:
            owner[x] = new[u]
    f = {"m": len(keep), "keep": [g["keep"][u] for u in keep]}
    f["succ"] = [[new[v] for v in succ[u]] for u in keep]
    preds = [[] for _ in keep]
    for u in keep:  # source-major: in-edges end up by producer id
        for v, ts in succ[u].items():
            preds[new[v]].append((new[u], ts))
    f["pred"] = preds
    f["topo"] = [g["topo"][u] for u in keep]
    f["weight"] = [weight[u] for u in keep]
    f["out"] = [out[u] for u in keep]
    f["temp"] = [temp[u] for u in keep]
    f["pers"] = [pers[u] for u in keep]
    f["group"] = [g["group"][u] for u in keep]
    return f, owner
