# check: fast
# Engines per fabric (sim/collective.h): in a cluster with nodes each
# device has NVLink engines for traffic inside its node and NIC engines for
# traffic across nodes, so a tensor-parallel all-reduce inside node 0 and a
# data-parallel all-reduce across the nodes on the same device, ready at the
# same time, run together (as NCCL runs them, on separate communicators and
# hardware): the step is the longer one's, not their sum.  dgx-h100-2x8:
# NVLink 360 GB/s achieved, 10 µs; a NIC 45 GB/s achieved, 5 µs; a 2-rank
# ring all-reduce of S takes S/bw + 2 latency.
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"

S=400000000
# p<d> (100 µs) on gpu 0, 1, 8; tp: all-reduce over 0, 1 (node 0); dp:
# all-reduce over 0, 8 (across nodes); u<d> (10 µs) after each device's
# ranks: the step is 110 µs + the collectives' span.
two_wl() {
    cat <<YAML
format: 1
name: tp-dp
ops:
  - {name: p0, type: Grad, time_us: 100, outputs: [$S], device: 0}
  - {name: p1, type: Grad, time_us: 100, outputs: [$S], device: 1}
  - {name: p8, type: Grad, time_us: 100, outputs: [$S], device: 8}
YAML
    case $1 in *tp*)
        cat <<YAML
  - {name: tp@r0, type: Coll, time_us: 0, outputs: [$S], inputs: ["p0:0"], device: 0, x-collective: {id: tp, kind: all-reduce, bytes: $S}}
  - {name: tp@r1, type: Coll, time_us: 0, outputs: [$S], inputs: ["p1:0"], device: 1, x-collective: {id: tp, kind: all-reduce, bytes: $S}}
  - {name: u1, type: Update, time_us: 10, inputs: ["tp@r1:0"], device: 1}
YAML
    esac
    case $1 in *dp*)
        cat <<YAML
  - {name: dp@r0, type: Coll, time_us: 0, outputs: [$S], inputs: ["p0:0"], device: 0, x-collective: {id: dp, kind: all-reduce, bytes: $S}}
  - {name: dp@r1, type: Coll, time_us: 0, outputs: [$S], inputs: ["p8:0"], device: 8, x-collective: {id: dp, kind: all-reduce, bytes: $S}}
  - {name: u8, type: Update, time_us: 10, inputs: ["dp@r1:0"], device: 8}
YAML
    esac
    case $1 in
    tp) echo '  - {name: u0, type: Update, time_us: 10, inputs: ["tp@r0:0"], device: 0}' ;;
    dp) echo '  - {name: u0, type: Update, time_us: 10, inputs: ["dp@r0:0"], device: 0}' ;;
    *) echo '  - {name: u0, type: Update, time_us: 10, inputs: ["tp@r0:0", "dp@r0:0"], device: 0}' ;;
    esac
}

# step_check WL EXPECTED_US: the step of two_wl WL on dgx-h100-2x8 is 110 µs
# + EXPECTED_US, within 1 µs.
step_check() {
    two_wl "$1" > w.yaml
    expect_exit 0 "$BAECHI" sim -w w.yaml -c dgx-h100-2x8 --placement given --json
    python3 - "$TMPDIR_TEST/out" "$2" "$1" <<'PY'
import json, sys
got = json.load(open(sys.argv[1]))["step_us"] - 110
want = float(sys.argv[2])
assert abs(got - want) <= 1, (sys.argv[3], got, want)
PY
}

TP=$(python3 -c "print($S/360e3 + 2*10)")
DP=$(python3 -c "print($S/45e3 + 2*5)")

test_expect_success 'each alone: its closed form' - <<EOF2
step_check tp $TP
step_check dp $DP
EOF2

test_expect_success 'together on gpu 0: they overlap (the longer one, not the sum)' - <<EOF2
step_check tp+dp $(python3 -c "print(max($TP, $DP))")
EOF2

# Point-to-point transfers likewise: p0's output read on gpu 1 (NVLink, 450
# GB/s, 10 µs) and on gpu 8 (a NIC, 50 GB/s, 5 µs) is sent to both at once;
# the step is 100 µs + the NIC transfer + 10 µs (the sum of both before).
test_expect_success 'a send inside the node and one across nodes overlap' - <<EOF2
cat > w.yaml <<YAML
format: 1
name: p2p
ops:
  - {name: p0, type: Grad, time_us: 100, outputs: [$S], device: 0}
  - {name: c1, type: Update, time_us: 10, inputs: ["p0:0"], device: 1}
  - {name: c8, type: Update, time_us: 10, inputs: ["p0:0"], device: 8}
YAML
expect_exit 0 "\$BAECHI" sim -w w.yaml -c dgx-h100-2x8 --placement given --json
python3 - "\$TMPDIR_TEST/out" $(python3 -c "print(110 + $S/50e3 + 5)") <<'PY'
import json, sys
got, want = json.load(open(sys.argv[1]))["step_us"], float(sys.argv[2])
assert abs(got - want) <= 1, (got, want)
PY
EOF2

test_done
