# Every command and verb answers --help on stdout with exit 0; unknown
# commands, verbs and options are named, with exit 2 (git t0012-help.sh).
. "$TOP/tests/cli/lib.sh"

expect_exit 0 "$BAECHI" --help
expect_grep '^usage: baechi' "$TMPDIR_TEST/out"
cmds=$(sed -n 's/^    \([a-z][a-z-]*\)  .*/\1/p' "$TMPDIR_TEST/out")
[ -n "$cmds" ] || { echo "no commands listed"; exit 1; }
for c in $cmds; do
    expect_exit 0 "$BAECHI" "$c" --help
    expect_grep 'usage' "$TMPDIR_TEST/out"
    # Nested verbs (baechi workload info ...) each have their own help too.
    verbs=$(sed -n '/^verbs:/,/^$/s/^    \([a-z][a-z-]*\)  .*/\1/p' "$TMPDIR_TEST/out")
    for v in $verbs; do
        expect_exit 0 "$BAECHI" "$c" "$v" --help
        expect_grep "^usage: baechi $c $v" "$TMPDIR_TEST/out"
    done
done

expect_exit 2 "$BAECHI" frobnicate
expect_grep "'frobnicate' is not a baechi command" "$TMPDIR_TEST/err"
expect_exit 2 "$BAECHI"
expect_exit 2 "$BAECHI" workload frob
expect_grep "'frob' is not a verb" "$TMPDIR_TEST/err"
expect_exit 2 "$BAECHI" workload info --bogus x.yaml
expect_grep "unrecognized option '--bogus'" "$TMPDIR_TEST/err"
expect_exit 2 "$BAECHI" workload info --devices
expect_grep "needs a value" "$TMPDIR_TEST/err"
expect_exit 2 "$BAECHI" workload info --devices zero "$GNMT"
expect_grep "integer" "$TMPDIR_TEST/err"
expect_exit 0 "$BAECHI" --version
