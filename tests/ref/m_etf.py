#!/usr/bin/env python3
"""A straightforward transcription of the original's m-ETF (baechi-spec §3,
non-reserve, colocation as a hard constraint, the tf grouper), written
independently of the C code.  It recomputes every ready op's schedule time
on every device before each decision, as the original does (its ready-time
cache is exact, §3.4, so it is left out here).

usage: m_etf.py WORKLOAD.yaml N_DEVICES MEM_BYTES [FRACTION [tf|coplace [fusion|nofusion
                [reserve|noreserve [sct1]]]]]
(sct1: m-SCT with threshold 1, where every edge is a favourite edge)
prints one JSON object: {"estimate_us": ..., "devices": {op name: device}}
or {"infeasible": "..."}.
"""
import json
import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from graph import build, load  # noqa: E402

NONE = None
INF = sys.maxsize


def coplace(g):
    """§6.1 co-placement grouper, step by step: an op whose output feeds
    exactly one consumer op joins that op's group; the union of a step is
    renamed to its shortest (then lexicographically least) name; repeat until
    nothing changes."""
    while True:
        parent = {}

        def find(x):
            while parent.get(x, x) != x:
                x = parent[x]
            return x

        for u in range(g["m"]):
            consumers = set(g["succ"][u])
            if len(consumers) != 1:
                continue
            v = consumers.pop()
            a, b = find(g["group"][u]), find(g["group"][v])
            if a != b:
                parent[a] = b
        if not parent:
            return
        members = {}
        for name in set(parent) | set(parent.values()):
            members.setdefault(find(name), []).append(name)
        rep = {}
        for names in members.values():
            r = min(names, key=lambda x: (len(x), x))
            for x in names:
                rep[x] = r
        changed = False
        for v in range(g["m"]):
            new = rep.get(g["group"][v], g["group"][v])
            changed |= new != g["group"][v]
            g["group"][v] = new
        if not changed:
            return


class Infeasible(Exception):
    pass


def favourites_all(g):
    """§4.2 assignment when every edge rounds to 0 (θ = 1: x_e <= 1 always),
    which makes m-SCT independent of the LP solver's vertex: edges in source
    order then out-adjacency order, the last favourite wins, and a child's
    earlier parent loses its favourite (the original's side effect)."""
    fav = [-1] * g["m"]
    parent = [-1] * g["m"]
    for i in range(g["m"]):
        for j in g["succ"][i]:
            fav[i] = j
            if parent[j] != -1:
                fav[parent[j]] = -1
            parent[j] = i
    return fav


def m_etf(g, ndev, limit, reserve=False, fav=None):
    """m-ETF, or m-SCT (§4.3) when `fav` (favourite child per node) is given."""
    m = g["m"]
    succ, pred, topo = g["succ"], g["pred"], g["topo"]
    W, OUT, TEMP, PERS, GROUP = g["weight"], g["out"], g["temp"], g["pers"], g["group"]
    members = {}
    for v in range(m):
        members.setdefault(GROUP[v], []).append(v)
    pers_sum = {k: sum(PERS[v] for v in vs) for k, vs in members.items()}
    # §3.3/§3.6: what a group needs when first placed
    if reserve:
        need = {k: max(TEMP[v] for v in vs) + pers_sum[k] + max(OUT[v] for v in vs)
                for k, vs in members.items()}
    else:
        need = pers_sum
    resv = [dict() for _ in range(ndev)]  # group -> [avail, limit] (reserve mode)
    refcount = {}

    free_at = [0] * ndev
    chan = [0] * ndev
    cache = [dict() for _ in range(ndev)]  # tensor name -> recv_end at that device
    cur = [0] * ndev
    busy = [False] * ndev
    last_op = [None] * ndev
    used = [0] * ndev
    place = [None] * m
    end = [0] * m
    ready_count = [0] * m
    exec_out = [0] * m
    ready = [v for v in range(m) if not pred[v]]
    scheduled = 0

    def avail(d):
        return limit[d] - used[d]

    def placeable(v, d):
        extra = resv[d][GROUP[v]][0] if GROUP[v] in resv[d] else 0
        return TEMP[v] + OUT[v] <= avail(d) + extra

    def transfer_end(ts, src, dst, pe, dry):
        e = -1
        to_send = []
        for name, _b, w in ts:
            if name in cache[dst]:
                e = max(e, cache[dst][name])
            else:
                to_send.append((name, w))
        if to_send:
            if dry:
                total = sum(w for _, w in to_send)
                s = max(pe, chan[src])
                r = max(s, chan[dst])
                e = max(e, r + total)
            else:
                for name, w in to_send:
                    s = max(pe, chan[src])
                    chan[src] = s + w
                    r = max(s, chan[dst])
                    chan[dst] = r + w
                    cache[dst][name] = r + w
                    e = max(e, r + w)
        assert e > 0
        return e

    def ready_time(v, d, dry):
        if not placeable(v, d):
            return NONE
        r = 0
        for u, ts in pred[v]:
            t = end[u] if place[u] == d else transfer_end(ts, place[u], d, end[u], dry)
            r = max(r, t)
        return r

    def sched_raw(v, d):
        if place[v] is not None and place[v] != d:
            return NONE
        rt = ready_time(v, d, True)
        if rt is NONE:
            return NONE
        return max(rt, free_at[d])

    def colocation_ok(v, d):
        # the colocation filter, for unplaced ops only (§3.4)
        return place[v] is not None or need[GROUP[v]] <= avail(d)

    def raw_alloc(d, b):
        if limit[d] - used[d] < b:
            raise Infeasible("allocation")
        used[d] += b

    def alloc(d, b, v):
        r = resv[d].get(GROUP[v])
        if b == 0:
            return
        if r is None:
            raw_alloc(d, b)
        elif r[0] >= b:
            r[0] -= b
        else:
            short = b - r[0]
            r[0] = 0
            raw_alloc(d, short)

    def free(d, b, v):
        r = resv[d].get(GROUP[v])
        if b == 0:
            return
        if r is None:
            used[d] -= b
            return
        total = r[0] + b
        if total > r[1]:
            r[0] = r[1]
            used[d] -= total - r[1]
        else:
            r[0] = total

    t = 0
    next_ts = [None] * ndev
    while True:
        for d in range(ndev):
            cur[d] = t
            if t == free_at[d] and last_op[d] is not None:
                for s in succ[last_op[d]]:
                    ready_count[s] += 1
                    if ready_count[s] == len(pred[s]):
                        ready.append(s)
            if free_at[d] < t:
                free_at[d] = t
        while True:
            raw = {v: [sched_raw(v, d) for d in range(ndev)] for v in ready}
            urgent = {}
            for v in ready:
                xs = [x for x in raw[v] if x is not NONE]
                urgent[v] = max(xs) if xs else INF  # before the colocation filter
            table = {v: [x if x is not NONE and colocation_ok(v, d) else NONE
                         for d, x in enumerate(raw[v])] for v in ready}
            best = None
            for d in range(ndev):
                if cur[d] < free_at[d]:
                    busy[d] = True
                    next_ts[d] = free_at[d]
                    continue
                busy[d] = False
                f = fav[last_op[d]] if fav is not None and last_op[d] is not None else -1
                if (f != -1 and place[f] is None and f in table and table[f][d] is not NONE
                        and table[f][d] == min(x for x in table[f] if x is not NONE)):
                    # AWAKE: urgent ops first, then the favourite child, else wait.
                    # deviation (as the C code, §4.4): an urgent candidate must
                    # have a schedule time on d.
                    us = [(urgent[v], topo[v], v) for v in ready
                          if (place[v] is None or place[v] == d) and placeable(v, d)
                          and table[v][d] is not NONE]
                    u = min(us) if us else None
                    nx = [table[f][d]] + ([u[0]] if u else [])
                    next_ts[d] = min(nx)
                    if u and u[0] <= cur[d]:
                        c = u[2]
                    elif table[f][d] <= cur[d]:
                        c = f
                    else:
                        continue
                    key = (table[c][d], topo[c])
                    if best is None or key < best[0]:
                        best = (key, c, d)
                    continue
                cands = [(table[v][d], topo[v], v) for v in ready if table[v][d] is not NONE]
                if not cands:
                    next_ts[d] = None
                    continue
                c = min(cands)
                next_ts[d] = c[0]
                if c[0] <= cur[d]:
                    key = (c[0], c[1])
                    if best is None or key < best[0]:
                        best = (key, c[2], d)
            if best is None:
                break
            _, v, d = best
            rts = ready_time(v, d, False)
            if place[v] is None:
                if reserve:
                    raw_alloc(d, need[GROUP[v]])
                    resv[d][GROUP[v]] = [need[GROUP[v]], need[GROUP[v]]]
                    refcount[GROUP[v]] = len(members[GROUP[v]])
                for x in members[GROUP[v]]:
                    if not placeable(x, d):
                        raise Infeasible("group member does not fit")
                    place[x] = d
            alloc(d, OUT[v], v)
            alloc(d, TEMP[v], v)
            start = max(free_at[d], rts)
            end[v] = start + W[v]
            free_at[d] = end[v]
            free(d, TEMP[v], v)
            last_op[d] = v
            for u, _ in pred[v]:
                exec_out[u] += 1
                if exec_out[u] == len(succ[u]):
                    free(place[u], OUT[u] - PERS[u], u)
            ready.remove(v)
            scheduled += 1
            if reserve:
                refcount[GROUP[v]] -= 1
                if refcount[GROUP[v]] == 0:
                    r = resv[d].pop(GROUP[v])
                    used[d] -= r[0]
        nxt = [x for x in next_ts if x is not None]
        if not nxt:
            break
        t2 = min(nxt)
        if t2 <= t:
            raise Infeasible("timestamp should move forward")
        t = t2
    if scheduled != m:
        raise Infeasible("memory deadlock: %d of %d ops not scheduled" % (m - scheduled, m))
    return t, place


def main():
    wl = load(sys.argv[1])
    ndev = int(sys.argv[2])
    mem = int(sys.argv[3])
    frac = float(sys.argv[4]) if len(sys.argv) > 4 else 1.0
    coef, icpt = 0.0001754, 134.0

    def comm(b):
        return int(round(coef * b + icpt))

    g = build(wl, comm)
    if len(sys.argv) > 5 and sys.argv[5] == "coplace":
        coplace(g)
    owner = list(range(g["m"]))
    f = g
    if len(sys.argv) > 6 and sys.argv[6] == "fusion":
        from fusion import fuse

        f, owner = fuse(g)
    limit = [int(frac * mem)] * ndev
    try:
        sct = len(sys.argv) > 8 and sys.argv[8] == "sct1"
        est, place = m_etf(f, ndev, limit, len(sys.argv) > 7 and sys.argv[7] == "reserve",
                           favourites_all(f) if sct else None)
    except Infeasible as e:
        print(json.dumps({"infeasible": str(e)}))
        return
    names = [wl["ops"][i]["name"] for i in g["keep"]]
    devices = {n: place[owner[v]] for v, n in enumerate(names)}
    print(json.dumps({"estimate_us": est, "devices": devices, "nodes": f["m"]}))


if __name__ == "__main__":
    main()
