# check: fast
# Above 256 devices the simulator keeps its traffic counters (and CHANNEL_LINK
# engines) only for the device pairs the placement uses (sim/sim_links.h;
# issue 32 item 3): on 512 GPUs in nodes of 8, a chain gpu511 -> gpu300 ->
# gpu0 -> gpu511 with a shortcut gpu511 -> gpu0 shows exactly its four
# links, in (src, dst) order (not the edges' order), in the text and the
# JSON of both models, and with `channel: link`.
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"

test_expect_success 'setup: 512 GPUs, a chain over three of them' - <<'EOF2'
nodes_cluster 512 > c.yaml
sed 's/channel: duplex/channel: link/' c.yaml > link.yaml
cat > w.yaml <<'YAML'
format: 1
name: chain
ops:
  - {name: a, type: A, time_us: 10, outputs: [1000000], device: 511}
  - {name: b, type: B, time_us: 10, inputs: ["a:0"], outputs: [2000000], device: 300}
  - {name: c, type: C, time_us: 10, inputs: ["b:0", "a:0"], outputs: [3000000], device: 0}
  - {name: d, type: D, time_us: 10, inputs: ["c:0"], device: 511}
YAML
EOF2

for m in timed baechi; do
    test_expect_success "$m: the four links, in order" - <<EOF2
expect_exit 0 "\$BAECHI" sim -w w.yaml -c c.yaml --placement given --model $m --json
python3 - "\$TMPDIR_TEST/out" <<'PY'
import json, sys
t = [(x["src"], x["dst"], x["bytes"], x["n_transfers"]) for x in json.load(open(sys.argv[1]))["transfers"]]
assert t == [(0, 511, 3000000, 1), (300, 0, 2000000, 1), (511, 0, 1000000, 1),
             (511, 300, 1000000, 1)], t
PY
expect_exit 0 "\$BAECHI" sim -w w.yaml -c c.yaml --placement given --model $m
expect_grep '^  gpu0 +-> gpu511 ' "\$TMPDIR_TEST/out"
expect_grep '^  gpu511 +-> gpu300 ' "\$TMPDIR_TEST/out"
test "\$(grep -c -- ' -> ' "\$TMPDIR_TEST/out")" = 4
EOF2
done

# Across nodes (50 GB/s, 5 µs) 1 MB takes 25 µs, 2 MB 45, 3 MB 65.  One
# engine per link: a ends at 10, b gets a's output at 35 and sends at 45
# (to 90), c runs 90-100, d gets c's output at 165 and ends at 175.  Duplex
# engines: gpu511's send engine sends to gpu300 first (10-35), then the
# shortcut (35-60), which holds gpu0's receive engine: b's 2 MB waits for
# it (60-105), c runs 105-115, d ends at 115 + 65 + 10 = 190.
test_expect_success 'channel: link vs duplex on 512 devices' - <<'EOF2'
expect_exit 0 "$BAECHI" sim -w w.yaml -c link.yaml --placement given --json
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["step_us"] == 175, r["step_us"]' "$TMPDIR_TEST/out"
expect_exit 0 "$BAECHI" sim -w w.yaml -c c.yaml --placement given --json
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["step_us"] == 190, r["step_us"]' "$TMPDIR_TEST/out"
EOF2

test_done
