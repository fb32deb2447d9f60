# check: sanitized-only
# Sequence parallelism (--sp): the all-gather that re-gathers a
# column-parallel layer's sequence-split input for its weight gradient runs
# in the backward pass, after the gradient the layer gets (Megatron's
# LinearWithGradAccumulationAndAsyncCommunication launches it in the
# linear's backward).  Before (issue 31 item 8), it read only its forward
# producer, so the timed model ran it in the forward pass and held the whole
# gathered tensor until backward instead of the LayerNorm output's 1/T
# share: the saved bytes a layer missed 2 x 2sbh/t (Korthikanti et al. 2022,
# 34/t s*b*h with selective recomputation, the suite 30/t).
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

test_expect_success 'setup: GPT l 2, --tp 2 --sp, timed trace' - <<'EOF2'
"$BAECHI" workload gen gpt --layers 2 --d-model 128 --heads 4 --vocab 1024 --batch 2 --seq 64 \
    --device h100 -o s.yaml > /dev/null
"$BAECHI" workload parallelize s.yaml --tp 2 --sp -o sp.yaml > /dev/null
"$BAECHI" sim -w sp.yaml -c dgx-h100-8 --placement given --trace t.json > /dev/null
EOF2

# the backward all-gathers of the LayerNorm outputs (QKV, fc1, LM head):
# a control input from the backward op that gives their reader its gradient
test_expect_success 'backward all-gathers of forward tensors wait for a gradient' - <<'EOF2'
grep "^- {name: r0/.*phase: backward" sp.yaml | grep "type: AllGather" > bag
test "$(grep -c 'inputs: \["r0/[^"]*ln_[^"]*:0"' bag)" -eq 5
test "$(grep 'inputs: \["r0/[^"]*ln_[^"]*:0"' bag | grep -c '"^r0/[^"]*/grad"\]')" -eq 5
EOF2

# in the timed run each starts after the loss (the forward pass) on its rank
test_expect_success 'timed: every backward all-gather starts after the forward pass' - <<'EOF2'
python3 - t.json sp.yaml <<'PY'
import json, re, sys
ev = json.load(open(sys.argv[1]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
bwd = set(re.findall(r"^- \{name: (r\d+/[^,]*/ag), .*phase: backward", open(sys.argv[2]).read(), re.M))
end = {}
for e in ev:
    if e.get("ph") == "X" and e.get("name", "").endswith("/loss"):
        end[e["pid"]] = e["ts"] + e["dur"]
n = 0
for e in ev:
    if e.get("ph") == "X" and e.get("name") in bwd:
        n += 1
        assert e["ts"] >= end[e["pid"]], (e["name"], e["ts"], end[e["pid"]])
assert n == len(bwd) and n > 0, (n, len(bwd))
PY
EOF2

test_done
