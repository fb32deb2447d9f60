# t222-sweep-lp-solver.sh - sweeps take `lp_solver:` (issue 22): a value or
# a list, a list an axis of the points of the placers that solve m-SCT's LP
# (m-SCT, auto's m-SCT candidates; the others keep one point), each run
# storing the solver that ran in the lp_solver column; a bad value is
# refused with file:line:col before anything runs.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

WL='gen:transformer?layers=1&forward_only=true'

test_expect_success 'a list: one point per solver for m-sct and auto, one for m-etf' - <<'EOF2'
cat > s.yaml <<YAML
workloads: ["$WL"]
clusters: [paper-4gpu-pcie]
placers: [m-sct, m-etf, auto]
lp_solver: [glpk, clp]
YAML
expect_exit 0 "$BAECHI" sweep s.yaml --db r.db -j 1
sqlite3 r.db "select placer, coalesce(lp_solver, '-') from runs order by placer, lp_solver" > got
printf 'auto|clp\nauto|glpk\nm-etf|-\nm-sct|clp\nm-sct|glpk\n' > want
diff want got
test "$(sqlite3 r.db "select count(*) from runs where key like '%|lp=clp|%'")" = 2
test "$(sqlite3 r.db "select count(*) from runs where key like '%|lp=%' and placer = 'm-etf'")" = 0
EOF2

msct() { # msct NAME [LINE]: sweeps m-sct on WL (LINE added to the file) into NAME.db
    { printf 'workloads: ["%s"]\nclusters: [paper-4gpu-pcie]\nplacers: [m-sct]\n' "$WL"
      [ -z "${2:-}" ] || echo "$2"; } > "$1.yaml"
    expect_exit 0 "$BAECHI" sweep "$1.yaml" --db "$1.db" -j 1
}

test_expect_success 'a scalar: the solver asked for is the one stored' '
    msct r1 "lp_solver: clp" &&
    test "$(sqlite3 r1.db "select lp_solver from runs")" = clp
'

test_expect_success 'no lp_solver: auto, and the keys of earlier sweeps' - <<'EOF2'
msct r0
test "$(sqlite3 r0.db "select lp_solver from runs")" = glpk
test "$(sqlite3 r0.db "select count(*) from runs where key like '%|th=0.1|seed=0|r=0|%'")" = 1
EOF2

test_expect_success 'a bad value: file:line:col and the value, nothing run' - <<'EOF2'
printf 'workloads: ["%s"]\nclusters: [paper-4gpu-pcie]\nplacers: [m-sct]\nlp_solver: [glpk, cplex]\n' \
    "$WL" > s-bad.yaml
expect_exit 2 "$BAECHI" sweep s-bad.yaml --db r-bad.db
expect_grep "s-bad.yaml:4:19: lp_solver: 'cplex' is not an LP solver \\(glpk, clp, flow, auto\\)" err
test ! -e r-bad.db
EOF2

test_done
