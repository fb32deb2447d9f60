# t217-critical-path.sh - scripts/critical-path.py, the decomposition of a
# timed step along its critical path (docs/auto.md, "Where the remaining gap
# is"): on GNMT forward's given placement the parts sum to the step, --path
# lists one line per transfer the path waits for, the link queue by link
# sums to the link queue, and the 61 MB weight that holds gpu0's send engine
# shows up as the reason (gpu0 -> gpu1 queues most).
. "$TOP/tests/cli/lib.sh"

if ! python3 -c 'import yaml' 2>/dev/null; then
    test_skip_all 'python3 with PyYAML is needed'
fi

test_expect_success 'GNMT given: parts sum to the step, one line per transfer, queue by link' '
    "$BAECHI" sim -w "$GNMT" -c paper-4gpu-pcie --placement given --trace "$TMPDIR_TEST/t.json" >/dev/null
    python3 "$TOP/scripts/critical-path.py" --path "$GNMT" "$TMPDIR_TEST/t.json" >"$TMPDIR_TEST/cp.txt"
    cat "$TMPDIR_TEST/cp.txt"
    python3 - "$TMPDIR_TEST/cp.txt" <<'"'"'PY'"'"'
import re, sys
text = open(sys.argv[1]).read()
step = int(re.search(r"^step (\d+) us;", text, re.M).group(1))
parts = {k: float(v) for k, v in re.findall(r"(\w+) ([\d.]+) ms \(", text)}
assert abs(sum(parts.values()) * 1000 - step) < 500, (parts, step)
n = int(re.search(r"(\d+) transfers on the path", text).group(1))
lines = re.findall(r"^ +\d+ us  (gpu\d) -> (gpu\d): .*queued ([\d.]+) ms", text, re.M)
assert len(lines) == n, (len(lines), n)
links = dict(((a, b), float(x)) for a, b, x in
             re.findall(r"(gpu\d)->(gpu\d) ([\d.]+) ms", text.split("by link:")[1]))
assert abs(sum(links.values()) - parts["link_queue"]) < 0.1 * len(links) + 0.05, links
assert max(links, key=links.get) == ("gpu0", "gpu1"), links
PY
'

test_done
