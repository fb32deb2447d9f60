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
    set +e
    "$BAECHI" place -w "$1" -c paper-4gpu-pcie -p $p --threshold 1 --devices "$2" \
        --memory-fraction "$3" --grouper "$4" $flag -o p.yaml > out 2> err
    crc=$?
    set -e
    python3 "$TOP/tests/ref/m_etf.py" "$1" "$2" $MEM "$3" "$4" "$5" "$6" sct1 > ref.json
    python3 - p.yaml ref.json $crc "$*" <<'PY'
import json, sys, yaml
ref = json.load(open(sys.argv[2]))
crc = int(sys.argv[3])
what = sys.argv[4]
if "infeasible" in ref:
    assert crc == 3, (what, "reference infeasible, baechi exit", crc, ref)
    sys.exit(0)
assert crc == 0, (what, "baechi exit", crc, "reference feasible")
c = yaml.safe_load(open(sys.argv[1]))
assert c["stats"]["estimate_us"] == ref["estimate_us"], (what, c["stats"]["estimate_us"], ref["estimate_us"])
diff = [k for k, d in c["devices"].items() if ref["devices"][k] != d]
assert not diff and len(c["devices"]) == len(ref["devices"]), (what, len(diff), diff[:3])
PY
}

check "$GNMT" 4 1 tf nofusion noreserve
check "$GNMT" 2 0.3 tf nofusion noreserve
check "$GNMT" 4 1 coplace fusion noreserve
check "$GNMT" 2 0.3 tf nofusion reserve
check "$GNMT" 2 0.1 tf nofusion noreserve

expect_exit 0 "$BAECHI" workload gen synthetic --shape random --ops 300 --seed 5 -o syn.yaml
python3 - syn.yaml ctl.yaml <<'PY'
import sys, yaml
w = yaml.safe_load(open(sys.argv[1]))
for i, op in enumerate(w["ops"]):
    if i >= 5 and i % 3 == 0:
        op.setdefault("inputs", []).extend(["^op%d" % (i - 5), "^op%d" % (i - 1)])
    if i % 5 == 0:
        op["group"] = "g%d" % (i // 25)
yaml.safe_dump(w, open(sys.argv[2], "w"), default_flow_style=None, width=1000)
PY
check ctl.yaml 4 1 tf nofusion noreserve
check ctl.yaml 4 1 coplace fusion noreserve
check ctl.yaml 4 0.02 tf nofusion reserve
