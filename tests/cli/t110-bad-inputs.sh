# check: slow sanitized-only
# Malformed workload and cluster files (tests/data/bad/): each must fail with
# exit 2 and one message on stderr naming the file and the line
# ("file:LINE:") and matching the regex in tests/data/bad/EXPECT.  Workloads
# go through `baechi workload info`, clusters through `baechi sim -c`, ONNX
# models (o-*, made by scripts/make-bad-onnx.py) through `baechi workload
# import -o`, which must leave the existing output file as it was.
# Also: every file of the directory is listed in EXPECT.
. "$TOP/tests/cli/lib.sh"

BAD="$TOP/tests/data/bad"
SMALL="$TOP/tests/data/fmt-small.yaml"

# the good inputs pass, so a failure below is the bad file's
test_expect_success 'the good inputs pass' '
    expect_exit 0 "$BAECHI" workload info "$SMALL"
    expect_exit 0 "$BAECHI" sim -w "$SMALL" -c "$TOP/data/clusters/paper-4gpu-pcie.yaml" \
        --placement given
'

test_expect_success 'every file of tests/data/bad is listed in EXPECT' - <<'EOF'
failed=0
for path in "$BAD"/*; do
    f=$(basename "$path")
    [ "$f" = EXPECT ] && continue
    if ! grep -q "^$f " "$BAD/EXPECT"; then
        echo "FAIL $f: not listed in tests/data/bad/EXPECT"
        failed=$((failed + 1))
    fi
done
[ "$failed" -eq 0 ]
EOF

test_expect_success 'setup: the list of bad files' - <<'EOF'
grep -v '^#' "$BAD/EXPECT" | while read -r f line regex; do
    [ -n "$f" ] || continue
    echo "$f $line $regex"
done > "$TMPDIR_TEST/expect"
EOF

test_expect_success 'every bad file: exit 2, one line naming file:LINE: and matching EXPECT' - <<'EOF'
n=0
failed=0
while read -r f line regex; do
    n=$((n + 1))
    case "$f" in
    w-*) set -- "$BAECHI" workload info "$BAD/$f" ;;
    c-*) set -- "$BAECHI" sim -w "$SMALL" -c "$BAD/$f" --placement given ;;
    o-*) echo keep > "$TMPDIR_TEST/o.yaml"
         set -- "$BAECHI" workload import "$BAD/$f" -o "$TMPDIR_TEST/o.yaml" ;;
    *) echo "FAIL $f: name must start with w-, c- or o-"; failed=$((failed + 1)); continue ;;
    esac
    set +e
    "$@" > "$TMPDIR_TEST/out" 2> "$TMPDIR_TEST/err"
    rc=$?
    set -e
    fq=$(printf '%s' "$f" | sed 's/[.]/\\./g')
    if [ "$line" = "-" ]; then
        where="$fq: "
    else
        where="$fq:$line:[0-9]+: "
    fi
    if [ "$rc" -ne 2 ]; then
        echo "FAIL $f: exit $rc, expected 2"
        failed=$((failed + 1))
    elif ! grep -Eq -- "$where" "$TMPDIR_TEST/err"; then
        echo "FAIL $f: stderr lacks /$where/"
        failed=$((failed + 1))
    elif ! grep -Eq -- "$regex" "$TMPDIR_TEST/err"; then
        echo "FAIL $f: stderr lacks /$regex/"
        failed=$((failed + 1))
    elif [ "$(wc -l < "$TMPDIR_TEST/err")" -ne 1 ]; then
        echo "FAIL $f: expected one line on stderr"
        failed=$((failed + 1))
    elif [ "${f#o-}" != "$f" ] && [ "$(cat "$TMPDIR_TEST/o.yaml")" != keep ]; then
        echo "FAIL $f: the existing -o file was changed"
        failed=$((failed + 1))
    else
        continue
    fi
    sed 's/^/    | /' "$TMPDIR_TEST/err"
done < "$TMPDIR_TEST/expect" > "$TMPDIR_TEST/report"

cat "$TMPDIR_TEST/report"
if grep -q '^FAIL' "$TMPDIR_TEST/report" || [ "$failed" -ne 0 ]; then
    exit 1
fi
echo "$(wc -l < "$TMPDIR_TEST/expect") bad inputs rejected as expected"
EOF

test_expect_success 'at least 30 bad files' '
    count=$(wc -l < "$TMPDIR_TEST/expect")
    if [ "$count" -lt 30 ]; then
        echo "FAIL only $count bad files (want >= 30)"
        exit 1
    fi
'

test_done
