# check: slow once
# t832-doc-numbers-workloads.sh - the numbers the workloads table
# (docs/workloads.md) and the sequence-parallel example (docs/parallelism.md)
# quote are what the program gives now:
# scripts/doc-numbers.sh --check reruns the
# commands of every cheap block into a copy of the page and fails with the
# diff when a block differs (issue 31 item 9).  The fix is `make
# doc-numbers`, then rereading the prose around the block.  Blocks marked
# "slow" in the script (auto's searches, the demo's sweeps) are left to
# `make doc-numbers`; the page says which.
. "$TOP/tests/cli/lib.sh"

test_expect_success 'the cheap blocks are current' - <<'XEOF'
if ! BAECHI="$BAECHI" sh "$TOP/scripts/doc-numbers.sh" --check --cheap --doc workloads.md --doc parallelism.md > "$TMPDIR_TEST/dn.out" 2> "$TMPDIR_TEST/dn.err"; then
    cat "$TMPDIR_TEST/dn.out" "$TMPDIR_TEST/dn.err"
    echo "stale numbers: run 'make doc-numbers' and reread the prose around the blocks"
    exit 1
fi
XEOF

test_done
