#!/usr/bin/env python3
"""A straightforward transcription of the original system's virtual
scheduler (baechi-spec §5.2), on the graph of graph.build() (§1.2-§1.5),
written independently of the C code, to check `baechi sim --model baechi`
against on real graphs.

usage: virtual_scheduler.py WORKLOAD.yaml PLACEMENT.yaml
prints one JSON object: {"step_us": ..., "peak_bytes": [...], "final_bytes": [...]}
"""
import heapq
import json
import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from graph import build, load  # noqa: E402


def main():
    wl = load(sys.argv[1])
    placement = load(sys.argv[2])["devices"]
    g = build(wl, lambda b: int(round(0.0001754 * b + 134)))  # Python round: half to even
    m, succ, pred, topo = g["m"], g["succ"], g["pred"], g["topo"]
    W, OUT, TEMP, PERS = g["weight"], g["out"], g["temp"], g["pers"]
    dev = [placement[wl["ops"][i]["name"]] for i in g["keep"]]
    tensors = {(u, v): ts for v in range(m) for u, ts in pred[v]}

    ndev = max(dev) + 1
    free_at = [0] * ndev
    chan = [0] * ndev
    used = [0] * ndev
    peak = [0] * ndev
    cache = [dict() for _ in range(ndev)]  # tensor name -> recv_end at that device
    recv_end = {}  # (u, v) -> when the last tensor of the edge arrived
    end = [0] * m
    ready_count = [0] * m
    executed_out = [0] * m
    heap = [(0, topo[v], v) for v in range(m) if not pred[v]]
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
        for u, _ in pred[v]:
            executed_out[u] += 1
            if executed_out[u] == len(succ[u]):
                used[dev[u]] += PERS[u] - OUT[u]
        makespan = max(makespan, free_at[d])
        for w in succ[v]:  # transfers committed at the producer's pop
            dw = dev[w]
            if dw == d:
                continue
            last = 0
            for name, _nbytes, wt in tensors[(v, w)]:
                if name not in cache[dw]:
                    s = max(end[v], chan[d])
                    chan[d] = s + wt
                    r = max(s, chan[dw])
                    chan[dw] = r + wt
                    cache[dw][name] = r + wt
                last = max(last, cache[dw][name])
            recv_end[(v, w)] = last
        for w in succ[v]:
            ready_count[w] += 1
            if ready_count[w] == len(pred[w]):
                r = 0
                for u, _ in pred[w]:
                    r = max(r, end[u] if dev[u] == dev[w] else recv_end[(u, w)])
                heapq.heappush(heap, (r, topo[w], w))
    print(json.dumps({"step_us": makespan, "peak_bytes": peak, "final_bytes": used}))


if __name__ == "__main__":
    main()
