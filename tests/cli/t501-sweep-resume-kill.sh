# t501-sweep-resume-kill.sh - kill -9 a running sweep, run it again: every
# point stored once, none lost, PRAGMA integrity_check ok.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

test_expect_success 'setup: a sweep file' - <<'EOF'
cat > s.yaml <<YAML
name: resume
workloads: ["$GNMT"]
clusters: [paper-4gpu-pcie]
placers: [m-topo, single, round-robin, random, m-etf]
memory_fractions: [1, 0.9, 0.8, 0.7, 0.6]
comm_factors: [1, 2]
YAML
EOF

test_expect_success 'setup: the sweep killed -9 mid-way' - <<'EOF'
"$BAECHI" sweep s.yaml --db r.db -j 2 --point-delay 0.05 --batch 4 --no-progress > log 2>&1 &
pid=$!
i=0
# wait until some points are committed, then kill the coordinator mid-way
while [ "$(sqlite3 r.db 'select count(*) from runs' 2>/dev/null || echo 0)" -lt 8 ] && [ $i -lt 100 ]; do
    sleep 0.05
    i=$((i + 1))
done
kill -9 $pid
wait $pid 2>/dev/null || true
n1=$(sqlite3 r.db 'select count(*) from runs')
echo "stored before the kill: $n1 of 50"
[ "$n1" -ge 8 ] && [ "$n1" -lt 50 ] || { echo "not killed mid-way ($n1)"; cat log; exit 1; }
echo "$n1" > n1
EOF

test_expect_success 'run again: the points not stored are run' '
    n1=$(cat n1)
    expect_exit 0 "$BAECHI" sweep s.yaml --db r.db -j 2
    expect_grep "50 points, $n1 already stored, $((50 - n1)) run" out
'

test_expect_success 'every point stored once, integrity ok' - <<'EOF'
test "$(sqlite3 r.db 'select count(*) from runs')" = 50
test "$(sqlite3 r.db 'select count(distinct key) from runs')" = 50
test "$(sqlite3 r.db 'select count(*) from devices')" = 200
test "$(sqlite3 r.db 'pragma integrity_check')" = ok
EOF

test_expect_success 'db check' '
    expect_exit 0 "$BAECHI" db check --db r.db
'

test_done
