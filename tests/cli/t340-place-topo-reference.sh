# check: slow sanitized-only
# m-TOPO (uniform and non-uniform) against an independent Python
# transcription of the original (tests/ref/m_topo.py, baechi-spec §2): the
# same device for every op, or both infeasible.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"
MEM=6914897346 # paper-4gpu-pcie: 6.44 GiB

check() { # workload placer variant devices fraction [grouper]
    gr=${6:-tf}
    rm -f p.yaml
    set +e
    "$BAECHI" place -w "$1" -c paper-4gpu-pcie -p "$2" --devices "$4" --memory-fraction "$5" \
        --grouper "$gr" -o p.yaml > out 2> err
    crc=$?
    set -e
    ref_known "$* exit $crc" "$1" p.yaml && return 0 # lib.sh: recorded verdicts
    python3 "$TOP/tests/ref/m_topo.py" "$1" "$4" $MEM "$5" "$3" "$gr" > ref.json
    ref_compare p.yaml ref.json $crc "$*"
    ref_passed "$* exit $crc" "$1" p.yaml
}

for k in 2 4; do
    test_expect_success "m-TOPO as the reference: GNMT m-topo uniform $k 1" '
        check "$GNMT" m-topo uniform $k 1
    '
done

for f in 1 0.5 0.3 0.2; do
    test_expect_success "m-TOPO as the reference: GNMT m-topo-nonuniform nonuniform 4 $f" '
        check "$GNMT" m-topo-nonuniform nonuniform 4 $f
    '
done

# the co-placement grouper (§6.1) too
test_expect_success 'm-TOPO as the reference: GNMT m-topo uniform 4 1 coplace' '
    check "$GNMT" m-topo uniform 4 1 coplace
'

test_expect_success 'm-TOPO as the reference: GNMT m-topo-nonuniform nonuniform 4 0.5 coplace' '
    check "$GNMT" m-topo-nonuniform nonuniform 4 0.5 coplace
'

test_done
