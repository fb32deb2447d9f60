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
# The help line of every option that comes from the table is written once,
# in the table: `workload gen --help` prints the table's line for each row,
# and train, import and parallelize must print the same line for each row of
# theirs (a row missing from their help fails), while no source file of the
# command line holds a help line of the table again (issue 34 item 1).
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

test_expect_success 'the help of the table'"'"'s options is the table'"'"'s, written once' - <<'EOF'
PYTHONPATH="$TOP/python" BAECHI_LIB="$(dirname "$BAECHI")/libbaechi.so" \
    python3 - "$BAECHI" "$TOP" <<'PY'
import glob, re, subprocess, sys
import baechi

exe, top = sys.argv[1], sys.argv[2]


def help_lines(*verb):
    """option -> its --help line after the option (and placeholder)."""
    out = subprocess.run([exe, "workload", *verb, "--help"], stdout=subprocess.PIPE,
                         text=True, check=True).stdout
    lines = {}
    for line in out.splitlines():
        m = re.match(r"^ *(?:-[a-zA-Z], )?--([a-z0-9-]+)(?: [A-Z][A-Z:0-9]*)? +(.*)$", line)
        if m:
            lines[m.group(1)] = m.group(2)
    return lines


# the rows of each command, by the table's uses (the API's names)
rows = {}
for line in baechi._params_table().decode().splitlines():
    name, _kind, _lo, _hi, _default, uses = line.split("\t")
    rows[name.replace("_", "-")] = set(u for u in uses.split(",") if u)
table = help_lines("gen")  # generated from the table (cli/workload_gen.c)
missing = [n for n, u in rows.items() if u & {"generate", "synthetic"} and n not in table]
assert not missing, "workload gen --help lacks %s" % missing
WANT = {  # command: the rows whose help it prints from the table
    "train": [n for n, u in rows.items() if "train" in u],
    "parallelize": [n for n, u in rows.items() if "parallelize" in u],
    "import": [n for n, u in rows.items() if "train" in u] + ["device"],
}
assert len(WANT["train"]) >= 7 and len(WANT["parallelize"]) >= 10, WANT
bad = []
for verb, names in WANT.items():
    got = help_lines(verb)
    for n in names:
        if n not in got:
            bad.append("workload %s --help: no --%s (a row of the table)" % (verb, n))
        elif got[n] != table[n]:
            bad.append("workload %s --help --%s: '%s', the table says '%s'"
                       % (verb, n, got[n], table[n]))
# the command line's sources, C string literals joined, hold no help line
# of the table again
src = ""
for f in sorted(glob.glob(top + "/cli/*.[ch]")):
    src += re.sub(r'"\s*(\\\n\s*)?"', "", open(f).read())  # "ab" "cd" -> "abcd"
for n, h in sorted(table.items()):
    if n in rows and len(h) > 20 and h in src:
        bad.append("cli/ writes the help of --%s again: '%s'" % (n, h))
if bad:
    sys.exit("\n".join(bad))
print("%d rows, %d help lines checked" % (len(rows), sum(len(v) for v in WANT.values())))
PY
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
