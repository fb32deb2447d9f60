#!/bin/sh
# scripts/lp-probe/run.sh - the measurements of docs/limits.md's "m-SCT's
# LP" (issue 32 item 4): writes m-SCT's LP of a layered graph of N ops on
# paper-4gpu-pcie to an MPS file and solves it with each method of
# clp-probe and glpk-probe, or with layers-probe's decomposition.  Needs build/baechi, a C and a C++ compiler,
# GLPK and coinor-libclp-dev.  Slow: the 3,000-op LP takes minutes.
#
#   scripts/lp-probe/run.sh N [METHOD...]     (default: all but layers)
#
# METHOD: clp:M (M: dual, primal, idiot, sprint, barrier; clp-probe.cpp),
# glpk:M (primal, dual, dual-pre, primal-scale, ipt; glpk-probe.c) or
# layers:L:H (layers-probe.c).
set -eu
n=${1:?usage: run.sh N [METHOD...]}
shift
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dir=${TMPDIR:-/tmp}/baechi-lp-probe
mkdir -p "$dir"
cc -O2 -o "$dir/glpk-probe" "$here/glpk-probe.c" -lglpk
cc -O2 -o "$dir/layers-probe" "$here/layers-probe.c" -lglpk
c++ -O2 -o "$dir/clp-probe" "$here/clp-probe.cpp" -lClp -lCoinUtils
"$root/build/baechi" workload gen synthetic --shape layered --ops "$n" --seed 42 \
    --fan-in 3 -o "$dir/l$n.yaml" > /dev/null
# one iteration: only the file is wanted (the 10k-op LP would take hours)
BAECHI_LP_WRITE_MPS="$dir/l$n.mps" "$root/build/baechi" place -w "$dir/l$n.yaml" \
    -c paper-4gpu-pcie -p m-sct --lp-solver glpk --lp-iteration-limit 1 \
    -o "$dir/p.yaml" 2> /dev/null
[ $# -gt 0 ] || set -- clp:dual clp:primal clp:idiot clp:sprint clp:barrier \
    glpk:primal glpk:dual glpk:dual-pre glpk:primal-scale glpk:ipt
for m in "$@"; do
    case $m in
    clp:*) "$dir/clp-probe" "$dir/l$n.mps" "${m#clp:}" ;;
    glpk:*) "$dir/glpk-probe" "$dir/l$n.mps" "${m#glpk:}" ;;
    layers:*:*)
        lh=${m#layers:}
        "$dir/layers-probe" "$dir/l$n.mps" "${lh%%:*}" "${lh#*:}"
        ;;
    *) echo "run.sh: unknown method $m (clp:M, glpk:M or layers:L:H)" >&2; exit 2 ;;
    esac
done
