# An output path that is also an input is refused with exit 2 and the input
# left as it was (issue 13, item 10): by name, through another spelling of the
# path, and through a hard or symbolic link (same st_dev and st_ino).
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"

test_expect_success 'setup: inputs, a hard and a symbolic link, their checksums' '
    cp "$TOP/tests/data/t1.yaml" w.yaml
    cp "$TOP/tests/data/t1-cluster.yaml" c.yaml
    cp "$TOP/tests/data/cal-annotate.yaml" a.yaml
    cp "$TOP/tests/data/cal-trace.json" trace.json
    cp "$TOP/tests/data/onnx/resnet50.onnx" m.onnx
    ln w.yaml hard.yaml
    ln -s w.yaml soft.yaml
    cksum w.yaml c.yaml a.yaml trace.json m.onnx > before
'

refused() {
    expect_exit 2 "$@"
    expect_grep "is also an input" "$TMPDIR_TEST/err"
    [ "$(wc -l < "$TMPDIR_TEST/err")" -eq 1 ] || { echo "expected one line: $*"; exit 1; }
}

test_expect_success 'refused: place -w w.yaml -c c.yaml -p m-etf -o w.yaml' '
    refused "$BAECHI" place -w w.yaml -c c.yaml -p m-etf -o w.yaml
'

test_expect_success 'refused: place -w w.yaml -c c.yaml -p m-etf -o ./w.yaml' '
    refused "$BAECHI" place -w w.yaml -c c.yaml -p m-etf -o ./w.yaml
'

test_expect_success 'refused: place -w w.yaml -c c.yaml -p m-etf -o hard.yaml' '
    refused "$BAECHI" place -w w.yaml -c c.yaml -p m-etf -o hard.yaml
'

test_expect_success 'refused: place -w w.yaml -c c.yaml -p m-etf -o soft.yaml' '
    refused "$BAECHI" place -w w.yaml -c c.yaml -p m-etf -o soft.yaml
'

test_expect_success 'refused: place -w w.yaml -c c.yaml -p m-etf -o c.yaml' '
    refused "$BAECHI" place -w w.yaml -c c.yaml -p m-etf -o c.yaml
'

test_expect_success 'refused: workload import m.onnx -o m.onnx' '
    refused "$BAECHI" workload import m.onnx -o m.onnx
'

test_expect_success 'refused: workload train w.yaml -o w.yaml' '
    refused "$BAECHI" workload train w.yaml -o w.yaml
'

test_expect_success 'refused: workload annotate a.yaml --profile trace.json -o a.yaml' '
    refused "$BAECHI" workload annotate a.yaml --profile trace.json -o a.yaml
'

test_expect_success 'refused: workload annotate a.yaml --profile trace.json -o trace.json' '
    refused "$BAECHI" workload annotate a.yaml --profile trace.json -o trace.json
'

test_expect_success 'refused: sim -w w.yaml -c c.yaml --placement given --trace w.yaml' '
    refused "$BAECHI" sim -w w.yaml -c c.yaml --placement given --trace w.yaml
'

test_expect_success 'refused: sim -w w.yaml -c c.yaml --placement given --trace c.yaml' '
    refused "$BAECHI" sim -w w.yaml -c c.yaml --placement given --trace c.yaml
'

test_expect_success 'refused: run -w w.yaml -c c.yaml -p m-etf --trace w.yaml' '
    refused "$BAECHI" run -w w.yaml -c c.yaml -p m-etf --trace w.yaml
'

test_expect_success 'the inputs are as they were' '
    cksum w.yaml c.yaml a.yaml trace.json m.onnx > after
    cmp before after || { echo "an input was changed"; exit 1; }
'

# distinct outputs still work, and devices are written as they are
test_expect_success 'a distinct output still works' '
    expect_exit 0 "$BAECHI" place -w w.yaml -c c.yaml -p m-etf -o p.yaml
'

test_expect_success 'a distinct trace still works' '
    expect_exit 0 "$BAECHI" sim -w w.yaml -c c.yaml -p p.yaml --trace t.json
'

test_expect_success 'a device is written as it is' '
    expect_exit 0 "$BAECHI" place -w w.yaml -c c.yaml -p m-etf -o /dev/null
'

test_expect_success 'annotate to a distinct output, a valid workload' '
    expect_exit 0 "$BAECHI" workload annotate a.yaml --profile trace.json -o a2.yaml
    expect_exit 0 "$BAECHI" workload info a2.yaml
'

test_done
