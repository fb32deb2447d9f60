#!/bin/sh
# t600: `baechi calibrate --backend cpu` -> cluster.yaml -> `baechi sim` with
# it, end to end (quick sizes: a second or less); one device keeps the
# default model; bad usage exits 2.
. "$TOP/tests/cli/lib.sh"
W="$TOP/tests/data/t1.yaml"
C="$TMPDIR_TEST/cal.yaml"

expect_exit 0 "$BAECHI" calibrate --backend cpu --quick -o "$C"
expect_grep '^calibration: cpu backend, 2 devices' "$TMPDIR_TEST/out"
expect_grep 'GFLOP/s' "$TMPDIR_TEST/out"
expect_grep 'µs/B \+ [0-9.]+ µs .*R² ' "$TMPDIR_TEST/out"
expect_grep "wrote $C" "$TMPDIR_TEST/out"
expect_grep '^name: calibrated-cpu-2' "$C"
expect_grep 'slope_us_per_byte' "$C"
expect_grep '^# group 0 \(memcpy' "$C"
expect_grep '^source:' "$C"
expect_grep 'measured by .*cpu backend' "$C"
expect_grep 'fit quality: R² [0-9.]+ over all pairs, worst error [0-9.]+ % over [0-9]+ group' "$C"

# the calibrated cluster drives the simulator
expect_exit 0 "$BAECHI" sim -w "$W" -c "$C" --placement given --json
expect_grep '"cluster": "calibrated-cpu-2"' "$TMPDIR_TEST/out"
expect_grep '"n_devices": 2, "step_us": ' "$TMPDIR_TEST/out"
expect_grep '"n_transfers": 2' "$TMPDIR_TEST/out"

# the measured devices drive the cost model: --device <cluster>:N
expect_grep '^- \{name: cpu1, .*peak_flops: [0-9.e+]+, memory_bandwidth: [0-9.e+]+, launch_us: [0-9.]+\}' "$C"
expect_exit 0 "$BAECHI" workload gen transformer --layers 1 --forward-only --device "$C:1" -o "$TMPDIR_TEST/w.yaml"
expect_grep '^reference_device: cpu1$' "$TMPDIR_TEST/w.yaml"
expect_exit 2 "$BAECHI" workload gen transformer --layers 1 --forward-only --device "$C:2" -o "$TMPDIR_TEST/w.yaml"
expect_grep "device '.*:2': cluster 'calibrated-cpu-2' has 2 devices \(0..1\)" "$TMPDIR_TEST/err"

# YAML on stdout, summary on stderr; --json with a file
expect_exit 0 "$BAECHI" calibrate --quick --max-exp 10
expect_grep '^format: 1' "$TMPDIR_TEST/out"
expect_grep '^calibration:' "$TMPDIR_TEST/err"
expect_exit 0 "$BAECHI" calibrate --quick --max-exp 10 --json -o "$TMPDIR_TEST/c2.yaml"
expect_grep '^\{"backend": "cpu", ' "$TMPDIR_TEST/out"
expect_grep '"sizes_bytes": \[1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024\], "pairs": \[\{"src": 0, "dst": 1, ' "$TMPDIR_TEST/out"
expect_grep '\{"src": 1, "dst": 0, "path": "memcpy", "group": [01], "fit": \{"slope_us_per_byte": ' "$TMPDIR_TEST/out"

# one device: nothing to fit, the original's default model stays
expect_exit 0 "$BAECHI" calibrate --devices 0 --quick -o "$TMPDIR_TEST/one.yaml"
expect_grep 'one device, nothing to measure' "$TMPDIR_TEST/out"
expect_grep 'slope_us_per_byte: 0.0001754' "$TMPDIR_TEST/one.yaml"

# usage errors
expect_exit 2 "$BAECHI" calibrate --backend tpu
expect_grep "unknown backend 'tpu'" "$TMPDIR_TEST/err"
expect_exit 2 "$BAECHI" calibrate --min-exp 10 --max-exp 5
expect_exit 2 "$BAECHI" calibrate --devices 0,x
expect_exit 2 "$BAECHI" calibrate --devices 1,1 --quick
expect_grep 'listed twice' "$TMPDIR_TEST/err"
expect_exit 2 "$BAECHI" calibrate --json
