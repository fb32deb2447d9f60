#!/bin/sh
# demo-numbers.sh [DB] - writes the numbers of `make demo` that docs/results.md
# quotes, from the demo's database (default results.db), into the block
# "results-demo" of docs/results.md: scripts/doc-numbers.sh does it (one
# mechanism for every page's numbers), with DEMO_DB pointing at DB.  Run it
# after `make demo` whenever the placers, the simulator or the sweeps
# change; `make doc-numbers` runs the two sweeps the block reports itself.
set -eu
cd "$(dirname "$0")/.."
DB=${1:-results.db}
case $DB in /*) ;; *) DB=$(pwd)/$DB ;; esac
[ -f "$DB" ] || {
    echo "demo-numbers.sh: no database '$DB' (run make demo first)" >&2
    exit 2
}
DEMO_DB=$DB exec sh scripts/doc-numbers.sh results-demo
