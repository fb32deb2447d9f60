# GNMT-v2 loads and simulates under its given (hand-made) placement with
# both models: step time and per-device peak memory with units, a Chrome
# trace that parses, and the same numbers in JSON.
. "$TOP/tests/cli/lib.sh"

for m in baechi timed; do
    test_expect_success "sim --model $m: step, lower bound, peak with units, a trace that parses" - <<'EOF'
expect_exit 0 "$BAECHI" sim -w "$GNMT" -c paper-4gpu-pcie --placement given --model $m \
    --trace "$TMPDIR_TEST/$m.json"
expect_grep "^model +$m" "$TMPDIR_TEST/out"
expect_grep '^step time +[0-9]+\.[0-9]+ ms \([0-9]+ µs\)' "$TMPDIR_TEST/out"
expect_grep '^lower bound +78\.692 ms' "$TMPDIR_TEST/out"
expect_grep 'gpu3 .* peak +[0-9.]+ (MiB|GiB) of +6\.44 GiB' "$TMPDIR_TEST/out"
python3 - "$TMPDIR_TEST/$m.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
ev = t["traceEvents"]
spans = [e for e in ev if e.get("ph") == "X"]
assert len([e for e in spans if "op" in e.get("args", {})]) == 2494, "one compute span per op"
assert any("tensor" in e.get("args", {}) for e in spans), "transfers drawn"
PY
EOF
done

# The original's virtual scheduler on the model's own placement (a fixed
# number: a change here is a change of the baechi model's semantics).
test_expect_success 'the baechi model on the given placement: 134779 us' - <<'EOF'
expect_exit 0 "$BAECHI" sim -w "$GNMT" -c paper-4gpu-pcie --placement given --model baechi --json
python3 - "$TMPDIR_TEST/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["step_us"] == 134779, r["step_us"]
assert r["lower_bound_us"] == 78692, r["lower_bound_us"]
assert len(r["devices"]) == 4
PY
EOF

test_done
