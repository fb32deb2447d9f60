# check: slow once
# t520-verdicts.sh - one memory verdict per placement (issue 19): `sim` of the
# file `place` wrote gives `run`'s step, peaks and OOM verdict; an explicit
# --memory-fraction overrides the file's and says so; another cluster warns.
. "$TOP/tests/cli/lib.sh"

test_expect_success 'the issue: paper at 0.2 on GNMT, sim of the placement says OOM as run does' '
    "$BAECHI" place -w "$GNMT" -c paper-4gpu-pcie -p paper --memory-fraction 0.2 -o "$TMPDIR_TEST/p.yaml" 2>/dev/null
    expect_grep "^memory_fraction: 0.2$" "$TMPDIR_TEST/p.yaml"
    expect_grep "^cluster_hash: " "$TMPDIR_TEST/p.yaml"
    expect_grep "^n_devices: 4$" "$TMPDIR_TEST/p.yaml"
    expect_exit 0 "$BAECHI" sim -w "$GNMT" -c paper-4gpu-pcie --placement "$TMPDIR_TEST/p.yaml"
    expect_grep "gpu3 .* of +1.29 GiB .*OOM" "$TMPDIR_TEST/out"
'

# (the verdicts of every pair compared by one Python process, not two per
# pair: 48 starts of Python were two thirds of this script's time)
test_expect_success 'run and sim of the placed file agree: 2 models, placers, fractions, both sim models' - <<'EOF'
"$BAECHI" workload gen inception-v3 -b 8 --forward-only -o "$TMPDIR_TEST/inc.yaml" 2>/dev/null
: > "$TMPDIR_TEST/pairs"
for w in "$GNMT" "$TMPDIR_TEST/inc.yaml"; do
    for p in paper m-topo single; do
        for f in 1 0.2; do
            set +e
            "$BAECHI" place -w "$w" -c paper-4gpu-pcie -p $p --memory-fraction $f -o "$TMPDIR_TEST/pl.yaml" 2>/dev/null
            rc=$?
            set -e
            [ $rc -eq 3 ] && continue   # infeasible: nothing to compare
            k=$(basename "$w" .yaml)-$p-$f
            "$BAECHI" run -w "$w" -c paper-4gpu-pcie -p $p --memory-fraction $f --json > "$TMPDIR_TEST/run-$k.json"
            for m in timed baechi; do
                "$BAECHI" sim -w "$w" -c paper-4gpu-pcie --placement "$TMPDIR_TEST/pl.yaml" -m $m --json \
                    > "$TMPDIR_TEST/sim-$k-$m.json"
                echo "$(basename "$w") $p $f $m $TMPDIR_TEST/run-$k.json $TMPDIR_TEST/sim-$k-$m.json" \
                    >> "$TMPDIR_TEST/pairs"
            done
        done
    done
done
test "$(wc -l < "$TMPDIR_TEST/pairs")" -ge 16
python3 - "$TMPDIR_TEST/pairs" <<'PY'
import json, sys
def verdict(path, model):
    d = json.load(open(path))
    m = d["sim"][model] if "sim" in d else d
    return "%s %s %s %s" % (m["step_us"], [x["peak_bytes"] for x in m["devices"]],
                            [x["limit_bytes"] for x in m["devices"]], m["oom"])
bad = 0
for line in open(sys.argv[1]):
    w, p, f, m, run, sim = line.split()
    a, b = verdict(run, m), verdict(sim, m)
    if a != b:
        print("%s %s %s %s: run says %s" % (w, p, f, m, a))
        print("%s %s %s %s: sim says %s" % (w, p, f, m, b))
        bad += 1
sys.exit(1 if bad else 0)
PY
EOF

test_expect_success 'an explicit --memory-fraction overrides the placement, said on stderr' '
    "$BAECHI" place -w "$GNMT" -c paper-4gpu-pcie -p paper --memory-fraction 0.2 -o "$TMPDIR_TEST/p.yaml" 2>/dev/null
    expect_exit 0 "$BAECHI" sim -w "$GNMT" -c paper-4gpu-pcie --placement "$TMPDIR_TEST/p.yaml" --memory-fraction 0.5
    expect_grep "memory-fraction 0.5 overrides the 0.2" "$TMPDIR_TEST/err"
    expect_grep "gpu3 .* of +3.22 GiB" "$TMPDIR_TEST/out"
'

test_expect_success 'another cluster or device count than the placement was made for warns' '
    "$BAECHI" place -w "$GNMT" -c paper-4gpu-pcie -p m-topo -k 2 -o "$TMPDIR_TEST/p2.yaml" 2>/dev/null
    expect_exit 0 "$BAECHI" sim -w "$GNMT" -c paper-4gpu-pcie --placement "$TMPDIR_TEST/p2.yaml"
    expect_grep "made for 2 devices, the cluster has 4" "$TMPDIR_TEST/err"
    expect_exit 0 "$BAECHI" sim -w "$GNMT" -c paper-2gpu-pcie --placement "$TMPDIR_TEST/p2.yaml"
    expect_grep "made for cluster .paper-4gpu-pcie. \(hash [0-9a-f]+\), this is .paper-2gpu-pcie." "$TMPDIR_TEST/err"
    test "$(wc -l < "$TMPDIR_TEST/err")" -eq 1
'

test_expect_success 'a memory fraction above 1 is refused everywhere' '
    expect_exit 2 "$BAECHI" run -w "$GNMT" -c paper-4gpu-pcie -p m-topo --memory-fraction 1.5
    expect_exit 2 "$BAECHI" place -w "$GNMT" -c paper-4gpu-pcie -p m-topo --memory-fraction 1.5
    expect_exit 2 "$BAECHI" sim -w "$GNMT" -c paper-4gpu-pcie -p given --memory-fraction 1.5
'

test_done
