#!/bin/sh
# mutate.sh [--list] [NAME...] - `make mutate`: applies each mutation of
# tests/mutations.txt, one at a time, to a scratch copy of the working tree,
# rebuilds and runs the test named for it, which must fail ("killed").  A
# mutation the test survives, or whose code is no longer in its file, makes
# the run exit 1.  With names, only those mutations.  The repository itself
# is never modified.  Outside `make check` (each mutation is a rebuild).
#
# The list's format, one block per mutation, blank lines between:
#   name: 1f1b-warmup            (unique, [a-z0-9-])
#   file: sim/sim_sched.c
#   from: w = min32(k - st - 1, s->total);     (exact text, once in the file)
#   to:   w = s->total;
#   test: t130                   (a CLI test, or unit:SUITE/TEST filter)
#   why:  the 1F1B warm-up gate (what the mutation breaks)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
list=$top/tests/mutations.txt
only="$*"
[ "${1:-}" = --list ] && { grep '^name:' "$list" | sed 's/^name: *//'; exit 0; }

scratch=$(mktemp -d "${TMPDIR:-/tmp}/baechi-mutate.XXXXXX")
trap 'rm -rf "$scratch"' EXIT INT TERM HUP
echo "mutate: a scratch copy in $scratch"
(cd "$top" && git ls-files -z --cached --others --exclude-standard |
    xargs -0 cp --parents -t "$scratch" 2> /dev/null) || exit 2
make -C "$scratch" -s -j2 all build/unit-tests > "$scratch/.build.log" 2>&1 ||
    { tail -20 "$scratch/.build.log"; echo "mutate: the unmutated copy does not build"; exit 2; }

killed=0 survived=0 missing=0
# one mutation per line, as JSON (exact text, no regexes)
python3 "$top/scripts/mutations.py" "$list" > "$scratch/.blocks" || exit 2
while IFS= read -r b; do
    name=$(printf '%s' "$b" | python3 -c 'import json,sys; print(json.load(sys.stdin)["name"])')
    if [ -n "$only" ] && ! printf ' %s ' "$only" | grep -q " $name "; then continue; fi
    file=$(printf '%s' "$b" | python3 -c 'import json,sys; print(json.load(sys.stdin)["file"])')
    test=$(printf '%s' "$b" | python3 -c 'import json,sys; print(json.load(sys.stdin)["test"])')
    cp "$scratch/$file" "$scratch/.orig"
    if ! printf '%s' "$b" | python3 -c '
import json, sys
b = json.load(sys.stdin); p = sys.argv[1]
s = open(p, encoding="utf-8").read()
if s.count(b["from"]) != 1:
    sys.exit("from occurs %d times" % s.count(b["from"]))
open(p, "w", encoding="utf-8").write(s.replace(b["from"], b["to"]))' "$scratch/$file"; then
        echo "MISSING  $name: its code is not once in $file"
        missing=$((missing + 1))
        continue
    fi
    if ! make -C "$scratch" -s -j2 all build/unit-tests > "$scratch/.build.log" 2>&1; then
        result=killed how="does not build"
    else
        case $test in
        unit:*)
            (cd "$scratch" && ./build/unit-tests --filter "${test#unit:}" > "$scratch/.test.log" 2>&1)
            ;;
        *)
            f=$(ls "$scratch"/tests/cli/"$test"*.sh | head -1)
            d=$(mktemp -d "$scratch/.t.XXXXXX")
            (cd "$scratch" && BAECHI="$scratch/build/baechi" TOP="$scratch" TMPDIR_TEST="$d" \
                timeout 600 sh "$f" > "$scratch/.test.log" 2>&1)
            ;;
        esac
        rc=$?
        if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then result=killed how="$test failed"; else
            result=survived how="$test passed"; fi
    fi
    cp "$scratch/.orig" "$scratch/$file"
    if [ $result = killed ]; then
        killed=$((killed + 1)); echo "killed   $name ($how)"
    else
        survived=$((survived + 1)); echo "SURVIVED $name ($how)"
    fi
done < "$scratch/.blocks"
echo "mutate: $killed killed, $survived survived, $missing missing"
[ $survived -eq 0 ] && [ $missing -eq 0 ]
