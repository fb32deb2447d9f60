#!/usr/bin/env python3
"""A straightforward transcription of the original system's graph building
(baechi-spec §1.2-§1.5) and virtual scheduler (§5.2), written independently
of the C code, to check `baechi sim --model baechi` against on real graphs.

usage: virtual_scheduler.py WORKLOAD.yaml PLACEMENT.yaml [SLOPE INTERCEPT]
prints one JSON object: {"step_us": ..., "peak_bytes": [...], "final_bytes": [...]}
"""
import heapq
import json
import sys

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


def main():
    wl = load(sys.argv[1])
    placement = load(sys.argv[2])["devices"]
    coef = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0001754
    intercept = float(sys.argv[4]) if len(sys.argv) > 4 else 134.0

    def comm(nbytes):
        return int(round(coef * nbytes + intercept))  # Python round: half to even

    ops = wl["ops"]
    index = {op["name"]: i for i, op in enumerate(ops)}
    n = len(ops)
    weight, out_mem, temp, persist = [], [], [], []
    for op in ops:
        t = op.get("time_us")
        w = int(t) if t is not None else 1
        weight.append(w if w > 0 else 1)
        out_mem.append([b if b > 0 else 0 for b in op.get("outputs", []) or []])
        temp.append(op.get("temp", 0))
        persist.append(op.get("persistent", 0))

    # §1.3/§1.4: edges consumer by consumer, data inputs then control inputs,
    # distinct tensors per (producer, consumer) pair.
    edges = {}  # (u, v) -> list of (tensor name, bytes)
    for v, op in enumerate(ops):
        inputs = [parse_input(s) for s in op.get("inputs", []) or []]
        for name, port in inputs:
            if port is None:
                continue
            u = index[name]
            lst = edges.setdefault((u, v), [])
            tname = "%s:%d" % (name, port)
            if all(t != tname for t, _ in lst):
                lst.append((tname, out_mem[u][port]))
        for name, port in inputs:
            if port is not None:
                continue
            u = index[name]
            if (u, v) not in edges:
                edges[(u, v)] = [("^" + name, 4)]

    # §1.5: prune ops with neither in- nor out-edges; renumber in order.
    has_edge = [False] * n
    for u, v in edges:
        has_edge[u] = has_edge[v] = True
    keep = [i for i in range(n) if has_edge[i]]
    new = {old: k for k, old in enumerate(keep)}
    m = len(keep)
    succ = [[] for _ in range(m)]  # (consumer, tensors), consumer id ascending
    pred = [[] for _ in range(m)]  # producer ids ascending
    for (u, v), tensors in sorted(edges.items(), key=lambda kv: (new[kv[0][0]], new[kv[0][1]])):
        succ[new[u]].append((new[v], tensors))
        pred[new[v]].append(new[u])
    W = [weight[i] for i in keep]
    OUT = [sum(out_mem[i]) for i in keep]
    TEMP = [temp[i] for i in keep]
    PERS = [persist[i] for i in keep]
    dev = [placement[ops[i]["name"]] for i in keep]

    # FIFO Kahn
    indeg = [len(pred[v]) for v in range(m)]
    queue = [v for v in range(m) if indeg[v] == 0]
    topo = [0] * m
    left = indeg[:]
    head = 0
    while head < len(queue):
        u = queue[head]
        topo[u] = head
        head += 1
        for v, _ in succ[u]:
            left[v] -= 1
            if left[v] == 0:
                queue.append(v)
    assert head == m, "cycle"

    # §5.2 virtual scheduler
    ndev = max(dev) + 1
    free_at = [0] * ndev
    chan = [0] * ndev
    used = [0] * ndev
    peak = [0] * ndev
    cache = [dict() for _ in range(ndev)]  # tensor name -> recv_end
    recv_end = {}  # (edge u->v) -> max recv end of its tensors
    end = [0] * m
    ready_count = [0] * m
    executed_out = [0] * m
    heap = [(0, topo[v], v) for v in range(m) if indeg[v] == 0]
    heapq.heapify(heap)
    makespan = 0
    while heap:
        ready, _, v = heapq.heappop(heap)
        d = dev[v]
        used[d] += OUT[v]
        peak[d] = max(peak[d], used[d])
        used[d] += TEMP[v]
        peak[d] = max(peak[d], used[d])
        start = max(free_at[d], ready)
        end[v] = start + W[v]
        free_at[d] = end[v]
        used[d] -= TEMP[v]
        for u in pred[v]:
            executed_out[u] += 1
            if executed_out[u] == len(succ[u]):
                used[dev[u]] += PERS[u] - OUT[u]
        makespan = max(makespan, free_at[d])
        for w, tensors in succ[v]:
            dw = dev[w]
            if dw == d:
                continue
            last = 0
            for tname, nbytes in tensors:
                if tname not in cache[dw]:
                    wt = comm(nbytes)
                    s = max(end[v], chan[d])
                    chan[d] = s + wt
                    r = max(s, chan[dw])
                    chan[dw] = r + wt
                    cache[dw][tname] = r + wt
                last = max(last, cache[dw][tname])
            recv_end[(v, w)] = last
        for w, _ in succ[v]:
            ready_count[w] += 1
            if ready_count[w] == indeg[w]:
                r = 0
                for u in pred[w]:
                    r = max(r, end[u] if dev[u] == dev[w] else recv_end[(u, w)])
                heapq.heappush(heap, (r, topo[w], w))
    print(json.dumps({"step_us": makespan, "peak_bytes": peak, "final_bytes": used}))


if __name__ == "__main__":
    main()
