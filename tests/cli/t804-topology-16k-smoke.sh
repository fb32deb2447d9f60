# check: once
# 16,384 GPUs in the suite (issue 32 items 1 and 3): data parallelism over
# every GPU of dgx-h100-superpod-16k (2,048 DGX H100 nodes, three-tier
# non-blocking fat tree), a reduced model (per GPU: a gradient op, one
# all-reduce bucket of 400 MB over all 16,384 ranks, an update).  sim and
# run take it in about a second; the step is the hierarchy's closed form
# (m = 2,048 nodes of g = 8: 2(g-1) 10 + 2(m-1) 5 µs + max(2(g-1)/g S /
# 360 GB/s, 2(m-1)/m S / (8 x 45 GB/s))); every in-node ring link and every
# rail link is counted (the simulator keeps counters for the 32,768 pairs
# that exchange traffic, not for 16,384^2: before, 4.2 GB and 15 s; the
# resident set stays under 256 MB where /usr/bin/time can say).  Normal
# build only: a sanitizer's shadow memory is not the program's.
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"

test_expect_success 'setup: 16,384 ranks of one all-reduce' - <<'EOF2'
awk 'BEGIN {
    S = 400000000
    printf "format: 1\nname: dp16k\nops:\n"
    for (i = 0; i < 16384; i++) {
        printf "  - {name: p%d, type: Grad, time_us: 100, outputs: [%d], device: %d}\n", i, S, i
        printf "  - {name: ar@r%d, type: AllReduce, time_us: 0, outputs: [%d], inputs: [\"p%d:0\"], device: %d, x-collective: {id: ddp/b0, kind: all-reduce, bytes: %d}}\n", i, S, i, i, S
        printf "  - {name: u%d, type: Update, time_us: 10, inputs: [\"ar@r%d:0\"], device: %d}\n", i, i, i
    }
}' > w.yaml
EOF2

test_expect_success 'sim: the closed form, every link counted' - <<'EOF2'
expect_exit 0 "$BAECHI" sim -w w.yaml -c dgx-h100-superpod-16k --placement given --json
python3 - "$TMPDIR_TEST/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
S, m, g = 4e8, 2048, 8
want = 110 + 2 * (g - 1) * 10 + 2 * (m - 1) * 5 + max(2 * (g - 1) / g * S / 360e3,
                                                      2 * (m - 1) / m * S / (g * 45e3))
assert abs(r["step_us"] - want) <= 1, (r["step_us"], want)
t = r["transfers"]
assert len(t) == 2 * 16384, len(t)
ring, rail = round(2 * (g - 1) / g * S), round(2 * (m - 1) / m * S / g)
assert r["transfer_bytes"] == 16384 * (ring + rail), r["transfer_bytes"]
assert {"src": 0, "dst": 8, "bytes": rail, "n_transfers": 1} in t
assert {"src": 16376, "dst": 0, "bytes": rail, "n_transfers": 1} in t
assert {"src": 16383, "dst": 16376, "bytes": ring, "n_transfers": 1} in t
PY
EOF2

# The same with `algo: tree`: trees on the rails, 2 ceil(log2 2048) = 22
# steps of 5 µs instead of 2 x 2047, and 2 S/(8 x 45 GB/s).
test_expect_success 'algo: tree: the tree across the 2,048 nodes' - <<'EOF2'
sed 's/kind: all-reduce, bytes: 400000000}/kind: all-reduce, bytes: 400000000, algo: tree}/' w.yaml > wt.yaml
expect_exit 0 "$BAECHI" sim -w wt.yaml -c dgx-h100-superpod-16k --placement given --json
python3 - "$TMPDIR_TEST/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
S, g = 4e8, 8
want = 110 + 2 * (g - 1) * 10 + 2 * 11 * 5 + max(2 * (g - 1) / g * S / 360e3, 2 * S / (g * 45e3))
assert abs(r["step_us"] - want) <= 1, (r["step_us"], want)
PY
EOF2

test_expect_success 'run (both models and the bound) takes it too' - <<'EOF2'
expect_exit 0 "$BAECHI" run -w w.yaml -c dgx-h100-superpod-16k -p given
expect_grep '^step \(timed\) +22\.94[0-9] ms \(2294[0-9] µs\)' "$TMPDIR_TEST/out"
EOF2

if [ -x /usr/bin/time ] && /usr/bin/time -f %M true > /dev/null 2>&1; then
    test_expect_success 'the resident set stays under 256 MB' - <<'EOF2'
/usr/bin/time -f 'rss_kb %M' -o rss.txt "$BAECHI" sim -w w.yaml -c dgx-h100-superpod-16k \
    --placement given > /dev/null
kb=$(sed -n 's/^rss_kb //p' rss.txt)
echo "max RSS $kb KB"
test "$kb" -lt 262144
EOF2
else
    test_skip 'the resident set stays under 256 MB' 'no GNU /usr/bin/time'
fi

test_done
