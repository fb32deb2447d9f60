#!/usr/bin/env python3
"""scaling-study.py - GPT-3 175B and Llama 2 70B on 256 to 16,384 simulated
GPUs: step time, throughput per GPU, MFU, per-GPU peak memory and the share
of exposed communication for each parallel layout (issue 32 item 5;
docs/scaling.md says what each number means and where each choice comes
from).  Python 3 standard library only; it drives the `baechi` program.

usage: scripts/scaling-study.py [--preset doc|where|demo] [--baechi B] [--out DIR]
           [--models M,...] [--gpus N,...] [--layouts TxP,...] [--layers L]
           [--global-batch B] [--max-micro-batches M] [--bucket-mb MB]
           [--jobs J] [--figures DIR] [--format png|svg] [--csv-only]
           [--no-plot] [--keep]
       scripts/scaling-study.py --table CSV        (the CSV as markdown)
       scripts/scaling-study.py --from-csv CSV ... (its figures, nothing run)

For every model, GPU count and layout (TP T x PP P, DP = GPUs / (T x P)) it

  1. writes the cluster: the SuperPOD presets at 1,024 and 16,384 H100s,
     `baechi cluster gen --nodes GPUs/8` with the same SuperPOD fabric
     (32-node leaf groups; two tiers up to 256 nodes, three above, 256-node
     pods) for the other sizes, and for the A100 rows the A100 SuperPOD's
     links (`cluster gen --gpu a100`) in 16-node leaf groups;
  2. generates the step, only the ranks that stand for all written
     (`workload gen gpt --size S --tp T --pp P --dp D --symmetric
     --global-batch B --micro-batches M ...`, docs/symmetry.md);
  3. simulates it (`baechi sim --placement given --json`, timed model) and
     again with communication free (`baechi run -p given --comm-factor 0
     --json`);
  4. writes a row of DIR/scaling.csv.

Columns of scaling.csv (one row per point, in the order of the loops):

  model                 the model's name (gpt3-175b, llama2-70b, gpt3-175b-a100)
  layers                transformer layers simulated (the model's own unless --layers)
  gpus                  GPUs of the cluster = tp x pp x dp
  tp                    tensor-parallel degree (Megatron, inside a node)
  pp                    pipeline stages (1F1B schedule)
  dp                    data-parallel replicas
  micro_batches         micro-batches per replica and step (M)
  micro_batch_size      samples per micro-batch = global_batch / (dp x M)
  global_batch          samples (sequences) per step
  seq                   tokens per sample
  ops                   ops of the simulated replica (0: not generated)
  step_s                simulated step (timed model), seconds
  step_comm_free_s      the same step with every transfer and collective free
  tokens_per_s_per_gpu  global_batch x seq / step_s / gpus
  mfu                   model FLOPs per step / (step_s x gpus x peak FLOP/s)
  tflops_per_gpu        model FLOPs per step / step_s / gpus, in TFLOP/s
  megatron_tflops_per_gpu  Narayanan et al.'s eq. (3) (96 B s l h^2 (1 + s/6h
                        + V/16lh), recomputation counted) / step_s / gpus:
                        the number their tables report (GPT models only)
  peak_gib              the largest per-GPU peak of the timed model, GiB
  exposed_comm_share    (step_s - step_comm_free_s) / step_s
  fits                  yes: no GPU over its memory; no: some GPU out of
                        memory; cap: the replica is over the generator's
                        1,000,000-op cap (no numbers)

Model FLOPs (per step, no recomputation counted): 3 x the forward pass's
2 x m x n x k of every matrix product (QKV, attention output, the MLP, the
LM head) plus attention's QK^T and AV, 4 s h per token and layer, without
the causal halving (as Megatron counts).  Peak FLOP/s: dense BF16 989.4
TFLOP/s for H100 SXM5, dense FP16 312 TFLOP/s for A100 (datasheets).

Exit status: 0 when every point ran (cap and out-of-memory points are
results), 1 when a point failed (named on stderr; the other points are run
and written), 2 on a bad option.
"""
import argparse
import concurrent.futures
import csv
import json
import os
import shutil
import subprocess
import sys
import threading
import time

# The models: the generator's presets (docs/workloads.md) with the
# dimensions the FLOP count needs.  Global batches: GPT-3 175B 1,536
# sequences of 2,048 (Brown et al. 2020, Table 2.1 "3.2M" tokens; Narayanan
# et al. SC'21, Table 2); Llama 2 70B 4M tokens = 1,024 sequences of 4,096
# (Touvron et al. 2023, section 2.2).  Layouts: TP 8 (one NVLink node) with
# PP 8 and 16, and TP 4 inside half a node with PP 16 (175B); the 70B model
# needs fewer stages: TP 8 x PP 4 and PP 8, TP 4 x PP 8.
MODELS = {
    "gpt3-175b": dict(size="gpt3-175b", layers=96, d=12288, heads=96, kv=96, ffn=49152,
                      vocab=50257, seq=2048, mlp="gelu", global_batch=1536,
                      device="h100:bf16", peak=989.4e12, cluster="h100",
                      layouts=[(8, 8), (8, 16), (4, 16)],
                      extra=["--sp", "--recompute", "selective"]),
    "llama2-70b": dict(size="llama2-70b", layers=80, d=8192, heads=64, kv=8, ffn=28672,
                       vocab=32000, seq=4096, mlp="swiglu", global_batch=1024,
                       device="h100:bf16", peak=989.4e12, cluster="h100",
                       layouts=[(8, 4), (8, 8), (4, 8)],
                       extra=["--sp", "--recompute", "selective"]),
    # Narayanan et al. SC'21, Table 2, PTD parallelism: GPT-3 175B, model-
    # parallel size 96 (TP 8 x PP 12), batch 1,536, micro-batch 1, 384 / 768
    # / 1,536 A100s, full activation recomputation, fp16 (384 GPUs: M = 384,
    # over the op cap even with one TP rank written)
    "gpt3-175b-a100": dict(size="gpt3-175b", layers=96, d=12288, heads=96, kv=96, ffn=49152,
                           vocab=50257, seq=2048, mlp="gelu", global_batch=1536,
                           device="a100:fp16", peak=312e12, cluster="a100",
                           layouts=[(8, 12)], gpus=[768, 1536], max_micro_batches=192,
                           extra=["--recompute", "full"],
                           published={384: 153, 768: 149, 1536: 141}),
}
GPUS = [256, 512, 1024, 2048, 4096, 8192, 16384]
FIELDS = ["model", "layers", "gpus", "tp", "pp", "dp", "micro_batches", "micro_batch_size",
          "global_batch", "seq", "ops", "step_s", "step_comm_free_s", "tokens_per_s_per_gpu",
          "mfu", "tflops_per_gpu", "megatron_tflops_per_gpu", "peak_gib",
          "exposed_comm_share", "fits"]


def model_flops(m, layers, batch):
    """Model FLOPs of one training step (forward and backward, no recomputation)."""
    d, s = m["d"], m["seq"]
    kv_width = d * m["kv"] // m["heads"]
    attn = 2 * d * d + 2 * d * kv_width  # Q and output, K and V
    mlp = (3 if m["mlp"] == "swiglu" else 2) * d * m["ffn"]
    per_token = 2 * (layers * (attn + mlp) + d * m["vocab"]) + layers * 4 * s * d
    return 3 * per_token * batch * s


def megatron_flops(m, layers, batch):
    """Narayanan et al. SC'21 eq. (3): 96 B s l h^2 (1 + s/6h + V/16lh)."""
    h, s, v = m["d"], m["seq"], m["vocab"]
    return 96 * batch * s * layers * h * h * (1 + s / (6 * h) + v / (16 * layers * h))


# --decompose: the cluster again with one kind of link made (almost) free,
# 1,000,000 Gb/s, the most `cluster gen` takes (latencies unchanged)
VARIANTS = {"nvlink-free": ["--nvlink-gbps", "1000000"],
            "network-free": ["--nic-gbps", "1000000"]}


def cluster_for(b, kind, gpus, work, variant=""):
    """The cluster of GPUS GPUs: a preset, or a generated file in WORK."""
    if kind == "a100" and (gpus % 128 or variant):
        raise ValueError("the A100 rows take whole 16-node leaf groups, not %d GPUs%s"
                         % (gpus, " " + variant if variant else ""))
    if kind == "h100" and gpus == 1024 and not variant:
        return "dgx-h100-superpod-1k"
    if kind == "h100" and gpus == 16384 and not variant:
        return "dgx-h100-superpod-16k"
    if gpus % 8:
        raise ValueError("%d GPUs is not a whole number of 8-GPU nodes" % gpus)
    nodes = gpus // 8
    path = os.path.join(work, "%s-%d%s.yaml" % (kind, gpus, "-" + variant if variant else ""))
    if not os.path.exists(path):
        # the SuperPOD fabric of the presets (docs/topology.md; `cluster gen`
        # writes the same numbers as the two presets): 32-node leaf groups;
        # two tiers up to 8 of them (256 nodes), three above with 256-node pods
        tiers = "2" if nodes <= 256 else "3"
        tmp = "%s.%d.tmp" % (path, threading.get_ident())
        cmd = [b, "cluster", "gen", "--gpu", kind, "--nodes", str(nodes), "--tiers", tiers,
               "--name", "superpod-%s-%d" % (kind, gpus), "-o", tmp] + VARIANTS.get(variant, [])
        if kind == "a100":
            # deviation: the A100 SuperPOD's scalable units are 20 nodes
            # (dgx-a100-superpod-2k); leaf groups of 16 nodes here, so that
            # TP 8 x DP 16 replicas sit alike in them (--symmetric refuses
            # the preset: a stage's 16 nodes straddle its 20-node groups
            # differently).  Non-blocking (R = 1), a leaf group's size
            # changes no time in the model (docs/topology.md).
            cmd += ["--nodes-per-leaf", "16"]
        elif nodes < 32:
            cmd += ["--nodes-per-leaf", str(nodes)]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        os.replace(tmp, path)  # whole, whichever job writes it last
    return path


def micro_batches_for(per_replica, cap):
    """M and the micro-batch size: size 1 (Megatron's) unless M would pass cap."""
    b = 1
    while per_replica // b > cap and per_replica % (2 * b) == 0:
        b *= 2
    return per_replica // b, b


def run_point(args, name, m, gpus, tp, pp, work):
    """One point: generate, simulate twice; the CSV row."""
    layers = args.layers.get(name, args.layers.get("", m["layers"]))
    gb = args.global_batch or m["global_batch"]
    dp = gpus // (tp * pp)
    row = dict(model=name, layers=layers, gpus=gpus, tp=tp, pp=pp, dp=dp, global_batch=gb,
               seq=m["seq"], ops=0)
    per_replica = gb // dp
    mb, mbs = micro_batches_for(per_replica, args.max_micro_batches or
                                m.get("max_micro_batches", 128))
    row.update(micro_batches=mb, micro_batch_size=mbs)
    tag = "%s-l%d-t%dp%dd%d-m%d" % (name, layers, tp, pp, dp, mb)
    wl = os.path.join(work, tag + ".yaml")
    log = os.path.join(work, tag + ".log")
    cl = cluster_for(args.baechi, m["cluster"], gpus, work)
    gen = [args.baechi, "workload", "gen", "gpt", "--size", m["size"], "--layers", str(layers),
           "--global-batch", str(gb), "--micro-batches", str(mb), "--device", m["device"],
           "--elem-bytes", "2", "--optimizer", "adam", "--mixed-precision", "--dropout", "0",
           "--tp", str(tp), "--pp", str(pp), "--dp", str(dp),
           "--bucket-mb", ("%.6f" % args.bucket_mb).rstrip("0").rstrip("."),
           "--name", tag, "-o", wl]
    gen += m["extra"]
    if dp > 1:
        gen.append("--symmetric")
    with open(log, "w") as lf:
        r = subprocess.run(gen, stdout=lf, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        text = open(log).read()
        if "a generated graph may have" in text and r.returncode == 2:
            row["fits"] = "cap"
            return row
        raise RuntimeError("%s failed (exit %d): %s" % (" ".join(gen), r.returncode,
                                                          text.strip().splitlines()[-1:]))
    sim = subprocess.run([args.baechi, "sim", "-w", wl, "-c", cl, "--placement", "given",
                          "--json"], capture_output=True, text=True)
    if sim.returncode != 0:
        raise RuntimeError("sim %s failed: %s" % (tag, sim.stderr.strip()))
    free = subprocess.run([args.baechi, "run", "-w", wl, "-c", cl, "-p", "given",
                           "--comm-factor", "0", "--json"], capture_output=True, text=True)
    if free.returncode not in (0, 3):
        raise RuntimeError("run --comm-factor 0 %s failed: %s" % (tag, free.stderr.strip()))
    for v in VARIANTS if args.decompose else []:
        r = subprocess.run([args.baechi, "sim", "-w", wl, "-c",
                            cluster_for(args.baechi, m["cluster"], gpus, work, v),
                            "--placement", "given", "--json"], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("sim %s on the %s cluster failed: %s" % (tag, v, r.stderr.strip()))
        row[v + "_s"] = "%.4f" % (json.loads(r.stdout)["step_us"] / 1e6)
    if not args.keep:
        os.remove(wl)
    d = json.loads(sim.stdout)
    step_s = d["step_us"] / 1e6
    free_s = json.loads(free.stdout)["sim"]["timed"]["step_us"] / 1e6
    fl = model_flops(m, layers, gb)
    row.update(ops=d["n_ops"], step_s="%.4f" % step_s, step_comm_free_s="%.4f" % free_s,
               tokens_per_s_per_gpu="%.1f" % (gb * m["seq"] / step_s / gpus),
               mfu="%.4f" % (fl / (step_s * gpus * m["peak"])),
               tflops_per_gpu="%.1f" % (fl / step_s / gpus / 1e12),
               megatron_tflops_per_gpu=("%.1f" % (megatron_flops(m, layers, gb) / step_s / gpus
                                                  / 1e12)) if m["mlp"] == "gelu" else "",
               peak_gib="%.2f" % (max(x["peak_bytes"] for x in d["devices"]) / 2**30),
               exposed_comm_share="%.4f" % ((step_s - free_s) / step_s),
               fits="no" if d["oom"] else "yes")
    return row


def points(args):
    for name in args.models:
        m = MODELS[name]
        gb = args.global_batch or m["global_batch"]
        gpus = sorted(args.gpus or m.get("gpus", GPUS))
        for tp, pp in (args.layouts or m["layouts"]):
            for n in gpus:
                dp = n // (tp * pp)
                if n % (tp * pp) or dp < 1:
                    continue
                if gb % dp:
                    # fewer samples than replicas, or not a whole number each
                    print("scaling-study: %s TP %d x PP %d on %d GPUs skipped: DP %d does not "
                          "divide the global batch %d" % (name, tp, pp, n, dp, gb), file=sys.stderr)
                    continue
                yield name, m, n, tp, pp


def layout_name(r):
    return "TP %s x PP %s" % (r["tp"], r["pp"])


def plot(args, rows):
    """One figure per model: tokens/s per GPU against GPUs (log2), a line per
    layout; FIG/scaling-MODEL.csv (its data), FIG/work/scaling-MODEL.gp (its
    script, which scripts/check-figures.py reads) and, with gnuplot and
    without --csv-only, FIG/scaling-MODEL.png (or .svg)."""
    draw = not args.csv_only and shutil.which("gnuplot") is not None
    if not args.csv_only and not draw:
        print("scaling-study: gnuplot not found, figure data only (apt-get install gnuplot-nox)",
              file=sys.stderr)
    fig = args.figures or args.out
    for name in args.models:
        mine = [r for r in rows if r["model"] == name and r["fits"] in ("yes", "no")]
        if len({r["gpus"] for r in mine}) < 2:
            continue  # a figure against GPUs needs two counts (gpt3-175b-a100 has one)
        base = os.path.join(fig, "scaling-" + name)
        layouts = []
        for r in mine:
            if layout_name(r) not in layouts:
                layouts.append(layout_name(r))
        with open(base + ".csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["config", "gpus", "tokens_per_s_per_gpu", "status", "mfu"])
            for r in mine:
                w.writerow([layout_name(r), r["gpus"], r["tokens_per_s_per_gpu"],
                            "ok" if r["fits"] == "yes" else "oom", r["mfu"]])
        m = MODELS[name]
        layers = mine[0]["layers"]
        # percent MFU per token/s per GPU
        k = 100 * model_flops(m, int(layers), 1) / m["seq"] / m["peak"]
        top = max(float(r["tokens_per_s_per_gpu"]) for r in mine) * k
        tick = 2 if top < 15 else 5 if top < 40 else 10
        label = "%s, %d layers%s" % (name, int(layers),
                                     "" if int(layers) == m["layers"] else
                                     " (of %d)" % m["layers"])
        gp = ["# figure scaling-study %s (scripts/scaling-study.py)" % name,
              ("set terminal pngcairo size 900,600 noenhanced font ',11'" if args.format == "png"
               else "set terminal svg size 900,600 noenhanced font 'sans,13' background 'white'"),
              "set output %s" % gp_quote("%s.%s" % (base, args.format)),
              "set title %s" % gp_quote("Simulated throughput per GPU: %s, global batch %s x %s "
                                        "tokens" % (label, mine[0]["global_batch"],
                                                    mine[0]["seq"])),
              "set xlabel 'GPUs (log2 scale)'",
              "set ylabel 'throughput per GPU (tokens/s)'",
              "set logscale x 2", "set xtics (%s)" % ", ".join(
                  "'%d' %d" % (g, g) for g in sorted({int(r["gpus"]) for r in mine})),
              "set yrange [0:*]", "set key inside left bottom box opaque", "set grid",
              # MFU is throughput x model FLOPs per token / peak: the same
              # curve on a second scale
              "set y2label 'MFU (%% of %.1f TFLOP/s)'" % (m["peak"] / 1e12),
              "set link y2 via y*%.6g inverse y/%.6g" % (k, k),
              "set y2tics %d format '%%.0f'" % tick, "set ytics nomirror",
              "set offsets graph 0.05, graph 0.05, graph 0.08, 0"]
        cmds = []
        n_blocks = 0
        for i, lay in enumerate(layouts):
            # a layout's points that fit on its line (filled markers), those
            # out of memory in its colour, hollow, without the line
            for fits, style in (("yes", "linespoints lw 2 pt %d ps 1.5" % (5 + 2 * i)),
                                ("no", "points pt %d ps 1.8" % (4 + 2 * i))):
                body = ["%s %s" % (r["gpus"], r["tokens_per_s_per_gpu"]) for r in mine
                        if layout_name(r) == lay and r["fits"] == fits]
                if not body:
                    continue
                gp += ["$D_0_%d << EOD" % n_blocks] + body + ["EOD"]
                cmds.append("$D_0_%d using 1:2 with %s lc %d %s" % (
                    n_blocks, style, i + 1, "title " + gp_quote(lay) if fits == "yes" else "notitle"))
                n_blocks += 1
        if any(r["fits"] == "no" for r in mine):
            cmds.append("keyentry with points pt 4 ps 1.8 lc 'black' "
                        "title 'hollow: out of memory'")
        gp.append("plot " + ", \\\n     ".join(cmds))
        os.makedirs(os.path.join(fig, "work"), exist_ok=True)
        script = os.path.join(fig, "work", "scaling-" + name + ".gp")
        with open(script, "w") as f:
            f.write("\n".join(gp) + "\n")
        if draw:
            subprocess.run(["gnuplot", script], check=True)


# Named configurations; options given on the command line override them.
#   doc   what docs/scaling.md reports (scripts/doc-numbers.sh, block
#         scaling-table).  DOC_LAYERS is the one knob between a reduced
#         depth (e.g. "gpt3-175b=16,llama2-70b=16,gpt3-175b-a100=24") and
#         the full models: "" runs every model at its own depth.
#   where the step saved by free NVLink and by free NICs (--decompose)
#   demo  `make demo`'s few points: 4 layers, global batch 512, 4 GPU counts
DOC_LAYERS = ""
PRESETS = {
    "doc": dict(models="gpt3-175b,llama2-70b,gpt3-175b-a100", layers=DOC_LAYERS),
    # where the exposed communication goes (docs/scaling.md, block scaling-where)
    "where": dict(models="gpt3-175b,llama2-70b", layers=DOC_LAYERS, gpus="256,2048,16384",
                  layouts="8x8", decompose=True),
    "demo": dict(models="gpt3-175b,llama2-70b", layers="4", global_batch=512,
                 gpus="256,1024,4096,16384", layouts="8x4,4x4"),
}


def write_csv(args, rows):
    """DIR/scaling.csv of the points done so far, in the loops' order (whole)."""
    path = os.path.join(args.out, "scaling.csv")
    with open(path + ".tmp", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, restval="", extrasaction="ignore")
        w.writeheader()
        w.writerows(r for r in rows if r is not None)
    os.replace(path + ".tmp", path)


def table(rows):
    """The CSV as markdown: a table per model."""
    out = []
    for name in dict.fromkeys(r["model"] for r in rows):
        mine = [r for r in rows if r["model"] == name]
        m = MODELS[name]
        out += ["", "**%s**, %s of %d layers, global batch %s x %s tokens, %s:" % (
            name, mine[0]["layers"], m["layers"], mine[0]["global_batch"], m["seq"],
            "A100 SXM4 (fp16)" if m["cluster"] == "a100" else "H100 SXM5 (bf16)"), ""]
        meg = m["mlp"] == "gelu" and m["cluster"] == "a100"
        out.append("| GPUs | TP x PP x DP | M x b | step (s) | tokens/s/GPU | MFU | %speak (GiB) "
                   "| exposed comm | fits |" % ("TFLOP/s/GPU (eq. 3) | " if meg else ""))
        out.append("|---" * (10 if meg else 9) + "|")
        for r in mine:
            if r["fits"] == "cap":
                out.append("| %s | %s x %s x %s | %s x %s | over the op cap |%s" % (
                    r["gpus"], r["tp"], r["pp"], r["dp"], r["micro_batches"],
                    r["micro_batch_size"], " |" * (6 if meg else 5)))
                continue
            out.append("| %s | %s x %s x %s | %s x %s | %s | %s | %.1f %%%s | %s | %.1f %% "
                       "| %s |" % (
                "{:,}".format(int(r["gpus"])), r["tp"], r["pp"], r["dp"], r["micro_batches"],
                r["micro_batch_size"], r["step_s"], r["tokens_per_s_per_gpu"],
                100 * float(r["mfu"]), " | " + r["megatron_tflops_per_gpu"] if meg else "",
                r["peak_gib"], 100 * float(r["exposed_comm_share"]), r["fits"]))
        out += summary(m, mine)
    return "\n".join(out[1:])


def summary(m, rows):
    """The sentences docs/scaling.md draws its conclusions from."""
    ok = [r for r in rows if r["fits"] in ("yes", "no")]
    out = []
    best = {}
    for r in ok:
        g = int(r["gpus"])
        if r["fits"] == "yes" and (g not in best or float(r["mfu"]) > float(best[g]["mfu"])):
            best[g] = r
    if len(best) > 1:
        gs = sorted(best)
        lo, hi = best[gs[0]], best[gs[-1]]
        out += ["", "Fastest layout that fits at each GPU count: " + "; ".join(
            "{:,}: TP {} x PP {} ({:.1f} %)".format(g, best[g]["tp"], best[g]["pp"],
                                                   100 * float(best[g]["mfu"])) for g in gs) + ".",
                "From {:,} to {:,} GPUs the best MFU goes from {:.1f} % to {:.1f} % ({:.2f}x) "
                "and the exposed communication of that layout from {:.1f} % to {:.1f} % of the "
                "step.".format(
                    gs[0], gs[-1], 100 * float(lo["mfu"]), 100 * float(hi["mfu"]),
                    float(hi["mfu"]) / float(lo["mfu"]), 100 * float(lo["exposed_comm_share"]),
                    100 * float(hi["exposed_comm_share"]))]
    for r in ok:
        pub = m.get("published", {}).get(int(r["gpus"]))
        if pub and r["megatron_tflops_per_gpu"]:
            sim = float(r["megatron_tflops_per_gpu"])
            out += ["", "Narayanan et al. (SC'21, Table 2) measured %d TFLOP/s per GPU (%.0f %% "
                    "of the 312 TFLOP/s peak) on %s A100s at this batch and model-parallel size; "
                    "simulated by the same count (eq. 3): %.1f TFLOP/s (%.0f %% of peak, %.2fx "
                    "theirs); MFU without the recomputed forward %.1f %%." % (
                        pub, 100 * pub / 312, "{:,}".format(int(r["gpus"])), sim,
                        100 * sim / 312, sim / pub, 100 * float(r["mfu"]))]
    return out


def decompose_table(rows):
    """--decompose: the step saved by free NVLink and by free NICs, per point."""
    out = ["| model | GPUs | TP x PP x DP | step (s) | exposed comm | saved by free NVLink "
           "| saved by free NICs and fabric |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        if "nvlink-free_s" not in r:
            continue
        st = float(r["step_s"])
        out.append("| %s | %s | %s x %s x %s | %s | %.1f %% | %.1f %% | %.1f %% |" % (
            r["model"], "{:,}".format(int(r["gpus"])), r["tp"], r["pp"], r["dp"], r["step_s"],
            100 * float(r["exposed_comm_share"]),
            100 * (st - float(r["nvlink-free_s"])) / st,
            100 * (st - float(r["network-free_s"])) / st))
    return "\n".join(out)


def read_csv(path):
    """The rows of a scaling.csv this script wrote; every field checked,
    since the figures' gnuplot scripts are written from them (a field
    holding a quote would otherwise reach gnuplot as a command)."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for line, r in enumerate(rows, start=2):
        if r.get("model") not in MODELS or list(r) != FIELDS:
            raise ValueError("%s: not a scaling.csv of this script (columns %s)" % (path, list(r)))
        if r["fits"] not in ("yes", "no", "cap"):
            raise ValueError("%s:%d: fits: expected yes, no or cap, got %r" % (path, line, r["fits"]))
        for k in FIELDS[1:-1]:
            try:
                if r[k] != "":  # empty: a cap row, or megatron's column of a non-GPT model
                    float(r[k])
            except ValueError:
                raise ValueError("%s:%d: %s: expected a number, got %r"
                                 % (path, line, k, r[k])) from None
    return rows


def gp_quote(text):
    """text as a gnuplot single-quoted string: no backquote substitution
    happens inside one, and a quote is doubled."""
    if "\n" in text or "\r" in text:
        raise ValueError("a line break cannot go into a gnuplot script: %r" % text)
    return "'" + text.replace("'", "''") + "'"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baechi", default="./baechi")
    ap.add_argument("--out", default="scaling-study")
    ap.add_argument("--preset", choices=sorted(PRESETS),
                    help="a named configuration (doc: docs/scaling.md's table; where: its "
                         "decomposition; demo: make demo's)")
    ap.add_argument("--models", help="models (default gpt3-175b,llama2-70b; also gpt3-175b-a100)")
    ap.add_argument("--gpus", help="GPU counts (default 256..16384, doubling)")
    ap.add_argument("--layouts", help="TxP,... (default: the model's)")
    ap.add_argument("--layers",
                    help="layers simulated: N for every model, or MODEL=N,... "
                         "(default: the model's)")
    ap.add_argument("--global-batch", type=int)
    ap.add_argument("--max-micro-batches", type=int,
                    help="most micro-batches of a replica (default 128; the A100 rows 192, "
                         "Megatron's micro-batch 1 at 768 GPUs)")
    ap.add_argument("--bucket-mb", type=float, default=1e6,
                    help="DDP bucket cap, MiB (default 1e6: one bucket, reduced after the "
                         "backward)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--decompose", action="store_true", default=None,
                    help="also simulate with NVLink free and with the NICs free; "
                         "print where the exposed communication goes (no CSV columns)")
    ap.add_argument("--format", choices=["png", "svg"], default="png", help="the figures' format")
    ap.add_argument("--no-plot", action="store_true", help="no figure, only scaling.csv")
    ap.add_argument("--csv-only", action="store_true",
                    help="the figures' data and gnuplot scripts, not the images")
    ap.add_argument("--figures", metavar="DIR", help="where the figures go (default: --out)")
    ap.add_argument("--keep", action="store_true", help="keep the workload files")
    ap.add_argument("--from-csv", metavar="CSV",
                    help="run nothing: draw the figures (--out) of a scaling.csv")
    ap.add_argument("--table", metavar="CSV", help="run nothing: print a scaling.csv as markdown")
    args = ap.parse_args()
    for k, v in PRESETS.get(args.preset, {}).items():
        if getattr(args, k) is None:
            setattr(args, k, v)
    try:
        if args.table:
            print(table(read_csv(args.table)))
            return 0
        args.models = [x for x in (args.models or "gpt3-175b,llama2-70b").split(",") if x]
        for x in args.models:
            if x not in MODELS:
                ap.error("unknown model '%s' (known: %s)" % (x, ", ".join(MODELS)))
        args.gpus = [int(x) for x in (args.gpus or "").split(",") if x]
        args.layers = {(x.split("=")[0] if "=" in x else ""): int(x.split("=")[-1])
                       for x in (args.layers or "").split(",") if x}
        args.layouts = [tuple(int(v) for v in x.lower().split("x"))
                        for x in (args.layouts or "").split(",") if x]
        if args.from_csv:
            os.makedirs(args.figures or args.out, exist_ok=True)
            rows = read_csv(args.from_csv)
            args.models = [x for x in args.models if any(r["model"] == x for r in rows)] or \
                list(dict.fromkeys(r["model"] for r in rows))
            plot(args, rows)
            return 0
    except (ValueError, OSError) as e:
        ap.error(str(e))
    if any(len(t) != 2 for t in args.layouts):
        ap.error("--layouts: TxP, e.g. 8x8")
    if not os.path.isabs(args.baechi) and os.sep in args.baechi:
        args.baechi = os.path.abspath(args.baechi)
    work = os.path.join(args.out, "work")
    os.makedirs(work, exist_ok=True)
    if args.figures:
        os.makedirs(args.figures, exist_ok=True)
    todo = list(points(args))
    t0 = time.time()
    rows = [None] * len(todo)
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        futs = {ex.submit(run_point, args, *p, work): i for i, p in enumerate(todo)}
        for f in concurrent.futures.as_completed(futs):
            i = futs[f]
            try:
                rows[i] = r = f.result()
            except (RuntimeError, subprocess.CalledProcessError, ValueError, OSError) as e:
                # a point that fails is reported and left out; the others go on
                print("scaling-study: %s" % e, file=sys.stderr, flush=True)
                failed += 1
                continue
            print("%-15s %5d GPUs  TP %d x PP %d x DP %-4d M %-4d %s" % (
                r["model"], r["gpus"], r["tp"], r["pp"], r["dp"], r["micro_batches"],
                "over the op cap" if r["fits"] == "cap" else
                "step %s s, %s tokens/s/GPU, MFU %s, peak %s GiB, exposed comm %s%s" % (
                    r["step_s"], r["tokens_per_s_per_gpu"], r["mfu"], r["peak_gib"],
                    r["exposed_comm_share"], "" if r["fits"] == "yes" else ", OUT OF MEMORY")),
                flush=True)
            write_csv(args, rows)  # after every point: a long run stopped keeps its rows
    rows = [r for r in rows if r is not None]
    write_csv(args, rows)
    if not args.no_plot:
        plot(args, rows)
    if args.decompose:
        print(decompose_table(rows))
    print("scaling-study: %d points in %.0f s wall, %s%s" % (
        len(rows), time.time() - t0, os.path.join(args.out, "scaling.csv"),
        "; %d failed (above)" % failed if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
