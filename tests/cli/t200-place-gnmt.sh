# check: sanitized-only
# t200-place-gnmt.sh - `baechi place` with every placer on GNMT (4 paper GPUs)
. "$TOP/tests/cli/lib.sh"

for p in m-topo m-topo-nonuniform m-etf m-etf-reserve m-sct m-sct-reserve paper single \
    round-robin random given expert; do
    test_expect_success "place -p $p: 2494 ops placed, a file the simulator reads" '
        expect_exit 0 "$BAECHI" place -w "$GNMT" -c paper-4gpu-pcie -p "$p" -o "$TMPDIR_TEST/$p.yaml"
        expect_grep "^placer: $p" "$TMPDIR_TEST/$p.yaml"
        expect_grep "^devices:" "$TMPDIR_TEST/$p.yaml"
        expect_grep "placed 2494 ops" "$TMPDIR_TEST/err"
        # the placement file is valid input of the simulator
        expect_exit 0 "$BAECHI" sim -w "$GNMT" -c paper-4gpu-pcie --placement "$TMPDIR_TEST/$p.yaml" --model baechi
    '
done

test_expect_success 'm-sct: the estimate and an optimal LP' '
    expect_grep "estimate_us:" "$TMPDIR_TEST/m-sct.yaml"
    expect_grep "lp_status: optimal" "$TMPDIR_TEST/m-sct.yaml"
'

test_expect_success 'paper: fusion and the coplace grouper' '
    expect_grep "fusion: .?true" "$TMPDIR_TEST/paper.yaml"
    expect_grep "grouper: .?coplace" "$TMPDIR_TEST/paper.yaml"
'

test_done
