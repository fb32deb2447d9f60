# check: once
# `baechi validate` (issue 31 item 8): every row of the published references
# (ZeRO Figure 1, Megatron parameters per TP rank, Narayanan's FLOPs and
# bubbles, Korthikanti's activations, nccl-tests bus bandwidth) within its
# tolerance; docs/validation.md is the command's Markdown output; the JSON
# validates against docs/schema/validate.json and agrees with itself;
# --only, --list and bad options.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

test_expect_success 'setup: the rows as JSON' '
    rc=0
    "$BAECHI" validate --format json > v.json 2> v.err || rc=$?
    echo $rc > v.rc
    test "$rc" -le 1
'

# Every row within its tolerance but the open ones of tests/validate-open.txt
# (each with why); a listed row that comes within its tolerance fails too.
test_expect_success 'every row within its tolerance, but the listed open ones' - <<'EOF'
python3 - v.json "$TOP/tests/validate-open.txt" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
known = set()
for line in open(sys.argv[2]):
    if line.strip() and not line.startswith("#"):
        c, case, why = [x.strip() for x in line.split("|", 2)]
        known.add((c, case))
bad, fixed = [], []
for x in r["rows"]:
    k = (x["check"], x["case"])
    if not x["ok"] and k not in known:
        bad.append(x)
    if x["ok"] and k in known:
        fixed.append(k)
for x in bad:
    if x["modelled"]:
        print("%s, %s: suite %.4g %s, reference %.4g, ratio %.3f" % (
            x["check"], x["case"], x["suite"], x["unit"], x["reference"], x["ratio"]))
    else:
        print("%s, %s: %s" % (x["check"], x["case"], x["note"]))
for k in fixed:
    print("now within its tolerance, remove from tests/validate-open.txt: %s | %s" % k)
rows = {(x["check"], x["case"]) for x in r["rows"]}
stale = [k for k in known if k not in rows]
for k in stale:
    print("no such row, remove from tests/validate-open.txt: %s | %s" % k)
assert not bad and not fixed and not stale
print("%d rows, %d open (tests/validate-open.txt)" % (len(r["rows"]), len(known)))
PY
EOF

test_expect_success 'the JSON: schema, ratios, counts, the exit status' - <<'EOF'
python3 "$TOP/tests/json_schema.py" "$TOP/docs/schema/validate.json" v.json
python3 - v.json "$(cat v.rc)" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
rows = r["rows"]
names = [c["name"] for c in r["checks"]]
assert names == ["zero", "megatron-params", "flops", "activations", "pipeline", "nccl-busbw"], names
assert {x["check"] for x in rows} == set(names)
assert len(rows) == r["n_rows"] >= 30, len(rows)
for x in rows:
    assert x["tolerance"] == 0.05, x
    if x["modelled"]:
        assert abs(x["ratio"] - x["suite"] / x["reference"]) < 1e-9, x
        assert x["ok"] == (abs(x["ratio"] - 1) <= x["tolerance"]), x
    else:
        assert x["suite"] is None and x["ratio"] is None and not x["ok"], x
        assert "not modelled" in x["note"], x
failed = sum(not x["ok"] for x in rows)
assert r["n_failed"] == failed and r["ok"] == (failed == 0), r["n_failed"]
assert int(sys.argv[2]) == (1 if failed else 0), sys.argv[2]
# the references are the papers' numbers
ref = {(x["check"], x["case"]): x["reference"] for x in rows}
z = [x["reference"] for x in rows if x["check"] == "zero"]
assert z == [120, 31.4, 16.6, 1.9], z
assert ref[("activations", "no recomputation, t = 1")] == 114
assert ref[("activations", "selective recomputation, t = 1")] == 34
assert ref[("pipeline", "GPipe bubble, p = 4, m = 8")] == 0.375
PY
EOF

test_expect_success 'a row outside its tolerance is named on stderr, exit 1' - <<'EOF'
if [ "$(cat v.rc)" = 1 ]; then
    expect_grep 'rows outside their tolerance' v.err
    python3 - v.json v.err <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
err = open(sys.argv[2]).read()
for x in r["rows"]:
    assert (("  %s, %s:" % (x["check"], x["case"])) in err) == (not x["ok"]), x
PY
else
    test ! -s v.err
fi
EOF

test_expect_success 'docs/validation.md is `baechi validate --format markdown`' - <<'EOF'
rc=0
"$BAECHI" validate --format markdown > v.md 2> /dev/null || rc=$?
test "$rc" -le 1
if ! cmp -s v.md "$TOP/docs/validation.md"; then
    echo "docs/validation.md is stale: run make validation-doc"
    diff "$TOP/docs/validation.md" v.md | head -40
    exit 1
fi
expect_grep '^### nccl-busbw$' v.md
expect_grep '^\| zero +\| ZeRO-1' v.md
EOF

test_expect_success 'the text table has every row' - <<'EOF'
rc=0
"$BAECHI" validate > v.txt 2> /dev/null || rc=$?
test "$rc" = "$(cat v.rc)"
test "$(grep -Ec '^(zero|megatron-params|flops|activations|pipeline|nccl-busbw) ' v.txt)" = \
    "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["rows"]))' v.json)"
expect_grep 'rows within their tolerance$' v.txt
EOF

test_expect_success '--only runs the checks named, once each; --list names them all' - <<'EOF'
rc=0
"$BAECHI" validate --only nccl-busbw,zero,zero --format json > o.json || rc=$?
test "$rc" -le 1
python3 - o.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert [c["name"] for c in r["checks"]] == ["nccl-busbw", "zero"], r["checks"]
assert [x["check"] for x in r["rows"]] == ["nccl-busbw"] * 6 + ["zero"] * 4, r["rows"]
PY
expect_exit 0 "$BAECHI" validate --list
test "$(wc -l < "$TMPDIR_TEST/out")" = 6
expect_grep '^zero +ZeRO model-state bytes' "$TMPDIR_TEST/out"
expect_grep '^nccl-busbw +collective bus bandwidth' "$TMPDIR_TEST/out"
EOF

test_expect_success 'bad options exit 2 with the reason; --help exits 0' - <<'EOF'
expect_exit 2 "$BAECHI" validate --only zeroo
expect_grep "unknown check 'zeroo' \(did you mean 'zero'\?\)" "$TMPDIR_TEST/err"
expect_exit 2 "$BAECHI" validate --only ,
expect_exit 2 "$BAECHI" validate --format xml
expect_grep "unknown format 'xml'" "$TMPDIR_TEST/err"
expect_exit 2 "$BAECHI" validate extra
expect_grep "unexpected argument 'extra'" "$TMPDIR_TEST/err"
expect_exit 2 "$BAECHI" validate --frobnicate
test ! -s "$TMPDIR_TEST/out"
expect_exit 0 "$BAECHI" validate --help
expect_grep '^usage: baechi validate' "$TMPDIR_TEST/out"
expect_grep 'only NAMES' "$TMPDIR_TEST/out"
EOF

test_done
