# t510-resimulate-anywhere.sh - a stored run is simulated again (plot gantt,
# plot memory-timeline) from any directory: sweeps store absolute paths; a
# file changed since the run is refused by its content hash; a moved one is
# refused naming it; relative paths of older databases are found beside the
# database (issue 19 item 5, docs/results.md).
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"
command -v gnuplot > /dev/null || test_skip_all 'gnuplot is not installed'

test_expect_success 'setup: a sweep in directory A' - <<'EOF'
mkdir -p A B
cd A
"$BAECHI" workload gen gpt --size small --layers 2 --micro-batches 2 -o w.yaml > /dev/null
cp "$TOP/data/clusters/paper-4gpu-pcie.yaml" c.yaml
printf "workloads: [w.yaml]\nclusters: [c.yaml]\nplacers: [m-topo]\n" > s.yaml
expect_exit 0 "$BAECHI" sweep --quiet -j 1 s.yaml --db r.db
test "$(sqlite3 r.db 'select workload_spec from runs')" = "$PWD/w.yaml"
test "$(sqlite3 r.db 'select cluster_spec from runs')" = "$PWD/c.yaml"
EOF

test_expect_success 'from directory B: gantt and memory-timeline' - <<'EOF'
cd B
expect_exit 0 "$BAECHI" plot gantt --db ../A/r.db -o g.svg
expect_exit 0 "$BAECHI" plot memory-timeline --db ../A/r.db -o m.svg
test -s g.svg && test -s m.svg
EOF

test_expect_success 'relative paths of an older database: beside the database' - <<'EOF'
cp A/r.db B/old.db
sqlite3 B/old.db "update runs set workload_spec = '../A/w.yaml', cluster_spec = '../A/c.yaml'"
mkdir -p C/D && cd C/D
expect_exit 0 "$BAECHI" plot gantt --db ../../B/old.db -o g.svg
EOF

test_expect_success 'a workload changed since the run: refused by its hash' - <<'EOF'
cp A/w.yaml w.keep
"$BAECHI" workload gen gpt --size small --layers 3 -o A/w.yaml > /dev/null
cd B
expect_exit 2 "$BAECHI" plot gantt --db ../A/r.db -o g.svg
expect_grep "workload '.*/A/w.yaml' changed since the run was stored \(hash [0-9a-f]+ != [0-9a-f]+ stored\); re-run the sweep" "$TMPDIR_TEST/err"
cd .. && cp w.keep A/w.yaml
EOF

test_expect_success 'a cluster changed since the run: refused by its hash' - <<'EOF'
cp A/c.yaml c.keep
sed -i 's/^name: .*/name: other/' A/c.yaml
cd B
expect_exit 2 "$BAECHI" plot memory-timeline --db ../A/r.db -o m.svg
expect_grep "cluster '.*/A/c.yaml' changed since the run was stored" "$TMPDIR_TEST/err"
cd .. && cp c.keep A/c.yaml
EOF

test_expect_success 'a workload moved away: refused naming the file' - <<'EOF'
mv A/w.yaml A/moved.yaml
cd B
expect_exit 2 "$BAECHI" plot gantt --db ../A/r.db -o g.svg
expect_grep "workload '.*/A/w.yaml' is not a readable file \(moved or deleted" "$TMPDIR_TEST/err"
EOF

test_done
