#!/bin/sh
# check: slow once
# t640: scripts/gpu-check.sh rehearsed on the CPU backend (BACKEND=cpu), as
# a lent GPU machine would run it: the given program, a calibration, the
# placements and replays, and a report with one row of numbers per placer.
. "$TOP/tests/cli/lib.sh"
O="$TMPDIR_TEST/gc"

test_expect_success 'gpu-check.sh with BACKEND=cpu' - <<'EOF'
expect_exit 0 env BAECHI="$BAECHI" BACKEND=cpu GPUS=2 STEPS=1 WARMUP=1 PLACERS="single m-etf" \
    WORKLOADS="$TOP/tests/data/t1.yaml gnmt" sh "$TOP/scripts/gpu-check.sh" "$O"
EOF

test_expect_success 'the log: the given program, the calibration' '
    expect_grep "^== program: .*\(given\)" "$O/gpu-check.log"
    expect_grep "^== calibrate devices 0,1" "$O/gpu-check.log"
'

test_expect_success 'the calibrated cluster' - <<'EOF'
test -s "$O/cluster.yaml"
expect_grep 'GEMM: blocked single-precision GEMM' "$O/cluster.yaml"
EOF

test_expect_success 'the report: a row of numbers per placer' '
    for row in "t1 | single" "t1 | m-etf" "gnmt_v2_b128_fwd | single" "gnmt_v2_b128_fwd | m-etf"; do
        expect_grep "^\| $row \| [0-9.]+ ms \| [0-9.]+ ms \| [-+][0-9.]+ % \| [0-9.]+ / [0-9.]+ MiB" "$O/report.md"
    done
'

test_expect_success 'the report states the target' - <<'EOF'
expect_grep '^Target: \|error\| <= 5 % for every placer' "$O/report.md"
EOF

test_done
