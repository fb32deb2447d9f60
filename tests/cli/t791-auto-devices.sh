# check: once
#!/bin/sh
# t791: placers on 4,096 devices in bounded memory or refused (issue 30
# item 6).  `auto` on 512 nodes of 8 alike GPUs searches the prefix that
# holds every placement of the graph (searched_devices) and stays within
# 1 GiB of address space (before: 14 GB, not finished in 120 s); on 4,096
# devices that are not alike nodes it refuses with a message; `pipeline`
# stays within 1 GiB and refuses a planner that would not finish; m-SCT
# refuses more than 64 devices before solving its LP.
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"

test_expect_success 'setup: the 79-op GPT graph, 4,096 GPUs as nodes and mixed' - <<'EOF2'
"$BAECHI" workload gen gpt --layers 2 --d-model 64 --heads 4 --vocab 100 -b 4 --seq 8 --dropout 0 -o g.yaml 2>/dev/null
nodes_cluster 4096 nodes-4096 > nodes.yaml
cat > mixed.yaml <<'YAML'
format: 1
name: mixed-4096
devices:
  - name: a
    count: 2048
    memory: 80GB
  - name: b
    count: 2048
    memory: 80GB
    speed: 2
comm:
  slope_us_per_byte: 2.2e-6
  intercept_us: 10
YAML
EOF2

# $1 KiB of address space, then the command.
limited() {
    kib=$1
    shift
    sh -c "ulimit -v $kib; exec \"\$@\"" sh "$@"
}

test_expect_success 'auto on 4,096 alike GPUs: within 1 GiB, 632 devices searched' '
    expect_exit 0 limited 1048576 "$BAECHI" place -w g.yaml -c nodes.yaml -p auto -o a.yaml &&
    grep -q "devices: 4096" a.yaml && grep -q "searched_devices: 632" a.yaml
'

test_expect_success 'run -p auto on 4,096 alike GPUs: within 1 GiB' '
    expect_exit 0 limited 1048576 "$BAECHI" run -w g.yaml -c nodes.yaml -p auto
'

test_expect_success 'auto on 4,096 devices that are not alike nodes: refused, exit 2' '
    expect_exit 2 limited 1048576 "$BAECHI" place -w g.yaml -c mixed.yaml -p auto -o b.yaml &&
    expect_grep "auto searches at most 1024 devices, and cluster .mixed-4096. has 4096" "$TMPDIR_TEST/err" &&
    expect_grep "use --devices K" "$TMPDIR_TEST/err" &&
    expect_exit 0 limited 1048576 "$BAECHI" place -w g.yaml -c mixed.yaml -k 256 -p auto -o b.yaml
'

test_expect_success 'pipeline on 4,096 GPUs: within 1 GiB; a planner too large refused' '
    expect_exit 0 limited 1048576 "$BAECHI" place -w g.yaml -c nodes.yaml -p pipeline -o p.yaml &&
    "$BAECHI" workload gen synthetic --shape chain --ops 20000 -o chain.yaml 2>/dev/null &&
    expect_exit 2 limited 1048576 "$BAECHI" place -w chain.yaml -c nodes.yaml -p pipeline -o q.yaml &&
    expect_grep "pipeline: 20000 units on 4096 stages .* use --devices K \(-k\) with K <= 2," "$TMPDIR_TEST/err"
'

test_expect_success 'm-sct on 4,096 GPUs: refused before its LP' '
    expect_exit 2 sh -c "ulimit -t 5; exec \"\$@\"" sh "$BAECHI" place -w g.yaml -c nodes.yaml -p m-sct -o s.yaml &&
    expect_grep "m-etf/m-sct support 1 to 64 devices, not 4096" "$TMPDIR_TEST/err"
'

test_done
