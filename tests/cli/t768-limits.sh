# The ranges of docs/limits.md hold the same on the command line and in sweep
# files (issue 13, deliverable 4): the bounds are accepted, one step past
# them is refused with exit 2 and a message naming the range.
. "$TOP/tests/cli/lib.sh"

T1="$TOP/tests/data/t1.yaml"
cd "$TMPDIR_TEST"
ok() { expect_exit 0 "$BAECHI" place -w "$T1" -c dgx-h100-8 -p m-sct "$@" -o /dev/null; }
bad() {
    expect_exit 2 "$BAECHI" place -w "$T1" -c dgx-h100-8 -p m-sct "$@" -o /dev/null
    expect_grep "$1 must be a(n integer| number) in" "$TMPDIR_TEST/err"
}

test_expect_success 'place --memory-fraction 1e-9: accepted (80 B per device)' '
    expect_exit 3 "$BAECHI" place -w "$T1" -c dgx-h100-8 -p m-sct --memory-fraction 1e-9  # accepted: 80 B per device
'

test_expect_success 'place --memory-fraction 1: accepted' '
    ok --memory-fraction 1
'

test_expect_success 'place --memory-fraction 1.5: refused, naming the range' '
    bad --memory-fraction 1.5
'

test_expect_success 'place --comm-factor 0: accepted' '
    ok --comm-factor 0
'

test_expect_success 'place --comm-factor 2e9: refused, naming the range' '
    bad --comm-factor 2e9
'

test_expect_success 'place --compute-factor 0: refused, naming the range' '
    bad --compute-factor 0
'

test_expect_success 'place --threshold 0: accepted' '
    ok --threshold 0
'

test_expect_success 'place --threshold 1: accepted' '
    ok --threshold 1
'

test_expect_success 'place --threshold -1: refused, naming the range' '
    bad --threshold -1
'

test_expect_success 'place --threshold 1.5: refused, naming the range' '
    bad --threshold 1.5
'

test_expect_success 'place --lp-time-limit 2e6: refused, naming the range' '
    bad --lp-time-limit 2e6
'

test_expect_success 'place --devices 4097: refused, naming the range' '
    bad --devices 4097
'

test_expect_success 'place --seed 2147483648: refused, naming the range' '
    bad --seed 2147483648
'

sweep() {
    printf 'workloads: ["%s"]\nclusters: [dgx-h100-8]\nplacers: [m-etf]\n%s\n' "$T1" "$1" > s.yaml
}

for good in 'memory_fractions: [1e-9, 1]' 'comm_factors: [0, 1e9]' 'compute_factors: [1e-9, 1e9]' \
    'sct_threshold: 1' 'lp_time_limit: 1e6' 'devices: [0, 8]' 'seeds: [2147483647]'; do
    test_expect_success "sweep $good: accepted" '
        sweep "$good"
        expect_exit 0 "$BAECHI" sweep s.yaml --db r.db --dry-run
    '
done

for b in 'memory_fractions: [2e9]' 'comm_factors: [2e9]' 'compute_factors: [0]' \
    'sct_threshold: 1.5' 'lp_time_limit: 2e6' 'devices: [4097]' 'seeds: [2147483648]'; do
    test_expect_success "sweep $b: refused with file:line:col" - <<'EOF'
sweep "$b"
expect_exit 2 "$BAECHI" sweep s.yaml --db r.db --dry-run
expect_grep 's.yaml:4:[0-9]+: .*(out of range|must)' "$TMPDIR_TEST/err"
EOF
done

test_done
