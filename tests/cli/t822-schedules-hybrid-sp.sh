# check: sanitized-only
# t170's contract with sequence parallelism (--sp): on DP x TP x PP hybrids
# 1f1b is never slower than gpipe at equal micro-batches (0.1 % slack), and
# with no pipeline stages the two agree within 0.5 %.  --sp adds backward
# all-gathers that wait for their layer's gradient (t820): they must not
# stall a schedule.
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"

# step_us W SCHEDULE: the timed step of W's given placement on dgx-h100-8
step_us() {
    "$BAECHI" sim -w "$1" -c dgx-h100-8 --placement given --schedule "$2" --json 2>/dev/null |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["step_us"])'
}

test_expect_success 'setup: GPT-small, 12 layers, 2 and 4 micro-batches' - <<'EOF'
"$BAECHI" workload gen gpt --size small -b 8 --seq 512 --device h100 --micro-batches 2 -o m2.yaml > /dev/null
"$BAECHI" workload gen gpt --size small -b 8 --seq 512 --device h100 --micro-batches 4 -o m4.yaml > /dev/null
EOF

test_expect_success 'sp, no pipeline stages: 1f1b and gpipe agree within 0.5 %' - <<'EOF'
for cfg in "2 2 m2" "1 4 m4"; do
    set -- $cfg
    "$BAECHI" workload parallelize $3.yaml --dp $1 --tp $2 --sp -o h.yaml > /dev/null
    a=$(step_us h.yaml 1f1b); b=$(step_us h.yaml gpipe)
    echo "dp $1 tp $2 sp $3: 1f1b $a us, gpipe $b us"
    python3 -c "import sys; a, b = $a, $b; sys.exit(abs(a - b) > 0.005 * b)"
done
EOF

test_expect_success 'sp, DP x TP x PP: 1f1b never slower than gpipe' - <<'EOF'
for cfg in "2 2 2 m4" "1 2 4 m4" "1 4 2 m4"; do
    set -- $cfg
    "$BAECHI" workload parallelize $4.yaml --dp $1 --tp $2 --pp $3 --sp -o h.yaml > /dev/null
    a=$(step_us h.yaml 1f1b); b=$(step_us h.yaml gpipe)
    echo "dp $1 tp $2 pp $3 sp $4: 1f1b $a us, gpipe $b us"
    python3 -c "import sys; a, b = $a, $b; sys.exit(a > 1.001 * b)"
done
EOF

test_done
