# check: slow once
# Allocation failures on a GPT training graph (issue 30 item 3): every
# allocation of `workload info`, `workload train` and `workload parallelize
# --dp 2` / `--tp 2` failed in turn with the LD_PRELOAD shim
# tests/shim/failalloc.c (libc's, libyaml's and the project's allocations
# alike), each run checked by tests/shim/alloc-sweep.sh: exit 0 with
# stdout, stderr and the output file byte-identical to the clean run, or
# exit 1 saying "out of memory".  The fast workload reader's "line not
# taken" was 1 = BAECHI_ENOMEM: 9 points of `workload info` printed 119 or
# 120 edges instead of 121, exit 0, and `train` and `parallelize` wrote
# graphs short of ops or inputs.  Of about 7,300 allocations, the first and
# the last of every distinct call stack (alloc-sweep.sh: every call site
# in every calling context; about 1,100 runs, 4 s of CPU instead of 34);
# SWEEP_EVERY=1 in the environment tries every one.
# Skipped where the shim cannot be built or preloaded (sanitized builds).
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"
. "$TOP/tests/shim/alloc-lib.sh"
# one layer: every op kind of a GPT layer, a third fewer points than two
GPT="gpt --layers 1 --d-model 64 --heads 4 --vocab 100 -b 4 --seq 8"

# shellcheck disable=SC2086 # GPT is a word list
"$BAECHI" workload gen $GPT -o gptt.yaml 2> /dev/null
# shellcheck disable=SC2086
"$BAECHI" workload gen $GPT --forward-only -o gptf.yaml 2> /dev/null

alloc_shim_or_skip "$BAECHI" workload info gptt.yaml

test_expect_success 'workload info: every allocation site failing' '
    sweep info - workload info ../gptt.yaml
    expect_grep "^[0-9]+ points, [0-9]+ runs, 0 failures$" info.res
    about info.res 200
'

test_expect_success 'workload train: every allocation site failing' '
    sweep train out.yaml workload train ../gptf.yaml -o out.yaml
    expect_grep "^[0-9]+ points, [0-9]+ runs, 0 failures$" train.res
    about train.res 1300
'

test_expect_success 'workload info of the trained graph: every allocation site failing' - <<'EOF2'
"$BAECHI" workload train gptf.yaml -o trained.yaml 2> /dev/null
sweep info-trained - workload info ../trained.yaml --json
expect_grep "^[0-9]+ points, [0-9]+ runs, 0 failures$" info-trained.res
    about info-trained.res 200
EOF2

test_expect_success 'workload parallelize --dp 2: every allocation site failing' '
    sweep dp2 out.yaml workload parallelize ../gptt.yaml --dp 2 -o out.yaml
    expect_grep "^[0-9]+ points, [0-9]+ runs, 0 failures$" dp2.res
    about dp2.res 2600
'

test_expect_success 'workload parallelize --tp 2: every allocation site failing' '
    sweep tp2 out.yaml workload parallelize ../gptt.yaml --tp 2 -o out.yaml
    expect_grep "^[0-9]+ points, [0-9]+ runs, 0 failures$" tp2.res
    about tp2.res 3000
'

test_done
