# check: sanitized-only
# `baechi workload parallelize` (workloads/parallel.h): a GPT training graph
# over D x T x P devices with its placement; the same flags on `workload
# gen` give the same graph; TP's all-reduces and the rank layout in the
# file; the refusals name the problem and exit 2.
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"
GPT="gpt --layers 2 --d-model 128 --heads 4 --vocab 1000 --batch 2 --seq 64"

test_expect_success 'setup: a small GPT training graph' '
    "$BAECHI" workload gen $GPT -o g.yaml > /dev/null
'

test_expect_success 'dp 2 x tp 2 x pp 2: 8 devices, a placement that names every op' - <<'EOF'
expect_exit 0 "$BAECHI" workload parallelize g.yaml --dp 2 --tp 2 --pp 2 -o p.yaml \
    --placement-out pl.yaml
grep -q "8 devices (dp 2, tp 2, pp 2, zero 0)" out
grep -q "device 7: parameters" out
n_ops=$(grep -c "^- {name: " p.yaml)
n_pl=$(grep -c "^  r[0-9]*/" pl.yaml)
[ "$n_ops" -eq "$n_pl" ] || { echo "$n_ops ops, $n_pl in the placement"; exit 1; }
grep -q "placer: parallel" pl.yaml
# rank 5 = t 1 + T (d 0 + D p 1): the second stage holds layer h1
grep -q '^  r5/h1/mlp/c_fc: 5$' pl.yaml
! grep -q '^  r5/h0/' pl.yaml
EOF

test_expect_success 'tp 2: 4 all-reduces per layer per rank of b x s x h elements, + embedding and head' - <<'EOF'
expect_exit 0 "$BAECHI" workload parallelize g.yaml --tp 2 -o t.yaml
n=$(grep "^- {name: r0/" t.yaml | grep -c "kind: all-reduce, bytes: 65536}")
[ "$n" -eq 10 ] || { echo "$n all-reduces on rank 0 (want 4 x 2 layers + embedding + LM head)"; exit 1; }
EOF

test_expect_success 'workload gen takes the same flags: the same file' - <<'EOF'
"$BAECHI" workload parallelize g.yaml --dp 2 --zero 2 --bucket-mb 1 -o a.yaml > /dev/null
"$BAECHI" workload gen $GPT --dp 2 --zero 2 --bucket-mb 1 -o b.yaml > /dev/null
cmp a.yaml b.yaml
grep -q "kind: reduce-scatter" a.yaml
grep -q "kind: all-gather" a.yaml
EOF

test_expect_success 'a sweep takes them as gen: parameters' - <<'EOF'
printf "workloads: ['gen:%s']\nclusters: [paper-4gpu-pcie]\nplacers: [m-topo]\n" \
    "gpt?layers=2&d_model=128&heads=4&vocab=1000&batch=2&seq=64&dp=2&zero=1" > s.yaml
expect_exit 0 "$BAECHI" sweep --dry-run s.yaml
EOF

test_expect_success 'op placers put every rank op with its replica (collectives follow their replicas)' - <<'EOF'
"$BAECHI" workload parallelize g.yaml --dp 2 --tp 2 -o r.yaml > /dev/null
for p in m-topo m-etf; do
    "$BAECHI" place -w r.yaml -c dgx-h100-8 -k 4 -p $p -o pl-$p.yaml 2> /dev/null
    python3 - r.yaml pl-$p.yaml <<'PY'
import re, sys
first = {}
for line in open(sys.argv[1]):
    if "x-collective" in line:
        name = re.match(r"- \{name: ([^,]+),", line).group(1)
        inp = re.search(r'inputs: \["\^?([^":]+)', line)
        first[name] = inp.group(1) if inp else None
dev = dict((m.group(1), int(m.group(2)))
           for m in (re.match(r"  (\S+): (\d+)$", l) for l in open(sys.argv[2])) if m)
with_inputs = [r for r, q in first.items() if q]
bad = [r for r in with_inputs if dev[r] != dev[first[r]]]
assert len(with_inputs) >= 8 and not bad, (len(with_inputs), bad[:3])
PY
done
EOF

test_expect_success 'refusals: forward graph, unknown block, indivisible width, bad values' - <<'EOF'
"$BAECHI" workload gen $GPT --forward-only -o f.yaml > /dev/null
expect_exit 2 "$BAECHI" workload parallelize f.yaml --dp 2
grep -q "is a forward graph" err
"$BAECHI" workload gen gnmt --batch 4 -o n.yaml > /dev/null
expect_exit 2 "$BAECHI" workload parallelize n.yaml --tp 2
grep -q "decoder/memory_layer' (a matmul with parameters) is not in an attention" err
expect_exit 2 "$BAECHI" workload parallelize g.yaml --tp 3
grep -q "not a multiple of --tp 3" err
expect_exit 2 "$BAECHI" workload parallelize g.yaml --pp 3
grep -q "3 stages but .* has only 2 layers" err
expect_exit 2 "$BAECHI" workload parallelize g.yaml --zero 4
grep -q -- "--zero" err
expect_exit 2 "$BAECHI" workload parallelize g.yaml --dp 2 -o g.yaml
expect_exit 2 "$BAECHI" workload gen $GPT --forward-only --dp 2
EOF

test_expect_success 'refusals: an already parallelised graph (exit 2, its file:line:col), --zero without --dp' - <<'EOF'
expect_exit 0 "$BAECHI" workload parallelize g.yaml --dp 2 -o d2.yaml
expect_exit 2 "$BAECHI" workload parallelize d2.yaml --dp 2 -o again.yaml
grep -q "d2.yaml:[0-9]*:[0-9]*: op 'r0/.*' is already parallelised" err
test ! -e again.yaml
expect_exit 0 "$BAECHI" workload parallelize g.yaml -o d1.yaml
expect_exit 2 "$BAECHI" workload parallelize d1.yaml --tp 2
grep -q "is already parallelised" err
expect_exit 2 "$BAECHI" workload parallelize g.yaml --zero 1
grep -q -- "--zero 1 shards over the data-parallel replicas and needs --dp 2" err
expect_exit 2 "$BAECHI" workload gen $GPT --tp 2 --zero 3
grep -q -- "needs --dp 2" err
EOF

test_expect_success 'zero 3 with stages: each parameter gather joins its reader group, on its own rank' - <<'EOF'
expect_exit 0 "$BAECHI" workload parallelize g.yaml --dp 2 --pp 2 --zero 3 -o z3.yaml
n=$(grep -c "zero3/.*/ag, type: AllGather" z3.yaml)
test "$n" -gt 0
test "$(grep "zero3/.*/ag, type: AllGather" z3.yaml | grep -c -E '^- [{]name: r([0-9]+)/.* group: r\1/')" = "$n"
EOF

test_done
