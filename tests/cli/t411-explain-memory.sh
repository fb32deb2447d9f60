# check: slow sanitized-only
# --explain-memory (sim/explain.h, cli/explain.c): the live set at each
# device's peak, by kind, sums to the peak on every device, for GNMT and a
# training graph under both models, in `run` and `sim`, text and JSON; an
# out-of-memory placement shows the first over-limit allocation.
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"

test_expect_success 'setup: Inception-V3 training' '
    "$BAECHI" workload gen inception-v3 -b 16 --device rtx2080 -o inc.yaml > /dev/null
'

check_json() { # file: kinds sum to the peak, top lists sorted, oom iff the model says so
    python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
kinds = ["parameters", "optimizer", "gradients", "saved", "activations", "received", "temp"]
n = 0
for model in ("timed", "baechi"):
    for dev, x in zip(d["sim"][model]["devices"], d["memory_explain"][model]):
        assert x["id"] == dev["id"] and x["name"] == dev["name"]
        p = x["peak"]
        assert sorted(p["by_kind"]) == sorted(kinds), p["by_kind"]
        assert sum(p["by_kind"].values()) == p["total_bytes"] == dev["peak_bytes"], (model, dev, p)
        b = [t["bytes"] for t in p["top"]]
        assert b == sorted(b, reverse=True) and len(b) <= 20 and len(b) <= p["n_live"]
        assert all(t["kind"] in kinds for t in p["top"])
        assert (x["oom"] is not None) == dev["oom"], (model, dev["id"])
        if x["oom"]:
            assert x["oom"]["total_bytes"] > x["limit_bytes"] == dev["limit_bytes"]
        n += 1
print("checked", n, "devices")
PY
}

test_expect_success 'run --json --explain-memory: the kinds sum to the peak, GNMT and training' '
    for w in "$GNMT" inc.yaml; do
        for p in m-etf m-topo; do
            expect_exit 0 "$BAECHI" run -w "$w" -c paper-4gpu-pcie -p $p --json --explain-memory
            check_json "$TMPDIR_TEST/out"
        done
    done
'

# The training graph keeps activations for backward: they show as "saved".
test_expect_success 'the training graph keeps activations for backward: saved' - <<'EOF'
expect_exit 0 "$BAECHI" run -w inc.yaml -c paper-4gpu-pcie -p single --json --explain-memory
python3 -c "
import json; d = json.load(open('$TMPDIR_TEST/out'))
p = d['memory_explain']['timed'][0]['peak']['by_kind']
assert p['saved'] > p['parameters'] > 0 and p['optimizer'] > 0, p
"
EOF

# Out of memory: single on a tenth of the memory.
test_expect_success 'out of memory: the oom snapshot in JSON' - <<'EOF'
expect_exit 0 "$BAECHI" run -w inc.yaml -c paper-4gpu-pcie -p single --memory-fraction 0.1 \
    --json --explain-memory
check_json "$TMPDIR_TEST/out"
expect_grep '"oom": \{"time_us"' "$TMPDIR_TEST/out"
EOF

test_expect_success 'out of memory: the first over-limit allocation in the text' - <<'EOF'
expect_exit 0 "$BAECHI" run -w inc.yaml -c paper-4gpu-pcie -p single --memory-fraction 0.1 \
    --explain-memory
expect_grep '^memory at the peak \(timed model' "$TMPDIR_TEST/out"
expect_grep '^memory at the peak \(baechi model' "$TMPDIR_TEST/out"
expect_grep '^  OUT OF MEMORY at the first over-limit allocation: .* \(over by ' "$TMPDIR_TEST/out"
expect_grep '^ +bytes +kind +live since +tensor$' "$TMPDIR_TEST/out"
expect_grep ' saved +[0-9.]+ (µs|ms) ' "$TMPDIR_TEST/out"
EOF

# sim, one model, the same numbers as run's.
test_expect_success 'setup: GNMT placed by m-etf' '
    expect_exit 0 "$BAECHI" place -w "$GNMT" -c paper-4gpu-pcie -p m-etf -o p.yaml
'

test_expect_success 'sim, one model at a time, gives the numbers of run' - <<'EOF'
for m in timed baechi; do
    expect_exit 0 "$BAECHI" sim -w "$GNMT" -c paper-4gpu-pcie -p p.yaml --model $m --json \
        --explain-memory
    cp "$TMPDIR_TEST/out" sim-$m.json
done
expect_exit 0 "$BAECHI" run -w "$GNMT" -c paper-4gpu-pcie -p m-etf --json --explain-memory
python3 - "$TMPDIR_TEST/out" sim-timed.json sim-baechi.json <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))["memory_explain"]
for m, f in (("timed", sys.argv[2]), ("baechi", sys.argv[3])):
    assert json.load(open(f))["memory_explain"] == run[m], m
PY
EOF

test_expect_success 'sim --explain-memory: the peak and its kinds in the text' - <<'EOF'
expect_exit 0 "$BAECHI" sim -w "$GNMT" -c paper-4gpu-pcie -p p.yaml --explain-memory
expect_grep '^  peak: [0-9.]+ [KMG]iB of 6.44 GiB at ' "$TMPDIR_TEST/out"
expect_grep 'by kind: +parameters' "$TMPDIR_TEST/out"
EOF

# The results database keeps the peak by kind of every run (schema 2), and
# a database of schema 1 is migrated.
test_expect_success 'the database keeps the peak by kind of every run' - <<'EOF'
expect_exit 0 "$BAECHI" run -w inc.yaml -c paper-4gpu-pcie -p m-topo --db r.db --json
cp "$TMPDIR_TEST/out" run.json
expect_exit 0 "$BAECHI" db query --db r.db --format json \
    "SELECT r.sim_model, d.device, d.peak_bytes, d.peak_parameters_bytes, d.peak_optimizer_bytes,
            d.peak_gradients_bytes, d.peak_saved_bytes, d.peak_activations_bytes,
            d.peak_received_bytes, d.peak_temp_bytes
     FROM devices d JOIN runs r ON r.id = d.run_id ORDER BY r.sim_model, d.device"
python3 - "$TMPDIR_TEST/out" run.json <<'PY'
import json, sys
q = json.load(open(sys.argv[1]))
rows = q["rows"] if isinstance(q, dict) else q
run = json.load(open(sys.argv[2]))
assert len(rows) == 8, rows
for row in rows:
    kinds = [row["peak_%s_bytes" % k] for k in
             ("parameters", "optimizer", "gradients", "saved", "activations", "received", "temp")]
    assert sum(kinds) == row["peak_bytes"], row
    dev = run["sim"][row["sim_model"]]["devices"][row["device"]]
    assert dev["peak_bytes"] == row["peak_bytes"], (dev, row)
print("kinds sum to the peak in", len(rows), "rows")
PY
EOF

# schema 1, as an older baechi made it: the columns are added, old rows keep NULL
test_expect_success 'setup: a database of schema 1' - <<'EOF'
"$BAECHI" db schema | sed '/^-- version 2/,$d; s/^-- PRAGMA user_version = 2$//' > v1.sql
sqlite3 old.db < v1.sql
sqlite3 old.db 'PRAGMA user_version = 1'
[ "$(sqlite3 old.db 'PRAGMA user_version')" -eq 1 ] || { echo "not a version 1 database"; exit 1; }
EOF

test_expect_success 'a database of schema 1 is migrated, later runs keep their kinds' - <<'EOF'
expect_exit 0 "$BAECHI" run -w inc.yaml -c paper-4gpu-pcie -p single --db old.db
expect_exit 0 "$BAECHI" db check --db old.db
expect_grep 'schema version 5, integrity ok' "$TMPDIR_TEST/out"
[ "$(sqlite3 old.db 'SELECT count(*) FROM devices WHERE peak_saved_bytes > 0')" -eq 2 ] ||
    { echo "the runs stored after the migration lack their kinds"; exit 1; }
EOF

# plot memory-timeline: per device, memory by kind over the step; its data
# peaks where the run's peak is, and the figure is written.
test_expect_success 'plot memory-timeline: peaks where the run does, the figure written' - <<'EOF'
expect_exit 0 "$BAECHI" plot memory-timeline --db r.db --run 1 --csv mt.csv -o mt.png
[ -s mt.png ] || { echo "no figure"; exit 1; }
python3 - mt.csv run.json <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
run = json.load(open(sys.argv[2]))["sim"]["timed"]["devices"]
kinds = ["parameters", "optimizer", "gradients", "saved", "activations", "received", "temp"]
assert list(rows[0].keys()) == ["device", "time_ms"] + [k + "_gib" for k in kinds], rows[0].keys()
for dev in run:
    mine = [r for r in rows if int(r["device"]) == dev["id"]]
    t = [float(r["time_ms"]) for r in mine]
    assert t == sorted(t), "rows of a device in time order"
    top = max(sum(float(r[k + "_gib"]) for k in kinds) for r in mine)
    assert abs(top - dev["peak_bytes"] / 2**30) < 1e-5, (dev["id"], top, dev["peak_bytes"] / 2**30)
print("timeline peaks match", len(run), "devices")
PY
EOF

test_expect_success 'a misspelt plot: exit 2' '
    expect_exit 2 "$BAECHI" plot memory-timline --db r.db -o x.png
'

# The trace carries memory by kind as a counter track per device ("memory by
# kind", one series per kind, stacked): its samples sum to the "memory"
# counter and peak at the JSON's peak, in both models.
for m in timed baechi; do
    test_expect_success "the $m trace: memory by kind sums to memory, peaks as in the JSON" - <<'EOF'
expect_exit 0 "$BAECHI" run -w inc.yaml -c paper-4gpu-pcie -p m-topo --trace tr-$m.json \
    --trace-model $m --json
python3 - tr-$m.json "$TMPDIR_TEST/out" $m <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
ev = t["traceEvents"] if isinstance(t, dict) else t
run = json.load(open(sys.argv[2]))["sim"][sys.argv[3]]
kinds = ["parameters", "optimizer", "gradients", "saved", "activations", "received", "temp"]
km = [e for e in ev if e.get("name") == "memory by kind" and e.get("ph") == "C"]
assert km and all(sorted(e["args"]) == sorted(kinds) for e in km)
for d in run["devices"]:
    mine = [e for e in km if e["pid"] == d["id"]]
    top = max((sum(e["args"].values()) for e in mine), default=0)
    assert top == d["peak_bytes"], (sys.argv[3], d["id"], top, d["peak_bytes"])
print(sys.argv[3], "kind counters peak at the JSON's peaks")
PY
EOF
done

test_done
