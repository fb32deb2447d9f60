# Memory limits saturate instead of wrapping (issue 13, item 5): a huge
# --memory-fraction or a device of INT64_MAX bytes gives a limit of INT64_MAX
# bytes, never a negative one ("device 0 has -9223372036854775808 bytes free").
. "$TOP/tests/cli/lib.sh"

T1="$TOP/tests/data/t1.yaml"
cd "$TMPDIR_TEST"

test_expect_success 'setup: a cluster with devices of INT64_MAX bytes' - <<'EOF'
cat > big.yaml <<'YAML'
format: 1
name: big
devices:
  - {name: gpu, count: 2, memory: 9223372036854775807}
YAML
EOF

for p in m-etf m-sct m-topo m-topo-nonuniform; do
    test_expect_success "$p: the limits saturate, never a negative number" - <<'EOF'
expect_exit 0 "$BAECHI" run -w "$T1" -c dgx-h100-8 -p $p --memory-fraction 1e9
expect_exit 0 "$BAECHI" run -w "$T1" -c big.yaml -p $p --memory-fraction 1e9
expect_exit 0 "$BAECHI" place -w "$T1" -c big.yaml -p $p --memory-fraction 2 -o pl.yaml
! grep -q -- '-[0-9]' "$TMPDIR_TEST/err" || { echo "negative number: $p"; cat err; exit 1; }
EOF
done

# the fraction is clamped, and so is the simulators' view of the devices
test_expect_success 'the fraction is clamped, and so are the devices the simulators see' - <<'EOF'
expect_exit 0 "$BAECHI" run -w "$T1" -c big.yaml -p m-etf --json --memory-fraction 3
python3 - "$TMPDIR_TEST/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
def walk(x):
    if isinstance(x, dict):
        for k, v in x.items():
            if "limit" in k or "memory" in k:
                assert not (isinstance(v, (int, float)) and v < 0), (k, v)
            walk(v)
    elif isinstance(x, list):
        for v in x:
            walk(v)
walk(r)
PY
EOF

test_done
