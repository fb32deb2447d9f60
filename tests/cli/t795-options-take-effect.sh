# check: sanitized-only
# t795-options-take-effect.sh - an option either takes effect or is refused
# (issue 33 item 2): an element width that is no data type, micro-batches
# that do not divide the batch (each would be rounded up: more samples than
# the batch), selective recomputation on a graph without attention.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

G="gpt --layers 2 --d-model 64 --heads 4 --vocab 100 --seq 8"

test_expect_success '--elem-bytes 3: refused, exit 2, naming the widths' - <<'XEOF'
expect_exit 2 "$BAECHI" workload gen $G -b 8 --elem-bytes 3 -o x.yaml
expect_grep "elem-bytes 3: an element is 1 \(fp8\), 2 \(fp16, bf16\), 4 \(fp32\) or 8" "$TMPDIR_TEST/err"
[ ! -e x.yaml ]
for e in 1 2 4 8; do expect_exit 0 "$BAECHI" workload gen $G -b 8 --elem-bytes $e -o e$e.yaml; done
XEOF

test_expect_success '-b 8 --micro-batches 3: refused, exit 2; 4 takes effect' - <<'XEOF'
expect_exit 2 "$BAECHI" workload gen $G -b 8 --micro-batches 3 -o x.yaml
expect_grep "micro-batches 3 does not divide the batch \(8\): each micro-batch would hold 3 samples, 9 in all" "$TMPDIR_TEST/err"
expect_exit 0 "$BAECHI" workload gen $G -b 8 --micro-batches 4 -o m4.yaml
expect_grep "_mb4" "$TMPDIR_TEST/out"
XEOF

# a sweep goes on with its other points: this one is stored as an error
test_expect_success 'the same through a sweep point: an error point, named' - <<'XEOF'
cat > s.yaml <<'S'
name: bad-mb
workloads: ["gen:gpt?layers=2&d_model=64&heads=4&vocab=100&seq=8&batch=8&micro_batches=3"]
clusters: [paper-4gpu-pcie]
placers: [m-etf]
S
"$BAECHI" sweep s.yaml --db r.db --quiet 2> serr || true
expect_grep "does not load; its points are errors: --micro-batches 3 does not divide the batch" serr
[ "$(sqlite3 r.db "select status from runs")" = error ]
# a resumed sweep runs its error points again (they may have been transient)
"$BAECHI" sweep s.yaml --db r.db 2> /dev/null > again
expect_grep "1 points, 0 already stored, 1 run" again
XEOF

test_expect_success '--recompute selective on a CNN: refused; full takes effect' - <<'XEOF'
expect_exit 2 "$BAECHI" workload gen inception-v3 -b 8 --recompute selective -o x.yaml
expect_grep "recompute selective recomputes the attention core .* this graph has none: use full or none" "$TMPDIR_TEST/err"
expect_exit 0 "$BAECHI" workload gen inception-v3 -b 8 --recompute full -o f.yaml
expect_grep "_rcfull" "$TMPDIR_TEST/out"
expect_exit 0 "$BAECHI" workload gen $G -b 8 --recompute selective -o s.yaml
XEOF

# Interleaving needs several chunks per device: with one each (m-topo) the
# schedule runs as 1F1B and says so; the pipeline placer interleaves.
test_expect_success 'interleaved with one chunk a device: 1F1B, one warning' - <<'XEOF'
P="--layers 4 --d-model 256 --heads 4 --vocab 1000 --seq 64 -b 8 --micro-batches 4 --device v100"
"$BAECHI" workload gen gpt $P --schedule interleaved --virtual-stages 2 -o il.yaml > /dev/null
"$BAECHI" workload gen gpt $P --schedule 1f1b -o f1.yaml > /dev/null
step() { "$BAECHI" run -w "$1" -c paper-4gpu-pcie -p "$2" --json 2> "$3" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["sim"]["timed"]["step_us"])'; }
il=$(step il.yaml m-topo w1) && f1=$(step f1.yaml m-topo w2) && pl=$(step il.yaml pipeline w3)
echo "interleaved on m-topo $il us, 1f1b $f1 us, interleaved on pipeline $pl us"
[ "$il" = "$f1" ]
[ "$(grep -c "warning: the interleaved schedule with 2 virtual stages .* ran as 1F1B" w1)" = 1 ]
[ ! -s w2 ] && [ ! -s w3 ]
XEOF

test_done
