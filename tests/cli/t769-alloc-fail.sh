# check: slow once
# Allocation failures (core/alloc.h, scripts/alloc-fail.sh, docs/fuzzing.md
# "Allocation failures"): in the test build, failing the N-th allocation
# never crashes, leaks or corrupts (ASan + UBSan), never exits 0 with other
# output, and otherwise exits 1 saying "out of memory".  A reduced round of
# `make check-alloc`: every N for `workload info` and `place -p m-etf` on t1
# and `workload info` on a GPT training graph (issue 30 item 3), at most 12
# values of N, spread over the range, for the other commands.
. "$TOP/tests/cli/lib.sh"

AF=${BAECHI_ALLOCFAIL:-$TOP/build/allocfail/baechi}
[ -x "$AF" ] || test_skip_all "no allocation-failure build (make allocfail)"

test_expect_success 'every N: workload info (t1, GPT training), place -p m-etf' '
    expect_exit 0 env ALLOC_FAIL_JOBS=2 ALLOC_FAIL_LOG="$TMPDIR_TEST/log1" \
        sh "$TOP/scripts/alloc-fail.sh" "$AF" info info-gpt-train place-m-etf
    cat "$TMPDIR_TEST/log1"
    expect_grep "^alloc-fail: [0-9]+ runs, 0 failures$" "$TMPDIR_TEST/out"
'

test_expect_success 'a stride: every other command' - <<'EOF'
# a sweep's worker that runs out of memory is an 'error' row, and the sweep
# then exits 1 with "out of memory" once the other runs are stored
cases=$(sh "$TOP/scripts/alloc-fail.sh" "$AF" --list | grep -v '^info$\|^info-gpt-train$\|^place-m-etf$')
# shellcheck disable=SC2086
expect_exit 0 env ALLOC_FAIL_JOBS=2 ALLOC_FAIL_LIMIT=12 ALLOC_FAIL_LOG="$TMPDIR_TEST/log2" \
    sh "$TOP/scripts/alloc-fail.sh" "$AF" $cases
cat "$TMPDIR_TEST/log2"
expect_grep "^alloc-fail: [0-9]+ runs, 0 failures$" "$TMPDIR_TEST/out"
EOF

test_done
