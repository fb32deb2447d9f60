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
