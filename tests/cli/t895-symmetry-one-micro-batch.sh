# check: once
# Replica symmetry with one micro-batch and a pipeline (issue 32 item 2,
# docs/symmetry.md "One micro-batch"): there the exact graph's TP ranks run
# in more classes than TP ranks 0 and T-1 stand for (TP rank T-2 is the last
# of its group to be ready when rank T-1 runs ahead, and the difference
# cascades to T-3 and further: GPT-3 widths were 3.1-6.7 % below the exact
# step), so `--symmetric` writes every TP rank there (replicas 0 and D-1
# still stand for the others) and says so in one line on stderr.  Three
# layouts that disagreed before (two of symmetry-sweep.py's seed 9, one of
# seed 1) now agree with the exact graph: step and every device's peak,
# busy time and op count (measured 0 %; the check allows 0.5 %); with
# micro-batches, or with TP 2, TP symmetry stays.
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"

w="workload gen gpt --d-model 12288 --heads 96 --seq 2048 --vocab 50257 --device h100:bf16 --elem-bytes 2 --optimizer adam --mixed-precision --dropout 0"

# agree NAME GEN-OPTIONS: exact and symmetric sim --json within 0.5 %
agree() {
    "$BAECHI" $w $2 -o e$1.yaml > /dev/null 2>&1
    "$BAECHI" $w $2 --symmetric -o s$1.yaml > /dev/null 2> s$1.err
    "$BAECHI" sim -w e$1.yaml -c dgx-h100-superpod-1k --placement given --json > e$1.json
    "$BAECHI" sim -w s$1.yaml -c dgx-h100-superpod-1k --placement given --json > s$1.json
    python3 - e$1.json s$1.json <<'PY'
import json, sys
e, s = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert s["symmetry"]["replicas"] > 1 and s["n_ops"] < e["n_ops"]
worst = abs(e["step_us"] - s["step_us"]) / e["step_us"]
for a, b in zip(e["devices"], s["devices"]):
    for k in ("peak_bytes", "busy_us", "n_ops"):
        worst = max(worst, abs(a[k] - b[k]) / max(a[k], 1))
print("step", e["step_us"], s["step_us"], "worst", worst)
assert worst <= 0.005, worst
PY
}

# layouts symmetry-sweep.py drew (build/baechi 9 24 wd wide=1: 3.1 % and
# 6.7 % before; 1 24 wd wide=1: 5.4 %)
while read -r name opts; do
    test_expect_success "$name: $opts, one micro-batch: every TP rank written, equal" - <<EOF2
agree $name "--batch 1 $opts"
test "\$(grep -c . s$name.err)" = 1
expect_grep '^baechi: warning: --symmetric: one micro-batch with a pipeline and TP [48]: every TP rank written \(replicas 0 and D-1 stand for the others' s$name.err
grep -q '^  tp: 1$' s$name.yaml
python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))["symmetry"]; assert s["tp"] == 1 and s["stride"] > 1, s' s$name.json
EOF2
done <<'CASES'
a --layers 4 --dp 6 --tp 4 --pp 2
b --layers 8 --dp 3 --tp 8 --pp 4
d --layers 4 --dp 8 --tp 4 --pp 4
CASES

test_expect_success 'every TP rank of replicas 0 and D-1 written' - <<'EOF2'
# dp 6 x tp 4 x pp 2: ranks t + 4 (d + 6 p) for every t, d in 0, 5
test "$(sed -n 's/^- {name: r\([0-9]*\)\/.*/\1/p' sa.yaml | sort -un | tr '\n' ' ')" = "0 1 2 3 20 21 22 23 24 25 26 27 44 45 46 47 "
EOF2

test_expect_success 'with micro-batches, or TP 2: TP symmetry, no warning' - <<'EOF2'
agree m "--batch 2 --micro-batches 2 --layers 4 --dp 3 --tp 4 --pp 2"
test ! -s sm.err
grep -q '^  tp: 4$' sm.yaml
agree t "--batch 1 --layers 4 --dp 4 --tp 2 --pp 2"
test ! -s st.err
grep -q '^  tp: 2$' st.yaml
EOF2

test_done
