# check: sanitized-only
# t564-parallel-sweep.sh - the sweep side of the parallelism study
# (docs/parallel-study.md): a parallelised graph (every op pinned to its
# rank) runs under placer `given` on its D x T x P ranks, once, whatever the
# `devices` list says, while the op placers run every device count; `plot
# line --lines strategy` draws a line per strategy (the name after ':') of
# the `given` runs and per configuration of the others.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"
G="gen:gpt?layers=2&d_model=128&heads=4&vocab=1000&batch=4&seq=64&device=h100"

test_expect_success 'setup: a sweep of two parallelisations and m-topo' - <<EOF
cat > s.yaml << YAML
name: par
workloads:
  - "$G&dp=2&name=tiny-2:DP"
  - "$G&tp=2&pp=2&name=tiny-4:d1t2p2"
  - "$G&name=tiny"
clusters: [dgx-h100-2x8]
devices: [2, 4, 8]
placers: [given, m-topo]
exclude:
  - {workload: "$G&name=tiny", placer: given}
  - {workload: "$G&dp=2&name=tiny-2:DP", placer: m-topo}
  - {workload: "$G&tp=2&pp=2&name=tiny-4:d1t2p2", placer: m-topo}
YAML
"\$BAECHI" sweep s.yaml --db r.db > out 2>&1
EOF

test_expect_success 'a parallelised graph is one point, on its ranks' - <<'EOF'
"$BAECHI" db query --db r.db --format csv \
    "SELECT workload, n_devices, status FROM runs WHERE placer = 'given' ORDER BY 1" > got
printf "workload,n_devices,status\ntiny-2:DP,2,ok\ntiny-4:d1t2p2,4,ok\n" > want
diff want got
test "$("$BAECHI" db query --db r.db --format csv \
    "SELECT count(*) FROM runs WHERE placer = 'm-topo'" | sed 1d)" -eq 3
EOF

test_expect_success 'plot line --lines strategy: DP, d1t2p2 and m-topo' - <<'EOF'
"$BAECHI" plot line --db r.db --x devices --lines strategy --csv l.csv > /dev/null 2>&1
head -1 l.csv | grep -qx "strategy,devices,step_ms,status,runs"
test "$(sed 1d l.csv | cut -d, -f1 | sort -u | tr '\n' ' ')" = "DP d1t2p2 m-topo "
grep -q "^DP,2,[0-9.]*,ok,1$" l.csv
grep -q "^d1t2p2,4,[0-9.]*,ok,1$" l.csv
test "$(grep -c "^m-topo," l.csv)" -eq 3
"$BAECHI" plot line --db r.db --x devices --lines strategy --where strategy=DP \
    --csv d.csv > /dev/null 2>&1
test "$(sed 1d d.csv | wc -l)" -eq 1
EOF

# One palette across every figure (issue 33 item 3): a parallel layout and
# an op placer drawn by `--lines strategy` take the palette's colours and
# markers (DP orange, m-topo blue, as in the step figures), not the colours
# of the line's rank in this figure.
test_expect_success 'plot line --lines strategy draws DP and m-topo in the palette style' - <<'EOF'
"$BAECHI" plot line --db r.db --x devices --lines strategy --csv l2.csv \
    --script l.gp > /dev/null 2>&1
grep -q "pt 5 .*lc rgb '#ff7f0e' title 'DP'" l.gp
grep -q "pt 7 .*lc rgb '#1f77b4' title 'm-topo'" l.gp
EOF

test_done
