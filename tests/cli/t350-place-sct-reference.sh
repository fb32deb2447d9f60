# check: slow sanitized-only
# m-SCT (§4.3: favourite children, AWAKE devices, urgent ops) against the
# independent Python transcription (tests/ref/m_etf.py).  The favourite set
# depends on the LP solver's vertex, except at threshold 1, where every edge
# rounds to a favourite edge (x <= 1) and the §4.2 assignment alone decides:
# there the same device for every op and the same estimate are required,
# plain and reserve, with and without coplace + fusion.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"
MEM=6914897346 # paper-4gpu-pcie: 6.44 GiB

check() { # workload devices fraction grouper fusion|nofusion reserve|noreserve
    flag=
    [ "$5" = fusion ] && flag=--fusion
    p=m-sct
    [ "$6" = reserve ] && p=m-sct-reserve
    rm -f p.yaml
    set +e
    "$BAECHI" place -w "$1" -c paper-4gpu-pcie -p $p --threshold 1 --devices "$2" \
        --memory-fraction "$3" --grouper "$4" $flag -o p.yaml > out 2> err
    crc=$?
    set -e
    ref_known "$* exit $crc" "$1" p.yaml && return 0 # lib.sh: recorded verdicts
    python3 "$TOP/tests/ref/m_etf.py" "$1" "$2" $MEM "$3" "$4" "$5" "$6" sct1 > ref.json
    ref_compare p.yaml ref.json $crc "$*"
    ref_passed "$* exit $crc" "$1" p.yaml
}

test_expect_success 'm-SCT as the reference: GNMT 4 1 tf nofusion noreserve' '
    check "$GNMT" 4 1 tf nofusion noreserve
'

test_expect_success 'm-SCT as the reference: GNMT 2 0.3 tf nofusion noreserve' '
    check "$GNMT" 2 0.3 tf nofusion noreserve
'

test_expect_success 'm-SCT as the reference: GNMT 4 1 coplace fusion noreserve' '
    check "$GNMT" 4 1 coplace fusion noreserve
'

test_expect_success 'm-SCT as the reference: GNMT 2 0.3 tf nofusion reserve' '
    check "$GNMT" 2 0.3 tf nofusion reserve
'

test_expect_success 'm-SCT as the reference: GNMT 2 0.1 tf nofusion noreserve' '
    check "$GNMT" 2 0.1 tf nofusion noreserve
'

test_expect_success 'setup: a random DAG with control dependencies and groups' '
    ref_ctl_yaml ctl.yaml
'

test_expect_success 'm-SCT as the reference: ctl.yaml 4 1 tf nofusion noreserve' '
    check ctl.yaml 4 1 tf nofusion noreserve
'

test_expect_success 'm-SCT as the reference: ctl.yaml 4 1 coplace fusion noreserve' '
    check ctl.yaml 4 1 coplace fusion noreserve
'

test_expect_success 'm-SCT as the reference: ctl.yaml 4 0.02 tf nofusion reserve' '
    check ctl.yaml 4 0.02 tf nofusion reserve
'

test_done
