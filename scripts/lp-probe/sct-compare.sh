#!/bin/sh
# scripts/lp-probe/sct-compare.sh - docs/limits.md's comparison of m-SCT's
# LP solvers by the simulated step (issue 32 item 4): for each placer
# configuration, `baechi run` of the layered graph of N ops (seed 42,
# fan-in 3) on paper-4gpu-pcie, with its CPU seconds (user, the whole
# command), the LP's value, status and solver, favourite children, and the
# step of both simulators (baechi, timed).
#
#   scripts/lp-probe/sct-compare.sh N [CONFIG...]
#
# CONFIG: a placer and its options joined by commas, e.g. m-etf,
# m-sct,--lp-solver,flow (default: m-sct with flow, glpk and auto, m-etf).
# Exact solves of 3,000 ops take about 40 s of CPU each; 10,000 ops with
# glpk or clp do not finish (docs/limits.md).
set -eu
n=${1:?usage: sct-compare.sh N [CONFIG...]}
shift
here=$(cd "$(dirname "$0")" && pwd)
baechi=${BAECHI:-$here/../../build/baechi}
dir=$(mktemp -d "${TMPDIR:-/tmp}/baechi-sct-compare.XXXXXX")
trap 'rm -rf "$dir"' EXIT INT TERM
[ $# -gt 0 ] || set -- m-sct,--lp-solver,flow m-sct,--lp-solver,glpk m-sct m-etf
"$baechi" workload gen synthetic --shape layered --ops "$n" --seed 42 --fan-in 3 \
    -o "$dir/w.yaml" > /dev/null
for config in "$@"; do
    python3 - "$baechi" "$dir" "$n" "$config" <<-'PY'
	import json, resource, subprocess, sys
	baechi, d, n, config = sys.argv[1:5]
	placer, *opts = config.split(",")
	out = subprocess.run([baechi, "run", "-w", d + "/w.yaml", "-c", "paper-4gpu-pcie",
	                      "-p", placer, "--json", *opts], check=True, capture_output=True,
	                     text=True).stdout
	cpu = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
	r = json.loads(out)
	lp = r.get("lp") or {}
	print("%s ops %-28s %6.2f s CPU  lp %s (%s, %s, %s favourites)  step baechi %d timed %d us"
	      % (n, " ".join([placer] + opts), cpu, lp.get("makespan_us", "-"),
	         lp.get("status", r["placement_stats"].get("lp_status", "-")),
	         lp.get("solver", "-"), lp.get("n_favourite_children", "-"),
	         r["sim"]["baechi"]["step_us"], r["sim"]["timed"]["step_us"]))
	PY
done
