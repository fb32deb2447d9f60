# check: sanitized-only
# t560-report-where.sh - report groups by every swept dimension that varies
# (never averages over device counts); --where selects runs for report and
# db query (names checked, did-you-mean); report --format csv and json are
# one tidy table (one row per run, numbers as numbers, a status column),
# read back typed through Python's csv and json modules.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

test_expect_success 'setup: a sweep over devices, placers, fusion and memory' - <<'EOF'
cat > s.yaml <<YAML
name: dims
workloads: ["$GNMT"]
clusters: [paper-4gpu-pcie]
devices: [2, 4]
placers: [single, m-etf]
fusion: [false, true]
memory_fractions: [1, 0.1]
exclude:
  - {placer: single, fusion: true}
YAML
expect_exit 0 "$BAECHI" sweep s.yaml --db r.db -j 1 --quiet
EOF

nruns=$(sqlite3 r.db "select count(*) from runs" || :)

test_expect_success '12 runs stored' '
    test "$nruns" = 12
'

etf2=$(sqlite3 r.db "select printf('%.3f', step_us / 1000.0) from runs where placer = 'm-etf' and fusion = 0 and n_devices = 2 and memory_fraction = 1 and sim_model = 'timed'" || :)
etf4=$(sqlite3 r.db "select printf('%.3f', step_us / 1000.0) from runs where placer = 'm-etf' and fusion = 0 and n_devices = 4 and memory_fraction = 1 and sim_model = 'timed'" || :)

# a row per device count and memory fraction: m-ETF on 2 and on 4 devices apart
test_expect_success 'report: a row per device count and memory fraction' '
    expect_exit 0 "$BAECHI" report --db r.db
    expect_grep "^workload +devices +memory_fraction +single +m-etf +m-etf\+fusion" out
    expect_grep "^gnmt_v2_b128_fwd +2 +1 +[0-9.]+ +$etf2 " out
    expect_grep "^gnmt_v2_b128_fwd +4 +1 +[0-9.]+ +$etf4 " out
'

# --where: one device count, the dimension leaves the table
test_expect_success '--where: one device count, the dimension leaves the table' - <<'EOF'
expect_exit 0 "$BAECHI" report --db r.db --where devices=4 --where 'memory_fraction>=0.5'
expect_grep "^workload +single +m-etf +m-etf\+fusion" out
expect_grep "^gnmt_v2_b128_fwd +[0-9.]+ +$etf4 " out
EOF

test_expect_success '--where K!=V: every run but those' - <<'EOF'
expect_exit 0 "$BAECHI" db query --db r.db --where 'placer!=single' "select count(*) from runs"
expect_grep "^ *8 *$" out
expect_exit 0 "$BAECHI" db query --db r.db --where 'placer!=single,m-etf' "select count(*) from runs"
expect_grep "^ *0 *$" out
EOF

# names that match nothing: exit 2, the names stored and a suggestion
test_expect_success '--where a placer no run has: exit 2, the names stored, did you mean' - <<'EOF'
expect_exit 2 "$BAECHI" report --db r.db --where placer=m-eft
expect_grep "no run has placer 'm-eft'; did you mean 'm-etf'\? \(stored: m-etf, single\)" err
EOF

test_expect_success '--where a workload no run has: did you mean' - <<'EOF'
expect_exit 2 "$BAECHI" report --db r.db --where workload=gnmt
expect_grep "did you mean 'gnmt_v2_b128_fwd'" err
EOF

test_expect_success '--where an unknown key: did you mean' - <<'EOF'
expect_exit 2 "$BAECHI" report --db r.db --where devcies=4
expect_grep "unknown key 'devcies'; did you mean 'devices'" err
EOF

test_expect_success '--where devices=four: exit 2' - <<'EOF'
expect_exit 2 "$BAECHI" report --db r.db --where 'devices=four'
expect_grep "devices takes a number, not 'four'" err
EOF

test_expect_success '--where with SQL in a value: the runs table intact' - <<'EOF'
expect_exit 2 "$BAECHI" report --db r.db --where "workload='; drop table runs; --"
test "$(sqlite3 r.db "select count(*) from runs")" = "$nruns"
EOF

# the tidy CSV: every run once, typed columns, no decorated cells
test_expect_success 'report --format csv: every run once, typed columns' - <<'EOF'
expect_exit 0 "$BAECHI" report --db r.db --format csv
cp out all.csv
python3 - all.csv "$nruns" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert len(rows) == int(sys.argv[2]), len(rows)
ints = ["id", "devices", "fusion", "seed", "repeat", "n_ops"]
reals = ["memory_fraction", "comm_factor", "compute_factor"]
metrics = ["step_us", "lower_bound_us", "bound_ratio", "placement_ms",
           "max_peak_bytes", "n_oom_devices"]
for r in rows:
    for c in ints:
        int(r[c])
    for c in reals:
        float(r[c])
    assert r["status"] in ("ok", "oom", "infeasible", "error"), r["status"]
    assert r["model"] in ("timed", "baechi")
    assert r["config"] == r["placer"] + ("+fusion" if r["fusion"] == "1" else ""), r
    for c in metrics:
        if r["status"] in ("ok", "oom"):
            float(r[c])  # a number, never "38.940 (oom)"
    if r["status"] == "infeasible":
        assert r["step_us"] == "", r
    if r["status"] in ("ok", "oom"):
        b = float(r["step_us"]) / float(r["lower_bound_us"])
        assert abs(b - float(r["bound_ratio"])) < 1e-9 * b, r
assert {r["status"] for r in rows} >= {"ok", "infeasible"}
assert len({r["id"] for r in rows}) == len(rows)
PY
EOF

# --model and --where narrow the tidy table the same way
test_expect_success '--model and --where narrow the tidy table' - <<'EOF'
expect_exit 0 "$BAECHI" report --db r.db --format csv --model timed --where placer=m-etf --where fusion=true
test "$(($(wc -l < out) - 1))" = "$(sqlite3 r.db "select count(*) from runs where placer = 'm-etf' and fusion = 1 and sim_model = 'timed'")"
EOF

# the same table as JSON: numbers as numbers, fusion a boolean, null for none
test_expect_success 'report --json: numbers as numbers, fusion a boolean, null for none' - <<'EOF'
expect_exit 0 "$BAECHI" report --db r.db --json --where devices=2
python3 - out "$(sqlite3 r.db "select count(*) from runs where n_devices = 2")" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
assert len(t["rows"]) == int(sys.argv[2])
for r in t["rows"]:
    assert list(r) == t["columns"]
    assert r["devices"] == 2 and isinstance(r["memory_fraction"], float)
    assert isinstance(r["fusion"], bool)
    assert r["status"] != "infeasible" or r["step_us"] is None
    assert r["status"] not in ("ok", "oom") or isinstance(r["step_us"], int)
PY
EOF

# db query: --format json, and --where shadows the runs table
test_expect_success 'db query --format json' - <<'EOF'
expect_exit 0 "$BAECHI" db query --db r.db --format json "select placer, count(*) as n, avg(step_us) as s from runs group by 1 order by 1"
python3 -c "import json,sys; t=json.load(open('out')); assert t['columns']==['placer','n','s']; assert t['rows'][0]['placer']=='m-etf' and t['rows'][0]['n']==8, t"
EOF

test_expect_success 'db query --where shadows the runs table' '
    expect_exit 0 "$BAECHI" db query --db r.db --format csv --where placer=single --where devices=2 "select count(*) as n from runs"
    expect_grep "^2$" out
'

test_expect_success 'db query --where shadows the runs table in a CTE too' '
    expect_exit 0 "$BAECHI" db query --db r.db --format csv --where placer=single "with x as (select n_devices from runs) select count(distinct n_devices) as k, count(*) as n from x"
    expect_grep "^2,4$" out
'

test_expect_success 'db query --where on what no run has: exit 2' - <<'EOF'
expect_exit 2 "$BAECHI" db query --db r.db --where placer=nope "select 1"
expect_grep "no run has placer 'nope'" err
EOF

# the batch size (the _bN of generated workloads' names) as an x axis
test_expect_success 'setup: a sweep over the batch size' - <<'EOF'
cat > b.yaml <<YAML
name: batch
workloads: ["gen:transformer?layers=1&forward_only=1&batch=8", "gen:transformer?layers=1&forward_only=1&batch=32"]
clusters: [paper-4gpu-pcie]
placers: [single, m-etf]
YAML
expect_exit 0 "$BAECHI" sweep b.yaml --db b.db -j 1 --quiet
EOF

test_expect_success 'plot line --x batch' '
    expect_exit 0 "$BAECHI" plot line --db b.db --x batch --y step --csv bt.csv
    expect_grep "^config,batch,step_ms,status,runs$" bt.csv
    expect_grep "^m-etf,8,[0-9.]+,ok,1$" bt.csv
    expect_grep "^m-etf,32,[0-9.]+,ok,1$" bt.csv
'

test_expect_success 'report --where batch=32' - <<'EOF'
expect_exit 0 "$BAECHI" report --db b.db --format csv --where batch=32 --where placer=single
test "$(grep -c ',single,' out)" = 1
EOF

# an empty result still names its columns
test_expect_success 'db query: an empty result still names its columns' - <<'EOF'
expect_exit 0 "$BAECHI" db query --db r.db --json "select id, workload from runs where 0"
python3 -c "import json; t = json.load(open('out')); assert t == {'columns': ['id', 'workload'], 'rows': []}, t"
EOF

test_expect_success 'report --format csv: an empty result still names its columns' - <<'EOF'
expect_exit 0 "$BAECHI" report --db r.db --format csv --where status=infeasible --where devices=2 --where fusion=1
test "$(grep -c . out)" = "$((1 + $(sqlite3 r.db "select count(*) from runs where status = 'infeasible' and n_devices = 2 and fusion = 1")))"
EOF

test_done
