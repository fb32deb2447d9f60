# check: fast
# t911-progress.sh - `--progress[=WHEN]` of sim and run (issue 32 item 3):
# one line on stderr redrawn with \r, every 65,536 ops simulated and once at
# the end, with --progress=always; with --progress (auto) only when stderr is
# a terminal; stdout and the results byte-identical with and without it.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

test_expect_success 'setup: a chain of 70,000 ops, placed' - <<'EOF'
"$BAECHI" workload gen synthetic --shape chain --ops 70000 -o c.yaml > /dev/null
"$BAECHI" place -w c.yaml -c paper-4gpu-pcie -p m-topo -o p.yaml 2> /dev/null
EOF

SIM='-w c.yaml -c paper-4gpu-pcie --placement p.yaml'

test_expect_success 'sim --progress=always: progress lines on stderr, stdout unchanged' - <<'EOF'
for j in "" --json; do
    "$BAECHI" sim $SIM $j > plain.out 2> plain.err
    "$BAECHI" sim $SIM $j --progress=always > prog.out 2> prog.err
    cmp plain.out prog.out
    test ! -s plain.err
    tr '\r' '\n' < prog.err | grep . > lines
    cat lines
    test "$(wc -l < lines)" = 2
    grep -qx 'sim: 65536 / 70000 ops (94 %), simulated [0-9.]* s' lines
    grep -qx 'sim: 70000 / 70000 ops (100 %), simulated [0-9.]* s' lines
    # the \r redraws one line, which the last update ends
    test "$(head -c 1 prog.err)" = "$(printf '\r')"
    test "$(tail -c 1 prog.err | od -An -c | tr -d ' ')" = '\n'
done
EOF

test_expect_success 'sim: nothing on stderr without --progress, with it (auto) or never when not a tty' - <<'EOF'
for p in "" --progress --progress=auto --progress=never; do
    "$BAECHI" sim $SIM $p > out.txt 2> err.txt < /dev/null
    test ! -s err.txt || { echo "'$p': $(cat err.txt)"; exit 1; }
done
EOF

test_expect_success 'run --progress=always: the timed model'"'"'s line, the results unchanged' - <<'EOF'
RUN='-w c.yaml -c paper-4gpu-pcie -p m-topo --json'
"$BAECHI" run $RUN 2> plain.err | sed -E 's/"[a-z_]*_ms": [0-9.e+-]*//g' > plain.out
"$BAECHI" run $RUN --progress=always 2> prog.err |
    sed -E 's/"[a-z_]*_ms": [0-9.e+-]*//g' > prog.out
cmp plain.out prog.out
tr '\r' '\n' < prog.err | grep -x 'run: timed: 70000 / 70000 ops (100 %), simulated [0-9.]* s'
"$BAECHI" run $RUN --progress > /dev/null 2> auto.err
test ! -s auto.err
EOF

test_expect_success 'a WHEN other than auto, always or never: exit 2' - <<'EOF'
expect_exit 2 "$BAECHI" sim $SIM --progress=sometimes
expect_grep 'progress=sometimes: expected auto, always or never' "$TMPDIR_TEST/err"
expect_exit 2 "$BAECHI" run -w c.yaml -c paper-4gpu-pcie -p m-topo --progress=1
EOF

# auto on a terminal: script(1) gives the program one
if command -v script > /dev/null && script -qec true /dev/null > /dev/null 2>&1; then
    test_expect_success 'sim --progress on a terminal draws the line; without it, nothing' - <<'EOF'
script -qec "\"$BAECHI\" sim $SIM --progress > tty.out" /dev/null > tty.log
tr '\r' '\n' < tty.log | grep -q 'sim: 70000 / 70000 ops (100 %)' || { cat tty.log; exit 1; }
script -qec "\"$BAECHI\" sim $SIM > tty.out" /dev/null > tty2.log
test ! -s tty2.log || { od -c tty2.log | head; exit 1; }
EOF
else
    test_skip 'sim --progress on a terminal draws the line' 'no script(1)'
fi

test_done
