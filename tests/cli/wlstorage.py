"""wlstorage.py - what the memory tests (t124, t125, t127) read of a
workload file: its ops by name, an input reference, and the port that owns
a tensor's storage.  Imported with sys.path.insert(0, $TOP/tests/cli)."""
import yaml


def load(path):
    """The workload and its ops by name."""
    w = yaml.safe_load(open(path))
    return w, {o["name"]: o for o in w["ops"]}


def ref(ops, s):
    """(op, port) of an input string "p:k", "p" or "^p"."""
    s = s.lstrip("^")
    n, _, p = s.rpartition(":")
    if not n or n not in ops:
        n, p = s, "0"
    return n, int(p)


def storage(ops, n, p):
    """The port owning the storage (x-alias chains: views, in-place ops)."""
    for _ in range(1000):
        al = ops[n].get("x-alias")
        if not al or al[p] < 0:
            return n, p
        n, p = ref(ops, ops[n]["inputs"][al[p]])
    raise AssertionError("alias cycle at " + n)
