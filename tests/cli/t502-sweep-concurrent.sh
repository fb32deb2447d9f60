# t502-sweep-concurrent.sh - two sweeps writing one database at once: every
# point stored once, both succeed, the database sound.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

test_expect_success 'setup: two sweep files sharing 6 points' - <<'EOF'
cat > a.yaml <<YAML
name: a
workloads: ["$GNMT"]
clusters: [paper-4gpu-pcie]
placers: [m-topo, single, m-etf]
memory_fractions: [1, 0.8, 0.6, 0.4]
YAML
sed 's/^name: a/name: b/; s/memory_fractions: .*/memory_fractions: [1, 0.7, 0.6, 0.5]/' a.yaml > b.yaml
EOF

test_expect_success 'two sweeps writing one database at once both succeed' '
    "$BAECHI" sweep a.yaml --db r.db -j 1 --batch 1 --point-delay 0.02 > a.out 2>&1 &
    pa=$!
    "$BAECHI" sweep b.yaml --db r.db -j 1 --batch 1 --point-delay 0.02 > b.out 2>&1 &
    pb=$!
    wait $pa || { cat a.out; exit 1; }
    wait $pb || { cat b.out; exit 1; }
'

# 12 + 12 points, 6 shared (fractions 1 and 0.6): 18 distinct
test_expect_success 'every point stored once, the database sound' - <<'EOF'
test "$(sqlite3 r.db 'select count(*) from runs')" = 18
test "$(sqlite3 r.db 'select count(distinct key) from runs')" = 18
test "$(sqlite3 r.db 'pragma integrity_check')" = ok
EOF

test_done
