# check: slow once
# t921-doc-numbers-scaling.sh - the numbers of `make demo`'s scaling study
# that docs/scaling.md quotes (block scaling-demo: scripts/scaling-study.py
# --preset demo, 14 points, about 10 s of CPU) are what the program gives
# now: scripts/doc-numbers.sh --check reruns the block into a copy of the
# page and fails with the diff when it differs (issue 32 item 5).  The fix is
# `scripts/doc-numbers.sh scaling-demo`, then rereading the prose around it.
# The study's own table (block scaling-table, about half an hour of CPU) is
# left to `make doc-numbers`.
. "$TOP/tests/cli/lib.sh"

test_expect_success 'the cheap block of docs/scaling.md is current' - <<'XEOF'
if ! BAECHI="$BAECHI" sh "$TOP/scripts/doc-numbers.sh" --check --cheap --doc scaling.md > "$TMPDIR_TEST/dn.out" 2> "$TMPDIR_TEST/dn.err"; then
    cat "$TMPDIR_TEST/dn.out" "$TMPDIR_TEST/dn.err"
    echo "stale numbers: run 'scripts/doc-numbers.sh scaling-demo' and reread the prose around the block"
    exit 1
fi
XEOF

test_done
