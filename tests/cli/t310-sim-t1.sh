#!/bin/sh
# t310: `baechi sim` reproduces baechi-spec §13 T1 with the baechi model, and
# the timed model keeps the received tensor on gpu1; bad input exits 2.
. "$TOP/tests/cli/lib.sh"
W="$TOP/tests/data/t1.yaml"
C="$TOP/tests/data/t1-cluster.yaml"

test_expect_success 'the baechi model reproduces T1' - <<'EOF'
expect_exit 0 "$BAECHI" sim -w "$W" -c "$C" --placement given --model baechi --json
python3 - "$TMPDIR_TEST/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["model"] == "baechi", r["model"]
assert r["step_us"] == 29, r["step_us"]
assert [d["peak_bytes"] for d in r["devices"]] == [150, 20], r["devices"]
assert [d["final_bytes"] for d in r["devices"]] == [0, 0], r["devices"]
assert [d["n_ops"] for d in r["devices"]] == [2, 1]
assert r["n_transfers"] == 2 and r["transfer_bytes"] == 120, r["transfers"]
assert r["lower_bound_us"] == 18 and r["oom"] is False
PY
EOF

# the same from a placement file; its placer and stats are passed through
test_expect_success 'from a placement file: its placer and stats passed through' - <<'EOF'
expect_exit 0 "$BAECHI" sim -w "$W" -c "$C" --placement "$TOP/tests/data/t1-placement.yaml" -m baechi --json
expect_grep '"step_us": 29,' "$TMPDIR_TEST/out"
expect_grep '"placer": "hand"' "$TMPDIR_TEST/out"
expect_grep '"placement_stats": \{"estimate_us": 29\}' "$TMPDIR_TEST/out"
EOF

# timed: the received A:0 (100 B) is held on gpu1 while B runs
test_expect_success 'timed: the received tensor is held on gpu1 while B runs' - <<'EOF'
expect_exit 0 "$BAECHI" sim -w "$W" -c "$C" --placement given --json
python3 - "$TMPDIR_TEST/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["model"] == "timed" and r["channel"] == "shared", r
assert r["step_us"] == 29, r["step_us"]
assert [d["peak_bytes"] for d in r["devices"]] == [150, 120], r["devices"]
PY
EOF

# text summary with units, and an out-of-memory result still exits 0
test_expect_success 'text summary with units' - <<'EOF'
expect_exit 0 "$BAECHI" sim -w "$W" -c "$C" --placement given -m baechi
expect_grep '^step time +29 µs' "$TMPDIR_TEST/out"
expect_grep 'gpu0 +-> gpu1 +100 B in 1 transfer$' "$TMPDIR_TEST/out"
EOF

test_expect_success 'an out-of-memory result still exits 0' - <<'EOF'
sed 's/memory: 1MiB/memory: 120/' "$C" > "$TMPDIR_TEST/small.yaml"
expect_exit 0 "$BAECHI" sim -w "$W" -c "$TMPDIR_TEST/small.yaml" --placement given -m baechi
expect_grep 'OOM by 30 B at t=0 µs \(op A\)' "$TMPDIR_TEST/out"
EOF

# a Chrome trace that parses
test_expect_success 'a Chrome trace that parses' - <<'EOF'
expect_exit 0 "$BAECHI" sim -w "$W" -c "$C" --placement given --trace "$TMPDIR_TEST/t.json"
python3 -m json.tool "$TMPDIR_TEST/t.json" > /dev/null
expect_grep '"traceEvents"' "$TMPDIR_TEST/t.json"
EOF

# bad usage and bad input
test_expect_success 'no placement: exit 2' - <<'EOF'
expect_exit 2 "$BAECHI" sim -w "$W" -c "$C"
EOF

test_expect_success 'an unknown model: exit 2' - <<'EOF'
expect_exit 2 "$BAECHI" sim -w "$W" -c "$C" --placement given --model fast
EOF

test_expect_success 'too few devices: exit 2' - <<'EOF'
expect_exit 2 "$BAECHI" sim -w "$W" -c "$C" --placement given --devices 1
expect_grep "device" "$TMPDIR_TEST/err"
EOF

test_expect_success 'a missing workload: exit 2' - <<'EOF'
expect_exit 2 "$BAECHI" sim -w "$TMPDIR_TEST/missing.yaml" -c "$C" --placement given
EOF

test_done
