"""The module from several Python threads at once (issue 20).

ctypes releases the GIL for the length of every library call, so threads
that place and simulate run the C library truly in parallel;
include/baechi.h allows it for different handles.  Every placer, on GNMT
and on a random graph whose ops are listed out of topological order (the
case that hid m-TOPO's old file-level sort pointer), simulated with both
models from 8 threads, gives what the same calls give one after another:
the outcome (or the error), every op's device, the estimate, the step, the
out-of-memory flag and every device's peak.  The C side of the same check,
and its run under ThreadSanitizer, is tests/unit/test_placer_threads.c.
"""

import os
import random
import unittest
from concurrent.futures import ThreadPoolExecutor

import baechi

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
GNMT = os.path.join(TOP, "data", "workloads", "gnmt_v2", "gnmt_v2_b128_fwd.yaml")
THREADS = 8
ROUNDS = 2
OPTIONS = {"budget_ms": 5}  # auto: a short search, counted in work, not time


def shuffled_yaml(n, seed):
    """A random DAG of n ops, listed in shuffled order: op "r<k>" has
    topological rank k and reads one to three ops of lower rank."""
    rng = random.Random(seed)
    ranks = list(range(n))
    rng.shuffle(ranks)
    lines = ["format: 1", "name: shuffled%d" % seed, "ops:"]
    for r in ranks:
        ins = sorted({r - 1 - rng.randrange(min(r, 8)) for _ in range(1 + rng.randrange(3))}) \
            if r else []
        lines.append("  - {name: r%d, type: Op, time_us: %d, outputs: [%d], persistent: %d,"
                     " device: %d, inputs: [%s]}"
                     % (r, 10 + rng.randrange(200), 1000 + rng.randrange(4000000),
                        rng.randrange(2000000), r % 4, ", ".join("r%d" % i for i in ins)))
    return "\n".join(lines) + "\n"


def outcome(w, c, placer, simulate=True):
    """What one job gives, as a value to compare."""
    try:
        p = baechi.place(w, c, placer, **OPTIONS)
    except baechi.Error as e:
        return ("error", type(e).__name__, e.code)
    if not simulate:
        return ("placed", p.devices, p.estimate_us)
    sims = []
    for model in ("timed", "baechi"):
        r = baechi.simulate(w, c, p, model=model)
        sims.append((r.step_us, r.oom, r.peak_bytes))
    return ("placed", p.devices, p.estimate_us, sims)


class TestThreads(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = baechi.cluster("paper-4gpu-pcie")
        cls.workloads = [baechi.load_workload(GNMT),
                         baechi.parse_workload(shuffled_yaml(300, 7), "shuffled.yaml")]

    def test_premise_ids_not_topological(self):
        w = self.workloads[1]
        moved = sum(1 for i, name in enumerate(w.op_names) if name != "r%d" % i)
        self.assertGreater(moved, w.n_ops // 2)

    def run_jobs(self, jobs, rounds, simulate=True):
        seq = [outcome(w, self.c, placer, simulate) for w, placer in jobs]
        work = [jobs[k % len(jobs)] for k in range(len(jobs) * rounds)]
        with ThreadPoolExecutor(max_workers=THREADS) as ex:
            par = list(ex.map(lambda job: outcome(job[0], self.c, job[1], simulate), work))
        for k, got in enumerate(par):
            w, placer = work[k]
            want = seq[k % len(jobs)]
            self.assertEqual(got[0], want[0], (placer, w.name, k // len(jobs), got, want))
            self.assertEqual(got, want, (placer, w.name, "round", k // len(jobs)))
        return seq

    def test_every_placer_both_models_concurrent_equals_sequential(self):
        placers = baechi.placers()
        self.assertGreaterEqual(len(placers), 13)
        # one placer on both workloads next to each other: the threads run it
        # on different graphs at the same time
        jobs = [(w, p) for p in placers for w in self.workloads]
        seq = self.run_jobs(jobs, ROUNDS)
        self.assertGreater(sum(1 for s in seq if s[0] == "placed"), len(jobs) // 2)

    def test_m_topo_on_shuffled_graphs(self):
        ws = [baechi.parse_workload(shuffled_yaml(n, 11 + i), "s%d.yaml" % i)
              for i, n in enumerate((1500, 1000))]
        jobs = [(w, p) for p in ("m-topo", "m-topo-nonuniform") for w in ws]
        self.run_jobs(jobs, 10, simulate=False)


if __name__ == "__main__":
    unittest.main()
