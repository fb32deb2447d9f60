# check: once
# t833-doc-numbers-auto.sh - the numbers of docs/auto.md's doc-numbers
# blocks (the original's placers on training graphs, the accounting table,
# the MobileNet-V2 and GNMT examples) are what the program gives now:
# scripts/doc-numbers.sh --check reruns their commands into a copy of the
# page and fails with the diff when a block differs (issue 31 item 9).  The
# fix is `make doc-numbers`, then rereading the prose around the block.  The
# rest of docs/auto.md records measurements of the search's development at
# named commits and is not rerun (the page says so).
. "$TOP/tests/cli/lib.sh"

test_expect_success 'the blocks of docs/auto.md are current' - <<'XEOF'
if ! BAECHI="$BAECHI" sh "$TOP/scripts/doc-numbers.sh" --check --cheap --doc auto.md > "$TMPDIR_TEST/dn.out" 2> "$TMPDIR_TEST/dn.err"; then
    cat "$TMPDIR_TEST/dn.out" "$TMPDIR_TEST/dn.err"
    echo "stale numbers: run 'make doc-numbers' and reread the prose around the blocks"
    exit 1
fi
XEOF

test_done
