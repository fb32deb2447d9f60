# t771-plot-no-command-runs.sh - no string reaches gnuplot where it would
# run a command (issue 30, item 1): workload, cluster, device, sweep and
# placer names stored in a results database, the directory of the files,
# the output (-o), data (--csv) and script (--script) names carry
# backquotes, $(...), @macros, quotes, newlines, a data file name starting
# with '<' and an output starting with '|'; every plot kind draws and not
# one PWNED file is made.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

command -v gnuplot > /dev/null || test_skip_all 'gnuplot is not installed'

nl='
'
# a directory whose name would run commands
D='d`touch PWNED_DIR`$(touch PWNED_DIR2)@M'

test_expect_success 'setup: a sweep whose names would run commands' - <<'EOF'
mkdir "$D"
cat > "$D/w.yaml" <<'YAML'
format: 1
name: "w`touch PWNED_W`$(touch PWNED_W2)'\"\n@M;#x"
ops:
  - {name: "a`touch PWNED_OP`", type: Op, time_us: 30, outputs: [1000000]}
  - {name: b, type: Op, time_us: 30, outputs: [1000000], inputs: ["a`touch PWNED_OP`:0"]}
  - {name: c, type: Op, time_us: 30, inputs: ["b:0"]}
YAML
cat > "$D/c.yaml" <<'YAML'
format: 1
name: "c`touch PWNED_C`'\n"
devices:
  - {name: "g`touch PWNED_G`'\"\n@M", count: 2, memory: 16GiB}
YAML
cat > "$D/s.yaml" <<YAML
name: "s\`touch PWNED_S\`"
workloads: [w.yaml]
clusters: [c.yaml]
placers: [single, m-etf, m-topo]
memory_fractions: [1, 0.5]
store_placement: true
YAML
(cd "$D" && expect_exit 0 "$BAECHI" sweep s.yaml --db r.db -j 1 --quiet)
if command -v sqlite3 > /dev/null; then
    # what a shared database may hold: a placer name, a graph size that is text
    sqlite3 "$D/r.db" "UPDATE runs SET placer = 'p\`touch PWNED_P\`' WHERE placer = 'm-topo';
        UPDATE runs SET n_ops = '3), system(\"touch PWNED_N\"), (\"\"' WHERE placer = 'single'"
fi
EOF

# fails when a command ran (and removes what it made: each check on its own)
no_pwned() {
    if find . -name 'PWNED*' | grep -q .; then
        echo "a command ran:"; find . -name 'PWNED*'
        find . -name 'PWNED*' -exec rm -f {} +
        exit 1
    fi
}

# the names stored in the database alone (plain file names), then with
# the output, data and script files in that directory, with names of their own
for kind in step placement-time memory peak gantt scaling line memory-timeline; do
    test_expect_success "plot $kind: names in the database run nothing" - <<'EOF'
by=
case $kind in memory | line) by="--by cluster" ;; esac
expect_exit 0 "$BAECHI" plot $kind --db "$D/r.db" $by -o o.png --script g.gp
test -s o.png
# the names did reach the script (else this proves nothing)
grep -q 'touch PWNED_[WGC]' g.gp
no_pwned
EOF
done

O="$D/o"'`touch PWNED_O`'"'${nl}@M.png"
CSV="$D/c"'$(touch PWNED_CSV)'"$nl.csv"
GP="$D/g"'`touch PWNED_GP`'".gp"
for kind in step placement-time memory peak gantt scaling line memory-timeline; do
    test_expect_success "plot $kind: and the file names: nothing runs" - <<'EOF'
by=
case $kind in memory | line) by="--by cluster" ;; esac
expect_exit 0 "$BAECHI" plot $kind --db "$D/r.db" $by -o "$O" --csv "$CSV" --script "$GP"
test -s "$O"
test -s "$CSV"
no_pwned
EOF
done

test_expect_success 'a data file named <cmd and an output named |cmd run nothing' '
    expect_exit 0 "$BAECHI" plot step --db "$D/r.db" -o "|touch PWNED_PIPE.png" \
        --csv "<touch PWNED_LT.csv" --script "-x.gp"
    test -s "|touch PWNED_PIPE.png"
    test -s "<touch PWNED_LT.csv"
    no_pwned
'

test_expect_success 'the name of the figure written is shown escaped' - <<'EOF'
expect_exit 0 "$BAECHI" plot peak --db "$D/r.db" -o "$(printf 'e\033[31m.png')"
grep -qF 'baechi: wrote e\x1b[31m.png' err || { cat -A err; exit 1; }
EOF

test_expect_success 'the kept script run again by gnuplot itself runs nothing' '
    gnuplot "$GP" > /dev/null 2>&1
    test -s "$O"
    no_pwned
'

test_done
