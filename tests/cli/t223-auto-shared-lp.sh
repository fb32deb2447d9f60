# t223-auto-shared-lp.sh - auto's m-SCT candidates (issue 22): m-SCT and
# m-SCT-reserve of one configuration build the same LP, which auto solves
# once per configuration (placers/lp_memo.h) and charges once: its
# lp_iterations are the two distinct LPs' iterations, not four solves'.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

test_expect_success 'setup: a small Transformer' '
    "$BAECHI" workload gen transformer --forward-only --layers 2 -o t.yaml 2>/dev/null
'

lp() { # lp PLACER [OPTIONS]: the placement's LP as "value iterations rows cols nonzeros"
    p=$1
    shift
    "$BAECHI" run -w t.yaml -c paper-4gpu-pcie -p "$p" "$@" --json 2>/dev/null |
        python3 -c 'import sys, json
l = json.load(sys.stdin)["lp"]
print(l["makespan_us"], l["iterations"], l["rows"], l["cols"], l["nonzeros"])'
}

test_expect_success 'm-sct and m-sct-reserve solve the same LP, in both configurations' - <<'EOF2'
lp m-sct > a0
lp m-sct-reserve > a1
cmp a0 a1
lp m-sct --grouper coplace --fusion > b0
lp m-sct-reserve --grouper coplace --fusion > b1
cmp b0 b1
! cmp -s a0 b0
EOF2

test_expect_success 'auto charges each distinct LP once' - <<'EOF2'
"$BAECHI" run -w t.yaml -c paper-4gpu-pcie -p auto --json 2>/dev/null > auto.json
python3 - a0 b0 <<'PY'
import json, sys
st = json.load(open("auto.json"))["placement_stats"]
want = sum(int(open(f).read().split()[1]) for f in sys.argv[1:])
assert st["skipped_candidates"] == 0, st
assert st["lp_iterations"] == want, (st["lp_iterations"], want)
PY
EOF2

test_done
