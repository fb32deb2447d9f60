# check: sanitized-only
# calibrate measures a ring all-reduce (issue 23, item 1): the CPU backend's
# shared-memory stand-in (threads doing a ring all-reduce over memcpy and
# sums) over every device, fitted and read as a per-link B and alpha; in the
# JSON ("allreduce"), the summary and the YAML's comments; not with one device.
. "$TOP/tests/cli/lib.sh"

test_expect_success 'four host threads: the all-reduce fit and its per-link reading' - <<'EOF'
expect_exit 0 "$BAECHI" calibrate --quick --devices 0,1,2,3 --max-exp 14 --json -o "$TMPDIR_TEST/c.yaml"
python3 - "$TMPDIR_TEST/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
a = d["allreduce"]
assert a["ranks"] == 4, a
assert len(a["median_us"]) == len(d["sizes_bytes"]), a
assert all(t > 0 for t in a["median_us"]), a
f = a["fit"]
want = max(0, f["slope_us_per_byte"] * 4 / 6)
assert abs(a["link_slope_us_per_byte"] - want) <= 1e-6 * want + 1e-15, a
assert abs(a["link_alpha_us"] - max(0, f["intercept_us"] / 6)) <= 1e-3, a
PY
expect_grep '^# ring all-reduce over 4 devices: .* per link .* us/B, alpha [0-9.]+ us$' "$TMPDIR_TEST/c.yaml"
EOF

test_expect_success 'the summary names it' - <<'EOF'
expect_exit 0 "$BAECHI" calibrate --quick --max-exp 12 -o "$TMPDIR_TEST/c2.yaml"
expect_grep '^collectives: ring all-reduce over 2 devices: ' "$TMPDIR_TEST/out"
expect_grep '^  per link \(2\(n-1\)/n·S/B \+ 2\(n-1\)·α\): ' "$TMPDIR_TEST/out"
EOF

test_expect_success 'one device: no all-reduce' - <<'EOF'
expect_exit 0 "$BAECHI" calibrate --devices 0 --quick --json -o "$TMPDIR_TEST/one.yaml"
if grep -q '"allreduce"' "$TMPDIR_TEST/out"; then echo "allreduce with one device"; exit 1; fi
EOF

test_done
