#!/usr/bin/python3
"""critical-path.py - where a timed step goes, along its critical path.

Reads a workload (YAML) and the Chrome trace of its timed simulation
(`baechi run ... --trace T`) and walks back from the op that ends last: at
each op, the input that arrived last (its producer's end, or the end of the
tensor's receive when it crossed a link), or the op before it on its device
when that one ended later.  The step is split into

    compute_on_chain     ops reached through a data dependency
    compute_busy_device  ops reached because the device ran them first
    transfer             receive time of the tensors the path waited for
    link_queue           time those tensors waited for their link (the send
                         started after the producer ended: other tensors
                         from the same device went first)
    idle                 nothing to wait for (memory, rounding)

which sum to the step, and the link queue by link.  With --path, each
transfer the path waits for (from the end): when its send started, the
link, producer -> consumer, its queueing and its receive time.  Used for docs/auto.md ("Where the remaining gap
is"):

    baechi run -w W.yaml -c paper-4gpu-pcie -p auto --memory-fraction 0.2 \\
        --trace t.json > /dev/null
    python3 scripts/critical-path.py W.yaml t.json

Needs PyYAML.  Part of baechi-c; see README.md for the licence.
"""
import json
import sys

import yaml


def main(wl_path, trace_path, verbose=False):
    wl = yaml.load(open(wl_path), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    tr = json.load(open(trace_path))
    ev = tr["traceEvents"] if isinstance(tr, dict) else tr
    ops, sends, recv, pidname = {}, {}, {}, {}
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") == "compute":
            ops[e["name"]] = (e["pid"], e["ts"], e["ts"] + e["dur"])
        elif e.get("ph") == "X" and e.get("cat") == "send":
            sends[(e["args"]["tensor"], e["args"]["dst"])] = e["ts"]
        elif e.get("ph") == "M" and e["name"] == "process_name":
            pidname[e["pid"]] = e["args"]["name"]
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") == "recv":
            k = (e["args"]["tensor"], e["args"]["dst"])
            recv[k] = (e["ts"], e["ts"] + e["dur"])
    inputs = {}
    for o in wl["ops"]:
        ins = []
        for i in o.get("inputs") or []:
            i = str(i)
            name = i.lstrip("^")
            op = name.rpartition(":")[0] if ":" in name else name
            ins.append((op, None if i.startswith("^") else (name if ":" in name else name + ":0")))
        inputs[o["name"]] = ins
    prev, bydev = {}, {}
    for n, (p, s, t) in ops.items():
        bydev.setdefault(p, []).append((s, t, n))
    for lst in bydev.values():
        lst.sort()
        for i in range(1, len(lst)):
            prev[lst[i][2]] = lst[i - 1][2]
    v = max(ops, key=lambda n: ops[n][2])
    step = ops[v][2]
    acc = dict(compute_on_chain=0, compute_busy_device=0, transfer=0, link_queue=0, idle=0)
    via, cuts, queued = "data", 0, {}
    while True:
        p, s, t = ops[v]
        acc["compute_on_chain" if via == "data" else "compute_busy_device"] += t - s
        best = (-1, None, None)
        for u, tensor in inputs.get(v, []):
            if u not in ops:
                continue
            k = (tensor, pidname[p])
            if ops[u][0] == p or tensor is None or k not in recv:
                r = (ops[u][2], u, None)
            else:
                r = (recv[k][1], u, recv[k])
            if r[0] > best[0]:
                best = r
        q = prev.get(v)
        if q is not None and ops[q][2] > best[0]:
            acc["idle"] += s - ops[q][2]
            v, via = q, "device"
            continue
        if best[1] is None:
            acc["idle"] += s
            break
        acc["idle"] += s - best[0]
        if best[2] is not None:
            acc["transfer"] += best[2][1] - best[2][0]
            acc["link_queue"] += best[2][0] - ops[best[1]][2]
            cuts += 1
            link = (pidname[ops[best[1]][0]], pidname[p])
            queued[link] = queued.get(link, 0) + best[2][0] - ops[best[1]][2]
            if verbose:
                print("%9d us  %s -> %s: %s -> %s, queued %.1f ms, sent %.1f ms"
                      % (best[2][0], link[0], link[1], best[1], v,
                         (best[2][0] - ops[best[1]][2]) / 1000, (best[2][1] - best[2][0]) / 1000))
        v, via = best[1], "data"
    print("step %d us; " % step
          + ", ".join("%s %.1f ms (%.0f%%)" % (k, x / 1000, 100 * x / step) for k, x in acc.items())
          + ", %d transfers on the path" % cuts)
    if queued:
        print("link queue on the path by link: "
              + ", ".join("%s->%s %.1f ms" % (a, b, x / 1000)
                          for (a, b), x in sorted(queued.items(), key=lambda kv: -kv[1])))


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--path"]
    if len(args) != 2:
        sys.exit("usage: critical-path.py [--path] WORKLOAD.yaml TRACE.json")
    main(args[0], args[1], "--path" in sys.argv[1:])
