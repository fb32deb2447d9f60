# check: once
# t811-global-batch.sh - `workload gen --global-batch B` (Megatron's
# convention; issue 31 item 6): B samples per step split over the --dp
# replicas, each generated at batch B/dp in --micro-batches of B/(dp x M);
# dp x M must divide B (exit 2 otherwise), and --batch (one replica's) and
# --global-batch exclude each other.  The C API (Python) takes it too.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"
G="gpt --size small --layers 1 --seq 32 --device none"

test_expect_success 'B / dp per replica, as --batch B/dp gives' - <<'EOF2'
"$BAECHI" workload gen $G --global-batch 64 --dp 4 --micro-batches 2 -o g.yaml > g.out
expect_grep "global batch 64 = 4 replicas x batch 16 \\(2 micro-batches of 8\\)" g.out
"$BAECHI" workload gen $G --batch 16 --dp 4 --micro-batches 2 -o b.yaml > b.out
cmp g.yaml b.yaml
grep -q "^name: gpt-small_b16_.*_dp4_tp1_pp1" g.yaml
EOF2

test_expect_success 'one GPU: the global batch is the batch' - <<'EOF2'
"$BAECHI" workload gen $G --global-batch 12 -o one.yaml > one.out
expect_grep "global batch 12 = 1 replica x batch 12 \\(1 micro-batch of 12\\)" one.out
grep -q "^name: gpt-small_b12_" one.yaml
EOF2

test_expect_success 'dp x micro-batches must divide B; not with --batch: exit 2' - <<'EOF2'
expect_exit 2 "$BAECHI" workload gen $G --global-batch 60 --dp 4 --micro-batches 2 -o x.yaml
expect_grep "global-batch 60 is not divisible by dp x micro-batches = 4 x 2 = 8" "$TMPDIR_TEST/err"
expect_exit 2 "$BAECHI" workload gen $G --global-batch 64 --dp 3 -o x.yaml
expect_grep "not divisible by dp x micro-batches = 3 x 1 = 3" "$TMPDIR_TEST/err"
expect_exit 2 "$BAECHI" workload gen $G --global-batch 64 --batch 8 -o x.yaml
expect_grep "give the global batch .* or the batch of one replica, not both" "$TMPDIR_TEST/err"
expect_exit 2 "$BAECHI" workload gen $G --global-batch 0 -o x.yaml
test ! -e x.yaml
EOF2

test_expect_success 'the library and a sweep take global_batch, and check it as the CLI' - <<'EOF2'
expect_exit 0 env PYTHONPATH="$TOP/python" BAECHI_LIB="$(dirname "$BAECHI")/libbaechi.so" \
    python3 -c '
import baechi
w = baechi.generate("gpt", size="small", layers=1, seq=32, device="none", global_batch=64,
                    dp=4, micro_batches=2)
assert w.name.startswith("gpt-small_b16_") and w.name.endswith("_dp4_tp1_pp1"), w.name
try:
    baechi.generate("gpt", global_batch=10, dp=4)
    raise SystemExit("accepted")
except baechi.Error as e:
    assert "not divisible" in str(e), e
'
printf "workloads: ['gen:gpt?global_batch=10&dp=4']\nclusters: [paper-4gpu-pcie]\nplacers: [m-topo]\n" > s.yaml
expect_exit 2 "$BAECHI" sweep --dry-run s.yaml
expect_grep "s.yaml:1:13: .*--global-batch 10 is not divisible by dp x micro-batches = 4 x 1 = 4" "$TMPDIR_TEST/err"
EOF2

test_done
