"""run.py - runs the Python module's tests (tests/python/test_*.py) and ends
with the closing line "python: N passed, N failed" that scripts/run-tests.sh
adds up.  The module is python/baechi of this tree unless PYTHONPATH says
otherwise; the library is build/libbaechi.so unless BAECHI_LIB says so."""

import os
import sys
import unittest

here = os.path.dirname(os.path.abspath(__file__))
if not os.environ.get("PYTHONPATH"):
    sys.path.insert(0, os.path.join(here, "..", "..", "python"))
suite = unittest.defaultTestLoader.discover(here, pattern="test_*.py", top_level_dir=here)
result = unittest.TextTestRunner(verbosity=1).run(suite)
failed = len(result.failures) + len(result.errors)
print("python: %d passed, %d failed" % (result.testsRun - failed, failed))
sys.exit(0 if failed == 0 and result.testsRun > 0 else 1)
