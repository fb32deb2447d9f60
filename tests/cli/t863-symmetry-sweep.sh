# check: slow once
# Replica symmetry against the exact graph on random layouts
# (scripts/symmetry-sweep.py, docs/symmetry.md; issue 32 item 2): twelve
# layouts up to 256 GPUs (seed 7), step and every device's peak, busy time
# and op count within 0.5 % (measured: 0 %), twelve with TP 2 or more and
# DP from 1, six ZeRO-3, and GPT-3 widths (exact on eight, the limit on 24);
# the doc's sweep lines are the script's.
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"

test_expect_success 'twelve random layouts agree within 0.5 %' - <<'EOF2'
mkdir -p wd
python3 "$TOP/scripts/symmetry-sweep.py" "$BAECHI" 7 12 wd > sweep.txt
cat sweep.txt
expect_grep '^worst 0\.0000 %' sweep.txt
test "$(grep -c ' % step ' sweep.txt)" -ge 10
EOF2

test_expect_success 'ZeRO-3 with TP: six random layouts agree' - <<'EOF2'
mkdir -p wd3
python3 "$TOP/scripts/symmetry-sweep.py" "$BAECHI" 11 6 wd3 zero=3 sp=0 tp-min=2 > z3.txt
cat z3.txt
expect_grep '^worst 0\.0000 %' z3.txt
EOF2

test_expect_success 'TP symmetry, DP 1 too: twelve random layouts agree' - <<'EOF2'
mkdir -p wdt
python3 "$TOP/scripts/symmetry-sweep.py" "$BAECHI" 3 12 wdt tp-min=2 dp-min=1 > tp.txt
cat tp.txt
expect_grep '^worst 0\.0000 %' tp.txt
test "$(grep -c 'TP ranks 0, T-1\]$' tp.txt)" -ge 8
EOF2

# GPT-3 widths (docs/symmetry.md): tied DDP and TP collectives, exact with a
# representative per class; the three of 24 layouts of seed 9 that are not
# (one micro-batch, pipelines: TP rank T-2 runs differently there) are the
# limit the doc states (the script exits 1 above 0.5 %)
test_expect_success 'GPT-3 widths: eight layouts agree, and the limit the doc quotes' - <<'EOF2'
mkdir -p wdw
python3 "$TOP/scripts/symmetry-sweep.py" "$BAECHI" 5 8 wdw wide=1 > wide.txt
cat wide.txt
expect_grep '^worst 0\.0000 %' wide.txt
python3 "$TOP/scripts/symmetry-sweep.py" "$BAECHI" 9 24 wdw wide=1 > wide9.txt || true
cat wide9.txt
line=$(tail -1 wide9.txt)
test "$line" = 'worst 6.7162 % (dp 3 tp 8 pp 4 zero 0 mb 1 (GPT-3 widths) on dgx-h100-superpod-1k [TP ranks 0, T-1]); 0 of 24 layouts refused as not symmetric; 24 with TP ranks 0 and T-1 alone'
grep -qF "$line" "$TOP/docs/symmetry.md"
test "$(awk '$2 == "%" && $1 + 0 > 0' wide9.txt | wc -l)" = 3
EOF2

test_expect_success 'ZeRO-3 with --sp (once refused): twenty random layouts agree' - <<'EOF2'
mkdir -p wds
python3 "$TOP/scripts/symmetry-sweep.py" "$BAECHI" 13 20 wds zero=3 sp=1 tp-min=2 > zs.txt
cat zs.txt
expect_grep '^worst 0\.0000 % .*; 1 of 20 layouts refused as not symmetric' zs.txt
EOF2

test_expect_success 'docs/symmetry.md quotes the sweeps it ran' - <<'EOF2'
expect_grep 'scripts/symmetry-sweep.py build/baechi 1 100' "$TOP/docs/symmetry.md"
expect_grep 'symmetry-sweep.py build/baechi 11 40 wd zero=3' "$TOP/docs/symmetry.md"
expect_grep 'symmetry-sweep.py build/baechi 9 24 wd wide=1' "$TOP/docs/symmetry.md"
expect_grep 'symmetry-sweep.py build/baechi 13 20 wd zero=3 sp=1' "$TOP/docs/symmetry.md"
expect_grep 'symmetry-sweep.py build/baechi 3 40 wd tp-min=2' "$TOP/docs/symmetry.md"
EOF2

test_done
