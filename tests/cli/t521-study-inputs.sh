# t521-study-inputs.sh - studies that cannot mislead (issue 19): generated
# names say every non-default option, --name, the device the op times were
# made for, ranges and contradictory flags.
. "$TOP/tests/cli/lib.sh"

name_of() { sed -n 's/^name: //p' "$1"; }

test_expect_success 'generated names carry non-default options; defaults keep their names' '
    "$BAECHI" workload gen gpt --size medium -b 16 --micro-batches 4 -o "$TMPDIR_TEST/a.yaml" >/dev/null
    test "$(name_of "$TMPDIR_TEST/a.yaml")" = gpt-medium_b16_mb4
    "$BAECHI" workload gen gnmt --seq 20 --optimizer adam --device h100 -o "$TMPDIR_TEST/b.yaml" >/dev/null
    test "$(name_of "$TMPDIR_TEST/b.yaml")" = gnmt_b128_s20_adam_h100
    "$BAECHI" workload gen gnmt -o "$TMPDIR_TEST/c.yaml" >/dev/null
    test "$(name_of "$TMPDIR_TEST/c.yaml")" = gnmt_b128
    "$BAECHI" workload gen gnmt --forward-only -o "$TMPDIR_TEST/c.yaml" >/dev/null
    test "$(name_of "$TMPDIR_TEST/c.yaml")" = gnmt_b128_fwd
'

test_expect_success '--name names a generated or imported workload' '
    "$BAECHI" workload gen gnmt --forward-only --name mine -o "$TMPDIR_TEST/n.yaml" >/dev/null
    test "$(name_of "$TMPDIR_TEST/n.yaml")" = mine
    "$BAECHI" workload import "$TOP/tests/data/onnx/lstm.onnx" --name lstm2 -o "$TMPDIR_TEST/i.yaml" >/dev/null
    test "$(name_of "$TMPDIR_TEST/i.yaml")" = lstm2
'

test_expect_success 'a workload records where its times come from; another device warns' '
    "$BAECHI" workload gen gnmt --forward-only -o "$TMPDIR_TEST/v.yaml" >/dev/null
    expect_grep "^x-times:" "$TMPDIR_TEST/v.yaml"
    expect_grep "^  device: v100" "$TMPDIR_TEST/v.yaml"
    expect_exit 0 "$BAECHI" place -w "$TMPDIR_TEST/v.yaml" -c dgx-h100-8 -p m-topo -o "$TMPDIR_TEST/p.yaml"
    expect_grep "made for device .v100., cluster .dgx-h100-8. has .h100" "$TMPDIR_TEST/err"
    "$BAECHI" workload gen gnmt --forward-only --device h100 -o "$TMPDIR_TEST/h.yaml" >/dev/null
    expect_exit 0 "$BAECHI" place -w "$TMPDIR_TEST/h.yaml" -c dgx-h100-8 -p m-topo -o "$TMPDIR_TEST/p.yaml"
    expect_exit 1 grep -q "made for device" "$TMPDIR_TEST/err"
'

test_expect_success 'contradictory or impossible generator options are refused' '
    expect_exit 2 "$BAECHI" workload gen gpt --forward-only --micro-batches 4
    expect_grep "forward-only" "$TMPDIR_TEST/err"
    expect_exit 2 "$BAECHI" workload gen gpt -b 2 --micro-batches 1024
    expect_grep "more micro-batches than the batch" "$TMPDIR_TEST/err"
'

test_expect_success 'memory fraction in (0, 1]' '
    expect_exit 2 "$BAECHI" run -w "$GNMT" -c paper-4gpu-pcie -p m-topo --memory-fraction 1.5
'

test_done
