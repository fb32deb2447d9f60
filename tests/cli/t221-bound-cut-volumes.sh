# check: sanitized-only
#!/bin/sh
# t221: the certified lower bound's cut volumes (placers/bound.h "one cut
# and cut volumes") in `run`: a training step in miniature whose cheapest
# forced cut is the loss's small tensor, but a cut there also sends both
# saved activations over one link; the bound charges that (93 µs, 54
# before), the exact optimum is 104 (tests/unit/test_bound_exact.c), and
# `auto` reaches it.
. "$TOP/tests/cli/lib.sh"

test_expect_success 'setup: F1 F2 loss B2 B1, four 500 B weights, two 1,100 B devices' - <<'EOF2'
cat > "$TMPDIR_TEST/train.yaml" <<'YAML'
format: 1
name: train2
ops:
  - {name: F1, type: Op, time_us: 10, outputs: [50], persistent: 500}
  - {name: F2, type: Op, time_us: 10, outputs: [50], persistent: 500, inputs: ["F1:0"]}
  - {name: L, type: Op, time_us: 10, outputs: [4], inputs: ["F2:0"]}
  - {name: B2, type: Op, time_us: 10, outputs: [4], persistent: 500, inputs: ["L:0", "F2:0"]}
  - {name: B1, type: Op, time_us: 10, persistent: 500, inputs: ["B2:0", "F1:0"]}
YAML
cat > "$TMPDIR_TEST/two.yaml" <<'YAML'
format: 1
name: two
devices:
  - name: gpu
    count: 2
    memory: 1100
comm:
  slope_us_per_byte: 1
  intercept_us: 0
  channel: link
YAML
EOF2

test_expect_success 'run --json: the bound pays the activations beside the loss cut' - <<'EOF2'
expect_exit 0 "$BAECHI" run -w "$TMPDIR_TEST/train.yaml" -c "$TMPDIR_TEST/two.yaml" -p auto --json
python3 - "$TMPDIR_TEST/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
b = r["bound"]
assert r["lower_bound_us"] == 93 and r["lower_bound_kind"] == "memory", r
assert b["simple_us"] == 50 and b["memory_us"] == 93, b
assert b["forced_cuts"] == 2 and b["min_devices"] == 2, b
assert r["sim"]["timed"]["step_us"] == 104, r["sim"]["timed"]["step_us"]
assert r["lower_bound_us"] <= r["sim"]["timed"]["step_us"]
PY
EOF2

test_expect_success 'run: the text names the bound' '
    expect_exit 0 "$BAECHI" run -w "$TMPDIR_TEST/train.yaml" -c "$TMPDIR_TEST/two.yaml" -p m-etf &&
    expect_grep "^lower bound    93 µs \(memory; simple 50 µs, critical path 50 µs\)" "$TMPDIR_TEST/out"
'

test_done
