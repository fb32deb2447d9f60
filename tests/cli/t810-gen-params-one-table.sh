# check: once
# t810-gen-params-one-table.sh - the generator's parameters are one table
# (workloads/gen_params.c; issue 34 item 1): `workload gen --list-params`
# and the library's baechi_params_table() print the same rows, and at every
# bound of every numeric parameter the command line (workload gen, train,
# parallelize, import) and the C API (through the Python binding:
# generate, train, parallelize, import_onnx) accept and refuse exactly what
# the table says.  A bound changed in one front end only (or
# a parser that drifts from the table) fails here.
#
# A value is tried together with a later parameter that is always refused
# (the sentinel): the error names the sentinel when the value was accepted,
# the parameter itself when it was refused, and nothing is generated.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

test_expect_success 'the CLI and the API print the same table' - <<'EOF'
"$BAECHI" workload gen --list-params | grep -v '^#' | tr - _ | cut -f1-5 > cli.tsv
PYTHONPATH="$TOP/python" BAECHI_LIB="$(dirname "$BAECHI")/libbaechi.so" python3 -c '
import baechi, sys
sys.stdout.write(baechi._params_table().decode())' | tr - _ | cut -f1-5 > api.tsv
test "$(wc -l < cli.tsv)" -ge 40 || { echo "only $(wc -l < cli.tsv) rows"; exit 1; }
diff cli.tsv api.tsv
EOF

test_expect_success 'CLI and API accept and refuse at every bound as the table says' - <<'EOF'
PYTHONPATH="$TOP/python" BAECHI_LIB="$(dirname "$BAECHI")/libbaechi.so" \
    python3 - "$BAECHI" "$TOP/tests/data/onnx/lstm.onnx" <<'PY'
import re, subprocess, sys
import baechi

exe = sys.argv[1]
SENTINEL = {  # maker: (parameter, a value always refused), then the one for that parameter
    "generate": [("batch", "0"), ("seq", "0")],
    "synthetic": [("ops", "1"), ("seed", "-1")],
    "train": [("micro_batches", "0"), ("virtual_stages", "0")],
    "parallelize": [("zero", "4"), ("dp", "0")],
    "import_onnx": [("dp", "0"), ("tp", "0")],
}
rows = []
for line in baechi._params_table().decode().splitlines():
    name, kind, lo, hi, _default, uses = line.split("\t")
    if kind in ("int", "number"):
        rows.append((name, kind, lo, hi, [u for u in uses.split(",") if u]))


def cases(kind, lo, hi):
    """(value text, accepted?) at and beyond the bounds."""
    open_lo = lo.startswith(">")
    lo, hi = float(lo.lstrip(">")), float(hi)
    if kind == "int":
        return [(str(int(lo) - 1), False), (str(int(lo)), True), (str(int(hi)), True),
                (str(int(hi) + 1), False)]
    eps = (hi - lo) * 1e-3
    return [(repr(lo - eps), False), (repr(lo), not open_lo), (repr(lo + eps), True),
            (repr(hi), True), (repr(hi + eps), False)]


def named(msg, name, sentinel):
    """Which of the two parameters the message refuses."""
    for n in (name, sentinel):
        if re.search(r"parameter '%s'" % n.replace("_", "[-_]"), msg):
            return n
    return "?"


# the command of each maker, with its input
COMMAND = {
    "generate": ["workload", "gen", "gpt"],
    "synthetic": ["workload", "gen", "synthetic"],
    "train": ["workload", "train", "fwd.yaml"],
    "parallelize": ["workload", "parallelize", "train.yaml"],
    "import_onnx": ["workload", "import", "--train", sys.argv[2]],
}
subprocess.run([exe, "workload", "gen", "gpt", "--layers", "1", "--seq", "8", "--batch", "2",
                "--device", "none", "--forward-only", "-o", "fwd.yaml"], check=True,
               stdout=subprocess.DEVNULL)
subprocess.run([exe, "workload", "train", "fwd.yaml", "-o", "train.yaml"], check=True,
               stdout=subprocess.DEVNULL)


# the options `workload import` has (it has no parallelism options: a sweep's import: has)
IMPORT_OPTS = set(re.findall(r"--([a-z][a-z-]*)",
                             subprocess.run([exe, "workload", "import", "--help"],
                                            stdout=subprocess.PIPE, text=True).stdout))


def cli(maker, name, val, sentinel, sval):
    r = subprocess.run([exe] + COMMAND[maker] + ["--" + name.replace("_", "-"), val,
                        "--" + sentinel.replace("_", "-"), sval, "-o", "never.yaml"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert r.returncode == 2, (maker, name, val, r.returncode, r.stderr)
    return named(r.stderr, name, sentinel)


fwd = baechi.generate("synthetic", ops=10)


def api(maker, name, val, sentinel, sval):
    p = {name: val, sentinel: sval}
    try:
        if maker == "import_onnx":
            baechi.import_onnx(sys.argv[2], train=True, **p)
        elif maker in ("generate", "synthetic"):
            baechi.generate("gpt" if maker == "generate" else "synthetic", **p)
        elif maker == "train":
            baechi.train(fwd, **p)
        else:
            baechi.parallelize(fwd, **p)
    except baechi.Error as e:
        return named(str(e), name, sentinel)
    raise AssertionError("%s %s=%s %s=%s: accepted" % (maker, name, val, sentinel, sval))


bad, n = [], 0
for name, kind, lo, hi, makers in rows:
    for maker in makers:
        sentinel, sval = [s for s in SENTINEL[maker] if s[0] != name][0]
        for val, ok in cases(kind, lo, hi):
            runs = [("API", api(maker, name, val, sentinel, sval), sentinel if ok else name)]
            if maker != "import_onnx" or name.replace("_", "-") in IMPORT_OPTS:
                cs, cv = sentinel, sval
                if maker == "import_onnx":  # the command's own options only
                    cs = "micro_batches" if name != "micro_batches" else "virtual_stages"
                    cv = "0"
                runs.append(("CLI", cli(maker, name, val, cs, cv), cs if ok else name))
            n += 1
            for front, g, want in runs:
                if g != want:
                    bad.append("%s %s: %s=%s: the error names %s, not %s (table: %s..%s)" % (
                        front, maker, name, val, g, want, lo, hi))
assert n >= 120, "only %d cases" % n
if bad:
    sys.exit("\n".join(bad))
print("%d cases" % n)
PY
EOF

test_done
