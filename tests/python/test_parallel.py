"""Tests of the module's parallelize (docs/parallelism.md): the workload of
`baechi workload parallelize` for the same input and options (the program is
$BAECHI, default build/baechi), and misuse raises naming the parameter."""

import os
import tempfile
import unittest

import baechi

from clitest import cli

GPT = ["--layers", "2", "--d-model", "128", "--heads", "4", "--vocab", "1000", "-b", "2",
       "--seq", "64"]


class TestParallelize(unittest.TestCase):
    def test_as_cli(self):
        with tempfile.TemporaryDirectory() as tmp:
            src, out = os.path.join(tmp, "g.yaml"), os.path.join(tmp, "p.yaml")
            cli("workload", "gen", "gpt", *GPT, "-o", src)
            cli("workload", "parallelize", src, "--dp", "2", "--tp", "2", "--zero", "2",
                "--bucket-mb", "0.5", "-o", out)
            w = baechi.parallelize(baechi.load_workload(src), dp=2, tp=2, zero=2, bucket_mb=0.5)
            f = baechi.load_workload(out)
            self.assertEqual((w.name, w.n_ops, w.total_compute_us, w.critical_path_us),
                             (f.name, f.n_ops, f.total_compute_us, f.critical_path_us))
            self.assertEqual(w.op_names, f.op_names)
            self.assertTrue(any(n.startswith("r3/") for n in w.op_names))

    def test_misuse(self):
        w = baechi.generate("gpt", layers=1, d_model=128, heads=4, vocab=1000, batch=2, seq=64)
        with self.assertRaisesRegex(TypeError, "batch"):
            baechi.parallelize(w, batch=2)
        with self.assertRaisesRegex(baechi.Error, "zero"):
            baechi.parallelize(w, zero=4)
        with self.assertRaisesRegex(baechi.Error, "not a multiple of --tp 3"):
            baechi.parallelize(w, tp=3)
        with self.assertRaisesRegex(baechi.Error, "forward graph"):
            baechi.parallelize(baechi.generate("gpt", layers=1, forward_only=True), dp=2)


if __name__ == "__main__":
    unittest.main()
