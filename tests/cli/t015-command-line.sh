# A consistent command line: -p is the placer everywhere (sim and replay take
# the placement as --placement), did-you-mean for commands, verbs, placers and
# cluster presets, help without glitches for every command and verb.
. "$TOP/tests/cli/lib.sh"
W="$TOP/tests/data/t1.yaml"
C="$TOP/tests/data/t1-cluster.yaml"

# sim -p <placer> says what to do instead of "cannot open 'm-etf'"
test_expect_success 'sim -p PLACER says to use run -p or --placement' - <<'EOF'
expect_exit 2 "$BAECHI" sim -w "$GNMT" -c paper-4gpu-pcie -p m-etf
expect_grep "'m-etf' is a placer" "$TMPDIR_TEST/err"
expect_grep "baechi run -p m-etf" "$TMPDIR_TEST/err"
expect_grep "[-]-placement" "$TMPDIR_TEST/err"
if grep -q "cannot open" "$TMPDIR_TEST/err"; then exit 1; fi
EOF

test_expect_success 'sim -p with a misspelt placer: the most similar one' '
    expect_exit 2 "$BAECHI" sim -w "$GNMT" -c paper-4gpu-pcie -p m-eft
    expect_grep "The most similar placer is" "$TMPDIR_TEST/err"
    expect_grep "^	m-etf$" "$TMPDIR_TEST/err"
'

# -p given is the placer 'given' (the workload's own placement); --placement FILE
test_expect_success '-p given is the placer given; --placement FILE' - <<'EOF'
expect_exit 0 "$BAECHI" sim -w "$W" -c "$C" -p given
expect_exit 0 "$BAECHI" sim -w "$W" -c "$C" --placement "$TOP/tests/data/t1-placement.yaml"
expect_exit 2 "$BAECHI" sim -w "$W" -c "$C" --placement given -p given
EOF

# -p FILE (what -p meant in sim before) still reads a file that names no placer
test_expect_success 'sim -p FILE still reads a placement file' - <<'EOF'
expect_exit 0 "$BAECHI" sim -w "$W" -c "$C" -p "$TOP/tests/data/t1-placement.yaml" --json
expect_grep '"placer": "hand"' "$TMPDIR_TEST/out"
EOF

# an infeasible placement is reported once: place on stderr (its stdout is the
# placement file), run on stdout
test_expect_success 'place: an infeasible placement is reported once, on stderr' '
    expect_exit 3 "$BAECHI" place -w "$GNMT" -c paper-4gpu-pcie -p m-etf --memory-fraction 0.05
    test ! -s "$TMPDIR_TEST/out"
    test "$(wc -l < "$TMPDIR_TEST/err")" -eq 1 || { cat "$TMPDIR_TEST/err"; exit 1; }
    expect_grep "missing [0-9.]+ [KMGT]?i?B\)" "$TMPDIR_TEST/err"
'

test_expect_success 'replay -p PLACER says it is a placer' - <<'EOF'
expect_exit 2 "$BAECHI" replay -w "$W" -c "$C" -p m-sct
expect_grep "'m-sct' is a placer" "$TMPDIR_TEST/err"
EOF

# did-you-mean
test_expect_success 'did you mean: a command' '
    expect_exit 2 "$BAECHI" plcae
    expect_grep "The most similar command is" "$TMPDIR_TEST/err"
    expect_grep "^	place$" "$TMPDIR_TEST/err"
'

test_expect_success 'did you mean: a verb' '
    expect_exit 2 "$BAECHI" workload inof
    expect_grep "^	info$" "$TMPDIR_TEST/err"
'

test_expect_success 'did you mean: a placer of place' '
    expect_exit 2 "$BAECHI" place -w "$GNMT" -c paper-4gpu-pcie -p m-eft
    expect_grep "^	m-etf$" "$TMPDIR_TEST/err"
'

test_expect_success 'did you mean: a cluster preset' '
    expect_exit 2 "$BAECHI" run -w "$GNMT" -c paper-4gpu -p m-etf
    expect_grep "The most similar preset is" "$TMPDIR_TEST/err"
    expect_grep "^	paper-4gpu-pcie$" "$TMPDIR_TEST/err"
'

test_expect_success 'nothing similar: no suggestion' '
    expect_exit 2 "$BAECHI" xyzzy
    if grep -q "most similar" "$TMPDIR_TEST/err"; then exit 1; fi
'

# help: every command and verb, no doubled "or:", no note as a usage line
test_expect_success 'setup: the top-level help' '
    expect_exit 0 "$BAECHI" --help
    cp "$TMPDIR_TEST/out" "$TMPDIR_TEST/top"
    expect_grep "^    workload +info, gen, train, import, annotate" "$TMPDIR_TEST/top"
'

test_expect_success 'every command and verb answers --help' - <<'EOF'
for c in $(sed -n 's/^    \([a-z]*\)  .*/\1/p' "$TMPDIR_TEST/top"); do
    expect_exit 0 "$BAECHI" $c --help
    cp "$TMPDIR_TEST/out" "$TMPDIR_TEST/help-$c"
    verbs=$(sed -n '/^verbs:/,/^$/s/^    \([a-z]*\) .*/\1/p' "$TMPDIR_TEST/help-$c")
    for v in $verbs; do
        expect_exit 0 "$BAECHI" $c $v --help
        cp "$TMPDIR_TEST/out" "$TMPDIR_TEST/help-$c-$v"
    done
done
EOF

test_expect_success 'at least 17 help texts' '
    n=$(ls "$TMPDIR_TEST"/help-* | wc -l)
    test "$n" -ge 17 || { echo "only $n help texts"; exit 1; }
'

test_expect_success 'no doubled or: and no note as a usage line' - <<'EOF'
if grep -nE 'or: +or:|^ +or: [a-z]+:' "$TMPDIR_TEST"/help-*; then
    echo "glitch in a help text"; exit 1
fi
EOF

test_expect_success 'help texts name the models, mpirun and --placement' '
    expect_grep "^models: inception-v3" "$TMPDIR_TEST/help-workload-gen"
    expect_grep "^   or: mpirun -np" "$TMPDIR_TEST/help-sweep"
    expect_grep "[-]-placement F" "$TMPDIR_TEST/help-sim"
'

test_done
