# Sweep files are validated in full before the first run, with file:line:col:
# device counts beyond a cluster, unknown keys, and every gen: option of
# `workload gen` with its bounds (layers=100000 took 39 s and 2.5 GB even
# with --dry-run).  Nothing is run and no database is written.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

bad() { # bad NAME PATTERN: s-NAME.yaml is refused with exit 2, message matching PATTERN
    expect_exit 2 "$BAECHI" sweep "s-$1.yaml" --db "r-$1.db"
    expect_grep "$2" err
    test ! -e "r-$1.db" || { echo "$1: a database was written"; exit 1; }
}

test_expect_success 'devices beyond the cluster' - <<'EOF'
printf 'workloads: ["%s"]\nclusters: [paper-4gpu-pcie]\nplacers: [m-etf]\ndevices: [2, 8]\n' \
    "$GNMT" > s-devices.yaml
bad devices "s-devices.yaml:4:14: devices: '8' asks for 8 devices, and cluster 'paper-4gpu-pcie' has 4"
EOF

test_expect_success 'an unknown key' - <<'EOF'
printf 'workloads: ["%s"]\nclusters: [paper-4gpu-pcie]\nplacers: [m-etf]\nplacer: [m-sct]\n' \
    "$GNMT" > s-key.yaml
bad key "s-key.yaml:4:1: unknown key 'placer'"
EOF

gen() { # gen NAME SPEC PATTERN
    printf 'workloads: ["%s"]\nclusters: [paper-4gpu-pcie]\nplacers: [m-etf]\n' "$2" > "s-$1.yaml"
    bad "$1" "$3"
}

test_expect_success 'gen: layers out of bounds' - <<'EOF'
gen layers 'gen:gpt?layers=100000' "s-layers.yaml:1:13: .*parameter 'layers': expected an integer in 1..10000"
EOF

test_expect_success 'gen: heads out of bounds' - <<'EOF'
gen heads 'gen:gpt?heads=0' "parameter 'heads': expected an integer in 1..65536"
EOF

test_expect_success 'gen: elem_bytes out of bounds' - <<'EOF'
gen elem 'gen:gpt?elem_bytes=32' "parameter 'elem_bytes': expected an integer in 1..16"
EOF

test_expect_success 'gen: an unknown optimizer' - <<'EOF'
gen opt 'gen:gpt?optimizer=lion' "parameter 'optimizer': expected sgd, momentum or adam"
EOF

test_expect_success 'gen: an unknown size' - <<'EOF'
gen size 'gen:gpt?size=huge' "'huge' is not a size of gpt"
EOF

test_expect_success 'gen: a boolean that is not' - <<'EOF'
gen groups 'gen:gpt?no_groups=maybe' "parameter 'no_groups': expected true or false"
EOF

test_expect_success 'gen: an unknown parameter' - <<'EOF'
gen unknown 'gen:gpt?dmodel=64' "unknown parameter 'dmodel' \\(known: batch, seq, layers, d_model"
EOF

# every option accepted, and a sweep with them runs (dry run: the points)
test_expect_success 'every option accepted, and a dry run gives the points' - <<'EOF'
printf 'workloads: ["gen:gpt?layers=2&d_model=64&heads=2&ffn=128&vocab=100&seq=8&batch=1&elem_bytes=2&no_groups=true&optimizer=adam&bwd_factor=2&size=small&forward_only=false&device=v100"]\nclusters: [paper-4gpu-pcie]\nplacers: [m-etf]\ndevices: [2, 4]\n' > s-ok.yaml
expect_exit 0 "$BAECHI" sweep s-ok.yaml --db r-ok.db --dry-run
expect_grep "2 points" out
EOF

test_done
