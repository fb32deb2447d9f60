# t500-sweep-db-report.sh - a small sweep into a database; resume skips stored
# points; report, db query/schema/check; run --db; sweep-file errors with lines.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"
cat > s.yaml <<YAML
name: small
workloads: ["$GNMT"]
clusters: [paper-4gpu-pcie]
placers: [single, m-topo, m-etf, expert]
memory_fractions: [1, 0.1]
models: [timed, baechi]
YAML
expect_exit 0 "$BAECHI" sweep s.yaml --db r.db -j 1
expect_grep "8 points, 0 already stored, 8 run" out
expect_grep "runs stored: 16 \(8 ok, 6 oom, 2 infeasible" out
expect_exit 0 "$BAECHI" sweep s.yaml --db r.db
expect_grep "8 points, 8 already stored, 0 run" out
test "$(sqlite3 r.db 'select count(*) from runs')" = 16
test "$(sqlite3 r.db 'select count(*) from runs where status = "infeasible"')" = 2
test "$(sqlite3 r.db 'select count(*) from devices')" = 56
test "$(sqlite3 r.db 'pragma journal_mode')" = wal
expect_exit 0 "$BAECHI" report --db r.db
expect_grep "^Step time \(ms\)" out
expect_grep "^gnmt_v2_b128_fwd .* 116\.762 " out
expect_grep "^Step time normalised to single-GPU" out
expect_grep "^Placement time \(ms\)" out
expect_grep "^gnmt_v2_b128_fwd +0\.1 .*infeasible" out
expect_exit 0 "$BAECHI" report --db r.db --format markdown --model baechi
expect_grep "^\| workload +\| memory_fraction +\| single" out
expect_exit 0 "$BAECHI" report --db r.db --format csv
expect_grep "^id,sweep,workload,cluster,devices,placer,grouper,fusion,config,memory_fraction," out
expect_grep "^[0-9]+,small,gnmt_v2_b128_fwd,paper-4gpu-pcie,4,single,tf,0,single,1.0,.*,timed,2494,ok,116762," out
expect_exit 0 "$BAECHI" db query --db r.db --format csv "select placer, count(*) as n from runs group by 1 order by 1"
expect_grep "^m-etf,4$" out
expect_exit 2 "$BAECHI" db query --db r.db "select nope from"
expect_grep "query: " err
expect_exit 0 "$BAECHI" db schema
expect_grep "^CREATE TABLE runs" out
expect_grep "user_version = 1" out
expect_exit 0 "$BAECHI" db check --db r.db
expect_grep "schema version 3, integrity ok" out
expect_exit 2 "$BAECHI" report --db missing.db
# baechi run --db: two rows (one per model) with the placement
expect_exit 0 "$BAECHI" run -w "$GNMT" -c paper-4gpu-pcie -p paper --db r.db
test "$(sqlite3 r.db "select count(*) from runs where placer = 'paper' and key is null")" = 2
test "$(sqlite3 r.db 'select count(*) from placements')" = 2
# errors in sweep files name file:line:col
printf 'workloads: [x]\nclusters: [paper-4gpu-pcie]\nplacers: [m-etf, frob]\n' > bad1.yaml
expect_exit 2 "$BAECHI" sweep bad1.yaml --db r.db
expect_grep "bad1.yaml:3:18: placers: 'frob' is not a placer" err
printf 'workloads: ["%s"]\nclusters: [paper-4gpu-pcie]\nplacers: [m-etf]\nmemory_fractions: [1, -2]\n' "$GNMT" > bad2.yaml
expect_exit 2 "$BAECHI" sweep bad2.yaml --db r.db
expect_grep "bad2.yaml:4:23: memory_fractions: '-2'" err
printf 'workloads: [nofile.yaml]\nclusters: [paper-4gpu-pcie]\nplacers: [m-etf]\nbogus: 1\n' > bad3.yaml
expect_exit 2 "$BAECHI" sweep bad3.yaml --db r.db
expect_grep "bad3.yaml:4:1: unknown key 'bogus'" err
printf 'workloads: [nofile.yaml]\nclusters: [paper-4gpu-pcie]\nplacers: [m-etf]\n' > bad4.yaml
expect_exit 2 "$BAECHI" sweep bad4.yaml --db r.db
expect_grep "bad4.yaml:1:13: workloads: 'nofile.yaml' is not a readable file" err
printf 'workloads: ["gen:nope"]\nclusters: [nocluster]\nplacers: [m-etf]\n' > bad5.yaml
expect_exit 2 "$BAECHI" sweep bad5.yaml --db r.db
expect_grep "bad5.yaml:1:13: workloads: 'gen:nope' names an unknown model" err
test "$(sqlite3 r.db 'select count(*) from runs')" = 18
