# --lp-solver (issue 22, item 4): the solver is recorded where the LP's
# status is (placement stats, run's JSON, the bound's JSON); a bad value is
# refused naming it; an iteration limit counts CLP's iterations too, so two
# runs give byte-identical files.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

test_expect_success 'setup: a layered graph of 500 ops' '
    "$BAECHI" workload gen synthetic --shape layered --ops 500 --seed 3 -o l500.yaml
'

test_expect_success 'auto on a small LP: GLPK, recorded; no lp_solver option' '
    "$BAECHI" run -w l500.yaml -c paper-4gpu-pcie -p m-sct --json > a.json &&
    python3 - <<-PY
	import json
	r = json.load(open("a.json"))
	assert r["lp"]["solver"] == "glpk" and r["lp"]["status"] == "optimal", r["lp"]
	assert r["placement_stats"]["lp_solver"] == "glpk", r["placement_stats"]
	assert "lp_solver" not in r["options"], r["options"]
	assert "lp_solver" in r["bound"], r["bound"]
	PY
'

test_expect_success '--lp-solver clp: recorded as option and statistic' '
    "$BAECHI" run -w l500.yaml -c paper-4gpu-pcie -p m-sct --lp-solver clp --json > c.json &&
    python3 - <<-PY
	import json
	r = json.load(open("c.json"))
	a = json.load(open("a.json"))
	assert r["lp"]["solver"] == "clp" and r["lp"]["status"] == "optimal", r["lp"]
	assert r["options"]["lp_solver"] == "clp", r["options"]
	assert abs(r["lp"]["makespan_us"] - a["lp"]["makespan_us"]) <= 1e-6 * a["lp"]["makespan_us"]
	PY
'

test_expect_success 'run --db: the database stores the solver beside the status' '
    "$BAECHI" run -w l500.yaml -c paper-4gpu-pcie -p m-sct --lp-solver clp --db r.db > /dev/null &&
    test "$(sqlite3 r.db "select distinct lp_status || \":\" || lp_solver from runs")" = "optimal:clp"
'

# t211's chain of four 400 kB ops on three 1 MiB devices: memory binds, so
# the certified bound solves its LP; --lp-solver chooses its solver too
test_expect_success 'the bound'\''s LP: the same value from both solvers, its solver recorded' '
    printf "%s\n" "format: 1" "name: chain4" "ops:" \
        "  - {name: A, type: Op, time_us: 10, outputs: [100], persistent: 400000}" \
        "  - {name: B, type: Op, time_us: 10, outputs: [1000], persistent: 400000, inputs: [\"A:0\"]}" \
        "  - {name: C, type: Op, time_us: 10, outputs: [100], persistent: 400000, inputs: [\"B:0\"]}" \
        "  - {name: D, type: Op, time_us: 10, persistent: 400000, inputs: [\"C:0\"]}" > chain.yaml &&
    printf "%s\n" "format: 1" "name: three" "devices:" "  - name: gpu" "    count: 3" \
        "    memory: 1MiB" "comm:" "  slope_us_per_byte: 0.0375" "  intercept_us: 3.25" \
        "  channel: shared" > three.yaml &&
    "$BAECHI" run -w chain.yaml -c three.yaml -p m-etf --json > bg.json &&
    "$BAECHI" run -w chain.yaml -c three.yaml -p m-etf --lp-solver clp --json > bc.json &&
    python3 - <<-PY
	import json
	g = json.load(open("bg.json"))["bound"]
	c = json.load(open("bc.json"))["bound"]
	assert g["lp_status"] == "optimal" and g["lp_solver"] == "glpk", g
	assert c["lp_status"] == "optimal" and c["lp_solver"] == "clp", c
	assert g["lp_us"] == c["lp_us"], (g, c)
	PY
'

test_expect_success '--lp-solver bad value: refused, naming it' '
    expect_exit 2 "$BAECHI" place -w l500.yaml -c paper-4gpu-pcie -p m-sct --lp-solver cplex &&
    expect_grep "unknown LP solver .cplex." "$TMPDIR_TEST/err" &&
    expect_exit 2 "$BAECHI" run -w l500.yaml -c paper-4gpu-pcie -p m-sct --lp-solver "" &&
    expect_grep "unknown LP solver" "$TMPDIR_TEST/err"
'

test_expect_success 'CLP under --lp-iteration-limit: stopped there, byte-identical twice' '
    "$BAECHI" place -w l500.yaml -c paper-4gpu-pcie -p m-sct --lp-solver clp \
        --lp-iteration-limit 300 -o a.yaml 2> err1 &&
    "$BAECHI" place -w l500.yaml -c paper-4gpu-pcie -p m-sct --lp-solver clp \
        --lp-iteration-limit 300 -o b.yaml 2> err2 &&
    grep -Eq "lp_status: (.fallback: m-etf \(LP iterations\).|iteration limit \(feasible\)), lp_solver: clp" a.yaml &&
    sed "/_ms:/d" a.yaml > a.txt && sed "/_ms:/d" b.yaml > b.txt && cmp a.txt b.txt &&
    "$BAECHI" run -w l500.yaml -c paper-4gpu-pcie -p m-sct --lp-solver clp \
        --lp-iteration-limit 300 --json > r1.json 2>/dev/null &&
    "$BAECHI" run -w l500.yaml -c paper-4gpu-pcie -p m-sct --lp-solver clp \
        --lp-iteration-limit 300 --json > r2.json 2>/dev/null &&
    sed -E "s/\"[a-z_]*_ms\": [0-9.e+-]+//g" r1.json > r1.txt &&
    sed -E "s/\"[a-z_]*_ms\": [0-9.e+-]+//g" r2.json > r2.txt && cmp r1.txt r2.txt
'

test_expect_success 'the library and Python take lp_solver too' '
    PYTHONPATH="$TOP/python" BAECHI_LIBRARY="$(dirname "$BAECHI")/libbaechi.so" python3 - <<-PY
	import baechi
	w = baechi.parse_workload(open("l500.yaml").read())
	c = baechi.parse_cluster(open("$TOP/data/clusters/paper-4gpu-pcie.yaml").read())
	p = baechi.place(w, c, "m-sct", lp_solver="clp")
	try:
	    baechi.place(w, c, "m-sct", lp_solver="cplex")
	    raise SystemExit("cplex accepted")
	except baechi.Error as e:
	    assert "cplex" in str(e), e
	PY
'

test_done
