# Memory limits saturate instead of wrapping (issue 13, item 5): a device of
# INT64_MAX bytes gives a limit of INT64_MAX bytes, never a negative one
# ("device 0 has -9223372036854775808 bytes free").  A memory fraction above
# 1 is refused since issue 19 (it gave limits above the device's memory).
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
expect_exit 0 "$BAECHI" run -w "$T1" -c big.yaml -p $p
expect_exit 0 "$BAECHI" run -w "$T1" -c big.yaml -p $p --memory-fraction 1
expect_exit 0 "$BAECHI" place -w "$T1" -c big.yaml -p $p --memory-fraction 1 -o pl.yaml
! grep -q -- '-[0-9]' "$TMPDIR_TEST/err" || { echo "negative number: $p"; cat err; exit 1; }
EOF
done

test_expect_success 'a fraction above 1 is refused, not clamped' '
    expect_exit 2 "$BAECHI" run -w "$T1" -c dgx-h100-8 -p m-etf --memory-fraction 1e9
    expect_grep "memory-fraction must be a number in 1e-09..1" err
'

# the simulators' view of INT64_MAX devices saturates too
test_expect_success 'the devices the simulators see saturate, never negative' - <<'EOF'
expect_exit 0 "$BAECHI" run -w "$T1" -c big.yaml -p m-etf --json
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
