# One verdict per run (issue 33 item 1): `run` states whether the step fits
# from one model (--model, default timed: the one sweeps, reports and
# figures use), in words, marks OUT OF MEMORY only where that model
# overflows, shows the other model's peak as that model's, and agrees with
# its --json verdict and with the status `run --db` stores for that model.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"
GNMT="$TOP/data/workloads/gnmt_v2/gnmt_v2_b128_fwd.yaml"

test_expect_success 'setup: a GPT step in 2-way tensor parallelism' '
    "$BAECHI" workload gen gpt --size small -b 4 --seq 256 --device h100 --tp 2 -o tp.yaml > /dev/null
'

# agree W C P FRACTION MODEL: text, JSON and the stored status say the same
agree() {
    w=$1 c=$2 p=$3 f=$4 m=$5
    rm -f r.db
    rc=0
    "$BAECHI" run -w "$w" -c "$c" -p "$p" --memory-fraction "$f" --model "$m" --db r.db > out.txt ||
        rc=$?
    if [ "$rc" -eq 3 ]; then # infeasible: a result with no step, hence no verdict
        ! grep -q "^verdict" out.txt
        "$BAECHI" db query --db r.db --format csv "select status from runs" | grep -q infeasible
        echo infeasible
        return 0
    fi
    [ "$rc" -eq 0 ]
    "$BAECHI" run -w "$w" -c "$c" -p "$p" --memory-fraction "$f" --model "$m" --json > out.json
    [ "$(grep -c "^verdict " out.txt)" -eq 1 ] || { echo "not one verdict line"; exit 1; }
    grep -q "^verdict .*($m model)" out.txt
    fits=$(python3 -c "import json; print(json.load(open(\"out.json\"))[\"verdict\"][\"fits\"])")
    over=$(python3 -c "import json; print(json.load(open(\"out.json\"))[\"verdict\"][\"n_devices_over\"])")
    stored=$("$BAECHI" db query --db r.db --format csv \
        "select status from runs where sim_model = '$m'" | tail -n 1)
    if [ "$fits" = True ]; then
        grep -q "^verdict        fits ($m model): .* of .* on the fullest GPU" out.txt
        [ "$stored" = ok ]
    else
        grep -q "^verdict        does not fit ($m model): .* needs .* more than its" out.txt
        [ "$stored" = oom ]
    fi
    [ "$(grep -c "OUT OF MEMORY" out.txt)" -eq "$over" ] ||
        { echo "OUT OF MEMORY marks $(grep -c "OUT OF MEMORY" out.txt), devices over $over"; exit 1; }
    echo "$fits"
}

test_expect_success 'the models disagree here: timed does not fit, baechi fits; each verdict is its own' '
    [ "$(agree tp.yaml dgx-h100-8 given 0.0157 timed)" = False ]
    grep -q "(baechi model 888.17 MiB)" out.txt
    [ "$(agree tp.yaml dgx-h100-8 given 0.0157 baechi)" = True ]
    grep -q "(timed model 1.19 GiB)" out.txt
'

test_expect_success 'the default is the timed model' '
    "$BAECHI" run -w tp.yaml -c dgx-h100-8 -p given --memory-fraction 0.0157 > def.txt
    grep -q "^verdict        does not fit (timed model)" def.txt
'

test_expect_success 'GNMT with m-TOPO and m-ETF over memory fractions: verdict = stored status' '
    for p in m-topo m-etf; do
        for f in 0.1 0.2 1; do
            agree "$GNMT" paper-4gpu-pcie "$p" "$f" timed > /dev/null
        done
    done
'

# two GPUs over: the verdict names the one that needs the most, not the first
test_expect_success 'two GPUs over their memory: the verdict names the worst' - <<'XEOF'
cat > c3.yaml <<'C'
format: 1
name: uneven3
devices:
  - {name: big, memory: 8GiB, speed: 1.0}
  - {name: tiny, memory: 0.12GiB, speed: 1.0}
  - {name: small, memory: 0.05GiB, speed: 1.0}
comm: {slope_us_per_byte: 0.0001754, intercept_us: 134}
C
"$BAECHI" workload gen transformer --forward-only -o tf.yaml > /dev/null
expect_exit 0 "$BAECHI" run -w tf.yaml -c c3.yaml -p round-robin
expect_grep "^verdict +does not fit \(timed model\): small needs [0-9.]+ MiB more than its 51.20 MiB; 2 of 3 GPUs are over their memory" "$TMPDIR_TEST/out"
XEOF

test_expect_success 'a bad --model is a usage error naming it' '
    expect_exit 2 "$BAECHI" run -w tp.yaml -c dgx-h100-8 -p given --model fast
    expect_grep "fast" "$TMPDIR_TEST/err"
'

test_done
