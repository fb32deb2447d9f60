"""Misuse of the Python module raises; it never kills the interpreter.

Each case runs in a child interpreter, so that a segfault, an abort or a
double free in libbaechi shows as the failure of that one case (with the
signal) instead of ending the whole test run.  The child builds a small
workload, cluster and placement (tests/data/t1*.yaml), runs the statement and
reports the exception it got; the case passes when that is the expected type
and its message names the argument at fault.
"""

import math
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

import baechi

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
T1 = os.path.join(TOP, "tests", "data", "t1.yaml")
T1_CLUSTER = os.path.join(TOP, "tests", "data", "t1-cluster.yaml")

# The child finds the module this process imported (not an installed one).
MODULE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(baechi.__file__)))

CHILD = """\
import copy, gc, math, os, pickle, sys, baechi
tmp = %(tmp)r
def setup():
    w = baechi.load_workload(%(t1)r)
    c = baechi.cluster(%(t1c)r)
    return w, c, baechi.place(w, c, "m-etf")
"""

CASE = """\
print("CASE %(i)d", flush=True)
w, c, p = setup()
try:
%(stmt)s
except %(exc)s as e:
    print("RAISED %%s: %%s" %% (type(e).__name__, e), flush=True)
except BaseException as e:
    print("OTHER %%s: %%s" %% (type(e).__name__, e), flush=True)
else:
    print("NO EXCEPTION", flush=True)
w = c = p = None
gc.collect()
"""


class Misuse(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def raises(self, exc, stmt, *words):
        self.cases((exc, stmt) + words)

    def cases(self, *cases):
        """Runs each case (exception, statement, words...) in one child
        interpreter, in turn: the statement must raise the exception (a name
        in the child) with each of the words in its message."""
        code = CHILD % {"t1": T1, "t1c": T1_CLUSTER, "tmp": self.tmp.name}
        for i, (exc, stmt, *_) in enumerate(cases):
            code += CASE % {"i": i, "exc": exc,
                            "stmt": textwrap.indent(textwrap.dedent(stmt).strip(), "    ")}
        env = dict(os.environ)
        env["PYTHONPATH"] = MODULE_DIR + (os.pathsep + env["PYTHONPATH"]
                                          if env.get("PYTHONPATH") else "")
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                           cwd=self.tmp.name, timeout=120)
        got = r.stdout.split("CASE ")[1:]
        if r.returncode < 0:
            stmt = cases[len(got) - 1][1] if got else "setup"
            self.fail("%s: the interpreter died (signal %d)\n%s" % (stmt.strip(), -r.returncode,
                                                                    r.stdout + r.stderr))
        self.assertEqual((r.returncode, len(got)), (0, len(cases)), r.stdout + r.stderr)
        for (exc, stmt, *words), out in zip(cases, got):
            self.assertIn("RAISED", out, "%s: expected %s" % (stmt.strip(), exc))
            for word in words:
                self.assertIn(word, out, stmt.strip())


class TestHandles(Misuse):
    """A Workload, Cluster or Placement is where the module's handle types go."""

    def test_place_none_workload(self):
        self.raises("TypeError", "baechi.place(None, c, 'm-etf')", "workload", "Workload")

    def test_place_str_workload(self):
        self.raises("TypeError", "baechi.place('x', c, 'm-etf')", "workload", "str")

    def test_place_int_workload(self):
        self.raises("TypeError", "baechi.place(12345, c, 'm-etf')", "workload", "int")

    def test_place_str_cluster(self):
        self.raises("TypeError", "baechi.place(w, 'paper-4gpu-pcie', 'm-etf')", "cluster",
                    "Cluster", "baechi.cluster(")

    def test_place_swapped(self):
        self.raises("TypeError", "baechi.place(c, w, 'm-etf')", "workload", "Cluster")

    def test_simulate_none(self):
        self.cases(
            ("TypeError", "baechi.simulate(None, c, p)", "workload"),
            ("TypeError", "baechi.simulate(w, None, p)", "cluster"),
            ("TypeError", "baechi.simulate(w, c, None)", "placement"),
            ("TypeError", "baechi.simulate(w, c, 'p')", "placement", "str")
        )

    def test_store_str_workload(self):
        self.cases(
            ("TypeError", "baechi.store('x.db', 'w', c, p)", "workload", "str"),
            ("TypeError", "baechi.store('x.db', w, c, 7)", "placement", "int")
        )

    def test_placement_functions(self):
        self.cases(
            ("TypeError", "baechi.load_placement(None, 'p.yaml')", "workload"),
            ("TypeError", "baechi.parse_placement('w', 'x: 1')", "workload"),
            ("TypeError", "p.write(None, os.path.join(tmp, 'p.yaml'))", "workload"),
            ("TypeError", "p.write(c, os.path.join(tmp, 'p.yaml'))", "workload")
        )

    def test_no_construction_from_int(self):
        self.cases(
            ("TypeError", "baechi.Workload(1)", "load_workload"),
            ("TypeError", "baechi.Cluster(1)", "baechi.cluster"),
            ("TypeError", "baechi.Placement(1, w)", "baechi.place"),
            ("TypeError", "baechi.Workload()", "load_workload")
        )

    def test_closed_handle(self):
        self.cases(
            ("ValueError", "w.close(); w.close(); baechi.place(w, c, 'm-etf')",
             "workload", "closed"),
            ("ValueError", "c.close(); baechi.simulate(w, c, p)", "cluster", "closed"),
            ("ValueError", "p.close(); baechi.simulate(w, c, p)", "placement", "closed"),
            ("ValueError", "p.close(); baechi.store('x.db', w, c, p)", "placement",
             "closed"),
            ("ValueError", "w.close(); w.op_names", "closed"),
            ("ValueError", "p.close(); p.write(w, os.path.join(tmp, 'q.yaml'))", "closed"),
            ("ValueError", "w.close(); baechi.load_placement(w, 'p.yaml')", "closed")
        )

    def test_subclass_without_handle(self):
        self.raises("ValueError", """
            class W(baechi.Workload):
                def __init__(self):
                    pass
            baechi.place(W(), c, 'm-etf')
            """, "workload", "closed")

    def test_handle_tampered(self):
        self.raises("TypeError", "w._ptr = 12345; baechi.place(w, c, 'm-etf')", "workload")

    def test_copy_and_pickle(self):
        # A copy would share the handle and free it twice.
        self.cases(
            ("TypeError", "w2 = copy.copy(w); del w, w2; gc.collect()", "copied"),
            ("TypeError", "c2 = copy.deepcopy(c); del c, c2; gc.collect()", "copied"),
            ("TypeError", "pickle.dumps(p)", "pickle"),
        )


class TestStrings(Misuse):
    """Text reaches C whole (no NUL) and as UTF-8, or not at all."""


    def test_placer_with_nul(self):
        self.raises("ValueError", "baechi.place(w, c, 'm-etf\\x00x')", "placer", "NUL")

    def test_placer_not_str(self):
        self.cases(
            ("TypeError", "baechi.place(w, c, None)", "placer"),
            ("TypeError", "baechi.place(w, c, b'm-etf')", "placer", "bytes"),
            ("TypeError", "baechi.place(w, c, 5)", "placer", "int")
        )

    def test_unencodable(self):
        self.raises("ValueError", "baechi.place(w, c, 'm-etf\\udcff')", "placer")

    def test_model(self):
        self.cases(
            ("ValueError", "baechi.simulate(w, c, p, model='timed\\x00x')", "model", "NUL"),
            ("TypeError", "baechi.simulate(w, c, p, model=None)", "model"),
            ("TypeError", "baechi.simulate(w, c, p, model=1)", "model")
        )

    def test_paths(self):
        self.cases(
            ("TypeError", "baechi.load_workload(None)", "path"),
            ("TypeError", "baechi.load_workload(5)", "path", "int"),
            ("ValueError", "baechi.load_workload(%r + '\\x00.bak')" % T1, "path", "NUL"),
            ("TypeError", "baechi.cluster(None)", "spec"),
            ("ValueError", "baechi.cluster('paper-4gpu-pcie\\x00x')", "spec", "NUL"),
            ("TypeError", "baechi.load_placement(w, None)", "path"),
            ("ValueError", "p.write(w, os.path.join(tmp, 'p\\x00.yaml'))", "path", "NUL"),
            ("TypeError", "p.write(w, None)", "path"),
            ("TypeError", "baechi.store(None, w, c, p)", "db_path"),
            ("ValueError", "baechi.store('r\\x00.db', w, c, p)", "db_path", "NUL"),
            ("TypeError", "baechi.simulate(w, c, p, trace=5)", "trace"),
            ("ValueError", "baechi.simulate(w, c, p, trace='t\\x00.json')", "trace", "NUL")
        )

    def test_texts(self):
        self.cases(
            ("TypeError", "baechi.parse_workload(None)", "text"),
            ("TypeError", "baechi.parse_workload(5)", "text", "int"),
            ("ValueError", "baechi.parse_workload('format: 1\\x00')", "text", "NUL"),
            ("ValueError", "baechi.parse_workload(open(%r).read(), 't1\\x00.yaml')" % T1,
             "name", "NUL"),
            ("TypeError", "baechi.parse_cluster(open(%r).read(), 5)" % T1_CLUSTER, "name"),
            ("TypeError", "baechi.parse_cluster([])", "text", "list"),
            ("TypeError", "baechi.parse_placement(w, None)", "text"),
            ("ValueError", "baechi.parse_placement(w, 'x\\x00')", "text", "NUL")

        )


class TestOptions(Misuse):
    """Option values are checked for their type before they become text."""


    def test_fraction_nan_inf(self):
        self.cases(
            ("ValueError", "baechi.place(w, c, 'm-etf', memory_fraction=math.nan)",
             "memory_fraction", "nan"),
            ("ValueError", "baechi.simulate(w, c, p, memory_fraction=-math.inf)",
             "memory_fraction")
        )

    def test_wrong_types(self):
        self.cases(
            ("TypeError", "baechi.place(w, c, 'm-etf', memory_fraction=[0.5])",
             "memory_fraction", "list"),
            ("TypeError", "baechi.place(w, c, 'm-etf', memory_fraction=True)",
             "memory_fraction", "bool"),
            ("TypeError", "baechi.place(w, c, 'm-etf', devices=1.5)", "devices", "float"),
            ("TypeError", "baechi.place(w, c, 'm-etf', devices=2.0)", "devices", "float"),
            ("TypeError", "baechi.place(w, c, 'm-etf', seed=1.0)", "seed"),
            ("TypeError", "baechi.place(w, c, 'm-etf', grouper=1)", "grouper"),
            ("TypeError", "baechi.place(w, c, 'm-etf', fusion=0.5)", "fusion"),
            ("TypeError", "baechi.store('x.db', w, c, p, devices=object())", "devices")
        )

    def test_nul_in_option(self):
        self.cases(
            ("ValueError", "baechi.place(w, c, 'm-etf', grouper='tf\\x00x')", "grouper",
             "NUL"),
            ("ValueError", "baechi.place(w, c, 'm-etf', **{'devices\\x00x': 1})", "NUL")
        )

    def test_library_checks_text(self):
        # Strings go to the library, which parses them with the CLI's ranges.
        self.cases(
            ("baechi.Error", "baechi.place(w, c, 'm-etf', memory_fraction='nan')",
             "memory_fraction"),
            ("baechi.Error", "baechi.place(w, c, 'm-etf', devices='2.5')", "devices"),
            ("baechi.Error", "baechi.place(w, c, 'm-etf', devices=10**30)", "devices")
        )

    def test_placement_of_another_workload(self):
        # Refused before the file is opened: the file is kept as it was.
        self.raises("baechi.Error", """
            g = baechi.parse_workload('format: 1\\nname: g\\nops:\\n'
                                      '  - {name: A, type: Op, time_us: 1, outputs: [8]}\\n'
                                      '  - {name: B, type: Op, time_us: 1, inputs: [A:0]}\\n')
            path = os.path.join(tmp, 'keep.yaml')
            with open(path, 'w') as f:
                f.write('keep\\n')
            try:
                p.write(g, path)
            finally:
                with open(path) as f:
                    assert f.read() == 'keep\\n', 'the file was overwritten'
            """, "placement of 3 ops", "'g' of 2 ops")


class TestAccepted(unittest.TestCase):
    """What the checks let through works as before."""

    def test_option_spellings(self):
        w = baechi.load_workload(T1)
        c = baechi.cluster(T1_CLUSTER)
        ref = baechi.simulate(w, c, baechi.place(w, c, "m-etf", memory_fraction=0.5)).step_us
        for v in ("0.5", 0.5, __import__("fractions").Fraction(1, 2)):
            p = baechi.place(w, c, "m-etf", memory_fraction=v)
            self.assertEqual(baechi.simulate(w, c, p).step_us, ref, v)
        p = baechi.place(w, c, "m-etf", memory_fraction=None, devices=1, fusion=False)
        self.assertEqual(set(p.devices), {0})
        self.assertEqual(baechi.place(w, c, "m-etf", devices="1").devices, p.devices)
        self.assertTrue(math.isfinite(baechi.simulate(w, c, p, memory_fraction=1).step_us))

    def test_paths_and_texts(self):
        w = baechi.load_workload(os.fsencode(T1))
        self.assertEqual(baechi.load_workload(__import__("pathlib").Path(T1)).n_ops, w.n_ops)
        with open(T1, "rb") as f:
            self.assertEqual(baechi.parse_workload(f.read()).n_ops, w.n_ops)

    def test_close_then_free_once(self):
        w = baechi.load_workload(T1)
        w.close()
        w.close()
        del w
        with baechi.load_workload(T1) as w:
            self.assertEqual(w.n_ops, 3)
        with self.assertRaises(ValueError):
            w.op_names


if __name__ == "__main__":
    unittest.main()
