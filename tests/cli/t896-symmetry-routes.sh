# check: once
# A symmetric workload (parallelize --symmetric) on every route besides
# `sim` and `run` (issue 32 item 2, docs/symmetry.md "Where a symmetric
# workload can go"): a sweep with placer given stores the step and every
# device's peak and ops of `baechi sim` (the representatives expanded, not
# the other replicas' devices empty); a sweep listing another placer is
# refused before its first run, naming the workload's entry, and stores
# nothing (unless that pair is excluded); replay and the plots that
# simulate a stored run again refuse in one line.
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"

g="workload gen gpt --layers 4 --d-model 64 --heads 8 --vocab 128 --seq 16 --batch 4 --dropout 0 --device h100"

test_expect_success 'setup' - <<EOF2
"\$BAECHI" $g --dp 4 --tp 2 --pp 2 --symmetric -o s.yaml > /dev/null 2>&1
grep -q '^x-symmetry:' s.yaml
printf 'name: sym\nworkloads: [s.yaml]\nclusters: [dgx-h100-2x8]\nplacers: [given]\nmodels: [timed, baechi]\n' > given.yaml
printf 'name: sym2\nworkloads:\n  - s.yaml\nclusters: [dgx-h100-2x8]\nplacers: [given, m-topo]\n' > topo.yaml
EOF2

test_expect_success 'sweep with placer given: the step and every device of baechi sim' - <<'EOF2'
expect_exit 0 "$BAECHI" sweep given.yaml --db r.db
for m in timed baechi; do
    "$BAECHI" sim -w s.yaml -c dgx-h100-2x8 --placement given --model $m --json > sim.json
    python3 - "$m" > want <<'PY'
import json, sys
j = json.load(open("sim.json"))
print("step_us,n_devices")
print("%d,%d" % (j["step_us"], j["n_devices"]))
print("device,peak_bytes,n_ops,busy_us")
for d in j["devices"]:
    print("%d,%d,%d,%d" % (d["id"], d["peak_bytes"], d["n_ops"], d["busy_us"]))
PY
    id=$("$BAECHI" db query --db r.db --format csv "SELECT id FROM runs WHERE sim_model = '$m' AND status = 'ok'" | sed 1d)
    test -n "$id"
    { "$BAECHI" db query --db r.db --format csv "SELECT step_us, n_devices FROM runs WHERE id = $id"
      "$BAECHI" db query --db r.db --format csv \
          "SELECT device, peak_bytes, n_ops, busy_us FROM devices WHERE run_id = $id ORDER BY device"
    } > got
    diff want got
done
EOF2

test_expect_success 'sweep with another placer: refused before the first run' - <<'EOF2'
expect_exit 2 "$BAECHI" sweep topo.yaml --db t.db
expect_grep "^baechi: topo.yaml:3:5: workload 's.yaml' is not symmetric under placer 'm-topo': it is replica 0 of 4 \(parallelize --symmetric\)" "$TMPDIR_TEST/err"
test "$(wc -l < "$TMPDIR_TEST/err")" = 1
if test -f t.db; then
    test "$("$BAECHI" db query --db t.db --format csv "SELECT count(*) FROM runs" | sed 1d)" = 0
fi
EOF2

test_expect_success 'the other placer excluded for it: the sweep runs' - <<'EOF2'
{ cat topo.yaml; printf 'exclude:\n  - {workload: s.yaml, placer: m-topo}\n'; } > ex.yaml
expect_exit 0 "$BAECHI" sweep ex.yaml --db ex.db
"$BAECHI" db query --db ex.db --format csv "SELECT placer, status FROM runs" > got
printf 'placer,status\ngiven,ok\n' > want
diff want got
EOF2

test_expect_success 'replay: refused in one line' - <<'EOF2'
expect_exit 2 "$BAECHI" replay -w s.yaml -c dgx-h100-2x8 --placement given --backend cpu --steps 1 --warmup 0
expect_grep "^baechi: s.yaml: workload '.*' is symmetric \(replica 0 of 4, parallelize --symmetric\): replay runs every rank's ops on real devices .*; write the workload without --symmetric" "$TMPDIR_TEST/err"
test "$(wc -l < "$TMPDIR_TEST/err")" = 1
EOF2

test_expect_success 'plot gantt and memory-timeline of a stored run: refused in one line' - <<'EOF2'
for p in gantt memory-timeline; do
    expect_exit 2 "$BAECHI" plot $p --db r.db --run 1 --csv p.csv -o p.png
    expect_grep "^baechi: run 1: workload '.*s.yaml' is symmetric \(replica 0 of 4, parallelize --symmetric\)" "$TMPDIR_TEST/err"
    test "$(wc -l < "$TMPDIR_TEST/err")" = 1
done
EOF2

test_done
