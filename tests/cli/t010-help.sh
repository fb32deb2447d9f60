# Every command and verb answers --help on stdout with exit 0; unknown
# commands, verbs and options are named, with exit 2 (git t0012-help.sh).
. "$TOP/tests/cli/lib.sh"

test_expect_success 'baechi --help: usage and the commands' '
    expect_exit 0 "$BAECHI" --help
    expect_grep "^usage: baechi" "$TMPDIR_TEST/out"
    cp "$TMPDIR_TEST/out" "$TMPDIR_TEST/help"
    cmds=$(sed -n "s/^    \([a-z][a-z-]*\)  .*/\1/p" "$TMPDIR_TEST/help")
    [ -n "$cmds" ] || { echo "no commands listed"; exit 1; }
'
cmds=$(sed -n 's/^    \([a-z][a-z-]*\)  .*/\1/p' "$TMPDIR_TEST/help" 2> /dev/null || :)
for c in $cmds; do
    test_expect_success "baechi $c --help, and each of its verbs" - <<'EOF'
expect_exit 0 "$BAECHI" "$c" --help
expect_grep 'usage' "$TMPDIR_TEST/out"
# Nested verbs (baechi workload info ...) each have their own help too.
verbs=$(sed -n '/^verbs:/,/^$/s/^    \([a-z][a-z-]*\)  .*/\1/p' "$TMPDIR_TEST/out")
for v in $verbs; do
    expect_exit 0 "$BAECHI" "$c" "$v" --help
    expect_grep "^usage: baechi $c $v" "$TMPDIR_TEST/out"
done
EOF
done

test_expect_success 'an unknown command is named, exit 2' - <<'EOF'
expect_exit 2 "$BAECHI" frobnicate
expect_grep "'frobnicate' is not a baechi command" "$TMPDIR_TEST/err"
EOF
test_expect_success 'no command: exit 2' '
    expect_exit 2 "$BAECHI"
'
test_expect_success 'an unknown verb is named, exit 2' - <<'EOF'
expect_exit 2 "$BAECHI" workload frob
expect_grep "'frob' is not a verb" "$TMPDIR_TEST/err"
EOF
test_expect_success 'an unknown option is named, exit 2' - <<'EOF'
expect_exit 2 "$BAECHI" workload info --bogus x.yaml
expect_grep "unrecognized option '--bogus'" "$TMPDIR_TEST/err"
EOF
test_expect_success 'an option without its value: exit 2' '
    expect_exit 2 "$BAECHI" workload info --devices
    expect_grep "needs a value" "$TMPDIR_TEST/err"
'
test_expect_success 'a value that is not an integer: exit 2' '
    expect_exit 2 "$BAECHI" workload info --devices zero "$GNMT"
    expect_grep "integer" "$TMPDIR_TEST/err"
'
test_expect_success 'baechi --version' '
    expect_exit 0 "$BAECHI" --version
'

# One version (issue 33 item 4): the program, the library (Python's
# baechi.version()) and the public header name the same one.
test_expect_success 'one version: --version, baechi.version() and include/baechi.h agree' - <<'EOF2'
"$BAECHI" --version > "$TMPDIR_TEST/version"
prog=$(sed -n 's/^baechi \([0-9][0-9.]*\) .*/\1/p' "$TMPDIR_TEST/version")
hdr=$(awk '/define BAECHI_API_MAJOR/ {ma=$3} /define BAECHI_API_MINOR/ {mi=$3} END {print ma "." mi}' \
    "$TOP/include/baechi.h")
lib="$(dirname "$BAECHI")/libbaechi.so"
# A sanitized library cannot be loaded into an unsanitized Python (ASan
# must come first in the process); the plain run of this test checks it.
if [ ! -e "$lib" ] || ldd "$lib" 2> /dev/null | grep -q 'libasan\|libtsan'; then
    py=$prog
    echo "python: not checked against a sanitized library (the plain run checks it)"
else
    py=$(BAECHI_LIB="$lib" PYTHONPATH="$TOP/python" \
        python3 -c "import baechi; print(baechi.version().split()[0])")
fi
man=$(sed -n 's/^\.TH BAECHI 1 .* "baechi-c \([0-9.]*\)" .*/\1/p' "$TOP/baechi.1")
echo "program $prog, header $hdr, python $py, man page $man"
[ -n "$prog" ] && [ "$prog" = "$hdr" ] && [ "$prog" = "$py" ] && [ "$prog" = "$man" ]
EOF2

test_done
