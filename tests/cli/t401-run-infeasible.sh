# t401-run-infeasible.sh - `baechi run` with an infeasible placement: exit 3 and a result
. "$TOP/tests/cli/lib.sh"

test_expect_success 'm-etf at 5 %: exit 3, the missing bytes, reported once' - <<'EOF'
expect_exit 3 "$BAECHI" run -w "$GNMT" -c paper-4gpu-pcie -p m-etf --memory-fraction 0.05
expect_grep "placement infeasible with m-etf" "$TMPDIR_TEST/out"
expect_grep "missing [0-9.]+ [KMGT]?i?B\)" "$TMPDIR_TEST/out"
# reported once (it was printed on stdout and again on stderr)
test "$(grep -c 'infeasible' "$TMPDIR_TEST/out")" -eq 1
test ! -s "$TMPDIR_TEST/err" || { echo "infeasible placement reported again on stderr:"; cat "$TMPDIR_TEST/err"; exit 1; }
EOF

test_expect_success 'the same in JSON: feasible false' '
    expect_exit 3 "$BAECHI" run -w "$GNMT" -c paper-4gpu-pcie -p m-etf --memory-fraction 0.05 --json
    expect_grep "\"feasible\": false" "$TMPDIR_TEST/out"
'

# a tight memory setting where m-topo must spread, and a single GPU that overflows (a result)
test_expect_success 'a single GPU that overflows is a result' '
    expect_exit 0 "$BAECHI" run -w "$GNMT" -c paper-4gpu-pcie -p single --memory-fraction 0.1
'

test_expect_success 'm-topo spreads under a tight memory setting' '
    expect_exit 0 "$BAECHI" run -w "$GNMT" -c paper-4gpu-pcie -p m-topo --memory-fraction 0.3 --devices 2
'

test_done
