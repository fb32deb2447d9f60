# t508-run-identity.sh - a run is identified by what it ran (issue 19): three
# micro-batch variants of one generated model named alike (--name gpt-small_b4);
# report shows three rows with their own step times (not the mean), plot's
# data has three series, the note comes once, --where takes the name and
# name@hash; reformatting a workload keeps its hash; a schema 2 database is
# migrated on the next write, its old rows keep NULL.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

test_expect_success 'setup: three micro-batch variants of gpt-small_b4, run --db under single and m-TOPO' - <<'EOF'
for m in 1 2 4; do
    expect_exit 0 "$BAECHI" workload gen gpt --size small -b 4 --seq 128 --micro-batches $m --name gpt-small_b4 -o mb$m.yaml
    expect_grep "^name: gpt-small_b4$" mb$m.yaml
    for p in single m-topo; do
        expect_exit 0 "$BAECHI" run -w mb$m.yaml -c paper-4gpu-pcie -p $p --db r.db
    done
done
test "$(sqlite3 r.db "select count(distinct workload) from runs")" = 1
test "$(sqlite3 r.db "select count(distinct workload_hash) from runs")" = 3
test "$(sqlite3 r.db "select count(*) from runs where workload_hash is null or cluster_hash is null")" = 0
test "$(sqlite3 r.db "select count(distinct cluster_hash) from runs")" = 1
EOF

test_expect_success 'report: a row per variant with its own m-TOPO step, never their mean; the note once' - <<'EOF'
# report: a row per variant, each with its own m-TOPO step time
expect_exit 0 "$BAECHI" report --db r.db
for h in $(sqlite3 r.db "select distinct substr(workload_hash, 1, 6) from runs order by id"); do
    step=$(sqlite3 r.db "select printf('%.3f', step_us / 1000.0) from runs where placer = 'm-topo' and sim_model = 'timed' and workload_hash like '$h%'")
    expect_grep "^gpt-small_b4@$h +[0-9.]+ +$step\$" out
done
test "$(grep -c '^gpt-small_b4@' out)" = 12 # 3 rows x 4 tables
mean=$(sqlite3 r.db "select printf('%.3f', avg(step_us) / 1000.0) from runs where placer = 'm-topo' and sim_model = 'timed'")
if grep -q " $mean\$" out; then echo "report averaged the variants: $mean"; exit 1; fi
test "$(grep -c "3 different workloads are named 'gpt-small_b4'; shown as name@hash" err)" = 1
test "$(wc -l < err)" = 1
EOF

test_expect_success 'the tidy table has the hashes' - <<'EOF'
# the tidy table has the hashes
expect_exit 0 "$BAECHI" report --db r.db --format csv
expect_grep "^id,sweep,workload,cluster,.*,message,workload_hash,cluster_hash$" out
expect_grep "^[0-9]+,,gpt-small_b4,paper-4gpu-pcie,.*,[0-9a-f]{16},[0-9a-f]{16}$" out
EOF

test_expect_success 'plot: three series, the note once' - <<'EOF'
# plot: three series (rows of the step figure's data), the note once
expect_exit 0 env BAECHI_GNUPLOT=/nonexistent "$BAECHI" plot step --db r.db --csv step.csv
test "$(grep -c '^gpt-small_b4@[0-9a-f]\{6\},' step.csv)" = 3
test "$(grep -c 'shown as name@hash' err)" = 1
EOF

test_expect_success '--where: the name selects every variant, name@hash one' - <<'EOF'
# --where: the name selects every variant, name@hash one
expect_exit 0 "$BAECHI" db query --db r.db --where workload=gpt-small_b4 "select count(*) as n from runs"
expect_grep "^ *12$" out
h1=$(sqlite3 r.db "select substr(workload_hash, 1, 6) from runs order by id limit 1")
expect_exit 0 "$BAECHI" db query --db r.db --where "workload=gpt-small_b4@$h1" "select count(*) as n from runs"
expect_grep "^ *4$" out
expect_exit 0 "$BAECHI" report --db r.db --where "workload=gpt-small_b4@$h1"
test "$(grep -c '^gpt-small_b4@' out)" = 4
EOF

test_expect_success 'reformatting the YAML keeps the hash: no fourth variant' - <<'EOF'
# reformatting the YAML (block style, other key order) keeps the hash: no fourth variant
python3 - mb1.yaml re.yaml <<'PY'
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
d = dict(reversed(list(d.items())))
yaml.safe_dump(d, open(sys.argv[2], "w"), default_flow_style=False, sort_keys=False)
PY
if cmp -s mb1.yaml re.yaml; then echo "the YAML was not reformatted"; exit 1; fi
expect_exit 0 "$BAECHI" run -w re.yaml -c paper-4gpu-pcie -p m-topo --db r.db
test "$(sqlite3 r.db "select count(distinct workload_hash) from runs")" = 3
test "$(sqlite3 r.db "select count(distinct workload_hash) from runs where workload_spec in ('mb1.yaml', 're.yaml')")" = 1
EOF

test_expect_success 'a schema 2 database is migrated by the next write; old rows keep NULL' - <<'EOF'
# a schema 2 database: migrated by the next write; old rows keep NULL
"$BAECHI" db schema | sed '/^-- version 3/,$d' > v2.sql
sqlite3 old.db < v2.sql
sqlite3 old.db "PRAGMA user_version = 2; INSERT INTO runs (time, tool_version, workload, cluster, placer, status, step_us, sim_model) VALUES ('2024-01-01T00:00:00.000Z', 'old', 'gpt-small_b4', 'paper-4gpu-pcie', 'single', 'ok', 1000, 'timed')"
expect_exit 2 "$BAECHI" report --db old.db
expect_grep "schema version 2, this baechi reads 5" err
expect_exit 0 "$BAECHI" run -w mb2.yaml -c paper-4gpu-pcie -p single --db old.db
expect_exit 0 "$BAECHI" db check --db old.db
expect_grep "schema version 5, integrity ok" out
test "$(sqlite3 old.db "select count(*) from runs where tool_version = 'old' and workload_hash is null and budget_ms is null")" = 1
test "$(sqlite3 old.db "select count(*) from runs where workload_hash is not null and budget_ms is not null")" = 2
test "$(sqlite3 old.db "select count(*) from sqlite_master where name in ('runs_by_workload_hash', 'runs_by_cluster_hash')")" = 2
# one hashed workload of the name: the old unhashed row joins it, no label
expect_exit 0 "$BAECHI" report --db old.db
expect_grep "^gpt-small_b4 " out
test ! -s err
EOF

test_done
