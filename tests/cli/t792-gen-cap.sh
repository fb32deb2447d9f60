# check: once
#!/bin/sh
# t792: generated graphs are capped by their op count, computed before
# anything is built (issue 30 item 6; workloads/gen_cap.h): over 1,000,000
# ops is exit 2 with a message naming the options, on the command line, in
# a 150-byte sweep file (refused at file:line:col before the first run) and
# for parallelize; before, these exhausted the machine.  docs/limits.md
# states the limits that t790-t792 check.
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"

# A command with at most 1 GiB of address space and 20 CPU seconds.
limited() {
    sh -c "ulimit -v 1048576; ulimit -t 20; exec \"\$@\"" sh "$@"
}

test_expect_success 'gen gpt --layers 10000 --micro-batches 1024: refused, exit 2' '
    expect_exit 2 limited "$BAECHI" workload gen gpt --layers 10000 --micro-batches 1024 -b 1024 -o g.yaml &&
    expect_grep "gpt with --layers 10000 --micro-batches 1024 would have 266314343 ops, more than the 1000000" "$TMPDIR_TEST/err" &&
    test ! -e g.yaml
'

test_expect_success 'gen gnmt --seq 1000000: refused, exit 2' '
    expect_exit 2 limited "$BAECHI" workload gen gnmt --seq 1000000 -o g.yaml &&
    expect_grep "gnmt with --seq 1000000 would have [0-9]+ ops, more than the 1000000" "$TMPDIR_TEST/err"
'

test_expect_success 'gen at the cap boundary: 1,168,161 ops refused; below it the count is exact' '
    expect_exit 2 limited "$BAECHI" workload gen gpt --layers 4000 --d-model 64 --heads 4 --vocab 100 -b 11 --seq 8 --micro-batches 11 -o g.yaml &&
    expect_grep "would have 1168161 ops" "$TMPDIR_TEST/err" &&
    expect_exit 0 limited "$BAECHI" workload gen gpt --layers 100 --d-model 64 --heads 4 --vocab 100 -b 8 --seq 8 --micro-batches 8 -o g.yaml &&
    expect_grep ": 21519 ops" "$TMPDIR_TEST/out"
'

test_expect_success 'a 150-byte sweep file asking for it: refused at file:line:col, exit 2' '
    printf "workloads: [\"gen:gpt?layers=10000&micro_batches=1024&batch=1024\"]\nclusters: [paper-4gpu-pcie]\nplacers: [single]\n" > s.yaml &&
    test "$(wc -c < s.yaml)" -le 150 &&
    expect_exit 2 limited "$BAECHI" sweep s.yaml -j 1 --db s.db &&
    expect_grep "s.yaml:1:13: workloads: .* is too large: gpt with --layers 10000 --micro-batches 1024 would have 266314343 ops" "$TMPDIR_TEST/err" &&
    test ! -e s.db
'

test_expect_success 'parallelize --dp 512 of a 6,421-op graph: refused, exit 2' '
    "$BAECHI" workload gen gpt --layers 200 --d-model 64 --heads 4 --vocab 100 -b 4 --seq 8 -o g200.yaml 2>/dev/null &&
    expect_exit 2 limited "$BAECHI" workload parallelize g200.yaml --dp 512 -o p.yaml &&
    expect_grep "parallelising .* \(6421 ops\) with --dp 512 --tp 1 would give about 4931328 ops, more than the 1000000" "$TMPDIR_TEST/err" &&
    expect_exit 2 limited "$BAECHI" workload gen gpt --layers 200 --d-model 64 --heads 4 --vocab 100 -b 4 --seq 8 --dp 512 -o p.yaml &&
    expect_grep "would give about 4931328 ops" "$TMPDIR_TEST/err"
'

# docs/limits.md states each limit these tests and t790/t791 check.
test_expect_success 'docs/limits.md states the limits' '
    L="$TOP/docs/limits.md" &&
    grep -q "^## Size: devices, ops and memory" "$L" &&
    grep -q "| \`workload gen\` .* | 1,000,000 ops |" "$L" &&
    grep -q "266,314,343 ops" "$L" &&
    grep -q "| \`auto\` (and \`--refine\`) | 1,024 devices searched |" "$L" &&
    grep -q "searches 632 devices" "$L" &&
    grep -q "| 64 devices | refused, exit 2: \`m-etf/m-sct support 1 to 64 devices" "$L" &&
    grep -q "2^30 = 1,073,741,824 steps" "$L" &&
    grep -q "| 150 ops, 64 devices | skipped" "$L" &&
    grep -q "(984,347 ops)" "$L" &&
    grep -q "^#define GEN_CAP_OPS 1000000$" "$TOP/workloads/gen_cap.h" &&
    grep -q "^#define AUTO_MAX_DEVICES 1024$" "$TOP/placers/auto_internal.h" &&
    grep -q "^#define BOUND_LP_MAX_DEVICES 64$" "$TOP/placers/bound.h" &&
    grep -q "^#define BOUND_LP_MAX_OPS_DEFAULT *150$" "$TOP/placers/bound.h" &&
    grep -q "^#define PIPELINE_MAX_DP_STEPS 1073741824.0$" "$TOP/placers/pipeline_placer.c" &&
    grep -q "^#define SCT_MAX_DEVICES 64$" "$TOP/placers/m_sct.c"
'

test_done
