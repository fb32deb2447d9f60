# check: slow once
# One machine-readable contract: every command's --json output validates
# against its schema in docs/schema/ (tests/json_schema.py: additional fields
# refused, so an added or renamed field fails here), numbers are numbers and
# booleans booleans, and the validator itself rejects what it should.
. "$TOP/tests/cli/lib.sh"
V="python3 $TOP/tests/json_schema.py"
S="$TOP/docs/schema"
W="$TOP/tests/data/t1.yaml"
C="$TOP/tests/data/t1-cluster.yaml"

check() { # check SCHEMA: validates $TMPDIR_TEST/out
    cp "$TMPDIR_TEST/out" "$TMPDIR_TEST/$1.json"
    if ! $V "$S/$1.json" "$TMPDIR_TEST/$1.json"; then
        echo "--- output"; cat "$TMPDIR_TEST/$1.json"; exit 1
    fi
}

test_expect_success 'workload info --json' '
    expect_exit 0 "$BAECHI" workload info "$GNMT" --json
    check workload-info
'

test_expect_success 'place --json' - <<'EOF'
expect_exit 0 "$BAECHI" place -w "$GNMT" -c paper-4gpu-pcie -p m-sct --json -o "$TMPDIR_TEST/p.yaml"
check place
expect_grep '"fusion": false' "$TMPDIR_TEST/out"
expect_grep '"n_devices": 4,' "$TMPDIR_TEST/out"
expect_grep '"output": ".*p.yaml"' "$TMPDIR_TEST/out"
test -s "$TMPDIR_TEST/p.yaml"
EOF

test_expect_success 'place --json, infeasible: reported once, on stdout' '
    expect_exit 3 "$BAECHI" place -w "$GNMT" -c paper-4gpu-pcie -p m-etf --memory-fraction 0.05 --json
    check place
    test ! -s "$TMPDIR_TEST/err"   # reported once: on stdout
'

test_expect_success 'sim --json, both models' - <<'EOF'
for m in baechi timed; do
    expect_exit 0 "$BAECHI" sim -w "$GNMT" -c paper-4gpu-pcie --placement "$TMPDIR_TEST/p.yaml" \
        --model $m --json
    check sim
done
EOF

test_expect_success 'sim --json with a placement file' - <<'EOF'
expect_exit 0 "$BAECHI" sim -w "$W" -c "$C" --placement "$TOP/tests/data/t1-placement.yaml" --json
check sim
EOF

test_expect_success 'run -p paper --json: its options and devices' - <<'EOF'
expect_exit 0 "$BAECHI" run -w "$GNMT" -c paper-4gpu-pcie -p paper --json
check run
python3 - "$TMPDIR_TEST/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["options"]["fusion"] is True and r["options"]["grouper"] == "coplace", r["options"]
assert r["options"]["n_devices"] == 4 and r["options"]["memory_fraction"] == 1, r["options"]
assert isinstance(r["placement_stats"]["n_nodes"], int), r["placement_stats"]
for m in ("baechi", "timed"):
    for d in r["sim"][m]["devices"]:
        assert 0 <= d["utilization"] <= 1 and d["final_bytes"] >= 0, d
PY
EOF

test_expect_success 'run -p m-sct --json' '
    expect_exit 0 "$BAECHI" run -w "$GNMT" -c paper-4gpu-pcie -p m-sct --json
    check run
'

# --explain-memory adds memory_explain (docs/explain-memory.md), one model in
# sim, both in run; a device out of memory has its oom snapshot
test_expect_success 'run --json --explain-memory: both models, the oom snapshot' - <<'EOF'
expect_exit 0 "$BAECHI" run -w "$GNMT" -c paper-4gpu-pcie -p single --memory-fraction 0.05 \
    --json --explain-memory
check run
expect_grep '"memory_explain": \{"baechi": \[' "$TMPDIR_TEST/out"
expect_grep '"oom": \{"time_us"' "$TMPDIR_TEST/out"
EOF

test_expect_success 'sim --json --explain-memory' - <<'EOF'
expect_exit 0 "$BAECHI" sim -w "$GNMT" -c paper-4gpu-pcie --placement "$TMPDIR_TEST/p.yaml" \
    --json --explain-memory
check sim
expect_grep '"memory_explain": \[\{"id": 0' "$TMPDIR_TEST/out"
EOF

test_expect_success 'run --json, infeasible: on stdout only' '
    expect_exit 3 "$BAECHI" run -w "$GNMT" -c paper-4gpu-pcie -p m-etf --memory-fraction 0.05 --json
    check run
    test ! -s "$TMPDIR_TEST/err"
'

test_expect_success 'replay --json' - <<'EOF'
expect_exit 0 "$BAECHI" replay -w "$W" -c "$C" --placement given --steps 1 --warmup 0 --json
check replay
EOF

# report and db query: one tidy table
test_expect_success 'setup: a database with a feasible and an infeasible run' - <<'EOF'
expect_exit 0 "$BAECHI" run -w "$GNMT" -c paper-4gpu-pcie -p m-etf --db "$TMPDIR_TEST/r.db"
expect_exit 3 "$BAECHI" run -w "$GNMT" -c paper-4gpu-pcie -p m-etf --memory-fraction 0.05 \
    --db "$TMPDIR_TEST/r.db"
EOF

test_expect_success 'report --json' - <<'EOF'
expect_exit 0 "$BAECHI" report --db "$TMPDIR_TEST/r.db" --json
check report
expect_grep '"status": "infeasible"' "$TMPDIR_TEST/out"
EOF

test_expect_success 'db query --format json' '
    expect_exit 0 "$BAECHI" db query --db "$TMPDIR_TEST/r.db" --format json "SELECT id, placer, step_us FROM runs"
    check db-query
'

cd "$TMPDIR_TEST"
test_expect_success 'sweep --json' - <<'EOF'
printf 'workloads: ["%s"]\nclusters: [paper-4gpu-pcie]\nplacers: [m-etf, single]\n' "$GNMT" > sw.yaml
expect_exit 0 "$BAECHI" sweep sw.yaml --db sw.db --json -j 1 --no-progress
check sweep
expect_grep '"n_points": 2,' "$TMPDIR_TEST/out"
EOF

# the same field names for the same thing across commands
test_expect_success 'the same field names for the same thing across commands' - <<'EOF'
python3 - "$TMPDIR_TEST" <<'PY'
import json, sys
d = sys.argv[1]
info = json.load(open(d + "/workload-info.json"))
run = json.load(open(d + "/run.json"))
for k in ("workload", "n_ops"):
    assert k in info, k
assert "ops" not in info and "name" not in info
PY
EOF

# the validator refuses an added field, a renamed one and a string for a number
test_expect_success 'the validator refuses an added field, a renamed one, a string for a number' - <<'EOF'
python3 - "$TOP" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1] + "/tests")
from json_schema import validate
s = json.load(open(sys.argv[1] + "/docs/schema/workload-info.json"))
ok = {"workload": "w", "n_ops_in_file": 1, "n_ops": 1, "n_pruned": 0, "n_edges": 0,
      "n_tensor_refs": 0, "n_control_edges": 0, "n_tensors": 1, "n_groups": 1,
      "total_compute_us": 1, "measured_compute_us": 1.0, "n_unprofiled_ops": 0,
      "critical_path_us": 1, "persistent_bytes": 0, "output_bytes": 0, "temp_bytes": 0,
      "temp_max_bytes": 0, "phases": {"forward": 1, "backward": 0, "update": 0},
      "n_given_device_ops": 0, "lower_bounds": [{"n_devices": 1, "lower_bound_us": 1}]}
assert validate(s, ok) == [], validate(s, ok)
assert validate(s, dict(ok, extra=1))
bad = dict(ok); bad["ops"] = bad.pop("n_ops")
assert validate(s, bad)
assert validate(s, dict(ok, n_ops="1"))
assert validate(s, dict(ok, n_ops=True))
assert validate(s, dict(ok, lower_bounds=[{"n_devices": 0, "lower_bound_us": 1}]))
PY
EOF

# docs/json.md documents every field of every schema
test_expect_success 'docs/json.md documents every field of every schema' - <<'EOF'
python3 - "$TOP" <<'PY'
import glob, json, sys
top = sys.argv[1]
doc = open(top + "/docs/json.md").read()
def walk(s, prefix):
    for alt in s.get("oneOf", [s]):
        for k, v in alt.get("properties", {}).items():
            yield prefix + k
            if v.get("type") == "object":
                yield from walk(v, prefix + k + ".")
            if v.get("type") == "array" and v.get("items", {}).get("type") == "object":
                yield from walk(v["items"], prefix + k + "[].")
missing = [(f, n) for f in sorted(glob.glob(top + "/docs/schema/*.json"))
           for n in walk(json.load(open(f)), "") if "`%s`" % n not in doc]
assert not missing, "fields not in docs/json.md: %r" % missing[:10]
PY
EOF

# docs/json.md is generated from the schemas (scripts/json-doc.py)
test_expect_success 'docs/json.md is generated from the schemas' '
    python3 "$TOP/scripts/json-doc.py" | cmp - "$TOP/docs/json.md" ||
        { echo "docs/json.md is stale: python3 scripts/json-doc.py > docs/json.md"; exit 1; }
'

test_done
