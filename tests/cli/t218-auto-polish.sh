#!/bin/sh
# t218: the phases around auto's local search (placers/auto_polish.h) on
# the ResNet-50 training graph at 0.2 of the memory, where it fits no one
# device: deterministic (same seed and budget -> byte-identical placement
# file), never worse than the best candidate it starts from, and the stage
# seed is what gets there (163.3 ms; 182.6 ms before the phase existed).
. "$TOP/tests/cli/lib.sh"

# The model is tracked (scripts/export-onnx.py made it): a missing file is a
# broken checkout and fails the setup below, loudly, instead of a skip.
onnx="$TOP/tests/data/onnx/resnet50.onnx"

test_expect_success 'setup: the ResNet-50 training graph' '
    "$BAECHI" workload import "$onnx" --train -b 32 --device v100 \
        -o "$TMPDIR_TEST/r.yaml" > /dev/null 2>&1
'

test_expect_success 'same seed and budget: byte-identical placement files' - <<'EOF2'
for i in 1 2; do
    expect_exit 0 "$BAECHI" place -w "$TMPDIR_TEST/r.yaml" -c paper-4gpu-pcie -p auto \
        --memory-fraction 0.2 -o "$TMPDIR_TEST/p$i.yaml"
done
cmp "$TMPDIR_TEST/p1.yaml" "$TMPDIR_TEST/p2.yaml"
EOF2

test_expect_success 'a stage seed is kept; never worse than the best candidate' - <<'EOF2'
python3 - "$TMPDIR_TEST/p1.yaml" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
st = dict(kv.split(": ") for kv in re.search(r"^stats: \{(.*)\}$", t, re.M).group(1).split(", "))
step, start = int(st["estimate_us"]), int(st["start_step_us"])
assert 0 < step <= start, (step, start)
assert int(st["seed_stages"]) >= 2, st["seed_stages"]
assert step < 182600, step  # auto's step before the stage seeds
assert int(st["final_pass_improvements"]) >= 0
PY
EOF2

test_done
