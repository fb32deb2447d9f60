# check: slow
# t216-load-large.sh - a generated 100k-op workload (12 MB, past the
# 2 MB from which the allocator asks for 2 MB pages, issue 22 item 3) reads
# to the same `workload info`, text and JSON, with the fast reader as with
# libyaml alone (BAECHI_YAML_FAST=0); through a pipe (a buffer grown as
# read, not sized from the file) as from the file; and a bad input in its
# last op gets libyaml's message, line and column both ways; its m-TOPO
# placement (the writer's devices lines, read without events) simulates
# the same both ways.
#
# The 100k ops on the normal build; under the sanitizers (make check's
# second run, CHECK_BUILD=asan+ubsan) 25k ops, 3 MB: still past the 2 MB
# pages, the pipe's grown buffer and the last-op error, the same paths of
# the readers under ASan+UBSan in a fifth of its 25 s of CPU (issue 22's
# 1M-op size is the plain build's concern: the speed, not the memory
# errors; docs/testing.md "Speed").
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

n=100000
case ${CHECK_BUILD:-plain} in plain) ;; *) n=25000 ;; esac

test_expect_success "a ${n}-op layered DAG: the same info both ways" '
    "$BAECHI" workload gen synthetic --shape layered --ops $n --seed 42 --fan-in 3 \
        -o l.yaml > /dev/null &&
    "$BAECHI" workload info l.yaml > fast.txt &&
    BAECHI_YAML_FAST=0 "$BAECHI" workload info l.yaml > slow.txt &&
    cmp fast.txt slow.txt &&
    case $n in
    100000) grep -q "ops  *99982 (100000 in the file" fast.txt ;;
    25000) grep -q "ops  *24993 (25000 in the file" fast.txt ;;
    esac &&
    "$BAECHI" workload info --json l.yaml > fast.json &&
    BAECHI_YAML_FAST=0 "$BAECHI" workload info --json l.yaml > slow.json &&
    cmp fast.json slow.json
'

test_expect_success 'read through a pipe: the same info as from the file' '
    cat l.yaml | "$BAECHI" workload info --json /dev/stdin > pipe.json &&
    cmp fast.json pipe.json
'

test_expect_success "a bad input in the last of $n ops: the same message both ways" '
    cp l.yaml bad.yaml &&
    echo "- {name: zz, type: T, outputs: [1], inputs: [\"op$((n - 2)):0\", \"op7:2\"]}" >> bad.yaml &&
    ! "$BAECHI" workload info bad.yaml 2> fast.err &&
    ! BAECHI_YAML_FAST=0 "$BAECHI" workload info bad.yaml 2> slow.err &&
    grep -q "bad.yaml:$((n + 4)):.*no port 2" fast.err &&
    cmp fast.err slow.err
'

test_expect_success 'its m-TOPO placement: the same simulation both ways' '
    "$BAECHI" place -w l.yaml -c dgx-h100-8 -p m-topo -o l.place.yaml 2> /dev/null &&
    grep -q "^devices:\$" l.place.yaml &&
    "$BAECHI" sim -w l.yaml -c dgx-h100-8 --placement l.place.yaml -m baechi --json > fast.sim &&
    BAECHI_YAML_FAST=0 "$BAECHI" sim -w l.yaml -c dgx-h100-8 --placement l.place.yaml \
        -m baechi --json > slow.sim &&
    cmp fast.sim slow.sim &&
    sed "\$s/: [0-9]*\$/: 9/" l.place.yaml > bad.place.yaml &&
    ! "$BAECHI" sim -w l.yaml -c dgx-h100-8 --placement bad.place.yaml -m baechi 2> fast.err &&
    ! BAECHI_YAML_FAST=0 "$BAECHI" sim -w l.yaml -c dgx-h100-8 --placement bad.place.yaml \
        -m baechi 2> slow.err &&
    grep -q "device 9" fast.err &&
    cmp fast.err slow.err
'

test_done
