#!/bin/sh
# demo-numbers.sh [DB] - writes the numbers of `make demo` that docs/results.md
# quotes, from the demo's database (default results.db), between the lines
# "<!-- demo-numbers: begin -->" and "<!-- demo-numbers: end -->" of
# docs/results.md, so that the page says what the program computes.  Run it
# after `make demo` whenever the placers, the simulator or the sweeps change.
set -eu
cd "$(dirname "$0")/.."
B=${BAECHI:-./baechi}
DB=${1:-results.db}
doc=docs/results.md
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.block"' EXIT
{
    echo "<!-- demo-numbers: begin (scripts/demo-numbers.sh writes this block from results.db) -->"
    echo
    echo "Forward graphs (sweep \`paper\`), memory fraction 1:"
    echo
    # the step tables only: placement times are this machine's wall clock
    $B report --db "$DB" --where sweep=paper --where memory_fraction=1 --format markdown 2> /dev/null |
        awk '/^### / && ++n > 2 { exit } { print }'
    echo
    echo "Training graphs (sweep \`paper-train\`), step time (ms) by memory fraction:"
    echo
    $B report --db "$DB" --where sweep=paper-train --where grouper=tf --format markdown 2> /dev/null |
        sed -n '1,/^$/p'
    echo "<!-- demo-numbers: end -->"
} > "$tmp.block"
awk -v blk="$tmp.block" '
    /^<!-- demo-numbers: begin/ { while ((getline l < blk) > 0) print l; skip = 1; next }
    /^<!-- demo-numbers: end -->/ { skip = 0; next }
    !skip { print }' "$doc" > "$tmp"
cat "$tmp" > "$doc"
