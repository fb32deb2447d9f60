# check: slow sanitized-only
# The `baechi` model against an independent, line-by-line Python
# transcription of the original's graph building and virtual scheduler
# (tests/ref/virtual_scheduler.py, baechi-spec §1.2-§1.5, §5.2): the same
# makespan, per-device peaks and final memory, on GNMT under several
# placements and on a generated graph with control dependencies.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

check() { # workload placer [extra place options]
    w=$1
    p=$2
    shift 2
    expect_exit 0 "$BAECHI" place -w "$w" -c paper-4gpu-pcie -p "$p" "$@" -o p.yaml
    expect_exit 0 "$BAECHI" sim -w "$w" -c paper-4gpu-pcie --placement p.yaml --model baechi --json
    cp out c.json
    ref_known "$p $*" "$w" p.yaml c.json && return 0 # lib.sh: recorded verdicts
    python3 "$TOP/tests/ref/virtual_scheduler.py" "$w" p.yaml > ref.json
    python3 - c.json ref.json "$p" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
r = json.load(open(sys.argv[2]))
assert c["step_us"] == r["step_us"], (sys.argv[3], c["step_us"], r["step_us"])
peaks = [d["peak_bytes"] for d in c["devices"]][: len(r["peak_bytes"])]
finals = [d["final_bytes"] for d in c["devices"]][: len(r["final_bytes"])]
assert peaks == r["peak_bytes"], (sys.argv[3], peaks, r["peak_bytes"])
assert finals == r["final_bytes"], (sys.argv[3], finals, r["final_bytes"])
PY
    ref_passed "$p $*" "$w" p.yaml c.json
}

for p in given m-etf m-topo paper random round-robin; do
    test_expect_success "the reference scheduler: GNMT $p" '
        check "$GNMT" $p
    '
done

test_expect_success 'the reference scheduler: GNMT m-sct --devices 2' '
    check "$GNMT" m-sct --devices 2
'

# A training graph: backward and update ops.
test_expect_success 'setup: GNMT training' '
    expect_exit 0 "$BAECHI" workload train "$GNMT" -o train.yaml
'

test_expect_success 'the reference scheduler: train.yaml m-etf' '
    check train.yaml m-etf
'

test_expect_success 'the reference scheduler: train.yaml random' '
    check train.yaml random
'

# A random DAG with control dependencies (4-byte tensors, 134 µs across
# devices), some next to data inputs from the same op, some repeated, and
# groups: every third op's inputs gain "^op<k>" entries.
test_expect_success 'setup: a random DAG with control dependencies and groups' '
    ref_ctl_yaml ctl.yaml 400 3
'

test_expect_success 'the DAG has control edges' - <<'EOF'
expect_exit 0 "$BAECHI" workload info ctl.yaml --json
expect_grep '"n_control_edges": [1-9]' out
EOF

for p in m-etf m-sct random; do
    test_expect_success "the reference scheduler: ctl.yaml $p" '
        check ctl.yaml $p
    '
done

test_done
