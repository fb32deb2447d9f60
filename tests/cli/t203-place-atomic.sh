# Outputs are never half-written (cli/cmd.c cmd_write_file): a write that
# fails leaves the file that was there, loadable, and no temporary file; a
# device such as /dev/full is written as it is and its error reported.
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"

test_expect_success 'setup: a placement file' '
    expect_exit 0 "$BAECHI" place -w "$GNMT" -c paper-4gpu-pcie -p m-etf -o good.yaml
    cp good.yaml before.yaml
'

# 20 blocks (10 KiB) is far less than a GNMT placement file (~170 KiB).
test_expect_success 'a write past the file-size limit leaves the file that was there, no temporary' - <<'EOF'
set +e
(ulimit -f 20; "$BAECHI" place -w "$GNMT" -c paper-4gpu-pcie -p m-topo -o good.yaml) \
    > out 2> err
rc=$?
set -e
# exit 1, a failure of the machine, not of the input (issue 30 item 7)
[ "$rc" -eq 1 ] || { echo "expected exit 1 past the file-size limit, got $rc"; cat err; exit 1; }
expect_grep "^baechi: error writing 'good.yaml': File too large$" err
cmp good.yaml before.yaml || { echo "the earlier placement file was changed"; exit 1; }
[ "$(ls | grep -c 'good.yaml.tmp')" -eq 0 ] || { echo "temporary file left behind"; ls; exit 1; }
expect_exit 0 "$BAECHI" sim -w "$GNMT" -c paper-4gpu-pcie --placement good.yaml
expect_grep 'placer m-etf' "$TMPDIR_TEST/out"
EOF

# A successful write replaces the file, with the usual permissions.
umask 022

test_expect_success 'a successful write replaces the file, mode 644' - <<'EOF'
expect_exit 0 "$BAECHI" place -w "$GNMT" -c paper-4gpu-pcie -p m-topo -o good.yaml
expect_grep '^placer: m-topo' good.yaml
[ "$(stat -c %a good.yaml)" = 644 ] || { echo "mode $(stat -c %a good.yaml), not 644"; exit 1; }
EOF

# Traces and generated workloads go the same way.
test_expect_success 'setup: a generated workload' '
    expect_exit 0 "$BAECHI" workload gen synthetic --ops 50 -o w.yaml
'

test_expect_success 'a workload written past the limit leaves the file that was there' - <<'EOF'
set +e
(ulimit -f 1; "$BAECHI" workload gen synthetic --ops 5000 -o w.yaml) > out 2> err
rc=$?
set -e
[ "$rc" -eq 1 ] || { echo "expected exit 1 past the file-size limit, got $rc"; exit 1; }
expect_grep "^baechi: error writing 'w.yaml': File too large$" err
[ "$(ls | grep -c 'w.yaml.tmp')" -eq 0 ] || { echo "temporary file left behind"; ls; exit 1; }
expect_exit 0 "$BAECHI" workload info w.yaml
expect_grep 'ops +50 ' "$TMPDIR_TEST/out"
EOF

test_expect_success '/dev/full is written as it is and its error reported' - <<'EOF'
if [ -w /dev/full ]; then
    expect_exit 1 "$BAECHI" place -w "$GNMT" -c paper-4gpu-pcie -p m-etf -o /dev/full
    expect_grep "^baechi: error writing '/dev/full': No space left on device$" "$TMPDIR_TEST/err"
    [ -c /dev/full ] || { echo "/dev/full is no longer a device"; exit 1; }
fi
EOF

test_done
