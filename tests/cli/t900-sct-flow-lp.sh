# m-SCT's LP by the flow solver (issue 32, item 4; placers/lp_sct_flow.c):
# on a 500-op layered graph on paper-4gpu-pcie, `--lp-solver flow` gives the
# same placement file twice, records its method and certified gap
# (lp_status "flow: gap G%", lp_solver flow) in the placement and in run's
# JSON, and the gap brackets GLPK's exact optimum: flow's value is a
# feasible point's (at least the optimum) and value × (1 - G) is at most
# the optimum.  Its placement simulates within 5 % of the exact LP's
# (docs/limits.md, "m-SCT's LP", has the larger graphs).
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

test_expect_success 'setup: a layered graph of 500 ops' '
    "$BAECHI" workload gen synthetic --shape layered --ops 500 --seed 42 --fan-in 3 -o l500.yaml
'

test_expect_success 'flow: the same placement file on every run, method and gap recorded' '
    "$BAECHI" place -w l500.yaml -c paper-4gpu-pcie -p m-sct --lp-solver flow -o f1.yaml &&
    "$BAECHI" place -w l500.yaml -c paper-4gpu-pcie -p m-sct --lp-solver flow -o f2.yaml &&
    cmp f1.yaml f2.yaml &&
    grep -q "lp_status: .flow: gap [0-9.]*%., lp_solver: flow" f1.yaml &&
    grep -q "options:.*lp_solver: flow" f1.yaml
'

test_expect_success 'flow: the certified gap brackets the exact optimum (GLPK)' '
    "$BAECHI" run -w l500.yaml -c paper-4gpu-pcie -p m-sct --lp-solver flow --json > f.json &&
    "$BAECHI" run -w l500.yaml -c paper-4gpu-pcie -p m-sct --lp-solver glpk --json > g.json &&
    python3 - <<-PY
	import json, re
	f = json.load(open("f.json"))
	g = json.load(open("g.json"))
	lf, lg = f["lp"], g["lp"]
	assert lf["solver"] == "flow" and f["placement_stats"]["lp_solver"] == "flow", lf
	assert lg["solver"] == "glpk" and lg["status"] == "optimal", lg
	m = re.fullmatch(r"flow: gap ([0-9.]+)%", lf["status"])
	assert m, lf["status"]
	gap = float(m.group(1)) / 100
	assert 0 <= gap <= 0.05, gap
	opt, val = lg["makespan_us"], lf["makespan_us"]
	assert val >= opt - 1e-3, (val, opt)
	assert val * (1 - gap - 1e-5) <= opt + 1e-3, (val, gap, opt)
	assert lf["iterations"] > 0 and lf["n_favourite_children"] > 0, lf
	sf, sg = f["sim"]["baechi"]["step_us"], g["sim"]["baechi"]["step_us"]
	assert sf <= 1.05 * sg, (sf, sg)
	PY
'

test_expect_success 'flow: the bound keeps its own solver' '
    python3 - <<-PY
	import json
	f = json.load(open("f.json"))
	assert f["bound"].get("lp_solver", "") in ("", "glpk", "clp"), f["bound"]
	PY
'

test_done
