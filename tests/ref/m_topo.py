#!/usr/bin/env python3
"""A straightforward transcription of the original's m-TOPO (baechi-spec §2,
uniform and non-uniform, colocation groups, the tf grouper), written
independently of the C code.

usage: m_topo.py WORKLOAD.yaml N_DEVICES MEM_BYTES FRACTION uniform|nonuniform [tf|coplace]
prints {"devices": {op name: device}} or {"infeasible": "..."}.
"""
import json
import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from graph import build, load  # noqa: E402
from m_etf import coplace  # noqa: E402


def main():
    wl = load(sys.argv[1])
    k = int(sys.argv[2])
    limit = int(float(sys.argv[4]) * int(sys.argv[3]))
    uniform = sys.argv[5] == "uniform"
    g = build(wl, lambda b: 0)
    if len(sys.argv) > 6 and sys.argv[6] == "coplace":
        coplace(g)
    m = g["m"]
    mem = [g["temp"][v] + g["out"][v] for v in range(m)]
    members = {}
    for v in range(m):
        members.setdefault(g["group"][v], []).append(v)
    temp_max = {x: max(g["temp"][v] for v in vs) for x, vs in members.items()}
    pers_sum = {x: sum(g["pers"][v] for v in vs) for x, vs in members.items()}
    cap = sum(mem) // k + max(mem)
    order = sorted(range(m), key=lambda v: (g["topo"][v], v))
    place = [None] * m
    used = [0] * k
    idx = 0
    for d in range(k):
        while idx < m:
            v = order[idx]
            if place[v] is None:
                grp = g["group"][v]
                need = temp_max[grp] + pers_sum[grp]
                ok = used[d] + need < cap if uniform else limit - used[d] >= need
                if not ok:
                    break
                for x in members[grp]:
                    place[x] = d
                    used[d] += mem[x]
            idx += 1
    if idx != m:
        print(json.dumps({"infeasible": "%d operators cannot be placed" % (m - idx)}))
        return
    names = [wl["ops"][i]["name"] for i in g["keep"]]
    print(json.dumps({"devices": dict(zip(names, place))}))


if __name__ == "__main__":
    main()
