"""Tests of the module's study functions (API 1.1): generate, import_onnx,
train, explain_memory and report give what `baechi workload gen`, `workload
import`, `workload train`, `run --explain-memory --json` and `report --format
json` give for the same inputs (the program is $BAECHI, default
build/baechi), and misuse raises naming the argument."""

import json
import os
import unittest

import baechi

from clitest import ONNX, TmpDirCase, cli


class Study(TmpDirCase):
    def same_workload(self, w, path):
        """w is the workload of file `path`: ops, totals, and every number of
        `run --json` for one placement."""
        f = baechi.load_workload(path)
        self.assertEqual((w.name, w.n_ops, w.total_compute_us, w.critical_path_us),
                         (f.name, f.n_ops, f.total_compute_us, f.critical_path_us))
        self.assertEqual(w.op_names, f.op_names)
        ref = json.loads(cli("run", "--json", "-w", path, "-c", "paper-4gpu-pcie", "-p", "m-etf"))
        c = baechi.cluster("paper-4gpu-pcie")
        p = baechi.place(w, c, "m-etf")
        for model in ("timed", "baechi"):
            r = baechi.simulate(w, c, p, model=model)
            self.assertEqual(r.step_us, ref["sim"][model]["step_us"], model)
            self.assertEqual(r.peak_bytes, [d["peak_bytes"] for d in ref["sim"][model]["devices"]])


class TestGenerate(Study):
    def test_models_as_cli(self):
        cases = [
            ("gnmt", ["--forward-only", "-b", "64"], dict(forward_only=True, batch=64)),
            ("transformer", ["--size", "base", "--layers", "2", "--optimizer", "adam"],
             dict(size="base", layers=2, optimizer="adam")),
            ("gpt", ["--size", "small", "--layers", "2", "-b", "2", "--seq", "128",
                     "--micro-batches", "2", "--device", "h100", "--save-all-inputs",
                     "--bwd-factor", "2.5", "--elem-bytes", "2"],
             dict(size="small", layers=2, batch=2, seq=128, micro_batches=2, device="h100",
                  save_all_inputs=True, bwd_factor=2.5, elem_bytes=2)),
            ("transformer", ["--d-model", "256", "--heads", "4", "--ffn", "512", "--vocab",
                             "1000", "--layers", "1", "--no-groups", "--device", "none"],
             dict(d_model=256, heads=4, ffn=512, vocab=1000, layers=1, no_groups=True,
                  device="none")),
        ]
        for i, (model, args, params) in enumerate(cases):
            path = self.path("g%d.yaml" % i)
            cli("workload", "gen", model, *args, "-o", path)
            with self.subTest(model=model, args=args):
                self.same_workload(baechi.generate(model, **params), path)

    def test_inception_aux(self):
        path = self.path("inc.yaml")
        cli("workload", "gen", "inception-v3", "--aux", "--forward-only", "-b", "8", "-o", path)
        self.same_workload(baechi.generate("inception-v3", aux=True, forward_only=True, batch=8),
                           path)

    def test_synthetic_as_cli(self):
        for shape, extra, params in [
                ("layered", ["--fan-in", "2", "--width", "10"], dict(fan_in=2, width=10)),
                ("fork-join", ["--depth", "5", "--group-size", "3"], dict(depth=5, group_size=3)),
                ("random", ["--window", "20"], dict(window=20)),
                ("chain", [], {})]:
            path = self.path("s-%s.yaml" % shape)
            cli("workload", "gen", "synthetic", "--shape", shape, "--ops", "300", "--seed", "7",
                *extra, "-o", path)
            with self.subTest(shape=shape):
                self.same_workload(baechi.generate("synthetic", shape=shape, ops=300, seed=7,
                                                   **params), path)

    def test_name(self):
        w = baechi.generate("synthetic", ops=50, name="mine")
        self.assertEqual(w.name, "mine")

    def test_errors(self):
        with self.assertRaisesRegex(baechi.Error, "nope"):
            baechi.generate("nope")
        with self.assertRaisesRegex(baechi.Error, "'shape'.*synthetic"):
            baechi.generate("gpt", shape="chain")
        with self.assertRaisesRegex(baechi.Error, "batch"):
            baechi.generate("gpt", batch=0)
        with self.assertRaisesRegex(baechi.Error, "optimizer|sgd"):
            baechi.generate("gpt", layers=1, optimizer="lion")
        with self.assertRaisesRegex(baechi.Error, "size|xxl"):
            baechi.generate("gpt", size="xxl")
        with self.assertRaisesRegex(baechi.Error, "micro_batches"):
            baechi.generate("gpt", micro_batches="many")

    def test_misuse(self):
        with self.assertRaisesRegex(TypeError, "bogus"):
            baechi.generate("gpt", bogus=1)
        with self.assertRaisesRegex(TypeError, "batch.*float"):
            baechi.generate("gpt", batch=2.5)
        with self.assertRaisesRegex(TypeError, "aux.*int"):
            baechi.generate("inception-v3", aux=1)
        with self.assertRaisesRegex(TypeError, "model"):
            baechi.generate(None)
        with self.assertRaisesRegex(ValueError, "NUL"):
            baechi.generate("gpt\0x")
        with self.assertRaisesRegex(ValueError, "NUL"):
            baechi.generate("gpt", size="small\0")
        with self.assertRaisesRegex(ValueError, "finite"):
            baechi.generate("gpt", bwd_factor=float("nan"))


class TestImportTrain(Study):
    def test_import_as_cli(self):
        model = os.path.join(ONNX, "lstm.onnx")
        for i, (args, params) in enumerate([
                ([], {}),
                (["--train", "-b", "4"], dict(train=True, batch=4)),
                (["--train", "--micro-batches", "2", "--optimizer", "sgd", "--device", "a100"],
                 dict(train=True, micro_batches=2, optimizer="sgd", device="a100"))]):
            path = self.path("i%d.yaml" % i)
            cli("workload", "import", model, *args, "-o", path)
            with self.subTest(args=args):
                w = baechi.import_onnx(model, **params)
                self.assertEqual(w.path, model)
                self.same_workload(w, path)

    def test_import_errors(self):
        with self.assertRaisesRegex(baechi.Error, "bad-missing-input"):
            baechi.import_onnx(os.path.join(ONNX, "bad-missing-input.onnx"))
        with self.assertRaisesRegex(baechi.Error, "/nonexistent/m.onnx"):
            baechi.import_onnx("/nonexistent/m.onnx")
        with self.assertRaisesRegex(TypeError, "path"):
            baechi.import_onnx(None)
        with self.assertRaisesRegex(TypeError, "batch"):
            baechi.import_onnx(os.path.join(ONNX, "lstm.onnx"), batch=1.5)
        with self.assertRaisesRegex(baechi.Error, "nowhere"):
            baechi.import_onnx(os.path.join(ONNX, "lstm.onnx"), device="nowhere")

    def test_train_as_cli(self):
        fwd = self.path("fwd.yaml")
        cli("workload", "gen", "gnmt", "--forward-only", "-b", "16", "--seq", "8", "-o", fwd)
        for i, (args, params) in enumerate([
                ([], {}),
                (["--optimizer", "adam", "--micro-batches", "2", "--device", "h100",
                  "--override"], dict(optimizer="adam", micro_batches=2, device="h100",
                                      override=True))]):
            path = self.path("t%d.yaml" % i)
            cli("workload", "train", fwd, *args, "-o", path)
            with self.subTest(args=args):
                self.same_workload(baechi.train(baechi.load_workload(fwd), **params), path)

    def test_train_misuse(self):
        with self.assertRaisesRegex(TypeError, "workload"):
            baechi.train("fwd.yaml")
        with self.assertRaisesRegex(TypeError, "batch"):
            baechi.train(baechi.generate("synthetic", ops=20), batch=2)


class TestExplain(Study):
    def test_as_cli(self):
        w = baechi.generate("gpt", size="small", layers=2, batch=2, seq=128)
        path = self.path("gpt.yaml")
        cli("workload", "gen", "gpt", "--size", "small", "--layers", "2", "-b", "2", "--seq",
            "128", "-o", path)
        ref = json.loads(cli("run", "--json", "--explain-memory", "-w", path, "-c",
                             "paper-4gpu-pcie", "-p", "m-topo", "--memory-fraction", "0.5"))
        c = baechi.cluster("paper-4gpu-pcie")
        p = baechi.place(w, c, "m-topo", memory_fraction=0.5)
        for model in ("timed", "baechi"):
            x = baechi.explain_memory(w, c, p, model=model)
            self.assertEqual(x, ref["memory_explain"][model], model)
        x = baechi.explain_memory(w, c, p)
        self.assertEqual(len(x), 4)
        self.assertEqual(sum(x[0]["peak"]["by_kind"].values()), x[0]["peak"]["total_bytes"])

    def test_errors(self):
        w = baechi.generate("synthetic", ops=30)
        c = baechi.cluster("paper-4gpu-pcie")
        p = baechi.place(w, c, "m-etf")
        with self.assertRaisesRegex(baechi.Error, "model"):
            baechi.explain_memory(w, c, p, model="nope")
        with self.assertRaisesRegex(TypeError, "placement"):
            baechi.explain_memory(w, c, None)
        other = baechi.generate("synthetic", ops=40)
        with self.assertRaisesRegex(baechi.Error, "30 ops"):
            baechi.explain_memory(other, c, p)


class TestReport(Study):
    def test_as_cli(self):
        db = self.path("r.db")
        w = baechi.generate("synthetic", ops=200, seed=2)
        c = baechi.cluster("paper-4gpu-pcie")
        for placer in ("m-etf", "m-topo"):
            for f in (1.0, 0.5):
                baechi.store(db, w, c, baechi.place(w, c, placer, memory_fraction=f))
        ref = json.loads(cli("report", "--db", db, "--format", "json"))["rows"]
        rows = baechi.report(db)
        self.assertEqual(rows, ref)
        self.assertEqual(len(rows), 8)
        ref = json.loads(cli("report", "--db", db, "--format", "json", "--where", "placer=m-etf",
                             "--where", "memory_fraction<1", "--model", "timed"))["rows"]
        rows = baechi.report(db, where=["placer=m-etf", "memory_fraction<1"], model="timed")
        self.assertEqual(rows, ref)
        self.assertEqual(len(rows), 1)
        self.assertEqual(baechi.report(db, where="placer=m-topo")[0]["placer"], "m-topo")

    def test_errors(self):
        with self.assertRaises(baechi.Error):
            baechi.report(self.path("missing.db"))
        db = self.path("r.db")
        w = baechi.generate("synthetic", ops=20)
        c = baechi.cluster("paper-4gpu-pcie")
        baechi.store(db, w, c, baechi.place(w, c, "m-etf"))
        with self.assertRaisesRegex(baechi.Error, "bogus"):
            baechi.report(db, where="bogus=1")
        with self.assertRaisesRegex(baechi.Error, "model"):
            baechi.report(db, model="nope")
        with self.assertRaisesRegex(TypeError, "where"):
            baechi.report(db, where=3)
        with self.assertRaisesRegex(TypeError, "where"):
            baechi.report(db, where=[b"placer=x"])
        with self.assertRaisesRegex(ValueError, "NUL"):
            baechi.report(db, where="placer=m-etf\0")


if __name__ == "__main__":
    unittest.main()
