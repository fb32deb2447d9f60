# `baechi cluster list` and `-c list` (issue 19 item 6): every preset of
# data/clusters/ is listed with its device count and memory per device, as
# its YAML says; `-c list` on the commands that take a cluster prints the
# same list and exits 0; --json validates against docs/schema/cluster-list.json;
# an unknown verb exits 2 with a suggestion.
. "$TOP/tests/cli/lib.sh"

test_expect_success 'cluster list: every preset with its device count and memory' - <<'EOF2'
expect_exit 0 "$BAECHI" cluster list
test ! -s "$TMPDIR_TEST/err"
for y in "$TOP"/data/clusters/*.yaml; do
    name=$(sed -n 's/^name: *//p' "$y")
    count=$(sed -n 's/^ *count: *\([0-9]*\).*/\1/p' "$y" | head -1)
    mem=$(sed -n 's/^ *memory: *\([0-9.]*\)\([A-Za-z]*\).*/\1 \2/p' "$y" | head -1)
    expect_grep "^  $name +$count  .* $mem +[0-9.]+ GB/s +[0-9.]+ µs +[a-z]+ +(datasheet|measured)" \
        "$TMPDIR_TEST/out"
done
expect_grep '^  dgx-h100-8 .* 450 GB/s +10 µs +duplex +datasheet$' "$TMPDIR_TEST/out"
expect_grep '^  paper-4gpu-pcie .* 5.7 GB/s +134 µs +duplex +measured$' "$TMPDIR_TEST/out"
EOF2

test_expect_success 'cluster list --json: the schema, and the same presets' - <<'EOF2'
expect_exit 0 "$BAECHI" cluster list --json
python3 "$TOP/tests/json_schema.py" "$TOP/docs/schema/cluster-list.json" "$TMPDIR_TEST/out"
python3 - "$TMPDIR_TEST/out" "$TOP"/data/clusters/*.yaml <<'PY'
import json, re, sys
got = {c["name"]: c for c in json.load(open(sys.argv[1]))["clusters"]}
names = [re.search(r"^name: *(\S+)", open(y).read(), re.M).group(1) for y in sys.argv[2:]]
assert sorted(got) == sorted(names), (sorted(got), names)
assert got["dgx-h100-8"]["mem_bytes_per_device"] == 80 * 10**9, got["dgx-h100-8"]
assert got["dgx-h100-8"]["comm"]["bandwidth_bytes_per_s"] == 450e9, got["dgx-h100-8"]
assert got["paper-4gpu-pcie"]["mem_bytes_per_device"] == int(6.44 * 2**30), got["paper-4gpu-pcie"]
assert got["paper-4gpu-pcie"]["device_kind"] is None and got["paper-4gpu-pcie"]["n_devices"] == 4
assert got["paper-4gpu-pcie"]["numbers"] == "measured" and got["hgx-h200-8"]["numbers"] == "datasheet"
PY
EOF2

test_expect_success '-c list on place, run, sim, replay prints the same list, exit 0' - <<'EOF2'
expect_exit 0 "$BAECHI" cluster list
cp "$TMPDIR_TEST/out" "$TMPDIR_TEST/list"
for cmd in place run sim replay; do
    expect_exit 0 "$BAECHI" $cmd -c list
    cmp "$TMPDIR_TEST/list" "$TMPDIR_TEST/out"
    test ! -s "$TMPDIR_TEST/err"
done
# with the other options given too, and as --cluster list
expect_exit 0 "$BAECHI" run -w "$GNMT" --cluster list -p m-etf
cmp "$TMPDIR_TEST/list" "$TMPDIR_TEST/out"
expect_exit 0 "$BAECHI" place -w "$GNMT" -c list -p m-topo
cmp "$TMPDIR_TEST/list" "$TMPDIR_TEST/out"
EOF2

test_expect_success 'an unknown verb exits 2 with did-you-mean' - <<'EOF2'
expect_exit 2 "$BAECHI" cluster lsit
expect_grep "'lsit' is not a verb of 'cluster'" "$TMPDIR_TEST/err"
expect_grep '^[[:space:]]+list$' "$TMPDIR_TEST/err"
expect_exit 2 "$BAECHI" cluster
expect_grep '^ +list ' "$TMPDIR_TEST/err"
expect_exit 2 "$BAECHI" cluster list extra
expect_exit 0 "$BAECHI" cluster --help
expect_exit 0 "$BAECHI" --help
expect_grep '^ +cluster ' "$TMPDIR_TEST/out"
EOF2

test_expect_success 'a preset name close to list is still a usage error with a suggestion' '
    expect_exit 2 "$BAECHI" run -w "$GNMT" -c paper-4gpu -p m-etf
    expect_grep "paper-4gpu-pcie" "$TMPDIR_TEST/err"
'

test_done
