# check: once
# 16,384 GPUs by replica symmetry (issue 32 items 2 and 3): a reduced GPT
# (8 layers, d 64, 2 micro-batches) in TP 8 x PP 8 x DP 256 on
# dgx-h100-superpod-16k, written as four ranks a stage (TP ranks 0 and 7 of
# replicas 0 and 255: 32 GPUs' ops, not 16,384 GPUs'); each DP bucket
# all-reduce runs over its 256 ranks, one GPU a node (a ring over the NICs
# crossing leaf groups and pods: 0 -> 8 -> ... -> 2040 -> 0 for device 0,
# every link the same bytes), each TP all-reduce over its 8 ranks; every GPU
# reports its class's representative's results.  sim and run take it in well
# under a second here and the resident set stays under 64 MB.
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"

test_expect_success 'setup: one replica of 256' - <<'EOF2'
"$BAECHI" workload gen gpt --layers 8 --d-model 64 --heads 8 --vocab 128 --seq 16 --batch 8 \
    --micro-batches 2 --dropout 0 --device h100 --tp 8 --pp 8 --dp 256 --symmetric \
    -o s.yaml > /dev/null 2>&1
grep -q '^  devices: 16384$' s.yaml
EOF2

test_expect_success 'sim: 16,384 GPUs, the DP rings over all replicas' - <<'EOF2'
expect_exit 0 "$BAECHI" sim -w s.yaml -c dgx-h100-superpod-16k --placement given --json
python3 - "$TMPDIR_TEST/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["symmetry"] == {"replicas": 256, "stride": 8, "devices": 16384, "tp": 8, "classes": 4}
assert r["n_devices"] == 16384
dev = r["devices"]
assert all(d["n_ops"] > 0 for d in dev)
# device u shows its class's representative's: TP rank 0 or 7 of replica 0
# or 255 of its stage
for u in range(0, 16384, 97):
    t, d = u % 8, u // 8 % 256
    v = u - u % 2048 + (7 if t == 7 else 0) + 8 * (255 if d == 255 else 0)
    assert dev[u]["peak_bytes"] == dev[v]["peak_bytes"] and dev[u]["busy_us"] == dev[v]["busy_us"]
ring = {(x["src"], x["dst"]): x["bytes"] for x in r["transfers"]}
hops = [(8 * k, 8 * (k + 1) % 2048) for k in range(256)]
assert all(h in ring for h in hops), [h for h in hops if h not in ring][:3]
assert len({ring[h] for h in hops}) == 1
# docs/symmetry.md quotes these
assert r["n_ops"] == 2164 and r["step_us"] == 9036, (r["n_ops"], r["step_us"])
PY
EOF2

test_expect_success 'run takes it too' - <<'EOF2'
expect_exit 0 "$BAECHI" run -w s.yaml -c dgx-h100-superpod-16k -p given
expect_grep '^symmetric +4 of 2048 ranks a stage simulated \(replicas 0 and 255 of 256' "$TMPDIR_TEST/out"
EOF2

if [ -x /usr/bin/time ] && /usr/bin/time -f %M true > /dev/null 2>&1; then
    test_expect_success 'the resident set stays under 64 MB' - <<'EOF2'
/usr/bin/time -f 'rss_kb %M' -o rss.txt "$BAECHI" sim -w s.yaml -c dgx-h100-superpod-16k \
    --placement given > /dev/null
kb=$(sed -n 's/^rss_kb //p' rss.txt)
echo "max RSS $kb KB"
test "$kb" -lt 65536
EOF2
else
    test_skip 'the resident set stays under 64 MB' 'no GNU /usr/bin/time'
fi

test_done
