#!/usr/bin/env python3
"""bench-symmetry.py BAECHI [WORKDIR]: issue 32's targets for `run` at
cluster scale (docs/symmetry.md, "Scale"), measured, never asserted.

GPT-3 175B (`workload gen gpt --size gpt3-175b`: 96 layers, d 12,288, 96
heads, sequence 2,048, vocabulary 50,257), bf16 on the h100 cost model,
Adam with mixed precision, no dropout, TP 8 x PP 8, written --symmetric
(four ranks a stage: TP ranks 0 and 7 of replicas 0 and D-1), micro-batches
of 1 as Megatron:

  DP 16 on dgx-h100-superpod-1k, global batch 1,536 (96 micro-batches a
  replica): target `run` <= 30 s CPU and <= 4 GB;
  DP 256 on dgx-h100-superpod-16k, global batch 24,576 (96 micro-batches a
  replica, the same work per GPU): target <= 60 s CPU and <= 8 GB.

For each: `workload gen` and `run -p given`, their CPU time (user + system)
and peak resident set from the kernel's accounting of the child (wait4),
the written op count and the timed step.  Prints one line per command.
"""
import os
import re
import subprocess
import sys
import tempfile

GEN = ["workload", "gen", "gpt", "--size", "gpt3-175b", "--micro-batches", "96",
       "--device", "h100:bf16", "--elem-bytes", "2", "--optimizer", "adam",
       "--mixed-precision", "--dropout", "0", "--tp", "8", "--pp", "8", "--symmetric"]
TARGETS = [  # dp, global batch, cluster, CPU s, RSS GB
    (16, 1536, "dgx-h100-superpod-1k", 30, 4),
    (256, 24576, "dgx-h100-superpod-16k", 60, 8),
]


def measured(argv):
    """(stdout, CPU s, max RSS bytes) of argv run as a child."""
    with tempfile.TemporaryFile() as out:
        p = subprocess.Popen(argv, stdout=out, stderr=subprocess.PIPE)
        err = p.stderr.read()
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode:
            sys.exit("%s failed (exit %d): %s" % (" ".join(argv), p.returncode,
                                                 err.decode(errors="replace").strip()))
        out.seek(0)
        return out.read().decode(errors="replace"), ru.ru_utime + ru.ru_stime, ru.ru_maxrss * 1024


def main():
    baechi = sys.argv[1]
    wd = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp()
    print("bench symmetry: GPT-3 175B, TP 8 x PP 8, --symmetric (docs/symmetry.md); CPU = "
          "user + system")
    for dp, gb, cluster, cpu_max, gb_max in TARGETS:
        w = os.path.join(wd, "gpt3-175b-dp%d.yaml" % dp)
        _, cg, mg = measured([baechi] + GEN + ["--dp", str(dp), "--global-batch", str(gb),
                                                "-o", w])
        out, cr, mr = measured([baechi, "run", "-w", w, "-c", cluster, "-p", "given"])
        ops = re.search(r"^workload \S+: (\d+) ops", out, re.M)
        step = re.search(r"^step \(timed\) +(.*?) \(", out, re.M)
        print("  dp %3d on %s (%s ops written): gen %5.1f s CPU %6.0f MB; run %5.1f s CPU "
              "%6.0f MB (target %d s, %d GB); step %s"
              % (dp, cluster, ops.group(1) if ops else "?", cg, mg / 1e6, cr, mr / 1e6,
                 cpu_max, gb_max, step.group(1) if step else "?"), flush=True)
        os.remove(w)


main()
