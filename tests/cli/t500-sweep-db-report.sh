# t500-sweep-db-report.sh - a small sweep into a database; resume skips stored
# points; report, db query/schema/check; run --db; sweep-file errors with lines.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

test_expect_success 'setup: a sweep file' - <<'EOF'
cat > s.yaml <<YAML
name: small
workloads: ["$GNMT"]
clusters: [paper-4gpu-pcie]
placers: [single, m-topo, m-etf, expert]
memory_fractions: [1, 0.1]
models: [timed, baechi]
YAML
EOF

test_expect_success 'a sweep of 8 points stores 16 runs' '
    expect_exit 0 "$BAECHI" sweep s.yaml --db r.db -j 1
    expect_grep "8 points, 0 already stored, 8 run" out
    expect_grep "runs stored: 16 \(8 ok, 6 oom, 2 infeasible" out
'

test_expect_success 'run again: the stored points are skipped' '
    expect_exit 0 "$BAECHI" sweep s.yaml --db r.db
    expect_grep "8 points, 8 already stored, 0 run" out
'

test_expect_success 'the database: runs, devices, WAL' - <<'EOF'
test "$(sqlite3 r.db 'select count(*) from runs')" = 16
test "$(sqlite3 r.db 'select count(*) from runs where status = "infeasible"')" = 2
test "$(sqlite3 r.db 'select count(*) from devices')" = 56
test "$(sqlite3 r.db 'pragma journal_mode')" = wal
EOF

test_expect_success 'report: step time, normalised, placement time, infeasible' '
    expect_exit 0 "$BAECHI" report --db r.db
    expect_grep "^Step time \(ms\)" out
    expect_grep "^gnmt_v2_b128_fwd .* 116\.762 " out
    expect_grep "^Step time normalised to single-GPU" out
    expect_grep "^Placement time \(ms\)" out
    expect_grep "^gnmt_v2_b128_fwd +0\.1 .*infeasible" out
'

test_expect_success 'report --format markdown --model baechi' '
    expect_exit 0 "$BAECHI" report --db r.db --format markdown --model baechi
    expect_grep "^\| workload +\| memory_fraction +\| single" out
'

test_expect_success 'report --format csv' '
    expect_exit 0 "$BAECHI" report --db r.db --format csv
    expect_grep "^id,sweep,workload,cluster,devices,placer,grouper,fusion,config,memory_fraction," out
    expect_grep "^[0-9]+,small,gnmt_v2_b128_fwd,paper-4gpu-pcie,4,single,tf,0,single,1.0,.*,timed,2494,ok,116762," out
'

test_expect_success 'db query --format csv' '
    expect_exit 0 "$BAECHI" db query --db r.db --format csv "select placer, count(*) as n from runs group by 1 order by 1"
    expect_grep "^m-etf,4$" out
'

test_expect_success 'db query: a bad query, exit 2' '
    expect_exit 2 "$BAECHI" db query --db r.db "select nope from"
    expect_grep "query: " err
'

test_expect_success 'db schema' '
    expect_exit 0 "$BAECHI" db schema
    expect_grep "^CREATE TABLE runs" out
    expect_grep "user_version = 1" out
'

test_expect_success 'db check' '
    expect_exit 0 "$BAECHI" db check --db r.db
    expect_grep "schema version 5, integrity ok" out
'

test_expect_success 'report on a missing database: exit 2' '
    expect_exit 2 "$BAECHI" report --db missing.db
'

# baechi run --db: two rows (one per model) with the placement
test_expect_success 'run --db: two rows with the placement' - <<'EOF'
expect_exit 0 "$BAECHI" run -w "$GNMT" -c paper-4gpu-pcie -p paper --db r.db
test "$(sqlite3 r.db "select count(*) from runs where placer = 'paper' and key is null")" = 2
test "$(sqlite3 r.db 'select count(*) from placements')" = 2
EOF

# errors in sweep files name file:line:col
test_expect_success 'sweep file errors name file:line:col: an unknown placer' - <<'EOF'
printf 'workloads: [x]\nclusters: [paper-4gpu-pcie]\nplacers: [m-etf, frob]\n' > bad1.yaml
expect_exit 2 "$BAECHI" sweep bad1.yaml --db r.db
expect_grep "bad1.yaml:3:18: placers: 'frob' is not a placer" err
EOF

test_expect_success 'sweep file errors name file:line:col: a negative fraction' - <<'EOF'
printf 'workloads: ["%s"]\nclusters: [paper-4gpu-pcie]\nplacers: [m-etf]\nmemory_fractions: [1, -2]\n' "$GNMT" > bad2.yaml
expect_exit 2 "$BAECHI" sweep bad2.yaml --db r.db
expect_grep "bad2.yaml:4:23: memory_fractions: '-2'" err
EOF

test_expect_success 'sweep file errors name file:line:col: an unknown key' - <<'EOF'
printf 'workloads: [nofile.yaml]\nclusters: [paper-4gpu-pcie]\nplacers: [m-etf]\nbogus: 1\n' > bad3.yaml
expect_exit 2 "$BAECHI" sweep bad3.yaml --db r.db
expect_grep "bad3.yaml:4:1: unknown key 'bogus'" err
EOF

test_expect_success 'sweep file errors name file:line:col: a missing workload' - <<'EOF'
printf 'workloads: [nofile.yaml]\nclusters: [paper-4gpu-pcie]\nplacers: [m-etf]\n' > bad4.yaml
expect_exit 2 "$BAECHI" sweep bad4.yaml --db r.db
expect_grep "bad4.yaml:1:13: workloads: 'nofile.yaml' is not a readable file" err
EOF

test_expect_success 'sweep file errors name file:line:col: an unknown model' - <<'EOF'
printf 'workloads: ["gen:nope"]\nclusters: [nocluster]\nplacers: [m-etf]\n' > bad5.yaml
expect_exit 2 "$BAECHI" sweep bad5.yaml --db r.db
expect_grep "bad5.yaml:1:13: workloads: 'gen:nope' names an unknown model" err
EOF

test_expect_success 'the refused sweeps stored nothing' - <<'EOF'
test "$(sqlite3 r.db 'select count(*) from runs')" = 18
EOF

test_done
