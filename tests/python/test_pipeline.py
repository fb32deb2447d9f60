"""Tests of the pipeline options of the module (API 1.2): schedule and
virtual_stages of place() and simulate() give what `baechi run --schedule S
--virtual-stages V` gives, and recompute, schedule and virtual_stages of
generate(), train() and import_onnx() give the files of `baechi workload gen`,
`workload train` and `workload import --train` with the same options (the
program is $BAECHI, default build/baechi); a value of the wrong type raises
TypeError naming the option, a bad value baechi.Error naming it."""

import json
import os
import unittest

import baechi

from clitest import ONNX, TmpDirCase, cli

# A small GPT with 4 micro-batches on 4 GPUs: the schedules differ in the
# stages' peaks (GPipe holds 4 micro-batches' activations, 1F1B min(M, K - s)).
GEN = dict(size="small", layers=4, seq=128, batch=8, micro_batches=4, device="h100")
GEN_CLI = ["gpt", "--size", "small", "--layers", "4", "--seq", "128", "-b", "8",
           "--micro-batches", "4", "--device", "h100"]


class Pipeline(TmpDirCase):
    def same_file(self, w, path):
        """w is, op for op and number for number, the workload of `path`."""
        f = baechi.load_workload(path)
        self.assertEqual((w.name, w.n_ops, w.total_compute_us, w.critical_path_us),
                         (f.name, f.n_ops, f.total_compute_us, f.critical_path_us))
        self.assertEqual(w.op_names, f.op_names)
        c = baechi.cluster("dgx-h100-8")
        for x in (w, f):
            r = baechi.simulate(x, c, baechi.place(x, c, "m-topo", devices=4))
            if x is w:
                ref = (r.step_us, r.peak_bytes)
        self.assertEqual((r.step_us, r.peak_bytes), ref)


class TestRunSchedule(Pipeline):
    def test_schedules_as_run(self):
        wpath = self.path("g.yaml")
        cli("workload", "gen", *GEN_CLI, "-o", wpath)
        w = baechi.load_workload(wpath)
        c = baechi.cluster("dgx-h100-8")
        seen = {}
        for sched, v in (("gpipe", 1), ("1f1b", 1), ("interleaved", 2)):
            ref = json.loads(cli("run", "--json", "-w", wpath, "-c", "dgx-h100-8", "-k", "4",
                                 "-p", "m-topo", "--schedule", sched,
                                 "--virtual-stages", str(v)))["sim"]["timed"]
            want = (ref["step_us"], [d["peak_bytes"] for d in ref["devices"]])
            # on the placement ...
            p = baechi.place(w, c, "m-topo", devices=4, schedule=sched, virtual_stages=v)
            r = baechi.simulate(w, c, p)
            self.assertEqual((r.step_us, r.peak_bytes), want, sched)
            # ... or on the simulation only
            p0 = baechi.place(w, c, "m-topo", devices=4)
            r = baechi.simulate(w, c, p0, schedule=sched, virtual_stages=v)
            self.assertEqual((r.step_us, r.peak_bytes), want, sched)
            seen[sched] = want
        # the option changes something: GPipe holds all 4 micro-batches'
        # activations on every stage, 1F1B fewer past the last
        self.assertGreater(sum(seen["gpipe"][1]), sum(seen["1f1b"][1]))

    def test_pipeline_placer_sees_schedule(self):
        wpath = self.path("g.yaml")
        cli("workload", "gen", *GEN_CLI, "-o", wpath)
        w = baechi.load_workload(wpath)
        c = baechi.cluster("dgx-h100-8")
        for sched in ("gpipe", "1f1b"):
            ref = json.loads(cli("run", "--json", "-w", wpath, "-c", "dgx-h100-8", "-k", "4",
                                 "-p", "pipeline", "--schedule", sched))["sim"]["timed"]
            p = baechi.place(w, c, "pipeline", devices=4, schedule=sched)
            self.assertEqual(baechi.simulate(w, c, p).step_us, ref["step_us"], sched)

    def test_bad_values(self):
        w = baechi.generate("gpt", **GEN)
        c = baechi.cluster("dgx-h100-8")
        for bad, word in ((dict(schedule=1), "schedule"), (dict(schedule=True), "schedule"),
                          (dict(virtual_stages=2.0), "virtual_stages"),
                          (dict(virtual_stages=True), "virtual_stages"),
                          (dict(virtual_stages=[2]), "virtual_stages")):
            with self.assertRaisesRegex(TypeError, word):
                baechi.place(w, c, "m-topo", devices=4, **bad)
        for bad, word in ((dict(schedule="pipedream"), "pipedream"),
                          (dict(virtual_stages=0), "virtual_stages"),
                          (dict(virtual_stages=65), "virtual_stages"),
                          (dict(virtual_stages=2), "interleaved"),
                          (dict(schedule="gpipe", virtual_stages=2), "interleaved")):
            with self.assertRaisesRegex(baechi.Error, word):
                baechi.place(w, c, "m-topo", devices=4, **bad)
        p = baechi.place(w, c, "m-topo", devices=4)
        with self.assertRaisesRegex(baechi.Error, "interleaved"):
            baechi.simulate(w, c, p, virtual_stages=3)


class TestMakers(Pipeline):
    def test_generate_as_cli(self):
        for params, args in (
                (dict(recompute="full"), ["--recompute", "full"]),
                (dict(recompute="selective", schedule="gpipe"),
                 ["--recompute", "selective", "--schedule", "gpipe"]),
                (dict(schedule="interleaved", virtual_stages=2),
                 ["--schedule", "interleaved", "--virtual-stages", "2"])):
            path = self.path("g.yaml")
            cli("workload", "gen", *GEN_CLI, *args, "-o", path)
            w = baechi.generate("gpt", **GEN, **params)
            self.same_file(w, path)

    def test_recompute_adds_ops(self):
        plain = baechi.generate("gpt", **GEN)
        full = baechi.generate("gpt", **GEN, recompute="full")
        self.assertGreater(full.n_ops, plain.n_ops)
        self.assertTrue(any("/recompute/" in n for n in full.op_names))

    def test_train_as_cli(self):
        fwd = self.path("f.yaml")
        cli("workload", "gen", "gpt", "--size", "small", "--layers", "2", "--seq", "128",
            "--forward-only", "--device", "h100", "-o", fwd)
        out = self.path("t.yaml")
        cli("workload", "train", fwd, "--micro-batches", "2", "--recompute", "full",
            "--schedule", "gpipe", "-o", out)
        w = baechi.train(baechi.load_workload(fwd), micro_batches=2, recompute="full",
                         schedule="gpipe")
        self.same_file(w, out)

    def test_import_as_cli(self):
        model = os.path.join(ONNX, "gpt2_block.onnx")
        out = self.path("i.yaml")
        cli("workload", "import", model, "--train", "--micro-batches", "2", "--recompute",
            "selective", "--schedule", "interleaved", "--virtual-stages", "2", "-o", out)
        w = baechi.import_onnx(model, train=True, micro_batches=2, recompute="selective",
                               schedule="interleaved", virtual_stages=2)
        self.same_file(w, out)

    def test_bad_params(self):
        for bad in (dict(recompute=1), dict(schedule=2), dict(virtual_stages=2.5),
                    dict(recompute=True)):
            with self.assertRaises(TypeError):
                baechi.generate("gpt", **GEN, **bad)
        for bad, word in ((dict(recompute="some"), "some"), (dict(schedule="zb"), "zb"),
                          (dict(virtual_stages=0), "virtual_stages"),
                          (dict(virtual_stages=2), "interleaved")):
            with self.assertRaisesRegex(baechi.Error, word):
                baechi.generate("gpt", **GEN, **bad)


if __name__ == "__main__":
    unittest.main()
