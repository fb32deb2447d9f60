# check: sanitized-only
# t504-plot.sh - every plot kind draws a non-empty figure (gnuplot's exit
# status checked by baechi); CSV without gnuplot; a clear message without it.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

test_expect_success 'setup: a sweep with its placements stored' - <<'EOF'
cat > s.yaml <<YAML
name: plots
workloads: ["$GNMT"]
clusters: [paper-4gpu-pcie]
placers: [single, expert, m-topo, m-etf]
memory_fractions: [1, 0.1]
store_placement: true
YAML
expect_exit 0 "$BAECHI" sweep s.yaml --db r.db -j 1
EOF

test_expect_success 'plot --list' '
    expect_exit 0 "$BAECHI" plot --list
    expect_grep "^  gantt" out
'

test_expect_success 'every plot kind draws a non-empty figure' - <<'EOF'
if command -v gnuplot > /dev/null; then
    for k in step placement-time memory peak gantt scaling; do
        expect_exit 0 "$BAECHI" plot "$k" --db r.db -o "$k.png" --csv "$k.csv"
        test -s "$k.png" && test -s "$k.csv"
        head -c 8 "$k.png" | od -c | grep -q 'P   N   G'
    done
    expect_exit 0 "$BAECHI" plot step --db r.db -o step.svg --normalise expert
    expect_grep "<svg" step.svg
    expect_exit 0 "$BAECHI" plot peak --db r.db -o peak.pdf --run 1
    test -s peak.pdf
fi
EOF

test_expect_success 'the data of the figures in CSV' '
    expect_grep "^workload,single,expert,m-topo,m-etf$" step.csv
    expect_grep "^gnmt_v2_b128_fwd,1," step.csv
    expect_grep "^m-etf,0.1,NaN,infeasible,1$" memory.csv
    expect_grep "^compute,[0-3]," gantt.csv
'

test_expect_success 'CSV without gnuplot' '
    expect_exit 0 env BAECHI_GNUPLOT=/nonexistent "$BAECHI" plot memory --db r.db --csv only.csv
    test -s only.csv
'

test_expect_success 'a figure without gnuplot: a clear message, exit 2' '
    expect_exit 2 env BAECHI_GNUPLOT=/nonexistent "$BAECHI" plot step --db r.db -o x.png
    expect_grep "gnuplot not found.*apt-get install gnuplot-nox.*--csv" err
'

test_expect_success 'an unknown plot kind: exit 2' - <<'EOF'
expect_exit 2 "$BAECHI" plot frob --db r.db -o x.png
expect_grep "unknown plot kind 'frob'" err
EOF

test_expect_success 'an unknown figure format: exit 2' '
    expect_exit 2 "$BAECHI" plot step --db r.db -o x.jpg
    expect_grep "must be .png, .svg or .pdf" err
'

# gantt re-simulates the run as the sweep did, compute factor included: its
# last event ends at the run's stored step time (here with ops twice as slow)
test_expect_success 'setup: a sweep with ops twice as slow' - <<'EOF'
cat > cf.yaml <<YAML
name: slow
workloads: ["$GNMT"]
clusters: [paper-4gpu-pcie]
placers: [m-etf]
compute_factors: [2]
YAML
expect_exit 0 "$BAECHI" sweep cf.yaml --db cf.db -j 1
EOF

test_expect_success 'gantt ends at the stored step time, compute factor included' - <<'EOF'
expect_exit 0 env BAECHI_GNUPLOT=/nonexistent "$BAECHI" plot gantt --db cf.db --csv g.csv
step_us=$(sqlite3 cf.db "select step_us from runs where compute_factor = 2")
end_us=$(awk -F, 'NR > 1 && $4 > m { m = $4 } END { printf "%.0f", m * 1000 }' g.csv)
if [ "$end_us" != "$step_us" ]; then
    echo "gantt ends at $end_us us, the run's step is $step_us us"
    exit 1
fi
EOF

test_done
