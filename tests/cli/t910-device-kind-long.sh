# check: fast
# t910-device-kind-long.sh - a device kind of any length reaches the
# workload's name whole (issue 34 item 2): costmodel_from_spec() kept the
# kind of a --device cluster file in a char[128], so a kind of 127 bytes or
# more was cut in the name that `workload gen`, `workload import` and a
# sweep's gen: write.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"
K=gpu-$(printf '%0200d' 0 | tr 0 x)-end # 208 bytes

cat > c.yaml <<EOF
format: 1
name: cal
devices:
  - {name: gpu0, kind: $K, memory: 80GiB, peak_flops: 50e12, memory_bandwidth: 3e12}
comm: {slope_us_per_byte: 0.001, intercept_us: 10}
EOF

test_expect_success 'workload gen --device CLUSTER: the whole kind in the name' - <<'EOF'
expect_exit 0 "$BAECHI" workload gen gpt --layers 1 --seq 8 -b 2 --d-model 64 --heads 4 \
    --vocab 100 --device c.yaml -o g.yaml
grep -qx "name: gpt-small_b2_s8_l1_d64_nh4_v100_$K" g.yaml || { grep '^name' g.yaml; exit 1; }
EOF

test_expect_success 'workload import --device CLUSTER: the whole kind in the name' - <<'EOF'
expect_exit 0 "$BAECHI" workload import "$TOP/tests/data/onnx/ln_gelu.onnx" --device c.yaml \
    -o i.yaml
grep -qx "name: ln_gelu_$K" i.yaml || { grep '^name' i.yaml; exit 1; }
EOF

test_expect_success 'a sweep of gen:...&device=CLUSTER: the whole kind in the name' - <<'EOF'
cat > s.yaml <<S
name: s
workloads: ["gen:gpt?layers=1&d_model=64&heads=4&vocab=100&seq=8&batch=2&device=c.yaml"]
clusters: [paper-4gpu-pcie]
devices: [2]
placers: [m-topo]
S
expect_exit 0 "$BAECHI" sweep s.yaml --db r.db --quiet
expect_exit 0 "$BAECHI" db query --db r.db "SELECT DISTINCT workload FROM runs"
grep -q -- "-end" "$TMPDIR_TEST/out" || { cat "$TMPDIR_TEST/out"; exit 1; }
EOF

test_done
