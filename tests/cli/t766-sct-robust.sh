# check: sanitized-only
# m-SCT never exits 1 on valid input (issue 13, item 7 and 13): GNMT on a
# cluster with a slope of 0.0375 µs/B made GLPK fail ("basis matrix is
# singular"); the LP is now retried (scaled, presolve, interior point) and,
# when still unsolved or too large (an op with more than 4096 inputs), m-SCT
# falls back to m-ETF's placement with a warning and lp_status
# "fallback: m-etf" in the placement file.
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"

test_expect_success 'setup: a cluster with a slope of 0.0375 us/B' - <<'EOF'
cat > slow.yaml <<'YAML'
format: 1
name: slow-link
devices:
  - {name: gpu, count: 4, memory: 16GiB}
comm: {slope_us_per_byte: 0.0375, intercept_us: 134}
YAML
EOF

test_expect_success 'GNMT there: m-sct optimal or the m-etf fallback, never exit 1' - <<'EOF'
expect_exit 0 "$BAECHI" place -w "$GNMT" -c slow.yaml -p m-sct -o p.yaml
expect_grep 'lp_status: .?(optimal|fallback: m-etf)' p.yaml
expect_exit 0 "$BAECHI" sim -w "$GNMT" -c slow.yaml -p p.yaml
EOF

# one op with 5000 inputs: bounded, m-ETF's placement, said so
test_expect_success 'setup: one op with 5000 inputs' - <<'EOF'
python3 - <<'PY'
n = 5000
with open("fan.yaml", "w") as f:
    f.write("format: 1\nname: fan\nops:\n")
    for i in range(n):
        f.write("  - {name: i%d, type: Op, time_us: 3, outputs: [1000]}\n" % i)
    f.write("  - {name: sink, type: Op, time_us: 5, inputs: [%s]}\n"
            % ", ".join('"i%d:0"' % i for i in range(n)))
PY
EOF

test_expect_success 'an op with 5000 inputs: the fallback, said so' - <<'EOF'
expect_exit 0 "$BAECHI" place -w fan.yaml -c paper-4gpu-pcie -p m-sct -o sct.yaml
expect_grep 'm-sct: an op has 5000 inputs or outputs \(more than 4096\).*m-ETF' "$TMPDIR_TEST/err"
expect_grep "lp_status: 'fallback: m-etf \\(high degree\\)'" sct.yaml
! grep -q lp_makespan_us sct.yaml || { echo "lp_makespan_us without an LP"; exit 1; }
EOF

test_expect_success 'the fallback is the placement of m-etf' - <<'EOF'
expect_exit 0 "$BAECHI" place -w fan.yaml -c paper-4gpu-pcie -p m-etf -o etf.yaml
sed -n '/^devices:/,$p' sct.yaml > a
sed -n '/^devices:/,$p' etf.yaml > b
cmp a b || { echo "the fallback is not m-ETF's placement"; exit 1; }
EOF

# a chain of 40,000 ops: the LP would have 79,999 + 1 columns (more than
# 65,536; GLPK needs minutes): m-ETF's placement, said so.  `auto` gives an
# LP this size to CLP (docs/limits.md), whose limit is 131,072 columns: a
# chain of 70,000 ops is past it.
test_expect_success 'setup: a chain of 40,000 ops' '
    expect_exit 0 "$BAECHI" workload gen synthetic --shape chain --ops 40000 -o chain.yaml
'

test_expect_success 'a chain of 40,000 ops: the fallback, said so' - <<'EOF'
expect_exit 0 "$BAECHI" place -w chain.yaml -c paper-4gpu-pcie -p m-sct --lp-solver glpk -o sct.yaml
expect_grep 'm-sct: the favourite-child LP would have 80000 columns \(more than 65536\)' \
    "$TMPDIR_TEST/err"
expect_grep "lp_status: 'fallback: m-etf \\(LP too large\\)'" sct.yaml
expect_exit 0 "$BAECHI" workload gen synthetic --shape chain --ops 70000 -o chain70k.yaml
expect_exit 0 "$BAECHI" place -w chain70k.yaml -c paper-4gpu-pcie -p m-sct -o sct70k.yaml
expect_grep 'm-sct: the favourite-child LP would have 140000 columns \(more than 131072\)' \
    "$TMPDIR_TEST/err"
expect_grep "lp_status: 'fallback: m-etf \\(LP too large\\)'" sct70k.yaml
EOF

test_done
