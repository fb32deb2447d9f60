# check: slow once
# t520-verdicts.sh - one memory verdict per placement (issue 19): `sim` of the
# file `place` wrote gives `run`'s step, peaks and OOM verdict; an explicit
# --memory-fraction overrides the file's and says so; another cluster warns.
. "$TOP/tests/cli/lib.sh"

# verdict JSON MODEL: "step peaks... limits... oom" of `run --json` (MODEL) or `sim --json`
verdict() {
    python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
m = d["sim"][sys.argv[2]] if "sim" in d else d
print(m["step_us"], [x["peak_bytes"] for x in m["devices"]],
      [x["limit_bytes"] for x in m["devices"]], m["oom"])
PY
}

test_expect_success 'the issue: paper at 0.2 on GNMT, sim of the placement says OOM as run does' '
    "$BAECHI" place -w "$GNMT" -c paper-4gpu-pcie -p paper --memory-fraction 0.2 -o "$TMPDIR_TEST/p.yaml" 2>/dev/null
    expect_grep "^memory_fraction: 0.2$" "$TMPDIR_TEST/p.yaml"
    expect_grep "^cluster_hash: " "$TMPDIR_TEST/p.yaml"
    expect_grep "^n_devices: 4$" "$TMPDIR_TEST/p.yaml"
    expect_exit 0 "$BAECHI" sim -w "$GNMT" -c paper-4gpu-pcie --placement "$TMPDIR_TEST/p.yaml"
    expect_grep "gpu3 .* of +1.29 GiB .*OOM" "$TMPDIR_TEST/out"
'

test_expect_success 'run and sim of the placed file agree: 2 models, placers, fractions, both sim models' - <<'EOF'
"$BAECHI" workload gen inception-v3 -b 8 --forward-only -o "$TMPDIR_TEST/inc.yaml" 2>/dev/null
for w in "$GNMT" "$TMPDIR_TEST/inc.yaml"; do
    for p in paper m-topo single; do
        for f in 1 0.2; do
            set +e
            "$BAECHI" place -w "$w" -c paper-4gpu-pcie -p $p --memory-fraction $f -o "$TMPDIR_TEST/pl.yaml" 2>/dev/null
            rc=$?
            set -e
            [ $rc -eq 3 ] && continue   # infeasible: nothing to compare
            "$BAECHI" run -w "$w" -c paper-4gpu-pcie -p $p --memory-fraction $f --json > "$TMPDIR_TEST/run.json"
            for m in timed baechi; do
                "$BAECHI" sim -w "$w" -c paper-4gpu-pcie --placement "$TMPDIR_TEST/pl.yaml" -m $m --json > "$TMPDIR_TEST/sim.json"
                a=$(verdict "$TMPDIR_TEST/run.json" $m)
                b=$(verdict "$TMPDIR_TEST/sim.json" $m)
                if [ "$a" != "$b" ]; then
                    echo "$(basename "$w") $p $f $m: run says $a"
                    echo "$(basename "$w") $p $f $m: sim says $b"
                    exit 1
                fi
            done
        done
    done
done
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
