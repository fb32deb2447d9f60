# t202-place-deterministic.sh - same input, byte-identical placement file; list; fast = reference
. "$TOP/tests/cli/lib.sh"

test_expect_success 'place --list' '
    expect_exit 0 "$BAECHI" place --list
    expect_grep "m-sct-reserve" "$TMPDIR_TEST/out"
    expect_grep "paper" "$TMPDIR_TEST/out"
'

test_expect_success 'place -p list' '
    expect_exit 0 "$BAECHI" place -p list
'

# --seed only where the placer reads it (m-etf and m-sct refuse it: t840)
for p in m-etf m-sct "random --seed 7"; do
    test_expect_success "place -p $p twice: byte-identical files" '
        "$BAECHI" place -w "$GNMT" -c paper-4gpu-pcie -p $p -o "$TMPDIR_TEST/a.yaml" 2>/dev/null
        "$BAECHI" place -w "$GNMT" -c paper-4gpu-pcie -p $p -o "$TMPDIR_TEST/b.yaml" 2>/dev/null
        cmp "$TMPDIR_TEST/a.yaml" "$TMPDIR_TEST/b.yaml"
    '
done

test_expect_success '--paper: the fast implementation writes the reference file' '
    "$BAECHI" place -w "$GNMT" -c paper-4gpu-pcie --paper -o "$TMPDIR_TEST/f.yaml" 2>/dev/null
    "$BAECHI" place -w "$GNMT" -c paper-4gpu-pcie --paper --impl reference -o "$TMPDIR_TEST/r.yaml" 2>/dev/null
    cmp "$TMPDIR_TEST/f.yaml" "$TMPDIR_TEST/r.yaml"
'

test_done
