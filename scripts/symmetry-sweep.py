#!/usr/bin/env python3
"""symmetry-sweep.py BAECHI SEED N [WORKDIR [zero=Z] [sp=0|1] [tp-min=T] [dp-min=D]
[wide=1]]: replica symmetry against the exact graph on N random layouts
(docs/symmetry.md, issue 32 item 2).  zero=, sp=, tp-min= and dp-min= fix
the ZeRO stage, sequence parallelism, and the smallest TP and DP degrees
drawn (dp-min=1: DP 1 too, with TP 2 or more); wide=1 draws GPT-3 widths.

Each layout: a small GPT (d 64, 8 heads) with DP 2..32 x TP 1/2/4/8 x PP
1/2/4 on at most 256 GPUs, ZeRO 0-3, 1-4 micro-batches, sometimes --sp and
0.05 MiB buckets, on a `cluster gen` fat tree (nodes of 4 or 8, 2 or 3
tiers, oversubscription 1-3, small leaf groups) or dgx-h100-superpod-1k.
With wide=1: GPT-3 widths (d 12,288, 96 heads, sequence 2,048, vocabulary
50,257, bf16, Adam, mixed precision), 1-2 layers a stage, DP 2..8 x TP 4/8
x PP 1/2/4, ZeRO 0-1, 1-8 micro-batches of 1, on dgx-h100-superpod-1k.
`workload gen` writes it exact and --symmetric; `sim --json` runs both; the
difference is the largest relative one of the step and of every device's
peak, busy time and op count.  Layouts --symmetric refuses (ZeRO-3 with --sp)
are drawn again; those sim refuses ("not symmetric") are counted.  Prints
one line a layout ("[TP ranks 0, T-1]" where TP symmetry wrote those two
TP ranks alone) and the worst; exits 1 when the worst is above 0.5 %.
"""
import json
import os
import random
import re
import subprocess
import sys
import tempfile


def draw_small(rng, fix, run, wd):
    """A small-GPT layout: (gen args, cluster, its name, description) or None."""
    tp_min = int(fix.get("tp-min", 1))
    tp = rng.choice([t for t in (1, 2, 4, 8) if t >= tp_min])
    pp, dp = rng.choice([1, 2, 4]), rng.randint(int(fix.get("dp-min", 2)), 32)
    if dp * tp * pp > 256 or dp * tp == 1:
        return None
    zero, mb = rng.choice([0, 0, 1, 2, 3]), rng.choice([1, 1, 2, 4])
    zero = int(fix.get("zero", zero))
    sp = tp > 1 and rng.random() < 0.3
    sp = tp > 1 and bool(int(fix.get("sp", int(sp))))
    g = rng.choice([4, 8])
    if rng.random() < 0.5:
        cl = ["--nodes", str(-(-dp * tp * pp // g)), "--gpus-per-node", str(g),
              "--tiers", rng.choice(["2", "3"]), "--oversubscription", str(rng.choice([1, 2, 3])),
              "--nodes-per-leaf", str(rng.choice([1, 2, 4])), "--nodes-per-pod", "8"]
        r = run(["cluster", "gen"] + cl + ["-o", os.path.join(wd, "c.yaml")])
        if r.returncode:
            sys.exit("cluster gen failed: " + r.stderr)
        c, cname = os.path.join(wd, "c.yaml"), "gen " + " ".join(cl)
    else:
        c = cname = "dgx-h100-superpod-1k"
    gen = ["workload", "gen", "gpt", "--layers", str(pp * rng.choice([1, 2])), "--d-model", "64",
           "--heads", "8", "--vocab", "128", "--batch", str(4 * mb), "--seq", "16",
           "--dropout", "0", "--device", "h100", "--optimizer", "adam",
           "--dp", str(dp), "--tp", str(tp), "--pp", str(pp)]
    gen += ["--zero", str(zero)] if zero else []
    gen += ["--micro-batches", str(mb)] if mb > 1 else []
    gen += ["--sp"] if sp else []
    gen += ["--bucket-mb", "0.05"] if rng.random() < 0.3 else []
    desc = "dp %d tp %d pp %d zero %d mb %d sp %d" % (dp, tp, pp, zero, mb, sp)
    return gen, c, cname, desc


def draw_wide(rng):
    """A GPT-3-widths layout on dgx-h100-superpod-1k."""
    while True:
        tp, pp, dp = rng.choice([4, 8]), rng.choice([1, 2, 4]), rng.randint(2, 8)
        if dp * tp * pp <= 256:
            break
    zero, mb = rng.choice([0, 0, 1]), rng.choice([1, 2, 4, 8])
    gen = ["workload", "gen", "gpt", "--layers", str(pp * rng.choice([1, 2])),
           "--d-model", "12288", "--heads", "96", "--seq", "2048", "--vocab", "50257",
           "--batch", str(mb), "--device", "h100:bf16", "--elem-bytes", "2",
           "--optimizer", "adam", "--mixed-precision", "--dropout", "0",
           "--dp", str(dp), "--tp", str(tp), "--pp", str(pp)]
    gen += ["--zero", str(zero)] if zero else []
    gen += ["--micro-batches", str(mb)] if mb > 1 else []
    desc = "dp %d tp %d pp %d zero %d mb %d (GPT-3 widths)" % (dp, tp, pp, zero, mb)
    return gen, "dgx-h100-superpod-1k", "dgx-h100-superpod-1k", desc


def main():
    baechi, seed, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    wd = sys.argv[4] if len(sys.argv) > 4 else tempfile.mkdtemp()
    fix = dict(a.split("=", 1) for a in sys.argv[5:])
    rng = random.Random(seed)

    def run(args):
        return subprocess.run([baechi] + args, capture_output=True, text=True)

    worst, worst_desc, refused, done, n_tp = 0.0, "-", 0, 0, 0
    while done < n:
        if fix.get("wide") == "1":
            gen, c, cname, desc_ = draw_wide(rng)
        else:
            drawn = draw_small(rng, fix, run, wd)
            if drawn is None:
                continue
            gen, c, cname, desc_ = drawn
        e, s = os.path.join(wd, "e.yaml"), os.path.join(wd, "s.yaml")
        if run(gen + ["--symmetric", "-o", s]).returncode:
            continue  # refused by parallelize (ZeRO-3 with --sp): drawn again
        if run(gen + ["-o", e]).returncode:
            sys.exit("exact gen failed: " + " ".join(gen))
        with open(s) as f:
            m = re.search(r"\n  tp: (\d+)", f.read())
        form = "tp" if m and int(m.group(1)) > 1 else "dp"
        desc = "%s on %s%s" % (desc_, cname, " [TP ranks 0, T-1]" if form == "tp" else "")
        done += 1
        n_tp += form == "tp"
        re_ = run(["sim", "-w", e, "-c", c, "--placement", "given", "--json"])
        rs = run(["sim", "-w", s, "-c", c, "--placement", "given", "--json"])
        if re_.returncode:
            sys.exit("exact sim failed: " + desc + ": " + re_.stderr)
        if rs.returncode == 2 and "not symmetric" in rs.stderr:
            refused += 1
            print("refused  %s: %s" % (desc, rs.stderr.strip()))
            continue
        if rs.returncode:
            sys.exit("symmetric sim failed: " + desc + ": " + rs.stderr)
        je, js = json.loads(re_.stdout), json.loads(rs.stdout)
        d = abs(je["step_us"] - js["step_us"]) / je["step_us"]
        for a, b in zip(je["devices"], js["devices"]):
            for k in ("peak_bytes", "busy_us", "n_ops"):
                d = max(d, abs(a[k] - b[k]) / max(a[k], 1))
        if d >= worst:
            worst, worst_desc = d, desc
        print("%8.4f %% step %d / %d µs  %s" % (100 * d, je["step_us"], js["step_us"], desc), flush=True)
    print("worst %.4f %% (%s); %d of %d layouts refused as not symmetric; %d with TP ranks 0 "
          "and T-1 alone" % (100 * worst, worst_desc, refused, n, n_tp))
    sys.exit(1 if worst > 0.005 else 0)


main()
