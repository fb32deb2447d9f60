#!/bin/sh
# scripts/lp-probe/bench-sct-10k.sh - `make bench`'s m-SCT target of issue 32
# (item 4): m-SCT on the 10,000-op layered graph on paper-4gpu-pcie in at
# most 30 s of CPU, the same placement on every run.  Places it twice with
# `baechi place -p m-sct` (default options: `--lp-solver auto`, which gives
# CLP its iteration budget, then the flow solver), prints each run's CPU
# seconds (user + system, of the command) and its LP status, and whether
# the two placement files are identical (exit 1 when not).  Timings are
# printed, never asserted (docs/style.md).
#
#   scripts/lp-probe/bench-sct-10k.sh [BAECHI]     (default: build/baechi)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
baechi=${1:-$root/build/baechi}
dir=$(mktemp -d "${TMPDIR:-/tmp}/baechi-sct-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT INT TERM
"$baechi" workload gen synthetic --shape layered --ops 10000 --seed 42 --fan-in 3 \
    -o "$dir/l10k.yaml" > /dev/null
for k in 1 2; do
    # the CPU of the child alone: python's resource module (POSIX sh has no
    # portable per-command CPU clock)
    python3 - "$baechi" "$dir" "$k" <<-'PY'
	import resource, subprocess, sys, re
	baechi, d, k = sys.argv[1:4]
	subprocess.run([baechi, "place", "-w", d + "/l10k.yaml", "-c", "paper-4gpu-pcie",
	                "-p", "m-sct", "-o", d + "/p" + k + ".yaml"], check=True,
	               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
	ru = resource.getrusage(resource.RUSAGE_CHILDREN)
	txt = open(d + "/p" + k + ".yaml").read()
	st = re.search(r"lp_status: '?([^,']*)'?, lp_solver: (\w+)", txt)
	print("m-sct 10k ops paper-4gpu-pcie run %s: %.1f s CPU (target 30 s), lp %s (%s)"
	      % (k, ru.ru_utime + ru.ru_stime, st.group(1), st.group(2)))
	PY
done
if cmp -s "$dir/p1.yaml" "$dir/p2.yaml"; then
    echo "m-sct 10k ops paper-4gpu-pcie: the same placement on both runs"
else
    echo "m-sct 10k ops paper-4gpu-pcie: the placements differ" >&2
    exit 1
fi
