#!/bin/sh
# check-layers.sh [ROOT] - the include rule of the layout (README.md "Layout"),
# checked over every #include "..." line of the suite's C sources:
#
#   core       includes nothing of the suite
#   sim        core
#   placers    core, sim
#   workloads  core, sim
#   calibrate  core, sim, placers, workloads
#   results    core, sim, placers, workloads
#   api        every library part, and include/ (the public header)
#   cli        anything but api (the program uses the libraries directly)
#
# No part includes cli but cli.  A quoted include without a directory is a
# file generated into build/gen (onnx.pb-c.h), allowed where it is used.
# Prints one line per violation ("file:line: part 'x' includes 'y'") and
# "layers: N violations"; exits 1 when there is any.
set -eu
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"

allowed() { # part -> the parts it may include (besides itself)
    case $1 in
    core) echo "" ;;
    sim) echo "core" ;;
    placers | workloads) echo "core sim" ;;
    calibrate | results) echo "core sim placers workloads" ;;
    api) echo "core sim placers workloads calibrate results include" ;;
    cli) echo "core sim placers workloads calibrate results" ;;
    include) echo "" ;;
    esac
}

n=0
out=$(mktemp)
for part in core sim placers workloads calibrate results api cli include; do
    [ -d "$part" ] || continue
    ok=" $part $(allowed "$part") "
    find "$part" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) | sort |
        while read -r f; do
            grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
                sed 's/^\([0-9]*\):.*"\(.*\)".*/\1 \2/' |
                while read -r line inc; do
                    case $inc in
                    */*) dep=${inc%%/*} ;;
                    *) continue ;; # generated (build/gen)
                    esac
                    case $ok in
                    *" $dep "*) ;;
                    *) echo "$f:$line: part '$part' includes '$inc'" ;;
                    esac
                done
        done >> "$out"
done
n=$(wc -l < "$out" | tr -d ' ')
cat "$out"
rm -f "$out"
echo "layers: $n violations"
[ "$n" -eq 0 ]
