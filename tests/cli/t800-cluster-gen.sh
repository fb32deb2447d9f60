# check: fast
# `baechi cluster gen` (issue 32 item 1): writes a cluster file with a fat
# tree that reads back (sim -c accepts it); bad option values exit 2; a bad
# topology value in a file names file:line:column.
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"

test_expect_success 'gen: a 3-tier 2048-node file reads back' - <<'EOF2'
expect_exit 0 "$BAECHI" cluster gen --nodes 2048 --tiers 3 --oversubscription 2 -o big.yaml
expect_grep '^  tiers: 3$' big.yaml
expect_grep '^  oversubscription: 2$' big.yaml
expect_grep '^  nodes_per_pod: 256$' big.yaml
expect_grep '^    count: 16384$' big.yaml
EOF2

test_expect_success 'gen: bad values exit 2' - <<'EOF2'
expect_exit 2 "$BAECHI" cluster gen --nodes 4 --tiers 4
expect_exit 2 "$BAECHI" cluster gen --nodes 4 --oversubscription 2
expect_exit 2 "$BAECHI" cluster gen --nodes 4 --gpu z80
EOF2

test_expect_success 'a bad tiers value names file:line:col' - <<'EOF2'
expect_exit 0 "$BAECHI" cluster gen --nodes 4 --tiers 2 -o g.yaml
sed 's/^  tiers: 2$/  tiers: 5/' g.yaml > bad.yaml
printf 'format: 1\nname: x\nops:\n  - {name: a, type: A, time_us: 1, outputs: [100], device: 0}\n  - {name: b, type: B, time_us: 1, inputs: ["a:0"], device: 8}\n' > w.yaml
expect_exit 2 "$BAECHI" sim -w w.yaml -c bad.yaml --placement given
expect_grep 'bad.yaml:[0-9]+:[0-9]+: .*tiers' "$TMPDIR_TEST/err"
expect_exit 0 "$BAECHI" sim -w w.yaml -c g.yaml --placement given
EOF2

test_done
