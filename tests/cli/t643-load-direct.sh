# check: sanitized-only
# t643-load-direct.sh - the direct reader of the writer's op lines
# (core/workload_flow.h, issue 22): a generated 20k-op workload reads to the
# same info, critical path and simulation with the fast reader as with
# libyaml alone (BAECHI_YAML_FAST=0), for a layered DAG and a training
# graph with micro-batches (groups, phases, control inputs).
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

both_ways() {
    "$BAECHI" workload info --json "$1" > fast.json &&
    BAECHI_YAML_FAST=0 "$BAECHI" workload info --json "$1" > slow.json &&
    cmp fast.json slow.json &&
    "$BAECHI" sim -w "$1" -c dgx-h100-8 --placement given -m baechi --json > fast.sim &&
    BAECHI_YAML_FAST=0 "$BAECHI" sim -w "$1" -c dgx-h100-8 --placement given -m baechi \
        --json > slow.sim &&
    cmp fast.sim slow.sim
}

test_expect_success 'a 20k-op layered DAG reads the same both ways' '
    "$BAECHI" workload gen synthetic --shape layered --ops 20000 --seed 7 -o l.yaml &&
    awk "NR > 3 && NR % 3 == 0 { sub(/}\$/, \", device: \" NR % 8 \"}\") } { print }" l.yaml > ld.yaml &&
    both_ways ld.yaml
'

test_expect_success 'a training graph with micro-batches reads the same both ways' '
    "$BAECHI" workload gen gpt --layers 2 --micro-batches 2 -o t.yaml &&
    grep -q "phase: backward" t.yaml &&
    awk "NR > 3 && /^- /{ sub(/}\$/, \", device: 0}\") } { print }" t.yaml > td.yaml &&
    both_ways td.yaml
'

test_expect_success 'a bad port in the last op: the same message both ways' '
    head -n 200 l.yaml > bad.yaml &&
    echo "- {name: zz, type: T, outputs: [1], inputs: [\"op5:3\"]}" >> bad.yaml &&
    ! "$BAECHI" workload info bad.yaml 2> fast.err &&
    ! BAECHI_YAML_FAST=0 "$BAECHI" workload info bad.yaml 2> slow.err &&
    grep -q "bad.yaml:201:.*no port 3" fast.err &&
    cmp fast.err slow.err
'

test_done
