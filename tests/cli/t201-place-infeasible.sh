# t201-place-infeasible.sh - an infeasible placement is a result: exit 3, ops and bytes named
. "$TOP/tests/cli/lib.sh"
expect_exit 3 "$BAECHI" place -w "$GNMT" -c paper-4gpu-pcie -p m-etf --memory-fraction 0.05
expect_grep "missing [0-9]+ bytes" "$TMPDIR_TEST/err"
expect_grep "output_projection" "$TMPDIR_TEST/err"
expect_exit 3 "$BAECHI" place -w "$GNMT" -c paper-4gpu-pcie -p m-topo-nonuniform --memory-fraction 0.02
expect_grep "operators cannot be placed" "$TMPDIR_TEST/err"
expect_exit 3 "$BAECHI" place -w "$GNMT" -c paper-4gpu-pcie -p m-sct-reserve --memory-fraction 0.05
# bad options are usage errors
expect_exit 2 "$BAECHI" place -w "$GNMT" -c paper-4gpu-pcie -p no-such-placer
expect_exit 2 "$BAECHI" place -w "$GNMT" -c paper-4gpu-pcie -p m-etf --grouper nope
expect_exit 2 "$BAECHI" place -w "$GNMT" -c paper-4gpu-pcie -p m-etf --devices 9
expect_exit 2 "$BAECHI" place -w "$GNMT" -c paper-4gpu-pcie

# The message names the largest consumers of the device concerned, in the
# placer's own accounting (issue 15): on Inception-V3 training at a fifth
# of the memory, m-ETF deadlocks on device 0, which holds the first convolutions.
"$BAECHI" workload gen inception-v3 -b 64 --device rtx2080 -o "$TMPDIR_TEST/inc.yaml" > /dev/null
expect_exit 3 "$BAECHI" place -w "$TMPDIR_TEST/inc.yaml" -c paper-4gpu-pcie -p m-etf \
    --memory-fraction 0.2
expect_grep "device 0 has [0-9]+ bytes free \(missing [0-9]+ bytes\); largest there: 'Conv2d_[^']*' [0-9.]+ MiB, '[^']+' [0-9.]+ MiB, '[^']+' [0-9.]+ MiB$" "$TMPDIR_TEST/err"
