# check: slow sanitized-only
# t400-run-gnmt.sh - `baechi run` prints a complete summary for every placer on GNMT
. "$TOP/tests/cli/lib.sh"

for p in m-topo m-topo-nonuniform m-etf m-etf-reserve m-sct m-sct-reserve paper single \
    round-robin random given expert; do
    test_expect_success "run -p $p: a complete summary, and in JSON" '
        expect_exit 0 "$BAECHI" run -w "$GNMT" -c paper-4gpu-pcie -p "$p"
        expect_grep "^step \(baechi\) +[0-9.]+ (ms|s|µs)" "$TMPDIR_TEST/out"
        expect_grep "^step \(timed\) +[0-9.]+ (ms|s|µs)" "$TMPDIR_TEST/out"
        expect_grep "^lower bound" "$TMPDIR_TEST/out"
        expect_grep "^placement +[0-9.]+ (ms|s|µs)" "$TMPDIR_TEST/out"
        expect_grep "peak .*(MiB|GiB|KiB|B) of" "$TMPDIR_TEST/out"
        expect_exit 0 "$BAECHI" run -w "$GNMT" -c paper-4gpu-pcie -p "$p" --json
        expect_grep "\"feasible\": true" "$TMPDIR_TEST/out"
        expect_grep "\"timed\": \{\"step_us\": [0-9]+" "$TMPDIR_TEST/out"
    '
done

test_expect_success 'run -p m-sct --json: the LP' '
    expect_exit 0 "$BAECHI" run -w "$GNMT" -c paper-4gpu-pcie -p m-sct --json
    expect_grep "\"lp\": \{\"makespan_us\"" "$TMPDIR_TEST/out"
'

test_expect_success 'run -p m-sct: the LP makespan, optimal' '
    expect_exit 0 "$BAECHI" run -w "$GNMT" -c paper-4gpu-pcie -p m-sct
    expect_grep "^LP +relaxed makespan [0-9.]+ ms, optimal" "$TMPDIR_TEST/out"
'

test_expect_success 'run -p paper --json parses' - <<'EOF'
if command -v python3 > /dev/null; then
    "$BAECHI" run -w "$GNMT" -c paper-4gpu-pcie -p paper --json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["estimate_us"] > 0 and d["sim"]["baechi"]["step_us"] > 0'
fi
EOF

test_done
