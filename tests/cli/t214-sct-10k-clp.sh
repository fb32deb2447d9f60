# check: slow
# m-SCT on the 10k-op layered graph (issue 22, item 4): its LP (148,171
# non-zeros) is above auto's GLPK threshold, so CLP's dual simplex solves it
# to the optimum (42,782.389 µs, the value GLPK reaches too), about 2.5 s of
# CPU end to end on a 2020s x86 core (docs/limits.md).  Past the column
# limit (the 100k-op graph) m-SCT falls back to m-ETF before building it.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

test_expect_success 'setup: a layered graph of 10,000 ops' '
    "$BAECHI" workload gen synthetic --shape layered --ops 10000 --seed 42 --fan-in 3 -o l10k.yaml
'

test_expect_success 'auto: CLP, the LP optimal' '
    "$BAECHI" run -w l10k.yaml -c dgx-h100-8 -p m-sct --json > r.json &&
    python3 - <<-PY
	import json
	r = json.load(open("r.json"))
	lp = r["lp"]
	assert lp["status"] == "optimal" and lp["solver"] == "clp", lp
	assert abs(lp["makespan_us"] - 42782.389052) < 1e-3, lp
	assert (lp["rows"], lp["cols"], lp["nonzeros"]) == (48154, 39694, 148171), lp
	assert r["placement_stats"]["lp_solver"] == "clp", r["placement_stats"]
	PY
'

test_expect_success '--lp-solver clp on the 500-op graph: optimal, the same value as GLPK' '
    "$BAECHI" workload gen synthetic --shape layered --ops 500 --seed 42 --fan-in 3 -o l500.yaml &&
    "$BAECHI" place -w l500.yaml -c dgx-h100-8 -p m-sct --lp-solver clp -o c.yaml &&
    "$BAECHI" place -w l500.yaml -c dgx-h100-8 -p m-sct --lp-solver glpk -o g.yaml &&
    grep -q "lp_status: optimal, lp_solver: clp" c.yaml &&
    grep -q "lp_status: optimal, lp_solver: glpk" g.yaml &&
    grep -q "lp_solver: clp" c.yaml && grep -q "options:.*lp_solver: clp" c.yaml &&
    test "$(grep -o "lp_makespan_us: [0-9.]*" c.yaml)" = "$(grep -o "lp_makespan_us: [0-9.]*" g.yaml)"
'

test_done
