# check: sanitized-only
# DDP's overlap in the timed simulator (needs collectives: docs/formats.md,
# x-collective): on a chain of 4 layers of 4 MiB parameters each, DP = 2
# with one bucket per layer,
#   - a backward long enough (2 ms per layer vs < 0.5 ms per all-reduce)
#     hides every bucket's all-reduce but the last: step(dp 2) within 2 %
#     of step(dp 1) + the last bucket's all-reduce alone;
#   - an instant backward (--bwd-factor 0) pays every all-reduce: step(dp 2)
#     within 2 % of step(dp 1) + the 4 all-reduces one after another.
# The all-reduces' times are measured, by the same simulator, on graphs of
# only those all-reduces, which must take time (a check of its own: a
# simulator that stopped timing collectives fails it, never skips).
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"
L=4
P=4194304 # parameter bytes per layer

test_expect_success 'setup: the chain, a 2-GPU cluster of 10 GB/s, the collectives alone' - <<'EOF'
python3 - "$L" "$P" <<'PY'
import sys
L, P = int(sys.argv[1]), int(sys.argv[2])
ops = ["  - {name: x, type: Placeholder, time_us: 0, outputs: [1024]}"]
prev = "x"
for l in range(L):
    ops.append("  - {name: l%d, type: MatMul, time_us: 1000, outputs: [1024], persistent: %d, "
               "group: l%d, inputs: [%s]}" % (l, P, l, prev))
    prev = "l%d" % l
ops.append("  - {name: loss, type: Loss, time_us: 0, outputs: [4], inputs: [%s]}" % prev)
open("chain.yaml", "w").write("format: 1\nname: chain\nops:\n" + "\n".join(ops) + "\n")
open("two.yaml", "w").write(
    "format: 1\nname: two\ncomm: {slope_us_per_byte: 0.0001, intercept_us: 0}\ndevices:\n"
    + "".join("  - {name: d%d, memory: 1GB}\n" % i for i in range(2)))
def chain_of(n, path):
    out = ["  - {name: g@%d, type: Const, time_us: 0, outputs: [%d], device: %d}" % (r, P, r)
           for r in range(2)]
    for b in range(n):
        for r in range(2):
            dep = ', "^ar%d@%d"' % (b - 1, r) if b else ""
            out.append("  - {name: ar%d@%d, type: AllReduce, time_us: 0, outputs: [%d], "
                       "device: %d, inputs: [g@%d%s], "
                       "x-collective: {id: ar%d, kind: all-reduce, bytes: %d}}"
                       % (b, r, P, r, r, dep, b, P))
    open(path, "w").write("format: 1\nname: ars\nops:\n" + "\n".join(out) + "\n")
chain_of(1, "one_ar.yaml")
chain_of(L, "all_ar.yaml")
PY
"$BAECHI" workload train chain.yaml --device none -o long.yaml > /dev/null
"$BAECHI" workload train chain.yaml --device none --bwd-factor 0 -o instant.yaml > /dev/null
EOF

# step_us FILE: the timed simulator's step of FILE on two.yaml, placement given
step_us() {
    "$BAECHI" sim -w "$1" -c two.yaml --placement given --json 2> /dev/null |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["step_us"])'
}

# the collectives alone must take time: a simulator that stops timing them
# fails here (it used to skip, and so passed whatever broke)
test_expect_success 'a 4 MiB all-reduce on two GPUs takes time (over 100 us)' - <<'EOF'
probe=$(step_us one_ar.yaml)
echo "one all-reduce: $probe us"
[ "${probe:-0}" -gt 100 ]
EOF

for case in long:1 instant:$L; do
    kind=${case%%:*} n=${case#*:}
    test_expect_success "dp 2, $kind backward: step = dp 1 + $n all-reduce(s) within 2 %" - <<EOF
"\$BAECHI" workload parallelize $kind.yaml --dp 2 --bucket-mb 4 -o p.yaml > /dev/null
[ "\$(grep -c 'kind: all-reduce' p.yaml)" -eq $((2 * L)) ]
one=\$(step_us $kind.yaml); two=\$(step_us p.yaml)
ar=\$(step_us $([ "$n" -eq 1 ] && echo one_ar.yaml || echo all_ar.yaml))
python3 -c "
one, two, ar = \$one, \$two, \$ar
want = one + ar
assert abs(two - want) <= 0.02 * want, (one, two, ar)
print('dp 1 %d us, dp 2 %d us, all-reduce(s) %d us' % (one, two, ar))"
EOF
done

test_done
