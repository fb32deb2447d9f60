"""clitest.py - what the Python tests that compare the module with the
program share: where the tree, the program ($BAECHI, default build/baechi)
and the ONNX fixtures are, running the program, and a test case with its
own temporary directory."""

import os
import subprocess
import tempfile
import unittest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BAECHI = os.environ.get("BAECHI", os.path.join(TOP, "build", "baechi"))
ONNX = os.path.join(TOP, "tests", "data", "onnx")


def cli(*args):
    """The program's stdout; CalledProcessError when it fails."""
    return subprocess.run([BAECHI, *args], check=True, capture_output=True, text=True).stdout


class TmpDirCase(unittest.TestCase):
    """A test case with a fresh temporary directory per test (self.tmp)."""

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp, name)
