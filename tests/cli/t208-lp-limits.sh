# check: slow once
# m-SCT's LP limits never make a result depend on the machine's speed
# (issue 22, item 1): --lp-iteration-limit counts simplex iterations, so the
# same input gives the same file; a reached --lp-time-limit is m-ETF's
# placement, recorded as such, never the LP's basis of the moment; auto
# charges its m-SCT candidates' LPs to its budget and records the skips.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

test_expect_success 'setup: layered synthetic graphs of 500 and 3,000 ops' '
    "$BAECHI" workload gen synthetic --shape layered --ops 500 --seed 42 --fan-in 3 -o l500.yaml &&
    "$BAECHI" workload gen synthetic --shape layered --ops 3000 --seed 42 --fan-in 3 -o l3k.yaml &&
    "$BAECHI" workload gen synthetic --shape fork-join --ops 500 --seed 42 -o fj.yaml
'

test_expect_success '--lp-iteration-limit 200: stopped there, the same file twice' '
    "$BAECHI" place -w l500.yaml -c paper-4gpu-pcie -p m-sct --lp-iteration-limit 200 -o a.yaml 2> err1 &&
    "$BAECHI" place -w l500.yaml -c paper-4gpu-pcie -p m-sct --lp-iteration-limit 200 -o b.yaml 2> err2 &&
    grep -q "lp_status: iteration limit (feasible)" a.yaml &&
    sed "/_ms:/d" a.yaml > a.txt && sed "/_ms:/d" b.yaml > b.txt && cmp a.txt b.txt
'

test_expect_success 'no limit: the LP is optimal, beyond 200 iterations' '
    "$BAECHI" place -w l500.yaml -c paper-4gpu-pcie -p m-sct -o c.yaml &&
    grep -q "lp_status: optimal" c.yaml
'

test_expect_success '--lp-iteration-limit out of range: refused, naming the range' '
    expect_exit 2 "$BAECHI" place -w l500.yaml -c paper-4gpu-pcie -p m-sct --lp-iteration-limit -1 &&
    expect_grep "lp-iteration-limit must be an integer in" "$TMPDIR_TEST/err" &&
    expect_exit 2 "$BAECHI" place -w l500.yaml -c paper-4gpu-pcie -p m-sct --lp-iteration-limit 3000000000
'

test_expect_success '--lp-time-limit reached: m-ETF'\''s placement, recorded as the fallback' '
    "$BAECHI" place -w l3k.yaml -c paper-4gpu-pcie -p m-sct --lp-time-limit 0.001 -o t.yaml 2> err &&
    grep -q "lp_status: .fallback: m-etf (time limit)." t.yaml &&
    ! grep -q "lp_makespan_us" t.yaml &&
    grep -q "time limit of 0.001 s reached; placing with m-ETF instead" err &&
    "$BAECHI" place -w l3k.yaml -c paper-4gpu-pcie -p m-etf -o e.yaml &&
    grep -v "^[a-z_]*:" t.yaml > t.dev && grep -v "^[a-z_]*:" e.yaml > e.dev && cmp t.dev e.dev
'

test_expect_success 'auto, a small budget: the m-SCT candidates skipped, no iteration spent' '
    "$BAECHI" place -w fj.yaml -c paper-4gpu-pcie -p auto --budget-ms 10 -o s.yaml &&
    grep -q "lp_iterations: 0, skipped_candidates: 4" s.yaml
'

test_expect_success 'auto, the default budget, a fork-join graph: the LPs solved, charged' '
    "$BAECHI" place -w fj.yaml -c paper-4gpu-pcie -p auto -o d.yaml &&
    grep -q "lp_iterations: [1-9][0-9]*, skipped_candidates: 0," d.yaml
'

# auto never reads --lp-time-limit (its LPs share --lp-iteration-limit, so
# that a placement never depends on the machine): refused, not ignored
# (issue 33 item 2; t840 checks every option)
test_expect_success 'auto does not read --lp-time-limit: refused, exit 2' '
    expect_exit 2 "$BAECHI" place -w fj.yaml -c paper-4gpu-pcie -p auto --lp-time-limit 0.001 -o dt.yaml &&
    expect_grep "lp-time-limit is not read by placer .auto." "$TMPDIR_TEST/err" && test ! -e dt.yaml
'

test_done
