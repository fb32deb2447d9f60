#!/bin/sh
# t630: `baechi replay` runs baechi-spec §13 T1 on the CPU backend: the
# program has 3 spins and 2 copies, the memory peaks equal the timed
# simulator's, and the report has units and the error in %; placements
# written by hand replay with the copies and peaks worked out by hand.
. "$TOP/tests/cli/lib.sh"
W="$TOP/tests/data/t1.yaml"
C="$TOP/tests/data/t1-cluster.yaml"

test_expect_success 'replay T1 on the CPU: 3 spins, 2 copies, peaks as simulated' - <<'EOF'
expect_exit 0 "$BAECHI" replay -w "$W" -c "$C" --placement given --steps 3 --warmup 1 --json
python3 - "$TMPDIR_TEST/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["backend"] == "cpu" and r["model"] == "timed", r
assert r["n_ops"] == 3 and r["n_copies"] == 2 and r["copy_bytes"] == 120, r
assert r["sim_step_us"] == 29, r["sim_step_us"]
assert r["n_steps"] == 3 and len(r["step_samples_us"]) == 3
assert r["measured_step_us"] >= 18, r["measured_step_us"]
assert [d["measured_peak_bytes"] for d in r["devices"]] == [150, 120], r["devices"]
assert [d["sim_peak_bytes"] for d in r["devices"]] == [150, 120], r["devices"]
PY
EOF

test_expect_success 'the text report: units and the error in %' - <<'EOF'
expect_exit 0 "$BAECHI" replay -w "$W" -c "$C" --placement given --steps 2 -m baechi
expect_grep '^measured step +[0-9.]+ (µs|ms)' "$TMPDIR_TEST/out"
expect_grep '^simulated step +29 µs \(baechi model\)' "$TMPDIR_TEST/out"
expect_grep '^step error +[-+][0-9.]+ %' "$TMPDIR_TEST/out"
expect_grep 'gpu0 +150 B +150 B +\+0.00 %' "$TMPDIR_TEST/out"
EOF

# A plan the simulator did not make: hand-written placements of T1, each
# replayed and compared with what the lifetimes of docs/calibration.md give
# by hand (not with the simulator's numbers alone).
#   A:0 B:1 C:1 - one copy, A's 100 B to gpu1 (B and C share it); gpu0 holds
#   A's output + temp = 150 B; gpu1 holds the copy of A, B's 20 B and C's
#   temp 10 B while C runs = 130 B.  Step: A 10 + copy rint(0.0375 * 100 +
#   3.25) = 7 + B 5 + C 3 = 25 µs simulated; the measured step is at least
#   the three spins in a row, 18 µs.
#   A:0 B:0 C:0 - no copy; gpu0 peaks at A's 150 B (then 100 + 20 and
#   100 + 20 + 10), gpu1 holds nothing; 18 µs, and at least that measured.
test_expect_success 'setup: two hand-written placements of T1' - <<'EOF'
for p in "split 0 1 1" "one 0 0 0"; do
    set -- $p
    printf 'format: 1\nworkload: t1\ncluster: t1-cluster\nplacer: hand\ndevices:\n  A: %s\n  B: %s\n  C: %s\n' \
        "$2" "$3" "$4" > "$TMPDIR_TEST/hand-$1.yaml"
done
EOF

# check_replay OUT COPIES COPY_BYTES SIM_STEP PEAK0 PEAK1
check_replay() {
    python3 - "$@" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
copies, copy_bytes, step, p0, p1 = map(int, sys.argv[2:])
assert r["backend"] == "cpu" and r["n_ops"] == 3, r
assert (r["n_copies"], r["copy_bytes"]) == (copies, copy_bytes), (r["n_copies"], r["copy_bytes"])
assert r["sim_step_us"] == step, r["sim_step_us"]
assert r["measured_step_us"] >= 18, r["measured_step_us"]
assert [d["measured_peak_bytes"] for d in r["devices"]] == [p0, p1], r["devices"]
assert [d["sim_peak_bytes"] for d in r["devices"]] == [p0, p1], r["devices"]
PY
}

test_expect_success 'replay a hand-written placement: A on gpu0, B and C on gpu1' - <<'EOF'
expect_exit 0 "$BAECHI" replay -w "$W" -c "$C" --placement "$TMPDIR_TEST/hand-split.yaml" \
    --steps 3 --warmup 1 --json
check_replay "$TMPDIR_TEST/out" 1 100 25 150 130
EOF

test_expect_success 'replay a hand-written placement: everything on gpu0' - <<'EOF'
expect_exit 0 "$BAECHI" replay -w "$W" -c "$C" --placement "$TMPDIR_TEST/hand-one.yaml" \
    --steps 3 --warmup 1 --json
check_replay "$TMPDIR_TEST/out" 0 0 18 150 0
EOF

# with a calibrated cluster: calibrate -> replay
test_expect_success 'setup: a calibrated cluster' '
    expect_exit 0 "$BAECHI" calibrate --quick --max-exp 12 -o "$TMPDIR_TEST/cal.yaml"
'

test_expect_success 'replay on the calibrated cluster' - <<'EOF'
expect_exit 0 "$BAECHI" replay -w "$W" -c "$TMPDIR_TEST/cal.yaml" --placement given --steps 2
EOF

# --devices: one id per cluster device; only the cuda backend shares a device
test_expect_success '--devices 3,5: one id per cluster device' - <<'EOF'
expect_exit 0 "$BAECHI" replay -w "$W" -c "$C" --placement given --steps 1 --warmup 0 --devices 3,5
EOF

test_expect_success '--devices with too few ids: exit 2' - <<'EOF'
expect_exit 2 "$BAECHI" replay -w "$W" -c "$C" --placement given --devices 0
expect_grep 'devices lists 1 devices; cluster .* has 2' "$TMPDIR_TEST/err"
EOF

test_expect_success '--devices 0,0: only the cuda backend shares a device' - <<'EOF'
expect_exit 2 "$BAECHI" replay -w "$W" -c "$C" --placement given --devices 0,0
expect_grep 'device 0 listed twice \(only the cuda backend shares a device\)' "$TMPDIR_TEST/err"
EOF

test_expect_success '--devices 0,x: exit 2' - <<'EOF'
expect_exit 2 "$BAECHI" replay -w "$W" -c "$C" --placement given --devices 0,x
expect_grep "devices wants ids like 0,1,2, not '0,x'" "$TMPDIR_TEST/err"
EOF

test_expect_success 'no placement: exit 2' - <<'EOF'
expect_exit 2 "$BAECHI" replay -w "$W" -c "$C"
EOF

test_expect_success 'an unknown backend: exit 2' - <<'EOF'
expect_exit 2 "$BAECHI" replay -w "$W" -c "$C" --placement given --backend tpu
EOF

test_expect_success '--steps 0: exit 2' - <<'EOF'
expect_exit 2 "$BAECHI" replay -w "$W" -c "$C" --placement given --steps 0
EOF

test_expect_success 'a missing workload: exit 2' - <<'EOF'
expect_exit 2 "$BAECHI" replay -w "$TMPDIR_TEST/none.yaml" -c "$C" --placement given
EOF

# --db: the prediction and the measurement, side by side in one database
test_expect_success '--db: the prediction and the measurement side by side' - <<'EOF'
expect_exit 0 "$BAECHI" replay -w "$W" -c "$C" --placement given --steps 2 --db "$TMPDIR_TEST/r.db"
test "$(sqlite3 "$TMPDIR_TEST/r.db" "select group_concat(sim_model, ' ') from (select sim_model from runs order by id)")" = "timed replay-cpu"
test "$(sqlite3 "$TMPDIR_TEST/r.db" "select step_us from runs where sim_model = 'timed'")" = 29
test "$(sqlite3 "$TMPDIR_TEST/r.db" "select group_concat(peak_bytes, ' ') from (select d.peak_bytes from devices d join runs r on r.id = d.run_id where r.sim_model = 'replay-cpu' order by d.device)")" = "150 120"
sqlite3 "$TMPDIR_TEST/r.db" "select message from runs where sim_model = 'replay-cpu'" | grep -Eq 'simulated 29 µs, error [-+][0-9.]+ %'
EOF

test_done
