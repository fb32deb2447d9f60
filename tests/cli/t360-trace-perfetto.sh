# check: slow sanitized-only
# Traces open in Perfetto: GNMT placed by m-ETF on paper-4gpu-pcie, simulated
# with both models (sim --trace, run --trace --trace-model); every track's slices
# nest (no partial overlap), compute,
# sends and receives are on their own tracks, and the memory counters ("C"
# events, bytes) peak exactly at the JSON's devices[].peak_bytes.
. "$TOP/tests/cli/lib.sh"

test_expect_success 'setup: the trace checker' - <<'EOF'
cat > "$TMPDIR_TEST/check.py" <<'PY'
import collections, json, sys
trace = json.load(open(sys.argv[1]))
res = json.load(open(sys.argv[2]))
model = sys.argv[3]
link = len(sys.argv) > 4 and sys.argv[4] == "link"
ev = trace["traceEvents"]
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev
         if e.get("ph") == "M" and e["name"] == "thread_name"}
tracks = collections.defaultdict(list)
for e in ev:
    if e.get("ph") == "X":
        assert e["dur"] >= 0, e
        assert (e["pid"], e["tid"]) in names, ("slice on an unnamed track", e)
        tracks[(e["pid"], e["tid"])].append((e["ts"], e["dur"], e["name"]))
bad = 0
for key, sl in tracks.items():
    sl.sort(key=lambda s: (s[0], -s[1]))
    stack = []
    for ts, dur, name in sl:
        while stack and stack[-1] <= ts:
            stack.pop()
        if stack and ts + dur > stack[-1]:
            bad += 1
            if bad <= 3:
                print("%s: partial overlap on pid %d tid %d (%s): ts %d dur %d ends after %d"
                      % (model, key[0], key[1], names[key], ts, dur, stack[-1]))
        stack.append(ts + dur)
assert bad == 0, "%s: %d partially overlapping slices" % (model, bad)
kinds = {names[k].split(" #")[0] for k in tracks}
cats = {e.get("cat") for e in ev if e.get("ph") == "X"}
if link:  # one track per link, on the sender
    assert "compute" in kinds and any(k.startswith("link -> ") for k in kinds), kinds
    assert cats == {"compute", "send"}, cats
else:
    assert {"compute", "send", "recv"} <= kinds, (model, kinds)
    assert cats == {"compute", "send", "recv"}, cats
    for k in tracks:
        cat = {e["cat"] for e in ev if e.get("ph") == "X" and (e["pid"], e["tid"]) == k}
        assert len(cat) == 1 and names[k].split(" #")[0] == cat.pop(), (k, names[k])
ops = sum(1 for e in ev if e.get("ph") == "X" and e["cat"] == "compute")
assert ops == res["n_ops"], (ops, res["n_ops"])
peak = collections.defaultdict(int)
kpeak = collections.defaultdict(int)
for e in ev:
    if e.get("ph") == "C" and e["name"] == "memory by kind":
        kpeak[e["pid"]] = max(kpeak[e["pid"]], sum(e["args"].values()))
    elif e.get("ph") == "C":
        assert e["name"] == "memory" and isinstance(e["args"]["bytes"], int), e
        peak[e["pid"]] = max(peak[e["pid"]], e["args"]["bytes"])
for d in res["devices"]:
    assert peak[d["id"]] == d["peak_bytes"], (model, d["id"], peak[d["id"]], d["peak_bytes"])
    assert kpeak[d["id"]] == d["peak_bytes"], (model, "by kind", d["id"], kpeak[d["id"]])
PY
EOF

test_expect_success 'setup: GNMT placed by m-ETF' '
    expect_exit 0 "$BAECHI" place -w "$GNMT" -c paper-4gpu-pcie -p m-etf -o "$TMPDIR_TEST/p.yaml"
'

for how in sim-baechi sim-timed run-baechi run-timed; do
    test_expect_success "$how: slices nest, compute, sends and receives apart, memory peaks as in the JSON" - <<'EOF'
m=${how#*-}
if [ "${how%-*}" = sim ]; then
    expect_exit 0 "$BAECHI" sim -w "$GNMT" -c paper-4gpu-pcie --placement "$TMPDIR_TEST/p.yaml" \
        --model $m --json --trace "$TMPDIR_TEST/$m.trace.json"
    cp "$TMPDIR_TEST/out" "$TMPDIR_TEST/$m.sim.json"
else # run --trace records the model --trace-model names
    expect_exit 0 "$BAECHI" run -w "$GNMT" -c paper-4gpu-pcie -p m-etf --json \
        --trace "$TMPDIR_TEST/$m.trace.json" --trace-model $m
    python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); s = r["sim"][sys.argv[2]]; s["n_ops"] = r["n_ops"]; json.dump(s, open(sys.argv[3], "w"))' \
        "$TMPDIR_TEST/out" $m "$TMPDIR_TEST/$m.sim.json"
fi
python3 "$TMPDIR_TEST/check.py" "$TMPDIR_TEST/$m.trace.json" "$TMPDIR_TEST/$m.sim.json" $m
EOF
done

# the timed model's other channel models: one shared channel per device
# (sends and receives on their own tracks), and a channel per link
for ch in shared link; do
    test_expect_success "channel $ch: slices nest, its tracks, memory peaks as in the JSON" - <<'EOF'
sed "s/^  channel: duplex/  channel: $ch/" "$TOP/data/clusters/paper-4gpu-pcie.yaml" > "$TMPDIR_TEST/$ch.yaml"
grep -q "channel: $ch" "$TMPDIR_TEST/$ch.yaml"
expect_exit 0 "$BAECHI" sim -w "$GNMT" -c "$TMPDIR_TEST/$ch.yaml" --placement "$TMPDIR_TEST/p.yaml" \
    --json --trace "$TMPDIR_TEST/$ch.trace.json"
expect_grep "\"channel\": \"$ch\"" "$TMPDIR_TEST/out"
cp "$TMPDIR_TEST/out" "$TMPDIR_TEST/$ch.sim.json"
python3 "$TMPDIR_TEST/check.py" "$TMPDIR_TEST/$ch.trace.json" "$TMPDIR_TEST/$ch.sim.json" $ch $ch
EOF
done

test_done
