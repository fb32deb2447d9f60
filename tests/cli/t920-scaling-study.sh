# check: once
# t920-scaling-study.sh - the scaling study (scripts/scaling-study.py,
# docs/scaling.md; issue 32 item 5) at a reduced model size: GPT-3 175B and
# Llama 2 70B widths with 4 layers, global batch 64, TP 8 x PP 4 and TP 4 x
# PP 4 on 256, 512 and 1,024 GPUs (a second or two).  The CSV has the
# documented columns, the GPU counts grow along each layout, every number is
# in its range (0 < MFU < 1, the exposed share in [0, 1), the step with free
# communication no longer than the step, tokens/s/GPU the global batch's
# tokens over step and GPUs), and each model's figure passes the data checks
# of scripts/check-figures.py (and exists as a PNG where gnuplot does).
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

test_expect_success 'setup: the reduced study runs' - <<'EOF2'
python3 "$TOP/scripts/scaling-study.py" --baechi "$BAECHI" --out s --layers 4 \
    --global-batch 64 --gpus 1024,256,512 --layouts 8x4,4x4 > study.out 2>&1 ||
    { cat study.out; exit 1; }
test -s s/scaling.csv
EOF2

test_expect_success 'the CSV: columns, GPU counts, ranges' - <<'EOF2'
python3 - s/scaling.csv "$TOP/scripts/scaling-study.py" <<'PY'
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cols = ("model layers gpus tp pp dp micro_batches micro_batch_size global_batch seq ops step_s "
        "step_comm_free_s tokens_per_s_per_gpu mfu tflops_per_gpu megatron_tflops_per_gpu "
        "peak_gib exposed_comm_share fits").split()
assert list(rows[0]) == cols, list(rows[0])
# the script's documentation lists the same columns
doc = open(sys.argv[2]).read()
listed = re.findall(r"^  ([a-z0-9_]+) +\S", doc.split("Columns of scaling.csv")[1].split("Model FLOPs")[0], re.M)
assert listed == cols, listed
assert len(rows) == 12, len(rows)
lines = {}
for r in rows:
    lines.setdefault((r["model"], r["tp"], r["pp"]), []).append(int(r["gpus"]))
    g, tp, pp, dp = (int(r[k]) for k in ("gpus", "tp", "pp", "dp"))
    assert tp * pp * dp == g, r
    assert int(r["micro_batches"]) * int(r["micro_batch_size"]) * dp == int(r["global_batch"]), r
    assert r["fits"] in ("yes", "no"), r
    step, free = float(r["step_s"]), float(r["step_comm_free_s"])
    assert 0 < free <= step, r
    mfu, share = float(r["mfu"]), float(r["exposed_comm_share"])
    assert 0 < mfu < 1, r
    assert 0 <= share < 1 and abs(share - (step - free) / step) < 1e-3, r
    tok = int(r["global_batch"]) * int(r["seq"]) / step / g
    assert abs(float(r["tokens_per_s_per_gpu"]) - tok) <= 0.05 + tok * 2e-3, (r, tok)
    assert float(r["peak_gib"]) > 0 and int(r["ops"]) > 0, r
for k, v in lines.items():
    assert v == sorted(v) and len(set(v)) == len(v) == 3, (k, v)
assert {k[0] for k in lines} == {"gpt3-175b", "llama2-70b"}
PY
EOF2

test_expect_success 'the figures pass the data checks' - <<'EOF2'
python3 "$TOP/scripts/check-figures.py" s > check.out || { cat check.out; exit 1; }
grep -q '^ok   scaling-gpt3-175b (scaling-study)$' check.out
grep -q '^ok   scaling-llama2-70b (scaling-study)$' check.out
EOF2

if command -v gnuplot > /dev/null 2>&1; then
    test_expect_success 'the figures are drawn' '
        test -s s/scaling-gpt3-175b.png && test -s s/scaling-llama2-70b.png
    '
else
    test_skip 'the figures are drawn' 'no gnuplot'
fi

test_expect_success 'a bad option is refused with exit 2' '
    expect_exit 2 python3 "$TOP/scripts/scaling-study.py" --baechi "$BAECHI" --models gpt-4 &&
    expect_grep "unknown model .gpt-4." "$TMPDIR_TEST/err"
'

test_expect_success 'a CSV whose field would reach gnuplot as a command is refused (file:line)' - <<'EOF2'
# --from-csv writes gnuplot scripts from the CSV's fields: a quote in tp
# would close the title's string and run system()
python3 - s/scaling.csv bad.csv <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
rows[2]["tp"] = "8' ; system('touch pwned') ; print '"
with open(sys.argv[2], "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
PY
expect_exit 2 python3 "$TOP/scripts/scaling-study.py" --from-csv bad.csv --csv-only --out bad
expect_grep "bad.csv:4: tp: expected a number" "$TMPDIR_TEST/err"
test ! -e pwned && test ! -e bad/work/scaling-gpt3-175b.gp
EOF2

test_done
