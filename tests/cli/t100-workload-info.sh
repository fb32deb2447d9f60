# `baechi workload info` on the shipped GNMT-v2 profile: the sizes the
# paper's authors' graph has (DESIGN.md "Reference numbers").
. "$TOP/tests/cli/lib.sh"

test_expect_success 'workload info: the sizes of the GNMT graph' - <<'EOF'
expect_exit 0 "$BAECHI" workload info "$GNMT" --devices 4
expect_grep 'ops +2494 \(2828 in the file, 334 dangling pruned\)' "$TMPDIR_TEST/out"
expect_grep 'Σ compute +116\.762 ms \(116762 µs: Σ time_us 115\.871 ms, the file.s times, estimates unless measured; 891 ops without time_us' "$TMPDIR_TEST/out"
expect_grep 'critical path 78\.[67][0-9]* ms' "$TMPDIR_TEST/out"
expect_grep 'lower bound,  4 devices' "$TMPDIR_TEST/out"
expect_grep 'memory +persistent [0-9.]+ MiB' "$TMPDIR_TEST/out"
EOF

test_expect_success 'workload info --json' - <<'EOF'
expect_exit 0 "$BAECHI" workload info "$GNMT" --json
expect_grep '"n_ops": 2494' "$TMPDIR_TEST/out"
python3 -m json.tool "$TMPDIR_TEST/out" > /dev/null
EOF

# A missing file is bad input, named.
test_expect_success 'a missing file is bad input, named' - <<'EOF'
expect_exit 2 "$BAECHI" workload info "$TMPDIR_TEST/nope.yaml"
expect_grep 'nope.yaml' "$TMPDIR_TEST/err"
EOF

test_done
