# check: once
# t880-infeasible-long-names.sh - the messages of an infeasible placement
# name their ops whole at any length (issue 34 item 3): m-ETF's "largest
# there" and auto's "ops that could not fit there" were built in a char[512]
# and cut a 300-byte op name mid-word, dropping the ops after it.
. "$TOP/tests/cli/lib.sh"

P=$(printf 'x%.0s' $(seq 300))

test_expect_success 'setup: Inception-V3 training, every Conv2d_ op name 300 bytes longer' '
    "$BAECHI" workload gen inception-v3 -b 64 --device rtx2080 -o "$TMPDIR_TEST/inc.yaml" > /dev/null &&
    sed "s/Conv2d_/${P}Conv2d_/g" "$TMPDIR_TEST/inc.yaml" > "$TMPDIR_TEST/long.yaml"
'

test_expect_success 'm-etf: the three largest holders, each name whole' - <<'EOF'
expect_exit 3 "$BAECHI" place -w "$TMPDIR_TEST/long.yaml" -c paper-4gpu-pcie -p m-etf \
    --memory-fraction 0.2
expect_grep "largest there: '${P}Conv2d_[^']*' [0-9.]+ MiB, '${P}Conv2d_[^']*' [0-9.]+ MiB, '${P}Conv2d_[^']*' [0-9.]+ MiB$" \
    "$TMPDIR_TEST/err"
EOF

test_expect_success 'auto: the ops that could not fit, each name whole, up to a short one' - <<'EOF'
expect_exit 3 "$BAECHI" place -w "$TMPDIR_TEST/long.yaml" -c paper-4gpu-pcie -p auto \
    --memory-fraction 0.1 --budget-ms 20
expect_grep "ops that could not fit there: '${P}Conv2d_[^']*' \(first over the limit\)(, '${P}Conv2d_[^']*' \([0-9.]+ [KMG]?i?B\)){3,}" \
    "$TMPDIR_TEST/err"
EOF

test_done
