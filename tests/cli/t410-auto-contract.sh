# check: slow
# t410-auto-contract.sh - the `auto` placer's contract (issue 10) on a reduced
# placement benchmark: in every cell auto is feasible wherever any placer
# gives a placement the timed simulator runs without running out of memory,
# never out of memory itself (either model), never slower than the best
# other placer; exit 3 naming device, bytes and ops where nothing fits;
# byte-identical placements for the same seed and budget.
. "$TOP/tests/cli/lib.sh"

# the reduced benchmark (its own per-cell check, and the summary)
expect_exit 0 "$BAECHI" bench placement --workload gnmt-fwd --workload transformer \
    --workload mobilenet-v2 --workload gpt-medium --fractions 1,0.3,0.2,0.1 --budget-ms 100
out="$TMPDIR_TEST/out"
if grep -q FAIL "$out"; then
    echo "a cell breaks the contract:"; cat "$out"; exit 1
fi
expect_grep '^summary over 16 cells' "$out"
expect_grep 'auto out of memory \(either model\): 0 cells' "$out"
python3 - "$out" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
m = re.search(r"feasible where any placer is \(non-OOM\): (\d+) / (\d+)", t)
assert m and m.group(1) == m.group(2) and int(m.group(2)) >= 12, m and m.group(0)
m = re.search(r"<= the best other placer \(timed\): (\d+) / (\d+)", t)
assert m and m.group(1) == m.group(2), m and m.group(0)
# GNMT at full memory: below the expert placement (timed)
row = [l.split() for l in t.splitlines() if l.startswith("gnmt-fwd") and l.split()[2] == "1"][0]
head = [l.split() for l in t.splitlines() if l.startswith("workload")][0]
expert, auto = float(row[head.index("expert")]), float(row[head.index("auto")])
assert auto < expert, (auto, expert)
PY

# one cell checked independently through `baechi run --json`
"$BAECHI" workload gen transformer --size base -b 64 -o "$TMPDIR_TEST/tfm.yaml" > /dev/null 2>&1
for p in m-topo m-topo-nonuniform m-etf m-etf-reserve m-sct m-sct-reserve paper single \
    round-robin random auto; do
    set +e
    "$BAECHI" run -w "$TMPDIR_TEST/tfm.yaml" -c paper-4gpu-pcie -p "$p" --memory-fraction 0.3 \
        --json --budget-ms 100 > "$TMPDIR_TEST/$p.json" 2> /dev/null
    set -e
done
python3 - "$TMPDIR_TEST" <<'PY'
import json, os, sys
d = sys.argv[1]
best = None
for f in sorted(os.listdir(d)):
    if not f.endswith(".json") or f == "auto.json":
        continue
    j = json.load(open(os.path.join(d, f)))
    if j["feasible"] and not j["sim"]["timed"]["oom"]:
        s = j["sim"]["timed"]["step_us"]
        best = s if best is None else min(best, s)
a = json.load(open(os.path.join(d, "auto.json")))
assert best is not None
assert a["feasible"], a
assert not a["sim"]["timed"]["oom"] and not a["sim"]["baechi"]["oom"], "auto out of memory"
assert a["sim"]["timed"]["step_us"] <= best, (a["sim"]["timed"]["step_us"], best)
assert abs(a["bound_ratio"] - a["sim"]["timed"]["step_us"] / a["lower_bound_us"]) < 1e-5
PY

# nothing fits: exit 3, naming the device, the bytes and the ops
expect_exit 3 "$BAECHI" place -w "$TMPDIR_TEST/tfm.yaml" -c paper-4gpu-pcie -p auto \
    --memory-fraction 0.1 --budget-ms 20
expect_grep "auto: no placement fits: device [0-9]+ '[^']+' needs [0-9]+ bytes more than its limit" \
    "$TMPDIR_TEST/err"
expect_grep "ops that could not fit there: '" "$TMPDIR_TEST/err"

# determinism: same seed and budget, byte-identical placement files; a bad budget is rejected
for i in 1 2; do
    expect_exit 0 "$BAECHI" place -w "$GNMT" -c paper-4gpu-pcie -p auto --budget-ms 50 \
        --seed 5 -o "$TMPDIR_TEST/p$i.yaml"
done
cmp "$TMPDIR_TEST/p1.yaml" "$TMPDIR_TEST/p2.yaml"
expect_grep "budget_ms: 50, seed: 5" "$TMPDIR_TEST/p1.yaml"
expect_exit 2 "$BAECHI" place -w "$GNMT" -c paper-4gpu-pcie -p auto --budget-ms -1
"$BAECHI" place --list | grep -q '^  auto '
