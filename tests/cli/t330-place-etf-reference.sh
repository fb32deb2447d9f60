# check: slow sanitized-only
# m-ETF and m-ETF-reserve, with the tf and coplace groupers and with
# operator fusion, against independent, line-by-line Python transcriptions of
# the original (tests/ref/m_etf.py, fusion.py; baechi-spec §3, §6.1, §6.3;
# every schedule time recomputed before each decision): the same device for
# every op and the same estimate, or both infeasible -- on GNMT with ample,
# tight and too little memory and on a DAG with control dependencies and
# colocation groups.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"
MEM=6914897346 # paper-4gpu-pcie: 6.44 GiB

check() { # workload devices fraction [grouper [fusion|nofusion [reserve]]]
    gr=${4:-tf}
    fu=${5:-nofusion}
    rs=${6:-}
    flag=
    [ "$fu" = fusion ] && flag=--fusion
    rm -f p.yaml
    set +e
    "$BAECHI" place -w "$1" -c paper-4gpu-pcie -p m-etf${rs:+-reserve} --devices "$2" \
        --memory-fraction "$3" --grouper "$gr" $flag -o p.yaml > out 2> err
    crc=$?
    set -e
    ref_known "$* exit $crc" "$1" p.yaml && return 0 # lib.sh: recorded verdicts
    python3 "$TOP/tests/ref/m_etf.py" "$1" "$2" $MEM "$3" "$gr" "$fu" $rs > ref.json
    ref_compare p.yaml ref.json $crc "$*"
    ref_passed "$* exit $crc" "$1" p.yaml
}

test_expect_success 'm-ETF as the reference: GNMT 4 1' '
    check "$GNMT" 4 1
'

test_expect_success 'm-ETF as the reference: GNMT 2 0.3' '
    check "$GNMT" 2 0.3
'

test_expect_success 'm-ETF as the reference: GNMT 2 0.1' '
    check "$GNMT" 2 0.1
'

# the co-placement grouper (§6.1) too, and operator fusion (§6.3): the
# paper configuration (m-ETF + fusion + coplace) and fusion alone
test_expect_success 'm-ETF as the reference: GNMT 4 1 coplace' '
    check "$GNMT" 4 1 coplace
'

test_expect_success 'm-ETF as the reference: GNMT 2 0.3 coplace' '
    check "$GNMT" 2 0.3 coplace
'

test_expect_success 'm-ETF as the reference: GNMT 4 1 coplace fusion' '
    check "$GNMT" 4 1 coplace fusion
'

test_expect_success 'm-ETF as the reference: GNMT 2 0.2 coplace fusion' '
    check "$GNMT" 2 0.2 coplace fusion
'

test_expect_success 'm-ETF as the reference: GNMT 4 1 tf fusion' '
    check "$GNMT" 4 1 tf fusion
'

# m-ETF-reserve (§3.6): group reservations
test_expect_success 'm-ETF as the reference: GNMT 4 1 tf nofusion reserve' '
    check "$GNMT" 4 1 tf nofusion reserve
'

test_expect_success 'm-ETF as the reference: GNMT 2 0.3 tf nofusion reserve' '
    check "$GNMT" 2 0.3 tf nofusion reserve
'

test_expect_success 'm-ETF as the reference: GNMT 2 0.2 tf nofusion reserve' '
    check "$GNMT" 2 0.2 tf nofusion reserve
'

test_expect_success 'm-ETF as the reference: GNMT 2 0.3 coplace fusion reserve' '
    check "$GNMT" 2 0.3 coplace fusion reserve
'

test_expect_success 'setup: -p paper and m-etf --grouper coplace --fusion' '
    expect_exit 0 "$BAECHI" place -w "$GNMT" -c paper-4gpu-pcie -p paper -o paper.yaml
    expect_exit 0 "$BAECHI" place -w "$GNMT" -c paper-4gpu-pcie -p m-etf --grouper coplace --fusion -o p.yaml
'

# `paper` is exactly that configuration: the same devices section
test_expect_success 'paper is m-etf + coplace + fusion: the same devices' - <<'EOF'
sed -n '/^devices:/,$p' paper.yaml > a
sed -n '/^devices:/,$p' p.yaml > b
cmp a b
EOF

test_expect_success 'setup: a random DAG with control dependencies and groups' '
    ref_ctl_yaml ctl.yaml
'

for f in 1 0.01 0.005; do
    test_expect_success "m-ETF as the reference: ctl.yaml 4 $f" '
        check ctl.yaml 4 $f
    '
done

test_expect_success 'm-ETF as the reference: ctl.yaml 4 1 coplace' '
    check ctl.yaml 4 1 coplace
'

test_expect_success 'm-ETF as the reference: ctl.yaml 4 1 coplace fusion' '
    check ctl.yaml 4 1 coplace fusion
'

test_expect_success 'm-ETF as the reference: ctl.yaml 4 1 tf fusion' '
    check ctl.yaml 4 1 tf fusion
'

test_expect_success 'm-ETF as the reference: ctl.yaml 4 1 coplace nofusion reserve' '
    check ctl.yaml 4 1 coplace nofusion reserve
'

test_expect_success 'm-ETF as the reference: ctl.yaml 4 0.02 tf nofusion reserve' '
    check ctl.yaml 4 0.02 tf nofusion reserve
'

test_done
