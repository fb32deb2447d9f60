# check: slow once
# t642-bench-sim.sh - `baechi bench sim` prints events/s of both models on
# GNMT and the 1M-op chain, and compares them with every build of a
# baseline file (a ratio per figure); bad options and files fail clearly.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

cat > base.json <<'JSON'
{"machine": "test", "builds": [
  {"build": "slow build", "gnmt_baechi": 1000, "gnmt_timed": 1000,
   "chain_1m_baechi": 1000, "chain_1m_timed": 1000},
  {"build": "partial build", "gnmt_timed": 2000, "other": "ignored"}]}
JSON

test_expect_success 'four figures, then a ratio for each stored figure' '
    cd "$TOP" && expect_exit 0 "$BAECHI" bench sim --reps 3 --baseline "$TMPDIR_TEST/base.json" &&
    for f in gnmt_baechi gnmt_timed chain_1m_baechi chain_1m_timed; do
        expect_grep "^  $f .* ms .* M events/s$" "$TMPDIR_TEST/out" || exit 1
    done &&
    expect_grep "^  slow build$" "$TMPDIR_TEST/out" &&
    expect_grep "^  partial build$" "$TMPDIR_TEST/out" &&
    [ "$(grep -c "ratio" "$TMPDIR_TEST/out")" -eq 5 ] &&
    # 1000 events/s stored: every ratio is far above 1
    ! grep -E "ratio 0\.[0-9]+$" "$TMPDIR_TEST/out"
'

test_expect_success 'the shipped baseline reads' '
    cd "$TOP" && expect_exit 0 "$BAECHI" bench sim --reps 1 &&
    expect_grep "data/bench/baseline.json" "$TMPDIR_TEST/out" &&
    expect_grep "^  earlier: " "$TMPDIR_TEST/out"
'

test_expect_success 'a baseline without builds: exit 2 naming the file' '
    echo "{\"machine\": 1}" > nobuilds.json &&
    expect_exit 2 "$BAECHI" bench sim --reps 1 --baseline nobuilds.json &&
    expect_grep "nobuilds.json: expected \"builds\"" "$TMPDIR_TEST/err"
'

test_expect_success 'bad --reps: exit 2' '
    expect_exit 2 "$BAECHI" bench sim --reps 0 &&
    expect_grep "reps" "$TMPDIR_TEST/err"
'

# bench scale (issue 30 item 6's target): run's bound against sim at scale;
# the numbers are timings (make bench), the test only that it measures
test_expect_success 'bench scale --quick: dp 64 and 256, a run/sim ratio each' - <<'EOF'
expect_exit 0 "$BAECHI" bench scale --quick
[ "$(grep -Ec "^  dp +(64|256) on +(64|256) GPUs \( *[0-9]+ ops, step [1-9][0-9]* us\) +sim +[0-9.]+ ms CPU +bound +[0-9.]+ ms CPU +run/sim [0-9.]+x$" "$TMPDIR_TEST/out")" = 2 ]
EOF

test_done
