# check: slow sanitized-only
# m-SCT on GNMT's training graph at 80 steps with coplace + fusion (issue
# 22, item 4): GLPK finds the warm basis singular to working precision, and
# the scaled retry restarts from the same warm basis, solving the LP in
# about 3,200 iterations (the retry from glp_adv_basis took 32,141, 40-60 s).
# The iteration limit makes the check independent of the machine's speed.
# The graph is timed with the flat roofline of the first cost model (a V100
# whose peak_flops is given, as a calibrated device: docs/devices.md), the
# times that made GLPK's basis singular; the device table's GEMM rates give
# another LP, solved without the retry.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

test_expect_success 'setup: the GNMT training graph, 80 steps' '
    printf "%s\n" "format: 1" "name: v100-flat" "devices:" \
        "  - {name: gpu, kind: v100, memory: 16GB, peak_flops: 15.7TFLOPS, memory_bandwidth: 900GB/s}" \
        > v100-flat.yaml &&
    "$BAECHI" workload gen gnmt --seq 80 --device v100-flat.yaml -o g.yaml
'

test_expect_success 'm-SCT, coplace + fusion: the LP optimal within 10,000 iterations' '
    "$BAECHI" place -w g.yaml -c paper-4gpu-pcie -p m-sct --grouper coplace --fusion \
        --lp-iteration-limit 10000 -o p.yaml &&
    grep -q "lp_status: .optimal (retry: scaled)." p.yaml &&
    grep -q "lp_makespan_us: 215886.575" p.yaml
'

test_done
