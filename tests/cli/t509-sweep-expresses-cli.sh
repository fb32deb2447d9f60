# check: slow once
# t509-sweep-expresses-cli.sh - a sweep expresses every workload the CLI
# does: each option of `workload gen --help` and `workload import --help` is a
# parameter of gen:/import: (workloads/gen_params.c), a sweep with
# micro_batches generates the CLI's workload, and `run`, a sweep and the
# library place with one default seed (issue 19 item 4).
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"
ONNX="$TOP/tests/data/onnx/two_input.onnx"
export ONNX

# options LIST: the long options of a --help, without output and help.
options() {
    sed -n -E 's/^ *(-[a-zA-Z], )?--([a-z][a-z-]*)( [A-Z]+)?  .*/\2\3/p' "$1" |
        grep -v -E '^(output|help)( |$)' || true
}

# sample OPTION: a value of the option for a sweep ("" when unknown: a new
# option of the CLI needs one here, and a parameter in gen_params.c).
sample() {
    case $1 in
    batch) echo 4 ;; seq) echo 64 ;; size) echo small ;; layers) echo 2 ;;
    d-model) echo 256 ;; heads) echo 4 ;; ffn) echo 512 ;; vocab) echo 1000 ;;
    device) echo h100 ;; optimizer) echo adam ;; bwd-factor) echo 1.5 ;;
    micro-batches) echo 2 ;; elem-bytes) echo 2 ;; shape) echo chain ;; ops) echo 50 ;;
    seed) echo 3 ;; fan-in) echo 2 ;; width) echo 4 ;; depth) echo 3 ;; window) echo 5 ;;
    group-size) echo 2 ;; name) echo custom ;;
    schedule) echo gpipe ;; virtual-stages) echo 1 ;;
    recompute) echo full ;; dropout) echo 0.2 ;; loss) echo mse ;;
    dp|tp|pp) echo 2 ;; zero) echo 1 ;; bucket-mb) echo 25 ;; pp-balance) echo time ;;
    esac
}

# check_all HELP PREFIX SYNTH: every option of HELP in a one-workload sweep
# PREFIX?key=value (synthetic's own options in SYNTH?...), by both spellings.
check_all() {
    n=0
    for line in $(options "$1" | tr ' ' ':'); do
        opt=${line%%:*}
        if [ "$opt" = "$line" ]; then
            val=true
        else
            val=$(sample "$opt")
            [ -n "$val" ] || { echo "no sample value for --$opt: add one to t509"; exit 1; }
        fi
        pre=$2
        case $opt in shape|ops|seed|fan-in|width|depth|window|group-size) pre=$3 ;; esac
        for key in "$opt" "$(echo "$opt" | tr - _)"; do
            printf "workloads: ['%s?%s=%s']\nclusters: [paper-4gpu-pcie]\nplacers: [m-topo]\n" \
                "$pre" "$key" "$val" > o.yaml
            if ! "$BAECHI" sweep --dry-run o.yaml > o.out 2>&1; then
                echo "--$opt: $key=$val refused in $pre:"; cat o.out; exit 1
            fi
        done
        n=$((n + 1))
    done
    [ "$n" -ge "$4" ] || { echo "only $n options found in $1"; exit 1; }
}

test_expect_success 'every option of workload gen --help is a gen: parameter' - <<'EOF'
"$BAECHI" workload gen --help > gen.help
check_all gen.help gen:gpt gen:synthetic 25
EOF

test_expect_success 'every option of workload import --help is an import: parameter' - <<'EOF'
"$BAECHI" workload import --help > import.help
check_all import.help "import:$ONNX" "import:$ONNX" 7
EOF

test_expect_success 'parameters are checked as the CLI checks options' - <<'EOF'
for p in 'gen:gpt?micro_batches=0' 'gen:gpt?shape=chain' 'gen:synthetic?layers=2' \
         "import:$ONNX?size=small" 'gen:gpt?bogus=1' 'import:missing.onnx'; do
    printf "workloads: ['%s']\nclusters: [paper-4gpu-pcie]\nplacers: [m-topo]\n" "$p" > b.yaml
    expect_exit 2 "$BAECHI" sweep --dry-run b.yaml
    case $p in *bogus*) expect_grep "unknown parameter 'bogus'" err ;; esac
done
EOF

# cell FIELD: FIELD of the one timed run in r.db (report's csv).
cell() {
    "$BAECHI" report --db "${2:-r.db}" --format csv --model timed |
        awk -F, -v f="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == f) c = i; next }
                           { print $c }'
}

test_expect_success 'a sweep with micro_batches generates the workload of the CLI' - <<'EOF'
"$BAECHI" workload gen gpt --size small --layers 2 --micro-batches 4 --save-all-inputs \
    -o cli.yaml > /dev/null
cat > mb.yaml <<YAML
workloads: ['gen:gpt?size=small&layers=2&micro_batches=4&save_all_inputs=true']
clusters: [paper-4gpu-pcie]
placers: [m-topo]
YAML
printf "workloads: [cli.yaml]\nclusters: [paper-4gpu-pcie]\nplacers: [m-topo]\n" > f.yaml
printf "workloads: ['gen:gpt?size=small&layers=2']\nclusters: [paper-4gpu-pcie]\nplacers: [m-topo]\n" > one.yaml
expect_exit 0 "$BAECHI" sweep --quiet -j 1 mb.yaml --db g.db
expect_exit 0 "$BAECHI" sweep --quiet -j 1 f.yaml --db f.db
expect_exit 0 "$BAECHI" sweep --quiet -j 1 one.yaml --db one.db
for k in workload_hash n_ops step_us; do
    test "$(cell $k g.db)" = "$(cell $k f.db)" || { echo "$k: $(cell $k g.db) != $(cell $k f.db)"; exit 1; }
done
test "$(cell n_ops g.db)" != "$(cell n_ops one.db)"
EOF

test_expect_success 'run -p auto, a sweep of auto and the library: one default seed' - <<'EOF'
"$BAECHI" workload gen gpt --size small --layers 2 -o w.yaml > /dev/null
printf "workloads: [w.yaml]\nclusters: [paper-4gpu-pcie]\nplacers: [auto]\n" > a.yaml
expect_exit 0 "$BAECHI" sweep --quiet -j 1 a.yaml --db a.db
sweep=$(cell step_us a.db)
test "$(cell seed a.db)" = 1
run=$("$BAECHI" run -w w.yaml -c paper-4gpu-pcie -p auto --json |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["sim"]["timed"]["step_us"])')
lib=$(PYTHONPATH="$TOP/python" BAECHI_LIB="$TOP/build/libbaechi.so" python3 -c "
import baechi
w = baechi.load_workload('w.yaml'); c = baechi.cluster('paper-4gpu-pcie')
print(baechi.simulate(w, c, baechi.place(w, c, 'auto')).step_us)")
echo "sweep $sweep run $run library $lib"
test "$sweep" = "$run" && test "$run" = "$lib"
EOF

test_done
