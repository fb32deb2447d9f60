#!/bin/sh
# t600: `baechi calibrate --backend cpu` -> cluster.yaml -> `baechi sim` with
# it, end to end (quick sizes: a second or less); one device keeps the
# default model; bad usage exits 2.
. "$TOP/tests/cli/lib.sh"
W="$TOP/tests/data/t1.yaml"
C="$TMPDIR_TEST/cal.yaml"

test_expect_success 'calibrate --backend cpu: the summary' - <<'EOF'
expect_exit 0 "$BAECHI" calibrate --backend cpu --quick -o "$C"
expect_grep '^calibration: cpu backend, 2 devices' "$TMPDIR_TEST/out"
expect_grep 'GFLOP/s' "$TMPDIR_TEST/out"
expect_grep 'µs/B \+ [0-9.]+ µs .*R² ' "$TMPDIR_TEST/out"
expect_grep "wrote $C" "$TMPDIR_TEST/out"
EOF

test_expect_success 'the cluster file: the fit, its groups, its source and quality' - <<'EOF'
expect_grep '^name: calibrated-cpu-2' "$C"
expect_grep 'slope_us_per_byte' "$C"
expect_grep '^# group 0 \(memcpy' "$C"
expect_grep '^source:' "$C"
expect_grep 'measured by .*cpu backend' "$C"
expect_grep 'fit quality: R² [0-9.]+ over all pairs, worst error [0-9.]+ % over [0-9]+ group' "$C"
EOF

# the calibrated cluster drives the simulator
test_expect_success 'the calibrated cluster drives the simulator' - <<'EOF'
expect_exit 0 "$BAECHI" sim -w "$W" -c "$C" --placement given --json
expect_grep '"cluster": "calibrated-cpu-2"' "$TMPDIR_TEST/out"
expect_grep '"n_devices": 2, "step_us": ' "$TMPDIR_TEST/out"
expect_grep '"n_transfers": 2' "$TMPDIR_TEST/out"
EOF

# the measured devices drive the cost model: --device <cluster>:N
test_expect_success 'the measured devices drive the cost model: --device CLUSTER:1' - <<'EOF'
expect_grep '^- \{name: cpu1, .*peak_flops: [0-9.e+]+, memory_bandwidth: [0-9.e+]+, launch_us: [0-9.]+\}' "$C"
expect_exit 0 "$BAECHI" workload gen transformer --layers 1 --forward-only --device "$C:1" -o "$TMPDIR_TEST/w.yaml"
expect_grep '^reference_device: cpu1$' "$TMPDIR_TEST/w.yaml"
EOF

test_expect_success '--device CLUSTER:2 on 2 devices: exit 2' - <<'EOF'
expect_exit 2 "$BAECHI" workload gen transformer --layers 1 --forward-only --device "$C:2" -o "$TMPDIR_TEST/w.yaml"
expect_grep "device '.*:2': cluster 'calibrated-cpu-2' has 2 devices \(0..1\)" "$TMPDIR_TEST/err"
EOF

# YAML on stdout, summary on stderr; --json with a file
test_expect_success 'YAML on stdout, summary on stderr' - <<'EOF'
expect_exit 0 "$BAECHI" calibrate --quick --max-exp 10
expect_grep '^format: 1' "$TMPDIR_TEST/out"
expect_grep '^calibration:' "$TMPDIR_TEST/err"
EOF

test_expect_success '--json with a file' - <<'EOF'
expect_exit 0 "$BAECHI" calibrate --quick --max-exp 10 --json -o "$TMPDIR_TEST/c2.yaml"
expect_grep '^\{"backend": "cpu", ' "$TMPDIR_TEST/out"
expect_grep '"sizes_bytes": \[1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024\], "pairs": \[\{"src": 0, "dst": 1, ' "$TMPDIR_TEST/out"
expect_grep '\{"src": 1, "dst": 0, "path": "memcpy", "group": [01], "fit": \{"slope_us_per_byte": ' "$TMPDIR_TEST/out"
EOF

# one device: nothing to fit, the original's default model stays
test_expect_success 'one device: nothing to fit, the default model stays' - <<'EOF'
expect_exit 0 "$BAECHI" calibrate --devices 0 --quick -o "$TMPDIR_TEST/one.yaml"
expect_grep 'one device, nothing to measure' "$TMPDIR_TEST/out"
expect_grep 'slope_us_per_byte: 0.0001754' "$TMPDIR_TEST/one.yaml"
EOF

# usage errors
test_expect_success 'an unknown backend: exit 2' - <<'EOF'
expect_exit 2 "$BAECHI" calibrate --backend tpu
expect_grep "unknown backend 'tpu'" "$TMPDIR_TEST/err"
EOF

test_expect_success '--min-exp above --max-exp: exit 2' '
    expect_exit 2 "$BAECHI" calibrate --min-exp 10 --max-exp 5
'

test_expect_success '--devices 0,x: exit 2' '
    expect_exit 2 "$BAECHI" calibrate --devices 0,x
'

test_expect_success 'a device listed twice: exit 2' - <<'EOF'
expect_exit 2 "$BAECHI" calibrate --devices 1,1 --quick
expect_grep 'listed twice' "$TMPDIR_TEST/err"
EOF

test_expect_success '--json without -o: exit 2' '
    expect_exit 2 "$BAECHI" calibrate --json
'

test_done
