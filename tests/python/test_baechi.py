"""Tests of the Python module (python/baechi) over libbaechi.

The contract: the numbers are those of `baechi run --json` on the same input
(the program is $BAECHI, default build/baechi), failures are exceptions that
carry the library's message, and nothing leaks across handles.  Run by
tests/python/run.py (make check), with the module and the library found as a
user's would be (PYTHONPATH and BAECHI_LIB set by the caller, or the source
tree).
"""

import json
import os
import sqlite3
import subprocess
import tempfile
import unittest
import warnings

import baechi

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
GNMT = os.path.join(TOP, "data", "workloads", "gnmt_v2", "gnmt_v2_b128_fwd.yaml")
T1 = os.path.join(TOP, "tests", "data", "t1.yaml")
T1_CLUSTER = os.path.join(TOP, "tests", "data", "t1-cluster.yaml")
BAECHI = os.environ.get("BAECHI", os.path.join(TOP, "build", "baechi"))


def run_json(*args):
    out = subprocess.run([BAECHI, "run", "--json", *args], check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out)


class TestLoad(unittest.TestCase):
    def test_workload(self):
        w = baechi.load_workload(GNMT)
        self.assertEqual(w.name, "gnmt_v2_b128_fwd")
        self.assertEqual(w.n_ops, 2494)  # 2,828 ops, dangling ones pruned
        self.assertEqual(len(w.op_names), w.n_ops)
        self.assertGreater(w.critical_path_us, 0)
        self.assertGreaterEqual(w.total_compute_us, w.critical_path_us)

    def test_cluster_preset_and_count(self):
        c = baechi.cluster("paper-4gpu-pcie")
        self.assertEqual(c.n_devices, 4)
        self.assertIn("paper-4gpu-pcie", baechi.presets())
        self.assertEqual(baechi.cluster("dgx-h100-8").n_devices, 8)

    def test_parse_strings(self):
        with open(T1) as f:
            w = baechi.parse_workload(f.read(), "t1.yaml")
        self.assertEqual(w.n_ops, baechi.load_workload(T1).n_ops)
        with open(T1_CLUSTER) as f:
            c = baechi.parse_cluster(f.read(), "t1-cluster.yaml")
        self.assertEqual(c.n_devices, baechi.cluster(T1_CLUSTER).n_devices)

    def test_bad_file_names_line(self):
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
            f.write("format: 1\nname: x\nops:\n  - name: a\n    time_us: -5\n")
        try:
            with self.assertRaises(baechi.Error) as cm:
                baechi.load_workload(f.name)
            self.assertIn(os.path.basename(f.name), str(cm.exception))
            self.assertRegex(str(cm.exception), r":\d+")
            self.assertNotIsInstance(cm.exception, baechi.Infeasible)
        finally:
            os.unlink(f.name)

    def test_missing_file(self):
        with self.assertRaises(baechi.Error) as cm:
            baechi.load_workload("/nonexistent/w.yaml")
        self.assertIn("/nonexistent/w.yaml", str(cm.exception))
        with self.assertRaises(baechi.Error):
            baechi.cluster("no-such-preset")


class TestSameAsCli(unittest.TestCase):
    """The module gives the numbers of `baechi run --json`."""

    @classmethod
    def setUpClass(cls):
        cls.w = baechi.load_workload(GNMT)
        cls.c = baechi.cluster("paper-4gpu-pcie")

    def check(self, placer, cli_args, **opts):
        ref = run_json("-w", GNMT, "-c", "paper-4gpu-pcie", "-p", placer, *cli_args)
        p = baechi.place(self.w, self.c, placer, **opts)
        for model in ("timed", "baechi"):
            r = baechi.simulate(self.w, self.c, p, model=model)
            want = ref["sim"][model]
            self.assertEqual(r.model, model)
            self.assertEqual(r.step_us, want["step_us"], (placer, model))
            self.assertEqual(r.oom, want["oom"])
            self.assertEqual(r.peak_bytes, [d["peak_bytes"] for d in want["devices"]])
            self.assertEqual([d.limit_bytes for d in r.devices],
                             [d["limit_bytes"] for d in want["devices"]])
            self.assertEqual(r.lower_bound_us, ref["lower_bound_us"])
        self.assertEqual(p.estimate_us, ref["estimate_us"])
        return p

    def test_m_etf(self):
        self.check("m-etf", [])

    def test_m_topo_half_memory(self):
        p = self.check("m-topo", ["--memory-fraction", "0.5"], memory_fraction=0.5)
        self.assertEqual(p.options, {"memory_fraction": 0.5})

    def test_paper_two_devices(self):
        self.check("paper", ["--devices", "2"], devices=2)

    def test_single_oom_at_small_fraction(self):
        # single ignores memory: the simulators see the smaller devices.
        self.check("single", ["--memory-fraction", "0.2"], memory_fraction=0.2)


class TestPlacement(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.w = baechi.load_workload(GNMT)
        cls.c = baechi.cluster("paper-4gpu-pcie")

    def test_device_of_and_roundtrip(self):
        p = baechi.place(self.w, self.c, "m-etf")
        self.assertEqual(len(p.device_of), self.w.n_ops)
        self.assertTrue(set(p.device_of.values()) <= {0, 1, 2, 3})
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "p.yaml")
            p.write(self.w, path)
            q = baechi.load_placement(self.w, path)
            self.assertEqual(q.device_of, p.device_of)
            self.assertEqual(q.placer, "m-etf")
            self.assertEqual(baechi.simulate(self.w, self.c, q).step_us,
                             baechi.simulate(self.w, self.c, p).step_us)

    def test_infeasible(self):
        with self.assertRaises(baechi.Infeasible) as cm:
            baechi.place(self.w, self.c, "m-etf", memory_fraction=0.01)
        self.assertEqual(cm.exception.code, baechi.ERR_INFEASIBLE)
        self.assertRegex(str(cm.exception), r"missing [0-9.]+ [KMGT]?i?B\)")

    def test_bad_options(self):
        with self.assertRaisesRegex(baechi.Error, "unknown option 'bogus'"):
            baechi.place(self.w, self.c, "m-etf", bogus=1)
        with self.assertRaisesRegex(baechi.Error, "memory_fraction"):
            baechi.place(self.w, self.c, "m-etf", memory_fraction="lots")
        with self.assertRaisesRegex(baechi.Error, "unknown placer 'm-eft'") as cm:
            baechi.place(self.w, self.c, "m-eft")
        # words a Python user can act on, not a C function's name (issue 33)
        self.assertIn("the most similar is 'm-etf'", str(cm.exception))
        self.assertNotIn("baechi_", str(cm.exception))
        with self.assertRaisesRegex(baechi.Error, "model"):
            baechi.simulate(self.w, self.c, baechi.place(self.w, self.c, "single"),
                            model="nope")

    def test_placers_listed(self):
        names = baechi.placers()
        for n in ("m-topo", "m-etf", "m-sct", "paper", "single"):
            self.assertIn(n, names)

    def test_trace_and_links(self):
        p = baechi.place(self.w, self.c, "m-etf")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "t.json")
            r = baechi.simulate(self.w, self.c, p, trace=path)
            events = json.load(open(path))
            events = events["traceEvents"] if isinstance(events, dict) else events
            self.assertGreater(len([e for e in events if e.get("ph") == "X"]), self.w.n_ops - 1)
        sent = sum(map(sum, r.link_bytes))
        self.assertGreater(sent, 0)
        self.assertTrue(all(r.link_bytes[i][i] == 0 for i in range(4)))

    def test_memory_fraction_sweep_as_rows(self):
        # The README's notebook example: a list of dicts, ready for pandas.
        rows = []
        for f in (1.0, 0.5, 0.3):
            for placer in ("m-topo", "m-etf"):
                row = {"placer": placer, "memory_fraction": f}
                try:
                    p = baechi.place(self.w, self.c, placer, memory_fraction=f)
                    r = baechi.simulate(self.w, self.c, p)
                    row.update(step_ms=r.step_us / 1e3, oom=r.oom,
                               peak_gib=max(r.peak_bytes) / 2**30)
                except baechi.Infeasible:
                    row.update(step_ms=None, oom=None, peak_gib=None)
                rows.append(row)
        self.assertEqual(len(rows), 6)
        self.assertTrue(all(r["step_ms"] is None or r["step_ms"] > 0 for r in rows))
        self.assertIsNotNone(rows[0]["step_ms"])


class TestStore(unittest.TestCase):
    def test_store_like_run_db(self):
        w = baechi.load_workload(GNMT)
        c = baechi.cluster("paper-4gpu-pcie")
        p = baechi.place(w, c, "m-etf", memory_fraction=0.5)
        with tempfile.TemporaryDirectory() as d:
            db = os.path.join(d, "r.db")
            baechi.store(db, w, c, p)
            con = sqlite3.connect(db)
            rows = sorted(con.execute(
                "SELECT sim_model, placer, memory_fraction, step_us, status FROM runs"))
            con.close()
            r = {m: baechi.simulate(w, c, p, model=m).step_us for m in ("baechi", "timed")}
            self.assertEqual(rows, [("baechi", "m-etf", 0.5, r["baechi"], "ok"),
                                    ("timed", "m-etf", 0.5, r["timed"], "ok")])


class TestWarnings(unittest.TestCase):
    def test_library_warning_is_python_warning(self):
        # A placement that splits a colocation group is simulated with a
        # warning (core/placement.c): it reaches Python as a BaechiWarning.
        w = baechi.load_workload(GNMT)
        c = baechi.cluster("paper-4gpu-pcie")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "p.yaml")
            baechi.place(w, c, "single").write(w, path)
            with open(path) as f:
                text = f.read()
        op = "encoder/embedding/Initializer/random_uniform/min"
        self.assertIn("  %s: 0\n" % op, text)
        p = baechi.parse_placement(w, text.replace("  %s: 0\n" % op, "  %s: 1\n" % op), "split.yaml")
        self.assertEqual(p.device_of[op], 1)
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            baechi.simulate(w, c, p)
        msgs = [str(x.message) for x in got if issubclass(x.category, baechi.BaechiWarning)]
        self.assertTrue(any("is split" in m for m in msgs), msgs)


if __name__ == "__main__":
    unittest.main()
