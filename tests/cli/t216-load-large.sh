# check: slow
# t216-load-large.sh - a generated 100k-op workload (12 MB, past the
# 2 MB from which the allocator asks for 2 MB pages, issue 22 item 3) reads
# to the same `workload info`, text and JSON, with the fast reader as with
# libyaml alone (BAECHI_YAML_FAST=0); through a pipe (a buffer grown as
# read, not sized from the file) as from the file; and a bad input in its
# last op gets libyaml's message, line and column both ways.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

test_expect_success 'a 100k-op layered DAG: the same info both ways' '
    "$BAECHI" workload gen synthetic --shape layered --ops 100000 --seed 42 --fan-in 3 \
        -o l.yaml > /dev/null &&
    "$BAECHI" workload info l.yaml > fast.txt &&
    BAECHI_YAML_FAST=0 "$BAECHI" workload info l.yaml > slow.txt &&
    cmp fast.txt slow.txt &&
    grep -q "ops  *99982 (100000 in the file" fast.txt &&
    "$BAECHI" workload info --json l.yaml > fast.json &&
    BAECHI_YAML_FAST=0 "$BAECHI" workload info --json l.yaml > slow.json &&
    cmp fast.json slow.json
'

test_expect_success 'read through a pipe: the same info as from the file' '
    cat l.yaml | "$BAECHI" workload info --json /dev/stdin > pipe.json &&
    cmp fast.json pipe.json
'

test_expect_success 'a bad input in the last of 100k ops: the same message both ways' '
    cp l.yaml bad.yaml &&
    echo "- {name: zz, type: T, outputs: [1], inputs: [\"op99998:0\", \"op7:2\"]}" >> bad.yaml &&
    ! "$BAECHI" workload info bad.yaml 2> fast.err &&
    ! BAECHI_YAML_FAST=0 "$BAECHI" workload info bad.yaml 2> slow.err &&
    grep -q "bad.yaml:100004:.*no port 2" fast.err &&
    cmp fast.err slow.err
'

test_done
