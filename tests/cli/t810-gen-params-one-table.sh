# check: once
# t810-gen-params-one-table.sh - the generator's parameters are one table
# (workloads/gen_params.c; issue 34 item 1): `workload gen --list-params`
# and the library's baechi_params_table() print the same rows, and at every
# bound of every numeric parameter the command line and the C API (through
# the Python binding: generate, train, parallelize) accept and refuse
# exactly what the table says.  A bound changed in one front end only (or
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
    python3 - "$BAECHI" <<'PY'
import re, subprocess, sys
import baechi

exe = sys.argv[1]
SENTINEL = {  # maker: (parameter, a value always refused), then the one for that parameter
    "generate": [("batch", "0"), ("seq", "0")],
    "synthetic": [("ops", "1"), ("seed", "-1")],
    "train": [("micro_batches", "0"), ("virtual_stages", "0")],
    "parallelize": [("zero", "4"), ("dp", "0")],
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


def cli(model, name, val, sentinel, sval):
    r = subprocess.run([exe, "workload", "gen", model, "--" + name.replace("_", "-"), val,
                        "--" + sentinel.replace("_", "-"), sval],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert r.returncode == 2, (model, name, val, r.returncode, r.stderr)
    return named(r.stderr, name, sentinel)


fwd = baechi.generate("synthetic", ops=10)


def api(maker, name, val, sentinel, sval):
    p = {name: val, sentinel: sval}
    try:
        if maker in ("generate", "synthetic"):
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
        if maker not in SENTINEL:
            continue  # import_onnx: its numeric parameters are generate's too
        sentinel, sval = [s for s in SENTINEL[maker] if s[0] != name][0]
        for val, ok in cases(kind, lo, hi):
            want = sentinel if ok else name
            got = [api(maker, name, val, sentinel, sval)]
            if maker in ("generate", "synthetic"):
                got.append(cli("gpt" if maker == "generate" else "synthetic", name, val,
                               sentinel, sval))
            n += 1
            for front, g in zip(("API", "CLI"), got):
                if g != want:
                    bad.append("%s %s: %s=%s %s (table: %s..%s)" % (
                        front, maker, name, val, "refused" if ok else "accepted", lo, hi))
assert n >= 120, "only %d cases" % n
if bad:
    sys.exit("\n".join(bad))
print("%d cases" % n)
PY
EOF

test_done
